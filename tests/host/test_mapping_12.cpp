// Step 12: the tile copies of every layout, emulated on the host with the kernel's index functions:
// the shared tiles must hold the logical A[m][k] and B[k][n] of the block and k-tile, zeros outside
// the matrices, whatever the layout in global memory, on the wide (16-byte) and narrow paths.
#include <gtest/gtest.h>

#include <cmath>
#include <map>
#include <tuple>
#include <string>
#include <vector>

#include "../../steps/12_wmma/mapping.hpp"

namespace {
void check_copies(const step12::Config& c, const gemm::GemmShape& s, gemm::Layout layout) {
  // Stored matrices hold a code of the logical position, so a misplaced element shows.
  auto a_value = [&](int m, int k) { return float(m * 1000 + k + 1); };
  auto b_value = [&](int k, int n) { return float(-(k * 1000 + n + 1)); };
  const int a_rows = step12::a_stored_rows(s, layout), a_cols = step12::a_stored_cols(s, layout);
  const int b_rows = step12::b_stored_rows(s, layout), b_cols = step12::b_stored_cols(s, layout);
  std::vector<float> a(size_t(a_rows) * a_cols), b(size_t(b_rows) * b_cols);
  for (int r = 0; r < a_rows; ++r)
    for (int col = 0; col < a_cols; ++col)
      a[size_t(r) * a_cols + col] = layout == gemm::Layout::tn ? a_value(col, r) : a_value(r, col);
  for (int r = 0; r < b_rows; ++r)
    for (int col = 0; col < b_cols; ++col)
      b[size_t(r) * b_cols + col] = layout == gemm::Layout::nt ? b_value(col, r) : b_value(r, col);
  const gemm::LaunchShape launch = step12::launch_shape(s, c);
  for (int block_m = 0; block_m < launch.grid.y; ++block_m)
    for (int block_n = 0; block_n < launch.grid.x; ++block_n)
      for (int kt = 0; kt < step12::k_tiles(s, c); ++kt) {
        std::vector<float> a_tile(size_t(c.bm) * step12::a_stride(c), NAN), b_tile(size_t(c.bk) * step12::b_stride(c), NAN);
        for (int index = 0; index < step12::a_chunks(c); ++index) {
          const step12::Chunk ch = step12::a_chunk(s, layout, c, block_m, kt, index);
          for (int e = 0; e < step12::kChunk; ++e) {
            const bool inside = step12::wide_rows(a_cols) ? ch.valid : step12::element_valid(ch, e, a_rows, a_cols);
            if (step12::wide_rows(a_cols) && ch.valid) {
              ASSERT_TRUE(step12::element_valid(ch, e, a_rows, a_cols));
            }
            a_tile[size_t(step12::a_tile_index(ch, c, e))] = inside ? a[size_t(step12::stored_index(ch, a_cols) + e)] : 0.0f;
          }
        }
        for (int index = 0; index < step12::b_chunks(c); ++index) {
          const step12::Chunk ch = step12::b_chunk(s, layout, c, block_n, kt, index);
          for (int e = 0; e < step12::kChunk; ++e) {
            const bool inside = step12::wide_rows(b_cols) ? ch.valid : step12::element_valid(ch, e, b_rows, b_cols);
            b_tile[size_t(step12::b_tile_index(ch, c, e))] = inside ? b[size_t(step12::stored_index(ch, b_cols) + e)] : 0.0f;
          }
        }
        for (int m = 0; m < c.bm; ++m)
          for (int k = 0; k < c.bk; ++k) {
            const int gm = block_m * c.bm + m, gk = kt * c.bk + k;
            const float want = gm < s.m && gk < s.k ? a_value(gm, gk) : 0.0f;
            ASSERT_EQ(a_tile[size_t(m) * step12::a_stride(c) + k], want) << "A " << m << "," << k;
          }
        for (int k = 0; k < c.bk; ++k)
          for (int n = 0; n < c.bn; ++n) {
            const int gk = kt * c.bk + k, gn = block_n * c.bn + n;
            const float want = gk < s.k && gn < s.n ? b_value(gk, gn) : 0.0f;
            ASSERT_EQ(b_tile[size_t(k) * step12::b_stride(c) + n], want) << "B " << k << "," << n;
          }
      }
}
}  // namespace

TEST(Mapping12, TilesHoldTheLogicalOperandsInEveryLayout) {
  for (const step12::Config& c : step12::kConfigs) {
    ASSERT_STREQ(step12::config_rule(c), "");
    for (gemm::Layout layout : {gemm::Layout::nn, gemm::Layout::nt, gemm::Layout::tn})
      for (const gemm::GemmShape& s : {gemm::GemmShape{17, 33, 24}, gemm::GemmShape{129, 64, 40}, gemm::GemmShape{1, 1, 8},
                                       gemm::GemmShape{64, 136, 48}})
        check_copies(c, s, layout);
  }
}

TEST(Mapping12, FragmentsCoverTheBlockTileOnce) {
  for (const step12::Config& c : step12::kConfigs) {
    std::vector<int> covered(size_t(c.bm) * c.bn, 0);
    for (int warp = 0; warp < step12::warps(c); ++warp)
      for (int i = 0; i < c.wm / 16; ++i)
        for (int j = 0; j < c.wn / 16; ++j)
          for (int r = 0; r < 16; ++r)
            for (int col = 0; col < 16; ++col)
              ++covered[size_t(step12::fragment_row(warp, c, i) + r) * c.bn + step12::fragment_col(warp, c, j) + col];
    for (int n : covered) ASSERT_EQ(n, 1);
  }
}

TEST(Mapping12, RulesNameTheProblem) {
  EXPECT_NE(std::string(step12::config_rule({128, 128, 24, 32, 64})).find("multiples of 16"), std::string::npos);
  EXPECT_NE(std::string(step12::config_rule({128, 128, 32, 40, 64})).find("multiples of 16"), std::string::npos);
  EXPECT_NE(std::string(step12::config_rule({256, 128, 32, 32, 64})).find("not compiled in"), std::string::npos);
}

namespace {
gemm::TraceProblem problem11(const step12::Config& c, const gemm::GemmShape& s, gemm::Layout layout, float beta = 0) {
  gemm::TraceProblem p;
  p.shape = s;
  p.layout = layout;
  p.beta = beta;
  p.params = step12::to_params(c);
  return p;
}

// Every instruction of every warp of the launch.
template <typename F>
void for_each_instruction(const gemm::TraceProblem& p, F&& f) {
  const gemm::LaunchShape launch = step12::launch_shape(p.shape, step12::config_from(p.params));
  gemm::Dim3 block;
  for (block.y = 0; block.y < launch.grid.y; ++block.y)
    for (block.x = 0; block.x < launch.grid.x; ++block.x)
      for (int warp = 0; warp < step12::warps(step12::config_from(p.params)); ++warp)
        step12::trace_warp(p, block, warp, [&](const gemm::TraceInstruction& i) { f(block, i); });
}
}  // namespace

TEST(Mapping12, TraceWritesEveryElementOfCOnceAndFillsTheTiles) {
  // C: each element stored exactly once (and read once when beta != 0). The tiles: per block and
  // k-tile, every element of a_tile[BM][BK] and b_tile[BK][BN] (not the padding) written once, on
  // the 16-byte path and on the element path, transposed or not.
  for (const step12::Config& c : step12::kConfigs)
    for (gemm::Layout layout : {gemm::Layout::nn, gemm::Layout::nt, gemm::Layout::tn})
      for (const gemm::GemmShape& s : {gemm::GemmShape{17, 33, 24}, gemm::GemmShape{136, 72, 40}})
        for (float beta : {0.0f, 0.5f}) {
          const gemm::TraceProblem p = problem11(c, s, layout, beta);
          std::vector<int> stored(size_t(s.m) * s.n, 0), loaded(size_t(s.m) * s.n, 0);
          std::map<std::tuple<int, int, int>, std::vector<int>> tile_writes;  // (block, kt, operand) -> per element
          const int b_base = c.bm * step12::a_stride(c);
          for_each_instruction(p, [&](const gemm::Dim3& block, const gemm::TraceInstruction& i) {
            for (int lane = 0; lane < 32; ++lane) {
              if (!i.access.lane_active(lane)) continue;
              const long long element = i.access.address[size_t(lane)] / i.element_bytes;
              if (i.operand == gemm::Operand::C) {
                ASSERT_GE(element, 0);
                ASSERT_LT(element, (long long)s.m * s.n);
                ++(i.access.access == gemm::Access::store ? stored : loaded)[size_t(element)];
              } else if (i.access.space == gemm::Space::shared && i.access.access == gemm::Access::store &&
                         i.operand != gemm::Operand::tile) {  // the copies (not the staging stores)
                const bool is_a = i.operand == gemm::Operand::smem_A;
                const int key_block = block.y * 1000 + block.x;
                auto& writes = tile_writes[{key_block, i.iteration, is_a ? 0 : 1}];
                if (writes.empty()) writes.assign(size_t(b_base + c.bk * step12::b_stride(c)), 0);
                for (int e = 0; e < i.access.width / i.element_bytes; ++e) ++writes[size_t(element + e)];
              }
            }
          });
          for (size_t e = 0; e < stored.size(); ++e) {
            ASSERT_EQ(stored[e], 1) << "C element " << e;
            ASSERT_EQ(loaded[e], beta != 0 ? 1 : 0);
          }
          for (const auto& [key, writes] : tile_writes) {
            const bool is_a = std::get<2>(key) == 0;
            const int rows = is_a ? c.bm : c.bk, cols = is_a ? c.bk : c.bn;
            const int stride = is_a ? step12::a_stride(c) : step12::b_stride(c), base = is_a ? 0 : b_base;
            for (int r = 0; r < rows; ++r)
              for (int col = 0; col < cols; ++col) ASSERT_EQ(writes[size_t(base + r * stride + col)], 1) << r << "," << col;
          }
          ASSERT_EQ(tile_writes.size(), size_t(2 * step12::launch_shape(s, c).grid.x * step12::launch_shape(s, c).grid.y *
                                               step12::k_tiles(s, c)));
        }
}

TEST(Mapping12, WhatTheCopiesCostInTheBanks) {
  // The default configuration at an aligned shape, in every layout:
  //  - every 16-byte global read takes just the sectors its bytes need (coalesced);
  //  - a 16-byte store of B along a b_tile row (136 elements) is conflict-free;
  //  - a 16-byte store of A along an a_tile row is not: a row is 4 chunks (BK = 32), so one phase of
  //    8 lanes writes two rows, and with rows 40 elements (20 words) apart the second row's last
  //    chunk falls in the banks of the first row's first: 2 wavefronts per phase instead of 1. The
  //    padding that causes it is there for the fragment loads, which read 8 rows at once; step 14's
  //    swizzle serves both;
  //  - each transposed 2-byte store (A in TN, B in NT) passes through the banks twice (a_chunk);
  //  - the epilogue's reads of the staging tile are conflict-free.
  const step12::Config& c = step12::kConfigs[0];
  for (gemm::Layout layout : {gemm::Layout::nn, gemm::Layout::nt, gemm::Layout::tn}) {
    int transposed = 0, a_rows = 0;
    step12::trace_warp(problem11(c, {256, 256, 64}, layout), {0, 0, 0}, 1, [&](const gemm::TraceInstruction& i) {
      if (i.access.space == gemm::Space::global && i.operand != gemm::Operand::C) {
        const gemm::GlobalCost cost = gemm::global_cost(i.access);
        EXPECT_EQ(cost.sectors, cost.ideal_sectors) << i.label;
      }
      if (i.access.space == gemm::Space::shared && i.access.access == gemm::Access::store &&
          i.operand != gemm::Operand::tile) {  // the copies (the staging stores: the next test)
        const gemm::SharedCost cost = gemm::shared_cost(i.access);
        if (i.access.width == 2) {
          EXPECT_EQ(cost.wavefronts, 2) << i.label;
          ++transposed;
        } else if (i.operand == gemm::Operand::smem_A) {
          EXPECT_EQ(cost.wavefronts, 2 * cost.ideal_wavefronts) << i.label;
          ++a_rows;
        } else {
          EXPECT_EQ(cost.wavefronts, cost.ideal_wavefronts) << i.label;
        }
      }
      if (i.access.space == gemm::Space::shared && i.access.access == gemm::Access::load) {
        EXPECT_EQ(gemm::shared_cost(i.access).max_conflict, 1) << i.label;
      }
    });
    EXPECT_EQ(transposed > 0, layout != gemm::Layout::nn);
    EXPECT_EQ(a_rows > 0, layout != gemm::Layout::tn);
  }
}

TEST(Mapping12, WhatWmmaCompilesToCostsInTheBanks) {
  // What the compiler makes of wmma (mapping.hpp), in every configuration and layout:
  //  - each fragment load, an ldmatrix.x4, takes the least it can, 4 wavefronts: the 8 rows of one
  //    8 x 8 matrix are a padded row (16 bytes) apart, so they fall in 8 different groups of banks;
  //  - each of the four 8-byte stores of store_matrix_sync takes 4 where 2 would do: a phase of 16
  //    lanes writes 4 rows of the 16-float staging tile, and rows r and r + 2 (32 floats apart)
  //    share banks. Nsight Compute's source view counts the same per instruction.
  // And per k-step, one load per fragment row and column of the warp tile; per fragment of C, 4
  // staging stores.
  for (const step12::Config& c : step12::kConfigs)
    for (gemm::Layout layout : {gemm::Layout::nn, gemm::Layout::nt, gemm::Layout::tn}) {
      int a_loads = 0, b_loads = 0, staging_stores = 0;
      const gemm::GemmShape shape{c.bm * 2, c.bn * 2, c.bk * 3};
      step12::trace_warp(problem11(c, shape, layout), {1, 0, 0}, 0, [&](const gemm::TraceInstruction& i) {
        if (i.access.space != gemm::Space::shared) return;
        const gemm::SharedCost cost = gemm::shared_cost(i.access);
        if (i.access.access == gemm::Access::load && i.access.width == 16) {
          EXPECT_EQ(cost.wavefronts, 4) << i.label;
          ++(i.operand == gemm::Operand::smem_A ? a_loads : b_loads);
        }
        if (i.access.access == gemm::Access::store && i.operand == gemm::Operand::tile) {
          EXPECT_EQ(cost.wavefronts, 4) << i.label;
          EXPECT_EQ(cost.ideal_wavefronts, 2) << i.label;
          ++staging_stores;
        }
      });
      const int steps = 3 * c.bk / step12::kFragment;
      EXPECT_EQ(a_loads, steps * c.wm / step12::kFragment);
      EXPECT_EQ(b_loads, steps * c.wn / step12::kFragment);
      EXPECT_EQ(staging_stores, step12::kStagingStores * (c.wm / step12::kFragment) * (c.wn / step12::kFragment));
    }
}

TEST(Mapping12, StagingStoresWriteTheFragmentOnce) {
  // The four stores of store_matrix_sync cover the 16 x 16 staging tile exactly once.
  std::vector<int> written(step12::kFragment * step12::kFragment, 0);
  for (int store = 0; store < step12::kStagingStores; ++store)
    for (int lane = 0; lane < 32; ++lane)
      for (int e = 0; e < 2; ++e) ++written[size_t(step12::wmma_store_element(lane, store) + e)];
  for (int count : written) EXPECT_EQ(count, 1);
}
