// Traces: the warp-level memory instructions one warp issues, in program order, written by each step
// (in its mapping.hpp) with the same index functions its kernel calls. The viewer draws them; the
// access model prices them; summed over a launch they predict the profiler's counters.
#pragma once

#include <array>
#include <cstdint>
#include <functional>
#include <map>
#include <string>

#include "access_model.hpp"
#include "gemm_types.hpp"
#include "hd.hpp"

namespace gemm {

// What an instruction's lane addresses point into (for drawing, and to turn addresses back into
// matrix coordinates).
// scales: the FP8 step's per-tensor scales, element 0 A's and element 1 B's.
enum class Operand : std::uint8_t { A, B, C, smem_A, smem_B, tile, out, scales };
const char* to_string(Operand operand);

struct TraceInstruction {
  WarpAccess access;       // byte addresses relative to the operand's start (256-byte aligned)
  Operand operand = Operand::A;
  int element_bytes = 4;   // address / element_bytes = element index in the operand
  int iteration = 0;       // the loop iteration that issues it (k, k-tile, repetition)
  const char* label = "";  // e.g. "ld.global A[row*K + k]" (a string literal)
};

using TraceSink = std::function<void(const TraceInstruction&)>;

// What a trace depends on besides the block and warp.
struct TraceProblem {
  GemmShape shape;
  float beta = 0;
  std::map<std::string, int> params;
  std::string variant;
  // The SMs of the GPU the problem runs on, for a program that chooses its tunables by shape when
  // none are set (0: not known; the program's defaults), and the shared memory a block may have
  // there, which the choice must fit (0: not known; as much as any GPU gives, the H100's).
  int sms = 0;
  int shared_per_block = 0;
  // How A and B are stored (the tensor-core steps; the fp32 steps store both row-major: nn).
  Layout layout = Layout::nn;
};

int threads_per_block(const Dim3& block_dim);
int warps_per_block(const Dim3& block_dim);

// The threads behind the 32 lanes of warp `warp` of a block (threads are numbered x fastest, then
// y, then z; lane l of warp w is thread 32w + l). `exists` has a bit for each lane that is a thread.
struct WarpLanes {
  std::array<ThreadCoord, kWarpSize> coord{};
  std::uint32_t exists = 0;
};
WarpLanes warp_lanes(const Dim3& block_dim, const Dim3& block, int warp);

// The lanes of a warp whose thread exists and satisfies predicate(ThreadCoord), as a bit mask.
template <typename Predicate>
std::uint32_t lane_mask(const WarpLanes& lanes, Predicate&& predicate) {
  std::uint32_t mask = 0;
  for (int lane = 0; lane < kWarpSize; ++lane)
    if (((lanes.exists >> lane) & 1u) && predicate(lanes.coord[size_t(lane)])) mask |= 1u << lane;
  return mask;
}

// Builds one instruction; `element_index(lane)` gives the element each active lane touches.
template <typename IndexFn>
TraceInstruction make_instruction(Space space, Access access, Operand operand, int width, int iteration,
                                  const char* label, std::uint32_t active, IndexFn element_index,
                                  int element_bytes = 4) {
  TraceInstruction instruction;
  instruction.access.space = space;
  instruction.access.access = access;
  instruction.access.width = width;
  instruction.access.active = active;
  for (int lane = 0; lane < kWarpSize; ++lane)
    if ((active >> lane) & 1u) instruction.access.address[size_t(lane)] = std::int64_t(element_index(lane)) * element_bytes;
  instruction.operand = operand;
  instruction.element_bytes = element_bytes;
  instruction.iteration = iteration;
  instruction.label = label;
  return instruction;
}

// A cp.async: its global read (the sectors), then its shared write, each carrying the other's lane
// addresses and whether the copy bypasses the L1 (cp.async.cg), because the cost of each depends on
// both (WarpAccess::counterpart).
inline void emit_async_copy(const TraceSink& emit, bool bypasses_l1, TraceInstruction read, TraceInstruction write) {
  for (TraceInstruction* half : {&read, &write}) {
    const TraceInstruction& other = half == &read ? write : read;
    half->access.async_copy = true;
    half->access.bypasses_l1 = bypasses_l1;
    half->access.counterpart_active = other.access.active;
    half->access.counterpart = other.access.address;
  }
  emit(read);
  emit(write);
}

// Sums the access model over every warp of a launch. trace_warp(block, warp, sink) emits a warp's
// instructions.
template <typename TraceWarp>
AccessTotals predict_launch(const LaunchShape& launch, TraceWarp&& trace_warp) {
  AccessTotals totals;
  const TraceSink sink = [&](const TraceInstruction& instruction) { totals.add(instruction.access); };
  const int warps = warps_per_block(launch.block);
  Dim3 block;
  for (block.z = 0; block.z < launch.grid.z; ++block.z)
    for (block.y = 0; block.y < launch.grid.y; ++block.y)
      for (block.x = 0; block.x < launch.grid.x; ++block.x)
        for (int warp = 0; warp < warps; ++warp) trace_warp(block, warp, sink);
  return totals;
}

// The epilogue of every GEMM trace: C read when beta != 0 (BLAS: otherwise never), then written.
template <typename IndexFn>
void emit_c_update(const TraceProblem& problem, int width, int iteration, std::uint32_t active, IndexFn c_at,
                   const TraceSink& emit) {
  if (!active) return;
  if (problem.beta != 0.0f)
    emit(make_instruction(Space::global, Access::load, Operand::C, width, iteration, "ld.global C (beta != 0)", active,
                          c_at));
  emit(make_instruction(Space::global, Access::store, Operand::C, width, iteration, "st.global C", active, c_at));
}

// The trace of a one-element-per-thread kernel (steps 01 and 02): per k, a load of A and a load of
// B; then, when beta != 0, a load of C; then the store of C. The step passes its own functions.
template <typename LaunchFn, typename ElementFn, typename AFn, typename BFn, typename CFn>
void trace_elementwise_gemm(const TraceProblem& problem, const Dim3& block, int warp, const TraceSink& emit,
                            LaunchFn launch_shape, ElementFn c_element, AFn a_index, BFn b_index, CFn c_index) {
  const GemmShape& s = problem.shape;
  const WarpLanes lanes = warp_lanes(launch_shape(s).block, block, warp);
  std::array<CElement, kWarpSize> element{};
  std::uint32_t active = 0;
  for (int lane = 0; lane < kWarpSize; ++lane) {
    if (!((lanes.exists >> lane) & 1u)) continue;
    element[size_t(lane)] = c_element(s, lanes.coord[size_t(lane)]);
    if (element[size_t(lane)].valid) active |= 1u << lane;
  }
  if (!active) return;  // the whole warp is past the edge of C: it returns before any load
  for (int k = 0; k < s.k; ++k) {
    emit(make_instruction(Space::global, Access::load, Operand::A, 4, k, "ld.global A[row*K + k]", active,
                          [&](int lane) { return a_index(s, element[size_t(lane)], k); }));
    emit(make_instruction(Space::global, Access::load, Operand::B, 4, k, "ld.global B[k*N + col]", active,
                          [&](int lane) { return b_index(s, element[size_t(lane)], k); }));
  }
  emit_c_update(problem, 4, s.k, active, [&](int lane) { return c_index(s, element[size_t(lane)]); }, emit);
}

}  // namespace gemm
