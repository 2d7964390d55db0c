#include "cpu_gemm.hpp"

#include <algorithm>
#include <thread>

namespace gemm {

void cpu_gemm_naive(int m, int n, int k, double alpha, const float* a, const float* b, double beta,
                    const float* c_in, double* c_out) {
  for (int row = 0; row < m; ++row)
    for (int col = 0; col < n; ++col) {
      double sum = 0;
      for (int k_index = 0; k_index < k; ++k_index)
        sum += double(a[size_t(row) * k + k_index]) * double(b[naive_b_read(n, col, k_index)]);
      const size_t at = size_t(row) * n + col;
      // BLAS convention: beta == 0 means C is not read (it may hold NaN).
      c_out[at] = alpha * sum + (beta == 0 ? 0.0 : beta * double(c_in[at]));
    }
}

namespace {

constexpr int kRowBlock = 32;   // rows of C per task (tasks are dealt out to the threads)
constexpr int kColBlock = 256;  // columns of C per accumulator row: 256 doubles (2 KB) stay in L1

// For each block of kColBlock columns, each row of the task: the accumulator row is set to zero,
// then every k_index = 0 .. K-1 adds A[row][k_index] times a contiguous piece of row k_index of B
// (kColBlock floats).
// The k loop is in the middle, so the inner loop walks memory contiguously and sums each element of
// C in the same order as the triple loop (k_index = 0, 1, ...): the two results agree exactly. What is
// reused: the accumulator row (in L1) for all K steps of a row, and the K x kColBlock panel of B
// (K x 1 KB of floats), which every row of the task walks again: it is still in cache for the next
// row only when it fits in the core's caches. K itself is not blocked.
void blocked_rows(int row_begin, int row_end, int m, int n, int k, double alpha, const float* a,
                  const float* b, double beta, const float* c_in, double* c_out) {
  (void)m;
  std::vector<double> acc(kColBlock);
  for (int col0 = 0; col0 < n; col0 += kColBlock) {
    const int cols = std::min(kColBlock, n - col0);
    for (int row = row_begin; row < row_end; ++row) {
      std::fill(acc.begin(), acc.begin() + cols, 0.0);
      for (int k_index = 0; k_index < k; ++k_index) {
        const double a_value = a[size_t(row) * k + k_index];
        for (int j = 0; j < cols; ++j) acc[j] += a_value * double(b[blocked_b_read(n, k_index, col0, j)]);
      }
      for (int j = 0; j < cols; ++j) {
        const size_t at = size_t(row) * n + col0 + j;
        c_out[at] = alpha * acc[j] + (beta == 0 ? 0.0 : beta * double(c_in[at]));
      }
    }
  }
}

}  // namespace

void cpu_gemm_blocked(int m, int n, int k, double alpha, const float* a, const float* b, double beta,
                      const float* c_in, double* c_out, int threads) {
  if (threads <= 0) threads = int(std::max(1u, std::thread::hardware_concurrency()));
  const int tasks = (m + kRowBlock - 1) / kRowBlock;
  threads = std::min(threads, tasks);
  if (threads <= 1) {
    blocked_rows(0, m, m, n, k, alpha, a, b, beta, c_in, c_out);
    return;
  }
  std::vector<std::thread> pool;
  for (int t = 0; t < threads; ++t)
    pool.emplace_back([=] {
      for (int task = t; task < tasks; task += threads) {
        const int row_begin = task * kRowBlock;
        blocked_rows(row_begin, std::min(m, row_begin + kRowBlock), m, n, k, alpha, a, b, beta, c_in,
                     c_out);
      }
    });
  for (std::thread& worker : pool) worker.join();
}

}  // namespace gemm
