// Step 05 in the traced registry (steps/traced_steps.hpp gathers every traced step's): its program
// (launch and trace), each from the step's own mapping functions. Host-only; CMake includes this
// file in build/generated/traced_registry.hpp (docs/design.md, "Checklist: adding a step").
#pragma once

#include <vector>

#include "05_smem_tiling/mapping.hpp"
#include "traced_program.hpp"

namespace gemm::traced {

inline TracedProgram step05_program() {
  TracedProgram program{"05_smem_tiling", "", "smem_tiled_sgemm", true, {}, step05::trace_warp};
  program.launch = [](const TraceProblem& p) { return step05::launch_shape(p.shape); };
  return program;
}
inline void add_step05(std::vector<TracedProgram>& list) { list.push_back(step05_program()); }

}  // namespace gemm::traced
