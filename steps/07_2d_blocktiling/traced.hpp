// Step 07 in the traced registry (steps/traced_steps.hpp gathers every traced step's): its program
// (launch, trace, tunables), each from the step's own mapping functions. Host-only; CMake includes
// this file in build/generated/traced_registry.hpp (docs/design.md, "Checklist: adding a step").
#pragma once

#include <vector>

#include "07_2d_blocktiling/mapping.hpp"
#include "traced_program.hpp"

namespace gemm::traced {

inline TracedProgram step07_program() {
  TracedProgram program{"07_2d_blocktiling", "", "blocktiled_2d_sgemm", true, {}, step07::trace_warp};
  program.launch = [](const TraceProblem& p) { return step07::launch_shape(p.shape, step07::config_from(p.params)); };
  detail::add_tunables(program, step07::kTunables, step07::kConfigs);
  return program;
}
inline void add_step07(std::vector<TracedProgram>& list) { list.push_back(step07_program()); }

}  // namespace gemm::traced
