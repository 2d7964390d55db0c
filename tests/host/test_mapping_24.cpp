// Step 24, FP8 with the promotion under the next k-tile's products: step 23's kernel and schedule,
// with the 64 x 128 tile of one consumer in place of the 128 x 64 tile of two. Checked here: which
// tiles promote under the next k-tile's products (overlapped_promotion) and what that takes (a
// second interval sum, stored after the tile, never split); every k-tile of every unit once; the
// other tiles dealt, scheduled and traced as step 23's; the tile and schedule each issue shape gets
// on 132 SMs; the staging and the trace (hopper_checks.hpp).
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "23_stream_k/mapping.hpp"
#include "24_overlapped_promotion/mapping.hpp"
#include "fp8_steps.hpp"
#include "hopper_checks.hpp"
#include "mapping_coverage.hpp"
#include "store_path_steps.hpp"

namespace {

namespace ht = gemm::hopper_testing;
using gemm::GemmShape;
using gemm::Layout;
using step24::Config;
using step24::kConfigs;

constexpr int kSms = 132;  // the H100's and the H200's

// Step 24's functions, for the checks it shares with steps 18 and 19 (hopper_checks.hpp).
struct Step24 {
  using Config = step24::Config;
  static constexpr auto& kConfigs = step24::kConfigs;
  static constexpr auto tiles_m = &step24::tiles_m;
  static constexpr auto tiles_n = &step24::tiles_n;
  static constexpr auto tiles = &step24::tiles;
  static constexpr auto units = &step24::units;
  static constexpr auto unit_rows = &step24::unit_rows;
  static constexpr auto narrow_tile = &step24::narrow_tile;
  static constexpr auto narrow_units = &step24::narrow_units;
  static constexpr auto tile_at = &step24::tile_at;
  static constexpr auto launch_shape = &step24::launch_shape;
  static constexpr auto persistent_clusters = &step24::persistent_clusters;
  static constexpr auto grid_time = &step24::grid_time;
  static constexpr int kNarrowCols = step24::kNarrowCols;
  static constexpr int kNarrowUnitsPerWhole = step24::kNarrowUnitsPerWhole;
  static constexpr auto consumers = &step24::consumers;
  static constexpr int kWgmmaM = step24::kWgmmaM;
  static constexpr int kWarpgroup = step24::kWarpgroup;
  static constexpr auto accumulator_row = &step24::accumulator_row;
  static constexpr auto accumulator_col = &step24::accumulator_col;
  static constexpr auto slice_cols = &step24::slice_cols;
  static constexpr auto c_box_cols = &step24::c_box_cols;
  static constexpr auto staging_byte = &step24::staging_byte;
  static constexpr auto staging_half_byte = &step24::staging_half_byte;
  static constexpr auto c_box = &step24::c_box;
  static constexpr auto staged_chunk = &step24::staged_chunk;
  static constexpr int kRun = step24::kRun;
  static constexpr int kReadBacks = step24::kReadBacks;
  static constexpr int kStagingBytes = step24::kStagingBytes;
  static constexpr int kStagingSlices = step24::kStagingSlices;
  static constexpr int kStagingBoxBytes = step24::kStagingBoxBytes;
  static constexpr auto tma_stores_c = &step24::tma_stores_c;
  static constexpr auto to_params = &step24::to_params;
  static constexpr auto trace_launch_shape = &step24::trace_launch_shape;
  static constexpr auto trace_warp = &step24::trace_warp;
  static constexpr int kScaleLoads = 2;  // A's and B's per-tensor scales, read by every consumer warp
  static constexpr auto shape_rule = &gemm::fp8_shape_rule;
  static constexpr auto schedule_of = &step24::schedule_of;  // the stream-K checks
  static constexpr auto k_tiles = &step24::k_tiles;
  static constexpr auto cluster_work = &step24::cluster_work;
  static constexpr int kMaxPieces = step24::kMaxPieces;
};

// The shapes (hopper_checks.hpp, shared with the other stream-K step's test).
const std::vector<GemmShape>& kDealtShapes = ht::stream_k_dealt_shapes();
const std::vector<GemmShape>& shapes() { return ht::stream_k_shapes(); }
std::string name(const GemmShape& s) { return gemm::testing::shape_name(s); }

// Every (unit, k-tile) once, over every cluster's work, for every shape, tile and GPU size.
TEST(Step24Schedule, EveryKTileOfEveryUnitOnce) {
  ht::expect_every_k_tile_of_every_unit_once<Step24>(shapes());
}

// A consumer alone in its block that promotes every k-tile overlaps its promotion with the next
// k-tile's products, with a second interval sum; that tile is the 64 x 128 tile, which stores after
// the tile (its registers hold the second sum) and is never split. Its k-loop keeps the uniform
// addresses only with f32 output.
TEST(Step24Promotion, OverlappedWhereAConsumerIsAlone) {
  for (const Config& c : kConfigs) {
    SCOPED_TRACE(ht::config_name(c));
    const bool alone = step24::consumers(c) == 1;
    EXPECT_EQ(step24::overlapped_promotion(c), alone && c.promote == 1);
    EXPECT_EQ(step24::interval_sums(c), c.promote == 0 ? 0 : step24::overlapped_promotion(c) ? 2 : 1);
    if (!step24::overlapped_promotion(c)) continue;
    for (const bool tma_only : {false, true})
      for (const int out_bytes : {2, 4}) EXPECT_FALSE(step24::epilogue_under_next_tile(c, out_bytes, tma_only));
    EXPECT_FALSE(step24::uniform_addresses(c, 2, false));
    EXPECT_TRUE(step24::uniform_addresses(c, 4, false));
    for (const GemmShape& shape : shapes())
      for (const int sms : {kSms, 114, 16}) EXPECT_EQ(step24::schedule_of(shape, c, sms).split_units, 0) << name(shape);
  }
  const Config& short_tile = kConfigs[step24::kShortTileConfig];
  EXPECT_TRUE(step24::overlapped_promotion(short_tile));
  // Step 23's 128 x 64 tile gave way to it: the same stages, a quarter less shared memory read a
  // k-tile (one consumer reads 8 KB of A and 16 KB of B, where two read 8 + 8 KB each).
  const step23::Config& replaced = step23::kConfigs[step23::kNarrowTileConfig];
  EXPECT_EQ(short_tile.bm * short_tile.bn, replaced.bm * replaced.bn);
  EXPECT_EQ(step24::stage_bytes(short_tile), step23::stage_bytes(replaced));
  EXPECT_EQ(4 * step24::consumers(short_tile) * (step24::a_tile_bytes(short_tile) / step24::consumers(short_tile) +
                                                 step24::b_tile_bytes(short_tile)),
            3 * step23::consumers(replaced) * (step23::a_tile_bytes(replaced) / step23::consumers(replaced) +
                                               step23::b_tile_bytes(replaced)));
}

// Every other tile is step 23's: the same configuration, schedule and launch at every shape.
TEST(Step24Schedule, OtherTilesAsStep23) {
  ASSERT_EQ(step24::kConfigCount, step23::kConfigCount);
  for (int index = 0; index < step24::kConfigCount; ++index) {
    if (index == step24::kShortTileConfig) continue;
    const Config& c = kConfigs[index];
    const step23::Config& c23 = step23::kConfigs[index];
    SCOPED_TRACE(ht::config_name(c));
    ASSERT_TRUE(c.bm == c23.bm && c.bn == c23.bn && c.stages == c23.stages && c.cluster == c23.cluster &&
                c.promote == c23.promote && c.group_m == c23.group_m);
    for (const GemmShape& shape : shapes())
      for (const int sms : {kSms, 114, 16}) {
        const step24::Schedule s = step24::schedule_of(shape, c, sms);
        const step23::Schedule s23 = step23::schedule_of(shape, c23, sms);
        EXPECT_EQ(s.clusters, s23.clusters) << name(shape);
        EXPECT_EQ(s.whole_units, s23.whole_units) << name(shape);
        EXPECT_EQ(s.split_units, s23.split_units) << name(shape);
        EXPECT_EQ(step24::launch_shape(shape, c, sms).grid.x, step23::launch_shape(shape, c23, sms).grid.x);
      }
  }
}

// The tile and schedule each issue shape gets on 132 SMs: the 64 x 128 tile, whole, where step 23
// took the 128 x 64 tile (and at the deep shapes it split with it); the rest as step 23.
TEST(Step24Schedule, IssueShapes) {
  struct Expect {
    GemmShape shape;
    int bm, bn;
    bool split;
  };
  for (const Expect& e : {Expect{{512, 1536, 16384}, 64, 128, false}, Expect{{512, 1024, 16384}, 128, 128, true},
                          Expect{{768, 768, 8192}, 64, 128, false}, Expect{{264, 400, 8192}, 64, 128, false},
                          Expect{{1024, 1024, 8192}, 64, 128, false}, Expect{{1024, 1024, 16384}, 64, 128, false},
                          Expect{{1000, 1000, 1008}, 64, 128, false}, Expect{{1024, 1024, 1024}, 64, 128, false},
                          Expect{{136, 400, 8192}, 128, 128, true}, Expect{{264, 520, 16384}, 128, 128, true},
                          Expect{{4096, 4096, 4096}, 128, 176, false}, Expect{{8192, 8192, 8192}, 128, 192, false},
                          Expect{{4088, 4104, 4096}, 128, 176, false}, Expect{{2048, 2048, 2048}, 128, 128, false},
                          Expect{{512, 4096, 4096}, 128, 128, false}}) {
    SCOPED_TRACE(name(e.shape));
    const Config c = step24::config_for_shape(e.shape, kSms);
    EXPECT_EQ(c.bm, e.bm);
    EXPECT_EQ(c.bn, e.bn);
    EXPECT_EQ(step24::schedule_of(e.shape, c, kSms).split_units > 0, e.split);
  }
}

}  // namespace

// One k-tile a unit (K = 64): nothing is split, and every tile but the short one is dealt and traced
// as in step 23 (the configurations before kShortTileConfig, the last).
TEST(Step24Schedule, OtherTilesDealtAndTracedAsStep23) {
  static_assert(step24::kShortTileConfig == step24::kConfigCount - 1, "the tiles before it are step 23's");
  ht::expect_same_dealing<gemm::fp8_testing::Step23, gemm::fp8_testing::Step24>(step24::kShortTileConfig, kDealtShapes,
                                                                                {132, 114, 16});
  ht::expect_same_traces<gemm::fp8_testing::Step23, gemm::fp8_testing::Step24>(step24::kShortTileConfig);
}

// The checks of steps 18 to 23 (hopper_checks.hpp): the staging, and the trace over whole launches,
// also at shapes whose units are split (K = 4096, 2048) and with the 64 x 128 tile (K = 64).
TEST(Step24Schedule, StagingAndTrace) {
  ht::expect_staging_conflict_free_and_complete<Step24>();
  ht::expect_staging_halves_tile_the_buffers<Step24>();
  ht::expect_trace_stages_every_float_and_updates_c_once<Step24>(
      {{GemmShape{3 * 128 + 8, 2 * 192 + 8, 64}, Layout::nt}, {GemmShape{136, 100, 128}, Layout::nt},
       {GemmShape{264, 400, 4096}, Layout::nt}, {GemmShape{136, 350, 2048}, Layout::nt}});
  ht::expect_tma_path_counts<Step24>();
}

// The kernel calls store_path directly (kernel.cuh, the epilogue): the kernel's rule restated, and
// TMA stores C exactly where it may (hopper_checks.hpp), for every compiled kernel.
TEST(Mapping24, StorePathFollowsTheProblem) {
  gemm::hopper_testing::expect_store_path_of_twins_follows_the_problem<gemm::fp8_testing::StorePaths24>(
      step24::read_back_only);
}
