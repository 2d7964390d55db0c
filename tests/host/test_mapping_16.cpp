// Step 16: what TMA writes (its boxes with the 128-byte swizzle) must be where
// tile_byte says and what each consumer's wgmma reads through its descriptor, for every layout,
// consumer and k-step; the consumers' accumulators must cover the block's BM x BN tile once; the
// grid (one block per tile) must take every tile once; the trace must store every element of C once,
// from the consumer warps alone.
#include <gtest/gtest.h>

#include <iterator>
#include <string>
#include <utility>
#include <vector>

#include "../../steps/16_warp_specialized/mapping.hpp"
#include "hopper_checks.hpp"
#include "mapping_coverage.hpp"
#include "pipeline_checks.hpp"

namespace {

namespace ht = gemm::hopper_testing;
using gemm::GemmShape;
using gemm::Layout;
using step16::Config;
using step16::TmaOperand;

constexpr Layout kLayouts[] = {Layout::nn, Layout::nt, Layout::tn};

std::string name(const Config& c) {
  return std::to_string(c.bm) + "x" + std::to_string(c.bn) + "x" + std::to_string(c.bk) + " stages " +
         std::to_string(c.stages);
}

TmaOperand operand(const GemmShape& s, Layout layout, const Config& c, bool is_a) {
  return is_a ? step16::a_operand(s, layout, c) : step16::b_operand(s, layout, c);
}

}  // namespace

TEST(Mapping16, CompiledConfigsObeyTheRule) {
  for (const Config& c : step16::kConfigs) {
    ASSERT_STREQ(step16::config_rule(c), "") << name(c);
    EXPECT_EQ(step16::config_from(step16::to_params(c)), c);
    EXPECT_LE(step16::shared_bytes(c), step16::kMaxSharedBytes);
    EXPECT_EQ(step16::consumers(c) * step16::kWgmmaM, c.bm) << "a consumer warpgroup per 64 rows";
    EXPECT_EQ(step16::threads(c), (1 + step16::consumers(c)) * step16::kWarpgroup) << "and the producer";
  }
}

// Every element of each consumer's 64 rows of A's tile and of B's BN x BK tile, at every k-step,
// is where the copies put it.
TEST(Mapping16, CopiesAndDescriptorsAgree) {
  const unsigned tile_base = 3 * 1024;  // any 1024-aligned start
  for (const Config& c : step16::kConfigs)
    for (Layout layout : kLayouts)
      for (bool is_a : {true, false}) {
        const TmaOperand op = operand({4096, 4096, 4096}, layout, c, is_a);
        const step16::Descriptor strides = step16::descriptor_strides(op);
        for (int consumer = 0; consumer < (is_a ? step16::consumers(c) : 1); ++consumer)
          for (int kk = 0; kk < c.bk / step16::kWgmmaK; ++kk) {
            const std::uint64_t d =
                step16::wgmma_descriptor(tile_base + unsigned(step16::operand_offset(op, consumer, kk)), strides);
            ht::expect_wgmma_reads_the_tile(
                d, op.k_major, is_a ? step16::kWgmmaM : c.bn, tile_base, consumer * step16::kWgmmaM,
                kk * step16::kWgmmaK, [&](int mn, int k) { return step16::tile_byte(op, mn, k); },
                name(c) + (is_a ? " A consumer " + std::to_string(consumer) : std::string(" B")) + " kk " +
                    std::to_string(kk));
          }
      }
}

// The boxes of one operand tile, placed by tma_box and box_bytes, fill it once, each element where
// tile_byte says the swizzled copy puts it.
TEST(Mapping16, BoxesFillTheTileOnce) {
  for (const Config& c : step16::kConfigs)
    for (Layout layout : kLayouts)
      for (bool is_a : {true, false}) {
        const TmaOperand op = operand({1000, 1000, 1000}, layout, c, is_a);
        const int rows = is_a ? c.bm : c.bn;
        ASSERT_EQ(op.boxes * step16::box_bytes(op), is_a ? step16::a_tile_bytes(c) : step16::b_tile_bytes(c));
        ht::expect_boxes_land_where_tile_byte_says(
            {op.k_major, op.box_outer, op.boxes, step16::box_bytes(op)}, rows, c.bk,
            [&](int mn, int k) { return step16::tile_byte(op, mn, k); },
            [&](int mn0, int kt, int box) { return step16::tma_box(op, mn0, kt, box, c); },
            name(c) + (is_a ? " A" : " B"));
      }
}

TEST(Mapping16, AccumulatorsCoverEachConsumerTileOnce) {
  for (const Config& c : step16::kConfigs)
    ht::expect_accumulators_cover_64_by(c.bn, step16::accumulator_row, step16::accumulator_col);
}

// One block per tile: the grid's blocks (tile_of) take every tile of C once, none outside.
TEST(Mapping16, EveryTileIsTheBlockOfOne) {
  for (const Config& c : step16::kConfigs)
    for (const GemmShape& s : {GemmShape{1, 1, 8}, GemmShape{64, 64, 64}, GemmShape{65, 257, 8}, GemmShape{264, 520, 72},
                               GemmShape{1000, 1000, 1000}, GemmShape{4096, 4096, 64}}) {
      const gemm::LaunchShape launch = step16::launch_shape(s, c);
      ASSERT_EQ(launch.block.x * launch.block.y * launch.block.z, step16::threads(c));
      ASSERT_EQ(launch.shared_bytes, step16::shared_bytes(c));
      ASSERT_EQ(launch.grid.z, 1);
      std::vector<int> taken(size_t(step16::tiles(s, c)), 0);
      for (int y = 0; y < launch.grid.y; ++y)
        for (int x = 0; x < launch.grid.x; ++x) {
          const step16::TileCoord tile = step16::tile_of({x, y, 0});
          ASSERT_TRUE(tile.m >= 0 && tile.m < step16::tiles_m(s, c) && tile.n >= 0 && tile.n < step16::tiles_n(s, c));
          ++taken[size_t(tile.m) * size_t(step16::tiles_n(s, c)) + size_t(tile.n)];
        }
      for (int n : taken) ASSERT_EQ(n, 1) << name(c);
      // The tiles cover C and no tile lies wholly outside it.
      ASSERT_GE(step16::tiles_m(s, c) * c.bm, s.m);
      ASSERT_LT((step16::tiles_m(s, c) - 1) * c.bm, s.m);
      ASSERT_GE(step16::tiles_n(s, c) * c.bn, s.n);
      ASSERT_LT((step16::tiles_n(s, c) - 1) * c.bn, s.n);
    }
}

// The trace the viewer and the access model use: over whole launches at odd shapes, every element
// of C is stored once (and read once where beta != 0) by the consumers (the producer warps 0-3 issue
// nothing), in 8-byte pairs where N is even, element by element at an odd N's edge.
TEST(Mapping16, TraceUpdatesCOnce) {
  for (const Config& c : step16::kConfigs)
    for (const auto& [shape, layout] : {std::pair{GemmShape{264, 520, 72}, Layout::nn}, std::pair{GemmShape{136, 100, 64}, Layout::nt},
                                        std::pair{GemmShape{33, 65, 16}, Layout::nt}, std::pair{GemmShape{8, 8, 8}, Layout::tn}})
      for (float beta : {0.0f, 0.5f}) {
        ASSERT_EQ(gemm::tc_aligned_rows_rule(shape, layout), "");
        gemm::TraceProblem problem;
        problem.shape = shape;
        problem.layout = layout;
        problem.beta = beta;
        problem.params = step16::to_params(c);
        const ht::CUpdates u = ht::trace_c_updates(problem, step16::trace_launch_shape(problem, c), 1, step16::trace_warp);
        ht::expect_c_updated_once(u, beta, name(c) + " " + gemm::testing::shape_name(shape));
        for (int width : u.widths) ASSERT_EQ(width, shape.n % 2 == 0 ? 8 : 4);
        const gemm::LaunchShape launch = step16::trace_launch_shape(problem, c);
        for (int y = 0; y < launch.grid.y; ++y)
          for (int x = 0; x < launch.grid.x; ++x)
            for (int warp = 0; warp < 4; ++warp)
              step16::trace_warp(problem, {x, y, 0}, warp, [&](const gemm::TraceInstruction& i) {
                FAIL() << "producer warp " << warp << " issues " << i.label;
              });
        if (shape.n % 2) {
          ASSERT_GT(u.widths.size(), 0u);
        }
      }
}

// Closed form: one BM x BN tile of C (N = BN): each of the 4 warps of each consumer stores BN / 4
// pairs, and each store covers 8 rows of 8 floats, 8 sectors (one 32-byte piece of 8 rows).
TEST(Mapping16, TraceCountsForOneTile) {
  for (const Config& c : step16::kConfigs) {
    gemm::TraceProblem problem;
    problem.shape = {c.bm, c.bn, 64};
    problem.params = step16::to_params(c);
    const gemm::AccessTotals t = gemm::predict_launch(
        step16::trace_launch_shape(problem, c),
        [&](const gemm::Dim3& block, int warp, const gemm::TraceSink& sink) { step16::trace_warp(problem, block, warp, sink); });
    EXPECT_EQ(t.global_store_requests, step16::consumers(c) * c.bn) << name(c);
    EXPECT_EQ(t.global_store_sectors, 8LL * step16::consumers(c) * c.bn) << name(c);
    EXPECT_EQ(t.global_load_requests, 0);
    EXPECT_EQ(t.shared_load_requests + t.shared_store_requests, 0);
  }
}

TEST(Mapping16, RulesNameTheProblem) {
  EXPECT_NE(std::string(step16::config_rule({128, 256, 32, 4})).find("BK must be 64"), std::string::npos);
  EXPECT_NE(std::string(step16::config_rule({192, 256, 64, 4})).find("BM must be 64 or 128"), std::string::npos);
  EXPECT_NE(std::string(step16::config_rule({96, 256, 64, 4})).find("BM must be 64 or 128"), std::string::npos);
  EXPECT_NE(std::string(step16::config_rule({128, 320, 64, 4})).find("BN must be"), std::string::npos);
  EXPECT_NE(std::string(step16::config_rule({128, 256, 64, 1})).find("STAGES must be 2..8"), std::string::npos);
  EXPECT_NE(std::string(step16::config_rule({128, 256, 64, 5})).find("227 KB"), std::string::npos);
  EXPECT_NE(std::string(step16::config_rule({64, 64, 64, 2})).find("not compiled in"), std::string::npos);
}

// The viewer's timeline follows the kernel's k-loop: each k-tile's stage and barrier parities are
// the kernel's running counters (PipelineState) at it, over hundreds of k-tiles.
TEST(Mapping16, TimelineFollowsTheKernelsCounters) {
  gemm::pipeline_testing::expect_one_tile_pipeline_as_the_kernel<true, step16::PipelineState>(
      "16_warp_specialized", std::vector<step16::Config>(std::begin(step16::kConfigs), std::end(step16::kConfigs)),
      {gemm::GemmShape{128, 128, 64}, gemm::GemmShape{264, 520, 72}, gemm::GemmShape{256, 256, 300 * 64}});
}
