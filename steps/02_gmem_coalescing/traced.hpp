// Step 02 in the traced registry (steps/traced_steps.hpp gathers every traced step's): its program
// (launch and trace), each from the step's own mapping functions. Host-only; CMake includes this
// file in build/generated/traced_registry.hpp (docs/design.md, "Checklist: adding a step").
#pragma once

#include <vector>

#include "02_gmem_coalescing/mapping.hpp"
#include "traced_program.hpp"

namespace gemm::traced {

inline TracedProgram step02_program() {
  TracedProgram program{"02_gmem_coalescing", "", "coalesced_sgemm", true, {}, step02::trace_warp};
  program.launch = [](const TraceProblem& p) { return step02::launch_shape(p.shape); };
  program.iteration_unit = "k =";
  return program;
}
inline void add_step02(std::vector<TracedProgram>& list) { list.push_back(step02_program()); }

}  // namespace gemm::traced
