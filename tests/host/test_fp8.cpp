// The FP8 conversions of cublaslt_fp8.cuh on the host: cuda_fp8.h's host path, no GPU needed.
#include <gtest/gtest.h>

#include "cublaslt_fp8.cuh"

using gemm::Fp8Type;

namespace {
float round_trip(float value, Fp8Type t) { return gemm::from_fp8(gemm::to_fp8(value, t), t); }
}  // namespace

TEST(Fp8, E4m3RoundTrips) {
  EXPECT_EQ(round_trip(1.0f, Fp8Type::e4m3), 1.0f);
  EXPECT_EQ(round_trip(-448.0f, Fp8Type::e4m3), -448.0f);
  EXPECT_EQ(gemm::to_fp8(448.0f, Fp8Type::e4m3), 0x7E);  // 0x7F is NaN: e4m3 has no inf
  // 0.1 lies between 0.09375 and 0.1015625 (1.101b x 2^-4; steps of 2^-7 there): nearer the second.
  EXPECT_EQ(round_trip(0.1f, Fp8Type::e4m3), 0.1015625f);
}

TEST(Fp8, E5m2RoundTrips) {
  EXPECT_EQ(round_trip(3.0f, Fp8Type::e5m2), 3.0f);
  EXPECT_EQ(round_trip(57344.0f, Fp8Type::e5m2), 57344.0f);
  EXPECT_EQ(gemm::to_fp8(57344.0f, Fp8Type::e5m2), 0x7B);
}

TEST(Fp8, SaturatesToTheFiniteMax) {
  EXPECT_EQ(round_trip(500.0f, Fp8Type::e4m3), 448.0f);
  EXPECT_EQ(round_trip(-1e6f, Fp8Type::e4m3), -448.0f);
  EXPECT_EQ(round_trip(1e6f, Fp8Type::e5m2), 57344.0f);
  for (Fp8Type t : {Fp8Type::e4m3, Fp8Type::e5m2}) EXPECT_EQ(round_trip(2 * gemm::fp8_max(t), t), gemm::fp8_max(t));
}
