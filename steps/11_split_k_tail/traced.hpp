// Step 11 in the traced registry (steps/traced_steps.hpp gathers every traced step's): its program
// (launch, trace, tunables, its choice by shape) and the pipeline the viewer's timeline draws, each
// from the step's own mapping functions. Host-only; CMake includes this file in
// build/generated/traced_registry.hpp (docs/design.md, "Checklist: adding a step").
#pragma once

#include <vector>

#include "11_split_k_tail/mapping.hpp"
#include "traced_program.hpp"

namespace gemm::traced {

inline TracedProgram step11_program() {
  TracedProgram program{"11_split_k_tail", "", "pipelined_sgemm", true, {}, step11::trace_warp};
  program.launch = [](const TraceProblem& p) { return step11::launch_shape(p.shape, step11::config_from(p.params)); };
  detail::add_tunables(program, step11::kTunables, step11::kConfigs);  // not SPLIT: the traces draw whole tiles
  program.params_for_shape = [](const GemmShape& shape, Layout, const GpuLimits& gpu) {
    return step11::to_params(step11::config_for_shape(shape, gpu));
  };
  // A whole tile, as its trace; its loop copies k-tiles past the last one, as step 10's does.
  program.pipeline = [](const TraceProblem& p, const Dim3&, int) {
    return pipelines::cp_async<true>(PipelineKind::cp_async_wait_after_compute, p.shape, step11::config_from(p.params),
                                     true);
  };
  return program;
}
inline void add_step11(std::vector<TracedProgram>& list) { list.push_back(step11_program()); }

}  // namespace gemm::traced
