#include "trace.hpp"

namespace gemm {

const char* to_string(Operand operand) {
  switch (operand) {
    case Operand::A: return "A";
    case Operand::B: return "B";
    case Operand::C: return "C";
    case Operand::smem_A: return "shared A";
    case Operand::smem_B: return "shared B";
    case Operand::tile: return "shared tile";
    case Operand::out: return "out";
    case Operand::scales: return "scales";
  }
  return "?";
}

int threads_per_block(const Dim3& block_dim) { return block_dim.x * block_dim.y * block_dim.z; }

int warps_per_block(const Dim3& block_dim) { return (threads_per_block(block_dim) + kWarpSize - 1) / kWarpSize; }

WarpLanes warp_lanes(const Dim3& block_dim, const Dim3& block, int warp) {
  WarpLanes lanes;
  const int threads = threads_per_block(block_dim);
  for (int lane = 0; lane < kWarpSize; ++lane) {
    const int thread = warp * kWarpSize + lane;
    if (thread >= threads) continue;
    lanes.exists |= 1u << lane;
    ThreadCoord& coord = lanes.coord[size_t(lane)];
    coord.block = block;
    coord.thread.x = thread % block_dim.x;
    coord.thread.y = (thread / block_dim.x) % block_dim.y;
    coord.thread.z = thread / (block_dim.x * block_dim.y);
  }
  return lanes;
}

}  // namespace gemm
