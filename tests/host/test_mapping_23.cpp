// Step 23, FP8 with the last round's k-tiles shared out (stream-K): step 22's kernel with a
// schedule (schedule_of) that deals the units filling whole rounds as step 22 does and cuts the
// rest along k into equal runs, one run a cluster. Checked here: every k-tile of every unit is
// multiplied once, by one cluster (work_item, the kernel's and the traces' one definition); a run
// holds at most kMaxPieces pieces; each split unit's sharers, their slots and counters in the
// workspace; where nothing is split, step 22's grid, order and choice; and the schedule each issue
// shape gets on 132 SMs.
#include <gtest/gtest.h>

#include <map>
#include <set>
#include <string>
#include <tuple>
#include <vector>

#include "22_tile_width/mapping.hpp"
#include "23_stream_k/mapping.hpp"
#include "fp8_steps.hpp"
#include "hopper_checks.hpp"
#include "mapping_coverage.hpp"
#include "store_path_steps.hpp"

namespace {

namespace ht = gemm::hopper_testing;
using gemm::GemmShape;
using gemm::Layout;
using step23::Config;
using step23::kConfigs;

constexpr int kSms = 132;  // the H100's and the H200's

// Step 23's functions, for the checks it shares with steps 18 and 19 (hopper_checks.hpp).
struct Step23 {
  using Config = step23::Config;
  static constexpr auto& kConfigs = step23::kConfigs;
  static constexpr auto tiles_m = &step23::tiles_m;
  static constexpr auto tiles_n = &step23::tiles_n;
  static constexpr auto tiles = &step23::tiles;
  static constexpr auto units = &step23::units;
  static constexpr auto unit_rows = &step23::unit_rows;
  static constexpr auto narrow_tile = &step23::narrow_tile;
  static constexpr auto narrow_units = &step23::narrow_units;
  static constexpr auto tile_at = &step23::tile_at;
  static constexpr auto launch_shape = &step23::launch_shape;
  static constexpr auto persistent_clusters = &step23::persistent_clusters;
  static constexpr auto grid_time = &step23::grid_time;
  static constexpr int kNarrowCols = step23::kNarrowCols;
  static constexpr int kNarrowUnitsPerWhole = step23::kNarrowUnitsPerWhole;
  static constexpr auto consumers = &step23::consumers;
  static constexpr int kWgmmaM = step23::kWgmmaM;
  static constexpr int kWarpgroup = step23::kWarpgroup;
  static constexpr auto accumulator_row = &step23::accumulator_row;
  static constexpr auto accumulator_col = &step23::accumulator_col;
  static constexpr auto slice_cols = &step23::slice_cols;
  static constexpr auto c_box_cols = &step23::c_box_cols;
  static constexpr auto staging_byte = &step23::staging_byte;
  static constexpr auto staging_half_byte = &step23::staging_half_byte;
  static constexpr auto c_box = &step23::c_box;
  static constexpr auto staged_chunk = &step23::staged_chunk;
  static constexpr int kRun = step23::kRun;
  static constexpr int kReadBacks = step23::kReadBacks;
  static constexpr int kStagingBytes = step23::kStagingBytes;
  static constexpr int kStagingSlices = step23::kStagingSlices;
  static constexpr int kStagingBoxBytes = step23::kStagingBoxBytes;
  static constexpr auto tma_stores_c = &step23::tma_stores_c;
  static constexpr auto to_params = &step23::to_params;
  static constexpr auto trace_launch_shape = &step23::trace_launch_shape;
  static constexpr auto trace_warp = &step23::trace_warp;
  static constexpr int kScaleLoads = 2;  // A's and B's per-tensor scales, read by every consumer warp
  static constexpr auto shape_rule = &gemm::fp8_shape_rule;
  static constexpr auto schedule_of = &step23::schedule_of;  // the stream-K checks
  static constexpr auto k_tiles = &step23::k_tiles;
  static constexpr auto cluster_work = &step23::cluster_work;
  static constexpr int kMaxPieces = step23::kMaxPieces;
};

// The shapes (hopper_checks.hpp, shared with the other stream-K step's test).
const std::vector<GemmShape>& kDealtShapes = ht::stream_k_dealt_shapes();
const std::vector<GemmShape>& shapes() { return ht::stream_k_shapes(); }
std::string name(const GemmShape& s) { return gemm::testing::shape_name(s); }

// Every (unit, k-tile) once, over every cluster's work, for every shape, tile and GPU size.
TEST(Step23Schedule, EveryKTileOfEveryUnitOnce) {
  ht::expect_every_k_tile_of_every_unit_once<Step23>(shapes());
}

// A split unit's sharers are the clusters whose pieces make it up, in order, each knowing the same
// first and last sharer; piece_index_of finds each sharer's piece of it; slots and counters are
// distinct and inside the workspace.
TEST(Step23Schedule, SharersSlotsAndCounters) {
  for (const GemmShape& shape : shapes())
    for (const Config& c : kConfigs) {
      const step23::Schedule s = step23::schedule_of(shape, c, kSms);
      if (s.split_units == 0) continue;
      SCOPED_TRACE(name(shape) + " BN=" + std::to_string(c.bn));
      std::map<int, std::vector<int>> sharers_of;  // unit -> clusters with a piece of it, in order
      std::map<int, std::pair<int, int>> first_last;
      std::set<int> slots;
      for (int q = 0; q < s.clusters; ++q)
        for (int index = 0; index < step23::kMaxPieces; ++index) {
          const step23::Piece p = step23::piece_of(s, q, index);
          if (!p.valid) continue;
          sharers_of[p.unit].push_back(q);
          const auto [it, fresh] = first_last.emplace(p.unit, std::make_pair(p.first_sharer, p.last_sharer));
          if (!fresh) {
            ASSERT_EQ(it->second, std::make_pair(p.first_sharer, p.last_sharer));
          }
          ASSERT_EQ(step23::piece_index_of(s, q, p.unit), index);
          for (int rank = 0; rank < c.cluster; ++rank)
            for (int warp = 0; warp < step23::consumer_warps(c); ++warp) {
              const int slot = step23::slot_of(q, index, rank, warp, c);
              ASSERT_TRUE(slots.insert(slot).second);
              ASSERT_LT(slot, step23::workspace_slots(s, c));
            }
        }
      std::set<int> counters;
      for (const auto& [unit, clusters] : sharers_of) {
        ASSERT_EQ(clusters.front(), first_last[unit].first);
        ASSERT_EQ(clusters.back(), first_last[unit].second);
        for (size_t i = 1; i < clusters.size(); ++i) ASSERT_EQ(clusters[i], clusters[i - 1] + 1);
        for (int rank = 0; rank < c.cluster; ++rank)
          for (int consumer = 0; consumer < step23::consumers(c); ++consumer) {
            const int counter = step23::arrival_of(s, unit, rank, consumer, c);
            ASSERT_TRUE(counters.insert(counter).second);
            ASSERT_LT(counter, step23::arrival_counters(s, c));
          }
      }
      ASSERT_EQ(int(sharers_of.size()), s.split_units);
    }
}

// Where nothing is split, step 22's grid and order: the same clusters, each taking the same units.
TEST(Step23Schedule, UnsplitShapesAreDealtAsStep22) {
  for (const GemmShape& shape : shapes())
    for (int index = 0; index < step23::kConfigCount; ++index) {
      const Config& c = kConfigs[index];
      const step22::Config& c22 = step22::kConfigs[index];
      const step23::Schedule s = step23::schedule_of(shape, c, kSms);
      if (s.split_units > 0) continue;
      SCOPED_TRACE(name(shape) + " BN=" + std::to_string(c.bn));
      ASSERT_EQ(step23::launch_shape(shape, c, kSms).grid.x, step22::launch_shape(shape, c22, kSms).grid.x);
      for (int q = 0; q < s.clusters; ++q) {
        int round = 0;
        for (const step23::Work& w : step23::cluster_work(s, q))
          ASSERT_EQ(w.unit, step22::unit_of(q * c.cluster, round++, s.clusters, c22));
      }
    }
}

// The schedule and tile each issue shape gets on 132 SMs: the deep shapes whose tiles, 64 columns
// wide, still leave most SMs idle split their one round; 1024 x 1024 fills 128 SMs with the 64-column
// tile whole; the large ones keep step 22's grid, where splitting saves fewer k-tiles than it costs
// (kFixupKTiles).
TEST(Step23Schedule, IssueShapes) {
  struct Expect {
    GemmShape shape;
    int bn;
    bool split;
  };
  for (const Expect& e : {Expect{{512, 1536, 16384}, 128, true}, Expect{{512, 1024, 16384}, 128, true},
                          Expect{{768, 768, 8192}, 64, false},
                          Expect{{264, 400, 8192}, 64, true}, Expect{{1024, 1024, 8192}, 64, false},
                          Expect{{1024, 1024, 16384}, 64, false}, Expect{{4096, 4096, 4096}, 176, false},
                          Expect{{8192, 8192, 8192}, 192, false}, Expect{{4088, 4104, 4096}, 176, false},
                          Expect{{1024, 1024, 1024}, 64, false}, Expect{{2048, 2048, 2048}, 128, false}}) {
    SCOPED_TRACE(name(e.shape));
    const Config c = step23::config_for_shape(e.shape, kSms);
    EXPECT_EQ(c.bn, e.bn);
    EXPECT_EQ(step23::schedule_of(e.shape, c, kSms).split_units > 0, e.split);
  }
  // The fix-up is a time: kFixupKTiles k-tiles of the 128-column tile, 28 x (128 + 64) / (64 + 64)
  // of the 64-column tile (768 x 768 x 8192 measured about 38 to 43, the log, step 23).
  EXPECT_EQ(step23::fixup_k_tiles(kConfigs[step23::kSquareTileConfig]), step23::kFixupKTiles);
  EXPECT_EQ(step23::fixup_k_tiles(kConfigs[step23::kNarrowTileConfig]), 42);
  for (const GemmShape& shape : shapes())  // the tiles wider than kSplitMaxCols are never split
    for (const Config& c : kConfigs)
      if (c.bn > step23::kSplitMaxCols) {
        EXPECT_EQ(step23::schedule_of(shape, c, kSms).split_units, 0) << name(shape);
      }
}

}  // namespace

// One k-tile a unit (K = 64): nothing is split, and the grid, its order and the traces are step 22's.
TEST(Step23Schedule, WithoutSplitsStep22sGridAndTraces) {
  ht::expect_same_dealing<gemm::fp8_testing::Step22, gemm::fp8_testing::Step23>(step23::kConfigCount, kDealtShapes,
                                                                                {132, 114, 16});
  ht::expect_same_traces<gemm::fp8_testing::Step22, gemm::fp8_testing::Step23>(step23::kConfigCount);
}

// The checks of steps 18 to 22 (hopper_checks.hpp): the staging, and the trace over whole launches,
// here also at shapes whose units are split (K = 4096, 2048): a split tile is stored once.
TEST(Step23Schedule, StagingAndTrace) {
  ht::expect_staging_conflict_free_and_complete<Step23>();
  ht::expect_staging_halves_tile_the_buffers<Step23>();
  ht::expect_trace_stages_every_float_and_updates_c_once<Step23>(
      {{GemmShape{3 * 128 + 8, 2 * 192 + 8, 64}, Layout::nt}, {GemmShape{136, 100, 128}, Layout::nt},
       {GemmShape{264, 400, 4096}, Layout::nt}, {GemmShape{136, 350, 2048}, Layout::nt}});
  ht::expect_tma_path_counts<Step23>();
}

// The kernel calls store_path directly (kernel.cuh, the epilogue): the kernel's rule restated, and
// TMA stores C exactly where it may (hopper_checks.hpp), for every compiled kernel.
TEST(Mapping23, StorePathFollowsTheProblem) {
  gemm::hopper_testing::expect_store_path_of_twins_follows_the_problem<gemm::fp8_testing::StorePaths23>(
      step23::read_back_only);
}
