// Step 21, FP8 with the k-loop's addresses in the uniform datapath: step 20's mapping with one rule
// added, which kernels compute their wgmma descriptors once and move them by offsets
// (uniform_addresses). The rule, and the descriptor arithmetic it rests on, are checked here;
// everything else must be step 20's, which test_mapping_20.cpp checks.
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

// Moving a descriptor is adding: for every compiled configuration, stage, consumer and k-step, and
// any 1024-byte-aligned start of the stages inside the shared memory a block may have, the
// descriptor the kernel adds up (stage 0's plus the offsets >> 4) is the one step 20 builds from the
// address.
TEST(Mapping21, DescriptorMovedByAnOffsetIsTheDescriptorOfTheAddress) {
  const step21::Descriptor strides = step21::descriptor_strides();
  for (const step21::Config& c : step21::kConfigs)
    for (std::uint32_t stage0 = 0; stage0 + step21::shared_bytes(c) <= std::uint32_t(step21::kMaxSharedBytes) + 1024;
         stage0 += step21::kSwizzleAtomBytes) {
      const std::uint64_t b_stage0 = step21::wgmma_descriptor(stage0 + step21::a_tile_bytes(c), strides);
      for (int stage = 0; stage < c.stages; ++stage)
        for (int consumer = 0; consumer < step21::consumers(c); ++consumer) {
          const std::uint64_t a_stage0 = step21::wgmma_descriptor(stage0 + step21::operand_offset(consumer, 0), strides);
          const std::uint32_t a_tile = stage0 + std::uint32_t(stage * step21::stage_bytes(c));
          for (int kk = 0; kk < c.bk / step21::kWgmmaK; ++kk) {
            const std::uint64_t at = step21::descriptor_offset(step21::stage_bytes(c), stage, kk);
            ASSERT_EQ(at << 4, std::uint64_t(stage * step21::stage_bytes(c) + step21::operand_offset(0, kk)));
            ASSERT_EQ(a_stage0 + at, step21::wgmma_descriptor(a_tile + step21::operand_offset(consumer, kk), strides))
                << config_name(c) << " stage0 " << stage0 << " stage " << stage << " consumer " << consumer << " kk " << kk;
            ASSERT_EQ(b_stage0 + at,
                      step21::wgmma_descriptor(a_tile + step21::a_tile_bytes(c) + step21::operand_offset(0, kk), strides))
                << config_name(c) << " stage0 " << stage0 << " stage " << stage << " kk " << kk;
          }
        }
    }
}

// Which kernels have the change: all but the promoted tiles wider than 128 columns compiled with
// both store paths (no room: ptxas serialised their wgmmas) and the 128 x 128 tile's kernels that
// store under the next tile (slower with it).
TEST(Mapping21, UniformAddressesWhereThereIsRoomAndItIsFaster) {
  int with_it = 0, kernels = 0;
  for (const step21::Config& c : step21::kConfigs)
    for (const int out_bytes : {2, 4})
      for (const bool tma_only : {false, true}) {
        if (tma_only && !step21::has_tma_only_kernel(c, out_bytes)) continue;  // not compiled
        const bool no_room = c.promote > 0 && c.bn > 128 && !tma_only;
        const bool slower = c.bn <= 128 && step21::epilogue_under_next_tile(c, out_bytes, tma_only);
        EXPECT_EQ(step21::uniform_addresses(c, out_bytes, tma_only), !no_room && !slower)
            << config_name(c) << " out " << out_bytes << (tma_only ? " TMA only" : "");
        with_it += step21::uniform_addresses(c, out_bytes, tma_only);
        ++kernels;
      }
  // Compiled per input and output type: 4 configurations x (16-bit, f32) + the 2 promoted 192-column
  // tiles' TMA-only 16-bit kernels = 10 kinds; with the change: the unpromoted 192-column tile
  // (both outputs), the two TMA-only kernels, and the 128 x 128 tile with f32 output.
  EXPECT_EQ(kernels, 10);
  EXPECT_EQ(with_it, 5);
  const step21::Config& wide = step21::kConfigs[0];
  const step21::Config& square = step21::kConfigs[step21::kSquareTileConfig];
  EXPECT_TRUE(step21::uniform_addresses(wide, 2, true)) << "8192^3, 16-bit output, beta = 0";
  EXPECT_FALSE(step21::uniform_addresses(wide, 2, false)) << "the 192-column tile with both store paths";
  EXPECT_FALSE(step21::uniform_addresses(wide, 4, false)) << "f32 output: both store paths";
  EXPECT_TRUE(step21::uniform_addresses(square, 4, false)) << "4096^3, f32 output";
  EXPECT_FALSE(step21::uniform_addresses(square, 2, false)) << "4096^3, 16-bit output: under the next tile";
  EXPECT_TRUE(step21::uniform_addresses(step21::kConfigs[1], 2, false)) << "without promotion: room";
}

// Nothing else changes: the compiled configurations and their rules (step 20's included), the tile
// by shape, the persistent order and launch, and the trace (the change is not a memory instruction).
// The epilogue's store path, as in step 20 (test_mapping_20.cpp).
TEST(Mapping21, StorePathFollowsTheProblem) {
  gemm::hopper_testing::expect_store_path_follows_the_problem<gemm::fp8_testing::StorePaths21>(
      [](const step21::Config&, int out_bytes, bool tma_only, bool under_next_tile) {
        if (under_next_tile || (out_bytes == 2 && tma_only)) return step21::StorePath::tma;
        return step21::StorePath::tma_or_read_back;
      });
}

TEST(Mapping21, EverythingElseIsStep20s) {
  ASSERT_EQ(step21::kConfigCount, step20::kConfigCount);
  for (int i = 0; i < step21::kConfigCount; ++i) {
    const step20::Config& c20 = step20::kConfigs[i];
    const step21::Config& c21 = step21::kConfigs[i];
    EXPECT_TRUE(same_config(c20, c21)) << config_name(c21);
    EXPECT_STREQ(step21::config_rule(c21), "");
    for (const int out_bytes : {2, 4})
      for (const bool tma_only : {false, true}) {
        EXPECT_EQ(step20::epilogue_under_next_tile(c20, out_bytes, tma_only),
                  step21::epilogue_under_next_tile(c21, out_bytes, tma_only));
        EXPECT_EQ(step20::has_tma_only_kernel(c20, out_bytes), step21::has_tma_only_kernel(c21, out_bytes));
      }
  }
  EXPECT_EQ(step21::kSquareTileConfig, step20::kSquareTileConfig);
  const std::vector<GemmShape> shapes = {{4096, 4096, 4096}, {8192, 8192, 8192}, {1000, 1000, 1008},
                                         {4088, 4104, 4096}, {264, 232, 128},    {6144, 6144, 6144}};
  for (const int sms : {132, 114, 16})
    for (const GemmShape& s : shapes) {
      EXPECT_TRUE(same_config(step20::config_for_shape(s, sms), step21::config_for_shape(s, sms))) << s.m << "x" << s.n;
      for (int i = 0; i < step21::kConfigCount; ++i)
        for (const float beta : {0.0f, 0.5f})
          EXPECT_EQ(step20::launches_tma_only_kernel(step20::kConfigs[i], s, beta, 2),
                    step21::launches_tma_only_kernel(step21::kConfigs[i], s, beta, 2));
    }
  using gemm::fp8_testing::Step20;
  using gemm::fp8_testing::Step21;
  gemm::hopper_testing::expect_same_dealing<Step20, Step21>(step21::kConfigCount, shapes, {132, 114, 16});
  gemm::hopper_testing::expect_same_traces<Step20, Step21>(step21::kConfigCount);
}

// The viewer's timeline follows the kernel's loops: every block takes the units of its loop over u
// (cluster_of, next_unit), and each k-tile's stage and barrier parities are the kernel's running
// counters (PipelineState) at it, running on from tile to tile, for blocks of many tiles.
TEST(Mapping21, TimelineFollowsTheKernelsLoops) {
  gemm::pipeline_testing::expect_persistent_pipeline_as_the_kernel<step21::PipelineState>(
      "21_uniform_datapath", step21::next_unit,
      std::vector<step21::Config>(std::begin(step21::kConfigs), std::end(step21::kConfigs)),
      {gemm::GemmShape{264, 520, 72}, gemm::GemmShape{1000, 1000, 1024}, gemm::GemmShape{520, 4104, 5120}},
      {4, 16, 132});
}

// The viewer's promotion intervals are the kernel's count (promotion_ends), for any PROMOTE and K.
TEST(Mapping21, PromotionFollowsTheKernelsCount) {
  gemm::pipeline_testing::expect_promotion_as_the_kernel(
      "21_uniform_datapath", step21::kConfigs[0], {0, 1, 2, 3, 4, 7}, {1, 2, 3, 4, 5, 8, 33, 200});
}
