// Verification of a computed C against a reference R.
//
// Two measures, both needed:
//  - relative Frobenius error ||C - R||_F / ||R||_F: the accumulated rounding over the whole matrix;
//  - max error max|C - R| / rms(R): a single wrong, unwritten or NaN element, which the Frobenius
//    measure dilutes by sqrt(M*N), stands out here at about 1.
// A NaN or Inf anywhere in C fails. The thresholds are documented in docs/measuring.md,
// "Verification".
#pragma once

#include <cstddef>
#include <string>

namespace gemm {

struct Tolerance {
  double relative_frobenius;
  double max_over_rms;
};

// fp32 SIMT steps against an fp32/fp64 reference. Rounding in fp32 with K up to 8192 gives a
// relative Frobenius error near 1e-6 and a max error near 1e-5 of rms; a wrong element gives ~1.
constexpr Tolerance kFp32Tolerance{1e-4, 1e-3};

struct ErrorReport {
  double relative_frobenius = 0;
  double max_abs = 0;
  double max_over_rms = 0;
  std::size_t non_finite = 0;   // NaN or Inf in C (poison left behind, or a real overflow)
  std::size_t worst_index = 0;  // where max_abs occurs (or the first non-finite element)
  bool passed = false;
};

// Compares `count` values of C with R. R is double (CPU reference) or float (cuBLAS); both overloads.
ErrorReport compare(const float* c, const double* reference, std::size_t count, const Tolerance& tol);
ErrorReport compare(const float* c, const float* reference, std::size_t count, const Tolerance& tol);

}  // namespace gemm
