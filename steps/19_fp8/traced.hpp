// Step 19 in the traced registry (steps/traced_steps.hpp gathers every traced step's): its program
// (launch, trace, tunables, who holds C, its choice by shape), the pipeline the viewer's timeline
// draws and how its grid deals the tiles, and its stage of shared memory (TMA boxes in, wgmma
// descriptors out), each from the step's own mapping functions. Host-only; CMake includes this file
// in build/generated/traced_registry.hpp (docs/design.md, "Checklist: adding a step").
#pragma once

#include <vector>

#include "19_fp8/mapping.hpp"
#include "shared_stages.hpp"
#include "traced_program.hpp"

namespace gemm::shared_stages {

// The FP8 steps: 1-byte elements, both operands K-major (layout NT), 128 k's to a swizzled row, a
// wgmma k-step of 32. Steps 19 and 20 build each k-step's descriptors from its address; 21 and 22
// move stage 0's by descriptor_offset (the kernels that hold uniform_addresses; the others build
// them as step 20 does, the same values: test_mapping_21.cpp).
struct Step19 {
  using Config = step19::Config;
  using Op = step19::TmaOperand;
  static constexpr int kElementBytes = step19::kElementBytes, kBoxInner = step19::kBoxInner,
                       kWgmmaM = step19::kWgmmaM, kWgmmaK = step19::kWgmmaK, kNarrowCols = step19::kNarrowCols;
  static constexpr const char* kDescriptors =
      "wgmma_descriptor(tile + operand_offset(consumer, k-step), descriptor_strides())";
  static Config config(const TraceProblem& p) { return step19::config_from(p.params); }
  static Op a(const TraceProblem& p, const Config& c) { return step19::a_operand(p.shape, c); }
  static Op b(const TraceProblem& p, const Config& c) { return step19::b_operand(p.shape, c); }
  static bool k_major(const Op&) { return true; }
  static int tile_byte(const Op&, int mn, int k) { return step19::tile_byte(mn, k); }
  static int b_boxes(const Op& op, bool narrow) { return step19::b_boxes_copied(op, narrow); }
  static int consumers(const Config& c) { return step19::consumers(c); }
  static int cluster(const Config& c) { return c.cluster; }
  static FirstTile tile(const TraceProblem& p, const Dim3& block, const Config& c) {
    return persistent_first_tile(p, block, c, step19::trace_launch_shape, step19::units, step19::tile_at,
                                 step19::tiles_m, step19::narrow_tile);
  }
  static std::uint64_t a_descriptor(const Op&, const Config& c, int stage, int consumer, int kk) {
    return step19::wgmma_descriptor(a_tile_at(c, stage) + unsigned(step19::operand_offset(consumer, kk)),
                                    step19::descriptor_strides());
  }
  static std::uint64_t b_descriptor(const Op&, const Config& c, int stage, int kk) {
    return step19::wgmma_descriptor(b_tile_at(c, stage) + unsigned(step19::operand_offset(0, kk)),
                                    step19::descriptor_strides());
  }
};

}  // namespace gemm::shared_stages

namespace gemm::traced {

// What the timeline draws of its pipeline: narrow tiles, the counted time config_for_shape compares,
// and where the FP8 accumulators are promoted.
constexpr int kStep19Pipeline = pipelines::kNarrowTiles | pipelines::kCountedTime | pipelines::kPromotion;

// Step 19 traces what step 18's does, for f32 output (the program's --out f32; it writes bf16 by
// default), in the one layout it takes.
inline TracedProgram step19_program() {
  TracedProgram program{"19_fp8", "", "fp8_gemm", true, {}, step19::trace_warp};
  program.launch = [](const TraceProblem& p) { return step19::trace_launch_shape(p, step19::config_from(p.params)); };
  detail::add_tunables(program, step19::kTunables, step19::kConfigs);
  program.accumulators = step19::warp_accumulators;
  program.params_for_shape = [](const GemmShape& shape, Layout, const GpuLimits& gpu) {
    return step19::to_params(step19::config_for_shape(shape, gpu.sms));
  };
  program.tensor_core = true;
  program.layouts = {Layout::nt};
  program.shape_rule = fp8_shape_rule;
  program.iteration_unit = "tile";  // the block's tiles, in the order it takes them
  program.quiet_warps = "the producer warps 0-3 hand their copies to the Tensor Memory Accelerator (TMA)";
  program.c_writer = "the Tensor Memory Accelerator (TMA) stores C from the staged slices when beta = 0 and C's "
                     "rows are 16-byte aligned; with beta != 0 the consumer threads read C and store it themselves "
                     "(the trace is of f32 output, --out f32)";
  program.pipeline = [](const TraceProblem& p, const Dim3& block, int out_bytes) {
    return pipelines::persistent_pipeline<kStep19Pipeline>(p, step19::config_from(p.params), block.x, out_bytes,
                                                           step19::kTraceSms);
  };
  program.persistent = [](const TraceProblem& p) {
    return pipelines::persistent_plan<kStep19Pipeline>(p, step19::config_from(p.params), step19::kTraceSms,
                                                       step19::kNarrowUnitsPerWhole);
  };
  program.shared_stage = shared_stages::hopper_stage<shared_stages::Step19>;
  return program;
}
inline void add_step19(std::vector<TracedProgram>& list) { list.push_back(step19_program()); }

}  // namespace gemm::traced
