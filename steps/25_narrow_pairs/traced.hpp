// Step 25 in the traced registry (steps/traced_steps.hpp gathers every traced step's): its program
// (launch, trace, tunables, who holds C, its choice by shape), the pipeline the viewer's timeline
// draws and how its grid deals the tiles, and its stage of shared memory (TMA boxes in, wgmma
// descriptors out), each from the step's own mapping functions. Host-only; CMake includes this file
// in build/generated/traced_registry.hpp (docs/design.md, "Checklist: adding a step").
#pragma once

#include <vector>

#include "16_warp_specialized/traced.hpp"
#include "25_narrow_pairs/mapping.hpp"
#include "shared_stages.hpp"
#include "traced_program.hpp"

namespace gemm::shared_stages {

// Narrow tiles (a tile with at most 64 columns inside C copies one box of B and multiplies n = 64),
// dealt in pairs (places).
struct Step25 {
  using Config = step25::Config;
  using Op = step25::TmaOperand;
  static constexpr int kElementBytes = step25::kElementBytes, kBoxInner = step25::kBoxInner,
                       kWgmmaM = step25::kWgmmaM, kWgmmaK = step25::kWgmmaK, kNarrowCols = step25::kNarrowCols;
  static constexpr const char* kDescriptors = Step16::kDescriptors;
  static Config config(const TraceProblem& p) { return step25::config_from(p.params); }
  static Op a(const TraceProblem& p, const Config& c) { return step25::a_operand(p.shape, p.layout, c); }
  static Op b(const TraceProblem& p, const Config& c) { return step25::b_operand(p.shape, p.layout, c); }
  static bool k_major(const Op& op) { return op.k_major; }
  static int tile_byte(const Op& op, int mn, int k) { return step25::tile_byte(op, mn, k); }
  static int b_boxes(const Op& op, bool narrow) { return step25::b_boxes_copied(op, narrow); }
  static int consumers(const Config& c) { return step25::consumers(c); }
  static int cluster(const Config& c) { return c.cluster; }
  // The first unit of the block's cluster is its first place's (first_unit); the grid is dealt places.
  static FirstTile tile(const TraceProblem& p, const Dim3& block, const Config& c) {
    const int clusters = step25::trace_launch_shape(p, c).grid.x / c.cluster;
    const int single = step25::single_units(p.shape, c, clusters);
    auto places = [clusters](const GemmShape& s, const Config& config) { return step25::places(s, config, clusters); };
    auto first_tile = [single](int cluster, int rank, const GemmShape& s, const Config& config) {
      return step25::tile_at(step25::first_unit(cluster, single), rank, s, config);
    };
    return persistent_first_tile(p, block, c, step25::trace_launch_shape, places, first_tile, step25::tiles_m,
                                 step25::narrow_tile);
  }
  static std::uint64_t a_descriptor(const Op& op, const Config& c, int stage, int consumer, int kk) {
    return step25::wgmma_descriptor(a_tile_at(c, stage) + unsigned(step25::operand_offset(op, consumer, kk)),
                                    step25::descriptor_strides(op));
  }
  static std::uint64_t b_descriptor(const Op& op, const Config& c, int stage, int kk) {
    return step25::wgmma_descriptor(b_tile_at(c, stage) + unsigned(step25::operand_offset(op, 0, kk)),
                                    step25::descriptor_strides(op));
  }
};

}  // namespace gemm::shared_stages

namespace gemm::traced {

// What the timeline draws of its pipeline: narrow tiles dealt in pairs, and the counted time
// config_for_shape compares.
constexpr int kStep25Pipeline = pipelines::kNarrowTiles | pipelines::kCountedTime | pipelines::kNarrowPairs;

inline TracedProgram step25_program() {
  TracedProgram program{"25_narrow_pairs", "", "hopper_gemm", true, {}, step25::trace_warp};
  program.launch = [](const TraceProblem& p) { return step25::trace_launch_shape(p, step25::config_from(p.params)); };
  detail::add_tunables(program, step25::kTunables, step25::kConfigs);
  program.accumulators = step25::warp_accumulators;
  program.params_for_shape = [](const GemmShape& shape, Layout layout, const GpuLimits& gpu) {
    return step25::to_params(step25::config_for_shape(shape, layout, gpu.sms));
  };
  program.tensor_core = true;
  program.shape_rule = tc_aligned_rows_rule;
  program.iteration_unit = "tile";  // the block's tiles, in the order it takes them
  program.quiet_warps = "the producer warps 0-3 hand their copies to the Tensor Memory Accelerator (TMA)";
  program.c_writer = "the Tensor Memory Accelerator (TMA) stores C from the staged slices when beta = 0 and C's "
                     "rows are 16-byte aligned; with beta != 0 the consumer threads read C and store it themselves";
  program.pipeline = [](const TraceProblem& p, const Dim3& block, int out_bytes) {
    return pipelines::persistent_pipeline<kStep25Pipeline>(p, step25::config_from(p.params), block.x, out_bytes,
                                                           step25::kTraceSms);
  };
  program.persistent = [](const TraceProblem& p) {
    return pipelines::persistent_plan<kStep25Pipeline>(p, step25::config_from(p.params), step25::kTraceSms,
                                                       step25::kNarrowUnitsPerWhole);
  };
  program.shared_stage = shared_stages::hopper_stage<shared_stages::Step25>;
  return program;
}
inline void add_step25(std::vector<TracedProgram>& list) { list.push_back(step25_program()); }

}  // namespace gemm::traced
