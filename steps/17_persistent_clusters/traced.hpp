// Step 17 in the traced registry (steps/traced_steps.hpp gathers every traced step's): its program
// (launch, trace, tunables, who holds C), the pipeline the viewer's timeline draws and how its grid
// deals the tiles, and its stage of shared memory (TMA boxes in, wgmma descriptors out), each from
// the step's own mapping functions. Host-only; CMake includes this file in
// build/generated/traced_registry.hpp (docs/design.md, "Checklist: adding a step").
#pragma once

#include <vector>

#include "16_warp_specialized/traced.hpp"
#include "17_persistent_clusters/mapping.hpp"
#include "shared_stages.hpp"
#include "traced_program.hpp"

namespace gemm::shared_stages {

// Persistent blocks in clusters sharing B's boxes (multicast).
struct Step17 {
  using Config = step17::Config;
  using Op = step17::TmaOperand;
  static constexpr int kElementBytes = step17::kElementBytes, kBoxInner = step17::kBoxInner,
                       kWgmmaM = step17::kWgmmaM, kWgmmaK = step17::kWgmmaK;
  static constexpr const char* kDescriptors = Step16::kDescriptors;
  static Config config(const TraceProblem& p) { return step17::config_from(p.params); }
  static Op a(const TraceProblem& p, const Config& c) { return step17::a_operand(p.shape, p.layout, c); }
  static Op b(const TraceProblem& p, const Config& c) { return step17::b_operand(p.shape, p.layout, c); }
  static bool k_major(const Op& op) { return op.k_major; }
  static int tile_byte(const Op& op, int mn, int k) { return step17::tile_byte(op, mn, k); }
  static int b_boxes(const Op& op, bool) { return op.boxes; }
  static int consumers(const Config& c) { return step17::consumers(c); }
  static int cluster(const Config& c) { return c.cluster; }
  static constexpr int kNarrowCols = 0;
  static FirstTile tile(const TraceProblem& p, const Dim3& block, const Config& c) {
    return persistent_first_tile(p, block, c, step17::trace_launch_shape, step17::units, step17::tile_at,
                                 step17::tiles_m, [](int, const GemmShape&, const Config&) { return false; });
  }
  static std::uint64_t a_descriptor(const Op& op, const Config& c, int stage, int consumer, int kk) {
    return step17::wgmma_descriptor(a_tile_at(c, stage) + unsigned(step17::operand_offset(op, consumer, kk)),
                                    step17::descriptor_strides(op));
  }
  static std::uint64_t b_descriptor(const Op& op, const Config& c, int stage, int kk) {
    return step17::wgmma_descriptor(b_tile_at(c, stage) + unsigned(step17::operand_offset(op, 0, kk)),
                                    step17::descriptor_strides(op));
  }
};

}  // namespace gemm::shared_stages

namespace gemm::traced {

inline TracedProgram step17_program() {
  TracedProgram program{"17_persistent_clusters", "", "hopper_gemm", true, {}, step17::trace_warp};
  program.launch = [](const TraceProblem& p) { return step17::trace_launch_shape(p, step17::config_from(p.params)); };
  detail::add_tunables(program, step17::kTunables, step17::kConfigs);
  program.accumulators = step17::warp_accumulators;
  program.tensor_core = true;
  program.shape_rule = tc_aligned_rows_rule;
  program.iteration_unit = "tile";  // the block's tiles, in the order it takes them
  program.quiet_warps = "the producer warps 0-3 hand their copies to the Tensor Memory Accelerator (TMA)";
  // The persistent pipeline as such: no narrow tiles, counted time or promotion (pipelines::kNarrowTiles, ...).
  program.pipeline = [](const TraceProblem& p, const Dim3& block, int out_bytes) {
    return pipelines::persistent_pipeline<0>(p, step17::config_from(p.params), block.x, out_bytes, step17::kTraceSms);
  };
  program.persistent = [](const TraceProblem& p) {
    return pipelines::persistent_plan<0>(p, step17::config_from(p.params), step17::kTraceSms);
  };
  program.shared_stage = shared_stages::hopper_stage<shared_stages::Step17>;
  return program;
}
inline void add_step17(std::vector<TracedProgram>& list) { list.push_back(step17_program()); }

}  // namespace gemm::traced
