// Step 22, FP8 with a tile width fitted to the shape: step 21's mapping with a fifth compiled tile,
// 128 x 176, and the tile by shape counted with what a k-tile costs besides its products. Checked
// here: the new tile as step 19's tests check the others (copies against descriptors, boxes,
// accumulators, the persistent grid, the staging and the trace, through hopper_checks.hpp), the
// slices that end at the tile's edge, the choice of tile, the kernels' rules for the new tile; and
// that the four tiles of step 21 are unchanged (configurations, grid, order, trace).
#include <gtest/gtest.h>

#include <iterator>
#include <string>
#include <utility>
#include <vector>

#include "fp8_steps.hpp"
#include "hopper_checks.hpp"
#include "pipeline_checks.hpp"
#include "store_path_steps.hpp"

namespace {

namespace ht = gemm::hopper_testing;
using gemm::GemmShape;
using gemm::Layout;
using ht::config_name;
using ht::same_config;
using step22::Config;

// Step 22's functions, for the checks it shares with steps 18 and 19 (hopper_checks.hpp).
struct Step22 {
  using Config = step22::Config;
  static constexpr auto& kConfigs = step22::kConfigs;
  static constexpr auto tiles_m = &step22::tiles_m;
  static constexpr auto tiles_n = &step22::tiles_n;
  static constexpr auto tiles = &step22::tiles;
  static constexpr auto units = &step22::units;
  static constexpr auto unit_rows = &step22::unit_rows;
  static constexpr auto narrow_tile = &step22::narrow_tile;
  static constexpr auto narrow_units = &step22::narrow_units;
  static constexpr auto tile_at = &step22::tile_at;
  static constexpr auto launch_shape = &step22::launch_shape;
  static constexpr auto persistent_clusters = &step22::persistent_clusters;
  static constexpr auto grid_time = &step22::grid_time;
  static constexpr int kNarrowCols = step22::kNarrowCols;
  static constexpr int kNarrowUnitsPerWhole = step22::kNarrowUnitsPerWhole;
  static constexpr auto consumers = &step22::consumers;
  static constexpr int kWgmmaM = step22::kWgmmaM;
  static constexpr int kWarpgroup = step22::kWarpgroup;
  static constexpr auto accumulator_row = &step22::accumulator_row;
  static constexpr auto accumulator_col = &step22::accumulator_col;
  static constexpr auto slice_cols = &step22::slice_cols;
  static constexpr auto c_box_cols = &step22::c_box_cols;
  static constexpr auto staging_byte = &step22::staging_byte;
  static constexpr auto staging_half_byte = &step22::staging_half_byte;
  static constexpr auto c_box = &step22::c_box;
  static constexpr auto staged_chunk = &step22::staged_chunk;
  static constexpr int kRun = step22::kRun;
  static constexpr int kReadBacks = step22::kReadBacks;
  static constexpr int kStagingBytes = step22::kStagingBytes;
  static constexpr int kStagingSlices = step22::kStagingSlices;
  static constexpr int kStagingBoxBytes = step22::kStagingBoxBytes;
  static constexpr auto tma_stores_c = &step22::tma_stores_c;
  static constexpr auto to_params = &step22::to_params;
  static constexpr auto trace_launch_shape = &step22::trace_launch_shape;
  static constexpr auto trace_warp = &step22::trace_warp;
  static constexpr int kScaleLoads = 2;  // A's and B's per-tensor scales, read by every consumer warp
  static constexpr auto shape_rule = &gemm::fp8_shape_rule;
};

const Config& fitted() { return step22::kConfigs[step22::kFittedTileConfig]; }

// Persistent grids at square, odd and narrow-tiled shapes (N = 4096: a last column of 48 columns of
// a 176-wide tile; N = 4104 and 232: of a 192-wide one), a tile row count that CLUSTER does not
// divide, and a single tile.
const std::vector<GemmShape> kDealtShapes = {
    GemmShape{4096, 4096, 64},  GemmShape{8192, 8192, 64},   GemmShape{1000, 1000, 64},         GemmShape{8, 8, 16},
    GemmShape{4088, 4104, 64},  GemmShape{2056, 4104, 64},   GemmShape{130 * 128, 3 * 176, 64}, GemmShape{3 * 128, 300, 64},
    GemmShape{64 * 128, 264, 64}, GemmShape{64 * 128, 40, 64}, GemmShape{129, 8200, 64},          GemmShape{5000, 136, 64},
    GemmShape{264, 232, 32},    GemmShape{3072, 3072, 64},   GemmShape{6144, 6144, 64}};

}  // namespace

// The new tile: BN = 176 = 11 x 16, so each block of a cluster copies 88 rows of B (11 whole
// swizzle atoms of 8 rows); 5 stages of 38 KB and the staging buffers fit in 227 KB; it promotes as
// the default does.
TEST(Mapping22, FittedTileObeysTheRuleAndFitsInSharedMemory) {
  for (const Config& c : step22::kConfigs) ASSERT_STREQ(step22::config_rule(c), "") << config_name(c);
  const Config& c = fitted();
  EXPECT_EQ(c.bn, step22::kFittedTileCols);
  EXPECT_EQ(c.bn, 176);
  EXPECT_EQ(c.promote, step22::kConfigs[0].promote);
  EXPECT_EQ(step22::config_from(step22::to_params(c)), c);
  EXPECT_LE(step22::shared_bytes(c), step22::kMaxSharedBytes);
  EXPECT_EQ(step22::stage_bytes(c) % step22::kSwizzleAtomBytes, 0) << "stages stay on the swizzle's period";
  const step22::TmaOperand b = step22::b_operand({1000, 1000, 1024}, c);
  EXPECT_EQ(b.boxes, c.cluster);
  EXPECT_EQ(b.box_outer, 88);
  EXPECT_EQ(b.box_outer % 8, 0) << "whole swizzle atoms";
  // The rule takes widths in steps of 8 x CLUSTER (whole atoms for each block's share of B).
  Config wider = c;
  wider.bn = 184;
  EXPECT_NE(std::string(step22::config_rule(wider)).find("multiple of 8 * CLUSTER"), std::string::npos);
  wider.bn = 272;
  EXPECT_NE(std::string(step22::config_rule(wider)).find("from 64 to 256"), std::string::npos);
}

// As step 19 checks every tile: what TMA writes (boxes of 128 one-byte k's, swizzled)
// is what each wgmma reads through its descriptor, for both operands, every consumer and k-step;
// the boxes fill the tile once; the accumulators cover 64 x 176 once.
TEST(Mapping22, FittedTileCopiesDescriptorsAndAccumulatorsAgree) {
  const Config& c = fitted();
  const unsigned tile_base = 3 * 1024;
  const step22::Descriptor strides = step22::descriptor_strides();
  for (bool is_a : {true, false})
    for (int consumer = 0; consumer < (is_a ? step22::consumers(c) : 1); ++consumer)
      for (int kk = 0; kk < c.bk / step22::kWgmmaK; ++kk)
        ht::expect_wgmma_reads_the_tile(
            step22::wgmma_descriptor(tile_base + unsigned(step22::operand_offset(consumer, kk)), strides), true,
            is_a ? step22::kWgmmaM : c.bn, tile_base, consumer * step22::kWgmmaM, kk * step22::kWgmmaK,
            step22::tile_byte, config_name(c) + (is_a ? " A" : " B") + " kk " + std::to_string(kk), step22::kWgmmaK,
            step22::kElementBytes);
  const GemmShape s{1000, 2000, 3000};
  for (bool is_a : {true, false}) {
    const step22::TmaOperand op = is_a ? step22::a_operand(s, c) : step22::b_operand(s, c);
    const int rows = is_a ? c.bm : c.bn;
    ASSERT_EQ(op.boxes * op.box_outer, rows);
    ht::expect_boxes_land_where_tile_byte_says(
        {true, op.box_outer, op.boxes, step22::box_bytes(op), step22::kElementBytes}, rows, c.bk, step22::tile_byte,
        [&](int mn0, int kt, int box) { return step22::tma_box(op, mn0, kt, box, c); }, config_name(c) + (is_a ? " A" : " B"));
  }
  ht::expect_accumulators_cover_64_by(c.bn, step22::accumulator_row, step22::accumulator_col);
}

// The slices of a tile: each one box of C (64 or 32 columns), starting on a multiple of its width
// but the last, which ends at the tile's edge (176 = 64 + 64 + 48: slices at 0, 64, 112; f32: 0, 32,
// 64, 96, 128, 144). Together they cover the tile; the read-back path, which skips the columns an
// earlier slice stored, stores each column once. For the widths that divide, the slices are step 21's.
TEST(Mapping22, SlicesEndAtTheTileEdge) {
  ht::expect_slices_end_at_the_tile_edge(step22::kConfigs, step22::slice_cols, step22::slice_count, step22::slice_first_col,
                                         step22::read_back_stores);
  EXPECT_EQ(step22::slice_count(176, 2), 3);
  EXPECT_EQ(step22::slice_first_col(2, 176, 2), 112);
  EXPECT_EQ(step22::slice_count(176, 4), 6);
  EXPECT_EQ(step22::slice_first_col(5, 176, 4), 144);
}

// The tile by shape: the least counted time, the grid's time times BM x (BN + kKTileOverheadCols),
// ties to the first of (default, 176, 128, 64). The overhead is the one that makes step 21's two
// tiles take the same time at 4096^3, as measured (8 rounds of 128 columns, 6 of 192); with it,
// 4096^3 takes the 176-column tile and 8192^3 and 6144^3 keep the default, shapes of a round or two
// the 128 x 128 tile, and those whose 128 x 128 tiles leave most SMs idle the 128 x 64 tile.
TEST(Mapping22, TileChosenByShapeCountsWhatAKTileCostsBesidesItsProducts) {
  constexpr int kSms = 132;  // H100 SXM
  const Config& wide = step22::kConfigs[0];
  const Config& square = step22::kConfigs[step22::kSquareTileConfig];
  const GemmShape at4096{4096, 4096, 4096};
  EXPECT_EQ(step22::grid_time(at4096, square, kSms) * (square.bn + step22::kKTileOverheadCols),
            step22::grid_time(at4096, wide, kSms) * (wide.bn + step22::kKTileOverheadCols));
  EXPECT_EQ(step22::grid_time(at4096, fitted(), kSms), step22::grid_time(at4096, wide, kSms)) << "6 rounds each";
  EXPECT_EQ(step22::config_for_shape(at4096, kSms), fitted());
  EXPECT_EQ(step22::config_for_shape({4088, 4104, 4096}, kSms), fitted());
  EXPECT_EQ(step22::config_for_shape({8192, 8192, 8192}, kSms), wide);
  EXPECT_EQ(step22::config_for_shape({6144, 6144, 6144}, kSms), wide);
  const Config& narrow = step22::kConfigs[step22::kNarrowTileConfig];
  EXPECT_EQ(step22::config_for_shape({2048, 2048, 2048}, kSms), square);
  EXPECT_EQ(step22::config_for_shape({512, 4096, 4096}, kSms), square);   // 64 units in one round
  EXPECT_EQ(step22::config_for_shape({1024, 1024, 1024}, kSms), narrow);  // 128 blocks, not 64 in 32 clusters
  EXPECT_EQ(step22::config_for_shape({1024, 1024, 8192}, kSms), narrow);
  EXPECT_EQ(narrow.cluster, 1);
  EXPECT_EQ(step22::grid_time({1024, 1024, 1024}, narrow, kSms), step22::grid_time({1024, 1024, 1024}, square, kSms))
      << "one round each";
  for (const int sms : {132, 114, 16, 2})
    for (int m = 1; m <= 20000; m += 997)
      for (int n = 1; n <= 12000; n += 1231) {
        const GemmShape s{m, n, 128};
        Config expected = wide;
        for (const Config* c : {&fitted(), &square, &narrow})
          if (step22::counted_time(s, *c, sms) < step22::counted_time(s, expected, sms)) expected = *c;
        EXPECT_EQ(step22::config_for_shape(s, sms), expected) << m << "x" << n << " on " << sms << " SMs";
        EXPECT_EQ(step22::counted_time(s, expected, sms),
                  (long long)step22::grid_time(s, expected, sms) * expected.bm * (expected.bn + step22::kKTileOverheadCols));
      }
}

// The kernels of the new tile: with 16-bit output it is compiled twice, TMA's path alone
// (beta = 0, C's rows 16-byte aligned) and the read-back path alone; it stores after the tile in
// both (measured faster than under the next tile), with its addresses in uniform registers in
// every kernel, f32 (both paths) included. The read-back-only twin is the 192-column tile's too,
// which gets the uniform addresses with it.
TEST(Mapping22, KernelsOfTheFittedTile) {
  const Config& c = fitted();
  for (const int out_bytes : {2, 4})
    for (const bool tma_only : {false, true}) {
      EXPECT_FALSE(step22::epilogue_under_next_tile(c, out_bytes, tma_only));
      if (tma_only && !step22::has_tma_only_kernel(c, out_bytes)) continue;
      EXPECT_TRUE(step22::uniform_addresses(c, out_bytes, tma_only)) << out_bytes << " " << tma_only;
    }
  EXPECT_TRUE(step22::has_tma_only_kernel(c, 2));
  EXPECT_FALSE(step22::has_tma_only_kernel(c, 4));
  EXPECT_TRUE(step22::read_back_only(c, 2, false));
  EXPECT_FALSE(step22::read_back_only(c, 2, true));
  EXPECT_FALSE(step22::read_back_only(c, 4, false));
  EXPECT_TRUE(step22::launches_tma_only_kernel(c, {4096, 4096, 4096}, 0.0f, 2));
  EXPECT_FALSE(step22::launches_tma_only_kernel(c, {4096, 4096, 4096}, 0.5f, 2));
  EXPECT_FALSE(step22::launches_tma_only_kernel(c, {4096, 4097, 4096}, 0.0f, 2));
  const Config& wide = step22::kConfigs[0];
  EXPECT_TRUE(step22::read_back_only(wide, 2, false));
  EXPECT_TRUE(step22::uniform_addresses(wide, 2, false)) << "one store path: room";
  EXPECT_FALSE(step22::uniform_addresses(wide, 4, false)) << "f32 output, both store paths: no room";
}

// The 128 x 64 tile's kernels: one per output (no TMA-only twin), each storing after the tile, as
// the 176-column tile does, with its addresses in uniform registers; under the next tile, as
// step 21's 128 x 128 tile stores 16-bit output, it would keep step 20's descriptors.
TEST(Mapping22, KernelsOfTheNarrowTile) {
  const Config& c = step22::kConfigs[step22::kNarrowTileConfig];
  EXPECT_EQ(c.cluster, 1);
  EXPECT_LE(step22::shared_bytes(c), step22::kMaxSharedBytes);
  for (const int out_bytes : {2, 4}) {
    EXPECT_FALSE(step22::has_tma_only_kernel(c, out_bytes));
    EXPECT_FALSE(step22::epilogue_under_next_tile(c, out_bytes, false)) << out_bytes;
    EXPECT_TRUE(step22::uniform_addresses(c, out_bytes, false)) << out_bytes;
  }
  const Config& square = step22::kConfigs[step22::kSquareTileConfig];
  EXPECT_TRUE(step22::epilogue_under_next_tile(square, 2, false)) << "step 21's rule, unchanged for 128 x 128";
}

// Everything of step 21's four tiles is unchanged: the configurations and their rules, the tile
// grid, order and launch, and the trace; of the kernels, only the 192-column tile's 16-bit kernel
// without TMA's path (read_back_only) differs: it never ran that path, and now has its
// addresses in uniform registers.
// The epilogue's store path (store_path): what the kernel's if-constexpr chain chose before (step
// 20's, and the read-back path alone in the read-back-only twin); and a tile goes by TMA exactly
// where TMA may store C.
TEST(Mapping22, StorePathFollowsTheProblem) {
  gemm::hopper_testing::expect_store_path_follows_the_problem<gemm::fp8_testing::StorePaths22>(
      [](const step22::Config& c, int out_bytes, bool tma_only, bool under_next_tile) {
        if (under_next_tile || (out_bytes == 2 && tma_only)) return step22::StorePath::tma;
        if (step22::read_back_only(c, out_bytes, tma_only)) return step22::StorePath::read_back;
        return step22::StorePath::tma_or_read_back;
      });
}

TEST(Mapping22, Step21sTilesAreUnchanged) {
  ASSERT_EQ(step22::kConfigCount, step21::kConfigCount + 2);  // the 176- and 64-column tiles
  EXPECT_EQ(step22::kSquareTileConfig, step21::kSquareTileConfig);
  for (int i = 0; i < step21::kConfigCount; ++i) {
    const step21::Config& c21 = step21::kConfigs[i];
    const step22::Config& c22 = step22::kConfigs[i];
    EXPECT_TRUE(same_config(c21, c22)) << config_name(c22);
    for (const int out_bytes : {2, 4})
      for (const bool tma_only : {false, true}) {
        EXPECT_EQ(step21::epilogue_under_next_tile(c21, out_bytes, tma_only),
                  step22::epilogue_under_next_tile(c22, out_bytes, tma_only));
        EXPECT_EQ(step21::has_tma_only_kernel(c21, out_bytes), step22::has_tma_only_kernel(c22, out_bytes));
        if (tma_only && !step22::has_tma_only_kernel(c22, out_bytes)) continue;
        if (step22::read_back_only(c22, out_bytes, tma_only)) continue;  // above
        EXPECT_EQ(step21::uniform_addresses(c21, out_bytes, tma_only),
                  step22::uniform_addresses(c22, out_bytes, tma_only))
            << config_name(c22) << " out " << out_bytes;
      }
  }
  ht::expect_same_dealing<gemm::fp8_testing::Step21, gemm::fp8_testing::Step22>(step21::kConfigCount, kDealtShapes,
                                                                                 {132, 114, 16});
  ht::expect_same_traces<gemm::fp8_testing::Step21, gemm::fp8_testing::Step22>(step21::kConfigCount);
}

// The checks of steps 18 and 19 (hopper_checks.hpp), over every tile, the new one included.
TEST(Mapping22, PersistentBlocksTakeEveryTileOnce) {
  for (const int sms : {132, 114, 16, 3, 2}) ht::expect_persistent_blocks_take_every_tile_once<Step22>(kDealtShapes, sms);
  ht::expect_fewest_clusters_for_the_rounds<Step22>(kDealtShapes, {132, 114, 16, 2});
}

// At 4096^3 the new tile's last column is narrow (4096 = 23 x 176 + 48): 368 whole units and 16
// narrow ones, 384 in all, in 6 rounds of 64 clusters.
TEST(Mapping22, FittedTileAt4096) {
  const GemmShape s{4096, 4096, 4096};
  EXPECT_EQ(step22::tiles_n(s, fitted()), 24);
  EXPECT_TRUE(step22::narrow_tile(23, s, fitted()));
  EXPECT_EQ(step22::narrow_units(s, fitted()), 16);
  EXPECT_EQ(step22::units(s, fitted()), 384);
  EXPECT_EQ(step22::launch_shape(s, fitted(), 132).grid.x, 2 * 64);
  EXPECT_EQ(step22::grid_time(s, fitted(), 132), 6 * step22::kNarrowUnitsPerWhole);
  const std::vector<int> columns = {1, 8, 64, 65, 128, 176, 177, 232, 240, 241, 4096, 4104, 4160, 4161};
  ht::expect_narrow_tiles_are_the_last_column_dealt_last<Step22>(columns);
}

TEST(Mapping22, StagingIsConflictFreeAndComplete) {
  ht::expect_staging_conflict_free_and_complete<Step22>();
  ht::expect_staging_halves_tile_the_buffers<Step22>();
}

// The trace (f32 output) over whole launches of every tile: rows 16-byte aligned (N = 100, the copy
// engine stores C where beta = 0) or not (N = 102, 350: the read-back path), ragged against every
// tile, a narrow last column (N = 232), and two 176-column tiles and a part of a third (N = 400).
TEST(Mapping22, TraceStagesEveryFloatAndUpdatesCOnce) {
  ht::expect_trace_stages_every_float_and_updates_c_once<Step22>(
      {{GemmShape{3 * 128 + 8, 2 * 192 + 8, 64}, Layout::nt}, {GemmShape{136, 100, 128}, Layout::nt},
       {GemmShape{136, 102, 128}, Layout::nt}, {GemmShape{264, 232, 32}, Layout::nt},
       {GemmShape{264, 400, 32}, Layout::nt}, {GemmShape{136, 350, 32}, Layout::nt}});
  ht::expect_tma_path_counts<Step22>();
}

// The viewer's timeline follows the kernel's loops: every block takes the units of its loop over u
// (cluster_of, next_unit), and each k-tile's stage and barrier parities are the kernel's running
// counters (PipelineState) at it, running on from tile to tile, for blocks of many tiles.
TEST(Mapping22, TimelineFollowsTheKernelsLoops) {
  gemm::pipeline_testing::expect_persistent_pipeline_as_the_kernel<step22::PipelineState>(
      "22_tile_width", step22::next_unit,
      std::vector<step22::Config>(std::begin(step22::kConfigs), std::end(step22::kConfigs)),
      {gemm::GemmShape{264, 520, 72}, gemm::GemmShape{1000, 1000, 1024}, gemm::GemmShape{520, 4104, 5120}},
      {4, 16, 132});
}

// The viewer's promotion intervals are the kernel's count (promotion_ends), for any PROMOTE and K.
TEST(Mapping22, PromotionFollowsTheKernelsCount) {
  gemm::pipeline_testing::expect_promotion_as_the_kernel(
      "22_tile_width", step22::kConfigs[0], {0, 1, 2, 3, 4, 7}, {1, 2, 3, 4, 5, 8, 33, 200});
}
