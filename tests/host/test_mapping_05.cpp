// Step 05: the tiled mapping, checked without a GPU by running the kernel's algorithm on the host
// with the same index functions, block by block, and comparing with the CPU reference.
#include <gtest/gtest.h>

#include <cmath>
#include <vector>

#include "../../steps/05_smem_tiling/mapping.hpp"
#include "cpu_gemm.hpp"
#include "mapping_coverage.hpp"
#include "random.hpp"

namespace {

// The kernel's steps, one block at a time: copy the tiles (every thread), then every thread's
// multiply-adds, then the stores of valid threads.
std::vector<float> emulate(const gemm::GemmShape& s, const std::vector<float>& a, const std::vector<float>& b,
                           std::vector<int>& writes) {
  std::vector<float> c(size_t(s.m) * s.n, NAN);
  const gemm::LaunchShape launch = step05::launch_shape(s);
  std::vector<float> a_tile(step05::kTile * step05::kTile), b_tile(step05::kTile * step05::kTile);
  std::vector<float> acc(size_t(launch.block.x) * launch.block.y);
  gemm::ThreadCoord t;
  for (t.block.y = 0; t.block.y < launch.grid.y; ++t.block.y)
    for (t.block.x = 0; t.block.x < launch.grid.x; ++t.block.x) {
      std::fill(acc.begin(), acc.end(), 0.0f);
      for (int kt = 0; kt < step05::k_tiles(s); ++kt) {
        std::fill(a_tile.begin(), a_tile.end(), NAN);  // an unwritten word would poison the result
        std::fill(b_tile.begin(), b_tile.end(), NAN);
        for (t.thread.y = 0; t.thread.y < launch.block.y; ++t.thread.y)
          for (t.thread.x = 0; t.thread.x < launch.block.x; ++t.thread.x) {
            const auto from_a = step05::a_tile_source(s, t, kt), from_b = step05::b_tile_source(s, t, kt);
            if (from_a.valid) {
              EXPECT_LT(step05::a_index(s, from_a), s.m * s.k);
            }
            if (from_b.valid) {
              EXPECT_LT(step05::b_index(s, from_b), s.k * s.n);
            }
            a_tile[size_t(step05::tile_store_index(t))] = from_a.valid ? a[size_t(step05::a_index(s, from_a))] : 0.0f;
            b_tile[size_t(step05::tile_store_index(t))] = from_b.valid ? b[size_t(step05::b_index(s, from_b))] : 0.0f;
          }
        for (t.thread.y = 0; t.thread.y < launch.block.y; ++t.thread.y)
          for (t.thread.x = 0; t.thread.x < launch.block.x; ++t.thread.x)
            for (int kk = 0; kk < step05::kTile; ++kk)
              acc[size_t(t.thread.y * launch.block.x + t.thread.x)] +=
                  a_tile[size_t(step05::a_tile_load_index(t, kk))] * b_tile[size_t(step05::b_tile_load_index(t, kk))];
      }
      for (t.thread.y = 0; t.thread.y < launch.block.y; ++t.thread.y)
        for (t.thread.x = 0; t.thread.x < launch.block.x; ++t.thread.x) {
          const gemm::CElement e = step05::c_element(s, t);
          if (!e.valid) continue;
          c[size_t(step05::c_index(s, e))] = acc[size_t(t.thread.y * launch.block.x + t.thread.x)];
          ++writes[size_t(step05::c_index(s, e))];
        }
    }
  return c;
}

}  // namespace

TEST(Mapping05, HostEmulationMatchesReference) {
  for (const gemm::GemmShape& s : gemm::testing::coverage_shapes()) {
    if (double(s.m) * s.n * s.k > 3e7) continue;  // keep the emulation quick
    std::vector<float> a(size_t(s.m) * s.k), b(size_t(s.k) * s.n), c0(size_t(s.m) * s.n, 0.0f);
    gemm::fill_uniform(a, 7, 0);
    gemm::fill_uniform(b, 7, 1);
    std::vector<int> writes(c0.size(), 0);
    const std::vector<float> c = emulate(s, a, b, writes);
    std::vector<double> reference(c0.size());
    gemm::cpu_gemm_naive(s.m, s.n, s.k, 1.0, a.data(), b.data(), 0.0, c0.data(), reference.data());
    for (size_t i = 0; i < c.size(); ++i) {
      ASSERT_EQ(writes[i], 1) << gemm::testing::shape_name(s) << " element " << i;
      ASSERT_NEAR(c[i], reference[i], 1e-4 * (1 + std::sqrt(double(s.k)))) << gemm::testing::shape_name(s);
    }
  }
}

TEST(Mapping05, TileCopiesAreCoalescedAndConflictFree) {
  // Warp 0 of block 0 at k-tile 0 of a 256^3 problem.
  const gemm::GemmShape s{256, 256, 256};
  gemm::TraceProblem problem;
  problem.shape = s;
  int instruction = 0;
  step05::trace_warp(problem, {0, 0, 0}, 0, [&](const gemm::TraceInstruction& i) {
    if (i.iteration != 0) return;
    if (i.access.space == gemm::Space::global) {
      EXPECT_EQ(gemm::global_cost(i.access).sectors, 4) << i.label;  // 32 consecutive floats
    } else {
      // A 16-byte broadcast takes 2 wavefronts (two quarter-warp pairs); everything else is 1.
      EXPECT_EQ(gemm::shared_cost(i.access).wavefronts, i.access.width == 16 ? 2 : 1) << i.label;
      EXPECT_EQ(gemm::shared_cost(i.access).max_conflict, 1) << i.label;
    }
    ++instruction;
  });
  EXPECT_EQ(instruction, 2 + 2 + step05::kTile / step05::kAMergedLoads + step05::kTile);
}
