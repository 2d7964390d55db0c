// Step 26, Hopper wgmma: the index math, shared by the kernel and the host tests. Step 25's, with
// one tile more: 128 x 144, whose count fills the SMs where the others leave many idle (1536^3: 66
// units of two on 132 SMs), with the 5 stages its smaller B leaves room for, chosen by shape
// (config_for_shape). 144 is not a multiple of a box's 64 columns: an N-major B's last 16 columns
// come in a box of their own with the 32-byte swizzle (b_operand, tile_byte, tail_offset), which
// wgmma reads through a descriptor of its own; the epilogue's last slice ends at the tile's edge
// (slice_first_col).
//
// The main loop computes no per-lane shared-memory address (the epilogue's staging_byte does):
//  - TMA (the Tensor Memory Accelerator) moves whole boxes of a tile global -> shared, given a
//    tensor map (the matrix's shape, row length, box size and swizzle, built once on the host) and
//    the box's first coordinate (tma_box below). It zero-fills what lies outside the matrix;
//  - wgmma reads its operands straight from shared memory through a 64-bit descriptor (start
//    address, two strides, swizzle mode: wgmma_descriptor below); one instruction multiplies a
//    64 x BN x 16 slice for a whole warpgroup (4 warps, 128 threads), or two where an N-major B is
//    144 columns wide (n = 128, then n = 16);
//  - the layout of each operand in global memory picks its box shape and its "transpose" bit:
//    K-major operands (A in NN/NT, B in NT) come in rows of 64 k's; M- or N-major ones (A in TN, B
//    in NN/TN) in rows of 64 m's or n's, and wgmma reads them transposed at no cost.
// What is left per thread is the accumulator layout of wgmma (accumulator_row/col) for the epilogue,
// and the order in which the persistent blocks take their tiles (tile_at). Blocks may run in
// clusters of 2 on tiles one above the other, which need the same B tiles: each block copies half
// of B's boxes and TMA writes them into both blocks' shared memory (multicast).
#pragma once

#include <cstdint>
#include <map>
#include <string>

#include "accumulators.hpp"
#include "dispatch.hpp"
#include "gemm_types.hpp"
#include "gpu_limits.hpp"
#include "hd.hpp"
#include "trace.hpp"
#include "tunables.hpp"

namespace step26 {

using gemm::ceil_div;
using gemm::GemmShape;
using gemm::Layout;
using gemm::LaunchShape;

constexpr int kWarpSize = 32;
constexpr int kWarpgroup = 128;       // threads that issue one wgmma together
constexpr int kWgmmaM = 64;           // rows of one wgmma (m64nNk16)
constexpr int kWgmmaK = 16;
constexpr int kElementBytes = 2;      // f16, bf16
constexpr int kSwizzleBytes = 128;    // TMA and wgmma agree on the 128-byte swizzle
constexpr int kBoxInner = kSwizzleBytes / kElementBytes;  // 64 elements: one swizzled row
constexpr int kSwizzleAtomBytes = 8 * kSwizzleBytes;      // 8 rows of 128 bytes: the swizzle's period
constexpr int kNarrowCols = 64;       // the n of a narrow tile's wgmma
// The last box of an N-major B whose BN is not a multiple of 64 (144 = 2 x 64 + 16): rows of 16
// elements, 32 bytes, which TMA and wgmma swizzle with the 32-byte pattern (16-byte chunk c of
// k-row r at c ^ (r / 4 % 2)). A box of 64 columns there would copy 48 columns for nothing and
// leave room for only 4 stages.
constexpr int kTailCols = 16;
constexpr int kTailSwizzleBytes = kTailCols * kElementBytes;  // 32
constexpr int kTailAtomBytes = 8 * kTailSwizzleBytes;         // 8 k-rows of 32 bytes: a core matrix's rows
constexpr int kBarrierBytes = 8;      // one mbarrier

struct Config {
  int bm, bn, bk;    // block tile; BK = 64 (one swizzled row of k)
  int stages;        // k-tiles in flight in shared memory
  int group_m;       // tile order: GROUP_M tile rows are walked together (L2 reuse)
  int cluster;       // blocks per cluster (1 or 2), on tiles one above the other, sharing B tiles
  GEMM_HD constexpr bool operator==(const Config& o) const {
    return bm == o.bm && bn == o.bn && bk == o.bk && stages == o.stages && group_m == o.group_m &&
           cluster == o.cluster;
  }
};

// The tunables, each declared here once (--param NAME=value, --help, the results file, the traced
// registry: common/host/tunables.hpp); their values are kConfigs' fields.
inline constexpr gemm::Tunable<Config> kTunables[] = {
    {"BM", &Config::bm, "rows of C per block: 64 per consumer warpgroup (64 or 128)"},
    {"BN", &Config::bn,
     "columns of C per block: the n of each wgmma (64..256, a multiple of 64), or 144 (n = 128 and 16 where B is N-major)"},
    {"BK", &Config::bk, "depth of the shared tiles (64: one 128-byte swizzled row)"},
    {"STAGES", &Config::stages, "k-tiles in flight in shared memory"},
    {"GROUP_M", &Config::group_m, "tile rows walked together by the persistent blocks (L2 reuse)"},
    {"CLUSTER", &Config::cluster, "blocks per cluster on tiles one above the other, sharing B (1 or 2)"},
};

// One producer warpgroup (one thread issues the copies) and one consumer warpgroup per 64 rows.
GEMM_HD constexpr int consumers(const Config& c) { return c.bm / kWgmmaM; }
GEMM_HD constexpr int threads(const Config& c) { return (1 + consumers(c)) * kWarpgroup; }

// The compiled configurations; the first is the default (the measured best on the H100, see
// docs/18-tma-store-epilogue.md). The next three differ from it in one tunable each, so that each can be
// tried alone (--param GROUP_M=8, CLUSTER=1 or STAGES=3); the next two are the 128 x 128 and
// 64 x 128 tiles that small shapes run (config_for_shape), whose smaller stages allow 6 and 8; the
// next the 128 x 192 tile that fills the rounds of some mid shapes better (4 stages, as the default);
// the last this step's 128 x 144 tile, with 5 stages (34 KB each, against the default's 48).
constexpr Config kConfigs[] = {
    {128, 256, 64, 4, 16, 2},
    {128, 256, 64, 4, 8, 2},
    {128, 256, 64, 4, 16, 1},
    {128, 256, 64, 3, 16, 2},
    {128, 128, 64, 6, 8, 1},
    {64, 128, 64, 8, 8, 1},
    {128, 192, 64, 4, 16, 2},
    {128, 144, 64, 5, 16, 2},
};
constexpr int kConfigCount = int(sizeof(kConfigs) / sizeof(kConfigs[0]));

GEMM_HD constexpr int a_tile_bytes(const Config& c) { return c.bm * c.bk * kElementBytes; }
GEMM_HD constexpr int b_tile_bytes(const Config& c) { return c.bn * c.bk * kElementBytes; }
GEMM_HD constexpr int stage_bytes(const Config& c) { return a_tile_bytes(c) + b_tile_bytes(c); }
// The epilogue stages each consumer's results through a buffer of its own: two slices of C, each
// one box as TMA stores it, 64 rows of 128 bytes (staging_byte below).
constexpr int kStagingBoxBytes = kWgmmaM * kSwizzleBytes;  // one slice: 64 rows of 128 bytes
constexpr int kStagingSlices = 2;                          // written in turn
constexpr int kStagingBytes = kStagingSlices * kStagingBoxBytes;  // per consumer: 16 KB
// Stages, the consumers' staging buffers, two barriers per stage (full, empty), and room to align
// the stages to the swizzle's 1024-byte period (dynamic shared memory is only 16-byte aligned).
GEMM_HD constexpr int shared_bytes(const Config& c) {
  return c.stages * stage_bytes(c) + consumers(c) * kStagingBytes + 2 * c.stages * kBarrierBytes + kSwizzleAtomBytes;
}
constexpr int kMaxSharedBytes = gemm::architecture_limits(90).shared_per_block;  // sm_90's per block: 227 KB

inline const char* config_rule(const Config& c) {
  if (c.bm <= 0 || c.bn <= 0 || c.bk <= 0 || c.stages <= 0 || c.group_m <= 0 || c.cluster <= 0)
    return "all params must be positive";
  if (c.cluster > 2) return "CLUSTER must be 1 or 2";
  if (c.group_m % c.cluster) return "GROUP_M must be a multiple of CLUSTER (a cluster's tiles are in one group)";
  if (c.bk != kBoxInner) return "BK must be 64 (one 128-byte swizzled row of 16-bit k's)";
  if (c.bm % kWgmmaM || c.bm > 2 * kWgmmaM) return "BM must be 64 or 128 (one consumer warpgroup per 64 rows)";
  if ((c.bn % kBoxInner && c.bn % kBoxInner != kTailCols) || c.bn > 256)
    return "BN must be a multiple of 64 up to 256, or 16 more (144: wgmma n <= 256, boxes of 64 and one of 16)";
  if (c.stages < 2 || c.stages > 8) return "STAGES must be 2..8";
  if (shared_bytes(c) > kMaxSharedBytes) return "the stages and staging buffers need more than 227 KB of shared memory";
  if (gemm::index_of(kConfigs, c) >= 0) return "";
  return "this combination is not compiled in; see the list in steps/26_fitted_tile/mapping.hpp (--help)";
}

inline Config config_from(const gemm::Params& params) { return gemm::config_from(kTunables, params); }
inline gemm::Params to_params(const Config& c, const gemm::Params& base = {}) {
  return gemm::to_params(kTunables, c, base);
}

// --- The persistent grid and its tile order ------------------------------------------------------

GEMM_HD int tiles_m(const GemmShape& s, const Config& c) { return ceil_div(s.m, c.bm); }
GEMM_HD int tiles_n(const GemmShape& s, const Config& c) { return ceil_div(s.n, c.bn); }
GEMM_HD int tiles(const GemmShape& s, const Config& c) { return tiles_m(s, c) * tiles_n(s, c); }
GEMM_HD int k_tiles(const GemmShape& s, const Config& c) { return ceil_div(s.k, c.bk); }

// The persistent grid's unit of work is a column of CLUSTER tiles, one above the other (a
// cluster's blocks take one each: tile row unit_row * CLUSTER + rank). Where the tile rows do not
// divide, the last unit's lower tile lies below C: its block computes it (it must copy its share of
// B for the other) and stores nothing.
GEMM_HD int unit_rows(const GemmShape& s, const Config& c) { return ceil_div(tiles_m(s, c), c.cluster); }
GEMM_HD int units(const GemmShape& s, const Config& c) { return unit_rows(s, c) * tiles_n(s, c); }

// Step 18's grid, which this step keeps where nothing pairs (clusters_in_turn below): the blocks of
// cluster q take units q, q + clusters, q + 2 clusters, ..., so the grid takes ceil(units / clusters) rounds. It has as few clusters as
// take that many rounds (at 4096^3, 256 units with room for 66 clusters, 132 SMs in pairs: 4
// rounds, so 64 clusters, 4 units each, not 58 with 4 and 8 with 3): the rounds cost the same, and
// every block ends together, with SMs left idle from the start rather than in the last round.
//
// A tile of the last column whose columns from the 64th on all lie outside C (N = 4104: 8 columns
// of a 256-wide tile) is narrow: its B copies are only the box that holds those 64 columns, and its
// consumers multiply with the n = 64 wgmma. Such units are dealt after all the others (tile_at),
// and where that saves time the grid takes the rounds of the whole units on the fewest clusters
// that take them, the narrow units in a short round after (a narrow unit counted as half a whole
// one): at 4088 x 4104, 256 whole units in 4 rounds of 64 clusters and 16 narrow ones, where
// counting all 272 alike took 5 rounds of 55.
constexpr int kNarrowUnitsPerWhole = 2;  // what a narrow unit is counted as: half a whole one
GEMM_HD bool narrow_tile(int tile_n, const GemmShape& s, const Config& c) {
  return c.bn > kNarrowCols && s.n - tile_n * c.bn <= kNarrowCols;
}
GEMM_HD int narrow_units(const GemmShape& s, const Config& c) {
  return narrow_tile(tiles_n(s, c) - 1, s, c) ? unit_rows(s, c) : 0;
}
// The persistent grid's time on `clusters` clusters, in a narrow unit's time (a whole unit's is
// kNarrowUnitsPerWhole): the rounds of the whole units, then the narrow units, which tile_at deals
// last, in the free places of the last whole round and in short rounds after it.
GEMM_HD int grid_time_on(int whole, int narrow, int clusters) {
  const int rounds = ceil_div(whole, clusters);
  const int narrow_after = narrow - (rounds * clusters - whole);  // past the whole rounds' free places
  return kNarrowUnitsPerWhole * rounds + (narrow_after > 0 ? ceil_div(narrow_after, clusters) : 0);
}
// Step 18's grid (its persistent_clusters, renamed): those clusters, the units dealt in turn.
GEMM_HD int clusters_in_turn(const GemmShape& shape, const Config& c, int sms) {
  const int count = units(shape, c), fit = sms / c.cluster;
  if (count <= fit) return count;
  const int alike = ceil_div(count, ceil_div(count, fit));
  const int narrow = narrow_units(shape, c), whole = count - narrow;
  if (narrow == 0 || whole == 0) return alike;
  // The fewest clusters for the whole units' rounds, against every unit counted alike.
  const int clusters = ceil_div(whole, ceil_div(whole, fit));
  return grid_time_on(whole, narrow, clusters) < kNarrowUnitsPerWhole * ceil_div(count, alike) ? clusters : alike;
}

// This step: where the narrow units would make a short round of their own, it deals places
// instead of units. A place is a whole unit, or two narrow units that one cluster takes one after
// the other (a pair counted as one whole unit); the places go to the clusters in turn. At 4088 x
// 4104, 256 whole units and 8 pairs are 264 places, 4 rounds of 66 clusters: 58 clusters take 4
// whole units, 8 take 3 and a pair, and no round is left for the narrow units alone.
GEMM_HD int places_of(int whole, int narrow) { return whole + ceil_div(narrow, 2); }
GEMM_HD int places_time_on(int whole, int narrow, int clusters) {
  const int places = places_of(whole, narrow), rounds = ceil_div(places, clusters);
  // The last round only a narrow unit without a partner (an odd count): half a round.
  const bool lone_narrow_last = narrow % 2 == 1 && places - (rounds - 1) * clusters == 1;
  return kNarrowUnitsPerWhole * rounds - (lone_narrow_last ? 1 : 0);
}
// The narrow units go in pairs where that is the shorter dealing on these clusters: not where each
// unit has a cluster of its own, nor where the pairs would open a round that single narrow units
// fill in half the time (a grid of 64 whole units and 8 narrow ones on 66 clusters).
GEMM_HD bool paired(const GemmShape& s, const Config& c, int clusters) {
  const int count = units(s, c), narrow = narrow_units(s, c);
  return count > clusters && places_time_on(count - narrow, narrow, clusters) < grid_time_on(count - narrow, narrow, clusters);
}
// The units that are a place each (tile_at numbers them first): the whole ones where the narrow
// ones go in pairs after them, else all of them.
GEMM_HD int single_units(const GemmShape& s, const Config& c, int clusters) {
  return paired(s, c, clusters) ? units(s, c) - narrow_units(s, c) : units(s, c);
}
GEMM_HD int places(const GemmShape& s, const Config& c, int clusters) {
  const int single = single_units(s, c, clusters);
  return places_of(single, units(s, c) - single);
}
// The first unit of place p: the single units are places 0 .. single - 1, then each pair's first.
GEMM_HD int first_unit(int place, int single) { return place < single ? place : single + 2 * (place - single); }
// The unit a cluster takes after unit u (the kernel's loop): the second of u's pair, else the first
// unit of its next place, `clusters` places on. A last narrow unit without a partner ends its walk
// there (its next unit is past the last).
GEMM_HD int next_unit(int u, int clusters, int single) {
  if (u >= single && (u - single) % 2 == 0) return u + 1;
  const int place = u < single ? u : single + (u - single) / 2;
  return first_unit(place + clusters, single);
}
// How long the persistent grid takes on `clusters` clusters, dealt as `paired` says.
GEMM_HD int grid_time_of(const GemmShape& s, const Config& c, int clusters) {
  const int count = units(s, c), narrow = narrow_units(s, c);
  return paired(s, c, clusters) ? places_time_on(count - narrow, narrow, clusters) : grid_time_on(count - narrow, narrow, clusters);
}
// The grid: step 18's clusters, or as few as take the places' rounds where the narrow units pair
// on them and that counts shorter.
GEMM_HD int persistent_clusters(const GemmShape& shape, const Config& c, int sms) {
  const int in_turn = clusters_in_turn(shape, c, sms), count = units(shape, c), fit = sms / c.cluster;
  if (count <= fit) return in_turn;
  const int dealt = places_of(count - narrow_units(shape, c), narrow_units(shape, c));
  const int for_places = dealt <= fit ? dealt : ceil_div(dealt, ceil_div(dealt, fit));
  return paired(shape, c, for_places) && grid_time_of(shape, c, for_places) < grid_time_of(shape, c, in_turn) ? for_places
                                                                                                              : in_turn;
}
// How long the persistent grid takes, as it is launched.
GEMM_HD int grid_time(const GemmShape& shape, const Config& c, int sms) {
  return grid_time_of(shape, c, persistent_clusters(shape, c, sms));
}
// The tile by shape, when the command line sets no tunables. A unit of the default is two
// 128 x 256 tiles, so small shapes have few: 16 at 1000^3, which leave 32 of 132 SMs busy in the
// only round. Where the default takes a single round (no more units than the GPU has SM pairs),
// a smaller tile without clusters puts more SMs to work on the same area; where it takes several,
// every SM is busy either way and the default's wider tile, with fewer shared-memory reads per
// multiply-add, is faster. The 128 x 128 tile (a quarter of a unit), or the 64 x 128 one where even
// 128 x 128 tiles would give at most half of the SMs a block, provided the stored rows of A and B
// are whole 128-byte lines (else each row of a copy's box straddles two lines, which the smallest
// tile, with the least reuse of each copy, pays for most). 64 x 128, not 128 x 64: its one consumer
// reads 24 KB of shared memory a k-tile (n = 128), two consumers of 64 columns 32 KB for the same
// products (docs/performance-log.md, step 18: "the tile by shape", then "a 64 x 128 tile").
//
// Then, at any size, the 128 x 192 tile where its rounds fit the shape so much better that they
// take at least kThreeQuarterTileMargin percent less time, counted as the grid's time (grid_time)
// times the area of a tile: at 3072^3 the default's 144 units take 3 rounds (of 48 clusters, where
// the SMs hold 66: 2.2 rounds' work), and the 192 units of 128 x 192 tiles take 3 rounds of 64
// clusters, each three quarters as long. At about equal time so counted it measured a little
// slower (6144^3, 8192^3), hence the margin (docs/performance-log.md, step 18, version 12).
//
// Last, this step's 128 x 144 tile where it counts less by the same margin than what the rules
// above chose: at 1536^3 its 132 tiles make 66 units, one round on every SM pair, 144 columns
// long, where the 128 x 192 tile's 48 units leave 36 SMs idle in a round 192 columns long.
constexpr int kSmallTileConfig = 4;          // kConfigs' 128 x 128 tile
constexpr int kShortTileConfig = 5;          // kConfigs' 64 x 128 tile
constexpr int kThreeQuarterTileConfig = 6;   // kConfigs' 128 x 192 tile
constexpr int kThreeQuarterTileMargin = 10;  // percent
constexpr int kFittedTileConfig = 7;         // kConfigs' 128 x 144 tile
static_assert(kConfigs[kSmallTileConfig].bn == 128 && kConfigs[kSmallTileConfig].cluster == 1,
              "kSmallTileConfig names the 128 x 128 tile");
static_assert(kConfigs[kShortTileConfig].bm == 64 && kConfigs[kShortTileConfig].bn == 128 && kConfigs[kShortTileConfig].cluster == 1,
              "kShortTileConfig names the 64 x 128 tile");
static_assert(kConfigs[kThreeQuarterTileConfig].bn == 192, "kThreeQuarterTileConfig names the 128 x 192 tile");
static_assert(kConfigs[kFittedTileConfig].bn == 144, "kFittedTileConfig names the 128 x 144 tile");
// The stored rows (leading dimensions) of A and B: K or M for A, N or K for B, by layout.
GEMM_HD constexpr bool rows_are_whole_lines(const GemmShape& s, Layout layout) {
  const int a_row = layout == Layout::tn ? s.m : s.k, b_row = layout == Layout::nt ? s.k : s.n;
  return a_row % kBoxInner == 0 && b_row % kBoxInner == 0;
}
// The time a shape takes with a tile, as the rule above counts it: the grid's time times the tile.
inline long long counted_time(const GemmShape& shape, const Config& c, int sms) {
  return (long long)grid_time(shape, c, sms) * c.bm * c.bn;
}
inline Config config_for_shape(const GemmShape& shape, Layout layout, int sms) {
  const Config& wide = kConfigs[0];
  const Config& small = kConfigs[kSmallTileConfig];
  Config chosen = wide;
  if (units(shape, wide) <= sms / wide.cluster)
    chosen = 2 * tiles(shape, small) <= sms && rows_are_whole_lines(shape, layout) ? kConfigs[kShortTileConfig] : small;
  const Config& three_quarter = kConfigs[kThreeQuarterTileConfig];
  if (counted_time(shape, three_quarter, sms) * (100 + kThreeQuarterTileMargin) < counted_time(shape, chosen, sms) * 100)
    chosen = three_quarter;
  const Config& fitted = kConfigs[kFittedTileConfig];
  if (counted_time(shape, fitted, sms) * (100 + kThreeQuarterTileMargin) < counted_time(shape, chosen, sms) * 100)
    return fitted;
  return chosen;
}

// One block per SM at most (whole clusters, at most one cluster per unit).
GEMM_HD LaunchShape launch_shape(const GemmShape& shape, const Config& c, int sms) {
  LaunchShape launch;
  launch.grid = {persistent_clusters(shape, c, sms) * c.cluster, 1, 1};
  launch.block = {threads(c), 1, 1};
  launch.shared_bytes = shared_bytes(c);
  return launch;
}

// The tile that the block of rank `rank` in its cluster computes for unit u: units are walked in
// groups of GROUP_M tile rows, down a group's rows first, then across its columns, so that the
// blocks running at one time share a few rows of A and columns of B in L2 (a plain row-by-row order
// would read all of B for every row of tiles). At 4096^3 with GROUP_M = 16, a round of 64 clusters
// takes 16 tile rows by 8 columns, and the next round the same rows by the other 8: A's rows can
// still be in L2 for the second round. With GROUP_M = 8 a round takes 8 rows by all 16 columns, and
// the DRAM reads the profiler counts fit all of B being read from DRAM again in every round.
struct TileCoord {
  int m = 0, n = 0;  // tile row and column
};
GEMM_HD TileCoord tile_at(int u, int rank, const GemmShape& s, const Config& c) {
  const int narrow = narrow_units(s, c), whole = units(s, c) - narrow;
  if (u >= whole) return {(u - whole) * c.cluster + rank, tiles_n(s, c) - 1};  // the narrow column, last
  const int rows = unit_rows(s, c), cols = tiles_n(s, c) - (narrow > 0 ? 1 : 0), group = c.group_m / c.cluster;
  const int per_group = group * cols;
  const int first_row = (u / per_group) * group;
  const int group_rows = rows - first_row < group ? rows - first_row : group;
  const int in_group = u % per_group;
  return {(first_row + in_group % group_rows) * c.cluster + rank, in_group / group_rows};
}

// --- The pipeline: which stage and which barrier phase a k-tile takes ----------------------------

// The kernel's running counters are the one definition of the schedule: the block's k-tiles take
// the stages in turn (++stage; at STAGES back to 0), and each pass over the stages waits for the
// next phase of their full barriers, named by its parity: 0, 1, 0, ... The kernel advances its
// PipelineState once a k-tile; stage_of and full_parity (the viewer's timeline, the tests) walk it
// from the block's first k-tile, so the j-th k-tile lives in stage j % STAGES and completes phase
// j / STAGES of that stage's full barrier.
struct PipelineState {
  // (phase first, then stage: the order the kernel's compiled code was checked with; ptxas numbers
  // the registers it allots by it, and the machine code follows)
  std::uint32_t phase = 0;  // the parity of the full barrier's phase this k-tile completes
  int stage = 0;
  GEMM_HD constexpr void advance(const Config& c) {
    if (++stage == c.stages) stage = 0, phase ^= 1;
  }
  // The producer waits on the stage's empty barrier for the phase before (parity flipped): its
  // first pass over the stages finds them empty at once.
  GEMM_HD constexpr std::uint32_t empty_parity() const { return phase ^ 1; }
};
GEMM_HD constexpr PipelineState pipeline_state_at(int j, const Config& c) {  // j: the block's j-th k-tile
  PipelineState state;
  for (int k_tile = 0; k_tile < j; ++k_tile) state.advance(c);
  return state;
}
GEMM_HD constexpr int stage_of(int j, const Config& c) { return pipeline_state_at(j, c).stage; }
GEMM_HD constexpr int full_parity(int j, const Config& c) { return int(pipeline_state_at(j, c).phase); }
GEMM_HD constexpr int empty_parity(int j, const Config& c) { return int(pipeline_state_at(j, c).empty_parity()); }
// A phase of an empty barrier completes with one arrival per consumer warp of every block of the
// cluster (each reads what every producer writes).
GEMM_HD constexpr int empty_arrivals(const Config& c) {
  return consumers(c) * (kWarpgroup / kWarpSize) * c.cluster;
}
// The persistent grid's units of work: the blocks of cluster q (cluster_of) take the units of
// places q, q + clusters, ... in turn (first_unit, next_unit: the kernel's loop over u; the stage
// and phase counters run on from one tile to the next). unit_of, the unit a block takes `i`-th,
// walks that loop (the viewer's timeline, the tests). The block's rank in the cluster picks the
// unit's tile (tile_at): the kernel reads it from the hardware (%cluster_ctarank), which numbers a
// cluster's blocks along x as rank_of.
GEMM_HD constexpr int cluster_of(int block, const Config& c) { return block / c.cluster; }
GEMM_HD int unit_of(int block, int i, int clusters, int single, const Config& c) {
  int u = first_unit(cluster_of(block, c), single);
  for (int r = 0; r < i; ++r) u = next_unit(u, clusters, single);
  return u;
}
GEMM_HD constexpr int rank_of(int block, const Config& c) { return block % c.cluster; }  // clusters along x

// --- TMA boxes --------------------------------------------------------------------------------

// An operand as TMA sees it: the stored matrix (inner = row length, outer = rows) cut
// into boxes of kBoxInner x box_outer elements. K-major operands need one box per tile (64 k's by
// BM or BN rows; B in CLUSTER boxes of BN / CLUSTER rows: 72 of the 144-column tile); M/N-major
// ones BM/64 or BN/64 boxes of 64 m's or n's by 64 k's, and for BN = 144 a last box of 16 n's (tail),
// which TMA copies through a tensor map of its own (the 32-byte swizzle) and lands after the others.
GEMM_HD constexpr bool a_k_major(Layout layout) { return layout != Layout::tn; }
GEMM_HD constexpr bool b_k_major(Layout layout) { return layout == Layout::nt; }
struct TmaOperand {
  bool k_major = true;
  int inner = 0, outer = 0;    // stored extent: row length (the leading dimension) and rows
  int box_outer = 0;           // rows of one box
  int boxes = 1;               // boxes per tile, the tail's included
  int tail = 0;                // columns of an N-major B's last box where they are fewer than 64 (16), else 0
};
GEMM_HD TmaOperand a_operand(const GemmShape& s, Layout layout, const Config& c) {
  if (a_k_major(layout)) return {true, s.k, s.m, c.bm, 1};
  return {false, s.m, s.k, c.bk, c.bm / kBoxInner};
}
// B's tile is cut into at least CLUSTER boxes, so that each block of a cluster copies its share
// (the boxes with box % CLUSTER == rank) into every block of the cluster.
GEMM_HD TmaOperand b_operand(const GemmShape& s, Layout layout, const Config& c) {
  if (b_k_major(layout)) return {true, s.k, s.n, c.bn / c.cluster, c.cluster};
  return {false, s.n, s.k, c.bk, ceil_div(c.bn, kBoxInner), c.bn % kBoxInner};
}
// Whether box `box` is the tail (kTailCols wide, the 32-byte swizzle).
GEMM_HD bool tail_box(const TmaOperand& op, int box) { return op.tail > 0 && box == op.boxes - 1; }
// The first element (inner, outer) of box `box` of the tile at m or n = `mn0`, k-tile kt; it lands
// at byte box * box_bytes of the operand's tile in shared memory.
struct BoxCoord {
  int inner = 0, outer = 0;
};
GEMM_HD BoxCoord tma_box(const TmaOperand& op, int mn0, int kt, int box, const Config& c) {
  if (op.k_major) return {kt * c.bk, mn0 + box * op.box_outer};
  return {mn0 + box * kBoxInner, kt * c.bk};
}
// A whole box's bytes, and where box `box` lands: at box * box_bytes of the operand's tile (the
// tail after the whole boxes, on a 1024-byte boundary).
GEMM_HD int box_bytes(const TmaOperand& op) { return kBoxInner * op.box_outer * kElementBytes; }
// The bytes box `box` copies: a whole box's, or the tail's 16 columns by 64 k's (2 KB).
GEMM_HD int box_bytes_of(const TmaOperand& op, int box) {
  return tail_box(op, box) ? op.tail * op.box_outer * kElementBytes : box_bytes(op);
}
// The columns (inner elements) of box `box`.
GEMM_HD int box_inner_of(const TmaOperand& op, int box) { return tail_box(op, box) ? op.tail : kBoxInner; }
// The boxes of B a tile copies: all of them, or for a narrow tile the first, which holds its 64
// columns inside C (64 n's of an N-major B; BN / CLUSTER >= 64 rows of a K-major one).
GEMM_HD int b_boxes_copied(const TmaOperand& b, bool narrow) { return narrow ? 1 : b.boxes; }
// The bytes those boxes bring into each block of the cluster (what its full barrier expects of B).
GEMM_HD int b_bytes_copied(const TmaOperand& b, bool narrow) {
  int bytes = 0;
  for (int box = 0; box < b_boxes_copied(b, narrow); ++box) bytes += box_bytes_of(b, box);
  return bytes;
}

// Where element (mn, k) of a tile (mn < BM or BN, k < BK) lies in shared memory after the copy,
// in bytes from the tile's start: rows of 128 bytes, 16-byte chunks swizzled by XOR with the row's
// position in its 1024-byte period (CU_TENSOR_MAP_SWIZZLE_128B); in an N-major B's tail, rows of
// 32 bytes, one per k, the two chunks swapped in every other group of 4 rows
// (CU_TENSOR_MAP_SWIZZLE_32B). This is what wgmma_descriptor describes to the tensor cores; the
// host tests check the two against each other.
GEMM_HD int tile_byte(const TmaOperand& op, int mn, int k) {
  if (tail_box(op, mn / kBoxInner)) {  // rows of 32 bytes, one per k, chunks swizzled by k / 4 % 2
    const int in_row = (mn % kBoxInner) * kElementBytes;
    const int chunk = (in_row / 16) ^ (k * kTailSwizzleBytes / kSwizzleBytes % 2);
    return (op.boxes - 1) * box_bytes(op) + k * kTailSwizzleBytes + chunk * 16 + in_row % 16;
  }
  const int row = op.k_major ? mn : (mn / kBoxInner) * op.box_outer + k;
  const int in_row = (op.k_major ? k : mn % kBoxInner) * kElementBytes;
  const int chunk = (in_row / 16) ^ (row % 8);
  return row * kSwizzleBytes + chunk * 16 + in_row % 16;
}

// --- wgmma operand descriptors ---------------------------------------------------------------

// The 64-bit shared-memory matrix descriptor (PTX ISA, "Matrix Descriptor Format"): start address,
// leading- and stride-dimension byte offsets (all >> 4), and the swizzle mode (1 = 128 bytes, 3 = 32).
// 128-byte-swizzled layouts (CUTLASS's canonical forms):
//  - K-major: 8 rows of 128 bytes form one 1024-byte atom; the stride offset is the step from one
//    group of 8 m/n rows to the next (1024); the leading offset is unused (1);
//  - M/N-major: a row holds 64 m's or n's of one k; the stride offset steps 8 k-rows (1024), the
//    leading offset steps to the next 64 m's or n's (the next box: 64 k-rows x 128 bytes).
//  - the tail of an N-major B (32-byte swizzle): a row holds its 16 n's of one k; the stride offset
//    steps 8 k-rows (256 bytes); the leading offset would step to the next 16 n's, of which there
//    are none (its n = 16 wgmma reads one column of core matrices).
struct Descriptor {
  int leading_bytes = 0, stride_bytes = 0;
  int swizzle_bytes = kSwizzleBytes;  // 128, or 32 for the tail
};
GEMM_HD Descriptor descriptor_strides(const TmaOperand& op) {
  if (op.k_major) return {16, kSwizzleAtomBytes};
  return {box_bytes(op), kSwizzleAtomBytes};
}
// The tail's: 8 k-rows of 32 bytes a step, the 32-byte swizzle (the layouts above).
GEMM_HD Descriptor tail_descriptor_strides(const TmaOperand& op) {
  return {box_bytes_of(op, op.boxes - 1), kTailAtomBytes, kTailSwizzleBytes};
}
GEMM_HD std::uint64_t wgmma_descriptor(std::uint32_t start_byte, const Descriptor& d) {
  // The swizzle mode (bits 62-63): 1 for 128 bytes, 2 for 64, 3 for 32.
  const std::uint64_t mode = d.swizzle_bytes == 128 ? 1 : d.swizzle_bytes == 64 ? 2 : 3;
  return std::uint64_t((start_byte >> 4) & 0x3fff) | std::uint64_t((unsigned(d.leading_bytes) >> 4) & 0x3fff) << 16 |
         std::uint64_t((unsigned(d.stride_bytes) >> 4) & 0x3fff) << 32 | mode << 62;
}
// Byte offset, within a tile, of the operand of wgmma step `kk` (k = 16 kk ..) for the 64 rows of
// consumer `consumer` (A) or for the whole tile (B, consumer 0): K-major tiles move 32 bytes along
// their swizzled rows (the hardware applies the swizzle to the address it forms), M/N-major ones
// move 16 k-rows down.
GEMM_HD int operand_offset(const TmaOperand& op, int consumer, int kk) {
  if (op.k_major) return consumer * kWgmmaM * kSwizzleBytes + kk * kWgmmaK * kElementBytes;
  return consumer * box_bytes(op) + kk * kWgmmaK * kSwizzleBytes;
}
// The same for the tail of an N-major B: 16 k-rows of 32 bytes down from where it lands.
GEMM_HD int tail_offset(const TmaOperand& op, int kk) {
  return (op.boxes - 1) * box_bytes(op) + kk * kWgmmaK * kTailSwizzleBytes;
}

// --- Registers -> C -----------------------------------------------------------------------------

// The wgmma accumulator (PTX ISA, "Register fragments: m64nNk16 D"): warp w of the warpgroup holds
// rows 16 w ..; register r of a lane holds row lane / 4 (+ 8 when r % 4 >= 2) and column
// 8 (r / 4) + 2 (lane % 4) + r % 2.
GEMM_HD int accumulator_row(int warp_in_group, int lane, int reg) {
  return 16 * warp_in_group + lane / 4 + ((reg / 2) % 2) * 8;
}
GEMM_HD int accumulator_col(int lane, int reg) { return 8 * (reg / 4) + 2 * (lane % 4) + reg % 2; }

// The consumers split a tile's rows, one wgmma's 64 each: consumer `consumer` holds the 64 x BN
// results from row consumer_row0 and column tile_col0 of C (where its epilogue stores them).
GEMM_HD int consumer_row0(const TileCoord& tile, int consumer, const Config& c) { return tile.m * c.bm + consumer * kWgmmaM; }
GEMM_HD int tile_col0(const TileCoord& tile, const Config& c) { return tile.n * c.bn; }

// The epilogue goes through shared memory, because a warp's accumulators span 8 rows of C: stored
// straight from registers, every store instruction touches 8 cache lines for 256 bytes. Each
// consumer cuts its 64 x BN results into slices of one C box, 64 rows of 128 bytes (32 f32 or 64
// 16-bit columns), and writes them (times alpha) into the two halves of its staging buffer in turn,
// laid out as TMA lays out a box with the 128-byte swizzle. Then either one thread
// stores the box to C with TMA (beta = 0 and C's rows 16-byte aligned: while TMA reads
// one half, the consumer fills the other, and it goes back to the tensor cores after the last), or
// the consumer's threads read the slice back along its rows, 4 values each, add beta * C and store
// (f32 staging). The swizzle spreads a warp's pair writes (8 rows, 4 lanes each) over all 8 bank
// groups, 4 lanes in each: 16-bit pairs take the minimum 1 wavefront. f32 pairs take 4, twice the
// minimum: the hardware serves 8-byte stores by half-warps, and in each half-warp rows 2i and
// 2i + 1 share a bank group (XOR with row % 8 keeps a pair of chunks together), which the layout
// of TMA's box fixes. 8 lanes reading 8 consecutive chunks of a row hit 8 different
// bank groups.
GEMM_HD constexpr int c_box_cols(int out_bytes) { return kSwizzleBytes / out_bytes; }
GEMM_HD constexpr int slice_cols(int staged_bytes) { return c_box_cols(staged_bytes); }
constexpr int kRun = 4;  // values per read-back
// Byte of element (row, col) of a slice (col < slice_cols) within its half of the buffer.
GEMM_HD int staging_byte(int row, int col, int staged_bytes) {
  const int in_row = col * staged_bytes;
  return row * kSwizzleBytes + ((in_row / 16) ^ (row % 8)) * 16 + in_row % 16;
}
// Where half `half` of consumer `consumer`'s staging buffer starts, in bytes from the first
// consumer's buffer (the kernel and the trace).
GEMM_HD constexpr int staging_half_byte(int consumer, int half) { return consumer * kStagingBytes + half * kStagingBoxBytes; }
// The 4 values that read-back `i` of a consumer thread (0 <= thread < 128) takes (f32 staging):
// consecutive threads walk a row (8 runs).
struct StagedChunk {
  int row = 0, col = 0;  // first element, within the 64 x 32 slice
};
GEMM_HD StagedChunk staged_chunk(int thread, int i) {
  const int id = i * kWarpgroup + thread, per_row = slice_cols(4) / kRun;
  return {id / per_row, (id % per_row) * kRun};
}
constexpr int kReadBacks = kWgmmaM * slice_cols(4) / kRun / kWarpgroup;  // per thread and slice: 4
// Slice `slice` of a consumer's rows starting at (row0, col0) of C, as a box of C.
GEMM_HD BoxCoord c_box(int row0, int col0, int slice, int out_bytes) { return {col0 + slice * c_box_cols(out_bytes), row0}; }
// A tile whose BN is not a multiple of the slice (144 columns: 64 + 64 + 16 with 16-bit slices,
// 4 x 32 + 16 with f32) ends with a slice that ends at the tile's edge: it starts inside the
// previous slice (at 80, or 112) and TMA stores those columns again, with the same values; the
// read-back path skips them (it adds beta * C, which must happen once).
GEMM_HD constexpr int slice_count(int bn, int staged_bytes) { return (bn + slice_cols(staged_bytes) - 1) / slice_cols(staged_bytes); }
GEMM_HD constexpr int slice_first_col(int slice, int bn, int staged_bytes) {
  return slice * slice_cols(staged_bytes) < bn - slice_cols(staged_bytes) ? slice * slice_cols(staged_bytes)
                                                                          : bn - slice_cols(staged_bytes);
}
// Whether the read-back path stores column `col` (from the slice's first, `first`) of slice
// `slice`: not the columns the slice before stored (it adds beta * C, which must happen once).
GEMM_HD constexpr bool read_back_stores(int slice, int first, int col, int staged_bytes) {
  return first == slice * slice_cols(staged_bytes) || first + col >= slice * slice_cols(staged_bytes);
}
// TMA stores C when beta = 0 (nothing to read) and its rows start on 16 bytes.
GEMM_HD bool tma_stores_c(const GemmShape& s, float beta, int out_bytes) { return beta == 0.0f && (s.n * out_bytes) % 16 == 0; }
// A read-back run (kRun values from column col) goes to C in one vector store when it lies inside
// C and C's rows keep it aligned; else element by element up to C's edge.
GEMM_HD bool whole_run(int col, const GemmShape& s) { return col + kRun <= s.n && s.n % kRun == 0; }

// --- The trace: one warp's memory instructions, in the kernel's order -----------------------------

// Where the GPU is not known (model_predict, the host tests), traces plan the persistent grid for
// the H100's 132 SMs. The program sizes it for the GPU it runs on (resident_blocks: whole clusters
// the GPU can hold), so at large shapes a trace for another GPU may deal the tiles differently;
// shapes with fewer units than clusters (the profiler comparisons) are dealt alike on any GPU.
constexpr int kTraceSms = 132;
inline LaunchShape trace_launch_shape(const gemm::TraceProblem& p, const Config& c) {
  return launch_shape(p.shape, c, p.sms > 0 ? p.sms : kTraceSms);
}

// What this step leaves to ordinary memory instructions, for f32 output (the default): the
// copies into shared memory are TMA's and wgmma reads its operands itself, so the
// producer warps issue none, and a consumer warp's are all in the epilogue of each of its block's
// tiles (the iteration is the tile's place in the block's sequence). Per slice, the staging writes
// of its accumulators; then either one thread hands the slice to TMA (no instruction
// per lane), or, where C must be read or its rows are not 16-byte aligned, the reads of the slice
// back along its rows and the updates of C (one 16-byte store per run, element by element at C's
// right edge). Shared addresses are floats from the start of the consumers' staging buffers.
inline void trace_warp(const gemm::TraceProblem& problem, const gemm::Dim3& block, int warp,
                       const gemm::TraceSink& emit) {
  using gemm::Access;
  using gemm::Operand;
  using gemm::Space;
  constexpr int kWarpsPerGroup = kWarpgroup / kWarpSize;
  constexpr int kOutBytes = 4, kCols = slice_cols(kOutBytes);  // f32 output: 32 columns a slice
  constexpr std::uint32_t kEveryLane = 0xffffffffu;
  const GemmShape& s = problem.shape;
  const Config c = config_from(problem.params);
  const int warpgroup = warp / kWarpsPerGroup;
  if (warpgroup == 0) return;  // the producer
  const int consumer = warpgroup - 1, warp_in_group = warp % kWarpsPerGroup;
  const int clusters = trace_launch_shape(problem, c).grid.x / c.cluster;
  const int cluster = cluster_of(block.x, c), rank = rank_of(block.x, c);
  const bool by_tma = tma_stores_c(s, problem.beta, kOutBytes);
  int half = 0, ordinal = 0;  // the staging half the next slice goes to; the tile's place
  const int single = single_units(s, c, clusters);
  for (int u = first_unit(cluster, single); u < units(s, c); u = next_unit(u, clusters, single), ++ordinal) {
    const TileCoord tile = tile_at(u, rank, s, c);
    if (tile.m >= tiles_m(s, c)) continue;  // below C: nothing stored
    const int row0 = consumer_row0(tile, consumer, c), col0 = tile_col0(tile, c);
    for (int slice = 0; slice < slice_count(c.bn, kOutBytes); ++slice, half ^= 1) {
      const int base = staging_half_byte(consumer, half) / kOutBytes, first = slice_first_col(slice, c.bn, kOutBytes);
      for (int reg = first / 2; reg < (first + kCols) / 2; reg += 2)
        emit(gemm::make_instruction(Space::shared, Access::store, Operand::tile, 8, ordinal,
                                    "st.shared.v2 staging <- 2 accumulators (times alpha)", kEveryLane, [&](int lane) {
                                      const int row = accumulator_row(warp_in_group, lane, reg);
                                      return base + staging_byte(row, accumulator_col(lane, reg) - first, 4) / 4;
                                    }));
      if (by_tma) continue;
      for (int i = 0; i < kReadBacks; ++i) {
        auto chunk = [&](int lane) { return staged_chunk(warp_in_group * kWarpSize + lane, i); };
        auto row = [&](int lane) { return row0 + chunk(lane).row; };
        auto col = [&](int lane) { return col0 + first + chunk(lane).col; };
        std::uint32_t inside = 0, whole = 0;  // (not the columns the previous slice stored)
        for (int lane = 0; lane < kWarpSize; ++lane)
          if (row(lane) < s.m && col(lane) < s.n && read_back_stores(slice, first, chunk(lane).col, kOutBytes)) {
            inside |= 1u << lane;
            if (whole_run(col(lane), s)) whole |= 1u << lane;
          }
        if (!inside) continue;
        emit(gemm::make_instruction(Space::shared, Access::load, Operand::tile, 16, ordinal,
                                    "ld.shared.v4 staging -> 4 values along a row of C", inside, [&](int lane) {
                                      return base + staging_byte(chunk(lane).row, chunk(lane).col, 4) / 4;
                                    }));
        auto c_at = [&](int lane) { return (long long)row(lane) * s.n + col(lane); };
        gemm::emit_c_update(problem, 16, ordinal, whole, c_at, emit);
        for (int e = 0; e < kRun; ++e) {
          std::uint32_t edge = 0;  // lanes of a run cut by C's edge or misaligned, element e inside C
          for (int lane = 0; lane < kWarpSize; ++lane)
            if (((inside & ~whole) >> lane) & 1u && col(lane) + e < s.n) edge |= 1u << lane;
          gemm::emit_c_update(problem, 4, ordinal, edge, [&](int lane) { return c_at(lane) + e; }, emit);
        }
      }
    }
  }
}

// Who holds each element of C when the k-loop of a tile ends (the viewer's thread map, the host
// tests): for each tile the block takes, in its order (tile_at; also the lower tile of a last unit
// below C, which the block computes and does not store), lane `lane` of warp `warp_in_group` of
// consumer `consumer` holds in register reg the element at consumer_row0 + accumulator_row,
// tile_col0 + accumulator_col, as the epilogue reads it.
// A narrow tile's wgmma has n = 64 (narrow_tile): its results are in the first accumulators.
inline void warp_accumulators(const gemm::TraceProblem& problem, const gemm::Dim3& block, int warp,
                              const gemm::HeldSink& emit) {
  constexpr int kWarpsPerGroup = kWarpgroup / kWarpSize;
  const GemmShape& s = problem.shape;
  const Config c = config_from(problem.params);
  const int warpgroup = warp / kWarpsPerGroup;
  if (warpgroup == 0) return;  // the producer holds no results
  const int consumer = warpgroup - 1, warp_in_group = warp % kWarpsPerGroup;
  const int clusters = trace_launch_shape(problem, c).grid.x / c.cluster;
  const int cluster = cluster_of(block.x, c), rank = rank_of(block.x, c);
  int ordinal = 0;  // the tile's place in the block's sequence
  const int single = single_units(s, c, clusters);
  for (int u = first_unit(cluster, single); u < units(s, c); u = next_unit(u, clusters, single), ++ordinal) {
    const TileCoord tile = tile_at(u, rank, s, c);
    const int row0 = consumer_row0(tile, consumer, c), col0 = tile_col0(tile, c);
    // The wgmma's n (an N-major B's 144 columns: n = 128, then n = 16 into the next accumulators,
    // which lie as n = 144's do).
    const int n = narrow_tile(tile.n, s, c) ? kNarrowCols : c.bn;
    gemm::HeldElement held;
    held.mma = {gemm::MmaKind::wgmma, kWgmmaM, n, kWgmmaK};
    held.tile = ordinal, held.tile_m = tile.m, held.tile_n = tile.n;
    for (int reg = 0; reg < n / 2; ++reg)
      for (int lane = 0; lane < kWarpSize; ++lane) {
        held.lane = lane, held.reg = reg;
        held.row = row0 + accumulator_row(warp_in_group, lane, reg);
        held.col = col0 + accumulator_col(lane, reg);
        emit(held);
      }
  }
}

}  // namespace step26
