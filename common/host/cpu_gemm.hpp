// CPU references: C = alpha*A*B + beta*C in double precision, row-major, A MxK, B KxN, C MxN.
//
// gemm_naive is the textbook triple loop (i, j, k). gemm_blocked walks k in the middle loop and
// blocks all three loops so that a tile of B stays in cache; it is the reference the tests use and
// runs on all cores (std::thread). Step 00 times both.
#pragma once

#include <vector>

namespace gemm {

void cpu_gemm_naive(int m, int n, int k, double alpha, const float* a, const float* b, double beta,
                    const float* c_in, double* c_out);

void cpu_gemm_blocked(int m, int n, int k, double alpha, const float* a, const float* b, double beta,
                      const float* c_in, double* c_out, int threads = 0);

}  // namespace gemm
