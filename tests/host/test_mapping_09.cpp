// Step 09: the warp-tiled mapping, run on the host with the kernel's index functions for every
// compiled configuration, on shapes that take the 16-byte paths and shapes that take the scalar ones.
#include <gtest/gtest.h>

#include <set>
#include <string>

#include "../../steps/08_vectorized/mapping.hpp"
#include "../../steps/09_warptiling/mapping.hpp"
#include "tiled_emulator.hpp"

namespace {
struct Step09 {
  step09::Config cfg;
  gemm::LaunchShape launch(const gemm::GemmShape& s) const { return step09::launch_shape(s, cfg); }
  int threads() const { return step09::threads(cfg); }
  int a_words() const { return cfg.bm * cfg.bk; }
  int b_words() const { return cfg.bk * cfg.bn; }
  int results() const { return cfg.tm * cfg.tn; }
  int k_tiles(const gemm::GemmShape& s) const { return step09::k_tiles(s, cfg); }
  void copy(const gemm::GemmShape& s, const gemm::ThreadCoord& t, int kt, const std::vector<float>& a,
            const std::vector<float>& b, std::vector<float>& a_tile, std::vector<float>& b_tile) const {
    for (int copy = 0; copy < step09::a_copies(cfg); ++copy) {
      if (!step09::a_copy_exists(t, cfg, copy)) continue;
      for (int q = 0; q < step09::kChunk; ++q) {
        const auto from = step09::a_source(s, t, cfg, kt, copy, q);
        if (step09::vector_a(s)) {
          EXPECT_EQ(from.valid, step09::a_source(s, t, cfg, kt, copy, 0).valid);
        }
        a_tile[size_t(step09::a_store_index(t, cfg, copy, q))] = from.valid ? a[size_t(step09::a_index(s, from))] : 0.0f;
      }
    }
    for (int copy = 0; copy < step09::b_copies(cfg); ++copy) {
      if (!step09::b_copy_exists(t, cfg, copy)) continue;
      for (int q = 0; q < step09::kChunk; ++q) {
        const auto from = step09::b_source(s, t, cfg, kt, copy, q);
        if (step09::vector_bc(s)) {
          EXPECT_EQ(from.valid, step09::b_source(s, t, cfg, kt, copy, 0).valid);
        }
        b_tile[size_t(step09::b_store_index(t, cfg, copy) + q)] = from.valid ? b[size_t(step09::b_index(s, from))] : 0.0f;
      }
    }
  }
  void accumulate(const gemm::ThreadCoord& t, const std::vector<float>& a_tile, const std::vector<float>& b_tile,
                  float* acc) const {
    for (int dot = 0; dot < cfg.bk; ++dot)
      for (int i = 0; i < cfg.tm; ++i)
        for (int j = 0; j < cfg.tn; ++j)
          acc[i * cfg.tn + j] += a_tile[size_t(step09::a_load_index(t, cfg, dot, i))] *
                                 b_tile[size_t(step09::b_load_index(t, cfg, dot, j))];
  }
  gemm::CElement result(const gemm::GemmShape& s, const gemm::ThreadCoord& t, int r) const {
    return step09::c_element(s, t, cfg, r / cfg.tn, r % cfg.tn);
  }
};

gemm::TraceProblem default_problem(const gemm::GemmShape& shape) {
  gemm::TraceProblem problem;
  problem.shape = shape;
  const step09::Config d = step09::kConfigs[0];
  problem.params = step09::to_params(d);
  return problem;
}
}  // namespace

TEST(Mapping09, HostEmulationMatchesReferenceForEveryConfig) {
  for (const step09::Config& cfg : step09::kConfigs) {
    ASSERT_STREQ(step09::config_rule(cfg), "");
    for (const gemm::GemmShape& s : gemm::testing::tiled_shapes()) gemm::testing::check_tiled_emulation(Step09{cfg}, s);
    gemm::testing::check_tiled_emulation(Step09{cfg}, {132, 68, 44});
  }
}

TEST(Mapping09, RulesNameTheProblem) {
  EXPECT_NE(std::string(step09::config_rule({128, 128, 8, 64, 32, 8, 4, 2})).find("8 x 4 or 4 x 8"), std::string::npos);
  EXPECT_NE(std::string(step09::config_rule({128, 128, 8, 48, 32, 8, 8, 2})).find("multiple of WM"), std::string::npos);
  EXPECT_NE(std::string(step09::config_rule({128, 128, 8, 64, 32, 8, 8, 7})).find("not compiled in"), std::string::npos);
}

TEST(Mapping09, AWarpOwnsOneCompactRectangle) {
  // Every result of warp w lies in its WM x WN warp tile, and the warp covers that tile exactly.
  const step09::Config c = step09::kConfigs[0];
  for (int warp = 0; warp < step09::warps(c); ++warp) {
    std::set<std::pair<int, int>> owned;
    gemm::ThreadCoord t;
    for (int lane = 0; lane < step09::kWarpSize; ++lane) {
      t.thread.x = warp * step09::kWarpSize + lane;
      for (int i = 0; i < c.tm; ++i)
        for (int j = 0; j < c.tn; ++j) {
          const int row = step09::row_in_tile(t, c, i), col = step09::col_in_tile(t, c, j);
          EXPECT_EQ(row / c.wm, step09::warp_row(t, c));
          EXPECT_EQ(col / c.wn, step09::warp_col(t, c));
          owned.insert({row, col});
        }
    }
    EXPECT_EQ(int(owned.size()), c.wm * c.wn);
  }
}

TEST(Mapping09, InnerLoopNeedsFewerWavefrontsThanStep08) {
  // The point of the step: at 256^3 the default warp tile's inner-loop shared loads cost fewer
  // wavefronts than step 08's strip of 2 x 16 threads, for the same number of instructions.
  auto inner_wavefronts = [](const auto& trace, const gemm::TraceProblem& problem) {
    long long wavefronts = 0;
    trace(problem, {0, 0, 0}, 0, [&](const gemm::TraceInstruction& i) {
      if (i.access.space == gemm::Space::shared && i.access.access == gemm::Access::load && i.iteration == 0)
        wavefronts += gemm::shared_cost(i.access).wavefronts;
    });
    return wavefronts;
  };
  gemm::TraceProblem p08;
  p08.shape = {256, 256, 256};
  const step08::Config d = step08::kConfigs[0];
  p08.params = step08::to_params(d);
  EXPECT_LT(inner_wavefronts(step09::trace_warp, default_problem({256, 256, 256})),
            inner_wavefronts(step08::trace_warp, p08));
}

TEST(Mapping09, TransposedAStoresConflictAsInStep08) {
  // Step 09 copies A as step 08 does (docs/09-warptiling.md): each 4-byte store into a_tile_t is
  // BK/4-way, 4-way at the default BK = 16; step 10's padding removes it.
  for (const step09::Config& c : step09::kConfigs) {
    gemm::TraceProblem problem;
    problem.shape = {256, 256, 256};
    problem.params = step09::to_params(c);
    int a_stores = 0;
    step09::trace_warp(problem, {0, 0, 0}, 0, [&](const gemm::TraceInstruction& i) {
      if (i.operand != gemm::Operand::smem_A || i.access.access != gemm::Access::store || i.iteration != 0) return;
      EXPECT_EQ(gemm::shared_cost(i.access).max_conflict, c.bk / step09::kChunk) << i.label << " BK " << c.bk;
      ++a_stores;
    });
    EXPECT_GT(a_stores, 0);
  }
}
