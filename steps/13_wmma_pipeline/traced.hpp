// Step 13 in the traced registry (steps/traced_steps.hpp gathers every traced step's): its program
// (launch, trace, tunables, who holds C, its choice by GPU), the pipeline the viewer's timeline
// draws and its stage of shared memory, each from the step's own mapping functions. Host-only;
// CMake includes this file in build/generated/traced_registry.hpp (docs/design.md, "Checklist:
// adding a step").
#pragma once

#include <vector>

#include "13_wmma_pipeline/mapping.hpp"
#include "shared_stages.hpp"
#include "traced_program.hpp"

namespace gemm::shared_stages {

// Step 13: STAGES stages, each operand's tile as it is stored, rows padded by 8 elements.
inline SharedStage step13_stage(const TraceProblem& p, const Dim3&, int k_tile) {
  const step13::Config c = step13::config_from(p.params);
  const step13::OperandTile ta = step13::a_tile(p.layout, c), tb = step13::b_tile(p.layout, c);
  SharedStage s = stage_frame(c.stages, (long long)step13::stage_elements(p.layout, c) * step13::kElementBytes, step13::k_tiles(p.shape, c), k_tile);
  const auto tile = [&](Operand operand, const step13::OperandTile& t, int mn, long long offset) {
    return staged_tile(operand, mn, c.bk, step13::kElementBytes, t.k_major, offset, (long long)step13::tile_elements(t) * step13::kElementBytes,
                       std::string(t.k_major ? "rows along k" : "rows along m or n") + ", padded by " +
                           std::to_string(step13::kPad) + " elements",
                       [&](int row, int k) { return step13::fragment_offset(t, row, k) * step13::kElementBytes; });
  };
  s.tiles.push_back(tile(Operand::A, ta, c.bm, 0));
  s.tiles.push_back(tile(Operand::B, tb, c.bn, (long long)step13::tile_elements(ta) * step13::kElementBytes));
  return s;
}

}  // namespace gemm::shared_stages

namespace gemm::traced {

inline TracedProgram step13_program() {
  TracedProgram program{"13_wmma_pipeline", "", "wmma_pipeline_gemm", true, {}, step13::trace_warp};
  program.launch = [](const TraceProblem& p) { return step13::launch_shape(p.shape, step13::config_from(p.params)); };
  detail::add_tunables(program, step13::kTunables, step13::kConfigs);
  program.accumulators = step13::warp_accumulators;
  program.tensor_core = true;
  program.shape_rule = tc_aligned_rows_rule;
  // Not by shape but by the GPU's shared memory per block, as the program's params_for_gpu.
  program.params_for_shape = [](const GemmShape&, Layout, const GpuLimits& gpu) {
    return step13::to_params(step13::config_for_gpu(gpu.shared_per_block));
  };
  // Its loop commits empty groups past the last k-tile (steps 10 and 11 copy zeros there).
  program.pipeline = [](const TraceProblem& p, const Dim3&, int) {
    return pipelines::cp_async<false>(PipelineKind::cp_async_wait_before_compute, p.shape,
                                      step13::config_from(p.params),
                                      false);
  };
  program.shared_stage = shared_stages::step13_stage;
  return program;
}
inline void add_step13(std::vector<TracedProgram>& list) { list.push_back(step13_program()); }

}  // namespace gemm::traced
