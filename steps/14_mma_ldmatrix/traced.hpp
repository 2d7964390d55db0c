// Step 14 in the traced registry (steps/traced_steps.hpp gathers every traced step's): its program
// (launch, trace, tunables, who holds C, its choice by shape), the pipeline the viewer's timeline
// draws and its stage of shared memory, each from the step's own mapping functions. Host-only;
// CMake includes this file in build/generated/traced_registry.hpp (docs/design.md, "Checklist:
// adding a step").
#pragma once

#include <vector>

#include "14_mma_ldmatrix/mapping.hpp"
#include "shared_stages.hpp"
#include "traced_program.hpp"

namespace gemm::shared_stages {

// Step 14: STAGES stages, each operand's tile as it is stored, 16-byte chunk c of row r at c ^ (r % 8).
inline SharedStage step14_stage(const TraceProblem& p, const Dim3&, int k_tile) {
  const step14::Config c = step14::config_from(p.params);
  const step14::OperandTile ta = step14::a_tile(p.layout, c), tb = step14::b_tile(p.layout, c);
  SharedStage s = stage_frame(c.stages, (long long)step14::stage_elements(p.layout, c) * step14::kElementBytes, step14::k_tiles(p.shape, c), k_tile);
  const auto tile = [&](Operand operand, const step14::OperandTile& t, int mn, long long offset) {
    // A k-major tile's row is an m or n, its chunks run along k; otherwise a row is a k.
    return staged_tile(operand, mn, c.bk, step14::kElementBytes, t.k_major, offset, (long long)step14::tile_elements(t) * step14::kElementBytes,
                       std::string(t.k_major ? "rows along k" : "rows along m or n") +
                           ", 16-byte chunk c of row r at c ^ (r % 8)",
                       [&](int m, int k) {
                         const int row = t.k_major ? m : k, along = t.k_major ? k : m;
                         return (step14::tile_offset(t, row, along / step14::kChunk) + along % step14::kChunk) * step14::kElementBytes;
                       });
  };
  s.tiles.push_back(tile(Operand::A, ta, c.bm, 0));
  s.tiles.push_back(tile(Operand::B, tb, c.bn, (long long)step14::tile_elements(ta) * step14::kElementBytes));
  return s;
}

}  // namespace gemm::shared_stages

namespace gemm::traced {

inline TracedProgram step14_program() {
  TracedProgram program{"14_mma_ldmatrix", "", "mma_pipeline_gemm", true, {}, step14::trace_warp};
  program.launch = [](const TraceProblem& p) { return step14::launch_shape(p.shape, step14::config_from(p.params)); };
  detail::add_tunables(program, step14::kTunables, step14::kConfigs);
  program.accumulators = step14::warp_accumulators;
  program.tensor_core = true;
  program.shape_rule = tc_aligned_rows_rule;
  program.params_for_shape = [](const GemmShape& shape, Layout, const GpuLimits& gpu) {
    return step14::to_params(step14::config_for_shape(shape, gpu));
  };
  // Its loop commits empty groups past the last k-tile (steps 10 and 11 copy zeros there).
  program.pipeline = [](const TraceProblem& p, const Dim3&, int) {
    return pipelines::cp_async<true>(PipelineKind::cp_async_wait_after_compute, p.shape, step14::config_from(p.params),
                                     false);
  };
  program.shared_stage = shared_stages::step14_stage;
  return program;
}
inline void add_step14(std::vector<TracedProgram>& list) { list.push_back(step14_program()); }

}  // namespace gemm::traced
