// Step 23 in the traced registry (steps/traced_steps.hpp gathers every traced step's): its program
// (launch, trace, tunables, who holds C, its choice by shape), the pipeline the viewer's timeline
// draws and how its grid deals the tiles, and its stage of shared memory (TMA boxes in, wgmma
// descriptors out), each from the step's own mapping functions. Host-only; CMake includes this file
// in build/generated/traced_registry.hpp (docs/design.md, "Checklist: adding a step").
#pragma once

#include <vector>

#include "22_tile_width/traced.hpp"
#include "23_stream_k/mapping.hpp"
#include "shared_stages.hpp"
#include "traced_program.hpp"

namespace gemm::shared_stages {

struct Step23 {
  using Config = step23::Config;
  using Op = step23::TmaOperand;
  static constexpr int kElementBytes = step23::kElementBytes, kBoxInner = step23::kBoxInner,
                       kWgmmaM = step23::kWgmmaM, kWgmmaK = step23::kWgmmaK, kNarrowCols = step23::kNarrowCols;
  static constexpr const char* kDescriptors = Step22::kDescriptors;
  static Config config(const TraceProblem& p) { return step23::config_from(p.params); }
  static Op a(const TraceProblem& p, const Config& c) { return step23::a_operand(p.shape, c); }
  static Op b(const TraceProblem& p, const Config& c) { return step23::b_operand(p.shape, c); }
  static bool k_major(const Op&) { return true; }
  static int tile_byte(const Op&, int mn, int k) { return step23::tile_byte(mn, k); }
  static int b_boxes(const Op& op, bool narrow) { return step23::b_boxes_copied(op, narrow); }
  static int consumers(const Config& c) { return step23::consumers(c); }
  static int cluster(const Config& c) { return c.cluster; }
  static FirstTile tile(const TraceProblem& p, const Dim3& block, const Config& c) {
    return persistent_first_tile(p, block, c, step23::trace_launch_shape, step23::units, step23::tile_at,
                                 step23::tiles_m, step23::narrow_tile);
  }
  static std::uint64_t a_descriptor(const Op&, const Config& c, int stage, int consumer, int kk) {
    return step23::wgmma_descriptor(a_tile_at(c, 0) + unsigned(step23::operand_offset(consumer, 0)),
                                    step23::descriptor_strides()) +
           step23::descriptor_offset(step23::stage_bytes(c), stage, kk);
  }
  static std::uint64_t b_descriptor(const Op&, const Config& c, int stage, int kk) {
    return step23::wgmma_descriptor(b_tile_at(c, 0), step23::descriptor_strides()) +
           step23::descriptor_offset(step23::stage_bytes(c), stage, kk);
  }
};

}  // namespace gemm::shared_stages

namespace gemm::traced {

// What the timeline draws of its pipeline: step 22's, and its grid's work as the kernel walks it
// (stream-K: whole units, then pieces of the split ones).
constexpr int kStep23Pipeline = pipelines::kNarrowTiles | pipelines::kCountedTime | pipelines::kPromotion |
                                pipelines::kUnderNextTile | pipelines::kStreamK;

// Step 23 deals the last round's k-tiles out (stream-K) and otherwise is step 22: it is described
// as step 22's, with every function its own. The traces and the thread map follow its schedule
// (cluster_work): a split tile is drawn once, stored by its first sharer.
inline TracedProgram step23_program() {
  TracedProgram program = detail::described_as(step22_program(), "23_stream_k");
  program.launch = [](const TraceProblem& p) { return step23::trace_launch_shape(p, step23::config_from(p.params)); };
  program.trace = step23::trace_warp;
  detail::add_tunables(program, step23::kTunables, step23::kConfigs);
  program.accumulators = step23::warp_accumulators;
  program.params_for_shape = [](const GemmShape& shape, Layout, const GpuLimits& gpu) {
    return step23::to_params(step23::config_for_shape(shape, gpu.sms));
  };
  program.pipeline = [](const TraceProblem& p, const Dim3& block, int out_bytes) {
    return pipelines::persistent_pipeline<kStep23Pipeline>(p, step23::config_from(p.params), block.x, out_bytes,
                                                           step23::kTraceSms);
  };
  program.persistent = [](const TraceProblem& p) {
    return pipelines::persistent_plan<kStep23Pipeline>(p, step23::config_from(p.params), step23::kTraceSms,
                                                       step23::kNarrowUnitsPerWhole);
  };
  program.shared_stage = shared_stages::hopper_stage<shared_stages::Step23>;
  return program;
}
inline void add_step23(std::vector<TracedProgram>& list) { list.push_back(step23_program()); }

}  // namespace gemm::traced
