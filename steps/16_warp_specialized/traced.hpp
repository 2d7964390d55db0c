// Step 16 in the traced registry (steps/traced_steps.hpp gathers every traced step's): its program
// (launch, trace, tunables, who holds C), the pipeline the viewer's timeline draws and its stage of
// shared memory (TMA boxes in, wgmma descriptors out), each from the step's own mapping functions.
// Host-only; CMake includes this file in build/generated/traced_registry.hpp (docs/design.md,
// "Checklist: adding a step").
#pragma once

#include <vector>

#include "16_warp_specialized/mapping.hpp"
#include "shared_stages.hpp"
#include "traced_program.hpp"

namespace gemm::shared_stages {

// Consumer warpgroups of 64 rows each, A's tile cut for them by operand_offset.
struct Step16 {
  using Config = step16::Config;
  using Op = step16::TmaOperand;
  static constexpr int kElementBytes = step16::kElementBytes, kBoxInner = step16::kBoxInner,
                       kWgmmaM = step16::kWgmmaM, kWgmmaK = step16::kWgmmaK;
  static constexpr const char* kDescriptors =
      "wgmma_descriptor(tile + operand_offset(op, consumer, k-step), descriptor_strides(op))";
  static Config config(const TraceProblem& p) { return step16::config_from(p.params); }
  static Op a(const TraceProblem& p, const Config& c) { return step16::a_operand(p.shape, p.layout, c); }
  static Op b(const TraceProblem& p, const Config& c) { return step16::b_operand(p.shape, p.layout, c); }
  static bool k_major(const Op& op) { return op.k_major; }
  static int tile_byte(const Op& op, int mn, int k) { return step16::tile_byte(op, mn, k); }
  static int b_boxes(const Op& op, bool) { return op.boxes; }
  static int consumers(const Config& c) { return step16::consumers(c); }
  static int cluster(const Config&) { return 1; }
  static constexpr int kNarrowCols = 0;
  static FirstTile tile(const TraceProblem&, const Dim3& block, const Config&) {
    const step16::TileCoord t = step16::tile_of(block);
    return {true, t.m, t.n, 0, false, false};
  }
  static std::uint64_t a_descriptor(const Op& op, const Config& c, int stage, int consumer, int kk) {
    return step16::wgmma_descriptor(a_tile_at(c, stage) + unsigned(step16::operand_offset(op, consumer, kk)),
                                    step16::descriptor_strides(op));
  }
  static std::uint64_t b_descriptor(const Op& op, const Config& c, int stage, int kk) {
    return step16::wgmma_descriptor(b_tile_at(c, stage) + unsigned(step16::operand_offset(op, 0, kk)),
                                    step16::descriptor_strides(op));
  }
};

}  // namespace gemm::shared_stages

namespace gemm::traced {

inline TracedProgram step16_program() {
  TracedProgram program{"16_warp_specialized", "", "hopper_gemm", true, {}, step16::trace_warp};
  program.launch = [](const TraceProblem& p) { return step16::trace_launch_shape(p, step16::config_from(p.params)); };
  detail::add_tunables(program, step16::kTunables, step16::kConfigs);
  program.accumulators = step16::warp_accumulators;
  program.tensor_core = true;
  program.shape_rule = tc_aligned_rows_rule;
  program.iteration_unit = "tile";  // one tile per block: its epilogue is the whole trace
  program.quiet_warps = "the producer warps 0-3 hand their copies to the Tensor Memory Accelerator (TMA)";
  program.pipeline = [](const TraceProblem& p, const Dim3& block, int) {
    const step16::TileCoord tile = step16::tile_of(block);
    return pipelines::warp_specialized(p.shape, step16::config_from(p.params), BlockTile{-1, 0, tile.m, tile.n});
  };
  program.shared_stage = shared_stages::hopper_stage<shared_stages::Step16>;
  return program;
}
inline void add_step16(std::vector<TracedProgram>& list) { list.push_back(step16_program()); }

}  // namespace gemm::traced
