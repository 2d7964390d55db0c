// Step 04 in the traced registry (steps/traced_steps.hpp gathers every traced step's): one program
// a variant of the demo (launch and trace), each from the step's own mapping functions. Host-only;
// CMake includes this file in build/generated/traced_registry.hpp (docs/design.md, "Checklist:
// adding a step").
#pragma once

#include <vector>

#include "04_smem_banks_rectangular/mapping.hpp"
#include "traced_program.hpp"

namespace gemm::traced {

inline void add_step04(std::vector<TracedProgram>& list) {
  detail::add_demo(list, "04_smem_banks_rectangular", step04::kTile, step04::kVariants, step04::kVariantCount,
                   step04::trace_warp);
}

}  // namespace gemm::traced
