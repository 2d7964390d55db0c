// Step 05, shared-memory tiling: the index math, shared by the kernel, the host tests and the viewer.
//
// Same threads as step 02 (one per element of C, threadIdx.x walking the columns, blocks of 32 x 32),
// but K is walked in tiles of 32: at each k-tile the block copies a 32 x 32 tile of A (its 32 rows of
// C) and a 32 x 32 tile of B (its 32 columns) into shared memory, one element per thread, both reads
// coalesced; then every thread does 32 multiply-adds from shared memory. Each element of A and B is
// read from global memory once per block instead of once per thread: 32 times fewer global loads.
// Elements past the edge of A or B are stored as 0, so the multiply-adds need no bounds checks.
#pragma once

#include "hd.hpp"
#include "trace.hpp"

namespace step05 {

using gemm::ceil_div;
using gemm::CElement;
using gemm::GemmShape;
using gemm::LaunchShape;
using gemm::ThreadCoord;

constexpr int kTile = 32;  // threads per block along x and y, and the side of the shared tiles
constexpr int kAMergedLoads = 4;  // A-tile words the compiler loads at once (see trace_warp)

// An element of A or B a thread copies into shared memory, and whether it exists.
struct MatrixCoord {
  int row = 0, col = 0;
  bool valid = false;
};

GEMM_HD LaunchShape launch_shape(const GemmShape& shape) {
  LaunchShape launch;
  launch.grid = {ceil_div(shape.m, kTile), ceil_div(shape.n, kTile), 1};
  launch.block = {kTile, kTile, 1};
  return launch;
}

GEMM_HD int k_tiles(const GemmShape& shape) { return ceil_div(shape.k, kTile); }

// The element of C a thread computes: threadIdx.x -> column, threadIdx.y -> row (as in step 02).
GEMM_HD CElement c_element(const GemmShape& shape, const ThreadCoord& t) {
  CElement e;
  e.row = t.block.x * kTile + t.thread.y;
  e.col = t.block.y * kTile + t.thread.x;
  e.valid = e.row < shape.m && e.col < shape.n;
  return e;
}

// At k-tile kt, thread (tx, ty) copies A(block row + ty, kt*32 + tx) and B(kt*32 + ty, block column + tx):
// a warp reads 32 consecutive floats of one row of A and of one row of B.
GEMM_HD MatrixCoord a_tile_source(const GemmShape& shape, const ThreadCoord& t, int kt) {
  MatrixCoord m;
  m.row = t.block.x * kTile + t.thread.y;
  m.col = kt * kTile + t.thread.x;
  m.valid = m.row < shape.m && m.col < shape.k;
  return m;
}
GEMM_HD MatrixCoord b_tile_source(const GemmShape& shape, const ThreadCoord& t, int kt) {
  MatrixCoord m;
  m.row = kt * kTile + t.thread.y;
  m.col = t.block.y * kTile + t.thread.x;
  m.valid = m.row < shape.k && m.col < shape.n;
  return m;
}

// Both shared tiles are kTile x kTile floats, row-major; a thread stores its copy at [ty][tx].
GEMM_HD int tile_store_index(const ThreadCoord& t) { return t.thread.y * kTile + t.thread.x; }
// At step kk of the inner loop: A tile [ty][kk] (the same word for the whole warp: a broadcast) and
// B tile [kk][tx] (32 consecutive words: 32 banks).
GEMM_HD int a_tile_load_index(const ThreadCoord& t, int kk) { return t.thread.y * kTile + kk; }
GEMM_HD int b_tile_load_index(const ThreadCoord& t, int kk) { return kk * kTile + t.thread.x; }

GEMM_HD int a_index(const GemmShape& shape, const MatrixCoord& m) { return m.row * shape.k + m.col; }
GEMM_HD int b_index(const GemmShape& shape, const MatrixCoord& m) { return m.row * shape.n + m.col; }
GEMM_HD int c_index(const GemmShape& shape, const CElement& e) { return e.row * shape.n + e.col; }

// One warp's memory instructions in program order, from the functions above.
inline void trace_warp(const gemm::TraceProblem& problem, const gemm::Dim3& block, int warp,
                       const gemm::TraceSink& emit) {
  using gemm::Access;
  using gemm::Operand;
  using gemm::Space;
  const GemmShape& s = problem.shape;
  const gemm::WarpLanes lanes = gemm::warp_lanes(launch_shape(s).block, block, warp);
  auto coord = [&](int lane) { return lanes.coord[size_t(lane)]; };
  std::uint32_t c_active = 0;
  for (int lane = 0; lane < gemm::kWarpSize; ++lane)
    if (((lanes.exists >> lane) & 1u) && c_element(s, coord(lane)).valid) c_active |= 1u << lane;
  for (int kt = 0; kt < k_tiles(s); ++kt) {
    std::uint32_t a_active = 0, b_active = 0;
    for (int lane = 0; lane < gemm::kWarpSize; ++lane) {
      if (!((lanes.exists >> lane) & 1u)) continue;
      if (a_tile_source(s, coord(lane), kt).valid) a_active |= 1u << lane;
      if (b_tile_source(s, coord(lane), kt).valid) b_active |= 1u << lane;
    }
    emit(gemm::make_instruction(Space::global, Access::load, Operand::A, 4, kt, "ld.global A tile element", a_active,
                                [&](int lane) { return a_index(s, a_tile_source(s, coord(lane), kt)); }));
    emit(gemm::make_instruction(Space::global, Access::load, Operand::B, 4, kt, "ld.global B tile element", b_active,
                                [&](int lane) { return b_index(s, b_tile_source(s, coord(lane), kt)); }));
    emit(gemm::make_instruction(Space::shared, Access::store, Operand::smem_A, 4, kt, "st.shared A tile [ty][tx]",
                                lanes.exists, [&](int lane) { return tile_store_index(coord(lane)); }));
    emit(gemm::make_instruction(Space::shared, Access::store, Operand::smem_B, 4, kt, "st.shared B tile [ty][tx]",
                                lanes.exists, [&](int lane) { return tile_store_index(coord(lane)); }));
    // The inner loop as the compiler emits it: a thread's A-tile words [ty][kk .. kk+3] are
    // contiguous and 16-byte aligned, so ptxas loads them with one 16-byte load (LDS.128; the
    // profiler's instruction count confirms it); the B-tile words [kk][tx] are a row apart and stay
    // 4-byte loads.
    for (int kk = 0; kk < kTile; kk += kAMergedLoads) {
      emit(gemm::make_instruction(Space::shared, Access::load, Operand::smem_A, 4 * kAMergedLoads, kt,
                                  "ld.shared.v4 A tile [ty][kk..kk+3]", lanes.exists,
                                  [&](int lane) { return a_tile_load_index(coord(lane), kk); }));
      for (int step = 0; step < kAMergedLoads; ++step)
        emit(gemm::make_instruction(Space::shared, Access::load, Operand::smem_B, 4, kt, "ld.shared B tile [kk][tx]",
                                    lanes.exists, [&](int lane) { return b_tile_load_index(coord(lane), kk + step); }));
    }
  }
  gemm::emit_c_update(problem, 4, k_tiles(s), c_active,
                      [&](int lane) { return c_index(s, c_element(s, coord(lane))); }, emit);
}

}  // namespace step05
