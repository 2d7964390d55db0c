// Step 24 in the traced registry (steps/traced_steps.hpp gathers every traced step's): its program
// (launch, trace, tunables, who holds C, its choice by shape), the pipeline the viewer's timeline
// draws and how its grid deals the tiles, and its stage of shared memory (TMA boxes in, wgmma
// descriptors out), each from the step's own mapping functions. Host-only; CMake includes this file
// in build/generated/traced_registry.hpp (docs/design.md, "Checklist: adding a step").
#pragma once

#include <vector>

#include "23_stream_k/traced.hpp"
#include "24_overlapped_promotion/mapping.hpp"
#include "shared_stages.hpp"
#include "traced_program.hpp"

namespace gemm::shared_stages {

struct Step24 {
  using Config = step24::Config;
  using Op = step24::TmaOperand;
  static constexpr int kElementBytes = step24::kElementBytes, kBoxInner = step24::kBoxInner,
                       kWgmmaM = step24::kWgmmaM, kWgmmaK = step24::kWgmmaK, kNarrowCols = step24::kNarrowCols;
  static constexpr const char* kDescriptors = Step23::kDescriptors;
  static Config config(const TraceProblem& p) { return step24::config_from(p.params); }
  static Op a(const TraceProblem& p, const Config& c) { return step24::a_operand(p.shape, c); }
  static Op b(const TraceProblem& p, const Config& c) { return step24::b_operand(p.shape, c); }
  static bool k_major(const Op&) { return true; }
  static int tile_byte(const Op&, int mn, int k) { return step24::tile_byte(mn, k); }
  static int b_boxes(const Op& op, bool narrow) { return step24::b_boxes_copied(op, narrow); }
  static int consumers(const Config& c) { return step24::consumers(c); }
  static int cluster(const Config& c) { return c.cluster; }
  static FirstTile tile(const TraceProblem& p, const Dim3& block, const Config& c) {
    return persistent_first_tile(p, block, c, step24::trace_launch_shape, step24::units, step24::tile_at,
                                 step24::tiles_m, step24::narrow_tile);
  }
  static std::uint64_t a_descriptor(const Op&, const Config& c, int stage, int consumer, int kk) {
    return step24::wgmma_descriptor(a_tile_at(c, 0) + unsigned(step24::operand_offset(consumer, 0)),
                                    step24::descriptor_strides()) +
           step24::descriptor_offset(step24::stage_bytes(c), stage, kk);
  }
  static std::uint64_t b_descriptor(const Op&, const Config& c, int stage, int kk) {
    return step24::wgmma_descriptor(b_tile_at(c, 0), step24::descriptor_strides()) +
           step24::descriptor_offset(step24::stage_bytes(c), stage, kk);
  }
};

}  // namespace gemm::shared_stages

namespace gemm::traced {

// What the timeline draws of its pipeline: step 23's, and a consumer alone in its block adding each
// k-tile's sum under the next k-tile's products (overlapped_promotion).
constexpr int kStep24Pipeline = pipelines::kNarrowTiles | pipelines::kCountedTime | pipelines::kPromotion |
                                pipelines::kUnderNextTile | pipelines::kStreamK | pipelines::kOverlappedPromotion;

// Step 24 adds a tile's interval sums under the next k-tile's products where a consumer is alone in
// its block, and otherwise is step 23: it is described as step 23's, with every function its own.
inline TracedProgram step24_program() {
  TracedProgram program = detail::described_as(step23_program(), "24_overlapped_promotion");
  program.launch = [](const TraceProblem& p) { return step24::trace_launch_shape(p, step24::config_from(p.params)); };
  program.trace = step24::trace_warp;
  detail::add_tunables(program, step24::kTunables, step24::kConfigs);
  program.accumulators = step24::warp_accumulators;
  program.params_for_shape = [](const GemmShape& shape, Layout, const GpuLimits& gpu) {
    return step24::to_params(step24::config_for_shape(shape, gpu.sms));
  };
  program.pipeline = [](const TraceProblem& p, const Dim3& block, int out_bytes) {
    return pipelines::persistent_pipeline<kStep24Pipeline>(p, step24::config_from(p.params), block.x, out_bytes,
                                                           step24::kTraceSms);
  };
  program.persistent = [](const TraceProblem& p) {
    return pipelines::persistent_plan<kStep24Pipeline>(p, step24::config_from(p.params), step24::kTraceSms,
                                                       step24::kNarrowUnitsPerWhole);
  };
  program.shared_stage = shared_stages::hopper_stage<shared_stages::Step24>;
  return program;
}
inline void add_step24(std::vector<TracedProgram>& list) { list.push_back(step24_program()); }

}  // namespace gemm::traced
