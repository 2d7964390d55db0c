// Step 11: the schedule that splits the last wave of tiles along k (below), and step 10's pipelined
// mapping (cp.async copies, STAGES shared buffers) again on this step's copy of it, run on the host
// with the kernel's index functions for every compiled configuration. The emulator holds all stages;
// each k-tile is copied into and read from its own stage, at the offsets the kernel uses.
#include <gtest/gtest.h>

#include <algorithm>
#include <iterator>
#include <string>
#include <vector>

#include "../../steps/11_split_k_tail/mapping.hpp"
#include "pipeline_checks.hpp"
#include "tiled_emulator.hpp"

namespace {
struct Step11 {
  step11::Config cfg;
  // One block per tile (the emulation checks the per-tile mapping; the schedule that shares the last
  // wave's tiles out over blocks has its own tests below).
  gemm::LaunchShape launch(const gemm::GemmShape& s) const { return step11::launch_shape(s, cfg); }
  int threads() const { return step11::threads(cfg); }
  int a_words() const { return cfg.stages * step11::stage_floats(cfg); }  // both tiles live in one buffer
  int b_words() const { return 1; }
  int results() const { return cfg.tm * cfg.tn; }
  int k_tiles(const gemm::GemmShape& s) const { return step11::k_tiles(s, cfg); }
  mutable int stage_base = 0;
  void copy(const gemm::GemmShape& s, const gemm::ThreadCoord& t, int kt, const std::vector<float>& a,
            const std::vector<float>& b, std::vector<float>& tiles, std::vector<float>&) const {
    stage_base = step11::stage_of(kt, cfg) * step11::stage_floats(cfg);
    for (int copy = 0; copy < step11::a_copies(cfg); ++copy) {
      const auto from = step11::a_source(s, t, cfg, kt, copy);
      tiles[size_t(stage_base + step11::a_store_index(t, cfg, copy))] = from.valid ? a[size_t(step11::a_index(s, from))] : 0.0f;
    }
    if (step11::vector_bc(s)) {
      for (int copy = 0; copy < step11::b_chunk_copies(cfg); ++copy) {
        const auto from = step11::b_chunk_source(s, t, cfg, kt, copy);
        for (int q = 0; q < step11::kChunk; ++q) {
          // With N % 4 == 0 a chunk is wholly inside B or wholly outside.
          if (from.valid) {
            EXPECT_LT(from.col + q, s.n);
          }
          tiles[size_t(stage_base + step11::b_chunk_store_index(t, cfg, copy) + q)] =
              from.valid ? b[size_t(step11::b_index(s, from) + q)] : 0.0f;
        }
      }
    } else {
      for (int copy = 0; copy < step11::b_element_copies(cfg); ++copy) {
        const auto from = step11::b_element_source(s, t, cfg, kt, copy);
        tiles[size_t(stage_base + step11::b_element_store_index(t, cfg, copy))] =
            from.valid ? b[size_t(step11::b_index(s, from))] : 0.0f;
      }
    }
  }
  void accumulate(const gemm::ThreadCoord& t, const std::vector<float>& tiles, const std::vector<float>&,
                  float* acc) const {
    for (int dot = 0; dot < cfg.bk; ++dot)
      for (int i = 0; i < cfg.tm; ++i)
        for (int j = 0; j < cfg.tn; ++j)
          acc[i * cfg.tn + j] += tiles[size_t(stage_base + step11::a_load_index(t, cfg, dot, i))] *
                                 tiles[size_t(stage_base + step11::b_load_index(t, cfg, dot, j))];
  }
  gemm::CElement result(const gemm::GemmShape& s, const gemm::ThreadCoord& t, int r) const {
    return step11::c_element(s, t, cfg, r / cfg.tn, r % cfg.tn);
  }
};

gemm::TraceProblem default_problem(const gemm::GemmShape& shape) {
  gemm::TraceProblem problem;
  problem.shape = shape;
  problem.params = step11::to_params(step11::kConfigs[0]);
  return problem;
}
}  // namespace

TEST(Mapping11, HostEmulationMatchesReferenceForEveryConfig) {
  for (const step11::Config& cfg : step11::kConfigs) {
    ASSERT_STREQ(step11::config_rule(cfg), "");
    for (const gemm::GemmShape& s : gemm::testing::tiled_shapes()) gemm::testing::check_tiled_emulation(Step11{cfg}, s);
    gemm::testing::check_tiled_emulation(Step11{cfg}, {132, 68, 44});
  }
}

TEST(Mapping11, TileChosenByShapeTakesTheFewerWaves) {
  const step11::Config& wide = step11::kConfigs[0];
  const step11::Config& tall = step11::kConfigs[step11::kTallConfig];
  constexpr int kSms = 132;  // H100 SXM
  EXPECT_EQ(step11::waves({4096, 4096, 4096}, wide, kSms), 4);
  EXPECT_EQ(step11::waves({4096, 4096, 4096}, tall, kSms), 4);
  EXPECT_EQ(step11::config_for_shape({4096, 4096, 4096}, kSms), wide);  // a tie keeps the default
  EXPECT_EQ(step11::waves({4095, 4097, 4093}, wide, kSms), 5);       // 32 x 17 = 544 tiles
  EXPECT_EQ(step11::waves({4095, 4097, 4093}, tall, kSms), 4);       // 16 x 33 = 528 tiles
  EXPECT_EQ(step11::config_for_shape({4095, 4097, 4093}, kSms), tall);
  for (int m = 1; m <= 8192; m += 509)
    for (int n = 1; n <= 8192; n += 677) {
      const step11::Config chosen = step11::config_for_shape({m, n, 64}, kSms);
      const step11::Config other = chosen == wide ? tall : wide;
      EXPECT_LE(step11::waves({m, n, 64}, chosen, kSms), step11::waves({m, n, 64}, other, kSms)) << m << "x" << n;
    }
  for (const step11::Config& cfg : step11::kConfigs) EXPECT_EQ(step11::config_from(step11::to_params(cfg)), cfg);
}

TEST(Mapping11, ConfigAndSplitRulesNameTheProblem) {
  EXPECT_NE(std::string(step11::config_rule({128, 128, 8, 64, 32, 8, 8, 2, 2})).find("STAGES"), std::string::npos);
  EXPECT_NE(std::string(step11::config_rule({128, 128, 4, 64, 32, 8, 8, 4, 2})).find("multiple of 8"), std::string::npos);
  EXPECT_NE(std::string(step11::config_rule({128, 128, 8, 64, 32, 8, 8, 7, 2})).find("not compiled in"), std::string::npos);
  EXPECT_NE(std::string(step11::split_rule({{"SPLIT", 2}})).find("SPLIT must be 0"), std::string::npos);
  EXPECT_EQ(std::string(step11::split_rule({{"SPLIT", 0}})), "");
  EXPECT_EQ(std::string(step11::split_rule({{"SPLIT", 1}})), "");
}

// SPLIT=0 schedules every tile whole at a shape the default splits (4096^3 on 132 SMs).
TEST(Mapping11, SplitZeroRunsEveryTileWhole) {
  const gemm::GemmShape shape{4096, 4096, 4096};
  const step11::Config& cfg = step11::kConfigs[0];
  const step11::Schedule split = step11::schedule_of(shape, cfg, step11::schedule_sms({{"SPLIT", 1}}, 132));
  const step11::Schedule whole = step11::schedule_of(shape, cfg, step11::schedule_sms({{"SPLIT", 0}}, 132));
  EXPECT_GT(split.split_tiles, 0);
  EXPECT_EQ(whole.split_tiles, 0);
  EXPECT_EQ(whole.split_blocks, 0);
}

TEST(Mapping11, SharedAccessesAreConflictFree) {
  // The padded, transposed A copy, the B copies and the inner loop: every shared access of the
  // default configuration costs the minimum, on the 16-byte path and on the element path for B.
  for (const gemm::GemmShape& shape : {gemm::GemmShape{256, 256, 256}, gemm::GemmShape{256, 255, 255}}) {
    int accesses = 0;
    step11::trace_warp(default_problem(shape), {0, 0, 0}, 0, [&](const gemm::TraceInstruction& i) {
      if (i.access.space != gemm::Space::shared) return;
      EXPECT_EQ(gemm::shared_cost(i.access).max_conflict, 1) << i.label << " at " << shape.n;
      ++accesses;
    });
    EXPECT_GT(accesses, 0);
  }
}

// With K a multiple of 32 every row of A starts on the same L1 bank; a warp's copy of A (8 k of each
// of 4 rows, through the L1) takes as many wavefronts as its rows share k-runs: 4 with BK = 8, where
// a tile has one k-run per row, 2 with BK = 16 and 1 with BK = 32 (a_tile_k spreads the rows over
// the k-runs). The shared writes stay conflict-free.
TEST(Mapping11, ACopiesSpreadTheirRowsOverTheL1Banks) {
  for (const step11::Config& c : step11::kConfigs) {
    gemm::TraceProblem problem;
    problem.shape = {2 * c.bm, 2 * c.bn, 4 * c.bk};
    problem.params = step11::to_params(c);
    problem.params["SPLIT"] = 0;
    int copies = 0;
    step11::trace_warp(problem, {0, 0, 0}, 0, [&](const gemm::TraceInstruction& i) {
      // (the copies of k-tiles past the end read nothing: their writes alone count)
      if (i.operand != gemm::Operand::smem_A || i.access.access != gemm::Access::store || !i.access.counterpart_active) return;
      ++copies;
      const gemm::SharedCost cost = gemm::shared_cost(i.access);
      EXPECT_EQ(cost.max_conflict, 1) << i.label;
      EXPECT_EQ(cost.wavefronts, std::max(1, 4 / (c.bk / step11::kSectorFloats))) << i.label << " BK " << c.bk;
    });
    EXPECT_GT(copies, 0);
  }
}

TEST(Mapping11, AWarpCopiesWholeSectorsOfA) {
  // Each warp-wide copy of A reads 8 consecutive floats (one 32-byte sector) of each of 4 rows; the
  // copies of the k-tiles past the end read nothing.
  int copies = 0, past_end = 0;
  step11::trace_warp(default_problem({256, 256, 256}), {0, 0, 0}, 0, [&](const gemm::TraceInstruction& i) {
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

TEST(Mapping11, TraceCopiesWhatTheKernelCopies) {
  // The kernel's prologue copies the first STAGES - 1 k-tiles (those that exist), and every
  // iteration of its loop copies k-tile kt + STAGES - 1, past the end too (kernel.cuh, multiply):
  // the trace lists as many shared writes of copies, each under an iteration the loop runs.
  for (const step11::Config& c : step11::kConfigs)
    for (const gemm::GemmShape& shape : {gemm::GemmShape{128, 128, 128}, gemm::GemmShape{33, 17, 45},
                                         gemm::GemmShape{100, 75, 64}, gemm::GemmShape{64, 64, 8}}) {
      gemm::TraceProblem problem = default_problem(shape);
      problem.params = step11::to_params(c);
      const int tiles = step11::k_tiles(shape, c);
      const int per_k_tile = step11::a_copies(c) + (step11::vector_bc(shape) ? step11::b_chunk_copies(c)
                                                                             : step11::b_element_copies(c));
      int writes = 0;
      step11::trace_warp(problem, {0, 0, 0}, 0, [&](const gemm::TraceInstruction& i) {
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

TEST(Mapping11, CopiesAreFixedStepsFromTheFirst) {
  // The kernel computes copy 0 at k-tile 0 and steps from there; the per-copy functions (which the
  // trace and the emulation use) must agree with those steps for every configuration and thread.
  const gemm::GemmShape s{1000, 1000, 1000};
  for (const step11::Config& c : step11::kConfigs) {
    gemm::ThreadCoord t;
    t.block = {1, 2, 0};
    for (t.thread.x = 0; t.thread.x < step11::threads(c); ++t.thread.x)
      for (int kt = 0; kt < 3; ++kt) {
        const auto a0 = step11::a_source(s, t, c, 0, 0);
        for (int copy = 0; copy < step11::a_copies(c); ++copy) {
          const auto from = step11::a_source(s, t, c, kt, copy);
          ASSERT_EQ(from.row, a0.row + copy * step11::a_copy_row_step(c));
          ASSERT_EQ(from.col, a0.col + kt * c.bk);
          ASSERT_EQ(step11::a_store_index(t, c, copy), step11::a_store_index(t, c, 0) + copy * step11::a_copy_row_step(c));
        }
        const auto b0 = step11::b_chunk_source(s, t, c, 0, 0);
        for (int copy = 0; copy < step11::b_chunk_copies(c); ++copy) {
          const auto from = step11::b_chunk_source(s, t, c, kt, copy);
          ASSERT_EQ(from.row, b0.row + kt * c.bk + copy * step11::b_chunk_row_step(c));
          ASSERT_EQ(from.col, b0.col);
          ASSERT_EQ(step11::b_chunk_store_index(t, c, copy),
                    step11::b_chunk_store_index(t, c, 0) + copy * step11::threads(c) * step11::kChunk);
        }
        const auto e0 = step11::b_element_source(s, t, c, 0, 0);
        for (int copy = 0; copy < step11::b_element_copies(c); ++copy) {
          const auto from = step11::b_element_source(s, t, c, kt, copy);
          ASSERT_EQ(from.row, e0.row + kt * c.bk + copy * step11::b_element_row_step(c));
          ASSERT_EQ(from.col, e0.col);
          ASSERT_EQ(step11::b_element_store_index(t, c, copy),
                    step11::b_element_store_index(t, c, 0) + copy * step11::threads(c));
        }
      }
  }
}

TEST(Mapping11, ScheduleCoversEveryKTileOfEveryTileOnce) {
  // Every k-tile of every tile is multiplied by exactly one block; every tile's sharers are the blocks
  // whose pieces touch it; a split block touches at most kMaxPieces tiles, and its workspace slots
  // are its own; the split blocks are at most a wave and share a tile kMaxShare ways on average.
  for (const step11::Config& c : step11::kConfigs)
    for (const gemm::GemmShape& shape : {gemm::GemmShape{4096, 4096, 4096}, gemm::GemmShape{8192, 8192, 8192},
                                         gemm::GemmShape{4095, 4097, 4093}, gemm::GemmShape{2048, 2048, 2048},
                                         gemm::GemmShape{1024, 1024, 1024}, gemm::GemmShape{130, 260, 33},
                                         gemm::GemmShape{520, 1000, 100}, gemm::GemmShape{1, 1, 1},
                                         gemm::GemmShape{300, 700, 9}})
      for (int sms : {0, 1, 7, 132}) {
        const step11::Schedule s = step11::schedule_of(shape, c, sms);
        const int slots = sms * step11::blocks_per_sm(c);
        ASSERT_EQ(s.tiles, step11::tile_count(shape, c));
        ASSERT_LE(s.split_blocks, slots > 0 ? slots : 0);
        ASSERT_LE(s.split_blocks, step11::kMaxShare * s.split_tiles);
        ASSERT_GE(s.split_blocks, s.split_tiles);
        if (s.split_tiles > 0) {
          ASSERT_LE(step11::first_unit(s, 1) * 100, (long long)step11::kSplitWorthPercent * s.k_tiles)
              << "a split block's run is clearly shorter than a tile";
        }
        if (sms > 0 && s.split_tiles > 0) {
          ASSERT_EQ((s.tiles - s.split_tiles) % slots, 0) << "the whole tiles fill whole waves";
        }
        std::vector<int> covered(size_t(s.tiles) * size_t(s.k_tiles), 0);
        std::vector<std::vector<int>> touching(size_t(s.tiles));
        std::vector<int> slot_users(size_t(step11::workspace_slots(s)), 0);
        const int blocks = step11::block_count(s);
        ASSERT_EQ(step11::split_launch_shape(shape, c, sms).grid.x, s.split_blocks);
        const gemm::Dim3 tiles = step11::launch_shape(shape, c).grid;
        ASSERT_EQ(tiles.x * tiles.y, s.tiles);
        for (int block = 0; block < blocks; ++block) {
          int pieces = 0;
          for (int index = 0; index < step11::kMaxPieces; ++index) {
            const step11::Piece p = step11::piece_of(s, block, index);
            if (!p.valid) continue;
            ++pieces;
            ASSERT_GE(p.tile, 0);
            ASSERT_LT(p.tile, s.tiles);
            ASSERT_LT(p.kt_begin, p.kt_end);
            ASSERT_LE(p.kt_end, s.k_tiles);
            for (int kt = p.kt_begin; kt < p.kt_end; ++kt) ++covered[size_t(p.tile) * size_t(s.k_tiles) + size_t(kt)];
            touching[size_t(p.tile)].push_back(block);
            ASSERT_GE(block, p.first_sharer);
            ASSERT_LE(block, p.last_sharer);
            if (step11::sharers(p) > 1) {
              ASSERT_LT(block, s.split_blocks);
              ++slot_users[size_t(step11::slot_of(s, block, p.tile))];
            }
          }
          ASSERT_GE(pieces, 1) << "block " << block << " has no work";
          if (block >= s.split_blocks) {
            ASSERT_EQ(pieces, 1);
          }
        }
        for (int unit : covered) ASSERT_EQ(unit, 1);
        for (int tile = 0; tile < s.tiles; ++tile) {
          const std::vector<int>& blocks_of_tile = touching[size_t(tile)];
          ASSERT_FALSE(blocks_of_tile.empty());
          for (size_t i = 0; i < blocks_of_tile.size(); ++i) ASSERT_EQ(blocks_of_tile[i], blocks_of_tile.front() + int(i));
          for (int index = 0; index < step11::kMaxPieces; ++index) {
            const step11::Piece p = step11::piece_of(s, blocks_of_tile.front(), index);
            if (p.valid && p.tile == tile) {
              ASSERT_EQ(p.first_sharer, blocks_of_tile.front());
              ASSERT_EQ(p.last_sharer, blocks_of_tile.back());
            }
          }
        }
        for (int users : slot_users) ASSERT_LE(users, 1);
      }
  // The H100's case: 512 tiles of 128 x 256, the last 116 shared out over a full wave of 132 blocks.
  const step11::Schedule h100 = step11::schedule_of({4096, 4096, 4096}, step11::kConfigs[0], 132);
  EXPECT_EQ(h100.split_tiles, 116);
  EXPECT_EQ(h100.split_blocks, 132);
  EXPECT_EQ(step11::block_count(h100), 132 + 3 * 132);
  // 128 tiles on 132 SMs: a split block would still run 97% of a tile; nothing is split.
  EXPECT_EQ(step11::schedule_of({2048, 2048, 2048}, step11::kConfigs[0], 132).split_tiles, 0);
  // 32 tiles (1024^3): each shared by 4 blocks.
  EXPECT_EQ(step11::schedule_of({1024, 1024, 1024}, step11::kConfigs[0], 132).split_blocks, 128);
}

TEST(Mapping11, EachSplitTileStartsAtItsFirstRun) {
  // A split tile's k-tile 0 is multiplied by the first block whose run starts inside the tile, and
  // a block that comes in from the tile before ends at the tile's last k-tile: the split blocks
  // stay near the same k (mapping.hpp, anchor_unit).
  for (const step11::Config& c : step11::kConfigs)
    for (const gemm::GemmShape& shape : {gemm::GemmShape{4096, 4096, 4096}, gemm::GemmShape{8192, 8192, 8192},
                                         gemm::GemmShape{1024, 1024, 1024}, gemm::GemmShape{130, 260, 33},
                                         gemm::GemmShape{520, 1000, 100}, gemm::GemmShape{300, 700, 9}})
      for (int sms : {1, 7, 132}) {
        const step11::Schedule s = step11::schedule_of(shape, c, sms);
        std::vector<int> starts_at_zero(size_t(s.split_tiles), -1);
        for (int block = 0; block < s.split_blocks; ++block)
          for (int index = 0; index < step11::kMaxPieces; ++index) {
            const step11::Piece p = step11::piece_of(s, block, index);
            if (!p.valid) continue;
            const long long tile_begin = (long long)p.tile * s.k_tiles;
            const bool run_starts_here = step11::first_unit(s, block) >= tile_begin;
            if (!run_starts_here) {
              ASSERT_EQ(p.kt_end, s.k_tiles) << "block " << block << " came in from the tile before";
            }
            if (p.kt_begin == 0) {
              ASSERT_EQ(starts_at_zero[size_t(p.tile)], -1) << "two pieces at k-tile 0 of tile " << p.tile;
              starts_at_zero[size_t(p.tile)] = block;
              ASSERT_TRUE(run_starts_here);
              if (block > 0) {
                ASSERT_LT(step11::first_unit(s, block - 1), tile_begin) << "an earlier run starts in tile " << p.tile;
              }
            }
          }
        for (int block : starts_at_zero) ASSERT_GE(block, 0);
      }
}

TEST(Mapping11, PartialSlotIsABijection) {
  // Each thread's results land on distinct floats of a slot, and together they fill it.
  for (const step11::Config& c : step11::kConfigs) {
    std::vector<int> hits(size_t(step11::slot_floats(c)), 0);
    gemm::ThreadCoord t;
    for (t.thread.x = 0; t.thread.x < step11::threads(c); ++t.thread.x)
      for (int i = 0; i < c.tm; ++i)
        for (int j = 0; j < c.tn; ++j) ++hits[size_t(step11::partial_index(t, c, i, j))];
    for (int h : hits) ASSERT_EQ(h, 1);
  }
}

// The whole tiles' kernel finds its tile's number from its block coordinates (tile_index), to leave
// at once where the tile is one of the split ones: the inverse of tile_at over the whole grid.
TEST(Mapping11, TileIndexInvertsTileAt) {
  for (const step11::Config& c : step11::kConfigs)
    for (const gemm::GemmShape& shape : {gemm::GemmShape{4096, 4096, 64}, gemm::GemmShape{1000, 999, 8},
                                         gemm::GemmShape{1, 1, 1}, gemm::GemmShape{4095, 4097, 8}}) {
      const gemm::Dim3 grid = step11::launch_shape(shape, c).grid;
      ASSERT_EQ(grid.x * grid.y, step11::tile_count(shape, c));
      for (int tile = 0; tile < step11::tile_count(shape, c); ++tile) {
        const gemm::Dim3 at = step11::tile_at(shape, c, tile);
        ASSERT_LT(at.x, grid.x);
        ASSERT_LT(at.y, grid.y);
        ASSERT_EQ(step11::tile_index(shape, c, at), tile);
      }
    }
}

// The viewer's timeline follows the kernel's running stage indices (next_stage) over hundreds of
// k-tiles, for every STAGES the tunables allow: each k-tile is read from the stage stage_of names,
// and each copy lands in the stage the kernel refills.
TEST(Mapping11, TimelineFollowsTheKernelsStages) {
  std::vector<step11::Config> configs(std::begin(step11::kConfigs), std::end(step11::kConfigs));
  for (int stages = 3; stages <= 8; ++stages) {
    step11::Config c = step11::kConfigs[0];
    c.stages = stages;
    configs.push_back(c);
  }
  gemm::pipeline_testing::expect_cp_async_stages_as_the_kernel(
      "11_split_k_tail", configs, {gemm::GemmShape{64, 64, 8}, gemm::GemmShape{130, 70, 100}, gemm::GemmShape{128, 128, 4096}});
}
