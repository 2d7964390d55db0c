// Step 10: the pipelined mapping (cp.async copies, STAGES shared buffers), run on the host with the
// kernel's index functions for every compiled configuration. The emulator holds all stages; each
// k-tile is copied into and read from its own stage, at the offsets the kernel uses.
#include <gtest/gtest.h>

#include <algorithm>
#include <iterator>
#include <string>
#include <vector>

#include "../../steps/09_warptiling/mapping.hpp"
#include "../../steps/10_cp_async_pipeline/mapping.hpp"
#include "pipeline_checks.hpp"
#include "tiled_emulator.hpp"

namespace {
struct Step10 {
  step10::Config cfg;
  gemm::LaunchShape launch(const gemm::GemmShape& s) const { return step10::launch_shape(s, cfg); }
  int threads() const { return step10::threads(cfg); }
  int a_words() const { return cfg.stages * step10::stage_floats(cfg); }  // both tiles live in one buffer
  int b_words() const { return 1; }
  int results() const { return cfg.tm * cfg.tn; }
  int k_tiles(const gemm::GemmShape& s) const { return step10::k_tiles(s, cfg); }
  mutable int stage_base = 0;
  void copy(const gemm::GemmShape& s, const gemm::ThreadCoord& t, int kt, const std::vector<float>& a,
            const std::vector<float>& b, std::vector<float>& tiles, std::vector<float>&) const {
    stage_base = step10::stage_of(kt, cfg) * step10::stage_floats(cfg);
    for (int copy = 0; copy < step10::a_copies(cfg); ++copy) {
      const auto from = step10::a_source(s, t, cfg, kt, copy);
      tiles[size_t(stage_base + step10::a_store_index(t, cfg, copy))] = from.valid ? a[size_t(step10::a_index(s, from))] : 0.0f;
    }
    if (step10::vector_bc(s)) {
      for (int copy = 0; copy < step10::b_chunk_copies(cfg); ++copy) {
        const auto from = step10::b_chunk_source(s, t, cfg, kt, copy);
        for (int q = 0; q < step10::kChunk; ++q) {
          // With N % 4 == 0 a chunk is wholly inside B or wholly outside.
          if (from.valid) {
            EXPECT_LT(from.col + q, s.n);
          }
          tiles[size_t(stage_base + step10::b_chunk_store_index(t, cfg, copy) + q)] =
              from.valid ? b[size_t(step10::b_index(s, from) + q)] : 0.0f;
        }
      }
    } else {
      for (int copy = 0; copy < step10::b_element_copies(cfg); ++copy) {
        const auto from = step10::b_element_source(s, t, cfg, kt, copy);
        tiles[size_t(stage_base + step10::b_element_store_index(t, cfg, copy))] =
            from.valid ? b[size_t(step10::b_index(s, from))] : 0.0f;
      }
    }
  }
  void accumulate(const gemm::ThreadCoord& t, const std::vector<float>& tiles, const std::vector<float>&,
                  float* acc) const {
    for (int dot = 0; dot < cfg.bk; ++dot)
      for (int i = 0; i < cfg.tm; ++i)
        for (int j = 0; j < cfg.tn; ++j)
          acc[i * cfg.tn + j] += tiles[size_t(stage_base + step10::a_load_index(t, cfg, dot, i))] *
                                 tiles[size_t(stage_base + step10::b_load_index(t, cfg, dot, j))];
  }
  gemm::CElement result(const gemm::GemmShape& s, const gemm::ThreadCoord& t, int r) const {
    return step10::c_element(s, t, cfg, r / cfg.tn, r % cfg.tn);
  }
};

gemm::TraceProblem default_problem(const gemm::GemmShape& shape) {
  gemm::TraceProblem problem;
  problem.shape = shape;
  problem.params = step10::to_params(step10::kConfigs[0]);
  return problem;
}
}  // namespace

TEST(Mapping10, HostEmulationMatchesReferenceForEveryConfig) {
  for (const step10::Config& cfg : step10::kConfigs) {
    ASSERT_STREQ(step10::config_rule(cfg), "");
    for (const gemm::GemmShape& s : gemm::testing::tiled_shapes()) gemm::testing::check_tiled_emulation(Step10{cfg}, s);
    gemm::testing::check_tiled_emulation(Step10{cfg}, {132, 68, 44});
  }
}

TEST(Mapping10, TileChosenByShapeTakesTheFewerWaves) {
  const step10::Config& wide = step10::kConfigs[0];
  const step10::Config& tall = step10::kConfigs[step10::kTallConfig];
  constexpr int kSms = 132;  // H100 SXM
  EXPECT_EQ(step10::waves({4096, 4096, 4096}, wide, kSms), 4);
  EXPECT_EQ(step10::waves({4096, 4096, 4096}, tall, kSms), 4);
  EXPECT_EQ(step10::config_for_shape({4096, 4096, 4096}, kSms), wide);  // a tie keeps the default
  EXPECT_EQ(step10::waves({4095, 4097, 4093}, wide, kSms), 5);       // 32 x 17 = 544 tiles
  EXPECT_EQ(step10::waves({4095, 4097, 4093}, tall, kSms), 4);       // 16 x 33 = 528 tiles
  EXPECT_EQ(step10::config_for_shape({4095, 4097, 4093}, kSms), tall);
  for (int m = 1; m <= 8192; m += 509)
    for (int n = 1; n <= 8192; n += 677) {
      const step10::Config chosen = step10::config_for_shape({m, n, 64}, kSms);
      const step10::Config other = chosen == wide ? tall : wide;
      EXPECT_LE(step10::waves({m, n, 64}, chosen, kSms), step10::waves({m, n, 64}, other, kSms)) << m << "x" << n;
    }
  for (const step10::Config& cfg : step10::kConfigs) EXPECT_EQ(step10::config_from(step10::to_params(cfg)), cfg);
}

TEST(Mapping10, RulesNameTheProblem) {
  EXPECT_NE(std::string(step10::config_rule({128, 128, 8, 64, 32, 8, 8, 2, 2})).find("STAGES"), std::string::npos);
  EXPECT_NE(std::string(step10::config_rule({128, 128, 4, 64, 32, 8, 8, 4, 2})).find("multiple of 8"), std::string::npos);
  EXPECT_NE(std::string(step10::config_rule({128, 128, 8, 64, 32, 8, 8, 7, 2})).find("not compiled in"), std::string::npos);
}

TEST(Mapping10, SharedAccessesAreConflictFree) {
  // The padded, transposed A copy, the B copies and the inner loop: every shared access of the
  // default configuration costs the minimum, on the 16-byte path and on the element path for B.
  for (const gemm::GemmShape& shape : {gemm::GemmShape{256, 256, 256}, gemm::GemmShape{256, 255, 255}}) {
    int accesses = 0;
    step10::trace_warp(default_problem(shape), {0, 0, 0}, 0, [&](const gemm::TraceInstruction& i) {
      if (i.access.space != gemm::Space::shared) return;
      EXPECT_EQ(gemm::shared_cost(i.access).max_conflict, 1) << i.label << " at " << shape.n;
      ++accesses;
    });
    EXPECT_GT(accesses, 0);
  }
}

// Step 09 stored A transposed from registers: the 4 lanes holding the 4 chunks of one row of A
// (k 0-3, 4-7, 8-11, 12-15) each wrote a_tile_t[k][row], rows of BM = 128 floats apart, so all 4 on
// the row's bank: a 4-way conflict on every store. Here a warp copies 8 k of 4 rows; unpadded
// (rows of BM floats, a multiple of 32) the 8 k of a row would all sit on the row's bank, 8-way.
// Rows of BM + 4 floats put lane (k, row) on bank 4k + row: 32 lanes, 32 banks.
TEST(Mapping10, PaddingTakesTheConflictOutOfTheTransposedStoresOfA) {
  const step09::Config& c09 = step09::kConfigs[0];
  gemm::TraceProblem problem09;
  problem09.shape = {256, 256, 256};
  problem09.params = step09::to_params(c09);
  int stores09 = 0;
  step09::trace_warp(problem09, {0, 0, 0}, 0, [&](const gemm::TraceInstruction& i) {
    if (i.operand != gemm::Operand::smem_A || i.access.access != gemm::Access::store) return;
    EXPECT_EQ(gemm::shared_cost(i.access).max_conflict, 4) << i.label;
    ++stores09;
  });
  EXPECT_GT(stores09, 0);

  for (const step10::Config& c : step10::kConfigs) {
    gemm::ThreadCoord t;
    for (int copy = 0; copy < step10::a_copies(c); ++copy) {
      int padded[32] = {}, unpadded[32] = {};
      for (t.thread.x = 0; t.thread.x < step10::kWarpSize; ++t.thread.x) {
        ++padded[step10::a_store_index(t, c, copy) % 32];
        ++unpadded[(step10::a_tile_k(t, c, copy) * c.bm + step10::a_tile_row(t, c, copy)) % 32];
      }
      EXPECT_EQ(*std::max_element(padded, padded + 32), 1) << "BM " << c.bm << " BK " << c.bk;
      EXPECT_EQ(*std::max_element(unpadded, unpadded + 32), step10::kSectorFloats) << "BM " << c.bm << " BK " << c.bk;
    }
  }
}

// With K a multiple of 32 every row of A starts on the same L1 bank; a warp's copy of A (8 k of each
// of 4 rows, through the L1) takes as many wavefronts as its rows share k-runs: 4 with BK = 8, where
// a tile has one k-run per row, 2 with BK = 16 and 1 with BK = 32 (a_tile_k spreads the rows over
// the k-runs). The shared writes stay conflict-free.
TEST(Mapping10, ACopiesSpreadTheirRowsOverTheL1Banks) {
  for (const step10::Config& c : step10::kConfigs) {
    gemm::TraceProblem problem;
    problem.shape = {2 * c.bm, 2 * c.bn, 4 * c.bk};
    problem.params = step10::to_params(c);
    int copies = 0;
    step10::trace_warp(problem, {0, 0, 0}, 0, [&](const gemm::TraceInstruction& i) {
      // (the copies of k-tiles past the end read nothing: their writes alone count)
      if (i.operand != gemm::Operand::smem_A || i.access.access != gemm::Access::store || !i.access.counterpart_active) return;
      ++copies;
      const gemm::SharedCost cost = gemm::shared_cost(i.access);
      EXPECT_EQ(cost.max_conflict, 1) << i.label;
      EXPECT_EQ(cost.wavefronts, std::max(1, 4 / (c.bk / step10::kSectorFloats))) << i.label << " BK " << c.bk;
    });
    EXPECT_GT(copies, 0);
  }
}

TEST(Mapping10, AWarpCopiesWholeSectorsOfA) {
  // Each warp-wide copy of A reads 8 consecutive floats (one 32-byte sector) of each of 4 rows; the
  // copies of the k-tiles past the end read nothing.
  int copies = 0, past_end = 0;
  step10::trace_warp(default_problem({256, 256, 256}), {0, 0, 0}, 0, [&](const gemm::TraceInstruction& i) {
    if (i.access.space != gemm::Space::global || i.operand != gemm::Operand::A) return;
    const gemm::GlobalCost cost = gemm::global_cost(i.access);
    if (i.access.active == 0) {
      EXPECT_EQ(cost.sectors, 0) << i.label;
      ++past_end;
      return;
    }
    EXPECT_EQ(cost.sectors, 4) << i.label;
    EXPECT_EQ(cost.sectors, cost.ideal_sectors);
    ++copies;
  });
  EXPECT_GT(copies, 0);
  EXPECT_GT(past_end, 0);
}

TEST(Mapping10, TraceCopiesWhatTheKernelCopies) {
  // The kernel's prologue copies the first STAGES - 1 k-tiles (those that exist), and every
  // iteration of its loop copies k-tile kt + STAGES - 1, past the end too (kernel.cuh, multiply):
  // the trace lists as many shared writes of copies, each under an iteration the loop runs.
  for (const step10::Config& c : step10::kConfigs)
    for (const gemm::GemmShape& shape : {gemm::GemmShape{128, 128, 128}, gemm::GemmShape{33, 17, 45},
                                         gemm::GemmShape{100, 75, 64}, gemm::GemmShape{64, 64, 8}}) {
      gemm::TraceProblem problem = default_problem(shape);
      problem.params = step10::to_params(c);
      const int tiles = step10::k_tiles(shape, c);
      const int per_k_tile = step10::a_copies(c) + (step10::vector_bc(shape) ? step10::b_chunk_copies(c)
                                                                             : step10::b_element_copies(c));
      int writes = 0;
      step10::trace_warp(problem, {0, 0, 0}, 0, [&](const gemm::TraceInstruction& i) {
        if (i.access.space != gemm::Space::shared || i.access.access != gemm::Access::store) return;
        if (i.operand != gemm::Operand::smem_A && i.operand != gemm::Operand::smem_B) return;
        ++writes;
        EXPECT_GE(i.iteration, 0);
        EXPECT_LT(i.iteration, tiles) << i.label;
      });
      EXPECT_EQ(writes, (std::min(c.stages - 1, tiles) + tiles) * per_k_tile)
          << shape.m << "x" << shape.n << "x" << shape.k;
    }
}

TEST(Mapping10, CopiesAreFixedStepsFromTheFirst) {
  // The kernel computes copy 0 at k-tile 0 and steps from there; the per-copy functions (which the
  // trace and the emulation use) must agree with those steps for every configuration and thread.
  const gemm::GemmShape s{1000, 1000, 1000};
  for (const step10::Config& c : step10::kConfigs) {
    gemm::ThreadCoord t;
    t.block = {1, 2, 0};
    for (t.thread.x = 0; t.thread.x < step10::threads(c); ++t.thread.x)
      for (int kt = 0; kt < 3; ++kt) {
        const auto a0 = step10::a_source(s, t, c, 0, 0);
        for (int copy = 0; copy < step10::a_copies(c); ++copy) {
          const auto from = step10::a_source(s, t, c, kt, copy);
          ASSERT_EQ(from.row, a0.row + copy * step10::a_copy_row_step(c));
          ASSERT_EQ(from.col, a0.col + kt * c.bk);
          ASSERT_EQ(step10::a_store_index(t, c, copy), step10::a_store_index(t, c, 0) + copy * step10::a_copy_row_step(c));
        }
        const auto b0 = step10::b_chunk_source(s, t, c, 0, 0);
        for (int copy = 0; copy < step10::b_chunk_copies(c); ++copy) {
          const auto from = step10::b_chunk_source(s, t, c, kt, copy);
          ASSERT_EQ(from.row, b0.row + kt * c.bk + copy * step10::b_chunk_row_step(c));
          ASSERT_EQ(from.col, b0.col);
          ASSERT_EQ(step10::b_chunk_store_index(t, c, copy),
                    step10::b_chunk_store_index(t, c, 0) + copy * step10::threads(c) * step10::kChunk);
        }
        const auto e0 = step10::b_element_source(s, t, c, 0, 0);
        for (int copy = 0; copy < step10::b_element_copies(c); ++copy) {
          const auto from = step10::b_element_source(s, t, c, kt, copy);
          ASSERT_EQ(from.row, e0.row + kt * c.bk + copy * step10::b_element_row_step(c));
          ASSERT_EQ(from.col, e0.col);
          ASSERT_EQ(step10::b_element_store_index(t, c, copy),
                    step10::b_element_store_index(t, c, 0) + copy * step10::threads(c));
        }
      }
  }
}

// The viewer's timeline follows the kernel's running stage indices (next_stage) over hundreds of
// k-tiles, for every STAGES the tunables allow: each k-tile is read from the stage stage_of names,
// and each copy lands in the stage the kernel refills.
TEST(Mapping10, TimelineFollowsTheKernelsStages) {
  std::vector<step10::Config> configs(std::begin(step10::kConfigs), std::end(step10::kConfigs));
  for (int stages = 3; stages <= 8; ++stages) {
    step10::Config c = step10::kConfigs[0];
    c.stages = stages;
    configs.push_back(c);
  }
  gemm::pipeline_testing::expect_cp_async_stages_as_the_kernel(
      "10_cp_async_pipeline", configs, {gemm::GemmShape{64, 64, 8}, gemm::GemmShape{130, 70, 100}, gemm::GemmShape{128, 128, 4096}});
}
