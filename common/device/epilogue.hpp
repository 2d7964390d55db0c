// The last operation of every GEMM kernel: C = alpha * acc + beta * C.
#pragma once

#include "hd.hpp"

namespace gemm {

// BLAS convention: with beta == 0, C is not read, so C may hold anything (NaN included) on entry.
GEMM_HD float epilogue(float alpha, float acc, float beta, const float* c) {
  return beta == 0.0f ? alpha * acc : alpha * acc + beta * *c;
}

}  // namespace gemm
