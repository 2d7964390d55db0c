// Step 01 in the traced registry (steps/traced_steps.hpp gathers every traced step's): its program
// (launch and trace), each from the step's own mapping functions. Host-only; CMake includes this
// file in build/generated/traced_registry.hpp (docs/design.md, "Checklist: adding a step").
#pragma once

#include <vector>

#include "01_naive/mapping.hpp"
#include "traced_program.hpp"

namespace gemm::traced {

inline TracedProgram step01_program() {
  TracedProgram program{"01_naive", "", "naive_sgemm", true, {}, step01::trace_warp};
  program.launch = [](const TraceProblem& p) { return step01::launch_shape(p.shape); };
  program.iteration_unit = "k =";
  return program;
}
inline void add_step01(std::vector<TracedProgram>& list) { list.push_back(step01_program()); }

}  // namespace gemm::traced
