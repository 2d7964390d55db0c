// Step 19, FP8: step 18's kernel with 1-byte elements. What TMA writes (tile_byte: TMA's
// boxes of 128 one-byte k's, swizzled) must be what each wgmma reads through its descriptor, 32 k's
// a step, for both operands (K-major only: layout NT), every consumer and k-step; the persistent
// blocks must take every tile once; the compiled configurations (PROMOTE included) must obey the
// rule and fit in shared memory; the tile by shape must be the one of less counted time; the
// epilogue's staging and the trace are step 18's and are checked as step 18's are.
#include <gtest/gtest.h>

#include <iterator>
#include <string>
#include <utility>
#include <vector>

#include "../../steps/19_fp8/mapping.hpp"
#include "hopper_checks.hpp"
#include "pipeline_checks.hpp"

namespace {

namespace ht = gemm::hopper_testing;
using gemm::GemmShape;
using gemm::Layout;
using step19::Config;
using step19::TmaOperand;

// Step 19's functions, for the checks it shares with step 18 (hopper_checks.hpp).
struct Step19 {
  using Config = step19::Config;
  static constexpr auto& kConfigs = step19::kConfigs;
  static constexpr auto tiles_m = &step19::tiles_m;
  static constexpr auto tiles_n = &step19::tiles_n;
  static constexpr auto tiles = &step19::tiles;
  static constexpr auto units = &step19::units;
  static constexpr auto unit_rows = &step19::unit_rows;
  static constexpr auto narrow_tile = &step19::narrow_tile;
  static constexpr auto narrow_units = &step19::narrow_units;
  static constexpr auto tile_at = &step19::tile_at;
  static constexpr auto launch_shape = &step19::launch_shape;
  static constexpr auto persistent_clusters = &step19::persistent_clusters;
  static constexpr auto grid_time = &step19::grid_time;
  static constexpr int kNarrowCols = step19::kNarrowCols;
  static constexpr int kNarrowUnitsPerWhole = step19::kNarrowUnitsPerWhole;
  static constexpr auto consumers = &step19::consumers;
  static constexpr int kWgmmaM = step19::kWgmmaM;
  static constexpr int kWarpgroup = step19::kWarpgroup;
  static constexpr auto accumulator_row = &step19::accumulator_row;
  static constexpr auto accumulator_col = &step19::accumulator_col;
  static constexpr auto slice_cols = &step19::slice_cols;
  static constexpr auto c_box_cols = &step19::c_box_cols;
  static constexpr auto staging_byte = &step19::staging_byte;
  static constexpr auto staging_half_byte = &step19::staging_half_byte;
  static constexpr auto c_box = &step19::c_box;
  static constexpr auto staged_chunk = &step19::staged_chunk;
  static constexpr int kRun = step19::kRun;
  static constexpr int kReadBacks = step19::kReadBacks;
  static constexpr int kStagingBytes = step19::kStagingBytes;
  static constexpr int kStagingSlices = step19::kStagingSlices;
  static constexpr int kStagingBoxBytes = step19::kStagingBoxBytes;
  static constexpr auto tma_stores_c = &step19::tma_stores_c;
  static constexpr auto to_params = &step19::to_params;
  static constexpr auto trace_launch_shape = &step19::trace_launch_shape;
  static constexpr auto trace_warp = &step19::trace_warp;
  static constexpr int kScaleLoads = 2;  // A's and B's per-tensor scales, read by every consumer warp
  static constexpr auto shape_rule = &gemm::fp8_shape_rule;
};

std::string name(const Config& c) {
  return std::to_string(c.bm) + "x" + std::to_string(c.bn) + "x" + std::to_string(c.bk) + " stages " +
         std::to_string(c.stages) + " group " + std::to_string(c.group_m) + " cluster " + std::to_string(c.cluster) +
         " promote " + std::to_string(c.promote);
}

TmaOperand operand(const GemmShape& s, const Config& c, bool is_a) {
  return is_a ? step19::a_operand(s, c) : step19::b_operand(s, c);
}

// Persistent grids at square, odd and narrow-tiled shapes (N = 4104, 232: a last column of at most
// 64 columns of a 192-wide tile), a tile row count that CLUSTER does not divide, and a single tile.
const std::vector<GemmShape> kDealtShapes = {
    GemmShape{4096, 4096, 64},  GemmShape{8192, 8192, 64},  GemmShape{1000, 1000, 64},       GemmShape{8, 8, 16},
    GemmShape{4088, 4104, 64},  GemmShape{2056, 4104, 64},  GemmShape{130 * 128, 3 * 192, 64}, GemmShape{3 * 128, 300, 64},
    GemmShape{64 * 128, 264, 64}, GemmShape{64 * 128, 40, 64}, GemmShape{129, 8200, 64},        GemmShape{5000, 136, 64},
    GemmShape{264, 232, 32},    GemmShape{3072, 3072, 64}};

}  // namespace

// The FP8 step's constants: a 128-byte swizzled row holds 128 one-byte k's (BK = 128), and a wgmma
// step reads 32 of them, the same 32 bytes of each row as step 18's k = 16.
TEST(Mapping19, OneByteElementsFillTheSwizzledRow) {
  static_assert(step19::kElementBytes == 1, "e4m3 and e5m2 are one byte");
  static_assert(step19::kBoxInner * step19::kElementBytes == step19::kSwizzleBytes, "a box row is one swizzled row");
  static_assert(step19::kWgmmaK * step19::kElementBytes == 32, "a wgmma k-step reads 32 bytes of each row");
  for (const Config& c : step19::kConfigs) {
    EXPECT_EQ(c.bk, 128) << name(c);
    EXPECT_EQ(c.bk % step19::kWgmmaK, 0) << name(c);
  }
}

TEST(Mapping19, CompiledConfigsObeyTheRuleAndFitInSharedMemory) {
  constexpr int k227KB = 227 * 1024;
  static_assert(step19::kMaxSharedBytes == k227KB, "the H100's opt-in shared memory per block");
  for (const Config& c : step19::kConfigs) {
    ASSERT_STREQ(step19::config_rule(c), "") << name(c);
    EXPECT_EQ(step19::config_from(step19::to_params(c)), c) << name(c);
    EXPECT_LE(step19::shared_bytes(c), k227KB) << name(c);
    EXPECT_EQ(step19::consumers(c) * step19::kWgmmaM, c.bm) << "a consumer warpgroup per 64 rows";
    EXPECT_EQ(step19::threads(c), (1 + step19::consumers(c)) * step19::kWarpgroup) << "and the producer";
    EXPECT_GE(c.promote, 0) << name(c);
  }
  // The default promotes (every k-tile), the second is it without promotion, the third promotes
  // every 4 k-tiles: the lesson's three settings of PROMOTE on one tile.
  const Config& d = step19::kConfigs[0];
  EXPECT_GT(d.promote, 0);
  for (int i : {1, 2}) {
    Config same_tile = step19::kConfigs[i];
    EXPECT_NE(same_tile.promote, d.promote);
    same_tile.promote = d.promote;
    EXPECT_EQ(same_tile, d) << "kConfigs[" << i << "] differs from the default in PROMOTE alone";
  }
  EXPECT_EQ(step19::kConfigs[1].promote, 0);
}

// Every element of each consumer's 64 rows of A's tile and of B's BN x BK tile, at every k-step of
// 32, is where the copies put it: the byte a wgmma reads through its descriptor (K-major, 128-byte
// swizzle, one byte a k) is tile_byte's.
TEST(Mapping19, CopiesAndDescriptorsAgree) {
  const unsigned tile_base = 3 * 1024;  // any 1024-aligned start
  const step19::Descriptor strides = step19::descriptor_strides();
  for (const Config& c : step19::kConfigs)
    for (bool is_a : {true, false})
      for (int consumer = 0; consumer < (is_a ? step19::consumers(c) : 1); ++consumer)
        for (int kk = 0; kk < c.bk / step19::kWgmmaK; ++kk) {
          const std::uint64_t d =
              step19::wgmma_descriptor(tile_base + unsigned(step19::operand_offset(consumer, kk)), strides);
          ht::expect_wgmma_reads_the_tile(
              d, true, is_a ? step19::kWgmmaM : c.bn, tile_base, consumer * step19::kWgmmaM, kk * step19::kWgmmaK,
              step19::tile_byte,
              name(c) + (is_a ? " A consumer " + std::to_string(consumer) : std::string(" B")) + " kk " +
                  std::to_string(kk),
              step19::kWgmmaK, step19::kElementBytes);
        }
}

// The boxes of one operand tile, placed by tma_box and box_bytes, fill it once, each element where
// tile_byte says the swizzled copy puts it; both operands are stored K long (NT).
TEST(Mapping19, BoxesFillTheTileOnce) {
  const GemmShape s{1000, 2000, 3000};
  for (const Config& c : step19::kConfigs)
    for (bool is_a : {true, false}) {
      const TmaOperand op = operand(s, c, is_a);
      ASSERT_EQ(op.inner, s.k) << "K-major: rows of K bytes";
      ASSERT_EQ(op.outer, is_a ? s.m : s.n);
      const int rows = is_a ? c.bm : c.bn;
      ASSERT_EQ(op.boxes * op.box_outer, rows);
      ASSERT_EQ(op.boxes * step19::box_bytes(op), is_a ? step19::a_tile_bytes(c) : step19::b_tile_bytes(c));
      ht::expect_boxes_land_where_tile_byte_says(
          {true, op.box_outer, op.boxes, step19::box_bytes(op), step19::kElementBytes}, rows, c.bk, step19::tile_byte,
          [&](int mn0, int kt, int box) { return step19::tma_box(op, mn0, kt, box, c); }, name(c) + (is_a ? " A" : " B"));
    }
}

TEST(Mapping19, AccumulatorsCoverEachConsumerTileOnce) {
  for (const Config& c : step19::kConfigs)
    ht::expect_accumulators_cover_64_by(c.bn, step19::accumulator_row, step19::accumulator_col);
}

// B's boxes are shared out over the cluster (box % CLUSTER == rank, each multicast into every
// block): every block of a cluster copies one, and together they copy each once.
TEST(Mapping19, ClusterSharesBsBoxesOut) {
  for (const Config& c : step19::kConfigs) {
    const TmaOperand b = step19::b_operand({1000, 1000, 1024}, c);
    ASSERT_EQ(b.boxes, c.cluster) << name(c);
    std::vector<int> copied(size_t(b.boxes), 0);
    for (int rank = 0; rank < c.cluster; ++rank) {
      int mine = 0;
      for (int box = rank; box < b.boxes; box += c.cluster, ++mine) ++copied[size_t(box)];
      ASSERT_GT(mine, 0) << name(c) << " rank " << rank;
    }
    for (int n : copied) ASSERT_EQ(n, 1);
  }
}

TEST(Mapping19, PersistentBlocksTakeEveryTileOnce) {
  for (const int sms : {132, 114, 16, 3, 2}) ht::expect_persistent_blocks_take_every_tile_once<Step19>(kDealtShapes, sms);
}

TEST(Mapping19, PersistentGridIsTheFewestClustersForItsRounds) {
  ht::expect_fewest_clusters_for_the_rounds<Step19>(kDealtShapes, {132, 114, 16, 2});
  // At 4096^3 the default's last column of tiles is narrow (4096 = 21 x 192 + 64): its 16 narrow
  // units fit the free places of 6 rounds counted alike (352 units, 59 clusters).
  const Config& d = step19::kConfigs[0];
  if (d.bm == 128 && d.bn == 192 && d.cluster == 2) {
    EXPECT_EQ(step19::narrow_units({4096, 4096, 4096}, d), 16);
    EXPECT_EQ(step19::units({4096, 4096, 4096}, d), 352);
    EXPECT_EQ(step19::launch_shape({4096, 4096, 4096}, d, 132).grid.x, 2 * 59);
    EXPECT_EQ(step19::grid_time({4096, 4096, 4096}, d, 132), 6 * step19::kNarrowUnitsPerWhole);
  }
}

// Narrow tiles: the last column, dealt last (hopper_checks.hpp), copying only B's first box, which
// holds the narrow wgmma's 64 columns.
TEST(Mapping19, NarrowTilesAreTheLastColumnDealtLast) {
  const std::vector<int> columns = {1, 8, 64, 65, 128, 192, 193, 232, 256, 257, 320, 321, 4096, 4104, 4160, 4161};
  ht::expect_narrow_tiles_are_the_last_column_dealt_last<Step19>(columns);
  for (const Config& c : step19::kConfigs) {
    const TmaOperand b = step19::b_operand({1000, 1000, 64}, c);
    ASSERT_EQ(step19::b_boxes_copied(b, false), b.boxes);
    ASSERT_EQ(step19::b_boxes_copied(b, true), 1);
    ASSERT_GE(b.box_outer, step19::kNarrowCols) << name(c);
  }
}

// Without --param the tile is chosen by shape: the 128 x 128 tile where its counted time (the
// grid's time times the tile's area) is less than the default's, else the default. At 4096^3 on 132
// SMs that is 128 x 128 (8 rounds of 2/3 the default's area against the default's 6); at 8192^3 the
// default (21 rounds against 32 of 2/3 the area).
TEST(Mapping19, TileChosenByShapeIsTheOneOfLessCountedTime) {
  const Config& wide = step19::kConfigs[0];
  const Config& square = step19::kConfigs[step19::kSquareTileConfig];
  ASSERT_STREQ(step19::config_rule(square), "");
  ASSERT_EQ(square.bm, 128);
  ASSERT_EQ(square.bn, 128);
  ASSERT_EQ(square.promote, wide.promote) << "the tile by shape promotes as the default does";
  constexpr int kSms = 132;  // H100 SXM
  const GemmShape at4096{4096, 4096, 4096}, at8192{8192, 8192, 8192};
  EXPECT_LT(step19::counted_time(at4096, square, kSms), step19::counted_time(at4096, wide, kSms));
  EXPECT_EQ(step19::config_for_shape(at4096, kSms), square);
  EXPECT_GE(step19::counted_time(at8192, square, kSms), step19::counted_time(at8192, wide, kSms));
  EXPECT_EQ(step19::config_for_shape(at8192, kSms), wide);
  // Small shapes, one round either way: the smaller tile, more SMs at work.
  EXPECT_EQ(step19::config_for_shape({1024, 1024, 1024}, kSms), square);
  // The rule at every shape of a sweep and on other GPUs.
  for (const int sms : {132, 114, 16, 2})
    for (int m = 1; m <= 20000; m += 997)
      for (int n = 1; n <= 12000; n += 1231) {
        const GemmShape s{m, n, 128};
        const Config expected =
            step19::counted_time(s, square, sms) < step19::counted_time(s, wide, sms) ? square : wide;
        EXPECT_EQ(step19::config_for_shape(s, sms), expected) << m << "x" << n << " on " << sms << " SMs";
        EXPECT_EQ(step19::counted_time(s, expected, sms),
                  (long long)step19::grid_time(s, expected, sms) * expected.bm * expected.bn);
      }
}

TEST(Mapping19, RulesNameTheProblem) {
  auto rule = [](const Config& c) { return std::string(step19::config_rule(c)); };
  auto names = [&](const Config& c, const std::string& what) {
    EXPECT_NE(rule(c).find(what), std::string::npos) << name(c) << ": \"" << rule(c) << "\" should name " << what;
  };
  names({128, 192, 64, 4, 16, 2, 1}, "BK must be 128");   // step 18's BK: 64 one-byte k's are half a row
  names({128, 192, 256, 4, 16, 2, 1}, "BK must be 128");
  names({128, 320, 128, 4, 16, 2, 1}, "BN must be");
  names({128, 96, 128, 4, 16, 2, 1}, "BN must be");       // not whole 64-column slices
  names({128, 192, 128, 4, 16, 2, -1}, "PROMOTE must be 0");
  names({192, 192, 128, 4, 16, 2, 1}, "BM must be 64 or 128");
  names({128, 192, 128, 1, 16, 2, 1}, "STAGES must be 2..8");
  names({128, 256, 128, 5, 16, 2, 1}, "227 KB");
  names({128, 192, 128, 4, 16, 4, 1}, "CLUSTER must be 1 or 2");
  names({128, 192, 128, 4, 7, 2, 1}, "multiple of CLUSTER");
  names({128, 192, 128, 4, 0, 2, 1}, "positive");
  // Valid, but not compiled: another PROMOTE, another tile, another depth of stages.
  names({128, 192, 128, 4, 16, 2, 2}, "not compiled in");
  names({128, 256, 128, 4, 16, 2, 1}, "not compiled in");
  names({128, 192, 128, 3, 16, 2, 1}, "not compiled in");
  names({128, 128, 128, 6, 16, 2, 0}, "not compiled in");
  for (const Config& c : step19::kConfigs) EXPECT_EQ(rule(c), "") << name(c);
}

// The epilogue is step 18's: staging through shared memory in TMA's layout, checked as
// step 18's is (hopper_checks.hpp).
TEST(Mapping19, StagingIsConflictFreeAndComplete) { ht::expect_staging_conflict_free_and_complete<Step19>(); }

TEST(Mapping19, StagingHalvesTileTheBuffers) { ht::expect_staging_halves_tile_the_buffers<Step19>(); }

// The trace (f32 output, as step 18's), over whole launches in the one layout the step takes: C's
// rows 16-byte aligned (N = 100: TMA stores C where beta = 0) or not (N = 102: the
// read-back path), ragged against every tile, and a narrow last column (N = 232).
TEST(Mapping19, TraceStagesEveryFloatAndUpdatesCOnce) {
  ht::expect_trace_stages_every_float_and_updates_c_once<Step19>(
      {{GemmShape{3 * 128 + 8, 2 * 192 + 8, 64}, Layout::nt}, {GemmShape{136, 100, 128}, Layout::nt},
       {GemmShape{136, 102, 128}, Layout::nt}, {GemmShape{264, 232, 32}, Layout::nt}});
}

TEST(Mapping19, TraceCountsForTheTmaPath) { ht::expect_tma_path_counts<Step19>(); }

// The producer warps (0-3) hand their copies to TMA: no instruction of theirs is traced.
TEST(Mapping19, ProducerWarpsIssueNothing) {
  for (const Config& c : step19::kConfigs) {
    gemm::TraceProblem problem;
    problem.shape = {264, 232, 128};
    problem.layout = Layout::nt;
    problem.beta = 0.5f;
    problem.params = step19::to_params(c);
    const gemm::LaunchShape launch = step19::trace_launch_shape(problem, c);
    for (int x = 0; x < launch.grid.x; ++x)
      for (int warp = 0; warp < 4; ++warp)
        step19::trace_warp(problem, {x, 0, 0}, warp, [&](const gemm::TraceInstruction& i) {
          FAIL() << name(c) << ": producer warp " << warp << " issues " << i.label;
        });
  }
}

// The FP8 step's shapes: layout NT alone, K a multiple of 16 (the rows of A and B, K bytes, on 16
// bytes); M and N anything.
TEST(Mapping19, ShapeRuleIsNtAndKMultipleOf16) {
  EXPECT_EQ(gemm::fp8_shape_rule({33, 17, 32}, Layout::nt), "");
  EXPECT_EQ(gemm::fp8_shape_rule({1, 1, 16}, Layout::nt), "");
  EXPECT_NE(gemm::fp8_shape_rule({64, 64, 24}, Layout::nt).find("multiple of 16"), std::string::npos);
  for (Layout layout : {Layout::nn, Layout::tn})
    EXPECT_NE(gemm::fp8_shape_rule({64, 64, 64}, layout).find("layout nt"), std::string::npos);
}

// The viewer's timeline follows the kernel's loops: every block takes the units of its loop over u
// (cluster_of, next_unit), and each k-tile's stage and barrier parities are the kernel's running
// counters (PipelineState) at it, running on from tile to tile, for blocks of many tiles.
TEST(Mapping19, TimelineFollowsTheKernelsLoops) {
  gemm::pipeline_testing::expect_persistent_pipeline_as_the_kernel<step19::PipelineState>(
      "19_fp8", step19::next_unit,
      std::vector<step19::Config>(std::begin(step19::kConfigs), std::end(step19::kConfigs)),
      {gemm::GemmShape{264, 520, 72}, gemm::GemmShape{1000, 1000, 1024}, gemm::GemmShape{520, 4104, 5120}},
      {4, 16, 132});
}

// The viewer's promotion intervals are the kernel's count (promotion_ends), for any PROMOTE and K.
TEST(Mapping19, PromotionFollowsTheKernelsCount) {
  gemm::pipeline_testing::expect_promotion_as_the_kernel(
      "19_fp8", step19::kConfigs[0], {0, 1, 2, 3, 4, 7}, {1, 2, 3, 4, 5, 8, 33, 200});
}
