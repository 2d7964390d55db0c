// Step 25, the 16-bit kernel with its narrow units dealt in pairs: step 18's mapping with the
// persistent grid dealt places (a whole unit, or two narrow units one after the other) in place of
// units. The dealing is checked here: every tile taken once, the places' rounds on the fewest
// clusters, never longer than step 18's dealing as the grid's time counts it, and the viewer's
// timeline walking the kernel's loop. Everything else must be step 18's, which test_mapping_18.cpp
// checks: the same configurations and rule, copies, descriptors, staging and trace.
#include <gtest/gtest.h>

#include <algorithm>
#include <iterator>
#include <string>
#include <vector>

#include "../../steps/18_tma_store_epilogue/mapping.hpp"
#include "../../steps/25_narrow_pairs/mapping.hpp"
#include "hopper_checks.hpp"
#include "pipeline_checks.hpp"

namespace {

namespace ht = gemm::hopper_testing;
using gemm::ceil_div;
using gemm::GemmShape;
using gemm::Layout;
using step25::Config;

constexpr Layout kLayouts[] = {Layout::nn, Layout::nt, Layout::tn};

// The units cluster `cluster` of `clusters` takes, in the order of the kernel's loop.
std::vector<int> cluster_units(const GemmShape& s, const Config& c, int cluster, int clusters) {
  std::vector<int> taken;
  const int single = step25::single_units(s, c, clusters);
  for (int u = step25::first_unit(cluster, single); u < step25::units(s, c); u = step25::next_unit(u, clusters, single))
    taken.push_back(u);
  return taken;
}

// Step 25's functions, for the checks it shares with steps 18-24 (hopper_checks.hpp).
struct Step25 {
  using Config = step25::Config;
  static constexpr auto& kConfigs = step25::kConfigs;
  static constexpr auto tiles_m = &step25::tiles_m;
  static constexpr auto tiles_n = &step25::tiles_n;
  static constexpr auto tiles = &step25::tiles;
  static constexpr auto units = &step25::units;
  static constexpr auto unit_rows = &step25::unit_rows;
  static constexpr auto narrow_tile = &step25::narrow_tile;
  static constexpr auto narrow_units = &step25::narrow_units;
  static constexpr auto tile_at = &step25::tile_at;
  static constexpr auto launch_shape = &step25::launch_shape;
  static constexpr auto cluster_units = &::cluster_units;
  static constexpr int kNarrowCols = step25::kNarrowCols;
  static constexpr auto consumers = &step25::consumers;
  static constexpr int kWgmmaM = step25::kWgmmaM;
  static constexpr int kWarpgroup = step25::kWarpgroup;
  static constexpr auto accumulator_row = &step25::accumulator_row;
  static constexpr auto accumulator_col = &step25::accumulator_col;
  static constexpr auto slice_cols = &step25::slice_cols;
  static constexpr auto c_box_cols = &step25::c_box_cols;
  static constexpr auto staging_byte = &step25::staging_byte;
  static constexpr auto staging_half_byte = &step25::staging_half_byte;
  static constexpr auto c_box = &step25::c_box;
  static constexpr auto staged_chunk = &step25::staged_chunk;
  static constexpr int kRun = step25::kRun;
  static constexpr int kReadBacks = step25::kReadBacks;
  static constexpr int kStagingBytes = step25::kStagingBytes;
  static constexpr int kStagingSlices = step25::kStagingSlices;
  static constexpr int kStagingBoxBytes = step25::kStagingBoxBytes;
  static constexpr auto tma_stores_c = &step25::tma_stores_c;
  static constexpr auto to_params = &step25::to_params;
  static constexpr auto trace_launch_shape = &step25::trace_launch_shape;
  static constexpr auto trace_warp = &step25::trace_warp;
  static constexpr int kScaleLoads = 0;  // no scales
  static constexpr auto shape_rule = &gemm::tc_aligned_rows_rule;
};

bool same(const step18::Config& a, const step25::Config& b) {
  return a.bm == b.bm && a.bn == b.bn && a.bk == b.bk && a.stages == b.stages && a.group_m == b.group_m &&
         a.cluster == b.cluster;
}

// Each cluster's time in narrow units' time (a whole unit kNarrowUnitsPerWhole, a narrow one 1).
std::vector<int> cluster_times(const GemmShape& s, const Config& c, int clusters) {
  std::vector<int> times;
  for (int q = 0; q < clusters; ++q) {
    int time = 0;
    for (const int u : cluster_units(s, c, q, clusters))
      time += step25::narrow_tile(step25::tile_at(u, 0, s, c).n, s, c) ? 1 : step25::kNarrowUnitsPerWhole;
    times.push_back(time);
  }
  return times;
}

std::string name(const GemmShape& s, const Config& c, int sms) {
  return "BN " + std::to_string(c.bn) + " cluster " + std::to_string(c.cluster) + " on " + std::to_string(sms) +
         " SMs at " + std::to_string(s.m) + "x" + std::to_string(s.n);
}

}  // namespace

// Every tile once, with the kernel's walk (the ClusterUnits of hopper_checks.hpp: cluster_units).
TEST(Mapping25, PersistentBlocksTakeEveryTileOnce) {
  ht::expect_persistent_blocks_take_every_tile_once<Step25>(
      {GemmShape{4096, 4096, 64}, GemmShape{1000, 1000, 64}, GemmShape{8, 8, 8}, GemmShape{4088, 4104, 64},
       GemmShape{2056, 4104, 64}, GemmShape{130 * 128, 3 * 256, 64}, GemmShape{3 * 128, 300, 64},
       GemmShape{64 * 128, 264, 64}, GemmShape{9 * 256, 40, 64}},
      132);
}

// The walk: a cluster takes the single units of its places, and a pair's two narrow units one after
// the other; the places go round the clusters in turn (place p to cluster p % clusters).
TEST(Mapping25, ClustersTakePlacesInTurn) {
  for (const int single : {0, 1, 5, 256})
    for (const int clusters : {1, 3, 66})
      for (const int narrow : {0, 1, 2, 7, 8}) {  // narrow units after the single ones: pairs, one alone
      const int count = single + narrow;
      std::vector<int> place_of(size_t(count), -1);
      for (int q = 0; q < clusters; ++q) {
        int previous_place = -1;
        for (int u = step25::first_unit(q, single); u < count; u = step25::next_unit(u, clusters, single)) {
          const int place = u < single ? u : single + (u - single) / 2;
          ASSERT_EQ(place % clusters, q) << "unit " << u;
          ASSERT_GE(place, previous_place) << "unit " << u;
          ASSERT_EQ(place_of[size_t(u)], -1) << "unit " << u << " taken twice";
          place_of[size_t(u)] = place;
          previous_place = place;
        }
      }
      for (int u = 0; u < count; ++u) ASSERT_GE(place_of[size_t(u)], 0) << "unit " << u << " not taken";
      }
}

// The grid: the narrow units in pairs only where that deals them in less time on the grid's
// clusters, else step 18's grid (a cluster for every unit where they fit in one round, nothing
// paired); grid_time is the slowest cluster's time, and never more than step 18's.
TEST(Mapping25, PlacesRoundsOnTheFewestClusters) {
  const std::vector<GemmShape> shapes = {
      {4096, 4096, 64}, {8192, 8192, 64},  {1000, 1000, 64},       {8, 8, 8},         {4088, 4104, 64},
      {2056, 4104, 64}, {3072, 3072, 64},  {130 * 128, 3 * 256, 64}, {64 * 128, 264, 64}, {64 * 128, 40, 64},
      {9 * 256, 40, 64}, {1536, 1536, 64}, {6136, 6152, 64},       {520, 4104, 64},   {264, 520, 64},
      {4112, 568, 64},  {14624, 792, 64},  {1656, 4616, 64},       {376, 5640, 64},   {6576, 568, 64}};
  for (const Config& c : step25::kConfigs)
    for (const int sms : {132, 114, 16, 2})
      for (const GemmShape& s : shapes) {
        const std::string what = name(s, c, sms);
        const int count = step25::units(s, c), narrow = step25::narrow_units(s, c), fit = sms / c.cluster;
        const int clusters = step25::launch_shape(s, c, sms).grid.x / c.cluster;
        ASSERT_EQ(clusters, step25::persistent_clusters(s, c, sms)) << what;
        ASSERT_GE(clusters, 1) << what;
        ASSERT_LE(clusters, fit) << what;
        const int single = step25::single_units(s, c, clusters), whole = count - narrow;
        const step18::Config& c18 = step18::kConfigs[gemm::index_of(step25::kConfigs, c)];
        if (count <= fit) {
          EXPECT_EQ(clusters, count) << what << ": one round, a cluster per unit";
          EXPECT_EQ(single, count) << what << ": nothing paired";
        } else if (step25::paired(s, c, clusters)) {
          EXPECT_EQ(single, whole) << what << ": the narrow units in pairs";
          EXPECT_LT(step25::places_time_on(whole, narrow, clusters), step25::grid_time_on(whole, narrow, clusters))
              << what << ": pairs only where they are the shorter dealing";
          const int places = step25::places(s, c, clusters);
          EXPECT_EQ(places, whole + ceil_div(narrow, 2)) << what;
          EXPECT_EQ(step25::grid_time(s, c, sms), step25::places_time_on(whole, narrow, clusters)) << what;
          if (clusters != step18::persistent_clusters(s, c18, sms)) {  // the places' own grid
            EXPECT_EQ(ceil_div(places, clusters), ceil_div(places, fit)) << what << ": the fewest rounds of places";
            if (clusters > 1) {
              EXPECT_GT(ceil_div(places, clusters - 1), ceil_div(places, clusters)) << what << ": on the fewest clusters";
            }
          }
        } else {
          EXPECT_EQ(single, count) << what << ": units in turn";
          EXPECT_EQ(clusters, step18::persistent_clusters(s, c18, sms)) << what << ": step 18's grid";
          EXPECT_EQ(step25::grid_time(s, c, sms), step18::grid_time(s, c18, sms)) << what;
        }
        const std::vector<int> times = cluster_times(s, c, clusters);
        EXPECT_EQ(step25::grid_time(s, c, sms), *std::max_element(times.begin(), times.end())) << what;
        // Against step 18's dealing of the same tiles (its configurations are these): never longer,
        // and the same grid where nothing is narrow.
        EXPECT_LE(step25::grid_time(s, c, sms), step18::grid_time(s, c18, sms)) << what;
        if (narrow == 0) {
          EXPECT_EQ(clusters, step18::persistent_clusters(s, c18, sms)) << what;
        }
      }
  const Config& d = step25::kConfigs[0];
  if (d.cluster == 2 && d.bm == 128 && d.bn == 256) {
    // At 4088 x 4104 on 132 SMs: 256 whole units and 8 pairs of the 16 narrow ones, 264 places in 4
    // rounds of 66 clusters; 58 clusters take 4 whole units, 8 take 3 and a pair. Step 18: 4 rounds
    // of 64 clusters and a short fifth of the narrow units.
    const GemmShape s{4088, 4104, 4096};
    ASSERT_EQ(step25::launch_shape(s, d, 132).grid.x, 132);
    ASSERT_EQ(step18::launch_shape(s, step18::kConfigs[0], 132).grid.x, 128);
    int with_a_pair = 0;
    for (int q = 0; q < 66; ++q) {
      const std::vector<int> taken = cluster_units(s, d, q, 66);
      const auto narrow = std::count_if(taken.begin(), taken.end(), [&](int u) { return u >= 256; });
      ASSERT_TRUE((taken.size() == 4 && narrow == 0) || (taken.size() == 5 && narrow == 2)) << "cluster " << q;
      with_a_pair += narrow == 2;
    }
    EXPECT_EQ(with_a_pair, 8);
    EXPECT_EQ(step25::grid_time(s, d, 132), 4 * step25::kNarrowUnitsPerWhole);
    EXPECT_EQ(step18::grid_time(s, step18::kConfigs[0], 132), 4 * step18::kNarrowUnitsPerWhole + 1);
    // 64 x 128 rows of 264 columns: 32 whole units and 32 narrow ones, a cluster each on 132 SMs.
    EXPECT_EQ(step25::single_units({64 * 128, 264, 64}, d, step25::persistent_clusters({64 * 128, 264, 64}, d, 132)), 64);
    // At 4096^3 nothing is narrow: step 18's grid.
    EXPECT_EQ(step25::launch_shape({4096, 4096, 4096}, d, 132).grid.x, 128);
  }
}

// What does not change: the compiled configurations and their rule, the tile by shape (step 18's
// rule; it counts the grid's time, so where pairing shortens a tile's grid the choice may differ,
// but not at the sizes the benchmarks run), the copies, descriptors and boxes.
TEST(Mapping25, EverythingButTheDealingIsStep18s) {
  ASSERT_EQ(step25::kConfigCount, step18::kConfigCount);
  for (int i = 0; i < step25::kConfigCount; ++i) {
    const Config& c = step25::kConfigs[i];
    EXPECT_TRUE(same(step18::kConfigs[i], c)) << i;
    EXPECT_STREQ(step25::config_rule(c), "");
    EXPECT_EQ(step25::shared_bytes(c), step18::shared_bytes(step18::kConfigs[i]));
    EXPECT_EQ(step25::config_from(step25::to_params(c)), c);
    for (const Layout layout : kLayouts)
      for (const GemmShape& s : {GemmShape{4096, 4096, 4096}, GemmShape{1000, 1000, 1000}, GemmShape{4088, 4104, 136}})
        for (const bool is_a : {true, false}) {
          const step25::TmaOperand op = is_a ? step25::a_operand(s, layout, c) : step25::b_operand(s, layout, c);
          const step18::TmaOperand before = is_a ? step18::a_operand(s, layout, step18::kConfigs[i])
                                                 : step18::b_operand(s, layout, step18::kConfigs[i]);
          ASSERT_EQ(op.k_major, before.k_major);
          ASSERT_EQ(op.box_outer, before.box_outer);
          ASSERT_EQ(op.boxes, before.boxes);
          ASSERT_EQ(step25::descriptor_strides(op).leading_bytes, step18::descriptor_strides(before).leading_bytes);
          ASSERT_EQ(step25::descriptor_strides(op).stride_bytes, step18::descriptor_strides(before).stride_bytes);
          for (int kk = 0; kk < c.bk / step25::kWgmmaK; ++kk)
            ASSERT_EQ(step25::operand_offset(op, 1, kk), step18::operand_offset(before, 1, kk));
          for (int mn = 0; mn < (is_a ? c.bm : c.bn); mn += 7)
            for (int k = 0; k < c.bk; k += 5) ASSERT_EQ(step25::tile_byte(op, mn, k), step18::tile_byte(before, mn, k));
        }
  }
  // The tile by shape is step 18's rule over this step's grid_time: the same choice wherever pairing
  // shortens no tile's grid.
  int compared = 0;
  for (const Layout layout : kLayouts)
    for (const int sms : {132, 114, 16, 2})
      for (int m = 1; m <= 20000; m += 997)
        for (int n = 1; n <= 12000; n += 1231) {
          const GemmShape s{m, n, 64};
          bool same_times = true;
          for (int i = 0; i < step25::kConfigCount; ++i)
            same_times = same_times && step25::counted_time(s, step25::kConfigs[i], sms) ==
                                           step18::counted_time(s, step18::kConfigs[i], sms);
          if (!same_times) continue;
          ++compared;
          EXPECT_TRUE(same(step18::config_for_shape(s, layout, sms), step25::config_for_shape(s, layout, sms)))
              << m << "x" << n << " on " << sms << " SMs";
        }
  EXPECT_GT(compared, 1000);
  for (const GemmShape& s : {GemmShape{1536, 1536, 1536}, GemmShape{3072, 3072, 3072}, GemmShape{4088, 4104, 4096},
                             GemmShape{1024, 1024, 8192}, GemmShape{512, 4096, 4096}, GemmShape{8192, 8192, 8192}})
    for (const Layout layout : kLayouts)
      EXPECT_TRUE(same(step18::config_for_shape(s, layout, 132), step25::config_for_shape(s, layout, 132))) << s.m << "x" << s.n;
}

TEST(Mapping25, AccumulatorsCoverEachConsumerTileOnce) {
  for (const Config& c : step25::kConfigs) ht::expect_accumulators_cover_64_by(c.bn, step25::accumulator_row, step25::accumulator_col);
}

TEST(Mapping25, StagingIsConflictFreeAndComplete) { ht::expect_staging_conflict_free_and_complete<Step25>(); }

TEST(Mapping25, StagingHalvesTileTheBuffers) { ht::expect_staging_halves_tile_the_buffers<Step25>(); }

// The trace the viewer and the access model use, over whole launches with narrow units in pairs
// (hopper_checks.hpp): the staging writes, and C's updates once each.
TEST(Mapping25, TraceStagesEveryFloatAndUpdatesCOnce) {
  ht::expect_trace_stages_every_float_and_updates_c_once<Step25>({{GemmShape{3 * 128 + 8, 2 * 256 + 8, 64}, Layout::nn},
                                                                  {GemmShape{136, 100, 64}, Layout::nt},
                                                                  {GemmShape{130 * 128, 264, 64}, Layout::tn}});
}

TEST(Mapping25, TraceCountsForTheTmaPath) { ht::expect_tma_path_counts<Step25>(); }

// The viewer's timeline follows the kernel's loop (as the kernel writes it, with the mapping's
// first_unit and next_unit): every block takes the units of its cluster's places, and each k-tile's stage and barrier parities are the kernel's
// running counters (PipelineState), running on from tile to tile, a pair's second tile included.
TEST(Mapping25, TimelineFollowsTheKernelsLoops) {
  gemm::pipeline_testing::expect_persistent_pipeline_as_the_kernel<step25::PipelineState>(
      "25_narrow_pairs", gemm::pipeline_testing::ClusterWalk<Config>(cluster_units),
      std::vector<Config>(std::begin(step25::kConfigs), std::end(step25::kConfigs)),
      {GemmShape{264, 520, 72}, GemmShape{1000, 1000, 1024}, GemmShape{520, 4104, 5120}, GemmShape{64 * 128, 264, 72}},
      {4, 16, 132});
}
