// Step 15 in the traced registry (steps/traced_steps.hpp gathers every traced step's): its program
// (launch, trace, tunables, who holds C), the pipeline the viewer's timeline draws and its stage of
// shared memory (TMA boxes in, wgmma descriptors out), each from the step's own mapping functions.
// Host-only; CMake includes this file in build/generated/traced_registry.hpp (docs/design.md,
// "Checklist: adding a step").
#pragma once

#include <vector>

#include "15_tma_wgmma/mapping.hpp"
#include "shared_stages.hpp"
#include "traced_program.hpp"

namespace gemm::shared_stages {

// One warpgroup, one tile per block, each layout.
struct Step15 {
  using Config = step15::Config;
  using Op = step15::TmaOperand;
  static constexpr int kElementBytes = step15::kElementBytes, kBoxInner = step15::kBoxInner,
                       kWgmmaM = step15::kWgmmaM, kWgmmaK = step15::kWgmmaK;
  static constexpr const char* kDescriptors =
      "wgmma_descriptor(tile + operand_offset(op, k-step), descriptor_strides(op))";
  static Config config(const TraceProblem& p) { return step15::config_from(p.params); }
  static Op a(const TraceProblem& p, const Config& c) { return step15::a_operand(p.shape, p.layout, c); }
  static Op b(const TraceProblem& p, const Config& c) { return step15::b_operand(p.shape, p.layout, c); }
  static bool k_major(const Op& op) { return op.k_major; }
  static int tile_byte(const Op& op, int mn, int k) { return step15::tile_byte(op, mn, k); }
  static int b_boxes(const Op& op, bool) { return op.boxes; }
  static int consumers(const Config&) { return 1; }
  static int cluster(const Config&) { return 1; }
  static constexpr int kNarrowCols = 0;  // no narrow tiles
  static FirstTile tile(const TraceProblem&, const Dim3& block, const Config&) {
    const step15::TileCoord t = step15::tile_of(block);
    return {true, t.m, t.n, 0, false, false};
  }
  static std::uint64_t a_descriptor(const Op& op, const Config& c, int stage, int, int kk) {
    return step15::wgmma_descriptor(a_tile_at(c, stage) + unsigned(step15::operand_offset(op, kk)),
                                    step15::descriptor_strides(op));
  }
  static std::uint64_t b_descriptor(const Op& op, const Config& c, int stage, int kk) {
    return step15::wgmma_descriptor(b_tile_at(c, stage) + unsigned(step15::operand_offset(op, kk)),
                                    step15::descriptor_strides(op));
  }
};

}  // namespace gemm::shared_stages

namespace gemm::traced {

inline TracedProgram step15_program() {
  TracedProgram program{"15_tma_wgmma", "", "hopper_gemm", true, {}, step15::trace_warp};
  program.launch = [](const TraceProblem& p) { return step15::trace_launch_shape(p, step15::config_from(p.params)); };
  detail::add_tunables(program, step15::kTunables, step15::kConfigs);
  program.accumulators = step15::warp_accumulators;
  program.tensor_core = true;
  program.shape_rule = tc_aligned_rows_rule;
  program.iteration_unit = "tile";  // one tile per block: its epilogue is the whole trace
  program.pipeline = [](const TraceProblem& p, const Dim3& block, int) {
    const step15::TileCoord tile = step15::tile_of(block);
    return pipelines::tma_one_warpgroup(p.shape, step15::config_from(p.params), BlockTile{-1, 0, tile.m, tile.n});
  };
  program.shared_stage = shared_stages::hopper_stage<shared_stages::Step15>;
  return program;
}
inline void add_step15(std::vector<TracedProgram>& list) { list.push_back(step15_program()); }

}  // namespace gemm::traced
