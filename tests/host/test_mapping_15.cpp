// Step 15: what TMA writes (its boxes with the 128-byte swizzle) must be where
// tile_byte says and what each wgmma reads through its descriptor, for every layout and k-step; the
// accumulator layout must cover the block's 64 x BN tile once; the grid (one block per tile) must
// take every tile once; the trace must store every element of C once.
#include <gtest/gtest.h>

#include <iterator>
#include <string>
#include <utility>
#include <vector>

#include "../../steps/15_tma_wgmma/mapping.hpp"
#include "hopper_checks.hpp"
#include "mapping_coverage.hpp"
#include "pipeline_checks.hpp"

namespace {

namespace ht = gemm::hopper_testing;
using gemm::GemmShape;
using gemm::Layout;
using step15::Config;
using step15::TmaOperand;

constexpr Layout kLayouts[] = {Layout::nn, Layout::nt, Layout::tn};

std::string name(const Config& c) {
  return std::to_string(c.bm) + "x" + std::to_string(c.bn) + "x" + std::to_string(c.bk) + " stages " +
         std::to_string(c.stages);
}

TmaOperand operand(const GemmShape& s, Layout layout, const Config& c, bool is_a) {
  return is_a ? step15::a_operand(s, layout, c) : step15::b_operand(s, layout, c);
}

}  // namespace

TEST(Mapping15, CompiledConfigsObeyTheRule) {
  for (const Config& c : step15::kConfigs) {
    ASSERT_STREQ(step15::config_rule(c), "") << name(c);
    EXPECT_EQ(step15::config_from(step15::to_params(c)), c);
    EXPECT_LE(step15::shared_bytes(c), step15::kMaxSharedBytes);
    EXPECT_EQ(step15::threads(c), step15::kWarpgroup) << "one warpgroup";
  }
}

// Every element of A's 64 x BK and B's BN x BK tile, at every k-step, is where the copies put it.
TEST(Mapping15, CopiesAndDescriptorsAgree) {
  const unsigned tile_base = 3 * 1024;  // any 1024-aligned start
  for (const Config& c : step15::kConfigs)
    for (Layout layout : kLayouts)
      for (bool is_a : {true, false}) {
        const TmaOperand op = operand({4096, 4096, 4096}, layout, c, is_a);
        const step15::Descriptor strides = step15::descriptor_strides(op);
        for (int kk = 0; kk < c.bk / step15::kWgmmaK; ++kk) {
          const std::uint64_t d = step15::wgmma_descriptor(tile_base + unsigned(step15::operand_offset(op, kk)), strides);
          ht::expect_wgmma_reads_the_tile(
              d, op.k_major, is_a ? step15::kWgmmaM : c.bn, tile_base, 0, kk * step15::kWgmmaK,
              [&](int mn, int k) { return step15::tile_byte(op, mn, k); },
              name(c) + (is_a ? " A" : " B") + " kk " + std::to_string(kk));
        }
      }
}

// The boxes of one operand tile, placed by tma_box and box_bytes, fill it once, each element where
// tile_byte says the swizzled copy puts it.
TEST(Mapping15, BoxesFillTheTileOnce) {
  for (const Config& c : step15::kConfigs)
    for (Layout layout : kLayouts)
      for (bool is_a : {true, false}) {
        const TmaOperand op = operand({1000, 1000, 1000}, layout, c, is_a);
        const int rows = is_a ? c.bm : c.bn;
        ASSERT_EQ(op.boxes * step15::box_bytes(op), is_a ? step15::a_tile_bytes(c) : step15::b_tile_bytes(c));
        ht::expect_boxes_land_where_tile_byte_says(
            {op.k_major, op.box_outer, op.boxes, step15::box_bytes(op)}, rows, c.bk,
            [&](int mn, int k) { return step15::tile_byte(op, mn, k); },
            [&](int mn0, int kt, int box) { return step15::tma_box(op, mn0, kt, box, c); },
            name(c) + (is_a ? " A" : " B"));
      }
}

TEST(Mapping15, AccumulatorsCoverTheTileOnce) {
  for (const Config& c : step15::kConfigs) {
    ASSERT_EQ(c.bm, step15::kWgmmaM);
    ht::expect_accumulators_cover_64_by(c.bn, step15::accumulator_row, step15::accumulator_col);
  }
}

// One block per tile: the grid's blocks (tile_of) take every tile of C once, none outside.
TEST(Mapping15, EveryTileIsTheBlockOfOne) {
  for (const Config& c : step15::kConfigs)
    for (const GemmShape& s : {GemmShape{1, 1, 8}, GemmShape{64, 64, 64}, GemmShape{65, 257, 8}, GemmShape{264, 520, 72},
                               GemmShape{1000, 1000, 1000}, GemmShape{4096, 4096, 64}}) {
      const gemm::LaunchShape launch = step15::launch_shape(s, c);
      ASSERT_EQ(launch.block.x * launch.block.y * launch.block.z, step15::threads(c));
      ASSERT_EQ(launch.shared_bytes, step15::shared_bytes(c));
      ASSERT_EQ(launch.grid.z, 1);
      std::vector<int> taken(size_t(step15::tiles(s, c)), 0);
      for (int y = 0; y < launch.grid.y; ++y)
        for (int x = 0; x < launch.grid.x; ++x) {
          const step15::TileCoord tile = step15::tile_of({x, y, 0});
          ASSERT_TRUE(tile.m >= 0 && tile.m < step15::tiles_m(s, c) && tile.n >= 0 && tile.n < step15::tiles_n(s, c));
          ++taken[size_t(tile.m) * size_t(step15::tiles_n(s, c)) + size_t(tile.n)];
        }
      for (int n : taken) ASSERT_EQ(n, 1) << name(c);
      // The tiles cover C and no tile lies wholly outside it.
      ASSERT_GE(step15::tiles_m(s, c) * c.bm, s.m);
      ASSERT_LT((step15::tiles_m(s, c) - 1) * c.bm, s.m);
      ASSERT_GE(step15::tiles_n(s, c) * c.bn, s.n);
      ASSERT_LT((step15::tiles_n(s, c) - 1) * c.bn, s.n);
    }
}

// The trace the viewer and the access model use: over whole launches at odd shapes, every element
// of C is stored once (and read once where beta != 0), in 8-byte pairs where N is even, element by
// element at an odd N's edge.
TEST(Mapping15, TraceUpdatesCOnce) {
  for (const Config& c : step15::kConfigs)
    for (const auto& [shape, layout] : {std::pair{GemmShape{264, 520, 72}, Layout::nn}, std::pair{GemmShape{136, 100, 64}, Layout::nt},
                                        std::pair{GemmShape{33, 65, 16}, Layout::nt}, std::pair{GemmShape{8, 8, 8}, Layout::tn}})
      for (float beta : {0.0f, 0.5f}) {
        ASSERT_EQ(gemm::tc_aligned_rows_rule(shape, layout), "");
        gemm::TraceProblem problem;
        problem.shape = shape;
        problem.layout = layout;
        problem.beta = beta;
        problem.params = step15::to_params(c);
        const ht::CUpdates u = ht::trace_c_updates(problem, step15::trace_launch_shape(problem, c), 1, step15::trace_warp);
        ht::expect_c_updated_once(u, beta, name(c) + " " + gemm::testing::shape_name(shape));
        for (int width : u.widths) ASSERT_EQ(width, shape.n % 2 == 0 ? 8 : 4);
        if (shape.n % 2) {
          ASSERT_GT(u.widths.size(), 0u);
        }
      }
}

// Closed form: one 64 x BN tile of C (N = BN): each of the 4 warps stores BN / 4 pairs, and each
// store covers 8 rows of 8 floats, 8 sectors (one 32-byte piece of 8 rows).
TEST(Mapping15, TraceCountsForOneTile) {
  for (const Config& c : step15::kConfigs) {
    gemm::TraceProblem problem;
    problem.shape = {c.bm, c.bn, 64};
    problem.params = step15::to_params(c);
    const gemm::AccessTotals t = gemm::predict_launch(
        step15::trace_launch_shape(problem, c),
        [&](const gemm::Dim3& block, int warp, const gemm::TraceSink& sink) { step15::trace_warp(problem, block, warp, sink); });
    EXPECT_EQ(t.global_store_requests, c.bn) << name(c);
    EXPECT_EQ(t.global_store_sectors, 8LL * c.bn) << name(c);
    EXPECT_EQ(t.global_load_requests, 0);
    EXPECT_EQ(t.shared_load_requests + t.shared_store_requests, 0);
  }
}

TEST(Mapping15, RulesNameTheProblem) {
  EXPECT_NE(std::string(step15::config_rule({64, 256, 32, 2})).find("BK must be 64"), std::string::npos);
  EXPECT_NE(std::string(step15::config_rule({128, 256, 64, 2})).find("BM must be 64"), std::string::npos);
  EXPECT_NE(std::string(step15::config_rule({64, 320, 64, 2})).find("BN must be"), std::string::npos);
  EXPECT_NE(std::string(step15::config_rule({64, 96, 64, 2})).find("BN must be"), std::string::npos);
  EXPECT_NE(std::string(step15::config_rule({64, 256, 64, 1})).find("STAGES must be 2..8"), std::string::npos);
  EXPECT_NE(std::string(step15::config_rule({64, 256, 64, 8})).find("227 KB"), std::string::npos);
  EXPECT_NE(std::string(step15::config_rule({64, 64, 64, 8})).find("not compiled in"), std::string::npos);
}

// The viewer's timeline follows the kernel's k-loop: each k-tile's stage and barrier parities are
// the kernel's running counters (PipelineState) at it, over hundreds of k-tiles.
TEST(Mapping15, TimelineFollowsTheKernelsCounters) {
  gemm::pipeline_testing::expect_one_tile_pipeline_as_the_kernel<false, step15::PipelineState>(
      "15_tma_wgmma", std::vector<step15::Config>(std::begin(step15::kConfigs), std::end(step15::kConfigs)),
      {gemm::GemmShape{128, 128, 64}, gemm::GemmShape{264, 520, 72}, gemm::GemmShape{256, 256, 300 * 64}});
}
