// Step 09 in the traced registry (steps/traced_steps.hpp gathers every traced step's): its program
// (launch, trace, tunables), each from the step's own mapping functions. Host-only; CMake includes
// this file in build/generated/traced_registry.hpp (docs/design.md, "Checklist: adding a step").
#pragma once

#include <vector>

#include "09_warptiling/mapping.hpp"
#include "traced_program.hpp"

namespace gemm::traced {

inline TracedProgram step09_program() {
  TracedProgram program{"09_warptiling", "", "warptiled_sgemm", true, {}, step09::trace_warp};
  program.launch = [](const TraceProblem& p) { return step09::launch_shape(p.shape, step09::config_from(p.params)); };
  detail::add_tunables(program, step09::kTunables, step09::kConfigs);
  return program;
}
inline void add_step09(std::vector<TracedProgram>& list) { list.push_back(step09_program()); }

}  // namespace gemm::traced
