// Step 18: what TMA writes (tile_byte: TMA's boxes with the 128-byte swizzle) must be
// what each wgmma reads through its descriptor (start, leading and stride offsets, swizzle), for
// every layout, consumer and k-step; the persistent blocks must take every tile once; the
// accumulator layout must cover each consumer's 64 x BN rows once.
#include <algorithm>
#include <gtest/gtest.h>

#include <iterator>
#include <map>
#include <set>
#include <string>
#include <utility>
#include <vector>

#include "../../steps/18_tma_store_epilogue/mapping.hpp"
#include "hopper_checks.hpp"
#include "pipeline_checks.hpp"

namespace {

namespace ht = gemm::hopper_testing;
using gemm::GemmShape;
using gemm::Layout;
using step18::Config;
using step18::TmaOperand;

constexpr Layout kLayouts[] = {Layout::nn, Layout::nt, Layout::tn};

using gemm::hopper_testing::wgmma_reads;  // the descriptor read as the tensor cores read it (hopper_checks.hpp)

// Step 18's functions, for the checks it shares with step 19 (hopper_checks.hpp).
struct Step18 {
  using Config = step18::Config;
  static constexpr auto& kConfigs = step18::kConfigs;
  static constexpr auto tiles_m = &step18::tiles_m;
  static constexpr auto tiles_n = &step18::tiles_n;
  static constexpr auto tiles = &step18::tiles;
  static constexpr auto units = &step18::units;
  static constexpr auto unit_rows = &step18::unit_rows;
  static constexpr auto narrow_tile = &step18::narrow_tile;
  static constexpr auto narrow_units = &step18::narrow_units;
  static constexpr auto tile_at = &step18::tile_at;
  static constexpr auto launch_shape = &step18::launch_shape;
  static constexpr auto persistent_clusters = &step18::persistent_clusters;
  static constexpr auto grid_time = &step18::grid_time;
  static constexpr int kNarrowCols = step18::kNarrowCols;
  static constexpr int kNarrowUnitsPerWhole = step18::kNarrowUnitsPerWhole;
  static constexpr auto consumers = &step18::consumers;
  static constexpr int kWgmmaM = step18::kWgmmaM;
  static constexpr int kWarpgroup = step18::kWarpgroup;
  static constexpr auto accumulator_row = &step18::accumulator_row;
  static constexpr auto accumulator_col = &step18::accumulator_col;
  static constexpr auto slice_cols = &step18::slice_cols;
  static constexpr auto c_box_cols = &step18::c_box_cols;
  static constexpr auto staging_byte = &step18::staging_byte;
  static constexpr auto staging_half_byte = &step18::staging_half_byte;
  static constexpr auto c_box = &step18::c_box;
  static constexpr auto staged_chunk = &step18::staged_chunk;
  static constexpr int kRun = step18::kRun;
  static constexpr int kReadBacks = step18::kReadBacks;
  static constexpr int kStagingBytes = step18::kStagingBytes;
  static constexpr int kStagingSlices = step18::kStagingSlices;
  static constexpr int kStagingBoxBytes = step18::kStagingBoxBytes;
  static constexpr auto tma_stores_c = &step18::tma_stores_c;
  static constexpr auto to_params = &step18::to_params;
  static constexpr auto trace_launch_shape = &step18::trace_launch_shape;
  static constexpr auto trace_warp = &step18::trace_warp;
  static constexpr int kScaleLoads = 0;  // no scales
  static constexpr auto shape_rule = &gemm::tc_aligned_rows_rule;
};

// Every element of every consumer's operands, at every k-step, is where the copies put it.
void check_operand(const TmaOperand& op, const Config& c, bool is_a) {
  const unsigned tile_base = 3 * 1024;  // any 1024-aligned start
  const int rows = is_a ? step18::kWgmmaM : c.bn;
  const int users = is_a ? step18::consumers(c) : 1;
  const step18::Descriptor strides = step18::descriptor_strides(op);
  for (int consumer = 0; consumer < users; ++consumer)
    for (int kk = 0; kk < c.bk / step18::kWgmmaK; ++kk) {
      const std::uint64_t d = step18::wgmma_descriptor(tile_base + unsigned(step18::operand_offset(op, consumer, kk)), strides);
      for (int mn = 0; mn < rows; ++mn)
        for (int k = 0; k < step18::kWgmmaK; ++k) {
          const int tile_mn = consumer * step18::kWgmmaM * (is_a ? 1 : 0) + mn, tile_k = kk * step18::kWgmmaK + k;
          ASSERT_EQ(wgmma_reads(d, op.k_major, mn, k), tile_base + unsigned(step18::tile_byte(op, tile_mn, tile_k)))
              << (is_a ? "A" : "B") << (op.k_major ? " k-major" : " mn-major") << " consumer " << consumer << " kk " << kk
              << " element " << mn << "," << k;
        }
    }
}

}  // namespace

TEST(Mapping18, CopiesAndDescriptorsAgree) {
  for (const Config& c : step18::kConfigs) {
    ASSERT_STREQ(step18::config_rule(c), "");
    for (Layout layout : kLayouts) {
      const GemmShape s{4096, 4096, 4096};
      check_operand(step18::a_operand(s, layout, c), c, true);
      check_operand(step18::b_operand(s, layout, c), c, false);
    }
  }
}

TEST(Mapping18, BoxesFillTheTileOnce) {
  // The boxes of one operand tile, placed by tma_box and box_bytes, cover its elements once, and
  // each element's byte (tile_byte) is distinct and inside the tile.
  for (const Config& c : step18::kConfigs)
    for (Layout layout : kLayouts)
      for (bool is_a : {true, false}) {
        const GemmShape s{1000, 1000, 1000};
        const TmaOperand op = is_a ? step18::a_operand(s, layout, c) : step18::b_operand(s, layout, c);
        const int rows = is_a ? c.bm : c.bn, tile_bytes = is_a ? step18::a_tile_bytes(c) : step18::b_tile_bytes(c);
        ASSERT_EQ(op.boxes * step18::box_bytes(op), tile_bytes);
        std::set<int> bytes;
        for (int mn = 0; mn < rows; ++mn)
          for (int k = 0; k < c.bk; ++k) {
            const int at = step18::tile_byte(op, mn, k);
            ASSERT_GE(at, 0);
            ASSERT_LT(at, tile_bytes);
            bytes.insert(at);
          }
        ASSERT_EQ(int(bytes.size()), rows * c.bk);
        // Box coordinates: k-tile 2 of the tile at mn0 = rows starts at (k = 2 BK, mn0), boxes one
        // box apart along m or n (64 m's or n's; box_outer rows of a k-major operand).
        for (int box = 0; box < op.boxes; ++box) {
          const step18::BoxCoord at = step18::tma_box(op, rows, 2, box, c);
          ASSERT_EQ(op.k_major ? at.inner : at.outer, 2 * c.bk);
          ASSERT_EQ(op.k_major ? at.outer : at.inner, rows + box * (op.k_major ? op.box_outer : step18::kBoxInner));
        }
        // The blocks of a cluster share B's boxes out, each box copied by one of them (box % CLUSTER
        // == rank; 3 boxes of a 192-wide tile: 2 and 1), and every block copies at least one.
        if (!is_a) {
          ASSERT_GE(op.boxes, c.cluster);
        }
      }
}

TEST(Mapping18, PersistentBlocksTakeEveryTileOnce) {
  ht::expect_persistent_blocks_take_every_tile_once<Step18>(
      {GemmShape{4096, 4096, 64}, GemmShape{1000, 1000, 64}, GemmShape{8, 8, 8}, GemmShape{4088, 4104, 64},
       GemmShape{130 * 128, 3 * 256, 64}, GemmShape{3 * 128, 300, 64}},
      132);
}

// The persistent grid takes as many rounds as the SMs allow, with as few clusters as that takes,
// the narrow units dealt after the others where that saves time (hopper_checks.hpp); the cases
// behind the rule.
TEST(Mapping18, PersistentGridIsTheFewestClustersForItsRounds) {
  ht::expect_fewest_clusters_for_the_rounds<Step18>(
      {GemmShape{4096, 4096, 64}, GemmShape{8192, 8192, 64}, GemmShape{1000, 1000, 64}, GemmShape{8, 8, 8},
       GemmShape{4088, 4104, 64}, GemmShape{130 * 128, 3 * 256, 64}, GemmShape{2056, 4104, 64},
       GemmShape{64 * 128, 264, 64}, GemmShape{64 * 128, 40, 64}, GemmShape{3072, 3072, 64}},
      {132, 114, 16, 2});
  const Config d = step18::kConfigs[0];
  if (d.cluster == 2 && d.bm == 128 && d.bn == 256) {
    // At 4096^3 on 132 SMs in pairs: 256 units in 4 rounds of 64 clusters (the case behind the rule).
    ASSERT_EQ(step18::launch_shape(GemmShape{4096, 4096, 4096}, d, 132).grid.x, 128);
    // At 4088 x 4104: 256 whole units in 4 rounds of 64 clusters and the 16 narrow ones after, where
    // all 272 counted alike take 5 rounds of 55. At 2056 x 4104 the narrow units fit in the free
    // places of 3 rounds counted alike (153 units, 51 clusters), so the grid stays so.
    ASSERT_EQ(step18::narrow_units(GemmShape{4088, 4104, 4096}, d), 16);
    ASSERT_EQ(step18::launch_shape(GemmShape{4088, 4104, 4096}, d, 132).grid.x, 128);
    ASSERT_EQ(step18::launch_shape(GemmShape{2056, 4104, 4096}, d, 132).grid.x, 102);
    // The grid's time in narrow units' time (a whole unit 2): 4 rounds; 4 and a short one.
    ASSERT_EQ(step18::grid_time(GemmShape{4096, 4096, 4096}, d, 132), 4 * step18::kNarrowUnitsPerWhole);
    ASSERT_EQ(step18::grid_time(GemmShape{4088, 4104, 4096}, d, 132), 4 * step18::kNarrowUnitsPerWhole + 1);
    ASSERT_EQ(step18::grid_time(GemmShape{3072, 3072, 3072}, d, 132), 3 * step18::kNarrowUnitsPerWhole);
  }
}

// A tile is narrow where its columns from the 64th on all lie outside C, which only a tile wider
// than the narrow wgmma can be; narrow units come after all the others in the tile order
// (hopper_checks.hpp), and copy only B's first box.
TEST(Mapping18, NarrowTilesAreTheLastColumnDealtLast) {
  const std::vector<int> columns = {1, 8, 64, 65, 128, 200, 256, 257, 320, 321, 4104, 4160, 4161};
  ht::expect_narrow_tiles_are_the_last_column_dealt_last<Step18>(columns);
  for (const Config& c : step18::kConfigs)
    for (const int n : columns) {
      const GemmShape s{1000, n, 64};
      for (const gemm::Layout layout : {gemm::Layout::nn, gemm::Layout::nt, gemm::Layout::tn}) {
        const step18::TmaOperand b = step18::b_operand(s, layout, c);
        ASSERT_EQ(step18::b_boxes_copied(b, false), b.boxes);
        ASSERT_EQ(step18::b_boxes_copied(b, true), 1);
        // The first box holds the narrow wgmma's 64 columns.
        ASSERT_GE(b.k_major ? b.box_outer : step18::kBoxInner, step18::kNarrowCols);
      }
    }
}

// Without --param the tile is chosen by shape: a smaller tile exactly where the default fills a
// single round of the SMs in pairs (64 x 128 where 128 x 128 would give at most half of the SMs a
// block and the stored rows are whole 128-byte lines, else 128 x 128), the default where it takes
// several.
TEST(Mapping18, TileChosenByShapeWhereTheDefaultTakesOneRound) {
  const Config& wide = step18::kConfigs[0];
  const Config& small = step18::kConfigs[step18::kSmallTileConfig];
  const Config& short_tile = step18::kConfigs[step18::kShortTileConfig];
  const Config& three_quarter = step18::kConfigs[step18::kThreeQuarterTileConfig];
  ASSERT_STREQ(step18::config_rule(small), "");
  ASSERT_STREQ(step18::config_rule(short_tile), "");
  ASSERT_STREQ(step18::config_rule(three_quarter), "");
  constexpr int kSms = 132;  // H100 SXM: 66 pairs
  if (wide.bm == 128 && wide.bn == 256 && wide.cluster == 2) {
    for (Layout layout : kLayouts) {
      EXPECT_EQ(step18::config_for_shape({1024, 1024, 1024}, layout, kSms), short_tile);  // 64 small tiles
      EXPECT_EQ(step18::config_for_shape({1000, 1000, 1000}, layout, kSms), small);   // rows of 2000 bytes
      EXPECT_EQ(step18::config_for_shape({1088, 1088, 1088}, layout, kSms), small);   // 81 small tiles
      EXPECT_EQ(step18::config_for_shape({2048, 2048, 2048}, layout, kSms), small);   // 8 x 8 units
      EXPECT_EQ(step18::config_for_shape({4096, 4096, 4096}, layout, kSms), wide);    // 16 x 16 units: 4 rounds
      EXPECT_EQ(step18::config_for_shape({4088, 4104, 4096}, layout, kSms), wide);
      EXPECT_EQ(step18::config_for_shape({66 * 256, 256, 64}, layout, kSms), small);  // 66 units: the last one round
      EXPECT_EQ(step18::config_for_shape({67 * 256, 256, 64}, layout, kSms), wide);   // 67 units: two rounds
      // Where the 128 x 192 tile fills the rounds better by a margin (the H100's measurements):
      // 3072^3, 3 rounds of three-quarter tiles against 3 of the default's (2.2 rounds' work);
      // 1536^3, 1 round against the 2 rounds of 128 x 128 tiles (144 of them); 3000^3 as 3072^3.
      EXPECT_EQ(step18::config_for_shape({3072, 3072, 3072}, layout, kSms), three_quarter);
      EXPECT_EQ(step18::config_for_shape({1536, 1536, 1536}, layout, kSms), three_quarter);
      EXPECT_EQ(step18::config_for_shape({3000, 3000, 3000}, layout, kSms), three_quarter);
      // and not where it measured slower: more rounds, or too little fewer (8192^3: 21 rounds of
      // three quarters against 16, within the margin; 6144^3: the same time so counted).
      for (const int size : {2560, 3584, 6144, 8192}) EXPECT_EQ(step18::config_for_shape({size, size, size}, layout, kSms), wide);
      EXPECT_EQ(step18::config_for_shape({1280, 1280, 1280}, layout, kSms), small);
    }
    // K = 1000 leaves A's rows (and B's, in NT) short of whole lines; in TN A's rows are M long.
    EXPECT_EQ(step18::config_for_shape({1024, 1024, 1000}, Layout::nn, kSms), small);
    EXPECT_EQ(step18::config_for_shape({1024, 1024, 1000}, Layout::nt, kSms), small);
    EXPECT_EQ(step18::config_for_shape({1024, 1024, 1000}, Layout::tn, kSms), short_tile);
    EXPECT_EQ(step18::config_for_shape({1000, 1024, 1024}, Layout::nn, kSms), short_tile);
    EXPECT_EQ(step18::config_for_shape({1000, 1024, 1024}, Layout::tn, kSms), small);
  }
  for (Layout layout : kLayouts)
    for (const int sms : {132, 114, 16, 2})
      for (int m = 1; m <= 20000; m += 997)
        for (int n = 1; n <= 12000; n += 1231) {
          const GemmShape s{m, n, 64};
          const Config chosen = step18::config_for_shape(s, layout, sms);
          const int rounds = gemm::ceil_div(step18::units(s, wide), sms / wide.cluster);
          const Config base = rounds > 1 ? wide
                              : 2 * step18::tiles(s, small) <= sms && step18::rows_are_whole_lines(s, layout) ? short_tile
                                                                                                         : small;
          // The three-quarter tile only where it is counted at least the margin faster.
          const long long others = step18::counted_time(s, base, sms), its = step18::counted_time(s, three_quarter, sms);
          const Config expected = its * (100 + step18::kThreeQuarterTileMargin) < others * 100 ? three_quarter : base;
          EXPECT_EQ(chosen, expected) << m << "x" << n << " on " << sms << " SMs";
        }
  for (const Config& c : step18::kConfigs) EXPECT_EQ(step18::config_from(step18::to_params(c)), c);
}

TEST(Mapping18, AccumulatorsCoverEachConsumerTileOnce) {
  for (const Config& c : step18::kConfigs) ht::expect_accumulators_cover_64_by(c.bn, step18::accumulator_row, step18::accumulator_col);
}

TEST(Mapping18, RulesNameTheProblem) {
  EXPECT_NE(std::string(step18::config_rule({128, 256, 32, 4, 8, 1})).find("BK must be 64"), std::string::npos);
  EXPECT_NE(std::string(step18::config_rule({192, 256, 64, 4, 8, 1})).find("BM must be 64 or 128"), std::string::npos);
  EXPECT_NE(std::string(step18::config_rule({128, 320, 64, 4, 8, 1})).find("BN must be"), std::string::npos);
  EXPECT_NE(std::string(step18::config_rule({128, 256, 64, 5, 8, 1})).find("227 KB"), std::string::npos);
  EXPECT_NE(std::string(step18::config_rule({128, 256, 64, 4, 8, 4})).find("CLUSTER must be 1 or 2"), std::string::npos);
  EXPECT_NE(std::string(step18::config_rule({128, 256, 64, 4, 7, 2})).find("multiple of CLUSTER"), std::string::npos);
  EXPECT_NE(std::string(step18::config_rule({128, 256, 64, 2, 8, 1})).find("not compiled in"), std::string::npos);
}

TEST(Mapping18, StagingIsConflictFreeAndComplete) { ht::expect_staging_conflict_free_and_complete<Step18>(); }

TEST(Mapping18, StagingHalvesTileTheBuffers) { ht::expect_staging_halves_tile_the_buffers<Step18>(); }

// The trace the viewer and the access model use: the staging writes, and C's updates over whole
// launches (hopper_checks.hpp).
TEST(Mapping18, TraceStagesEveryFloatAndUpdatesCOnce) {
  ht::expect_trace_stages_every_float_and_updates_c_once<Step18>({{GemmShape{3 * 128 + 8, 2 * 256 + 8, 64}, Layout::nn},
                                                                  {GemmShape{136, 100, 64}, Layout::nt},
                                                                  {GemmShape{136, 102, 64}, Layout::nt}});
}

// Closed form, TMA's path: 256 x 512 on the default configuration is 2 units of 2
// tiles, 4 blocks with one tile each; each consumer warp writes 8 slices of 8 pairs (f32).
TEST(Mapping18, TraceCountsForTheTmaPath) { ht::expect_tma_path_counts<Step18>(); }

// The viewer's timeline follows the kernel's loops: every block takes the units of its loop over u
// (cluster_of, next_unit), and each k-tile's stage and barrier parities are the kernel's running
// counters (PipelineState) at it, running on from tile to tile, for blocks of many tiles.
TEST(Mapping18, TimelineFollowsTheKernelsLoops) {
  gemm::pipeline_testing::expect_persistent_pipeline_as_the_kernel<step18::PipelineState>(
      "18_tma_store_epilogue", step18::next_unit,
      std::vector<step18::Config>(std::begin(step18::kConfigs), std::end(step18::kConfigs)),
      {gemm::GemmShape{264, 520, 72}, gemm::GemmShape{1000, 1000, 1024}, gemm::GemmShape{520, 4104, 5120}},
      {4, 16, 132});
}
