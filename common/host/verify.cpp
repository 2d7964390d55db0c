#include "verify.hpp"

#include <cmath>

namespace gemm {

namespace {

template <typename Ref>
ErrorReport compare_impl(const float* c, const Ref* reference, std::size_t count, const Tolerance& tol) {
  ErrorReport report;
  double diff_sq = 0, ref_sq = 0;
  bool have_worst = false;
  for (std::size_t i = 0; i < count; ++i) {
    const double value = c[i];
    const double expected = double(reference[i]);
    if (!std::isfinite(value)) {
      if (report.non_finite++ == 0) report.worst_index = i;
      have_worst = true;
      continue;
    }
    const double diff = std::fabs(value - expected);
    diff_sq += diff * diff;
    ref_sq += expected * expected;
    if (report.non_finite == 0 && (!have_worst || diff > report.max_abs)) {
      report.worst_index = i;
      have_worst = true;
    }
    if (diff > report.max_abs) report.max_abs = diff;
  }
  const double rms = count ? std::sqrt(ref_sq / double(count)) : 0;
  // An all-zero reference (alpha = 0 and beta = 0) is compared absolutely.
  report.relative_frobenius = ref_sq > 0 ? std::sqrt(diff_sq / ref_sq) : std::sqrt(diff_sq);
  report.max_over_rms = rms > 0 ? report.max_abs / rms : report.max_abs;
  report.passed = report.non_finite == 0 && report.relative_frobenius <= tol.relative_frobenius &&
                  report.max_over_rms <= tol.max_over_rms;
  if (report.non_finite) {
    report.relative_frobenius = NAN;
    report.max_abs = NAN;
    report.max_over_rms = NAN;
  }
  return report;
}

}  // namespace

ErrorReport compare(const float* c, const double* reference, std::size_t count, const Tolerance& tol) {
  return compare_impl(c, reference, count, tol);
}
ErrorReport compare(const float* c, const float* reference, std::size_t count, const Tolerance& tol) {
  return compare_impl(c, reference, count, tol);
}

}  // namespace gemm
