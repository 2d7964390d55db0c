// The timeline's model (viewer/timeline_model.hpp) against the steps' own functions: the rounds a
// persistent grid takes (every tile once, as the kernel's loop over units deals them, in as many
// rounds as the step's persistent_clusters and grid_time say; with stream-K, the pieces of the split
// units after the whole rounds), the stage and mbarrier parity of every
// k-tile (as the kernels' running counters give them), the k-tiles in flight (never more than
// STAGES), and what the walk finds wrong in a pipeline that is broken on purpose. No graphics.
#include <gtest/gtest.h>

#include <algorithm>
#include <functional>
#include <map>
#include <set>
#include <type_traits>

#include "declared_steps.hpp"
#include "timeline_model.hpp"

namespace gv = gemm::viewer;
using gemm::GemmShape;
using gemm::TraceProblem;

namespace {

const std::vector<gemm::TracedProgram>& programs() {
  static const std::vector<gemm::TracedProgram> list = gemm::traced_programs();
  return list;
}
const gemm::TracedProgram& program(const std::string& step) {
  for (const auto& p : programs())
    if (p.step == step) return p;
  throw std::runtime_error("no traced program " + step);
}
TraceProblem problem_for(const gemm::TracedProgram& p, const GemmShape& shape, int sms,
                         const std::map<std::string, int>& params) {
  TraceProblem problem;
  problem.shape = shape;
  problem.sms = sms;
  problem.layout = p.layouts.front();
  problem.params = params;
  return gv::with_defaults(p, problem);
}

// The persistent steps' own functions, each called by name (for_each_persistent_step names them; not
// through the registry's templates).
struct PersistentFns {
  std::function<std::pair<int, int>(int unit, int rank, const TraceProblem&)> tile_at;
  std::function<int(const TraceProblem&)> clusters, units, tiles_m, tiles_n, cluster;
  std::function<int(const TraceProblem&)> grid_time;  // empty: the step has none (rounds)
  // The units cluster q takes, in the kernel's order (step 25's places); empty: q, q + clusters, ...
  std::function<std::vector<int>(const TraceProblem&, int q, int clusters)> walk;
};
template <typename Config, typename ConfigFrom, typename TileAt, typename Clusters, typename Units, typename TilesM,
          typename TilesN>
PersistentFns fns(ConfigFrom config_from, TileAt tile_at, Clusters clusters, Units units, TilesM tiles_m, TilesN tiles_n) {
  PersistentFns f;
  auto sms = [](const TraceProblem& p) { return p.sms; };
  f.tile_at = [=](int u, int rank, const TraceProblem& p) {
    const auto t = tile_at(u, rank, p.shape, config_from(p.params));
    return std::make_pair(t.m, t.n);
  };
  f.clusters = [=](const TraceProblem& p) { return clusters(p.shape, config_from(p.params), sms(p)); };
  f.units = [=](const TraceProblem& p) { return units(p.shape, config_from(p.params)); };
  f.tiles_m = [=](const TraceProblem& p) { return tiles_m(p.shape, config_from(p.params)); };
  f.tiles_n = [=](const TraceProblem& p) { return tiles_n(p.shape, config_from(p.params)); };
  f.cluster = [=](const TraceProblem& p) { return Config(config_from(p.params)).cluster; };
  return f;
}
// Every persistent step's functions, from its declaration (build/generated/declared_steps.hpp: the
// steps whose mapping has persistent_clusters), so that a new persistent step is checked here
// without an edit.
std::map<std::string, PersistentFns> persistent_fns() {
  std::map<std::string, PersistentFns> out;
  gemm::declared::for_each_persistent_step([&](const char* step, auto config_from, auto tile_at, auto clusters,
                                               auto units, auto tiles_m, auto tiles_n, auto grid_time, auto walk) {
    using Config = decltype(config_from(gemm::Params{}));
    PersistentFns& f = out[step] = fns<Config>(config_from, tile_at, clusters, units, tiles_m, tiles_n);
    if constexpr (!std::is_same_v<decltype(grid_time), std::nullptr_t>) {
      f.grid_time = [=](const TraceProblem& p) { return grid_time(p.shape, config_from(p.params), p.sms); };
    }
    if constexpr (!std::is_same_v<decltype(walk), std::nullptr_t>) {
      f.walk = [=](const TraceProblem& p, int q, int count) { return walk(p.shape, config_from(p.params), q, count); };
    }
  });
  return out;
}

const std::vector<GemmShape> kShapes = {{4096, 4096, 4096}, {4088, 4104, 4096}, {8192, 8192, 8192}, {3072, 3072, 3072},
                                        {1000, 1000, 1024}, {128, 256, 128},    {384, 8, 128},
                                        {1024, 1024, 8192}};  // deep, small M x N: step 23 splits it
const int kSmCounts[] = {132, 114, 16, 3};

}  // namespace

TEST(TimelineModel, TheTimelineDrawsThePipelinedAndPersistentSteps) {
  // Which steps have a timeline follows from their declarations, not from the registry it checks
  // (build/generated/declared_steps.hpp, which CMake reads from each step's mapping.hpp): a step
  // whose table of tunables has STAGES runs its k-loop through stages of shared memory, and the
  // timeline draws its pipeline; one whose mapping has persistent_clusters deals its tiles to a
  // persistent grid, and the timeline draws its rounds. So a pipelined step whose registration
  // (steps/NN_name/traced.hpp) loses its pipeline or its plan fails here, as does a registration of
  // either for a step that has no such loop or grid.
  std::set<std::string> pipelined, persistent, declared_pipelined, declared_persistent;
  for (const auto& p : programs()) {
    if (p.pipeline) pipelined.insert(p.step);
    if (p.persistent) persistent.insert(p.step);
  }
  for (const gemm::declared::Step& step : gemm::declared::kSteps) {
    if (step.pipelined) declared_pipelined.insert(step.name);
    if (step.persistent) declared_persistent.insert(step.name);
  }
  EXPECT_EQ(pipelined, declared_pipelined);
  EXPECT_EQ(persistent, declared_persistent);
  // The declarations read what the registry's tunables say: STAGES is a tunable of each pipelined
  // program; and the steps this file checks by name are among them (the reading finds them).
  for (const auto& p : programs()) EXPECT_EQ(p.default_params.count("STAGES") == 1, pipelined.count(p.step) == 1) << p.step;
  for (const char* step : {"10_cp_async_pipeline", "16_warp_specialized", "17_persistent_clusters", "22_tile_width"})
    EXPECT_EQ(declared_pipelined.count(step), 1u) << step;
  for (const std::string& step : declared_persistent) EXPECT_EQ(declared_pipelined.count(step), 1u) << step;
  EXPECT_EQ(declared_persistent.count("17_persistent_clusters"), 1u);
  EXPECT_EQ(persistent_fns().size(), declared_persistent.size());
  const gv::TimelineView none = gv::timeline_view(program("09_warptiling"), problem_for(program("09_warptiling"),
                                                                                        {64, 64, 64}, 132, {}), 0, 4);
  EXPECT_FALSE(none.pipelined);
  EXPECT_NE(none.why_not.find("10, 11, 13"), std::string::npos) << none.why_not;
}

// A stream-K plan (step 23, where schedule_of splits): the grid the program launches; the units of the
// whole rounds dealt as the kernel's loop deals them (cluster q: units q, q + clusters, ...); then
// the split units' pieces, which cover each split unit's k-tiles once, in runs that meet, the two
// blocks of a cluster alike; every tile of C stored once.
void expect_stream_k_plan(const gemm::PersistentPlan& plan, const PersistentFns& f, const TraceProblem& problem,
                          unsigned launched_blocks) {
  const int units = f.units(problem), cluster = f.cluster(problem), tiles_m = f.tiles_m(problem),
            tiles_n = f.tiles_n(problem);
  ASSERT_EQ(unsigned(plan.blocks), launched_blocks) << "the launch the traces plan";
  ASSERT_LE(plan.blocks, problem.sms);
  ASSERT_EQ(plan.cluster, cluster);
  ASSERT_EQ(plan.units, units);
  const int whole = units - plan.split_units, whole_rounds = whole / plan.clusters;
  ASSERT_EQ(whole % plan.clusters, 0) << "the whole units fill their rounds";
  std::map<int, std::vector<std::pair<int, int>>> runs;  // split unit -> its pieces' k-tile ranges
  std::vector<int> stored(size_t(tiles_m) * size_t(tiles_n), 0);
  const std::vector<gv::RoundCell> cells = gv::round_cells(plan);
  for (int block = 0; block < plan.blocks; ++block) {
    const int q = block / cluster, rank = block % cluster;
    const auto& tiles = plan.block_tiles[size_t(block)];
    ASSERT_GE(int(tiles.size()), whole_rounds);
    ASSERT_LE(int(tiles.size()), whole_rounds + 2) << "a run holds one or two pieces";
    for (int round = 0; round < int(tiles.size()); ++round) {
      const gemm::BlockTile& t = tiles[size_t(round)];
      ASSERT_TRUE(cells[size_t(block) * size_t(plan.rounds) + size_t(round)].taken);
      ASSERT_EQ(t.round, round);
      if (round < whole_rounds) {
        ASSERT_EQ(t.unit, q + round * plan.clusters);
        ASSERT_EQ(t.kt_end, -1);
        ASSERT_TRUE(t.stores);
      } else {
        ASSERT_GE(t.unit, whole);
        ASSERT_LT(t.kt_begin, t.kt_end);
        if (rank == 0) runs[t.unit].push_back({t.kt_begin, t.kt_end});
      }
      const auto [m, n] = f.tile_at(t.unit, rank, problem);
      ASSERT_EQ(t.m, m);
      ASSERT_EQ(t.n, n);
      ASSERT_EQ(t.outside, m >= tiles_m);
      if (cluster > 1) {  // the cluster's blocks take the same work
        const gemm::BlockTile& first = plan.block_tiles[size_t(q * cluster)][size_t(round)];
        ASSERT_EQ(t.unit, first.unit);
        ASSERT_EQ(t.kt_begin, first.kt_begin);
        ASSERT_EQ(t.kt_end, first.kt_end);
      }
      if (t.stores && !t.outside) ++stored[size_t(m) * size_t(tiles_n) + size_t(n)];
    }
  }
  ASSERT_EQ(int(runs.size()), plan.split_units);
  int k_tiles = -1;
  for (auto& [unit, pieces] : runs) {
    std::sort(pieces.begin(), pieces.end());
    ASSERT_EQ(pieces.front().first, 0) << "unit " << unit;
    for (size_t i = 1; i < pieces.size(); ++i) ASSERT_EQ(pieces[i].first, pieces[i - 1].second) << "unit " << unit;
    if (k_tiles < 0) k_tiles = pieces.back().second;
    ASSERT_EQ(pieces.back().second, k_tiles) << "unit " << unit;
  }
  for (int count : stored) ASSERT_EQ(count, 1) << "every tile of C stored once";
}

TEST(TimelineModel, RoundsTakeEveryTileOnceAsTheKernelDealsThem) {
  // For every persistent step, configuration, shape and SM count: the kernel's loop (cluster q takes
  // units q, q + clusters, ..., or the step's own walk, step 25's places; its block of rank r the
  // unit's tile tile_at(u, r)), written here as the kernel writes it, gives each block's tiles round by round; every tile of C is taken once;
  // the rounds and the grid's time are the step's persistent_clusters and grid_time.
  int plans = 0, stream_k_plans = 0;
  for (const auto& [step, f] : persistent_fns()) {
    const gemm::TracedProgram& p = program(step);
    for (const auto& config : p.configs)
      for (const GemmShape& shape : kShapes)
        for (int sms : kSmCounts) {
          SCOPED_TRACE(step + " " + gv::params_text(config) + gv::shape_text(shape) + " on " + std::to_string(sms));
          const TraceProblem problem = problem_for(p, shape, sms, config);
          const gemm::PersistentPlan plan = p.persistent(problem);
          if (plan.split_units > 0) {  // stream-K (step 23): whole rounds, then pieces
            expect_stream_k_plan(plan, f, problem, p.launch(problem).grid.x);
            ++plans, ++stream_k_plans;
            continue;
          }
          const int clusters = f.clusters(problem), units = f.units(problem), cluster = f.cluster(problem);
          const int tiles_m = f.tiles_m(problem), tiles_n = f.tiles_n(problem);
          ASSERT_EQ(plan.clusters, clusters);
          ASSERT_EQ(plan.cluster, cluster);
          ASSERT_EQ(plan.blocks, clusters * cluster);
          ASSERT_EQ(plan.blocks, p.launch(problem).grid.x) << "the launch the traces plan";
          ASSERT_LE(plan.blocks, sms);
          ASSERT_EQ(plan.units, units);
          // The kernel's loop: cluster q takes units q, q + clusters, ..., or the step's own walk.
          auto cluster_units = [&](int q) {
            if (f.walk) return f.walk(problem, q, clusters);
            std::vector<int> dealt;
            for (int u = q; u < units; u += clusters) dealt.push_back(u);
            return dealt;
          };
          int most = 0;
          for (int q = 0; q < clusters; ++q) most = std::max(most, int(cluster_units(q).size()));
          ASSERT_EQ(plan.rounds, most);
          if (!f.walk) {
            ASSERT_EQ(plan.rounds, (units + clusters - 1) / clusters);
            ASSERT_EQ(plan.places, units);
          }
          ASSERT_EQ(plan.places, units - plan.paired_units / 2) << "a place: a unit, or a pair of narrow ones";
          ASSERT_EQ(plan.grid_time, f.grid_time ? f.grid_time(problem) : plan.rounds);
          const int place_rounds = (plan.places + clusters - 1) / clusters;
          ASSERT_EQ(gv::last_round_clusters(plan), plan.places - (place_rounds - 1) * clusters);
          std::vector<int> taken(size_t(tiles_m) * size_t(tiles_n), 0);
          const std::vector<gv::RoundCell> cells = gv::round_cells(plan);
          ASSERT_EQ(cells.size(), size_t(plan.blocks) * size_t(plan.rounds));
          for (int block = 0; block < plan.blocks; ++block) {
            const int q = block / cluster, rank = block % cluster;
            int round = 0;
            for (const int u : cluster_units(q)) {
              const auto [m, n] = f.tile_at(u, rank, problem);
              const gv::RoundCell& cell = cells[size_t(block) * size_t(plan.rounds) + size_t(round)];
              ASSERT_TRUE(cell.taken) << "block " << block << " round " << round;
              ASSERT_EQ(cell.tile.unit, u);
              ASSERT_EQ(cell.tile.m, m);
              ASSERT_EQ(cell.tile.n, n);
              ASSERT_EQ(cell.tile.outside, m >= tiles_m);
              if (m < tiles_m) ++taken[size_t(m) * size_t(tiles_n) + size_t(n)];
              ++round;
            }
            for (; round < plan.rounds; ++round)
              ASSERT_FALSE(cells[size_t(block) * size_t(plan.rounds) + size_t(round)].taken) << "block " << block;
          }
          for (int count : taken) ASSERT_EQ(count, 1) << "every tile of C once";
          // The C map agrees: every tile has its round and block.
          for (const gv::TileRound& t : gv::tile_rounds(plan)) ASSERT_GE(t.round, 0);
          ++plans;
        }
  }
  EXPECT_GT(plans, 6 * 4 * 7);
  EXPECT_GT(stream_k_plans, 0) << "some shape is split, so the stream-K plan is checked";
}

TEST(TimelineModel, StagesAndParitiesAreTheKernelsCounters) {
  // The kernels count stages with running counters (cp.async steps: read_stage, 0 .. STAGES - 1 and
  // back; TMA steps: ++stage, at STAGES back to 0 and the phase flips, on from tile to tile): written
  // here as the kernels write them, they must give the stage and the parities the timeline walks with,
  // and the walk must read k-tile j from that stage, every k-tile once and in order, with no more
  // than STAGES k-tiles in the stages at once and nothing found wrong.
  // (1024 x 1024 x 8192: step 23 splits it, and a block's pieces multiply fewer k-tiles than a unit.)
  const GemmShape shapes[] = {{256, 256, 512}, {200, 136, 72}, {1024, 1024, 1024}, {4096, 4096, 512}, {1024, 1024, 8192}};
  int walked = 0;
  for (const auto& p : programs()) {
    if (!p.pipeline) continue;
    for (const auto& config : p.configs)
      for (const GemmShape& given : shapes)
        for (int sms : {132, 16})
          for (double latency : {0.5, 1.0, 3.0}) {
            const GemmShape shape = given;  // the schedule functions take any shape
            SCOPED_TRACE(p.step + " " + gv::params_text(config) + gv::shape_text(shape) + " sms " + std::to_string(sms) +
                         " latency " + std::to_string(latency));
            const TraceProblem problem = problem_for(p, shape, sms, config);
            const int block = p.persistent ? 1 : 0;
            const gv::TimelineView v = gv::timeline_view(p, problem, block, 2, latency);
            ASSERT_TRUE(v.pipelined);
            const gemm::PipelineSpec& s = v.spec;
            const gv::Timeline& t = v.timeline;
            ASSERT_EQ(s.stages, config.at("STAGES"));
            EXPECT_TRUE(t.hazards.empty()) << t.hazards.front();
            EXPECT_LE(t.max_in_flight, s.stages);
            EXPECT_GE(t.max_in_flight, std::min(s.stages - 1, s.k_tiles)) << "the pipeline fills";
            const int count = gemm::block_k_tiles(s.tiles, s.k_tiles);
            ASSERT_EQ(int(t.multiplied.size()), count);
            int stage = 0, phase = 0;
            for (int j = 0; j < count; ++j) {
              ASSERT_EQ(t.multiplied[size_t(j)], j);
              ASSERT_EQ(s.stage[size_t(j)], stage) << "k-tile " << j;
              ASSERT_EQ(t.read_from_stage[size_t(j)], stage) << "k-tile " << j;
              if (!s.full_parity.empty()) {
                ASSERT_EQ(s.full_parity[size_t(j)], phase) << "k-tile " << j;
                if (!s.empty_parity.empty()) {
                  ASSERT_EQ(s.empty_parity[size_t(j)], phase ^ 1) << "k-tile " << j;
                }
              }
              if (++stage == s.stages) stage = 0, phase ^= 1;
            }
            // cp.async: iteration kt copies k-tile kt + STAGES - 1 into the stage k-tile kt - 1 used.
            for (int kt = 0; kt < int(s.copied_in.size()); ++kt) ASSERT_EQ(s.copied_in[size_t(kt)], kt + s.stages - 1);
            ++walked;
          }
  }
  EXPECT_GT(walked, 100);
}

TEST(TimelineModel, StreamKPiecesMultiplyTheirOwnKTiles) {
  // Step 23 at a shape it splits: every block's walk multiplies, tile after tile, the k-tiles its plan
  // gives it (a piece's kt_begin .. kt_end - 1, a whole unit's all), ends a promotion interval at each
  // piece's last k-tile, and finds nothing wrong. The 128 x 128 tile, which it splits there (tiles
  // wider than kSplitMaxCols are never split).
  const gemm::TracedProgram& p = program("23_stream_k");
  const TraceProblem problem = problem_for(p, {1024, 1024, 8192}, 132, p.configs[step23::kSquareTileConfig]);
  const gv::TimelineView first = gv::timeline_view(p, problem, 0, 2);
  ASSERT_TRUE(first.persistent);
  ASSERT_GT(first.plan.split_units, 0) << "the shape is split";
  int pieces = 0;
  for (int block = 0; block < first.plan.blocks; ++block) {
    SCOPED_TRACE("block " + std::to_string(block));
    const gv::TimelineView v = gv::timeline_view(p, problem, block, 2);
    const gv::Timeline& t = v.timeline;
    EXPECT_TRUE(t.hazards.empty()) << t.hazards.front();
    size_t column = 0;
    for (size_t tile = 0; tile < v.spec.tiles.size(); ++tile) {
      const gemm::BlockTile& bt = v.spec.tiles[tile];
      const int begin = bt.kt_end >= 0 ? bt.kt_begin : 0, end = bt.kt_end >= 0 ? bt.kt_end : v.spec.k_tiles;
      pieces += bt.kt_end >= 0 && end - begin < v.spec.k_tiles;
      for (int kt = begin; kt < end; ++kt, ++column) {
        ASSERT_LT(column, t.columns.size());
        EXPECT_EQ(t.columns[column].tile, int(tile));
        EXPECT_EQ(t.columns[column].k_tile, kt);
      }
      // The promotion bar after the tile's last k-tile (PROMOTE = 1 in the default: after every one).
      const int last_j = t.first_j[tile + 1] - 1;
      bool promoted = false;
      for (const gv::TimelineBar& bar : t.bars) promoted |= bar.kind == gv::BarKind::promotion && bar.j == last_j;
      EXPECT_TRUE(promoted) << "tile " << tile;
    }
    EXPECT_EQ(column, t.columns.size());
  }
  EXPECT_GT(pieces, 0) << "some block multiplies a piece shorter than a unit";
}

TEST(TimelineModel, PromotionAndTheEpilogueUnderTheNextTileAreTheSteps) {
  // FP8: an interval ends where the kernel's in_interval count reaches PROMOTE or the tile ends; step
  // 20's tile goes under the next tile's first products exactly where step20::stores_under_next_tile
  // says, and then its epilogue bar overlaps that k-tile's products.
  const gemm::TracedProgram& p = program("20_overlapped_epilogue");
  for (const auto& config : p.configs)
    for (int out_bytes : {2, 4})
      for (float beta : {0.0f, 0.5f}) {
        TraceProblem problem = problem_for(p, {2048, 2048, 1024}, 132, config);
        problem.beta = beta;
        SCOPED_TRACE(gv::params_text(config) + " out " + std::to_string(out_bytes) + " beta " + std::to_string(beta));
        const gv::TimelineView v = gv::timeline_view(p, problem, 0, out_bytes);
        const step20::Config c = step20::config_from(problem.params);
        ASSERT_EQ(v.spec.epilogue_under_next_tile, step20::stores_under_next_tile(c, problem.shape, beta, out_bytes));
        int in_interval = 0;
        for (int kt = 0; kt < v.spec.k_tiles; ++kt) {
          const bool ends = c.promote > 0 && (++in_interval == c.promote || kt == v.spec.k_tiles - 1);
          if (ends) in_interval = 0;
          ASSERT_EQ(v.spec.promotion_ends[size_t(kt)], ends) << "k-tile " << kt;
        }
        ASSERT_GE(v.timeline.tile_starts.size(), 2u);
        bool overlapped = false;
        for (const gv::TimelineBar& bar : v.timeline.bars)
          if (bar.kind == gv::BarKind::epilogue && bar.tile == 0)
            overlapped = bar.from < v.timeline.tile_starts[1] + 1.0 && bar.to > v.timeline.tile_starts[1];
        EXPECT_EQ(overlapped, v.spec.epilogue_under_next_tile);
      }
}

TEST(TimelineModel, Step24PromotesUnderTheNextKTile) {
  // Step 24's 64 x 128 tile (one consumer, the tile it takes by shape at 1024 x 1024 x 8192): each
  // k-tile's promotion but the tile's last runs while the next k-tile's products do, as
  // multiply_tile_overlapped orders them; the tiles of two consumers (4096^3) promote as step 23's.
  // With the 64 x 128 tile by name at 2056 x 4104 x 512 and 2056 x 4104 x 384 (several tiles a
  // block, 4 and 3 k-tiles: an even and an odd count) the order holds from tile to tile.
  const gemm::TracedProgram& p = program("24_overlapped_promotion");
  const std::map<std::string, int>& short_tile = p.configs[step24::kShortTileConfig];
  struct Case {
    GemmShape shape;
    std::map<std::string, int> params;  // empty: the tile by shape
  };
  for (const Case& e : {Case{{1024, 1024, 8192}, {}}, Case{{2056, 4104, 512}, short_tile},
                        Case{{2056, 4104, 384}, short_tile}, Case{{4096, 4096, 4096}, {}}}) {
    const GemmShape& shape = e.shape;
    SCOPED_TRACE(std::to_string(shape.m) + "x" + std::to_string(shape.n) + "x" + std::to_string(shape.k));
    const TraceProblem problem = problem_for(p, shape, 132, e.params);
    const step24::Config c = step24::config_from(problem.params);
    const gv::TimelineView v = gv::timeline_view(p, problem, 0, 2);
    ASSERT_EQ(v.spec.promotion_under_next_k_tile, step24::overlapped_promotion(c));
    EXPECT_TRUE(v.timeline.hazards.empty()) << v.timeline.hazards.front();
    std::map<int, const gv::TimelineBar*> products, promotions;  // by j
    for (const gv::TimelineBar& bar : v.timeline.bars) {
      if (bar.kind == gv::BarKind::products) products[bar.j] = &bar;
      if (bar.kind == gv::BarKind::promotion) promotions[bar.j] = &bar;
    }
    ASSERT_EQ(promotions.size(), products.size()) << "one promotion a k-tile (PROMOTE = 1)";
    if (!e.params.empty()) EXPECT_GE(v.timeline.first_j.size(), 3u) << "several tiles in the block";
    for (size_t tile = 0; tile + 1 < v.timeline.first_j.size(); ++tile)
      for (int j = v.timeline.first_j[tile]; j + 1 < v.timeline.first_j[tile + 1]; ++j) {
        const gv::TimelineBar& next = *products.at(j + 1);
        const bool under = promotions.at(j)->from >= next.from && promotions.at(j)->from < next.to;
        EXPECT_EQ(under, v.spec.promotion_under_next_k_tile) << "k-tile j = " << j;
      }
  }
  EXPECT_EQ(step24::config_for_shape({1024, 1024, 8192}, 132).bm, step24::kWgmmaM) << "one consumer there";
}

TEST(TimelineModel, Step22sWidthIsTheOneItsRoundsChoose) {
  // The configurations compared at 4096^3 on 132 SMs: the one marked chosen is config_for_shape's,
  // each with the step's own counted_time.
  const gemm::TracedProgram& p = program("22_tile_width");
  const GemmShape shape{4096, 4096, 4096};
  const TraceProblem problem = problem_for(p, shape, 132, {});
  const std::vector<gv::PlanChoice> choices = gv::plan_choices(p, problem);
  ASSERT_EQ(choices.size(), p.configs.size());
  const step22::Config chosen = step22::config_for_shape(shape, 132);
  int marked = 0;
  for (const gv::PlanChoice& choice : choices) {
    const step22::Config c = step22::config_from(choice.params);
    EXPECT_EQ(choice.plan.counted_time, step22::counted_time(shape, c, 132));
    EXPECT_EQ(choice.chosen, c == chosen);
    marked += choice.chosen;
  }
  EXPECT_EQ(marked, 1);
  EXPECT_EQ(chosen.bn, step22::kFittedTileCols) << "at 4096^3 the 176-column tile (the page's claim)";
}

TEST(TimelineModel, ABrokenPipelineIsFound) {
  // The walk checks what the waits guarantee, so a schedule broken on purpose shows up as a hazard:
  // a parity flipped, a stage off by one, a copy issued too far ahead, a wait that leaves too many
  // groups in flight.
  const gemm::TracedProgram& p16 = program("16_warp_specialized");
  const TraceProblem problem16 = problem_for(p16, {256, 256, 1024}, 132, {});
  const gemm::PipelineSpec good16 = p16.pipeline(problem16, {0, 0, 0}, 4);
  ASSERT_TRUE(gv::timeline(good16).hazards.empty());
  gemm::PipelineSpec flipped = good16;
  for (int& parity : flipped.full_parity) parity ^= 1;
  EXPECT_FALSE(gv::timeline(flipped).hazards.empty()) << "consumers waiting on the wrong parity";
  gemm::PipelineSpec producer_flipped = good16;
  for (int& parity : producer_flipped.empty_parity) parity ^= 1;
  EXPECT_FALSE(gv::timeline(producer_flipped).hazards.empty()) << "the producer waiting on the wrong parity";
  gemm::PipelineSpec shifted = good16;
  for (int& stage : shifted.stage) stage = (stage + 1) % (shifted.stages - 1);
  EXPECT_FALSE(gv::timeline(shifted).hazards.empty()) << "STAGES - 1 stages used as STAGES";

  const gemm::TracedProgram& p10 = program("10_cp_async_pipeline");
  const TraceProblem problem10 = problem_for(p10, {256, 256, 256}, 132, {});
  const gemm::PipelineSpec good10 = p10.pipeline(problem10, {0, 0, 0}, 4);
  ASSERT_TRUE(gv::timeline(good10).hazards.empty());
  gemm::PipelineSpec ahead = good10;
  for (int& x : ahead.copied_in) x += 2;
  for (int j = int(ahead.stage.size()); j <= ahead.copied_in.back(); ++j) ahead.stage.push_back(j % ahead.stages);
  EXPECT_FALSE(gv::timeline(ahead).hazards.empty()) << "STAGES + 1 k-tiles in flight: k-tile 0 overwritten unread";
  gemm::PipelineSpec loose = good10;
  ++loose.groups_in_flight;
  EXPECT_FALSE(gv::timeline(loose).hazards.empty()) << "a wait that leaves the next k-tile in flight";
}

TEST(TimelineModel, HoverNamesTheEvent) {
  // A k-tile's stage bar names its stage, its barrier phase and the parity the consumers wait on.
  const gemm::TracedProgram& p = program("17_persistent_clusters");
  const TraceProblem problem = problem_for(p, {1024, 1024, 512}, 132, {});
  const gv::TimelineView v = gv::timeline_view(p, problem, 0, 4);
  const step17::Config c = step17::config_from(problem.params);
  const int j = 5, stage = step17::stage_of(j, c);
  bool found = false;
  for (const gv::TimelineBar& bar : v.timeline.bars)
    if (bar.j == j && bar.kind == gv::BarKind::copying && bar.row == stage) {
      found = true;
      EXPECT_NE(bar.hover.find("stage " + std::to_string(stage)), std::string::npos) << bar.hover;
      EXPECT_NE(bar.hover.find("parity " + std::to_string(step17::full_parity(j, c))), std::string::npos) << bar.hover;
    }
  EXPECT_TRUE(found);
}
