// Step 20, FP8 with the epilogue under the next tile's products: step 19's mapping with one rule
// added, where the kernel stores a tile under the next one (epilogue_under_next_tile). The rule is
// checked here; everything else must be step 19's, which test_mapping_19.cpp checks: the same
// configurations, the same tile by shape, the same persistent order and the same trace.
#include <gtest/gtest.h>

#include <iterator>
#include <string>
#include <vector>

#include "fp8_steps.hpp"
#include "hopper_checks.hpp"
#include "pipeline_checks.hpp"
#include "store_path_steps.hpp"

namespace {

using gemm::GemmShape;

using gemm::hopper_testing::config_name;
using gemm::hopper_testing::same_config;

}  // namespace

// The epilogue goes under the next tile only with promotion (else the tensor cores add into the
// accumulators themselves) and only with 16-bit output; in the 128 x 128 tile in every kernel, in
// the 192-column tile only in the kernel compiled without the read-back path, which a problem
// launches where TMA stores C (beta = 0, C's rows 16-byte aligned).
TEST(Mapping20, EpilogueUnderNextTileWhereTheRegistersAllowIt) {
  int kernels_with_it = 0, compiled_twice = 0;
  for (const step20::Config& c : step20::kConfigs)
    for (const int out_bytes : {2, 4})
      for (const bool tma_only : {false, true}) {
        const bool expected = c.promote > 0 && out_bytes == 2 && (c.bn <= 128 || tma_only);
        EXPECT_EQ(step20::epilogue_under_next_tile(c, out_bytes, tma_only), expected)
            << config_name(c) << " out " << out_bytes << (tma_only ? " TMA only" : "");
        kernels_with_it += expected && (tma_only == step20::has_tma_only_kernel(c, out_bytes));
        compiled_twice += tma_only && step20::has_tma_only_kernel(c, out_bytes);
      }
  // 128 x 128, and 128 x 192 with PROMOTE = 1 and 4, with 16-bit output (the two 16-bit types are
  // one entry here: each is compiled for both).
  EXPECT_EQ(kernels_with_it, 3);
  EXPECT_EQ(compiled_twice, 2) << "the 192-column tiles with promotion";
  const step20::Config& square = step20::kConfigs[step20::kSquareTileConfig];
  EXPECT_TRUE(step20::epilogue_under_next_tile(square, 2, false));
  EXPECT_FALSE(step20::has_tma_only_kernel(square, 2)) << "the 128 x 128 tile has the registers with both paths";
  EXPECT_FALSE(step20::epilogue_under_next_tile(square, 4, true)) << "f32 slices";
  EXPECT_FALSE(step20::epilogue_under_next_tile(step20::kConfigs[0], 2, false)) << "the 192-column tile, both paths";
  EXPECT_TRUE(step20::epilogue_under_next_tile(step20::kConfigs[0], 2, true)) << "the 192-column tile, TMA only";
  step20::Config unpromoted = square;
  unpromoted.promote = 0;
  EXPECT_FALSE(step20::epilogue_under_next_tile(unpromoted, 2, true)) << "without promotion the accumulators are busy";
  // Which instance a problem launches: TMA's alone where it stores C.
  const step20::Config& wide = step20::kConfigs[0];
  EXPECT_TRUE(step20::launches_tma_only_kernel(wide, {8192, 8192, 8192}, 0.0f, 2));
  EXPECT_FALSE(step20::launches_tma_only_kernel(wide, {8192, 8192, 8192}, 0.5f, 2)) << "beta != 0 reads C";
  EXPECT_FALSE(step20::launches_tma_only_kernel(wide, {129, 127, 160}, 0.0f, 2)) << "rows not 16-byte aligned";
  EXPECT_FALSE(step20::launches_tma_only_kernel(wide, {8192, 8192, 8192}, 0.0f, 4)) << "f32 output";
  EXPECT_FALSE(step20::launches_tma_only_kernel(square, {4096, 4096, 4096}, 0.0f, 2)) << "compiled once";
  // The tiles the program takes by shape (config_for_shape) store under the next tile at 4096^3
  // (128 x 128) and at 8192^3 (128 x 192), with 16-bit output and beta = 0.
  for (const GemmShape& s : {GemmShape{4096, 4096, 4096}, GemmShape{8192, 8192, 8192}}) {
    const step20::Config c = step20::config_for_shape(s, 132);
    EXPECT_TRUE(step20::epilogue_under_next_tile(c, 2, step20::launches_tma_only_kernel(c, s, 0.0f, 2))) << s.m;
  }
}

// Nothing else changes: the compiled configurations and their rule, the tile by shape, the
// persistent order and launch, and the trace (f32 output, which the change does not touch).
// The epilogue's store path (store_path): what the kernel's if-constexpr chain chose before, by TMA
// under the next tile and in the TMA-only kernel, else either path as the problem says; and a tile
// goes by TMA exactly where TMA may store C.
TEST(Mapping20, StorePathFollowsTheProblem) {
  gemm::hopper_testing::expect_store_path_follows_the_problem<gemm::fp8_testing::StorePaths20>(
      [](const step20::Config&, int out_bytes, bool tma_only, bool under_next_tile) {
        if (under_next_tile || (out_bytes == 2 && tma_only)) return step20::StorePath::tma;
        return step20::StorePath::tma_or_read_back;
      });
}

TEST(Mapping20, EverythingElseIsStep19s) {
  ASSERT_EQ(step20::kConfigCount, step19::kConfigCount);
  for (int i = 0; i < step20::kConfigCount; ++i) {
    EXPECT_TRUE(same_config(step19::kConfigs[i], step20::kConfigs[i])) << config_name(step20::kConfigs[i]);
    EXPECT_STREQ(step20::config_rule(step20::kConfigs[i]), "");
  }
  EXPECT_EQ(step20::kSquareTileConfig, step19::kSquareTileConfig);
  const std::vector<GemmShape> shapes = {{4096, 4096, 4096}, {8192, 8192, 8192}, {1000, 1000, 1008},
                                         {4088, 4104, 4096}, {264, 232, 128},    {6144, 6144, 6144}};
  for (const int sms : {132, 114, 16})
    for (const GemmShape& s : shapes)
      EXPECT_TRUE(same_config(step19::config_for_shape(s, sms), step20::config_for_shape(s, sms))) << s.m << "x" << s.n;
  using gemm::fp8_testing::Step19;
  using gemm::fp8_testing::Step20;
  gemm::hopper_testing::expect_same_dealing<Step19, Step20>(step20::kConfigCount, shapes, {132, 114, 16});
  gemm::hopper_testing::expect_same_traces<Step19, Step20>(step20::kConfigCount);
}

// The viewer's timeline follows the kernel's loops: every block takes the units of its loop over u
// (cluster_of, next_unit), and each k-tile's stage and barrier parities are the kernel's running
// counters (PipelineState) at it, running on from tile to tile, for blocks of many tiles.
TEST(Mapping20, TimelineFollowsTheKernelsLoops) {
  gemm::pipeline_testing::expect_persistent_pipeline_as_the_kernel<step20::PipelineState>(
      "20_overlapped_epilogue", step20::next_unit,
      std::vector<step20::Config>(std::begin(step20::kConfigs), std::end(step20::kConfigs)),
      {gemm::GemmShape{264, 520, 72}, gemm::GemmShape{1000, 1000, 1024}, gemm::GemmShape{520, 4104, 5120}},
      {4, 16, 132});
}

// The viewer's promotion intervals are the kernel's count (promotion_ends), for any PROMOTE and K.
TEST(Mapping20, PromotionFollowsTheKernelsCount) {
  gemm::pipeline_testing::expect_promotion_as_the_kernel(
      "20_overlapped_epilogue", step20::kConfigs[0], {0, 1, 2, 3, 4, 7}, {1, 2, 3, 4, 5, 8, 33, 200});
}
