// Step 08: the vectorized mapping (16-byte chunks, A transposed in shared memory), run on the host
// with the kernel's index functions for every compiled configuration, on shapes that take the
// 16-byte paths (K, N multiples of 4) and shapes that take the scalar ones.
#include <gtest/gtest.h>

#include <string>

#include "../../steps/08_vectorized/mapping.hpp"
#include "tiled_emulator.hpp"

namespace {
struct Step08 {
  step08::Config cfg;
  gemm::LaunchShape launch(const gemm::GemmShape& s) const { return step08::launch_shape(s, cfg); }
  int threads() const { return step08::threads(cfg); }
  int a_words() const { return cfg.bm * cfg.bk; }
  int b_words() const { return cfg.bk * cfg.bn; }
  int results() const { return cfg.tm * cfg.tn; }
  int k_tiles(const gemm::GemmShape& s) const { return step08::k_tiles(s, cfg); }
  void copy(const gemm::GemmShape& s, const gemm::ThreadCoord& t, int kt, const std::vector<float>& a,
            const std::vector<float>& b, std::vector<float>& a_tile, std::vector<float>& b_tile) const {
    for (int copy = 0; copy < step08::a_copies(cfg); ++copy) {
      if (!step08::a_copy_exists(t, cfg, copy)) continue;
      for (int q = 0; q < step08::kChunk; ++q) {
        const auto from = step08::a_source(s, t, cfg, kt, copy, q);
        if (step08::vector_a(s)) {  // a chunk is wholly valid or wholly not
          EXPECT_EQ(from.valid, step08::a_source(s, t, cfg, kt, copy, 0).valid);
        }
        a_tile[size_t(step08::a_store_index(t, cfg, copy, q))] = from.valid ? a[size_t(step08::a_index(s, from))] : 0.0f;
      }
    }
    for (int copy = 0; copy < step08::b_copies(cfg); ++copy) {
      if (!step08::b_copy_exists(t, cfg, copy)) continue;
      for (int q = 0; q < step08::kChunk; ++q) {
        const auto from = step08::b_source(s, t, cfg, kt, copy, q);
        if (step08::vector_bc(s)) {
          EXPECT_EQ(from.valid, step08::b_source(s, t, cfg, kt, copy, 0).valid);
        }
        b_tile[size_t(step08::b_store_index(t, cfg, copy) + q)] = from.valid ? b[size_t(step08::b_index(s, from))] : 0.0f;
      }
    }
  }
  void accumulate(const gemm::ThreadCoord& t, const std::vector<float>& a_tile, const std::vector<float>& b_tile,
                  float* acc) const {
    for (int dot = 0; dot < cfg.bk; ++dot)
      for (int i = 0; i < cfg.tm; ++i)
        for (int j = 0; j < cfg.tn; ++j)
          acc[i * cfg.tn + j] += a_tile[size_t(step08::a_load_index(t, cfg, dot, i))] *
                                 b_tile[size_t(step08::b_load_index(t, cfg, dot, j))];
  }
  gemm::CElement result(const gemm::GemmShape& s, const gemm::ThreadCoord& t, int r) const {
    return step08::c_element(s, t, cfg, r / cfg.tn, r % cfg.tn);
  }
};
}  // namespace

TEST(Mapping08, HostEmulationMatchesReferenceForEveryConfig) {
  for (const step08::Config& cfg : step08::kConfigs) {
    ASSERT_STREQ(step08::config_rule(cfg), "");
    for (const gemm::GemmShape& s : gemm::testing::tiled_shapes()) gemm::testing::check_tiled_emulation(Step08{cfg}, s);
    gemm::testing::check_tiled_emulation(Step08{cfg}, {132, 68, 44});  // the 16-byte paths, ragged M
  }
}

TEST(Mapping08, RulesNameTheProblem) {
  EXPECT_NE(std::string(step08::config_rule({128, 64, 8, 2, 4, 2})).find("multiples of 4"), std::string::npos);
  EXPECT_NE(std::string(step08::config_rule({128, 64, 8, 4, 4, 9})).find("not compiled in"), std::string::npos);
}

TEST(Mapping08, InnerLoopIsConflictFree) {
  // The default tile at 256^3: every 16-byte shared load of the inner loop costs the minimum.
  gemm::TraceProblem problem;
  problem.shape = {256, 256, 256};
  const step08::Config d = step08::kConfigs[0];
  problem.params = step08::to_params(d);
  int loads = 0;
  step08::trace_warp(problem, {0, 0, 0}, 0, [&](const gemm::TraceInstruction& i) {
    if (i.access.space != gemm::Space::shared || i.access.access != gemm::Access::load || i.iteration != 0) return;
    EXPECT_EQ(gemm::shared_cost(i.access).max_conflict, 1) << i.label;
    ++loads;
  });
  EXPECT_EQ(loads, d.bk * (d.tm + d.tn) / step08::kChunk);
}

TEST(Mapping08, TransposedAStoresConflictBKOver4Ways) {
  // The conflict this step leaves (docs/08-vectorized.md): the BK/4 lanes that copy the chunks of one
  // row of the A tile store into rows of a_tile_t that are 4 * BM words apart, a multiple of 32, so
  // into one bank: each 4-byte store of A is BK/4-way (4-way at the default BK = 16). The 16-byte
  // stores of B cost the minimum. Step 10 pads a_tile_t's rows (Mapping10.SharedAccessesAreConflictFree).
  for (const step08::Config& c : step08::kConfigs) {
    gemm::TraceProblem problem;
    problem.shape = {256, 256, 256};
    problem.params = step08::to_params(c);
    int a_stores = 0;
    step08::trace_warp(problem, {0, 0, 0}, 0, [&](const gemm::TraceInstruction& i) {
      if (i.access.space != gemm::Space::shared || i.access.access != gemm::Access::store || i.iteration != 0) return;
      const gemm::SharedCost cost = gemm::shared_cost(i.access);
      if (i.operand == gemm::Operand::smem_A) {
        EXPECT_EQ(cost.max_conflict, c.bk / step08::kChunk) << i.label << " BK " << c.bk;
        EXPECT_EQ(cost.wavefronts, c.bk / step08::kChunk) << i.label << " BK " << c.bk;
        ++a_stores;
      } else {
        EXPECT_EQ(cost.max_conflict, 1) << i.label;
      }
    });
    EXPECT_EQ(a_stores, step08::a_copies(c) * step08::kChunk);
  }
}
