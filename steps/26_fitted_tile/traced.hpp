// Step 26 in the traced registry (steps/traced_steps.hpp gathers every traced step's): its program
// (launch, trace, tunables, who holds C, its choice by shape), the pipeline the viewer's timeline
// draws and how its grid deals the tiles, and its stage of shared memory (TMA boxes in, wgmma
// descriptors out), each from the step's own mapping functions. Host-only; CMake includes this file
// in build/generated/traced_registry.hpp (docs/design.md, "Checklist: adding a step").
#pragma once

#include <vector>

#include "16_warp_specialized/traced.hpp"
#include "26_fitted_tile/mapping.hpp"
#include "shared_stages.hpp"
#include "traced_program.hpp"

namespace gemm::shared_stages {

// Narrow tiles (a tile with at most 64 columns inside C copies one box of B and multiplies n = 64),
// dealt in pairs (places); the 144-column tile's N-major B ends in a tail box (16 columns, the
// 32-byte swizzle) that a wgmma of its own reads.
struct Step26 {
  using Config = step26::Config;
  using Op = step26::TmaOperand;
  static constexpr int kElementBytes = step26::kElementBytes, kBoxInner = step26::kBoxInner,
                       kWgmmaM = step26::kWgmmaM, kWgmmaK = step26::kWgmmaK, kNarrowCols = step26::kNarrowCols;
  static constexpr const char* kDescriptors = Step16::kDescriptors;
  static constexpr const char* kTailDescriptors =
      "wgmma_descriptor(tile + tail_offset(op, k-step), tail_descriptor_strides(op)): the tail's own, 32-byte swizzle";
  static Config config(const TraceProblem& p) { return step26::config_from(p.params); }
  static Op a(const TraceProblem& p, const Config& c) { return step26::a_operand(p.shape, p.layout, c); }
  static Op b(const TraceProblem& p, const Config& c) { return step26::b_operand(p.shape, p.layout, c); }
  static bool k_major(const Op& op) { return op.k_major; }
  static int tile_byte(const Op& op, int mn, int k) { return step26::tile_byte(op, mn, k); }
  static int b_boxes(const Op& op, bool narrow) { return step26::b_boxes_copied(op, narrow); }
  static int tail_cols(const Op& op) { return op.tail; }
  static int box_inner(const Op& op, int box) { return step26::box_inner_of(op, box); }
  static int box_bytes(const Op& op, int box) { return step26::box_bytes_of(op, box); }
  static int consumers(const Config& c) { return step26::consumers(c); }
  static int cluster(const Config& c) { return c.cluster; }
  // The first unit of the block's cluster is its first place's (first_unit); the grid is dealt places.
  static FirstTile tile(const TraceProblem& p, const Dim3& block, const Config& c) {
    const int clusters = step26::trace_launch_shape(p, c).grid.x / c.cluster;
    const int single = step26::single_units(p.shape, c, clusters);
    auto places = [clusters](const GemmShape& s, const Config& config) { return step26::places(s, config, clusters); };
    auto first_tile = [single](int cluster, int rank, const GemmShape& s, const Config& config) {
      return step26::tile_at(step26::first_unit(cluster, single), rank, s, config);
    };
    return persistent_first_tile(p, block, c, step26::trace_launch_shape, places, first_tile, step26::tiles_m,
                                 step26::narrow_tile);
  }
  static std::uint64_t a_descriptor(const Op& op, const Config& c, int stage, int consumer, int kk) {
    return step26::wgmma_descriptor(a_tile_at(c, stage) + unsigned(step26::operand_offset(op, consumer, kk)),
                                    step26::descriptor_strides(op));
  }
  static std::uint64_t b_descriptor(const Op& op, const Config& c, int stage, int kk) {
    return step26::wgmma_descriptor(b_tile_at(c, stage) + unsigned(step26::operand_offset(op, 0, kk)),
                                    step26::descriptor_strides(op));
  }
  static std::uint64_t b_tail_descriptor(const Op& op, const Config& c, int stage, int kk) {
    return step26::wgmma_descriptor(b_tile_at(c, stage) + unsigned(step26::tail_offset(op, kk)),
                                    step26::tail_descriptor_strides(op));
  }
};

}  // namespace gemm::shared_stages

namespace gemm::traced {

// What the timeline draws of its pipeline: narrow tiles dealt in pairs, and the counted time
// config_for_shape compares.
constexpr int kStep26Pipeline = pipelines::kNarrowTiles | pipelines::kCountedTime | pipelines::kNarrowPairs;

inline TracedProgram step26_program() {
  TracedProgram program{"26_fitted_tile", "", "hopper_gemm", true, {}, step26::trace_warp};
  program.launch = [](const TraceProblem& p) { return step26::trace_launch_shape(p, step26::config_from(p.params)); };
  detail::add_tunables(program, step26::kTunables, step26::kConfigs);
  program.accumulators = step26::warp_accumulators;
  program.params_for_shape = [](const GemmShape& shape, Layout layout, const GpuLimits& gpu) {
    return step26::to_params(step26::config_for_shape(shape, layout, gpu.sms));
  };
  program.tensor_core = true;
  program.shape_rule = tc_aligned_rows_rule;
  program.iteration_unit = "tile";  // the block's tiles, in the order it takes them
  program.quiet_warps = "the producer warps 0-3 hand their copies to the Tensor Memory Accelerator (TMA)";
  program.c_writer = "the Tensor Memory Accelerator (TMA) stores C from the staged slices when beta = 0 and C's "
                     "rows are 16-byte aligned; with beta != 0 the consumer threads read C and store it themselves";
  program.pipeline = [](const TraceProblem& p, const Dim3& block, int out_bytes) {
    return pipelines::persistent_pipeline<kStep26Pipeline>(p, step26::config_from(p.params), block.x, out_bytes,
                                                           step26::kTraceSms);
  };
  program.persistent = [](const TraceProblem& p) {
    return pipelines::persistent_plan<kStep26Pipeline>(p, step26::config_from(p.params), step26::kTraceSms,
                                                       step26::kNarrowUnitsPerWhole);
  };
  program.shared_stage = shared_stages::hopper_stage<shared_stages::Step26>;
  return program;
}
inline void add_step26(std::vector<TracedProgram>& list) { list.push_back(step26_program()); }

}  // namespace gemm::traced
