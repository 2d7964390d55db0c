// Checks shared by the Hopper steps' host tests (their test_mapping_NN.cpp): what
// TMA writes (its boxes with the 128-byte swizzle) against what the step's tile_byte
// says and what a wgmma reads through its descriptor, for 2-byte elements (f16, bf16: k = 16 per
// wgmma) or 1-byte ones (FP8: k = 32); the wgmma accumulator layout; C's updates in a whole launch's
// trace. Generic over the step's functions, passed as lambdas. Steps 18 and 19, which share the
// persistent grid with narrow tiles and the epilogue staged through shared memory, are checked
// below by templates over a struct that names the step's functions (Step18 and Step19 in their
// tests).
#pragma once

#include <gtest/gtest.h>

#include <algorithm>
#include <cstdint>
#include <map>
#include <set>
#include <string>
#include <type_traits>
#include <utility>
#include <vector>

#include "access_model.hpp"
#include "hd.hpp"
#include "hopper_shared.hpp"
#include "trace.hpp"

namespace gemm::hopper_testing {

// The byte a wgmma reads for element (mn, k) of its 64 x K (A) or K x N (B) operand (K = 32 bytes:
// 16 2-byte or 32 1-byte elements), decoded from the descriptor's fields by the decoder the viewer
// draws with too (common/host/hopper_shared.hpp: the 128-byte swizzle, or step 26's 32-byte one;
// CUTLASS's canonical K-major and MN-major layouts).
inline unsigned wgmma_reads(std::uint64_t descriptor, bool k_major, int mn, int k, int element_bytes = 2) {
  const hopper::MatrixDescriptor d = hopper::decode_descriptor(descriptor);
  EXPECT_TRUE(hopper::decodable(d)) << "a swizzle mode, base offset 0";
  return hopper::descriptor_byte(d, k_major, mn, k, element_bytes);
}

// Every element (mn, k) of one wgmma's operand (rows x wgmma_k: 16 2-byte k's, or 32 1-byte ones
// for FP8), read through `descriptor`, is the element (mn0 + mn, k0 + k) of the tile that starts at
// `tile_base`, where tile_byte(mn, k) puts it.
template <typename TileByte>
void expect_wgmma_reads_the_tile(std::uint64_t descriptor, bool k_major, int rows, unsigned tile_base, int mn0, int k0,
                                 TileByte tile_byte, const std::string& what, int wgmma_k = 16, int element_bytes = 2) {
  for (int mn = 0; mn < rows; ++mn)
    for (int k = 0; k < wgmma_k; ++k)
      ASSERT_EQ(wgmma_reads(descriptor, k_major, mn, k, element_bytes), tile_base + unsigned(tile_byte(mn0 + mn, k0 + k)))
          << what << (k_major ? " k-major" : " mn-major") << " element " << mn << "," << k;
}

// An operand's boxes as TMA moves them: box b lands at b * box_bytes of the tile, its
// element (inner i, outer o) at row o, byte i * element_bytes of the row, swizzled (the box starts
// on the swizzle's 1024-byte period); a row is 128 bytes, 128 / element_bytes elements.
// That byte must be where tile_byte puts the tile element the box holds there, found from the box's
// first element in the matrix (box_at(mn0, kt, b) = {inner, outer}): every element of the tile
// exactly once, over all boxes.
struct BoxedOperand {
  bool k_major = true;
  int box_outer = 0, boxes = 0, box_bytes = 0;
  int element_bytes = 2;  // f16, bf16; 1 for FP8
};
template <typename TileByte, typename BoxAt>
void expect_boxes_land_where_tile_byte_says(const BoxedOperand& op, int rows, int bk, TileByte tile_byte, BoxAt box_at,
                                            const std::string& what) {
  const int box_inner = 128 / op.element_bytes;  // one swizzled row
  const int mn0 = 3 * rows, kt = 2;  // any tile, any k-tile
  std::vector<int> covered(size_t(rows) * size_t(bk), 0);
  for (int box = 0; box < op.boxes; ++box) {
    ASSERT_EQ(op.box_bytes % 1024, 0) << what << ": a box must start on the swizzle's period";
    ASSERT_EQ(op.box_bytes, box_inner * op.box_outer * op.element_bytes) << what;
    const auto first = box_at(mn0, kt, box);
    for (int o = 0; o < op.box_outer; ++o)
      for (int i = 0; i < box_inner; ++i) {
        // The element's place in the matrix, then in the tile.
        const int inner = first.inner + i, outer = first.outer + o;
        const int mn = (op.k_major ? outer : inner) - mn0, k = (op.k_major ? inner : outer) - kt * bk;
        ASSERT_TRUE(mn >= 0 && mn < rows && k >= 0 && k < bk) << what << " box " << box << " element " << i << "," << o;
        ++covered[size_t(mn) * size_t(bk) + size_t(k)];
        const unsigned written = hopper::tma_landing_byte(unsigned(box * op.box_bytes), i, o, op.element_bytes);
        ASSERT_EQ(unsigned(tile_byte(mn, k)), written) << what << " box " << box << " element " << i << "," << o;
      }
  }
  for (int n : covered) ASSERT_EQ(n, 1) << what;
}

// The slices of a tile (steps 22 and 26, whose widths are not all multiples of a slice): each one
// box of C (64 16-bit or 32 f32 columns), starting on a multiple of its width but the last, which
// ends at the tile's edge. Together they cover the tile; the read-back path, which skips the
// columns an earlier slice stored, stores each column once. Where the width divides, the slices
// are the plain ones (BN / slice_cols of them).
template <typename Configs, typename SliceCols, typename SliceCount, typename SliceFirstCol, typename ReadBackStores>
void expect_slices_end_at_the_tile_edge(const Configs& configs, SliceCols slice_cols, SliceCount slice_count,
                                        SliceFirstCol slice_first_col, ReadBackStores read_back_stores) {
  for (const auto& c : configs)
    for (const int staged : {2, 4}) {
      const std::string what = "BN " + std::to_string(c.bn) + ", " + std::to_string(staged) + "-byte staging";
      const int cols = slice_cols(staged), count = slice_count(c.bn, staged);
      std::vector<int> covered(size_t(c.bn), 0), read_back(size_t(c.bn), 0);
      for (int slice = 0; slice < count; ++slice) {
        const int first = slice_first_col(slice, c.bn, staged);
        ASSERT_GE(first, 0) << what;
        ASSERT_LE(first + cols, c.bn) << what << " slice " << slice;
        if (slice + 1 < count) {
          EXPECT_EQ(first, slice * cols) << what;
        } else {
          EXPECT_EQ(first + cols, c.bn) << what << ": the last slice ends at the tile's edge";
        }
        for (int col = first; col < first + cols; ++col) {
          ++covered[size_t(col)];
          if (read_back_stores(slice, first, col - first, staged)) ++read_back[size_t(col)];  // the kernel's and the trace's
        }
      }
      for (int col = 0; col < c.bn; ++col) {
        ASSERT_GE(covered[size_t(col)], 1) << what << " column " << col;
        ASSERT_EQ(read_back[size_t(col)], 1) << what << " column " << col;
      }
      if (c.bn % cols == 0) {
        EXPECT_EQ(count, c.bn / cols) << what;
      }
    }
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
// totals. Only C is touched by ordinary instructions (the copies are TMA's, wgmma reads
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


// --- Steps 18 and 19: the persistent grid with narrow tiles, the epilogue staged in shared memory ---
//
// The templates below take the step as `Step`, a struct that names its functions and constants
// (Step18 in test_mapping_18.cpp, Step19 in test_mapping_19.cpp):
//   Config, kConfigs; tiles_m, tiles_n, tiles, units, unit_rows, narrow_tile, narrow_units, tile_at,
//   launch_shape, persistent_clusters, grid_time, kNarrowCols, kNarrowUnitsPerWhole;
//   consumers, kWgmmaM, kWarpgroup, accumulator_row, accumulator_col; slice_cols, c_box_cols,
//   staging_byte, staging_half_byte, c_box, staged_chunk, kRun, kReadBacks, kStagingBytes,
//   kStagingSlices, kStagingBoxBytes, tma_stores_c; to_params, trace_launch_shape, trace_warp, and
//   shape_rule (the shapes the step's kernels take: "" or the rule broken).

// The units cluster `cluster` of `clusters` takes, in the kernel's order: the step's own walk
// (Step::cluster_units, step 25's places), else the round robin of steps 17-24 (q, q + clusters, ...).
template <typename Step, typename = void>
struct ClusterUnits {
  static std::vector<int> of(const GemmShape& s, const typename Step::Config& c, int cluster, int clusters) {
    std::vector<int> taken;
    for (int u = cluster; u < Step::units(s, c); u += clusters) taken.push_back(u);
    return taken;
  }
};
template <typename Step>
struct ClusterUnits<Step, std::void_t<decltype(&Step::cluster_units)>> {
  static std::vector<int> of(const GemmShape& s, const typename Step::Config& c, int cluster, int clusters) {
    return Step::cluster_units(s, c, cluster, clusters);
  }
};

// The persistent grid: whole clusters, at most one block per SM; cluster q takes its units
// (ClusterUnits); the blocks of a cluster take tiles one above the other on one column; every
// tile of C is taken once (a unit's lower tile may lie below C only where the tile rows do not
// divide by CLUSTER, and is then not stored).
template <typename Step>
void expect_persistent_blocks_take_every_tile_once(const std::vector<GemmShape>& shapes, int sms) {
  for (const typename Step::Config& c : Step::kConfigs)
    for (const GemmShape& s : shapes) {
      const std::string what = "BN " + std::to_string(c.bn) + " cluster " + std::to_string(c.cluster) + " at " +
                               std::to_string(s.m) + "x" + std::to_string(s.n) + "x" + std::to_string(s.k);
      const LaunchShape launch = Step::launch_shape(s, c, sms);
      ASSERT_LE(launch.grid.x, sms) << what;
      ASSERT_EQ(launch.grid.x % c.cluster, 0) << what << ": whole clusters";
      const int clusters = launch.grid.x / c.cluster, rows = Step::tiles_m(s, c);
      std::vector<int> taken(size_t(Step::tiles(s, c)), 0);
      for (int block = 0; block < launch.grid.x; ++block) {
        const int cluster = block / c.cluster, rank = block % c.cluster;
        for (const int u : ClusterUnits<Step>::of(s, c, cluster, clusters)) {
          const auto tile = Step::tile_at(u, rank, s, c);
          // The blocks of a cluster are on one column of tiles, one above the other.
          ASSERT_EQ(tile.n, Step::tile_at(u, 0, s, c).n) << what;
          ASSERT_EQ(tile.m, Step::tile_at(u, 0, s, c).m + rank) << what;
          ASSERT_GE(tile.m, 0) << what;
          ASSERT_GE(tile.n, 0) << what;
          ASSERT_LT(tile.n, Step::tiles_n(s, c)) << what;
          if (tile.m >= rows) {  // below C: only the last tile row of an odd count, never stored
            ASSERT_EQ(tile.m, rows) << what;
            ASSERT_EQ(rows % c.cluster, 1) << what;
            continue;
          }
          ++taken[size_t(tile.m) * size_t(Step::tiles_n(s, c)) + size_t(tile.n)];
        }
      }
      for (int n : taken) ASSERT_EQ(n, 1) << what;
    }
}

// The persistent grid takes as many rounds as the SMs allow, with as few clusters as that takes:
// every cluster gets the same number of units, give or take one. Where the last column of tiles is
// narrow (at most 64 columns inside C) and dealing its units after the others saves time, the
// rounds are those of the whole units, and the narrow ones (counted a fraction of a whole one) come
// after. Without narrow units, the grid's time is its rounds.
template <typename Step>
void expect_fewest_clusters_for_the_rounds(const std::vector<GemmShape>& shapes, const std::vector<int>& sm_counts) {
  constexpr int kPerWhole = Step::kNarrowUnitsPerWhole;
  for (const typename Step::Config& c : Step::kConfigs)
    for (const int sms : sm_counts)
      for (const GemmShape& s : shapes) {
        const std::string what = "BN " + std::to_string(c.bn) + " on " + std::to_string(sms) + " SMs at " +
                                 std::to_string(s.m) + "x" + std::to_string(s.n) + "x" + std::to_string(s.k);
        const int units = Step::units(s, c), fit = sms / c.cluster;
        const int clusters = Step::launch_shape(s, c, sms).grid.x / c.cluster;
        ASSERT_EQ(clusters, Step::persistent_clusters(s, c, sms)) << what;
        ASSERT_GE(clusters, 1) << what;
        ASSERT_LE(clusters, std::min(units, fit)) << what;
        const int narrow = Step::narrow_units(s, c), whole = units - narrow;
        if (narrow == 0) {
          ASSERT_EQ(Step::grid_time(s, c, sms), kPerWhole * ceil_div(units, clusters)) << what;
        }
        if (units <= fit) {
          ASSERT_EQ(clusters, units) << what << ": one round, a cluster per unit";
          continue;
        }
        const int alike = ceil_div(units, ceil_div(units, fit));
        // Counted alike: the fewest clusters for the fewest rounds.
        ASSERT_EQ(ceil_div(units, alike), ceil_div(units, fit)) << what;
        if (alike > 1) {
          ASSERT_GT(ceil_div(units, alike - 1), ceil_div(units, alike)) << what;
        }
        if (clusters == alike) continue;
        // Narrow units after the whole ones: the whole ones' rounds on the fewest clusters, and in
        // narrow units' time, less than counting them alike.
        ASSERT_GT(narrow, 0) << what;
        ASSERT_GT(whole, 0) << what;
        const int rounds = ceil_div(whole, clusters);
        ASSERT_EQ(rounds, ceil_div(whole, fit)) << what;
        if (clusters > 1) {
          ASSERT_GT(ceil_div(whole, clusters - 1), rounds) << what;
        }
        const int narrow_after = std::max(0, narrow - (rounds * clusters - whole));
        ASSERT_LT(kPerWhole * rounds + ceil_div(narrow_after, clusters), kPerWhole * ceil_div(units, alike)) << what;
      }
}

// A tile is narrow where its columns from the 64th on all lie outside C, which only a tile wider
// than the narrow wgmma can be; narrow units come after all the others in the tile order.
template <typename Step>
void expect_narrow_tiles_are_the_last_column_dealt_last(const std::vector<int>& columns) {
  for (const typename Step::Config& c : Step::kConfigs)
    for (const int n : columns) {
      const GemmShape s{1000, n, 64};
      for (int tile_n = 0; tile_n < Step::tiles_n(s, c); ++tile_n) {
        const int inside = std::min(c.bn, n - tile_n * c.bn);
        ASSERT_EQ(Step::narrow_tile(tile_n, s, c), c.bn > Step::kNarrowCols && inside <= Step::kNarrowCols)
            << "N " << n << " BN " << c.bn << " tile " << tile_n;
      }
      const int narrow = Step::narrow_units(s, c), units = Step::units(s, c);
      ASSERT_EQ(narrow, Step::narrow_tile(Step::tiles_n(s, c) - 1, s, c) ? Step::unit_rows(s, c) : 0);
      for (int u = 0; u < units; ++u)
        ASSERT_EQ(Step::narrow_tile(Step::tile_at(u, 0, s, c).n, s, c), u >= units - narrow) << "N " << n << " unit " << u;
    }
}

// The staging of the epilogue: a slice is one box of C, 64 rows x 128 bytes (32 f32 or 64 16-bit
// columns); every element has its own bytes in its half of the buffer, in TMA's layout
// (chunks XOR row % 8). A warp's pair writes put 4 lanes in each 16-byte bank group (1 wavefront
// for 4-byte pairs; 8-byte pairs are served by half-warps, where two rows share a group: 4
// wavefronts, expect_trace_stages_every_float_and_updates_c_once). The f32 read-back: each
// quarter-warp reads 8 different bank groups, and the reads cover the slice once.
template <typename Step>
void expect_staging_conflict_free_and_complete() {
  ASSERT_EQ(Step::kStagingBytes, Step::kStagingSlices * Step::kStagingBoxBytes);
  for (int staged_bytes : {4, 2}) {
    const int cols = Step::slice_cols(staged_bytes);
    ASSERT_EQ(cols * staged_bytes, 128);
    ASSERT_EQ(cols, Step::c_box_cols(staged_bytes));
    std::set<int> bytes;
    for (int row = 0; row < Step::kWgmmaM; ++row)
      for (int col = 0; col < cols; ++col) {
        const int at = Step::staging_byte(row, col, staged_bytes), in_row = col * staged_bytes;
        ASSERT_EQ(at, row * 128 + (((in_row / 16) ^ (row % 8)) * 16) + in_row % 16);
        for (int b = 0; b < staged_bytes; ++b) bytes.insert(at + b);
      }
    ASSERT_EQ(int(bytes.size()), Step::kStagingBoxBytes);
    ASSERT_EQ(*bytes.begin(), 0);
    ASSERT_EQ(*bytes.rbegin(), Step::kStagingBoxBytes - 1);
    // Slice s of the consumer whose rows start at (row0, col0) is the C box at col0 + s * cols.
    const auto at = Step::c_box(128, 512, 3, staged_bytes);
    ASSERT_EQ(at.outer, 128);
    ASSERT_EQ(at.inner, 512 + 3 * cols);
    // The accumulators of slice s are registers s * cols / 2 .. (s + 1) * cols / 2 - 1.
    for (int slice = 0; slice < 256 / cols; ++slice)
      for (int warp = 0; warp < 4; ++warp)
        for (int reg = slice * cols / 2; reg < (slice + 1) * cols / 2; reg += 2) {
          int use[8] = {};
          for (int lane = 0; lane < 32; ++lane) {
            const int col = Step::accumulator_col(lane, reg) - slice * cols;
            ASSERT_GE(col, 0);
            ASSERT_LT(col + 1, cols);
            ++use[(Step::staging_byte(Step::accumulator_row(warp, lane, reg), col, staged_bytes) / 16) % 8];
          }
          for (int n : use) ASSERT_EQ(n, 4) << "lanes per bank group";
        }
  }
  const int cols = Step::slice_cols(4);
  std::set<int> read;
  for (int i = 0; i < Step::kReadBacks; ++i)
    for (int first = 0; first < Step::kWarpgroup; first += 8) {
      std::set<int> groups;
      for (int thread = first; thread < first + 8; ++thread) {
        const auto chunk = Step::staged_chunk(thread, i);
        groups.insert((Step::staging_byte(chunk.row, chunk.col, 4) / 16) % 8);
        for (int e = 0; e < Step::kRun; ++e) read.insert(chunk.row * cols + chunk.col + e);
      }
      ASSERT_EQ(int(groups.size()), 8);
    }
  ASSERT_EQ(int(read.size()), Step::kWgmmaM * cols);
}

// The consumers' staging halves, one C box each, lie side by side and fill the staging buffers.
template <typename Step>
void expect_staging_halves_tile_the_buffers() {
  for (const typename Step::Config& c : Step::kConfigs) {
    std::set<int> starts;
    for (int consumer = 0; consumer < Step::consumers(c); ++consumer)
      for (int half = 0; half < Step::kStagingSlices; ++half) starts.insert(Step::staging_half_byte(consumer, half));
    ASSERT_EQ(int(starts.size()), Step::consumers(c) * Step::kStagingSlices);
    int expected = 0;
    for (int start : starts) {
      ASSERT_EQ(start, expected);
      expected += Step::kStagingBoxBytes;
    }
    ASSERT_EQ(expected, Step::consumers(c) * Step::kStagingBytes);
  }
}

// The trace the viewer and the access model use (f32 output). Over whole launches of every
// compiled configuration, at each (shape, layout) of `problems`, with beta = 0 and beta != 0: the
// staging writes cost 4 wavefronts per instruction (256 bytes: 8-byte stores are served by
// half-warps, and in each half-warp rows 2i and 2i + 1 of the slice land in the same bank group, as
// TMA's swizzle XORs the chunk with row % 8, which keeps a pair of chunks together) and,
// per consumer and tile, write each float of its staging buffer once per two slices; where the copy
// engine stores C, no lane touches C; elsewhere every element of C is stored once (and read once
// when beta != 0), runs cut by C's edge element by element. Besides C, a consumer warp reads only
// the step's kScaleLoads scales (FP8: A's and B's, each one address for the whole warp).
template <typename Step>
void expect_trace_stages_every_float_and_updates_c_once(const std::vector<std::pair<GemmShape, Layout>>& problems) {
  for (const typename Step::Config& c : Step::kConfigs)
    for (const auto& [shape, layout] : problems)
      for (float beta : {0.0f, 0.5f}) {
        const std::string what = "BN " + std::to_string(c.bn) + " at " + std::to_string(shape.m) + "x" +
                                 std::to_string(shape.n) + "x" + std::to_string(shape.k) + " beta " + std::to_string(beta);
        TraceProblem problem;
        problem.shape = shape;
        problem.layout = layout;
        problem.beta = beta;
        problem.params = Step::to_params(c, Params{});
        ASSERT_EQ(Step::shape_rule(shape, layout), "") << what;
        const bool by_tma = Step::tma_stores_c(shape, beta, 4);
        std::vector<int> stored(size_t(shape.m) * size_t(shape.n), 0), loaded = stored;
        std::map<std::pair<int, int>, std::vector<int>> staged;  // (block, tile) -> writes per float
        long long scale_loads = 0;
        const LaunchShape launch = Step::trace_launch_shape(problem, c);
        const AccessTotals totals = predict_launch(launch, [&](const Dim3& block, int warp, const TraceSink& sink) {
          Step::trace_warp(problem, block, warp, [&](const TraceInstruction& i) {
            sink(i);
            if (i.operand == Operand::scales) {
              ++scale_loads;
              EXPECT_EQ(i.access.access, Access::load) << what;
              for (int lane = 1; lane < 32; ++lane) ASSERT_EQ(i.access.address[size_t(lane)], i.access.address[0]) << what;
              return;
            }
            for (int lane = 0; lane < 32; ++lane) {
              if (!i.access.lane_active(lane)) continue;
              const long long element = i.access.address[size_t(lane)] / 4;
              if (i.operand == Operand::C) {
                for (int e = 0; e < i.access.width / 4; ++e)
                  ++(i.access.access == Access::store ? stored : loaded)[size_t(element + e)];
              } else if (i.access.access == Access::store) {
                auto& writes = staged[{block.x, i.iteration}];
                if (writes.empty()) writes.assign(size_t(Step::consumers(c) * Step::kStagingBytes / 4), 0);
                for (int e = 0; e < 2; ++e) ++writes[size_t(element + e)];
              }
            }
          });
        });
        EXPECT_EQ(totals.shared_store_wavefronts, 4 * totals.shared_store_requests) << what;
        const long long consumer_warps = (long long)launch.grid.x * Step::consumers(c) * (Step::kWarpgroup / 32);
        EXPECT_EQ(scale_loads, consumer_warps * Step::kScaleLoads) << what;
        // The last slice may overlap the one before (steps 22, 26); an odd count puts one more slice in
        // the half the tile's first slice took.
        const int slices = (c.bn + Step::slice_cols(4) - 1) / Step::slice_cols(4);
        for (const auto& [key, writes] : staged) {
          long long total = 0;
          for (int n : writes) {
            ASSERT_TRUE(n == slices / 2 || n == (slices + 1) / 2)
                << what << " block " << key.first << " tile " << key.second << ": " << n << " writes";
            total += n;
          }
          ASSERT_EQ(total, (long long)Step::consumers(c) * slices * (Step::kStagingBoxBytes / 4)) << what;
        }
        if (by_tma) {
          EXPECT_EQ(totals.global_load_requests, scale_loads) << what;
          EXPECT_EQ(totals.global_store_requests, 0) << what;
          continue;
        }
        for (size_t e = 0; e < stored.size(); ++e) {
          ASSERT_EQ(stored[e], 1) << what << ": C element " << e;
          ASSERT_EQ(loaded[e], beta != 0 ? 1 : 0) << what << ": C element " << e;
        }
      }
}

// Closed form, TMA's path: 2 BM x 2 BN on the default configuration is 4 tiles, 4
// blocks with one tile each (2 units of 2 tiles in clusters of 2); each consumer warp writes BN / 32
// slices of 8 pairs (f32), and reads nothing but its kScaleLoads scales (one sector each).
template <typename Step>
void expect_tma_path_counts() {
  const typename Step::Config d = Step::kConfigs[0];
  TraceProblem problem;
  problem.shape = {2 * d.bm, 2 * d.bn, 64};
  problem.params = Step::to_params(d, Params{});
  const LaunchShape launch = Step::trace_launch_shape(problem, d);
  ASSERT_EQ(launch.grid.x, 4);
  const AccessTotals totals = predict_launch(launch, [&](const Dim3& block, int warp, const TraceSink& sink) {
    Step::trace_warp(problem, block, warp, sink);
  });
  const long long consumer_warps = 4LL * Step::consumers(d) * 4;
  EXPECT_EQ(totals.shared_store_requests, consumer_warps * (d.bn / 32) * 8);
  EXPECT_EQ(totals.shared_load_requests, 0);
  EXPECT_EQ(totals.global_store_sectors, 0);
  EXPECT_EQ(totals.global_load_sectors, consumer_warps * Step::kScaleLoads);
}


// Two steps' traces of one problem are the same, instruction by instruction and lane by lane, in
// every block and warp of the launch (a step whose change is not a memory instruction keeps the
// trace of the step before: test_mapping_20.cpp, test_mapping_21.cpp). trace_before and
// trace_after are (problem, block, warp, sink) callables, the steps' trace_warp.
template <typename TraceBefore, typename TraceAfter>
void expect_same_trace(const TraceProblem& problem, const LaunchShape& launch, TraceBefore trace_before,
                       TraceAfter trace_after, const std::string& label) {
  for (int x = 0; x < launch.grid.x; ++x)
    for (int warp = 0; warp < launch.block.x / 32; ++warp) {
      std::vector<TraceInstruction> before, after;
      trace_before(problem, {x, 0, 0}, warp, [&](const TraceInstruction& t) { before.push_back(t); });
      trace_after(problem, {x, 0, 0}, warp, [&](const TraceInstruction& t) { after.push_back(t); });
      ASSERT_EQ(before.size(), after.size()) << label << " block " << x << " warp " << warp;
      for (size_t n = 0; n < before.size(); ++n) {
        EXPECT_STREQ(before[n].label, after[n].label);
        EXPECT_EQ(before[n].iteration, after[n].iteration);
        EXPECT_EQ(before[n].access.active, after[n].access.active);
        EXPECT_EQ(before[n].access.address, after[n].access.address);
      }
    }
}

// The FP8 steps' configurations (every FP8 step has the same fields), named for a failure message, and
// compared field by field across two steps.
template <typename Config>
std::string config_name(const Config& c) {
  return std::to_string(c.bm) + "x" + std::to_string(c.bn) + " stages " + std::to_string(c.stages) + " promote " +
         std::to_string(c.promote);
}
template <typename ConfigA, typename ConfigB>
bool same_config(const ConfigA& a, const ConfigB& b) {
  return a.bm == b.bm && a.bn == b.bn && a.bk == b.bk && a.stages == b.stages && a.group_m == b.group_m &&
         a.cluster == b.cluster && a.promote == b.promote;
}

// A step that keeps the step before's grid, configuration by configuration (its first `configs`
// ones; test_mapping_20.cpp .. test_mapping_22.cpp): at each shape and SM count, the same launch,
// shared memory, and tile for every 7th unit and every rank. Before and After name a step's
// launch_shape, shared_bytes, units, tile_at and kConfigs (fp8_steps.hpp).
template <typename Before, typename After>
void expect_same_dealing(int configs, const std::vector<GemmShape>& shapes, const std::vector<int>& sm_counts) {
  for (int i = 0; i < configs; ++i) {
    const auto& before = Before::kConfigs[i];
    const auto& after = After::kConfigs[i];
    EXPECT_EQ(Before::shared_bytes(before), After::shared_bytes(after)) << config_name(after);
    for (const int sms : sm_counts)
      for (const GemmShape& s : shapes) {
        EXPECT_EQ(Before::launch_shape(s, before, sms).grid.x, After::launch_shape(s, after, sms).grid.x)
            << config_name(after) << " at " << s.m << "x" << s.n << " on " << sms << " SMs";
        for (int u = 0; u < After::units(s, after); u += 7)
          for (int rank = 0; rank < after.cluster; ++rank) {
            EXPECT_EQ(Before::tile_at(u, rank, s, before).m, After::tile_at(u, rank, s, after).m);
            EXPECT_EQ(Before::tile_at(u, rank, s, before).n, After::tile_at(u, rank, s, after).n);
          }
      }
  }
}

// ... and its trace (f32 output), instruction by instruction and lane by lane, with C stored by
// TMA (beta = 0) and read back (beta != 0, and rows not 16-byte aligned).
template <typename Before, typename After>
void expect_same_traces(int configs) {
  for (const auto& [shape, beta] : std::vector<std::pair<GemmShape, float>>{
           {{136, 100, 128}, 0.0f}, {{136, 102, 128}, 0.0f}, {{264, 232, 32}, 0.5f}}) {
    TraceProblem problem;
    problem.shape = shape;
    problem.layout = Layout::nt;
    problem.beta = beta;
    for (int i = 0; i < configs; ++i) {
      const auto& after = After::kConfigs[i];
      problem.params = After::to_params(after);
      expect_same_trace(problem, After::trace_launch_shape(problem, after), Before::trace_warp, After::trace_warp,
                        config_name(after));
    }
  }
}

// The epilogue's store path (store_path, in the steps whose kernels are compiled twice, with a
// TMA-only twin) for every compiled kernel and the problems that launch it: a tile reaches C by TMA
// exactly where TMA may store it (tma_stores_c: beta = 0 and C's rows on 16 bytes), by the
// read-back path elsewhere, whether its kernel has one path or both and whether the tile goes under
// the next one's products. `kernel_choice(c, out_bytes, tma_only, under_next_tile)` is what the
// kernel's epilogue chose before store_path named it (its if-constexpr chain, written in the
// step's test), which store_path must return for every compiled kernel. Step names the functions
// (store_path_steps.hpp, StorePathStep).
template <typename Step, typename KernelChoice>
void expect_store_path_follows_the_problem(KernelChoice kernel_choice) {
  using Path = typename Step::StorePath;
  int by_tma = 0, read_back = 0;
  for (const auto& c : Step::kConfigs)
    for (const int out_bytes : {2, 4})
      for (const bool tma_only : {false, true}) {
        if (tma_only && !Step::has_tma_only_kernel(c, out_bytes)) continue;  // no such kernel
        const std::string kernel = config_name(c) + " out " + std::to_string(out_bytes) + (tma_only ? " TMA only" : "");
        for (const bool under : {false, true}) {
          if (under && !Step::epilogue_under_next_tile(c, out_bytes, tma_only)) continue;  // not in this kernel
          EXPECT_EQ(int(Step::store_path(c, out_bytes, tma_only, under)), int(kernel_choice(c, out_bytes, tma_only, under)))
              << kernel << (under ? ", under the next tile" : "");
        }
        // C's rows 16-byte aligned or not (N = 512, 514), beta 0 or not.
        for (const GemmShape& shape : {GemmShape{256, 512, 256}, GemmShape{256, 514, 256}})
          for (const float beta : {0.0f, 0.5f}) {
            if (Step::launches_tma_only_kernel(c, shape, beta, out_bytes) != tma_only) continue;  // its twin runs it
            const bool tma_may_store = Step::tma_stores_c(shape, beta, out_bytes);
            // The kernel's rule: a tile goes under the next one only where TMA stores C.
            const bool under = tma_may_store && Step::epilogue_under_next_tile(c, out_bytes, tma_only);
            const Path path = Step::store_path(c, out_bytes, tma_only, under);
            const bool stored_by_tma = path == Path::tma || (path == Path::tma_or_read_back && tma_may_store);
            EXPECT_EQ(stored_by_tma, tma_may_store) << kernel << ", N = " << shape.n << ", beta = " << beta;
            ++(stored_by_tma ? by_tma : read_back);
          }
      }
  EXPECT_GT(by_tma, 0);
  EXPECT_GT(read_back, 0);
}

// The same check for a step whose kernel calls store_path directly (23 on): its rule restated, a
// TMA-only twin storing by TMA alone and the other kernels by read_back_only.
template <typename Step, typename ReadBackOnly>
void expect_store_path_of_twins_follows_the_problem(ReadBackOnly read_back_only) {
  using Path = typename Step::StorePath;
  expect_store_path_follows_the_problem<Step>([&](const auto& c, int out_bytes, bool tma_only, bool under_next_tile) {
    if (under_next_tile || tma_only) return Path::tma;
    if (read_back_only(c, out_bytes, tma_only)) return Path::read_back;
    return Path::tma_or_read_back;
  });
}

// The shapes the stream-K steps (23 on) are checked at. Persistent grids at square, odd and
// narrow-tiled shapes (N = 4096: a last column of 48 columns of a 176-wide tile; N = 4104 and 232:
// of a 192-wide one), a tile row count that CLUSTER does not divide, and a single tile:
inline const std::vector<GemmShape>& stream_k_dealt_shapes() {
  static const std::vector<GemmShape> list = {
      GemmShape{4096, 4096, 64},  GemmShape{8192, 8192, 64},   GemmShape{1000, 1000, 64},         GemmShape{8, 8, 16},
      GemmShape{4088, 4104, 64},  GemmShape{2056, 4104, 64},   GemmShape{130 * 128, 3 * 176, 64}, GemmShape{3 * 128, 300, 64},
      GemmShape{64 * 128, 264, 64}, GemmShape{64 * 128, 40, 64}, GemmShape{129, 8200, 64},          GemmShape{5000, 136, 64},
      GemmShape{264, 232, 32},    GemmShape{3072, 3072, 64},   GemmShape{6144, 6144, 64}};
  return list;
}
// and the schedules' shapes: the mid and narrow sizes, deep and small ones, the large squares.
inline const std::vector<GemmShape>& stream_k_shapes() {
  static const std::vector<GemmShape> list = {
      {64, 64, 64},       {264, 400, 4096},  {264, 520, 64},     {512, 4096, 4096}, {1000, 1000, 1000},
      {1024, 1024, 1024}, {1024, 1024, 8192}, {1536, 1536, 1536}, {2048, 2048, 2048}, {3072, 3072, 3072},
      {4088, 4104, 4096}, {4096, 4096, 4096}, {6144, 6144, 6144}, {8192, 8192, 8192}, {130, 4104, 20000}};
  return list;
}

// A stream-K schedule (the steps from 23 on: Step's schedule_of, k_tiles, units, cluster_work,
// kMaxPieces): every (unit, k-tile) once, over every cluster's work, for every shape, compiled
// configuration and GPU size; a whole unit's k-tiles all in one work item, at most kMaxPieces pieces
// of split units a run, and no more clusters than fit the SMs.
template <typename Step>
void expect_every_k_tile_of_every_unit_once(const std::vector<GemmShape>& shapes) {
  for (const GemmShape& shape : shapes)
    for (const auto& c : Step::kConfigs)
      for (const int sms : {132, 114, 16}) {
        const auto s = Step::schedule_of(shape, c, sms);
        SCOPED_TRACE(std::to_string(shape.m) + "x" + std::to_string(shape.n) + "x" + std::to_string(shape.k) +
                     " BM=" + std::to_string(c.bm) + " BN=" + std::to_string(c.bn) + " sms=" + std::to_string(sms));
        ASSERT_EQ(s.k_tiles, Step::k_tiles(shape, c));
        ASSERT_EQ(s.whole_units + s.split_units, Step::units(shape, c));
        ASSERT_LT(s.split_units, s.clusters + (s.split_units == 0 ? 1 : 0));
        ASSERT_LE(s.clusters * c.cluster, sms);
        std::vector<int> covered(size_t(Step::units(shape, c)) * size_t(s.k_tiles), 0);
        for (int q = 0; q < s.clusters; ++q) {
          int pieces = 0;
          for (const auto& w : Step::cluster_work(s, q)) {
            ASSERT_LT(w.kt_begin, w.kt_end);
            ASSERT_LE(w.kt_end, s.k_tiles);
            if (w.piece >= 0) {
              ++pieces;
              ASSERT_GE(w.unit, s.whole_units);
            } else {
              ASSERT_LT(w.unit, s.whole_units);
              ASSERT_EQ(w.kt_begin, 0);
              ASSERT_EQ(w.kt_end, s.k_tiles);
            }
            for (int kt = w.kt_begin; kt < w.kt_end; ++kt) ++covered[size_t(w.unit) * size_t(s.k_tiles) + size_t(kt)];
          }
          ASSERT_LE(pieces, Step::kMaxPieces);
        }
        for (size_t i = 0; i < covered.size(); ++i) ASSERT_EQ(covered[i], 1) << "unit " << i / size_t(s.k_tiles);
      }
}

}  // namespace gemm::hopper_testing
