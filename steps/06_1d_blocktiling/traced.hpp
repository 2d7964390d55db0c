// Step 06 in the traced registry (steps/traced_steps.hpp gathers every traced step's): its program
// (launch, trace, tunables), each from the step's own mapping functions. Host-only; CMake includes
// this file in build/generated/traced_registry.hpp (docs/design.md, "Checklist: adding a step").
#pragma once

#include <vector>

#include "06_1d_blocktiling/mapping.hpp"
#include "traced_program.hpp"

namespace gemm::traced {

inline TracedProgram step06_program() {
  TracedProgram program{"06_1d_blocktiling", "", "blocktiled_1d_sgemm", true, {}, step06::trace_warp};
  program.launch = [](const TraceProblem& p) { return step06::launch_shape(p.shape, step06::config_from(p.params)); };
  detail::add_tunables(program, step06::kTunables, step06::kConfigs);
  return program;
}
inline void add_step06(std::vector<TracedProgram>& list) { list.push_back(step06_program()); }

}  // namespace gemm::traced
