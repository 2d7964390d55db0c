// Step 11: the tile copies of every layout, emulated on the host with the kernel's index functions:
// the shared tiles must hold the logical A[m][k] and B[k][n] of the block and k-tile, zeros outside
// the matrices, whatever the layout in global memory, on the wide (16-byte) and narrow paths.
#include <gtest/gtest.h>

#include <cmath>
#include <string>
#include <vector>

#include "../../steps/11_wmma/mapping.hpp"

namespace {
void check_copies(const step11::Config& c, const gemm::GemmShape& s, gemm::Layout layout) {
  // Stored matrices hold a code of the logical position, so a misplaced element shows.
  auto a_value = [&](int m, int k) { return float(m * 1000 + k + 1); };
  auto b_value = [&](int k, int n) { return float(-(k * 1000 + n + 1)); };
  const int a_rows = step11::a_stored_rows(s, layout), a_cols = step11::a_stored_cols(s, layout);
  const int b_rows = step11::b_stored_rows(s, layout), b_cols = step11::b_stored_cols(s, layout);
  std::vector<float> a(size_t(a_rows) * a_cols), b(size_t(b_rows) * b_cols);
  for (int r = 0; r < a_rows; ++r)
    for (int col = 0; col < a_cols; ++col)
      a[size_t(r) * a_cols + col] = layout == gemm::Layout::tn ? a_value(col, r) : a_value(r, col);
  for (int r = 0; r < b_rows; ++r)
    for (int col = 0; col < b_cols; ++col)
      b[size_t(r) * b_cols + col] = layout == gemm::Layout::nt ? b_value(col, r) : b_value(r, col);
  const gemm::LaunchShape launch = step11::launch_shape(s, c);
  for (int block_m = 0; block_m < launch.grid.y; ++block_m)
    for (int block_n = 0; block_n < launch.grid.x; ++block_n)
      for (int kt = 0; kt < step11::k_tiles(s, c); ++kt) {
        std::vector<float> a_tile(size_t(c.bm) * step11::a_stride(c), NAN), b_tile(size_t(c.bk) * step11::b_stride(c), NAN);
        for (int index = 0; index < step11::a_chunks(c); ++index) {
          const step11::Chunk ch = step11::a_chunk(s, layout, c, block_m, kt, index);
          for (int e = 0; e < step11::kChunk; ++e) {
            const bool inside = step11::wide_rows(a_cols) ? ch.valid : step11::element_valid(ch, e, a_rows, a_cols);
            if (step11::wide_rows(a_cols) && ch.valid) {
              ASSERT_TRUE(step11::element_valid(ch, e, a_rows, a_cols));
            }
            a_tile[size_t(step11::a_tile_index(ch, c, e))] = inside ? a[size_t(step11::stored_index(ch, a_cols) + e)] : 0.0f;
          }
        }
        for (int index = 0; index < step11::b_chunks(c); ++index) {
          const step11::Chunk ch = step11::b_chunk(s, layout, c, block_n, kt, index);
          for (int e = 0; e < step11::kChunk; ++e) {
            const bool inside = step11::wide_rows(b_cols) ? ch.valid : step11::element_valid(ch, e, b_rows, b_cols);
            b_tile[size_t(step11::b_tile_index(ch, c, e))] = inside ? b[size_t(step11::stored_index(ch, b_cols) + e)] : 0.0f;
          }
        }
        for (int m = 0; m < c.bm; ++m)
          for (int k = 0; k < c.bk; ++k) {
            const int gm = block_m * c.bm + m, gk = kt * c.bk + k;
            const float want = gm < s.m && gk < s.k ? a_value(gm, gk) : 0.0f;
            ASSERT_EQ(a_tile[size_t(m) * step11::a_stride(c) + k], want) << "A " << m << "," << k;
          }
        for (int k = 0; k < c.bk; ++k)
          for (int n = 0; n < c.bn; ++n) {
            const int gk = kt * c.bk + k, gn = block_n * c.bn + n;
            const float want = gk < s.k && gn < s.n ? b_value(gk, gn) : 0.0f;
            ASSERT_EQ(b_tile[size_t(k) * step11::b_stride(c) + n], want) << "B " << k << "," << n;
          }
      }
}
}  // namespace

TEST(Mapping11, TilesHoldTheLogicalOperandsInEveryLayout) {
  for (const step11::Config& c : step11::kConfigs) {
    ASSERT_STREQ(step11::config_rule(c), "");
    for (gemm::Layout layout : {gemm::Layout::nn, gemm::Layout::nt, gemm::Layout::tn})
      for (const gemm::GemmShape& s : {gemm::GemmShape{17, 33, 24}, gemm::GemmShape{129, 64, 40}, gemm::GemmShape{1, 1, 8},
                                       gemm::GemmShape{64, 136, 48}})
        check_copies(c, s, layout);
  }
}

TEST(Mapping11, FragmentsCoverTheBlockTileOnce) {
  for (const step11::Config& c : step11::kConfigs) {
    std::vector<int> covered(size_t(c.bm) * c.bn, 0);
    for (int warp = 0; warp < step11::warps(c); ++warp)
      for (int i = 0; i < c.wm / 16; ++i)
        for (int j = 0; j < c.wn / 16; ++j)
          for (int r = 0; r < 16; ++r)
            for (int col = 0; col < 16; ++col)
              ++covered[size_t(step11::fragment_row(warp, c, i) + r) * c.bn + step11::fragment_col(warp, c, j) + col];
    for (int n : covered) ASSERT_EQ(n, 1);
  }
}

TEST(Mapping11, RulesNameTheProblem) {
  EXPECT_NE(std::string(step11::config_rule({128, 128, 24, 32, 64})).find("multiples of 16"), std::string::npos);
  EXPECT_NE(std::string(step11::config_rule({128, 128, 32, 40, 64})).find("multiples of 16"), std::string::npos);
  EXPECT_NE(std::string(step11::config_rule({256, 128, 32, 32, 64})).find("not compiled in"), std::string::npos);
}
