// Step 22 in the traced registry (steps/traced_steps.hpp gathers every traced step's): its program
// (launch, trace, tunables, who holds C, its choice by shape), the pipeline the viewer's timeline
// draws and how its grid deals the tiles, and its stage of shared memory (TMA boxes in, wgmma
// descriptors out), each from the step's own mapping functions. Host-only; CMake includes this file
// in build/generated/traced_registry.hpp (docs/design.md, "Checklist: adding a step").
#pragma once

#include <vector>

#include "21_uniform_datapath/traced.hpp"
#include "22_tile_width/mapping.hpp"
#include "shared_stages.hpp"
#include "traced_program.hpp"

namespace gemm::shared_stages {

struct Step22 {
  using Config = step22::Config;
  using Op = step22::TmaOperand;
  static constexpr int kElementBytes = step22::kElementBytes, kBoxInner = step22::kBoxInner,
                       kWgmmaM = step22::kWgmmaM, kWgmmaK = step22::kWgmmaK, kNarrowCols = step22::kNarrowCols;
  static constexpr const char* kDescriptors = Step21::kDescriptors;
  static Config config(const TraceProblem& p) { return step22::config_from(p.params); }
  static Op a(const TraceProblem& p, const Config& c) { return step22::a_operand(p.shape, c); }
  static Op b(const TraceProblem& p, const Config& c) { return step22::b_operand(p.shape, c); }
  static bool k_major(const Op&) { return true; }
  static int tile_byte(const Op&, int mn, int k) { return step22::tile_byte(mn, k); }
  static int b_boxes(const Op& op, bool narrow) { return step22::b_boxes_copied(op, narrow); }
  static int consumers(const Config& c) { return step22::consumers(c); }
  static int cluster(const Config& c) { return c.cluster; }
  static FirstTile tile(const TraceProblem& p, const Dim3& block, const Config& c) {
    return persistent_first_tile(p, block, c, step22::trace_launch_shape, step22::units, step22::tile_at,
                                 step22::tiles_m, step22::narrow_tile);
  }
  static std::uint64_t a_descriptor(const Op&, const Config& c, int stage, int consumer, int kk) {
    return step22::wgmma_descriptor(a_tile_at(c, 0) + unsigned(step22::operand_offset(consumer, 0)),
                                    step22::descriptor_strides()) +
           step22::descriptor_offset(step22::stage_bytes(c), stage, kk);
  }
  static std::uint64_t b_descriptor(const Op&, const Config& c, int stage, int kk) {
    return step22::wgmma_descriptor(b_tile_at(c, 0), step22::descriptor_strides()) +
           step22::descriptor_offset(step22::stage_bytes(c), stage, kk);
  }
};

}  // namespace gemm::shared_stages

namespace gemm::traced {

// What the timeline draws of its pipeline: step 21's.
constexpr int kStep22Pipeline = pipelines::kNarrowTiles | pipelines::kCountedTime | pipelines::kPromotion |
                             pipelines::kUnderNextTile;

// Step 22 adds two tiles and chooses among four by shape; with f32 output its tiles store after
// each tile, as step 21's do, the 176-column one with slices that end at its edge: it is described
// as step 21's, with every function its own.
inline TracedProgram step22_program() {
  TracedProgram program = detail::described_as(step21_program(), "22_tile_width");
  program.launch = [](const TraceProblem& p) { return step22::trace_launch_shape(p, step22::config_from(p.params)); };
  program.trace = step22::trace_warp;
  detail::add_tunables(program, step22::kTunables, step22::kConfigs);
  program.accumulators = step22::warp_accumulators;
  program.params_for_shape = [](const GemmShape& shape, Layout, const GpuLimits& gpu) {
    return step22::to_params(step22::config_for_shape(shape, gpu.sms));
  };
  program.pipeline = [](const TraceProblem& p, const Dim3& block, int out_bytes) {
    return pipelines::persistent_pipeline<kStep22Pipeline>(p, step22::config_from(p.params), block.x, out_bytes,
                                                           step22::kTraceSms);
  };
  program.persistent = [](const TraceProblem& p) {
    return pipelines::persistent_plan<kStep22Pipeline>(p, step22::config_from(p.params), step22::kTraceSms,
                                                       step22::kNarrowUnitsPerWhole);
  };
  program.shared_stage = shared_stages::hopper_stage<shared_stages::Step22>;
  return program;
}
inline void add_step22(std::vector<TracedProgram>& list) { list.push_back(step22_program()); }

}  // namespace gemm::traced
