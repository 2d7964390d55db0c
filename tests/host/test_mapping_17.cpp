// Step 17: what TMA writes (its boxes with the 128-byte swizzle, B's shared out over
// the cluster) must be where tile_byte says and what each consumer's wgmma reads through its
// descriptor, for every layout, consumer and k-step; the consumers' accumulators must cover the
// block's BM x BN tile once; the persistent grid must deal every tile once, in GROUP_M order, for any
// SM count, cluster and group; the trace must store every element of C once, from the consumer warps
// alone.
#include <gtest/gtest.h>

#include <iterator>
#include <string>
#include <utility>
#include <vector>

#include "../../steps/17_persistent_clusters/mapping.hpp"
#include "hopper_checks.hpp"
#include "mapping_coverage.hpp"
#include "pipeline_checks.hpp"

namespace {

namespace ht = gemm::hopper_testing;
using gemm::GemmShape;
using gemm::Layout;
using step17::Config;
using step17::TmaOperand;

constexpr Layout kLayouts[] = {Layout::nn, Layout::nt, Layout::tn};

std::string name(const Config& c) {
  return std::to_string(c.bm) + "x" + std::to_string(c.bn) + "x" + std::to_string(c.bk) + " stages " +
         std::to_string(c.stages) + " group " + std::to_string(c.group_m) + " cluster " + std::to_string(c.cluster);
}

// The compiled configurations, and their tile order and cluster varied beyond them: tile_at and
// launch_shape are plain arithmetic on the Config, so any GROUP_M (a multiple of CLUSTER) is dealt.
std::vector<Config> dealt_configs() {
  std::vector<Config> configs(std::begin(step17::kConfigs), std::end(step17::kConfigs));
  for (const int cluster : {1, 2})
    for (const int group_m : {1, 2, 3, 4, 6, 8, 16, 32})
      if (group_m % cluster == 0) configs.push_back({128, 256, 64, 4, group_m, cluster});
  configs.push_back({128, 192, 64, 4, 16, 2});
  configs.push_back({128, 128, 64, 4, 8, 2});
  return configs;
}

const std::vector<GemmShape> kDealtShapes = {
    GemmShape{8, 8, 8},        GemmShape{128, 256, 64},  GemmShape{264, 520, 72},   GemmShape{1000, 1000, 64},
    GemmShape{4096, 4096, 64}, GemmShape{4088, 4104, 64}, GemmShape{130 * 128, 3 * 256, 64},
    GemmShape{3 * 128, 300, 64}, GemmShape{129, 8200, 64}, GemmShape{5000, 136, 64}};

TmaOperand operand(const GemmShape& s, Layout layout, const Config& c, bool is_a) {
  return is_a ? step17::a_operand(s, layout, c) : step17::b_operand(s, layout, c);
}

}  // namespace

TEST(Mapping17, CompiledConfigsObeyTheRule) {
  for (const Config& c : step17::kConfigs) {
    ASSERT_STREQ(step17::config_rule(c), "") << name(c);
    EXPECT_EQ(step17::config_from(step17::to_params(c)), c);
    EXPECT_LE(step17::shared_bytes(c), step17::kMaxSharedBytes);
    EXPECT_EQ(step17::consumers(c) * step17::kWgmmaM, c.bm) << "a consumer warpgroup per 64 rows";
    EXPECT_EQ(step17::threads(c), (1 + step17::consumers(c)) * step17::kWarpgroup) << "and the producer";
  }
}

// Every element of each consumer's 64 rows of A's tile and of B's BN x BK tile, at every k-step,
// is where the copies put it.
TEST(Mapping17, CopiesAndDescriptorsAgree) {
  const unsigned tile_base = 3 * 1024;  // any 1024-aligned start
  for (const Config& c : step17::kConfigs)
    for (Layout layout : kLayouts)
      for (bool is_a : {true, false}) {
        const TmaOperand op = operand({4096, 4096, 4096}, layout, c, is_a);
        const step17::Descriptor strides = step17::descriptor_strides(op);
        for (int consumer = 0; consumer < (is_a ? step17::consumers(c) : 1); ++consumer)
          for (int kk = 0; kk < c.bk / step17::kWgmmaK; ++kk) {
            const std::uint64_t d =
                step17::wgmma_descriptor(tile_base + unsigned(step17::operand_offset(op, consumer, kk)), strides);
            ht::expect_wgmma_reads_the_tile(
                d, op.k_major, is_a ? step17::kWgmmaM : c.bn, tile_base, consumer * step17::kWgmmaM,
                kk * step17::kWgmmaK, [&](int mn, int k) { return step17::tile_byte(op, mn, k); },
                name(c) + (is_a ? " A consumer " + std::to_string(consumer) : std::string(" B")) + " kk " +
                    std::to_string(kk));
          }
      }
}

// The boxes of one operand tile, placed by tma_box and box_bytes, fill it once, each element where
// tile_byte says the swizzled copy puts it.
TEST(Mapping17, BoxesFillTheTileOnce) {
  for (const Config& c : step17::kConfigs)
    for (Layout layout : kLayouts)
      for (bool is_a : {true, false}) {
        const TmaOperand op = operand({1000, 1000, 1000}, layout, c, is_a);
        const int rows = is_a ? c.bm : c.bn;
        ASSERT_EQ(op.boxes * step17::box_bytes(op), is_a ? step17::a_tile_bytes(c) : step17::b_tile_bytes(c));
        ht::expect_boxes_land_where_tile_byte_says(
            {op.k_major, op.box_outer, op.boxes, step17::box_bytes(op)}, rows, c.bk,
            [&](int mn, int k) { return step17::tile_byte(op, mn, k); },
            [&](int mn0, int kt, int box) { return step17::tma_box(op, mn0, kt, box, c); },
            name(c) + (is_a ? " A" : " B"));
      }
}

TEST(Mapping17, AccumulatorsCoverEachConsumerTileOnce) {
  for (const Config& c : step17::kConfigs)
    ht::expect_accumulators_cover_64_by(c.bn, step17::accumulator_row, step17::accumulator_col);
}

// B's boxes are shared out over the cluster (box % CLUSTER == rank, each multicast into every
// block): every block of a cluster copies at least one box, and together they copy each once.
TEST(Mapping17, ClusterSharesBsBoxesOut) {
  for (const Config& c : step17::kConfigs)
    for (Layout layout : kLayouts) {
      const TmaOperand b = step17::b_operand({1000, 1000, 1000}, layout, c);
      ASSERT_GE(b.boxes, c.cluster) << name(c);
      std::vector<int> copied(size_t(b.boxes), 0);
      for (int rank = 0; rank < c.cluster; ++rank) {
        int mine = 0;
        for (int box = rank; box < b.boxes; box += c.cluster, ++mine) ++copied[size_t(box)];
        ASSERT_GT(mine, 0) << name(c) << " rank " << rank;
      }
      for (int n : copied) ASSERT_EQ(n, 1);
      // The stage's barrier expects all of it: the boxes fill B's tile.
      ASSERT_EQ(b.boxes * step17::box_bytes(b), step17::b_tile_bytes(c));
    }
}

// The persistent grid: whole clusters, at most one block per SM and one cluster per unit; cluster q
// takes units q, q + clusters, ...; the blocks of a cluster take tiles one above the other on one
// column; every tile of C is taken once (a unit's lower tile may lie below C only where the tile
// rows do not divide by CLUSTER, and is then not stored).
TEST(Mapping17, PersistentBlocksTakeEveryTileOnce) {
  for (const Config& c : dealt_configs())
    for (const int sms : {132, 114, 78, 16, 3, 2})
      for (const GemmShape& s : kDealtShapes) {
        const std::string what = name(c) + " " + gemm::testing::shape_name(s) + " on " + std::to_string(sms) + " SMs";
        const gemm::LaunchShape launch = step17::launch_shape(s, c, sms);
        ASSERT_EQ(launch.grid.y * launch.grid.z, 1);
        ASSERT_LE(launch.grid.x, sms) << what;
        ASSERT_EQ(launch.grid.x % c.cluster, 0) << what << ": whole clusters";
        ASSERT_EQ(launch.block.x, step17::threads(c));
        const int clusters = launch.grid.x / c.cluster, rows = step17::tiles_m(s, c), units = step17::units(s, c);
        ASSERT_GE(clusters, 1) << what;
        ASSERT_LE(clusters, units) << what;
        std::vector<int> taken(size_t(step17::tiles(s, c)), 0);
        for (int block = 0; block < launch.grid.x; ++block) {
          const int cluster = block / c.cluster, rank = block % c.cluster;
          for (int u = cluster; u < units; u += clusters) {
            const step17::TileCoord tile = step17::tile_at(u, rank, s, c);
            ASSERT_EQ(tile.n, step17::tile_at(u, 0, s, c).n) << what;
            ASSERT_EQ(tile.m, step17::tile_at(u, 0, s, c).m + rank) << what;
            ASSERT_EQ(tile.m % c.cluster, rank) << what;
            ASSERT_TRUE(tile.m >= 0 && tile.n >= 0 && tile.n < step17::tiles_n(s, c)) << what;
            if (tile.m >= rows) {  // below C: only the last tile row of an odd count, never stored
              ASSERT_EQ(tile.m, rows) << what;
              ASSERT_EQ(rows % c.cluster, 1) << what;
              continue;
            }
            ++taken[size_t(tile.m) * size_t(step17::tiles_n(s, c)) + size_t(tile.n)];
          }
        }
        for (int n : taken) ASSERT_EQ(n, 1) << what;
      }
}

// The fewest clusters that take the fewest rounds: every cluster gets the same number of units, give
// or take one, and one cluster fewer would take another round.
TEST(Mapping17, PersistentGridIsTheFewestClustersForItsRounds) {
  for (const Config& c : dealt_configs())
    for (const int sms : {132, 114, 16, 2})
      for (const GemmShape& s : kDealtShapes) {
        const int units = step17::units(s, c), fit = sms / c.cluster;
        const int clusters = step17::launch_shape(s, c, sms).grid.x / c.cluster;
        ASSERT_EQ(clusters, step17::persistent_clusters(s, c, sms));
        if (units <= fit) {
          ASSERT_EQ(clusters, units) << "one round: a cluster per unit";
          continue;
        }
        ASSERT_EQ(gemm::ceil_div(units, clusters), gemm::ceil_div(units, fit)) << name(c);
        if (clusters > 1) {
          ASSERT_GT(gemm::ceil_div(units, clusters - 1), gemm::ceil_div(units, clusters)) << name(c);
        }
      }
  const Config d = step17::kConfigs[0];
  if (d.cluster == 2 && d.bm == 128 && d.bn == 256) {
    // At 4096^3 on 132 SMs in pairs: 256 units in 4 rounds of 64 clusters, not 58 of 4 and 8 of 3.
    ASSERT_EQ(step17::launch_shape(GemmShape{4096, 4096, 4096}, d, 132).grid.x, 128);
  }
}

// GROUP_M order: the units are dealt a group of GROUP_M tile rows at a time, down the group's rows
// first, then across its columns, so that the units of one group are consecutive and the next
// group's come after all of them.
TEST(Mapping17, UnitsAreDealtInGroupsOfTileRows) {
  for (const Config& c : dealt_configs())
    for (const GemmShape& s : kDealtShapes) {
      const int group = c.group_m / c.cluster;  // unit rows per group
      step17::TileCoord previous{-1, -1};
      for (int u = 0; u < step17::units(s, c); ++u) {
        const step17::TileCoord tile = step17::tile_at(u, 0, s, c);
        const int unit_row = tile.m / c.cluster, first_row = (unit_row / group) * group;
        ASSERT_EQ(first_row, (u / (group * step17::tiles_n(s, c))) * group) << name(c) << " unit " << u;
        if (u > 0 && tile.n == previous.n) {
          ASSERT_EQ(tile.m, previous.m + c.cluster) << name(c) << ": down the group's rows first, unit " << u;
        } else if (u > 0 && first_row == (previous.m / c.cluster / group) * group) {
          ASSERT_EQ(tile.n, previous.n + 1) << name(c) << ": then the next column, unit " << u;
          ASSERT_EQ(unit_row, first_row) << name(c) << " unit " << u;
        }
        previous = tile;
      }
    }
}

// The trace the viewer and the access model use: over whole persistent launches at odd shapes and
// for several SM counts, every element of C is stored once (and read once where beta != 0) by the
// consumers (the producer warps 0-3 issue nothing), in 8-byte pairs where N is even, element by
// element at an odd N's edge; a block's tiles are numbered in the order it takes them.
TEST(Mapping17, TraceUpdatesCOnce) {
  for (const Config& c : step17::kConfigs)
    for (const auto& [shape, layout] : {std::pair{GemmShape{264, 520, 72}, Layout::nn}, std::pair{GemmShape{136, 100, 64}, Layout::nt},
                                        std::pair{GemmShape{33, 65, 16}, Layout::nt}, std::pair{GemmShape{1000, 1000, 64}, Layout::tn},
                                        std::pair{GemmShape{392, 2888, 8}, Layout::nn}})
      for (const int sms : {0, 132, 16, 2})
        for (float beta : {0.0f, 0.5f}) {
          ASSERT_EQ(gemm::tc_aligned_rows_rule(shape, layout), "");
          gemm::TraceProblem problem;
          problem.shape = shape;
          problem.layout = layout;
          problem.beta = beta;
          problem.params = step17::to_params(c);
          problem.sms = sms;
          const gemm::LaunchShape launch = step17::trace_launch_shape(problem, c);
          ASSERT_EQ(launch.grid.x, step17::launch_shape(shape, c, sms > 0 ? sms : step17::kTraceSms).grid.x);
          const int clusters = launch.grid.x / c.cluster;
          const int rounds = gemm::ceil_div(step17::units(shape, c), clusters);
          const ht::CUpdates u = ht::trace_c_updates(problem, launch, rounds, step17::trace_warp);
          ht::expect_c_updated_once(u, beta, name(c) + " " + gemm::testing::shape_name(shape) + " on " + std::to_string(sms));
          for (int width : u.widths) ASSERT_EQ(width, shape.n % 2 == 0 ? 8 : 4);
          for (int x = 0; x < launch.grid.x; ++x)
            for (int warp = 0; warp < 4; ++warp)
              step17::trace_warp(problem, {x, 0, 0}, warp, [&](const gemm::TraceInstruction& i) {
                FAIL() << "producer warp " << warp << " issues " << i.label;
              });
        }
}

// Closed form: CLUSTER tiles of C one above the other (N = BN), one unit, one tile per block: each of
// the 4 warps of each consumer stores BN / 4 pairs, and each store covers 8 rows of 8 floats, 8
// sectors (one 32-byte piece of 8 rows).
TEST(Mapping17, TraceCountsForOneTile) {
  for (const Config& c : step17::kConfigs) {
    gemm::TraceProblem problem;
    problem.shape = {c.cluster * c.bm, c.bn, 64};
    problem.params = step17::to_params(c);
    const gemm::AccessTotals t = gemm::predict_launch(
        step17::trace_launch_shape(problem, c),
        [&](const gemm::Dim3& block, int warp, const gemm::TraceSink& sink) { step17::trace_warp(problem, block, warp, sink); });
    ASSERT_EQ(step17::trace_launch_shape(problem, c).grid.x, c.cluster);
    EXPECT_EQ(t.global_store_requests, c.cluster * step17::consumers(c) * c.bn) << name(c);
    EXPECT_EQ(t.global_store_sectors, 8LL * c.cluster * step17::consumers(c) * c.bn) << name(c);
    EXPECT_EQ(t.global_load_requests, 0);
    EXPECT_EQ(t.shared_load_requests + t.shared_store_requests, 0);
  }
}

TEST(Mapping17, RulesNameTheProblem) {
  EXPECT_NE(std::string(step17::config_rule({128, 256, 32, 4, 16, 2})).find("BK must be 64"), std::string::npos);
  EXPECT_NE(std::string(step17::config_rule({192, 256, 64, 4, 16, 2})).find("BM must be 64 or 128"), std::string::npos);
  EXPECT_NE(std::string(step17::config_rule({128, 320, 64, 4, 16, 2})).find("BN must be"), std::string::npos);
  EXPECT_NE(std::string(step17::config_rule({128, 256, 64, 1, 16, 2})).find("STAGES must be 2..8"), std::string::npos);
  EXPECT_NE(std::string(step17::config_rule({128, 256, 64, 5, 16, 2})).find("227 KB"), std::string::npos);
  EXPECT_NE(std::string(step17::config_rule({128, 256, 64, 4, 16, 4})).find("CLUSTER must be 1 or 2"), std::string::npos);
  EXPECT_NE(std::string(step17::config_rule({128, 256, 64, 4, 7, 2})).find("multiple of CLUSTER"), std::string::npos);
  EXPECT_NE(std::string(step17::config_rule({128, 256, 64, 4, 0, 2})).find("positive"), std::string::npos);
  EXPECT_NE(std::string(step17::config_rule({128, 256, 64, 4, 4, 2})).find("not compiled in"), std::string::npos);
}

// The viewer's timeline follows the kernel's loops: every block takes the units of its loop over u
// (cluster_of, next_unit), and each k-tile's stage and barrier parities are the kernel's running
// counters (PipelineState) at it, running on from tile to tile, for blocks of many tiles.
TEST(Mapping17, TimelineFollowsTheKernelsLoops) {
  gemm::pipeline_testing::expect_persistent_pipeline_as_the_kernel<step17::PipelineState>(
      "17_persistent_clusters", step17::next_unit,
      std::vector<step17::Config>(std::begin(step17::kConfigs), std::end(step17::kConfigs)),
      {gemm::GemmShape{264, 520, 72}, gemm::GemmShape{1000, 1000, 1024}, gemm::GemmShape{520, 4104, 5120}},
      {4, 16, 132});
}
