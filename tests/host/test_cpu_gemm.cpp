#include <gtest/gtest.h>

#include <cmath>
#include <vector>

#include "cpu_gemm.hpp"
#include "random.hpp"

TEST(CpuGemm, HandComputedCase) {
  // A = [1 2 3; 4 5 6] (2x3), B = [7 8; 9 10; 11 12] (3x2): A*B = [58 64; 139 154].
  // alpha = 2, beta = -1, C = [1 1; 1 1]: 2*A*B - C = [115 127; 277 307].
  const float a[] = {1, 2, 3, 4, 5, 6};
  const float b[] = {7, 8, 9, 10, 11, 12};
  const float c[] = {1, 1, 1, 1};
  const double expected[] = {115, 127, 277, 307};
  double naive[4], blocked[4];
  gemm::cpu_gemm_naive(2, 2, 3, 2.0, a, b, -1.0, c, naive);
  gemm::cpu_gemm_blocked(2, 2, 3, 2.0, a, b, -1.0, c, blocked);
  for (int i = 0; i < 4; ++i) {
    EXPECT_EQ(naive[i], expected[i]);
    EXPECT_EQ(blocked[i], expected[i]);
  }
}

TEST(CpuGemm, BetaZeroDoesNotReadC) {
  const float a[] = {2}, b[] = {3}, c[] = {NAN};
  double out[1];
  gemm::cpu_gemm_blocked(1, 1, 1, 1.0, a, b, 0.0, c, out);
  EXPECT_EQ(out[0], 6.0);
  gemm::cpu_gemm_naive(1, 1, 1, 1.0, a, b, 0.0, c, out);
  EXPECT_EQ(out[0], 6.0);
}

TEST(CpuGemm, BlockedMatchesNaiveOnOddShapes) {
  struct Shape {
    int m, n, k;
  };
  for (const Shape s : {Shape{1, 1, 1}, Shape{17, 33, 65}, Shape{33, 300, 257}, Shape{70, 3, 600}}) {
    std::vector<float> a(size_t(s.m) * s.k), b(size_t(s.k) * s.n), c(size_t(s.m) * s.n);
    gemm::fill_uniform(a, 1, 0);
    gemm::fill_uniform(b, 1, 1);
    gemm::fill_uniform(c, 1, 2);
    std::vector<double> naive(c.size()), blocked(c.size());
    gemm::cpu_gemm_naive(s.m, s.n, s.k, 0.5, a.data(), b.data(), 0.25, c.data(), naive.data());
    for (int threads : {1, 3}) {
      gemm::cpu_gemm_blocked(s.m, s.n, s.k, 0.5, a.data(), b.data(), 0.25, c.data(), blocked.data(), threads);
      for (size_t i = 0; i < c.size(); ++i) ASSERT_NEAR(naive[i], blocked[i], 1e-12) << s.m << "x" << s.n << "x" << s.k;
    }
  }
}
