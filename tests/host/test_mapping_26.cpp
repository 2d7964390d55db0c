// Step 26, the 16-bit kernel with a 128 x 144 tile: step 25's mapping with one configuration more
// and what it needs. Checked here: the tail of an N-major B (its last 16 columns in a box of their
// own, the 32-byte swizzle) lands where tile_byte says and is what the n = 16 wgmma reads through
// its descriptor, as the whole boxes are for n = 128 (and a K-major B's two boxes of 72 rows for
// n = 144); a stage's bytes are what the full barrier expects; the slices of C end at the tile's
// edge and the read-back stores each column once; the tile is chosen where it counts less by the
// margin (1536^3 on 132 SMs). Everything else must be step 25's, which test_mapping_25.cpp checks;
// the shared checks run over every configuration, the new one included.
#include <gtest/gtest.h>

#include <algorithm>
#include <iterator>
#include <string>
#include <vector>

#include "../../steps/25_narrow_pairs/mapping.hpp"
#include "../../steps/26_fitted_tile/mapping.hpp"
#include "hopper_checks.hpp"
#include "hopper_shared.hpp"
#include "pipeline_checks.hpp"

namespace {

namespace ht = gemm::hopper_testing;
namespace hopper = gemm::hopper;
using gemm::GemmShape;
using gemm::Layout;
using step26::Config;

constexpr Layout kLayouts[] = {Layout::nn, Layout::nt, Layout::tn};

const Config& fitted() { return step26::kConfigs[step26::kFittedTileConfig]; }

// The units cluster `cluster` of `clusters` takes, in the order of the kernel's loop.
std::vector<int> cluster_units(const GemmShape& s, const Config& c, int cluster, int clusters) {
  std::vector<int> taken;
  const int single = step26::single_units(s, c, clusters);
  for (int u = step26::first_unit(cluster, single); u < step26::units(s, c); u = step26::next_unit(u, clusters, single))
    taken.push_back(u);
  return taken;
}

// Step 26's functions, for the checks it shares with steps 18-25 (hopper_checks.hpp).
struct Step26 {
  using Config = step26::Config;
  static constexpr auto& kConfigs = step26::kConfigs;
  static constexpr auto tiles_m = &step26::tiles_m;
  static constexpr auto tiles_n = &step26::tiles_n;
  static constexpr auto tiles = &step26::tiles;
  static constexpr auto units = &step26::units;
  static constexpr auto unit_rows = &step26::unit_rows;
  static constexpr auto narrow_tile = &step26::narrow_tile;
  static constexpr auto narrow_units = &step26::narrow_units;
  static constexpr auto tile_at = &step26::tile_at;
  static constexpr auto launch_shape = &step26::launch_shape;
  static constexpr auto cluster_units = &::cluster_units;
  static constexpr int kNarrowCols = step26::kNarrowCols;
  static constexpr auto consumers = &step26::consumers;
  static constexpr int kWgmmaM = step26::kWgmmaM;
  static constexpr int kWarpgroup = step26::kWarpgroup;
  static constexpr auto accumulator_row = &step26::accumulator_row;
  static constexpr auto accumulator_col = &step26::accumulator_col;
  static constexpr auto slice_cols = &step26::slice_cols;
  static constexpr auto c_box_cols = &step26::c_box_cols;
  static constexpr auto staging_byte = &step26::staging_byte;
  static constexpr auto staging_half_byte = &step26::staging_half_byte;
  static constexpr auto c_box = &step26::c_box;
  static constexpr auto staged_chunk = &step26::staged_chunk;
  static constexpr int kRun = step26::kRun;
  static constexpr int kReadBacks = step26::kReadBacks;
  static constexpr int kStagingBytes = step26::kStagingBytes;
  static constexpr int kStagingSlices = step26::kStagingSlices;
  static constexpr int kStagingBoxBytes = step26::kStagingBoxBytes;
  static constexpr auto tma_stores_c = &step26::tma_stores_c;
  static constexpr auto to_params = &step26::to_params;
  static constexpr auto trace_launch_shape = &step26::trace_launch_shape;
  static constexpr auto trace_warp = &step26::trace_warp;
  static constexpr int kScaleLoads = 0;  // no scales
  static constexpr auto shape_rule = &gemm::tc_aligned_rows_rule;
};

bool same(const step25::Config& a, const step26::Config& b) {
  return a.bm == b.bm && a.bn == b.bn && a.bk == b.bk && a.stages == b.stages && a.group_m == b.group_m &&
         a.cluster == b.cluster;
}

std::string layout_name(Layout layout) { return layout == Layout::nn ? "NN" : layout == Layout::nt ? "NT" : "TN"; }

}  // namespace

// The new tile: 5 stages of 34 KB fit with the staging buffers; every box lands on the swizzle's
// 1024-byte period; the full barrier expects a stage's bytes, the tail's 2 KB included (all of B's
// boxes land in each block of the cluster), or a narrow tile's first box.
TEST(Mapping26, FittedTileFitsFiveStages) {
  const Config& c = fitted();
  EXPECT_EQ(c.bm, 128);
  EXPECT_EQ(c.bn, 144);
  EXPECT_EQ(c.stages, 5);
  EXPECT_EQ(c.cluster, 2);
  EXPECT_STREQ(step26::config_rule(c), "");
  EXPECT_EQ(step26::stage_bytes(c), 34 * 1024);
  EXPECT_LE(step26::shared_bytes(c), step26::kMaxSharedBytes);
  Config more = c;
  more.stages = 6;
  EXPECT_GT(step26::shared_bytes(more), step26::kMaxSharedBytes) << "5 is the most stages that fit";
  more.bn = 160;  // 64 k + 32: no 16-column tail
  more.stages = 5;
  EXPECT_NE(std::string(step26::config_rule(more)).find("16 more"), std::string::npos);
  const GemmShape s{1536, 1536, 1536};
  for (const Layout layout : kLayouts) {
    const step26::TmaOperand b = step26::b_operand(s, layout, c);
    const std::string what = layout_name(layout);
    EXPECT_EQ(step26::b_bytes_copied(b, false), step26::b_tile_bytes(c)) << what;
    EXPECT_EQ(step26::b_bytes_copied(b, true), step26::box_bytes(b)) << what << ": a narrow tile's first box";
    EXPECT_GE(b.k_major ? b.box_outer : step26::kBoxInner, step26::kNarrowCols) << what << ": it holds the narrow columns";
    for (int box = 0; box < b.boxes; ++box) EXPECT_EQ(box * step26::box_bytes(b) % 1024, 0) << what << " box " << box;
    if (b.k_major) {
      EXPECT_EQ(b.tail, 0) << what;
      EXPECT_EQ(b.boxes, 2) << what;
      EXPECT_EQ(b.box_outer, 72) << what << ": each block of the cluster copies 72 rows";
    } else {
      EXPECT_EQ(b.tail, step26::kTailCols) << what;
      EXPECT_EQ(b.boxes, 3) << what;
      EXPECT_TRUE(step26::tail_box(b, 2)) << what;
      EXPECT_EQ(step26::box_bytes_of(b, 2), 2048) << what << ": 64 k-rows of 32 bytes";
      EXPECT_EQ(step26::box_inner_of(b, 2), 16) << what;
    }
    const step26::TmaOperand a = step26::a_operand(s, layout, c);
    EXPECT_EQ(a.tail, 0) << what;
  }
  // The other tiles have no tail.
  for (const Config& other : step26::kConfigs)
    for (const Layout layout : kLayouts)
      if (other.bn % step26::kBoxInner == 0) {
        EXPECT_EQ(step26::b_operand(s, layout, other).tail, 0);
      }
}

// What TMA writes is what wgmma reads, for the new tile in every layout: each box, the tail with
// its 32-byte swizzle included, lands where tile_byte says and the boxes fill the tile once; each
// consumer's A and the B of every k-step, through the kernel's descriptors (n = 144 for a K-major
// B; n = 128 from the whole boxes and n = 16 from the tail for an N-major one), are the tile's
// elements; the accumulators cover 64 x 144 once.
TEST(Mapping26, FittedTileCopiesDescriptorsAndAccumulatorsAgree) {
  const Config& c = fitted();
  const GemmShape s{1000, 2000, 3000};
  const unsigned tile_base = 5 * 1024;
  for (const Layout layout : kLayouts)
    for (const bool is_a : {true, false}) {
      const step26::TmaOperand op = is_a ? step26::a_operand(s, layout, c) : step26::b_operand(s, layout, c);
      const int rows = is_a ? c.bm : c.bn;
      const std::string what = layout_name(layout) + (is_a ? " A" : " B");
      // The boxes: where TMA puts each element (hopper_shared.hpp's landing rule, the box's own
      // swizzle span) against tile_byte; together they hold the tile once.
      const int mn0 = 3 * rows, kt = 2;
      std::vector<int> covered(size_t(rows) * size_t(c.bk), 0);
      int landed = 0;
      for (int box = 0; box < op.boxes; ++box) {
        const int inner = step26::box_inner_of(op, box), span = inner * step26::kElementBytes;
        ASSERT_EQ(span, step26::tail_box(op, box) ? step26::kTailSwizzleBytes : step26::kSwizzleBytes) << what;
        ASSERT_EQ(step26::box_bytes_of(op, box), inner * op.box_outer * step26::kElementBytes) << what;
        landed += step26::box_bytes_of(op, box);
        const step26::BoxCoord first = step26::tma_box(op, mn0, kt, box, c);
        for (int o = 0; o < op.box_outer; ++o)
          for (int i = 0; i < inner; ++i) {
            const int in = first.inner + i, out = first.outer + o;
            const int mn = (op.k_major ? out : in) - mn0, k = (op.k_major ? in : out) - kt * c.bk;
            ASSERT_TRUE(mn >= 0 && mn < rows && k >= 0 && k < c.bk) << what << " box " << box;
            ++covered[size_t(mn) * size_t(c.bk) + size_t(k)];
            const unsigned written =
                hopper::tma_landing_byte(unsigned(box * step26::box_bytes(op)), i, o, step26::kElementBytes, span);
            ASSERT_EQ(unsigned(step26::tile_byte(op, mn, k)), written) << what << " box " << box << " element " << i << "," << o;
          }
      }
      for (const int n : covered) ASSERT_EQ(n, 1) << what;
      ASSERT_EQ(landed, is_a ? step26::a_tile_bytes(c) : step26::b_tile_bytes(c)) << what;
      // The descriptors, as the kernel builds them.
      auto tile_byte = [&](int mn, int k) { return step26::tile_byte(op, mn, k); };
      for (int kk = 0; kk < c.bk / step26::kWgmmaK; ++kk) {
        const std::string step = what + " kk " + std::to_string(kk);
        if (is_a) {
          for (int consumer = 0; consumer < step26::consumers(c); ++consumer)
            ht::expect_wgmma_reads_the_tile(
                step26::wgmma_descriptor(tile_base + unsigned(step26::operand_offset(op, consumer, kk)),
                                         step26::descriptor_strides(op)),
                op.k_major, step26::kWgmmaM, tile_base, consumer * step26::kWgmmaM, kk * step26::kWgmmaK, tile_byte, step);
          continue;
        }
        const int box_cols = op.tail ? c.bn - op.tail : c.bn;  // the first wgmma's n
        ht::expect_wgmma_reads_the_tile(
            step26::wgmma_descriptor(tile_base + unsigned(step26::operand_offset(op, 0, kk)), step26::descriptor_strides(op)),
            op.k_major, box_cols, tile_base, 0, kk * step26::kWgmmaK, tile_byte, step);
        if (op.tail) {
          const std::uint64_t tail =
              step26::wgmma_descriptor(tile_base + unsigned(step26::tail_offset(op, kk)), step26::tail_descriptor_strides(op));
          EXPECT_EQ(hopper::decode_descriptor(tail).swizzle, hopper::Swizzle::bytes32) << step;
          ht::expect_wgmma_reads_the_tile(tail, false, op.tail, tile_base, box_cols, kk * step26::kWgmmaK, tile_byte,
                                          step + " tail");
        }
      }
    }
  ht::expect_accumulators_cover_64_by(c.bn, step26::accumulator_row, step26::accumulator_col);
  // The n = 16 wgmma's accumulators, put after n = 128's, lie where n = 144's would.
  for (int lane = 0; lane < 32; ++lane)
    for (int reg = 0; reg < step26::kTailCols / 2; ++reg) {
      EXPECT_EQ(step26::accumulator_col(lane, 64 + reg), 128 + step26::accumulator_col(lane, reg));
      EXPECT_EQ(step26::accumulator_row(1, lane, 64 + reg), step26::accumulator_row(1, lane, reg));
    }
}

// The slices of a tile: each one box of C (64 or 32 columns), starting on a multiple of its width
// but the last, which ends at the tile's edge (144 = 64 + 64 + 16: slices at 0, 64, 80; f32: 0, 32,
// 64, 96, 112). Together they cover the tile; the read-back path, which skips the columns an
// earlier slice stored, stores each column once. For the widths that divide, the slices are step 25's.
TEST(Mapping26, SlicesEndAtTheTileEdge) {
  ht::expect_slices_end_at_the_tile_edge(step26::kConfigs, step26::slice_cols, step26::slice_count, step26::slice_first_col,
                                         step26::read_back_stores);
  EXPECT_EQ(step26::slice_count(144, 2), 3);
  EXPECT_EQ(step26::slice_first_col(2, 144, 2), 80);
  EXPECT_EQ(step26::slice_count(144, 4), 5);
  EXPECT_EQ(step26::slice_first_col(4, 144, 4), 112);
}

// The tile by shape: step 25's rule, then the 144-column tile where it counts at least the margin
// less. At 1536^3 on 132 SMs: 66 units of 128 x 144 in one round on every SM pair, against 48
// units of 128 x 192 (what step 25 chooses) on 96 SMs. Where the new tile is not chosen, the choice
// is step 25's; where it is, it counts the margin less than step 25's choice.
TEST(Mapping26, FittedTileChosenWhereItCountsLess) {
  const GemmShape mid{1536, 1536, 1536};
  EXPECT_EQ(step26::launch_shape(mid, fitted(), 132).grid.x, 132);
  EXPECT_EQ(step26::units(mid, fitted()), 66);
  for (const Layout layout : kLayouts) {
    EXPECT_EQ(step26::config_for_shape(mid, layout, 132), fitted()) << layout_name(layout);
    EXPECT_EQ(step25::config_for_shape(mid, layout, 132).bn, 192);
  }
  int chosen = 0, compared = 0;
  for (const Layout layout : kLayouts)
    for (const int sms : {132, 114, 16, 2})
      for (int m = 1; m <= 20000; m += 997)
        for (int n = 1; n <= 12000; n += 613) {
          const GemmShape s{m, n, 64};
          const Config now = step26::config_for_shape(s, layout, sms);
          const step25::Config before = step25::config_for_shape(s, layout, sms);
          const int before_index = gemm::index_of(step25::kConfigs, before);
          ASSERT_GE(before_index, 0);
          ++compared;
          if (now == fitted()) {
            ++chosen;
            EXPECT_LT(step26::counted_time(s, now, sms) * (100 + step26::kThreeQuarterTileMargin),
                      step26::counted_time(s, step26::kConfigs[before_index], sms) * 100)
                << m << "x" << n << " on " << sms << " SMs";
          } else {
            EXPECT_TRUE(same(before, now)) << m << "x" << n << " on " << sms << " SMs";
          }
        }
  EXPECT_GT(chosen, 0);
  EXPECT_GT(compared, 1000);
  // The benchmarks' other shapes keep step 25's tile.
  for (const GemmShape& s : {GemmShape{3072, 3072, 3072}, GemmShape{4088, 4104, 4096}, GemmShape{1024, 1024, 8192},
                             GemmShape{512, 4096, 4096}, GemmShape{4096, 4096, 4096}, GemmShape{8192, 8192, 8192},
                             GemmShape{1024, 1024, 1024}, GemmShape{2048, 2048, 2048}})
    for (const Layout layout : kLayouts)
      EXPECT_TRUE(same(step25::config_for_shape(s, layout, 132), step26::config_for_shape(s, layout, 132)))
          << s.m << "x" << s.n << "x" << s.k;
}

// What does not change: step 25's configurations (the new one is appended), their rule, shared
// memory, copies, descriptors, boxes and dealing.
TEST(Mapping26, EverythingElseIsStep25s) {
  ASSERT_EQ(step26::kConfigCount, step25::kConfigCount + 1);
  for (int i = 0; i < step25::kConfigCount; ++i) {
    const Config& c = step26::kConfigs[i];
    EXPECT_TRUE(same(step25::kConfigs[i], c)) << i;
    EXPECT_STREQ(step26::config_rule(c), "");
    EXPECT_EQ(step26::shared_bytes(c), step25::shared_bytes(step25::kConfigs[i]));
    EXPECT_EQ(step26::config_from(step26::to_params(c)), c);
    for (const Layout layout : kLayouts)
      for (const GemmShape& s : {GemmShape{4096, 4096, 4096}, GemmShape{1000, 1000, 1000}, GemmShape{4088, 4104, 136}}) {
        EXPECT_EQ(step26::launch_shape(s, c, 132).grid.x, step25::launch_shape(s, step25::kConfigs[i], 132).grid.x);
        for (const bool is_a : {true, false}) {
          const step26::TmaOperand op = is_a ? step26::a_operand(s, layout, c) : step26::b_operand(s, layout, c);
          const step25::TmaOperand before = is_a ? step25::a_operand(s, layout, step25::kConfigs[i])
                                                 : step25::b_operand(s, layout, step25::kConfigs[i]);
          ASSERT_EQ(op.k_major, before.k_major);
          ASSERT_EQ(op.box_outer, before.box_outer);
          ASSERT_EQ(op.boxes, before.boxes);
          ASSERT_EQ(op.tail, 0);
          ASSERT_EQ(step26::wgmma_descriptor(1024, step26::descriptor_strides(op)),
                    step25::wgmma_descriptor(1024, step25::descriptor_strides(before)));
          for (int kk = 0; kk < c.bk / step26::kWgmmaK; ++kk)
            ASSERT_EQ(step26::operand_offset(op, 1, kk), step25::operand_offset(before, 1, kk));
          for (int mn = 0; mn < (is_a ? c.bm : c.bn); mn += 7)
            for (int k = 0; k < c.bk; k += 5) ASSERT_EQ(step26::tile_byte(op, mn, k), step25::tile_byte(before, mn, k));
        }
      }
  }
}

// Every tile once, with the kernel's walk, the new tile's shapes included (1536: 11 tile columns,
// the last 96 wide; 2888: a narrow last column of 8).
TEST(Mapping26, PersistentBlocksTakeEveryTileOnce) {
  ht::expect_persistent_blocks_take_every_tile_once<Step26>(
      {GemmShape{4096, 4096, 64}, GemmShape{1000, 1000, 64}, GemmShape{8, 8, 8}, GemmShape{4088, 4104, 64},
       GemmShape{1536, 1536, 64}, GemmShape{392, 2888, 64}, GemmShape{3 * 128, 300, 64}, GemmShape{64 * 128, 264, 64}},
      132);
}

TEST(Mapping26, AccumulatorsCoverEachConsumerTileOnce) {
  for (const Config& c : step26::kConfigs) ht::expect_accumulators_cover_64_by(c.bn, step26::accumulator_row, step26::accumulator_col);
}

TEST(Mapping26, StagingIsConflictFreeAndComplete) { ht::expect_staging_conflict_free_and_complete<Step26>(); }

TEST(Mapping26, StagingHalvesTileTheBuffers) { ht::expect_staging_halves_tile_the_buffers<Step26>(); }

// The trace the viewer and the access model use, over whole launches of every configuration
// (hopper_checks.hpp): the staging writes (an odd count of slices for 144 f32 columns), and C's
// updates once each, the overlapping last slice's columns included.
TEST(Mapping26, TraceStagesEveryFloatAndUpdatesCOnce) {
  ht::expect_trace_stages_every_float_and_updates_c_once<Step26>({{GemmShape{3 * 128 + 8, 2 * 256 + 8, 64}, Layout::nn},
                                                                  {GemmShape{136, 100, 64}, Layout::nt},
                                                                  {GemmShape{264, 1576, 64}, Layout::tn}});
}

TEST(Mapping26, TraceCountsForTheTmaPath) { ht::expect_tma_path_counts<Step26>(); }

// The viewer's timeline follows the kernel's loops, the new tile included.
TEST(Mapping26, TimelineFollowsTheKernelsLoops) {
  gemm::pipeline_testing::expect_persistent_pipeline_as_the_kernel<step26::PipelineState>(
      "26_fitted_tile", gemm::pipeline_testing::ClusterWalk<Config>(cluster_units),
      std::vector<Config>(std::begin(step26::kConfigs), std::end(step26::kConfigs)),
      {GemmShape{264, 520, 72}, GemmShape{1000, 1000, 1024}, GemmShape{1536, 1536, 256}, GemmShape{64 * 128, 264, 72}},
      {4, 16, 132});
}
