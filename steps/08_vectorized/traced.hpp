// Step 08 in the traced registry (steps/traced_steps.hpp gathers every traced step's): its program
// (launch, trace, tunables), each from the step's own mapping functions. Host-only; CMake includes
// this file in build/generated/traced_registry.hpp (docs/design.md, "Checklist: adding a step").
#pragma once

#include <vector>

#include "08_vectorized/mapping.hpp"
#include "traced_program.hpp"

namespace gemm::traced {

inline TracedProgram step08_program() {
  TracedProgram program{"08_vectorized", "", "vectorized_sgemm", true, {}, step08::trace_warp};
  program.launch = [](const TraceProblem& p) { return step08::launch_shape(p.shape, step08::config_from(p.params)); };
  detail::add_tunables(program, step08::kTunables, step08::kConfigs);
  return program;
}
inline void add_step08(std::vector<TracedProgram>& list) { list.push_back(step08_program()); }

}  // namespace gemm::traced
