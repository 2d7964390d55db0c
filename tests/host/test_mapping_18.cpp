// Step 18: what the copy engine writes (tile_byte: TMA's boxes with the 128-byte swizzle) must be
// what each wgmma reads through its descriptor (start, leading and stride offsets, swizzle), for
// every layout, consumer and k-step; the persistent blocks must take every tile once; the
// accumulator layout must cover each consumer's 64 x BN rows once.
#include <algorithm>
#include <gtest/gtest.h>

#include <map>
#include <set>
#include <string>
#include <utility>
#include <vector>

#include "../../steps/18_tma_store_epilogue/mapping.hpp"
#include "hopper_checks.hpp"

namespace {

using gemm::GemmShape;
using gemm::Layout;
using step18::Config;
using step18::TmaOperand;

constexpr Layout kLayouts[] = {Layout::nn, Layout::nt, Layout::tn};

using gemm::hopper_testing::wgmma_reads;  // the descriptor read as the tensor cores read it (hopper_checks.hpp)

// Every element of every consumer's operands, at every k-step, is where the copies put it.
void check_operand(const TmaOperand& op, const Config& c, bool is_a) {
  const unsigned tile_base = 3 * 1024;  // any 1024-aligned start
  const int rows = is_a ? step18::kWgmmaM : c.bn;
  const int users = is_a ? step18::consumers(c) : 1;
  const step18::Descriptor strides = step18::descriptor_strides(op);
  for (int consumer = 0; consumer < users; ++consumer)
    for (int kk = 0; kk < c.bk / step18::kWgmmaK; ++kk) {
      const std::uint64_t d = step18::wgmma_descriptor(tile_base + unsigned(step18::operand_offset(op, consumer, kk)), strides);
      for (int mn = 0; mn < rows; ++mn)
        for (int k = 0; k < step18::kWgmmaK; ++k) {
          const int tile_mn = consumer * step18::kWgmmaM * (is_a ? 1 : 0) + mn, tile_k = kk * step18::kWgmmaK + k;
          ASSERT_EQ(wgmma_reads(d, op.k_major, mn, k), tile_base + unsigned(step18::tile_byte(op, tile_mn, tile_k)))
              << (is_a ? "A" : "B") << (op.k_major ? " k-major" : " mn-major") << " consumer " << consumer << " kk " << kk
              << " element " << mn << "," << k;
        }
    }
}

}  // namespace

TEST(Mapping18, CopiesAndDescriptorsAgree) {
  for (const Config& c : step18::kConfigs) {
    ASSERT_STREQ(step18::config_rule(c), "");
    for (Layout layout : kLayouts) {
      const GemmShape s{4096, 4096, 4096};
      check_operand(step18::a_operand(s, layout, c), c, true);
      check_operand(step18::b_operand(s, layout, c), c, false);
    }
  }
}

TEST(Mapping18, BoxesFillTheTileOnce) {
  // The boxes of one operand tile, placed by tma_box and box_bytes, cover its elements once, and
  // each element's byte (tile_byte) is distinct and inside the tile.
  for (const Config& c : step18::kConfigs)
    for (Layout layout : kLayouts)
      for (bool is_a : {true, false}) {
        const GemmShape s{1000, 1000, 1000};
        const TmaOperand op = is_a ? step18::a_operand(s, layout, c) : step18::b_operand(s, layout, c);
        const int rows = is_a ? c.bm : c.bn, tile_bytes = is_a ? step18::a_tile_bytes(c) : step18::b_tile_bytes(c);
        ASSERT_EQ(op.boxes * step18::box_bytes(op), tile_bytes);
        std::set<int> bytes;
        for (int mn = 0; mn < rows; ++mn)
          for (int k = 0; k < c.bk; ++k) {
            const int at = step18::tile_byte(op, mn, k);
            ASSERT_GE(at, 0);
            ASSERT_LT(at, tile_bytes);
            bytes.insert(at);
          }
        ASSERT_EQ(int(bytes.size()), rows * c.bk);
        // Box coordinates: k-tile 2 of the tile at mn0 = rows starts at (k = 2 BK, mn0), boxes one
        // box apart along m or n (64 m's or n's; box_outer rows of a k-major operand).
        for (int box = 0; box < op.boxes; ++box) {
          const step18::BoxCoord at = step18::tma_box(op, rows, 2, box, c);
          ASSERT_EQ(op.k_major ? at.inner : at.outer, 2 * c.bk);
          ASSERT_EQ(op.k_major ? at.outer : at.inner, rows + box * (op.k_major ? op.box_outer : step18::kBoxInner));
        }
        // The blocks of a cluster share B's boxes out, each box copied by one of them (box % CLUSTER
        // == rank; 3 boxes of a 192-wide tile: 2 and 1), and every block copies at least one.
        if (!is_a) {
          ASSERT_GE(op.boxes, c.cluster);
        }
      }
}

TEST(Mapping18, PersistentBlocksTakeEveryTileOnce) {
  for (const Config& c : step18::kConfigs)
    for (const GemmShape& s : {GemmShape{4096, 4096, 64}, GemmShape{1000, 1000, 64}, GemmShape{8, 8, 8},
                               GemmShape{4088, 4104, 64}, GemmShape{130 * 128, 3 * 256, 64}, GemmShape{3 * 128, 300, 64}}) {
      const gemm::LaunchShape launch = step18::launch_shape(s, c, 132);
      ASSERT_LE(launch.grid.x, 132);
      ASSERT_EQ(launch.grid.x % c.cluster, 0) << "whole clusters";
      const int clusters = launch.grid.x / c.cluster, rows = step18::tiles_m(s, c);
      std::vector<int> taken(size_t(step18::tiles(s, c)), 0);
      for (int block = 0; block < launch.grid.x; ++block) {
        const int cluster = block / c.cluster, rank = block % c.cluster;
        for (int u = cluster; u < step18::units(s, c); u += clusters) {
          const step18::TileCoord tile = step18::tile_at(u, rank, s, c);
          // The blocks of a cluster are on one column of tiles, one above the other.
          ASSERT_EQ(tile.n, step18::tile_at(u, 0, s, c).n);
          ASSERT_EQ(tile.m, step18::tile_at(u, 0, s, c).m + rank);
          ASSERT_GE(tile.m, 0);
          ASSERT_GE(tile.n, 0);
          ASSERT_LT(tile.n, step18::tiles_n(s, c));
          if (tile.m >= rows) {  // below C: only the last tile row of an odd count, never stored
            ASSERT_EQ(tile.m, rows);
            ASSERT_EQ(rows % c.cluster, 1);
            continue;
          }
          ++taken[size_t(tile.m) * step18::tiles_n(s, c) + tile.n];
        }
      }
      for (int n : taken) ASSERT_EQ(n, 1);
    }
}

// The persistent grid takes as many rounds as the SMs allow, with as few clusters as that takes:
// every cluster gets the same number of units, give or take one. Where the last column of tiles is
// narrow (at most 64 columns inside C) and dealing its units after the others saves time, the
// rounds are those of the whole units, and the narrow ones (half a whole one each) come after.
TEST(Mapping18, PersistentGridIsTheFewestClustersForItsRounds) {
  for (const Config& c : step18::kConfigs)
    for (const int sms : {132, 114, 16, 2})
      for (const GemmShape& s : {GemmShape{4096, 4096, 64}, GemmShape{8192, 8192, 64}, GemmShape{1000, 1000, 64},
                                 GemmShape{8, 8, 8}, GemmShape{4088, 4104, 64}, GemmShape{130 * 128, 3 * 256, 64},
                                 GemmShape{2056, 4104, 64}, GemmShape{64 * 128, 264, 64}, GemmShape{64 * 128, 40, 64}}) {
        const int units = step18::units(s, c), fit = sms / c.cluster;
        const int clusters = step18::launch_shape(s, c, sms).grid.x / c.cluster;
        ASSERT_GE(clusters, 1);
        ASSERT_LE(clusters, std::min(units, fit));
        if (units <= fit) {
          ASSERT_EQ(clusters, units) << "one round: a cluster per unit";
          continue;
        }
        const int narrow = step18::narrow_units(s, c), whole = units - narrow;
        const int alike = gemm::ceil_div(units, gemm::ceil_div(units, fit));
        // Counted alike: the fewest clusters for the fewest rounds.
        ASSERT_EQ(gemm::ceil_div(units, alike), gemm::ceil_div(units, fit));
        if (alike > 1) {
          ASSERT_GT(gemm::ceil_div(units, alike - 1), gemm::ceil_div(units, alike));
        }
        if (clusters == alike) continue;
        // Narrow units after the whole ones: the whole ones' rounds on the fewest clusters, and in
        // narrow units' time, less than counting them alike.
        ASSERT_GT(narrow, 0);
        ASSERT_GT(whole, 0);
        const int rounds = gemm::ceil_div(whole, clusters);
        ASSERT_EQ(rounds, gemm::ceil_div(whole, fit));
        if (clusters > 1) {
          ASSERT_GT(gemm::ceil_div(whole, clusters - 1), rounds);
        }
        const int narrow_after = std::max(0, narrow - (rounds * clusters - whole));
        constexpr int kPerWhole = step18::kNarrowUnitsPerWhole;
        ASSERT_LT(kPerWhole * rounds + gemm::ceil_div(narrow_after, clusters), kPerWhole * gemm::ceil_div(units, alike));
      }
  const Config d = step18::kConfigs[0];
  if (d.cluster == 2 && d.bm == 128 && d.bn == 256) {
    // At 4096^3 on 132 SMs in pairs: 256 units in 4 rounds of 64 clusters (the case behind the rule).
    ASSERT_EQ(step18::launch_shape(GemmShape{4096, 4096, 4096}, d, 132).grid.x, 128);
    // At 4088 x 4104: 256 whole units in 4 rounds of 64 clusters and the 16 narrow ones after, where
    // all 272 counted alike take 5 rounds of 55. At 2056 x 4104 the narrow units fit in the free
    // places of 3 rounds counted alike (153 units, 51 clusters), so the grid stays so.
    ASSERT_EQ(step18::narrow_units(GemmShape{4088, 4104, 4096}, d), 16);
    ASSERT_EQ(step18::launch_shape(GemmShape{4088, 4104, 4096}, d, 132).grid.x, 128);
    ASSERT_EQ(step18::launch_shape(GemmShape{2056, 4104, 4096}, d, 132).grid.x, 102);
    // The grid's time in narrow units' time (a whole unit 2): 4 rounds; 4 and a short one.
    ASSERT_EQ(step18::grid_time(GemmShape{4096, 4096, 4096}, d, 132), 4 * step18::kNarrowUnitsPerWhole);
    ASSERT_EQ(step18::grid_time(GemmShape{4088, 4104, 4096}, d, 132), 4 * step18::kNarrowUnitsPerWhole + 1);
    ASSERT_EQ(step18::grid_time(GemmShape{3072, 3072, 3072}, d, 132), 3 * step18::kNarrowUnitsPerWhole);
  }
  // Without narrow units, the grid's time is its rounds.
  for (const Config& c : step18::kConfigs)
    for (const GemmShape& s : {GemmShape{4096, 4096, 64}, GemmShape{3072, 3072, 64}, GemmShape{1000, 1000, 64}})
      if (step18::narrow_units(s, c) == 0) {
        const int clusters = step18::persistent_clusters(s, c, 132);
        ASSERT_EQ(step18::grid_time(s, c, 132), step18::kNarrowUnitsPerWhole * gemm::ceil_div(step18::units(s, c), clusters));
      }
}

// A tile is narrow where its columns from the 64th on all lie outside C, which only a tile wider
// than the narrow wgmma can be; narrow units come after all the others in the tile order, and copy
// only B's first box.
TEST(Mapping18, NarrowTilesAreTheLastColumnDealtLast) {
  for (const Config& c : step18::kConfigs)
    for (const int n : {1, 8, 64, 65, 128, 200, 256, 257, 320, 321, 4104, 4160, 4161}) {
      const GemmShape s{1000, n, 64};
      for (int tile_n = 0; tile_n < step18::tiles_n(s, c); ++tile_n) {
        const int inside = std::min(c.bn, n - tile_n * c.bn);
        ASSERT_EQ(step18::narrow_tile(tile_n, s, c), c.bn > step18::kNarrowCols && inside <= step18::kNarrowCols)
            << "N " << n << " BN " << c.bn << " tile " << tile_n;
      }
      const int narrow = step18::narrow_units(s, c), units = step18::units(s, c);
      ASSERT_EQ(narrow, step18::narrow_tile(step18::tiles_n(s, c) - 1, s, c) ? step18::unit_rows(s, c) : 0);
      for (int u = 0; u < units; ++u)
        ASSERT_EQ(step18::narrow_tile(step18::tile_at(u, 0, s, c).n, s, c), u >= units - narrow) << "N " << n << " unit " << u;
      for (const gemm::Layout layout : {gemm::Layout::nn, gemm::Layout::nt, gemm::Layout::tn}) {
        const step18::TmaOperand b = step18::b_operand(s, layout, c);
        ASSERT_EQ(step18::b_boxes_copied(b, false), b.boxes);
        ASSERT_EQ(step18::b_boxes_copied(b, true), 1);
        // The first box holds the narrow wgmma's 64 columns.
        ASSERT_GE(b.k_major ? b.box_outer : step18::kBoxInner, step18::kNarrowCols);
      }
    }
}

// Without --param the tile is chosen by shape: a smaller tile exactly where the default fills a
// single round of the SMs in pairs (128 x 64 where 128 x 128 would give at most half of the SMs a
// block and the stored rows are whole 128-byte lines, else 128 x 128), the default where it takes
// several.
TEST(Mapping18, TileChosenByShapeWhereTheDefaultTakesOneRound) {
  const Config& wide = step18::kConfigs[0];
  const Config& small = step18::kConfigs[step18::kSmallTileConfig];
  const Config& narrow = step18::kConfigs[step18::kNarrowTileConfig];
  const Config& three_quarter = step18::kConfigs[step18::kThreeQuarterTileConfig];
  ASSERT_STREQ(step18::config_rule(small), "");
  ASSERT_STREQ(step18::config_rule(narrow), "");
  ASSERT_STREQ(step18::config_rule(three_quarter), "");
  constexpr int kSms = 132;  // H100 SXM: 66 pairs
  if (wide.bm == 128 && wide.bn == 256 && wide.cluster == 2) {
    for (Layout layout : kLayouts) {
      EXPECT_EQ(step18::config_for_shape({1024, 1024, 1024}, layout, kSms), narrow);  // 64 small tiles
      EXPECT_EQ(step18::config_for_shape({1000, 1000, 1000}, layout, kSms), small);   // rows of 2000 bytes
      EXPECT_EQ(step18::config_for_shape({1088, 1088, 1088}, layout, kSms), small);   // 81 small tiles
      EXPECT_EQ(step18::config_for_shape({2048, 2048, 2048}, layout, kSms), small);   // 8 x 8 units
      EXPECT_EQ(step18::config_for_shape({4096, 4096, 4096}, layout, kSms), wide);    // 16 x 16 units: 4 rounds
      EXPECT_EQ(step18::config_for_shape({4088, 4104, 4096}, layout, kSms), wide);
      EXPECT_EQ(step18::config_for_shape({66 * 256, 256, 64}, layout, kSms), small);  // 66 units: the last one round
      EXPECT_EQ(step18::config_for_shape({67 * 256, 256, 64}, layout, kSms), wide);   // 67 units: two rounds
      // Where the 128 x 192 tile fills the rounds better by a margin (the H100's measurements):
      // 3072^3, 3 rounds of three-quarter tiles against 3 of the default's (2.2 rounds' work);
      // 1536^3, 1 round against the 2 rounds of 128 x 128 tiles (144 of them); 3000^3 as 3072^3.
      EXPECT_EQ(step18::config_for_shape({3072, 3072, 3072}, layout, kSms), three_quarter);
      EXPECT_EQ(step18::config_for_shape({1536, 1536, 1536}, layout, kSms), three_quarter);
      EXPECT_EQ(step18::config_for_shape({3000, 3000, 3000}, layout, kSms), three_quarter);
      // and not where it measured slower: more rounds, or too little fewer (8192^3: 21 rounds of
      // three quarters against 16, within the margin; 6144^3: the same time so counted).
      for (const int size : {2560, 3584, 6144, 8192}) EXPECT_EQ(step18::config_for_shape({size, size, size}, layout, kSms), wide);
      EXPECT_EQ(step18::config_for_shape({1280, 1280, 1280}, layout, kSms), small);
    }
    // K = 1000 leaves A's rows (and B's, in NT) short of whole lines; in TN A's rows are M long.
    EXPECT_EQ(step18::config_for_shape({1024, 1024, 1000}, Layout::nn, kSms), small);
    EXPECT_EQ(step18::config_for_shape({1024, 1024, 1000}, Layout::nt, kSms), small);
    EXPECT_EQ(step18::config_for_shape({1024, 1024, 1000}, Layout::tn, kSms), narrow);
    EXPECT_EQ(step18::config_for_shape({1000, 1024, 1024}, Layout::nn, kSms), narrow);
    EXPECT_EQ(step18::config_for_shape({1000, 1024, 1024}, Layout::tn, kSms), small);
  }
  for (Layout layout : kLayouts)
    for (const int sms : {132, 114, 16, 2})
      for (int m = 1; m <= 20000; m += 997)
        for (int n = 1; n <= 12000; n += 1231) {
          const GemmShape s{m, n, 64};
          const Config chosen = step18::config_for_shape(s, layout, sms);
          const int rounds = gemm::ceil_div(step18::units(s, wide), sms / wide.cluster);
          const Config base = rounds > 1 ? wide
                              : 2 * step18::tiles(s, small) <= sms && step18::rows_are_whole_lines(s, layout) ? narrow
                                                                                                         : small;
          // The three-quarter tile only where it is counted at least the margin faster.
          const long long others = step18::counted_time(s, base, sms), its = step18::counted_time(s, three_quarter, sms);
          const Config expected = its * (100 + step18::kThreeQuarterTileMargin) < others * 100 ? three_quarter : base;
          EXPECT_EQ(chosen, expected) << m << "x" << n << " on " << sms << " SMs";
        }
  for (const Config& c : step18::kConfigs) EXPECT_EQ(step18::config_from(step18::to_params(c)), c);
}

TEST(Mapping18, AccumulatorsCoverEachConsumerTileOnce) {
  for (const Config& c : step18::kConfigs) {
    std::vector<int> covered(size_t(step18::kWgmmaM) * c.bn, 0);
    for (int warp = 0; warp < 4; ++warp)
      for (int lane = 0; lane < 32; ++lane)
        for (int reg = 0; reg < c.bn / 2; ++reg)
          ++covered[size_t(step18::accumulator_row(warp, lane, reg)) * c.bn + step18::accumulator_col(lane, reg)];
    for (int n : covered) ASSERT_EQ(n, 1);
  }
}

TEST(Mapping18, RulesNameTheProblem) {
  EXPECT_NE(std::string(step18::config_rule({128, 256, 32, 4, 8, 1})).find("BK must be 64"), std::string::npos);
  EXPECT_NE(std::string(step18::config_rule({192, 256, 64, 4, 8, 1})).find("BM must be 64 or 128"), std::string::npos);
  EXPECT_NE(std::string(step18::config_rule({128, 320, 64, 4, 8, 1})).find("BN must be"), std::string::npos);
  EXPECT_NE(std::string(step18::config_rule({128, 256, 64, 5, 8, 1})).find("227 KB"), std::string::npos);
  EXPECT_NE(std::string(step18::config_rule({128, 256, 64, 4, 8, 4})).find("CLUSTER must be 1 or 2"), std::string::npos);
  EXPECT_NE(std::string(step18::config_rule({128, 256, 64, 4, 7, 2})).find("multiple of CLUSTER"), std::string::npos);
  EXPECT_NE(std::string(step18::config_rule({128, 256, 64, 2, 8, 1})).find("not compiled in"), std::string::npos);
}

TEST(Mapping18, StagingIsConflictFreeAndComplete) {
  ASSERT_EQ(step18::kStagingBytes, step18::kStagingSlices * step18::kStagingBoxBytes);
  for (int staged_bytes : {4, 2}) {
    // A slice is one box of C: 64 rows x 128 bytes, 32 f32 or 64 f16 columns. Every element has
    // its own bytes in its half of the buffer, in the copy engine's layout: chunks XOR row % 8.
    const int cols = step18::slice_cols(staged_bytes);
    ASSERT_EQ(cols * staged_bytes, 128);
    ASSERT_EQ(cols, step18::c_box_cols(staged_bytes));
    std::set<int> bytes;
    for (int row = 0; row < step18::kWgmmaM; ++row)
      for (int col = 0; col < cols; ++col) {
        const int at = step18::staging_byte(row, col, staged_bytes), in_row = col * staged_bytes;
        ASSERT_EQ(at, row * 128 + (((in_row / 16) ^ (row % 8)) * 16) + in_row % 16);
        for (int b = 0; b < staged_bytes; ++b) bytes.insert(at + b);
      }
    ASSERT_EQ(int(bytes.size()), step18::kStagingBoxBytes);
    ASSERT_EQ(*bytes.begin(), 0);
    ASSERT_EQ(*bytes.rbegin(), step18::kStagingBoxBytes - 1);
    // Slice s of the consumer whose rows start at (row0, col0) is the C box at col0 + s * cols.
    const step18::BoxCoord at = step18::c_box(128, 512, 3, staged_bytes);
    ASSERT_EQ(at.outer, 128);
    ASSERT_EQ(at.inner, 512 + 3 * cols);
    // Writes: a warp's pair stores put 4 lanes in each 16-byte bank group: 1 wavefront for 4-byte
    // pairs (f16), the minimum; 8-byte pairs (f32) are served by half-warps, where two rows share a
    // group (4 wavefronts: TraceStagesEveryFloatAndUpdatesCOnce). The accumulators of slice s
    // are registers s * cols / 2 .. (s + 1) * cols / 2 - 1.
    for (int slice = 0; slice < 256 / cols; ++slice)
      for (int warp = 0; warp < 4; ++warp)
        for (int reg = slice * cols / 2; reg < (slice + 1) * cols / 2; reg += 2) {
          int use[8] = {};
          for (int lane = 0; lane < 32; ++lane) {
            const int col = step18::accumulator_col(lane, reg) - slice * cols;
            ASSERT_GE(col, 0);
            ASSERT_LT(col + 1, cols);
            ++use[(step18::staging_byte(step18::accumulator_row(warp, lane, reg), col, staged_bytes) / 16) % 8];
          }
          for (int n : use) ASSERT_EQ(n, 4) << "lanes per bank group";
        }
  }
  // Read-back (f32): each quarter-warp reads 8 different bank groups, and the reads cover the slice once.
  const int cols = step18::slice_cols(4);
  std::set<int> read;
  for (int i = 0; i < step18::kReadBacks; ++i)
    for (int first = 0; first < step18::kWarpgroup; first += 8) {
      std::set<int> groups;
      for (int thread = first; thread < first + 8; ++thread) {
        const step18::StagedChunk chunk = step18::staged_chunk(thread, i);
        groups.insert((step18::staging_byte(chunk.row, chunk.col, 4) / 16) % 8);
        for (int e = 0; e < step18::kRun; ++e) read.insert(chunk.row * cols + chunk.col + e);
      }
      ASSERT_EQ(int(groups.size()), 8);
    }
  ASSERT_EQ(int(read.size()), step18::kWgmmaM * cols);
}

// The consumers' staging halves, one C box each, lie side by side and fill the staging buffers.
TEST(Mapping18, StagingHalvesTileTheBuffers) {
  for (const Config& c : step18::kConfigs) {
    std::set<int> starts;
    for (int consumer = 0; consumer < step18::consumers(c); ++consumer)
      for (int half = 0; half < step18::kStagingSlices; ++half) starts.insert(step18::staging_half_byte(consumer, half));
    ASSERT_EQ(int(starts.size()), step18::consumers(c) * step18::kStagingSlices);
    int expected = 0;
    for (int start : starts) {
      ASSERT_EQ(start, expected);
      expected += step18::kStagingBoxBytes;
    }
    ASSERT_EQ(expected, step18::consumers(c) * step18::kStagingBytes);
  }
}

// The trace the viewer and the access model use. Over whole launches: the staging writes cost 4
// wavefronts per instruction (256 bytes; see below) and, per consumer and tile, write
// each float of its staging buffer once per two slices; where the copy engine stores C, no lane
// touches global memory; elsewhere every element of C is stored once (and read once when beta != 0),
// runs cut by C's edge element by element.
TEST(Mapping18, TraceStagesEveryFloatAndUpdatesCOnce) {
  for (const Config& c : step18::kConfigs)
    for (const auto& [shape, layout] : {std::pair{GemmShape{3 * 128 + 8, 2 * 256 + 8, 64}, Layout::nn},
                                        std::pair{GemmShape{136, 100, 64}, Layout::nt},
                                        std::pair{GemmShape{136, 102, 64}, Layout::nt}})
      for (float beta : {0.0f, 0.5f}) {
        gemm::TraceProblem problem;
        problem.shape = shape;
        problem.layout = layout;
        problem.beta = beta;
        problem.params = step18::to_params(c);
        ASSERT_EQ(gemm::tc_aligned_rows_rule(shape, layout), "");
        const bool by_copy_engine = step18::tma_stores_c(shape, beta, 4);
        std::vector<int> stored(size_t(shape.m) * size_t(shape.n), 0), loaded = stored;
        std::map<std::pair<int, int>, std::vector<int>> staged;  // (block, tile) -> writes per float
        const gemm::LaunchShape launch = step18::trace_launch_shape(problem, c);
        const gemm::AccessTotals totals =
            gemm::predict_launch(launch, [&](const gemm::Dim3& block, int warp, const gemm::TraceSink& sink) {
              step18::trace_warp(problem, block, warp, [&](const gemm::TraceInstruction& i) {
                sink(i);
                for (int lane = 0; lane < 32; ++lane) {
                  if (!i.access.lane_active(lane)) continue;
                  const long long element = i.access.address[size_t(lane)] / 4;
                  if (i.operand == gemm::Operand::C) {
                    for (int e = 0; e < i.access.width / 4; ++e)
                      ++(i.access.access == gemm::Access::store ? stored : loaded)[size_t(element + e)];
                  } else if (i.access.access == gemm::Access::store) {
                    auto& writes = staged[{block.x, i.iteration}];
                    if (writes.empty()) writes.assign(size_t(step18::consumers(c) * step18::kStagingBytes / 4), 0);
                    for (int e = 0; e < 2; ++e) ++writes[size_t(element + e)];
                  }
                }
              });
            });
        // 8-byte stores are served by half-warps, and in each half-warp rows 2i and 2i + 1 of the
        // slice land in the same bank group (the copy engine's swizzle XORs the chunk with row % 8,
        // which keeps a pair of chunks together): 2 wavefronts a half, twice the minimum.
        EXPECT_EQ(totals.shared_store_wavefronts, 4 * totals.shared_store_requests);
        const int slices = c.bn / step18::slice_cols(4);
        for (const auto& [key, writes] : staged)
          for (int n : writes) ASSERT_EQ(n, slices / 2) << "block " << key.first << " tile " << key.second;
        if (by_copy_engine) {
          EXPECT_EQ(totals.global_load_requests + totals.global_store_requests, 0);
          continue;
        }
        for (size_t e = 0; e < stored.size(); ++e) {
          ASSERT_EQ(stored[e], 1) << "C element " << e;
          ASSERT_EQ(loaded[e], beta != 0 ? 1 : 0);
        }
      }
}

// Closed form, the copy engine's path: 256 x 512 on the default configuration is 2 units of 2
// tiles, 4 blocks with one tile each; each consumer warp writes 8 slices of 8 pairs (f32).
TEST(Mapping18, TraceCountsForTheCopyEnginePath) {
  const Config d = step18::kConfigs[0];
  gemm::TraceProblem problem;
  problem.shape = {2 * d.bm, 2 * d.bn, 64};
  problem.params = step18::to_params(d);
  const gemm::AccessTotals totals = gemm::predict_launch(
      step18::trace_launch_shape(problem, d), [&](const gemm::Dim3& block, int warp, const gemm::TraceSink& sink) {
        step18::trace_warp(problem, block, warp, sink);
      });
  const long long consumer_warps = 4LL * step18::consumers(d) * 4;
  EXPECT_EQ(totals.shared_store_requests, consumer_warps * (d.bn / 32) * 8);
  EXPECT_EQ(totals.shared_load_requests, 0);
  EXPECT_EQ(totals.global_store_sectors, 0);
}
