// The table every step prints: one row per shape (docs/design.md, "The step program contract").
#pragma once

#include <string>

#include "results.hpp"

namespace gemm {

std::string table_header();
// M N K | median ms | GFLOPS | cuBLAS GFLOPS | % of cuBLAS | rel. error | verdict
std::string table_row(const ShapeResult& result);
// The line under a row for a reference outside the comparison (cuBLAS in TF32, fp32 steps on
// sm_80+); empty when there is none.
std::string reference_line(const ShapeResult& result);

}  // namespace gemm
