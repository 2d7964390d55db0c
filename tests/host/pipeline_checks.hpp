// Checks shared by the pipelined steps' host tests (their test_mapping_NN.cpp): the viewer's
// timeline (steps/pipeline_schedules.hpp, taken from the viewer's own registry, traced_steps.hpp)
// held to the kernel's loops, walked here as the kernel walks them: the stages' running indices
// (next_stage: the cp.async steps), the pipeline's running counters (the step's PipelineState,
// advanced once a k-tile and running on from one tile to the next), the persistent grid's loop over
// units (cluster_of, next_unit) and the FP8 steps' promotion count (in_interval, counted by
// promotion_ends, 0 again where an interval ends). The viewer's functions walk the same state from
// the block's first k-tile; these checks fail where the two part: a walk that counts from the wrong
// place, a spec numbered otherwise than the kernel's loop, a tile taken out of its turn. The closed
// forms (stage j % STAGES, parity (j / STAGES) % 2, an interval's end every PROMOTE k-tiles and at
// the tile's last) check the state's steps themselves.
#pragma once

#include <gtest/gtest.h>

#include <functional>
#include <string>
#include <vector>

#include "traced_steps.hpp"

namespace gemm::pipeline_testing {

// The step's entry in the viewer's registry (null, and a failure, where it has no timeline).
inline const TracedProgram* program(const std::string& step) {
  static const std::vector<TracedProgram> programs = traced_programs();
  for (const TracedProgram& p : programs)
    if (p.step == step && p.pipeline) return &p;
  ADD_FAILURE() << step << " has no pipeline in traced_steps.hpp";
  return nullptr;
}

template <typename Config>
TraceProblem problem_for(const GemmShape& shape, const Config& c, int sms = 0) {
  TraceProblem p;
  p.shape = shape;
  p.params = to_params(c);  // the step's, found through its Config
  p.sms = sms;
  return p;
}

inline std::string where(const GemmShape& s, int block, int j) {
  return std::to_string(s.m) + "x" + std::to_string(s.n) + "x" + std::to_string(s.k) + " block " +
         std::to_string(block) + " j " + std::to_string(j);
}

// What the spec says of the block's j-th k-tile, against the kernel's counters at it (kEmpty: the
// producer's empty barriers too, the warp-specialized steps).
template <bool kEmpty, typename State, typename Config>
void expect_k_tile_as_the_kernel(const PipelineSpec& spec, int j, const State& state, const Config& c,
                                 const std::string& what) {
  ASSERT_LT(j, int(spec.stage.size())) << what;
  ASSERT_LT(j, int(spec.full_parity.size())) << what;
  EXPECT_EQ(spec.stage[size_t(j)], state.stage) << what;
  EXPECT_EQ(spec.full_parity[size_t(j)], int(state.phase)) << what;
  if constexpr (kEmpty) {
    ASSERT_LT(j, int(spec.empty_parity.size())) << what;
    EXPECT_EQ(spec.empty_parity[size_t(j)], int(state.empty_parity())) << what;
  }
  EXPECT_EQ(state.stage, j % c.stages) << what << ": the stages in turn";
  EXPECT_EQ(int(state.phase), (j / c.stages) % 2) << what << ": one phase a pass over the stages";
}

// The cp.async steps: the kernel's running stage indices (read_stage from stage 0, stepped by
// next_stage; the stage it refills, the one the k-tile before used, first the last stage), against
// the viewer's stage_of for every k-tile it counts: k-tile kt is read from its stage, and the k-tile
// iteration kt copies (k_tile_copied_in) lands in the stage the kernel refills.
template <typename Config>
void expect_cp_async_stages_as_the_kernel(const std::string& step, const std::vector<Config>& configs,
                                          const std::vector<GemmShape>& shapes) {
  const TracedProgram* traced = program(step);
  ASSERT_NE(traced, nullptr);
  for (const Config& c : configs)
    for (const GemmShape& s : shapes) {
      const PipelineSpec spec = traced->pipeline(problem_for(s, c), Dim3{0, 0, 0}, 4);
      ASSERT_GT(spec.k_tiles, 0);
      ASSERT_EQ(int(spec.copied_in.size()), spec.k_tiles);
      int read_stage = 0, refill_stage = c.stages - 1;  // the kernel's
      for (int kt = 0; kt < spec.k_tiles; ++kt) {
        const std::string what = where(s, 0, kt) + " stages " + std::to_string(c.stages);
        ASSERT_LT(kt, int(spec.stage.size())) << what;
        EXPECT_EQ(spec.stage[size_t(kt)], read_stage) << what;
        EXPECT_EQ(read_stage, kt % c.stages) << what << ": the stages in turn";
        const int copied = spec.copied_in[size_t(kt)];
        if (copied < int(spec.stage.size())) {
          EXPECT_EQ(spec.stage[size_t(copied)], refill_stage) << what;
        }
        refill_stage = read_stage;
        read_stage = next_stage(read_stage, c);
      }
    }
}

// A block of one tile (no persistent grid): its k-tiles in the kernel's loop.
template <bool kEmpty, typename State, typename Config>
void expect_one_tile_pipeline_as_the_kernel(const std::string& step, const std::vector<Config>& configs,
                                            const std::vector<GemmShape>& shapes) {
  const TracedProgram* traced = program(step);
  ASSERT_NE(traced, nullptr);
  for (const Config& c : configs)
    for (const GemmShape& s : shapes) {
      const PipelineSpec spec = traced->pipeline(problem_for(s, c), Dim3{0, 0, 0}, 4);
      ASSERT_GT(spec.k_tiles, 0);
      State state;  // the kernel's counters
      for (int kt = 0; kt < spec.k_tiles; ++kt) {
        expect_k_tile_as_the_kernel<kEmpty>(spec, kt, state, c, where(s, 0, kt));
        state.advance(c);
      }
    }
}

// The units cluster `cluster` of `clusters` takes, in the order of the kernel's loop over units.
template <typename Config>
using ClusterWalk = std::function<std::vector<int>(const GemmShape& s, const Config& c, int cluster, int clusters)>;

// Every block of a persistent grid on `sms` SMs: the tiles in the kernel's loop over units (`walk`:
// its cluster's units in turn), their k-tiles on one running count, and (clusters) the producer's
// STAGES last waits after them.
template <typename State, typename Config>
void expect_persistent_pipeline_as_the_kernel(const std::string& step, const ClusterWalk<Config>& walk,
                                              const std::vector<Config>& configs, const std::vector<GemmShape>& shapes,
                                              const std::vector<int>& sm_counts) {
  const TracedProgram* traced = program(step);
  ASSERT_NE(traced, nullptr);
  ASSERT_TRUE(bool(traced->persistent)) << step;
  for (const Config& c : configs)
    for (const GemmShape& s : shapes)
      for (const int sms : sm_counts) {
        const TraceProblem problem = problem_for(s, c, sms);
        const PersistentPlan plan = traced->persistent(problem);
        ASSERT_EQ(plan.clusters, plan.blocks / c.cluster);
        for (int block = 0; block < plan.blocks; ++block) {
          const PipelineSpec spec = traced->pipeline(problem, Dim3{block, 0, 0}, 4);
          State state;  // the kernel's counters: the producer's, and each consumer's alike
          int j = 0;
          size_t round = 0;
          for (const int u : walk(s, c, cluster_of(block, c), plan.clusters)) {
            ASSERT_LT(round, spec.tiles.size()) << where(s, block, j);
            const BlockTile& t = spec.tiles[round];
            EXPECT_EQ(t.unit, u) << where(s, block, j);
            EXPECT_EQ(t.round, int(round)) << where(s, block, j);
            const auto tile = tile_at(u, rank_of(block, c), s, c);
            EXPECT_EQ(t.m, tile.m) << where(s, block, j);
            EXPECT_EQ(t.n, tile.n) << where(s, block, j);
            for (int kt = 0; kt < spec.k_tiles; ++kt, ++j) {
              expect_k_tile_as_the_kernel<true>(spec, j, state, c, where(s, block, j));
              state.advance(c);
            }
            ++round;
          }
          EXPECT_EQ(round, spec.tiles.size()) << where(s, block, j);
          ASSERT_EQ(plan.block_tiles[size_t(block)].size(), spec.tiles.size()) << where(s, block, j);
          if (c.cluster > 1)
            for (int last = 0; last < c.stages; ++last, ++j) {
              expect_k_tile_as_the_kernel<true>(spec, j, state, c, where(s, block, j) + " (the producer's last waits)");
              state.advance(c);
            }
        }
      }
}

// The same, for a grid whose cluster q takes units q, next_unit(q), ... (the round robin of steps 17-24).
template <typename State, typename Config>
void expect_persistent_pipeline_as_the_kernel(const std::string& step, int (*next_unit)(int u, int clusters),
                                              const std::vector<Config>& configs, const std::vector<GemmShape>& shapes,
                                              const std::vector<int>& sm_counts) {
  const ClusterWalk<Config> walk = [next_unit](const GemmShape& s, const Config& c, int cluster, int clusters) {
    std::vector<int> taken;
    for (int u = cluster; u < units(s, c); u = next_unit(u, clusters)) taken.push_back(u);
    return taken;
  };
  expect_persistent_pipeline_as_the_kernel<State>(step, walk, configs, shapes, sm_counts);
}

template <typename Config>
void expect_promotion_as_the_kernel(const std::string& step, const Config& base, const std::vector<int>& promotes,
                                    const std::vector<int>& k_tile_counts) {
  const TracedProgram* traced = program(step);
  ASSERT_NE(traced, nullptr);
  for (const int promote : promotes)
    for (const int k_tiles : k_tile_counts) {
      Config c = base;
      c.promote = promote;
      const GemmShape s{256, 256, k_tiles * c.bk};
      const PipelineSpec spec = traced->pipeline(problem_for(s, c), Dim3{0, 0, 0}, 4);
      ASSERT_EQ(spec.k_tiles, k_tiles);
      ASSERT_EQ(int(spec.promotion_ends.size()), k_tiles);
      int in_interval = 0;  // the kernel's, from each tile's first k-tile
      for (int kt = 0; kt < k_tiles; ++kt) {
        const std::string what = "promote " + std::to_string(promote) + " k-tiles " + std::to_string(k_tiles) +
                                 " kt " + std::to_string(kt);
        if (promote > 0) {
          EXPECT_EQ(in_interval, kt % promote) << what << ": an interval opens where one ended";
        }
        const bool ends = promote > 0 && promotion_ends(in_interval, kt, k_tiles, c);
        EXPECT_EQ(bool(spec.promotion_ends[size_t(kt)]), ends) << what;
        EXPECT_EQ(ends, promote > 0 && ((kt + 1) % promote == 0 || kt == k_tiles - 1)) << what;
        if (ends) in_interval = 0;
      }
    }
}

}  // namespace gemm::pipeline_testing
