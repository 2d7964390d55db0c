// Step 03 in the traced registry (steps/traced_steps.hpp gathers every traced step's): one program
// a variant of the demo (launch and trace), each from the step's own mapping functions. Host-only;
// CMake includes this file in build/generated/traced_registry.hpp (docs/design.md, "Checklist:
// adding a step").
#pragma once

#include <vector>

#include "03_smem_banks_square/mapping.hpp"
#include "traced_program.hpp"

namespace gemm::traced {

inline void add_step03(std::vector<TracedProgram>& list) {
  detail::add_demo(list, "03_smem_banks_square", step03::kTile, step03::kVariants, step03::kVariantCount,
                   step03::trace_warp);
}

}  // namespace gemm::traced
