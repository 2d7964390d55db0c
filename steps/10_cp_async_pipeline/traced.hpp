// Step 10 in the traced registry (steps/traced_steps.hpp gathers every traced step's): its program
// (launch, trace, tunables, its choice by shape) and the pipeline the viewer's timeline draws, each
// from the step's own mapping functions. Host-only; CMake includes this file in
// build/generated/traced_registry.hpp (docs/design.md, "Checklist: adding a step").
#pragma once

#include <vector>

#include "10_cp_async_pipeline/mapping.hpp"
#include "traced_program.hpp"

namespace gemm::traced {

inline TracedProgram step10_program() {
  TracedProgram program{"10_cp_async_pipeline", "", "pipelined_sgemm", true, {}, step10::trace_warp};
  program.launch = [](const TraceProblem& p) { return step10::launch_shape(p.shape, step10::config_from(p.params)); };
  detail::add_tunables(program, step10::kTunables, step10::kConfigs);
  program.params_for_shape = [](const GemmShape& shape, Layout, const GpuLimits& gpu) {
    return step10::to_params(step10::config_for_shape(shape, gpu));
  };
  // Step 10's loop copies k-tiles past the last one too (zeros into stages no one reads: kernel.cuh).
  program.pipeline = [](const TraceProblem& p, const Dim3&, int) {
    return pipelines::cp_async<true>(PipelineKind::cp_async_wait_after_compute, p.shape, step10::config_from(p.params),
                                     true);
  };
  return program;
}
inline void add_step10(std::vector<TracedProgram>& list) { list.push_back(step10_program()); }

}  // namespace gemm::traced
