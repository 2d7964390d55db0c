#include "report.hpp"

#include <cmath>
#include <cstdio>

namespace gemm {

std::string table_header() {
  char line[256];
  std::snprintf(line, sizeof line, "%7s %7s %7s | %10s %10s | %13s %8s | %9s | %s", "M", "N", "K", "median ms",
                "GFLOPS", "cuBLAS GFLOPS", "% cuBLAS", "rel. err", "verdict");
  return line;
}

std::string table_row(const ShapeResult& r) {
  char time[64] = "", rate[32] = "", cublas_rate[32] = "", fraction[32] = "", error[32] = "";
  if (r.timed) {
    std::snprintf(time, sizeof time, "%10.4f", r.ours.median_ms);
    std::snprintf(rate, sizeof rate, "%10.1f", gemm_gflops(r.m, r.n, r.k, r.ours.median_ms));
    std::snprintf(cublas_rate, sizeof cublas_rate, "%13.1f", gemm_gflops(r.m, r.n, r.k, r.cublas.median_ms));
    std::snprintf(fraction, sizeof fraction, "%7.1f%%", 100.0 * r.cublas.median_ms / r.ours.median_ms);
  } else {
    std::snprintf(time, sizeof time, "%10s", "-");
    std::snprintf(rate, sizeof rate, "%10s", "-");
    std::snprintf(cublas_rate, sizeof cublas_rate, "%13s", "-");
    std::snprintf(fraction, sizeof fraction, "%8s", "-");
  }
  if (r.checked) {
    if (std::isfinite(r.error.relative_frobenius))
      std::snprintf(error, sizeof error, "%9.2e", r.error.relative_frobenius);
    else
      std::snprintf(error, sizeof error, "%9s", "NaN");
  } else {
    std::snprintf(error, sizeof error, "%9s", "-");
  }
  char line[256];
  std::snprintf(line, sizeof line, "%7d %7d %7d | %s %s | %s %s | %s | %s", r.m, r.n, r.k, time, rate, cublas_rate,
                fraction, error, to_string(r.verdict));
  return line;
}

std::string reference_line(const ShapeResult& r) {
  if (!r.timed && std::isfinite(r.cublas_error)) {
    char line[256];
    std::snprintf(line, sizeof line,
                  "%23s   (the yardstick's own error against the same reference: cuBLASLt %.2e, with fast "
                  "accumulation %.2e)",
                  "", r.cublas_error, r.cublas_fast_accum_error);
    return line;
  }
  if (r.timed && r.cublas_fast_accum.reps > 0) {
    char line[256];
    std::snprintf(line, sizeof line,
                  "%23s   (reference, not the yardstick: cuBLASLt with fast accumulation, no promotion, %.1f GFLOPS, "
                  "%.2fx this step)",
                  "", gemm_gflops(r.m, r.n, r.k, r.cublas_fast_accum.median_ms),
                  r.ours.median_ms / r.cublas_fast_accum.median_ms);
    return line;
  }
  if (!r.timed || r.cublas_tf32.reps == 0) return "";
  char line[256];
  std::snprintf(line, sizeof line,
                "%23s   (reference, not the yardstick: cuBLAS in TF32 on the tensor cores, %.1f GFLOPS, %.1fx this step)",
                "", gemm_gflops(r.m, r.n, r.k, r.cublas_tf32.median_ms), r.ours.median_ms / r.cublas_tf32.median_ms);
  return line;
}

}  // namespace gemm
