// CPU references: C = alpha*A*B + beta*C in double precision, row-major, A MxK, B KxN, C MxN.
//
// gemm_naive is the textbook triple loop (i, j, k). gemm_blocked walks k in the middle loop (i, k, j)
// over blocks of 256 columns, so that its inner loop is contiguous and its accumulator row stays in
// L1; it adds the products in the same order as gemm_naive (bit-identical results), is the
// reference the tests use and runs on all cores (std::thread). Step 00 times both.
#pragma once

#include <vector>

namespace gemm {

void cpu_gemm_naive(int m, int n, int k, double alpha, const float* a, const float* b, double beta,
                    const float* c_in, double* c_out);

void cpu_gemm_blocked(int m, int n, int k, double alpha, const float* a, const float* b, double beta,
                      const float* c_in, double* c_out, int threads = 0);

}  // namespace gemm
