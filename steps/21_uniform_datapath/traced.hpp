// Step 21 in the traced registry (steps/traced_steps.hpp gathers every traced step's): its program
// (launch, trace, tunables, who holds C, its choice by shape), the pipeline the viewer's timeline
// draws and how its grid deals the tiles, and its stage of shared memory (TMA boxes in, wgmma
// descriptors out), each from the step's own mapping functions. Host-only; CMake includes this file
// in build/generated/traced_registry.hpp (docs/design.md, "Checklist: adding a step").
#pragma once

#include <vector>

#include "20_overlapped_epilogue/traced.hpp"
#include "21_uniform_datapath/mapping.hpp"
#include "shared_stages.hpp"
#include "traced_program.hpp"

namespace gemm::shared_stages {

struct Step21 {
  using Config = step21::Config;
  using Op = step21::TmaOperand;
  static constexpr int kElementBytes = step21::kElementBytes, kBoxInner = step21::kBoxInner,
                       kWgmmaM = step21::kWgmmaM, kWgmmaK = step21::kWgmmaK, kNarrowCols = step21::kNarrowCols;
  static constexpr const char* kDescriptors =
      "stage 0's descriptor, wgmma_descriptor(operand_offset(consumer, 0), descriptor_strides()), plus "
      "descriptor_offset(stage_bytes, stage, k-step)";
  static Config config(const TraceProblem& p) { return step21::config_from(p.params); }
  static Op a(const TraceProblem& p, const Config& c) { return step21::a_operand(p.shape, c); }
  static Op b(const TraceProblem& p, const Config& c) { return step21::b_operand(p.shape, c); }
  static bool k_major(const Op&) { return true; }
  static int tile_byte(const Op&, int mn, int k) { return step21::tile_byte(mn, k); }
  static int b_boxes(const Op& op, bool narrow) { return step21::b_boxes_copied(op, narrow); }
  static int consumers(const Config& c) { return step21::consumers(c); }
  static int cluster(const Config& c) { return c.cluster; }
  static FirstTile tile(const TraceProblem& p, const Dim3& block, const Config& c) {
    return persistent_first_tile(p, block, c, step21::trace_launch_shape, step21::units, step21::tile_at,
                                 step21::tiles_m, step21::narrow_tile);
  }
  static std::uint64_t a_descriptor(const Op&, const Config& c, int stage, int consumer, int kk) {
    return step21::wgmma_descriptor(a_tile_at(c, 0) + unsigned(step21::operand_offset(consumer, 0)),
                                    step21::descriptor_strides()) +
           step21::descriptor_offset(step21::stage_bytes(c), stage, kk);
  }
  static std::uint64_t b_descriptor(const Op&, const Config& c, int stage, int kk) {
    return step21::wgmma_descriptor(b_tile_at(c, 0), step21::descriptor_strides()) +
           step21::descriptor_offset(step21::stage_bytes(c), stage, kk);
  }
};

}  // namespace gemm::shared_stages

namespace gemm::traced {

// What the timeline draws of its pipeline: step 20's.
constexpr int kStep21Pipeline = pipelines::kNarrowTiles | pipelines::kCountedTime | pipelines::kPromotion |
                             pipelines::kUnderNextTile;

// Step 21 changes how the k-loop computes its wgmma descriptors, which are not memory
// instructions: its trace is step 20's, and it is described as step 20's, with every function its own.
inline TracedProgram step21_program() {
  TracedProgram program = detail::described_as(step20_program(), "21_uniform_datapath");
  program.launch = [](const TraceProblem& p) { return step21::trace_launch_shape(p, step21::config_from(p.params)); };
  program.trace = step21::trace_warp;
  detail::add_tunables(program, step21::kTunables, step21::kConfigs);
  program.accumulators = step21::warp_accumulators;
  program.params_for_shape = [](const GemmShape& shape, Layout, const GpuLimits& gpu) {
    return step21::to_params(step21::config_for_shape(shape, gpu.sms));
  };
  program.pipeline = [](const TraceProblem& p, const Dim3& block, int out_bytes) {
    return pipelines::persistent_pipeline<kStep21Pipeline>(p, step21::config_from(p.params), block.x, out_bytes,
                                                           step21::kTraceSms);
  };
  program.persistent = [](const TraceProblem& p) {
    return pipelines::persistent_plan<kStep21Pipeline>(p, step21::config_from(p.params), step21::kTraceSms,
                                                       step21::kNarrowUnitsPerWhole);
  };
  program.shared_stage = shared_stages::hopper_stage<shared_stages::Step21>;
  return program;
}
inline void add_step21(std::vector<TracedProgram>& list) { list.push_back(step21_program()); }

}  // namespace gemm::traced
