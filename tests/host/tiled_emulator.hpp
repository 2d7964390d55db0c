// Runs a shared-memory-tiled kernel's algorithm on the host, block by block, with the step's own
// index functions, so that a mapping can be checked against the CPU reference without a GPU.
//
// Step is an adapter with:
//   LaunchShape launch(shape); int threads(); int a_words(); int b_words(); int results();
//   int k_tiles(shape);
//   void copy(shape, t, kt, a, b, a_tile, b_tile)   -- the thread's stores into both tiles
//   void accumulate(t, a_tile, b_tile, acc)         -- the thread's multiply-adds for one k-tile
//   CElement result(shape, t, r)                    -- where the thread's result r goes
#pragma once

#include <gtest/gtest.h>

#include <cmath>
#include <vector>

#include "cpu_gemm.hpp"
#include "hd.hpp"
#include "random.hpp"

namespace gemm::testing {

template <typename Step>
void check_tiled_emulation(const Step& step, const GemmShape& s) {
  std::vector<float> a(size_t(s.m) * s.k), b(size_t(s.k) * s.n), zero(size_t(s.m) * s.n, 0.0f);
  fill_uniform(a, 11, 0);
  fill_uniform(b, 11, 1);
  std::vector<float> c(zero.size(), NAN);
  std::vector<int> writes(zero.size(), 0);
  const LaunchShape launch = step.launch(s);
  const int threads = step.threads();
  std::vector<float> a_tile(size_t(step.a_words())), b_tile(size_t(step.b_words()));
  std::vector<float> acc(size_t(threads) * step.results());
  ThreadCoord t;
  for (t.block.y = 0; t.block.y < launch.grid.y; ++t.block.y)
    for (t.block.x = 0; t.block.x < launch.grid.x; ++t.block.x) {
      std::fill(acc.begin(), acc.end(), 0.0f);
      for (int kt = 0; kt < step.k_tiles(s); ++kt) {
        std::fill(a_tile.begin(), a_tile.end(), NAN);  // a word no thread stores poisons the result
        std::fill(b_tile.begin(), b_tile.end(), NAN);
        for (t.thread.x = 0; t.thread.x < threads; ++t.thread.x) step.copy(s, t, kt, a, b, a_tile, b_tile);
        for (t.thread.x = 0; t.thread.x < threads; ++t.thread.x)
          step.accumulate(t, a_tile, b_tile, &acc[size_t(t.thread.x) * step.results()]);
      }
      for (t.thread.x = 0; t.thread.x < threads; ++t.thread.x)
        for (int r = 0; r < step.results(); ++r) {
          const CElement e = step.result(s, t, r);
          if (!e.valid) continue;
          ASSERT_TRUE(e.row < s.m && e.col < s.n);
          c[size_t(e.row) * s.n + e.col] = acc[size_t(t.thread.x) * step.results() + r];
          ++writes[size_t(e.row) * s.n + e.col];
        }
    }
  std::vector<double> reference(zero.size());
  cpu_gemm_naive(s.m, s.n, s.k, 1.0, a.data(), b.data(), 0.0, zero.data(), reference.data());
  for (size_t i = 0; i < c.size(); ++i) {
    ASSERT_EQ(writes[i], 1) << "element " << i << " of " << s.m << "x" << s.n << "x" << s.k;
    ASSERT_NEAR(c[i], reference[i], 1e-4 * (1 + std::sqrt(double(s.k)))) << "element " << i;
  }
}

// Shapes for the tiled steps: tiny, odd, a partial last k-tile, several blocks.
inline std::vector<GemmShape> tiled_shapes() { return {{1, 1, 1}, {17, 33, 65}, {130, 70, 37}, {64, 128, 16}}; }

}  // namespace gemm::testing
