// Step 20 in the traced registry (steps/traced_steps.hpp gathers every traced step's): its program
// (launch, trace, tunables, who holds C, its choice by shape), the pipeline the viewer's timeline
// draws and how its grid deals the tiles, and its stage of shared memory (TMA boxes in, wgmma
// descriptors out), each from the step's own mapping functions. Host-only; CMake includes this file
// in build/generated/traced_registry.hpp (docs/design.md, "Checklist: adding a step").
#pragma once

#include <vector>

#include "19_fp8/traced.hpp"
#include "20_overlapped_epilogue/mapping.hpp"
#include "shared_stages.hpp"
#include "traced_program.hpp"

namespace gemm::shared_stages {

struct Step20 {
  using Config = step20::Config;
  using Op = step20::TmaOperand;
  static constexpr int kElementBytes = step20::kElementBytes, kBoxInner = step20::kBoxInner,
                       kWgmmaM = step20::kWgmmaM, kWgmmaK = step20::kWgmmaK, kNarrowCols = step20::kNarrowCols;
  static constexpr const char* kDescriptors = Step19::kDescriptors;
  static Config config(const TraceProblem& p) { return step20::config_from(p.params); }
  static Op a(const TraceProblem& p, const Config& c) { return step20::a_operand(p.shape, c); }
  static Op b(const TraceProblem& p, const Config& c) { return step20::b_operand(p.shape, c); }
  static bool k_major(const Op&) { return true; }
  static int tile_byte(const Op&, int mn, int k) { return step20::tile_byte(mn, k); }
  static int b_boxes(const Op& op, bool narrow) { return step20::b_boxes_copied(op, narrow); }
  static int consumers(const Config& c) { return step20::consumers(c); }
  static int cluster(const Config& c) { return c.cluster; }
  static FirstTile tile(const TraceProblem& p, const Dim3& block, const Config& c) {
    return persistent_first_tile(p, block, c, step20::trace_launch_shape, step20::units, step20::tile_at,
                                 step20::tiles_m, step20::narrow_tile);
  }
  static std::uint64_t a_descriptor(const Op&, const Config& c, int stage, int consumer, int kk) {
    return step20::wgmma_descriptor(a_tile_at(c, stage) + unsigned(step20::operand_offset(consumer, kk)),
                                    step20::descriptor_strides());
  }
  static std::uint64_t b_descriptor(const Op&, const Config& c, int stage, int kk) {
    return step20::wgmma_descriptor(b_tile_at(c, stage) + unsigned(step20::operand_offset(0, kk)),
                                    step20::descriptor_strides());
  }
};

}  // namespace gemm::shared_stages

namespace gemm::traced {

// What the timeline draws of its pipeline: step 19's, and the epilogue under the next
// tile's products (stores_under_next_tile).
constexpr int kStep20Pipeline = pipelines::kNarrowTiles | pipelines::kCountedTime | pipelines::kPromotion |
                             pipelines::kUnderNextTile;

// Step 20 is step 19 but for when 16-bit output is stored; its trace, of f32 output, which it
// stores after each tile (step20::epilogue_under_next_tile), has step 19's instructions: it is
// described as step 19's, with every function its own.
inline TracedProgram step20_program() {
  TracedProgram program = detail::described_as(step19_program(), "20_overlapped_epilogue");
  program.launch = [](const TraceProblem& p) { return step20::trace_launch_shape(p, step20::config_from(p.params)); };
  program.trace = step20::trace_warp;
  detail::add_tunables(program, step20::kTunables, step20::kConfigs);
  program.accumulators = step20::warp_accumulators;
  program.params_for_shape = [](const GemmShape& shape, Layout, const GpuLimits& gpu) {
    return step20::to_params(step20::config_for_shape(shape, gpu.sms));
  };
  program.pipeline = [](const TraceProblem& p, const Dim3& block, int out_bytes) {
    return pipelines::persistent_pipeline<kStep20Pipeline>(p, step20::config_from(p.params), block.x, out_bytes,
                                                           step20::kTraceSms);
  };
  program.persistent = [](const TraceProblem& p) {
    return pipelines::persistent_plan<kStep20Pipeline>(p, step20::config_from(p.params), step20::kTraceSms,
                                                       step20::kNarrowUnitsPerWhole);
  };
  program.shared_stage = shared_stages::hopper_stage<shared_stages::Step20>;
  return program;
}
inline void add_step20(std::vector<TracedProgram>& list) { list.push_back(step20_program()); }

}  // namespace gemm::traced
