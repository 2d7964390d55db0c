#include "stats.hpp"

#include <algorithm>

namespace gemm {

TimingStats summarize(std::vector<double> samples_ms) {
  TimingStats stats;
  stats.reps = int(samples_ms.size());
  if (samples_ms.empty()) return stats;
  std::sort(samples_ms.begin(), samples_ms.end());
  const size_t middle = samples_ms.size() / 2;
  stats.median_ms = samples_ms.size() % 2 ? samples_ms[middle]
                                          : 0.5 * (samples_ms[middle - 1] + samples_ms[middle]);
  stats.min_ms = samples_ms.front();
  stats.max_ms = samples_ms.back();
  return stats;
}

double gemm_gflops(int m, int n, int k, double ms) {
  if (ms <= 0) return 0;
  return 2.0 * double(m) * double(n) * double(k) / (ms * 1e-3) / 1e9;
}

}  // namespace gemm
