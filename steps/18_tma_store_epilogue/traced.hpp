// Step 18 in the traced registry (steps/traced_steps.hpp gathers every traced step's): its program
// (launch, trace, tunables, who holds C, its choice by shape), the pipeline the viewer's timeline
// draws and how its grid deals the tiles, and its stage of shared memory (TMA boxes in, wgmma
// descriptors out), each from the step's own mapping functions. Host-only; CMake includes this file
// in build/generated/traced_registry.hpp (docs/design.md, "Checklist: adding a step").
#pragma once

#include <vector>

#include "16_warp_specialized/traced.hpp"
#include "18_tma_store_epilogue/mapping.hpp"
#include "shared_stages.hpp"
#include "traced_program.hpp"

namespace gemm::shared_stages {

// Narrow tiles (a tile with at most 64 columns inside C copies one box of B and multiplies n = 64).
struct Step18 {
  using Config = step18::Config;
  using Op = step18::TmaOperand;
  static constexpr int kElementBytes = step18::kElementBytes, kBoxInner = step18::kBoxInner,
                       kWgmmaM = step18::kWgmmaM, kWgmmaK = step18::kWgmmaK, kNarrowCols = step18::kNarrowCols;
  static constexpr const char* kDescriptors = Step16::kDescriptors;
  static Config config(const TraceProblem& p) { return step18::config_from(p.params); }
  static Op a(const TraceProblem& p, const Config& c) { return step18::a_operand(p.shape, p.layout, c); }
  static Op b(const TraceProblem& p, const Config& c) { return step18::b_operand(p.shape, p.layout, c); }
  static bool k_major(const Op& op) { return op.k_major; }
  static int tile_byte(const Op& op, int mn, int k) { return step18::tile_byte(op, mn, k); }
  static int b_boxes(const Op& op, bool narrow) { return step18::b_boxes_copied(op, narrow); }
  static int consumers(const Config& c) { return step18::consumers(c); }
  static int cluster(const Config& c) { return c.cluster; }
  static FirstTile tile(const TraceProblem& p, const Dim3& block, const Config& c) {
    return persistent_first_tile(p, block, c, step18::trace_launch_shape, step18::units, step18::tile_at,
                                 step18::tiles_m, step18::narrow_tile);
  }
  static std::uint64_t a_descriptor(const Op& op, const Config& c, int stage, int consumer, int kk) {
    return step18::wgmma_descriptor(a_tile_at(c, stage) + unsigned(step18::operand_offset(op, consumer, kk)),
                                    step18::descriptor_strides(op));
  }
  static std::uint64_t b_descriptor(const Op& op, const Config& c, int stage, int kk) {
    return step18::wgmma_descriptor(b_tile_at(c, stage) + unsigned(step18::operand_offset(op, 0, kk)),
                                    step18::descriptor_strides(op));
  }
};

}  // namespace gemm::shared_stages

namespace gemm::traced {

// What the timeline draws of its pipeline: narrow tiles, and the counted time config_for_shape compares.
constexpr int kStep18Pipeline = pipelines::kNarrowTiles | pipelines::kCountedTime;

inline TracedProgram step18_program() {
  TracedProgram program{"18_tma_store_epilogue", "", "hopper_gemm", true, {}, step18::trace_warp};
  program.launch = [](const TraceProblem& p) { return step18::trace_launch_shape(p, step18::config_from(p.params)); };
  detail::add_tunables(program, step18::kTunables, step18::kConfigs);
  program.accumulators = step18::warp_accumulators;
  program.params_for_shape = [](const GemmShape& shape, Layout layout, const GpuLimits& gpu) {
    return step18::to_params(step18::config_for_shape(shape, layout, gpu.sms));
  };
  program.tensor_core = true;
  program.shape_rule = tc_aligned_rows_rule;
  program.iteration_unit = "tile";  // the block's tiles, in the order it takes them
  program.quiet_warps = "the producer warps 0-3 hand their copies to the Tensor Memory Accelerator (TMA)";
  program.c_writer = "the Tensor Memory Accelerator (TMA) stores C from the staged slices when beta = 0 and C's "
                     "rows are 16-byte aligned; with beta != 0 the consumer threads read C and store it themselves";
  program.pipeline = [](const TraceProblem& p, const Dim3& block, int out_bytes) {
    return pipelines::persistent_pipeline<kStep18Pipeline>(p, step18::config_from(p.params), block.x, out_bytes,
                                                           step18::kTraceSms);
  };
  program.persistent = [](const TraceProblem& p) {
    return pipelines::persistent_plan<kStep18Pipeline>(p, step18::config_from(p.params), step18::kTraceSms,
                                                       step18::kNarrowUnitsPerWhole);
  };
  program.shared_stage = shared_stages::hopper_stage<shared_stages::Step18>;
  return program;
}
inline void add_step18(std::vector<TracedProgram>& list) { list.push_back(step18_program()); }

}  // namespace gemm::traced
