// Summary statistics of repeated timings.
#pragma once

#include <vector>

namespace gemm {

struct TimingStats {
  double median_ms = 0, min_ms = 0, max_ms = 0;
  int reps = 0;
};

// Median (mean of the two middle values for an even count), min and max. Empty input: all zero.
TimingStats summarize(std::vector<double> samples_ms);

// GFLOPS of a GEMM of this shape at this time: 2*M*N*K / t.
double gemm_gflops(int m, int n, int k, double ms);

}  // namespace gemm
