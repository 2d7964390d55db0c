#include <gtest/gtest.h>

#include <cmath>
#include <vector>

#include "random.hpp"
#include "verify.hpp"

namespace {
std::vector<float> random_matrix(size_t count, unsigned seed) {
  std::vector<float> values(count);
  gemm::fill_uniform(values, seed, 0);
  return values;
}
}  // namespace

TEST(Verify, IdenticalPasses) {
  const auto r = random_matrix(1000, 1);
  const auto report = gemm::compare(r.data(), r.data(), r.size(), gemm::kFp32Tolerance);
  EXPECT_TRUE(report.passed);
  EXPECT_EQ(report.relative_frobenius, 0.0);
  EXPECT_EQ(report.max_abs, 0.0);
}

TEST(Verify, HandComputedMetrics) {
  // R = (3, 4): ||R|| = 5, rms = sqrt(12.5). C = (3, 4.5): ||C - R|| = 0.5.
  const double reference[] = {3, 4};
  const float computed[] = {3, 4.5f};
  const auto report = gemm::compare(computed, reference, 2, {1.0, 1.0});
  EXPECT_DOUBLE_EQ(report.relative_frobenius, 0.1);
  EXPECT_DOUBLE_EQ(report.max_abs, 0.5);
  EXPECT_DOUBLE_EQ(report.max_over_rms, 0.5 / std::sqrt(12.5));
  EXPECT_EQ(report.worst_index, 1u);
  EXPECT_TRUE(report.passed);
}

TEST(Verify, RoundingNoisePasses) {
  auto r = random_matrix(4096, 2);
  std::vector<float> c(r);
  for (size_t i = 0; i < c.size(); ++i) c[i] = r[i] * (1.0f + (float(i % 3) - 1.0f) * 1e-6f);
  EXPECT_TRUE(gemm::compare(c.data(), r.data(), r.size(), gemm::kFp32Tolerance).passed);
}

TEST(Verify, OneWrongElementInALargeMatrixFails) {
  // In 4096 x 4096 a single wrong element moves the Frobenius error by only ~1/4096; the max error
  // criterion is what catches it.
  const size_t count = size_t(4096) * 4096;
  auto r = random_matrix(count, 3);
  std::vector<float> c(r);
  c[123457] += 0.1f;  // Frobenius: 0.1 / (0.577 * 4096) = 4e-5, under 1e-4
  const auto report = gemm::compare(c.data(), r.data(), count, gemm::kFp32Tolerance);
  EXPECT_LT(report.relative_frobenius, gemm::kFp32Tolerance.relative_frobenius);
  EXPECT_FALSE(report.passed);
  EXPECT_EQ(report.worst_index, 123457u);
}

TEST(Verify, NaNFails) {
  auto r = random_matrix(100, 4);
  std::vector<float> c(r);
  c[7] = NAN;
  c[9] = INFINITY;
  const auto report = gemm::compare(c.data(), r.data(), r.size(), gemm::kFp32Tolerance);
  EXPECT_FALSE(report.passed);
  EXPECT_EQ(report.non_finite, 2u);
  EXPECT_EQ(report.worst_index, 7u);
  EXPECT_TRUE(std::isnan(report.relative_frobenius));
}

TEST(Verify, ZeroReferenceComparedAbsolutely) {
  const float reference[] = {0, 0, 0};
  const float good[] = {0, 0, 0};
  const float bad[] = {0, 1, 0};
  EXPECT_TRUE(gemm::compare(good, reference, 3, gemm::kFp32Tolerance).passed);
  EXPECT_FALSE(gemm::compare(bad, reference, 3, gemm::kFp32Tolerance).passed);
}

TEST(Random, SeededUniformInRange) {
  auto a = random_matrix(100000, 5), b = random_matrix(100000, 5), c = random_matrix(100000, 6);
  EXPECT_EQ(a, b);
  EXPECT_NE(a, c);
  double sum = 0, min_value = 1, max_value = -1;
  for (float v : a) {
    sum += v;
    min_value = std::min(min_value, double(v));
    max_value = std::max(max_value, double(v));
  }
  EXPECT_GE(min_value, -1.0);
  EXPECT_LE(max_value, 1.0);
  EXPECT_LT(min_value, -0.999);
  EXPECT_GT(max_value, 0.999);
  EXPECT_NEAR(sum / double(a.size()), 0.0, 0.01);
}
