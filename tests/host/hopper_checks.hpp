// Checks shared by the Hopper steps' host tests (test_mapping_15.cpp .. test_mapping_18.cpp): what
// the copy engine writes (TMA boxes with the 128-byte swizzle) against what the step's tile_byte
// says and what a wgmma reads through its descriptor; the wgmma accumulator layout; C's updates in
// a whole launch's trace. Generic over the step's functions, passed as lambdas.
#pragma once

#include <gtest/gtest.h>

#include <cstdint>
#include <string>
#include <vector>

#include "access_model.hpp"
#include "hd.hpp"
#include "trace.hpp"

namespace gemm::hopper_testing {

// The 128-byte swizzle as the hardware applies it to a shared address (CUTLASS's Swizzle<3,4,3>):
// bits 4-6 (the 16-byte chunk) XOR bits 7-9 (the 128-byte row within a 1024-byte period).
inline unsigned swizzle(unsigned address) { return address ^ (((address >> 7) & 7u) << 4); }

// The byte a wgmma reads for element (mn, k) of its 64 x 16 (A) or 16 x N (B) operand, from the
// descriptor's fields, using CUTLASS's canonical 128-byte-swizzled layouts:
//   K-major:  ((8, m), (8, 2)) : ((128 B, SBO), (2 B, 16 B))
//   MN-major: ((64, m), (8, k)) : ((2 B, LBO), (128 B, SBO))
inline unsigned wgmma_reads(std::uint64_t descriptor, bool k_major, int mn, int k) {
  const unsigned start = unsigned(descriptor & 0x3fff) << 4;
  const unsigned leading = unsigned((descriptor >> 16) & 0x3fff) << 4;
  const unsigned stride = unsigned((descriptor >> 32) & 0x3fff) << 4;
  EXPECT_EQ(descriptor >> 62, 1u) << "128-byte swizzle";
  unsigned linear;
  if (k_major)
    linear = start + unsigned(mn % 8) * 128 + unsigned(mn / 8) * stride + unsigned(k) * 2;
  else
    linear = start + unsigned(mn % 64) * 2 + unsigned(mn / 64) * leading + unsigned(k % 8) * 128 + unsigned(k / 8) * stride;
  return swizzle(linear);
}

// Every element (mn, k) of one wgmma's operand (rows x 16), read through `descriptor`, is the
// element (mn0 + mn, k0 + k) of the tile that starts at `tile_base`, where tile_byte(mn, k) puts it.
template <typename TileByte>
void expect_wgmma_reads_the_tile(std::uint64_t descriptor, bool k_major, int rows, unsigned tile_base, int mn0, int k0,
                                 TileByte tile_byte, const std::string& what) {
  constexpr int kWgmmaK = 16;
  for (int mn = 0; mn < rows; ++mn)
    for (int k = 0; k < kWgmmaK; ++k)
      ASSERT_EQ(wgmma_reads(descriptor, k_major, mn, k), tile_base + unsigned(tile_byte(mn0 + mn, k0 + k)))
          << what << (k_major ? " k-major" : " mn-major") << " element " << mn << "," << k;
}

// An operand's boxes as the copy engine moves them: box b lands at b * box_bytes of the tile, its
// element (inner i, outer o) at row o, swizzled (the box starts on the swizzle's 1024-byte period).
// That byte must be where tile_byte puts the tile element the box holds there, found from the box's
// first element in the matrix (box_at(mn0, kt, b) = {inner, outer}): every element of the tile
// exactly once, over all boxes.
struct BoxedOperand {
  bool k_major = true;
  int box_outer = 0, boxes = 0, box_bytes = 0;
};
template <typename TileByte, typename BoxAt>
void expect_boxes_land_where_tile_byte_says(const BoxedOperand& op, int rows, int bk, TileByte tile_byte, BoxAt box_at,
                                            const std::string& what) {
  constexpr int kBoxInner = 64;
  const int mn0 = 3 * rows, kt = 2;  // any tile, any k-tile
  std::vector<int> covered(size_t(rows) * size_t(bk), 0);
  for (int box = 0; box < op.boxes; ++box) {
    ASSERT_EQ(op.box_bytes % 1024, 0) << what << ": a box must start on the swizzle's period";
    ASSERT_EQ(op.box_bytes, kBoxInner * op.box_outer * 2) << what;
    const auto first = box_at(mn0, kt, box);
    for (int o = 0; o < op.box_outer; ++o)
      for (int i = 0; i < kBoxInner; ++i) {
        // The element's place in the matrix, then in the tile.
        const int inner = first.inner + i, outer = first.outer + o;
        const int mn = (op.k_major ? outer : inner) - mn0, k = (op.k_major ? inner : outer) - kt * bk;
        ASSERT_TRUE(mn >= 0 && mn < rows && k >= 0 && k < bk) << what << " box " << box << " element " << i << "," << o;
        ++covered[size_t(mn) * size_t(bk) + size_t(k)];
        const unsigned written = unsigned(box * op.box_bytes) + swizzle(unsigned(o) * 128 + unsigned(i) * 2);
        ASSERT_EQ(unsigned(tile_byte(mn, k)), written) << what << " box " << box << " element " << i << "," << o;
      }
  }
  for (int n : covered) ASSERT_EQ(n, 1) << what;
}

// The wgmma accumulators of a warpgroup (4 warps x 32 lanes x BN / 2 registers) hold each element
// of its 64 x BN product once.
template <typename RowFn, typename ColFn>
void expect_accumulators_cover_64_by(int bn, RowFn accumulator_row, ColFn accumulator_col) {
  std::vector<int> covered(size_t(64) * size_t(bn), 0);
  for (int warp = 0; warp < 4; ++warp)
    for (int lane = 0; lane < 32; ++lane)
      for (int reg = 0; reg < bn / 2; ++reg) {
        const int row = accumulator_row(warp, lane, reg), col = accumulator_col(lane, reg);
        ASSERT_TRUE(row >= 0 && row < 64 && col >= 0 && col < bn) << "BN " << bn << " reg " << reg;
        ++covered[size_t(row) * size_t(bn) + size_t(col)];
      }
  for (int n : covered) ASSERT_EQ(n, 1) << "BN " << bn;
}

// A whole launch's trace, for f32 C: how often each element of C is stored and loaded, and the
// totals. Only C is touched by ordinary instructions (the copies are the copy engine's, wgmma reads
// shared memory itself), never outside C, and each tile's iteration is below `max_iteration`.
struct CUpdates {
  std::vector<int> stored, loaded;
  AccessTotals totals;
  std::vector<int> widths;  // of every C instruction, in bytes per lane
};
template <typename TraceFn>
CUpdates trace_c_updates(const TraceProblem& problem, const LaunchShape& launch, int max_iteration, TraceFn trace_warp) {
  const GemmShape& s = problem.shape;
  CUpdates u;
  u.stored.assign(size_t(s.m) * size_t(s.n), 0);
  u.loaded = u.stored;
  u.totals = predict_launch(launch, [&](const Dim3& block, int warp, const TraceSink& sink) {
    trace_warp(problem, block, warp, [&](const TraceInstruction& i) {
      sink(i);
      EXPECT_EQ(i.operand, Operand::C) << i.label;
      EXPECT_EQ(i.access.space, Space::global) << i.label;
      EXPECT_GE(i.iteration, 0);
      EXPECT_LT(i.iteration, max_iteration);
      u.widths.push_back(i.access.width);
      for (int lane = 0; lane < 32; ++lane) {
        if (!i.access.lane_active(lane)) continue;
        const long long element = i.access.address[size_t(lane)] / 4;
        for (int e = 0; e < i.access.width / 4; ++e) {
          const long long at = element + e;
          EXPECT_TRUE(at >= 0 && at < (long long)u.stored.size()) << "outside C: " << at;
          if (at < 0 || at >= (long long)u.stored.size()) continue;
          ++(i.access.access == Access::store ? u.stored : u.loaded)[size_t(at)];
        }
      }
    });
  });
  return u;
}

// Every element of C stored once, and read once exactly where beta != 0.
inline void expect_c_updated_once(const CUpdates& u, float beta, const std::string& what) {
  for (size_t e = 0; e < u.stored.size(); ++e) {
    ASSERT_EQ(u.stored[e], 1) << what << ": C element " << e;
    ASSERT_EQ(u.loaded[e], beta != 0 ? 1 : 0) << what << ": C element " << e;
  }
}

}  // namespace gemm::hopper_testing
