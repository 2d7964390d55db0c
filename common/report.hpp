// The table every step prints: one row per shape (DESIGN.md, "The step program contract").
#pragma once

#include <string>

#include "results.hpp"

namespace gemm {

std::string table_header();
// M N K | median ms | GFLOPS | cuBLAS GFLOPS | % of cuBLAS | rel. error | verdict
std::string table_row(const ShapeResult& result);

}  // namespace gemm
