// CPU references: C = alpha*A*B + beta*C in double precision, row-major, A MxK, B KxN, C MxN.
//
// cpu_gemm_naive is the textbook triple loop (row, col, k). cpu_gemm_blocked walks k in the middle
// (row, k, col) over blocks of 256 columns, so that its inner loop is contiguous and its
// accumulator row stays in L1; it adds the products in the same order as cpu_gemm_naive
// (bit-identical results), is the reference the GPU steps check against and runs on the CPU's
// hardware threads (std::thread). Step 00 times both.
#pragma once

#include <cstddef>
#include <vector>

namespace gemm {

// Which element of B (its offset in B's row-major storage, K x N) each inner loop reads at its step
// `step` (the docs' diagram of step 00 draws these). The triple loop's, for column `col` of C, walks
// down a column of B, one k index a step: a stride of N floats. The blocked loop's, at `k_index`
// for the block of columns from `col0`, walks along row k_index of B: consecutive floats.
inline size_t naive_b_read(int n, int col, int step) { return size_t(step) * size_t(n) + size_t(col); }
inline size_t blocked_b_read(int n, int k_index, int col0, int step) {
  return size_t(k_index) * size_t(n) + size_t(col0 + step);
}

void cpu_gemm_naive(int m, int n, int k, double alpha, const float* a, const float* b, double beta,
                    const float* c_in, double* c_out);

void cpu_gemm_blocked(int m, int n, int k, double alpha, const float* a, const float* b, double beta,
                      const float* c_in, double* c_out, int threads = 0);

}  // namespace gemm
