// Step 22, FP8 with a tile width fitted to the shape: the index math, shared by the kernel and the
// host tests.
//
// Step 21's mapping with one change: the tile by shape (config_for_shape) counting what a k-tile
// costs besides its products, and the tiles that count picks: 128 x 176 (not a multiple of 64)
// and 128 x 64. What the new width needs: BN in steps of 16 (config_rule), slices of C
// that end at the tile's edge (slice_count, slice_first_col), and where the 176-column tile stores
// its results and computes its addresses (the rules of steps 20 and 21, below).
// As in step 19: e4m3 (or e5m2 for A) times e4m3, BK = 128 and wgmma m64nNk32, both operands
// K-major (layout "nt"), promotion every PROMOTE k-tiles (Config::promote), the per-tensor scales
// in alpha; TMA boxes of swizzled rows (tma_box), wgmma descriptors (wgmma_descriptor), the
// accumulator layout (accumulator_row/col), the persistent tile order (tile_at), clusters of 2
// sharing B by multicast, and the epilogue staged through shared memory.
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

namespace step22 {

using gemm::ceil_div;
using gemm::GemmShape;
using gemm::LaunchShape;

constexpr int kWarpSize = 32;
constexpr int kWarpgroup = 128;       // threads that issue one wgmma together
constexpr int kWgmmaM = 64;           // rows of one wgmma (m64nNk32)
constexpr int kWgmmaK = 32;           // 32 bytes of a row, as step 18's k = 16 of 2 bytes
constexpr int kElementBytes = 1;      // e4m3, e5m2
constexpr int kSwizzleBytes = 128;    // TMA and wgmma agree on the 128-byte swizzle
constexpr int kBoxInner = kSwizzleBytes / kElementBytes;  // 128 elements: one swizzled row
constexpr int kSwizzleAtomBytes = 8 * kSwizzleBytes;      // 8 rows of 128 bytes: the swizzle's period
constexpr int kBarrierBytes = 8;      // one mbarrier
constexpr int kNarrowCols = 64;       // the n of a narrow tile's wgmma

struct Config {
  int bm, bn, bk;    // block tile; BK = 128 (one swizzled row of k)
  int stages;        // k-tiles in flight in shared memory
  int group_m;       // tile order: GROUP_M tile rows are walked together (L2 reuse)
  int cluster;       // blocks per cluster (1 or 2), on tiles one above the other, sharing B tiles
  // Promotion: the tensor cores sum the k-tiles of an interval of PROMOTE k-tiles (128 k's each)
  // into registers of their own, which the threads then add, in f32, into the accumulators; the
  // next interval starts its sum afresh. 0: never (the tensor cores sum all of K, as step 18's do).
  int promote;
  GEMM_HD constexpr bool operator==(const Config& o) const {
    return bm == o.bm && bn == o.bn && bk == o.bk && stages == o.stages && group_m == o.group_m &&
           cluster == o.cluster && promote == o.promote;
  }
};

// The tunables, each declared here once (--param NAME=value, --help, the results file, the traced
// registry: common/host/tunables.hpp); their values are kConfigs' fields.
inline constexpr gemm::Tunable<Config> kTunables[] = {
    {"BM", &Config::bm, "rows of C per block: 64 per consumer warpgroup (64 or 128)"},
    {"BN", &Config::bn, "columns of C per block: the n of each wgmma (64..256, a multiple of 8 * CLUSTER)"},
    {"BK", &Config::bk, "depth of the shared tiles (128: one 128-byte swizzled row)"},
    {"STAGES", &Config::stages, "k-tiles in flight in shared memory"},
    {"GROUP_M", &Config::group_m, "tile rows walked together by the persistent blocks (L2 reuse)"},
    {"CLUSTER", &Config::cluster, "blocks per cluster on tiles one above the other, sharing B (1 or 2)"},
    {"PROMOTE", &Config::promote, "k-tiles summed by the tensor cores before the sum is added in f32 (0: never)"},
};

// One producer warpgroup (one thread issues the copies) and one consumer warpgroup per 64 rows.
GEMM_HD constexpr int consumers(const Config& c) { return c.bm / kWgmmaM; }
GEMM_HD constexpr int threads(const Config& c) { return (1 + consumers(c)) * kWarpgroup; }

// The compiled configurations; the first is the default. Promotion keeps two sets of accumulators
// (the f32 sums and the tensor cores' interval sum), BN registers per thread: 128 x 192 is the
// widest tile whose two sets fit a consumer's 240 registers (kernel.cuh). The second is the same
// without promotion (the accuracy lesson: --param PROMOTE=0), the third promotes every 4 k-tiles;
// the fourth is the 128 x 128 tile that fills the rounds of some shapes better (config_for_shape),
// whose smaller stages allow 6; the fifth (this step) the 128 x 176 tile, which at 4096^3 takes the
// 192-column tile's 6 rounds with 8% fewer columns, and 5 stages (38 KB each); the sixth (this
// step) the 128 x 64 tile, a block per tile (clusters of one: measured a little faster than two at
// the small shapes it serves, the log, step 22), 8 stages of 24 KB.
constexpr Config kConfigs[] = {
    {128, 192, 128, 4, 16, 2, 1},
    {128, 192, 128, 4, 16, 2, 0},
    {128, 192, 128, 4, 16, 2, 4},
    {128, 128, 128, 6, 16, 2, 1},
    {128, 176, 128, 5, 16, 2, 1},
    {128, 64, 128, 8, 16, 1, 1},
};
constexpr int kConfigCount = int(sizeof(kConfigs) / sizeof(kConfigs[0]));
constexpr int kFittedTileCols = 176;  // this step's tile width

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
    return "all params but PROMOTE must be positive";
  if (c.promote < 0) return "PROMOTE must be 0 (never) or a number of k-tiles";
  if (c.cluster > 2) return "CLUSTER must be 1 or 2";
  if (c.group_m % c.cluster) return "GROUP_M must be a multiple of CLUSTER (a cluster's tiles are in one group)";
  if (c.bk != kBoxInner) return "BK must be 128 (one 128-byte swizzled row of 1-byte k's)";
  if (c.bm % kWgmmaM || c.bm > 2 * kWgmmaM) return "BM must be 64 or 128 (one consumer warpgroup per 64 rows)";
  if (c.bn % (8 * c.cluster) || c.bn < kNarrowCols || c.bn > 256)
    return "BN must be a multiple of 8 * CLUSTER from 64 to 256 (wgmma n, B's boxes of whole swizzle atoms)";
  if (c.stages < 2 || c.stages > 8) return "STAGES must be 2..8";
  if (shared_bytes(c) > kMaxSharedBytes) return "the stages and staging buffers need more than 227 KB of shared memory";
  if (gemm::index_of(kConfigs, c) >= 0) return "";
  return "this combination is not compiled in; see the list in steps/22_tile_width/mapping.hpp (--help)";
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

// The clusters of the persistent grid: the blocks of cluster q take units q, q + clusters,
// q + 2 clusters, ..., so the grid takes ceil(units / clusters) rounds. It has as few clusters as
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
GEMM_HD int persistent_clusters(const GemmShape& shape, const Config& c, int sms) {
  const int count = units(shape, c), fit = sms / c.cluster;
  if (count <= fit) return count;
  const int alike = ceil_div(count, ceil_div(count, fit));
  const int narrow = narrow_units(shape, c), whole = count - narrow;
  if (narrow == 0 || whole == 0) return alike;
  // The fewest clusters for the whole units' rounds, against every unit counted alike.
  const int clusters = ceil_div(whole, ceil_div(whole, fit));
  return grid_time_on(whole, narrow, clusters) < kNarrowUnitsPerWhole * ceil_div(count, alike) ? clusters : alike;
}
// How long the persistent grid takes, as it is launched (grid_time_on).
GEMM_HD int grid_time(const GemmShape& shape, const Config& c, int sms) {
  const int narrow = narrow_units(shape, c);
  return grid_time_on(units(shape, c) - narrow, narrow, persistent_clusters(shape, c, sms));
}
// The tile by shape, when the command line sets no tunables: of the four promoted tiles, 128 x 192
// (the default), 128 x 176, 128 x 128 and 128 x 64, the one whose rounds take the least time, counted as the
// grid's time (grid_time) times a tile's rows times its columns plus kKTileOverheadCols (ties: the
// first in that order). The overhead is what a k-tile costs besides its products, whatever the
// width (the promotion between a drain and the next wgmma, the barriers): at 4096^3 step 21's
// 128 x 128 tile took as long in its 8 rounds as the 192-column tile in its 6 (the performance
// log, step 22), where the products alone would take 8 x 128 against 6 x 192 columns: a k-tile
// costs as if its tile were 64 columns wider (8 x (128 + 64) = 6 x (192 + 64)). So at 4096^3 the
// 176-column tile, 6 rounds of 176 + 64, against 8 of 128 + 64 and 6 of 192 + 64; at 8192^3 the
// default (21 rounds against the 176-column tile's 23); shapes whose units fill a round or two
// either way, the 128 x 128 tile, which puts more SMs to work; and shapes whose 128 x 128 tiles leave
// most SMs idle, the 128 x 64 tile: at 1024 x 1024, 128 of them in one round of 64 + 64 against
// 32 units of two 128 x 128 tiles on 32 clusters in one round of 128 + 64.
constexpr int kKTileOverheadCols = 64;
constexpr int kSquareTileConfig = 3;  // kConfigs' 128 x 128 tile
constexpr int kFittedTileConfig = 4;  // kConfigs' 128 x 176 tile
constexpr int kNarrowTileConfig = 5;  // kConfigs' 128 x 64 tile
static_assert(kConfigs[kSquareTileConfig].bn == 128 && kConfigs[kSquareTileConfig].promote == kConfigs[0].promote,
              "kSquareTileConfig names the 128 x 128 tile, promoting as the default does");
static_assert(kConfigs[kFittedTileConfig].bn == kFittedTileCols && kConfigs[kFittedTileConfig].promote == kConfigs[0].promote,
              "kFittedTileConfig names the 176-column tile, promoting as the default does");
static_assert(kConfigs[kNarrowTileConfig].bn == kNarrowCols && kConfigs[kNarrowTileConfig].promote == kConfigs[0].promote,
              "kNarrowTileConfig names the 64-column tile, promoting as the default does");
// The time a shape takes with a tile, as the rule above counts it.
inline long long counted_time(const GemmShape& shape, const Config& c, int sms) {
  return (long long)grid_time(shape, c, sms) * c.bm * (c.bn + kKTileOverheadCols);
}
inline Config config_for_shape(const GemmShape& shape, int sms) {
  Config best = kConfigs[0];
  for (const int index : {kFittedTileConfig, kSquareTileConfig, kNarrowTileConfig})
    if (counted_time(shape, kConfigs[index], sms) < counted_time(shape, best, sms)) best = kConfigs[index];
  return best;
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
// The persistent grid's units of work: the blocks of cluster q (cluster_of) take units q,
// next_unit(q), ... in turn (the kernel's loop over u; the stage and phase counters run on from one
// tile to the next). unit_of, the unit a block takes in round `round`, walks that loop (the viewer's
// timeline, the tests). The block's rank in the cluster picks the unit's tile (tile_at): the kernel
// reads it from the hardware (%cluster_ctarank), which numbers a cluster's blocks along x as rank_of.
GEMM_HD constexpr int cluster_of(int block, const Config& c) { return block / c.cluster; }
GEMM_HD constexpr int next_unit(int u, int clusters) { return u + clusters; }
GEMM_HD constexpr int unit_of(int block, int round, int clusters, const Config& c) {
  int u = cluster_of(block, c);
  for (int r = 0; r < round; ++r) u = next_unit(u, clusters);
  return u;
}
GEMM_HD constexpr int rank_of(int block, const Config& c) { return block % c.cluster; }  // clusters along x
GEMM_HD constexpr bool promotion_ends(int& in_interval, int kt, int k_tiles, const Config& c) {  // the kernel's test
  return ++in_interval == c.promote || kt == k_tiles - 1;  // k-tile kt ends the interval: its sum is added in f32
}

// --- TMA boxes --------------------------------------------------------------------------------

// An operand as TMA sees it: the stored matrix (inner = row length, outer = rows) cut
// into boxes of kBoxInner x box_outer elements. Both operands are K-major (FP8 wgmma reads no
// other form): one box per tile for A (128 k's by BM rows), B in CLUSTER boxes of BN / CLUSTER
// rows.
struct TmaOperand {
  int inner = 0, outer = 0;    // stored extent: row length (K, the leading dimension) and rows
  int box_outer = 0;           // rows of one box
  int boxes = 1;               // boxes per tile
};
GEMM_HD TmaOperand a_operand(const GemmShape& s, const Config& c) { return {s.k, s.m, c.bm, 1}; }
// B's tile is cut into CLUSTER boxes, so that each block of a cluster copies its share (the boxes
// with box % CLUSTER == rank) into every block of the cluster.
GEMM_HD TmaOperand b_operand(const GemmShape& s, const Config& c) { return {s.k, s.n, c.bn / c.cluster, c.cluster}; }
// The first element (inner, outer) of box `box` of the tile at m or n = `mn0`, k-tile kt; it lands
// at byte box * box_bytes of the operand's tile in shared memory.
struct BoxCoord {
  int inner = 0, outer = 0;
};
GEMM_HD BoxCoord tma_box(const TmaOperand& op, int mn0, int kt, int box, const Config& c) {
  return {kt * c.bk, mn0 + box * op.box_outer};
}
GEMM_HD int box_bytes(const TmaOperand& op) { return kBoxInner * op.box_outer * kElementBytes; }
// The boxes of B a tile copies: all of them, or for a narrow tile the first, which holds its 64
// columns inside C (BN / CLUSTER >= 64 rows).
GEMM_HD int b_boxes_copied(const TmaOperand& b, bool narrow) { return narrow ? 1 : b.boxes; }

// Where element (mn, k) of a tile (mn < BM or BN, k < BK) lies in shared memory after the copy,
// in bytes from the tile's start: rows of 128 bytes, 16-byte chunks swizzled by XOR with the row's
// position in its 1024-byte period (CU_TENSOR_MAP_SWIZZLE_128B). This is what wgmma_descriptor
// describes to the tensor cores; the host tests check the two against each other.
GEMM_HD int tile_byte(int mn, int k) {
  const int in_row = k * kElementBytes;
  const int chunk = (in_row / 16) ^ (mn % 8);
  return mn * kSwizzleBytes + chunk * 16 + in_row % 16;
}

// --- wgmma operand descriptors ---------------------------------------------------------------

// The 64-bit shared-memory matrix descriptor (PTX ISA, "Matrix Descriptor Format"): start address,
// leading- and stride-dimension byte offsets (all >> 4), and the swizzle mode (1 = 128 bytes).
// K-major and 128-byte-swizzled (CUTLASS's canonical form): 8 rows of 128 bytes form one
// 1024-byte atom; the stride offset is the step from one group of 8 m/n rows to the next (1024);
// the leading offset is unused (1).
struct Descriptor {
  int leading_bytes = 0, stride_bytes = 0;
};
GEMM_HD constexpr Descriptor descriptor_strides() { return {16, kSwizzleAtomBytes}; }
GEMM_HD std::uint64_t wgmma_descriptor(std::uint32_t start_byte, const Descriptor& d) {
  constexpr std::uint64_t kSwizzle128 = 1;
  return std::uint64_t((start_byte >> 4) & 0x3fff) | std::uint64_t((unsigned(d.leading_bytes) >> 4) & 0x3fff) << 16 |
         std::uint64_t((unsigned(d.stride_bytes) >> 4) & 0x3fff) << 32 | kSwizzle128 << 62;
}
// Byte offset, within a tile, of the operand of wgmma step `kk` (k = 32 kk ..) for the 64 rows of
// consumer `consumer` (A) or for the whole tile (B, consumer 0): 32 bytes along the swizzled rows
// (the hardware applies the swizzle to the address it forms).
GEMM_HD int operand_offset(int consumer, int kk) { return consumer * kWgmmaM * kSwizzleBytes + kk * kWgmmaK * kElementBytes; }
// Where uniform_addresses holds, a k-step's descriptors are stage 0's plus this, in the descriptor's
// units of 16 bytes: the stage's offset and the k-step's (A's for consumer 0: a consumer's own rows
// are in its stage-0 descriptor already). Exact, since the offsets are multiples of 16 bytes and the
// start field (14 bits, 256 KB) never carries into the next.
GEMM_HD std::uint64_t descriptor_offset(int stage_bytes, int stage, int kk) {
  return std::uint64_t(stage) * std::uint64_t(stage_bytes >> 4) + std::uint64_t(operand_offset(0, kk) >> 4);
}

// --- Registers -> C -----------------------------------------------------------------------------

// The wgmma accumulator (PTX ISA, "Register fragments": m64nNk32's D is laid out as m64nNk16's):
// warp w of the warpgroup holds rows 16 w ..; register r of a lane holds row lane / 4 (+ 8 when
// r % 4 >= 2) and column 8 (r / 4) + 2 (lane % 4) + r % 2.
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
// A tile whose BN is not a multiple of the slice (176 columns: 64 + 64 + 48 with 16-bit slices,
// 5 x 32 + 16 with f32) ends with a slice that ends at the tile's edge: it starts inside the
// previous slice (at 112, or 144) and TMA stores those columns again, with the same
// values; the read-back path skips them (it adds beta * C, which must happen once).
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

// --- The epilogue under the next tile's products (step 20) ------------------------------------------

// Which kernels store a tile while the tensor cores run the next tile's first k-tile (kernel.cuh).
// It takes promotion: then the tensor cores add into interval_sum, and the accumulators are free
// from a tile's last promotion until the next tile's first. And it takes registers: both sets, the
// first k-tile's wgmmas in flight and the epilogue's addresses at once. The 128 x 128 tile (64 + 64
// accumulators) with 16-bit output staged for TMA has them. The 192-column tile (96 +
// 96) has them only in a kernel compiled without the read-back path (tma_only: beta = 0
// and C's rows 16-byte aligned, tma_stores_c); with that path compiled in as well, ptxas spilled or
// serialised the wgmmas (C7511), and so it did with f32 slices in any tile. Those kernels store
// after the tile, as step 19 does. In a kernel that has it, a tile goes under the next one only
// where TMA stores C: the read-back path stages f32 and reads C.
//
// This step's 176-column tile stores after the tile in every kernel: under the next tile it ran
// at 96% of cuBLASLt at 4096^3 with uniform addresses and 101% without, after the tile with them
// at 103% (the performance log, step 22). So does its 64-column tile, which serves shapes of about
// one tile per block, with no next tile to hide a store under; after the tile, its k-loop gets the
// uniform addresses (uniform_addresses).
constexpr int kUnderNextTileMaxCols = 128;  // the widest tile that has the registers with both paths
GEMM_HD constexpr bool epilogue_under_next_tile(const Config& c, int out_bytes, bool tma_only) {
  return c.promote > 0 && out_bytes == 2 && c.bn != kFittedTileCols && c.bn > kNarrowCols &&
         (c.bn <= kUnderNextTileMaxCols || tma_only);
}
// The configurations and outputs compiled twice, the promoted tiles wider than 128 columns with
// 16-bit output, whose registers do not hold both store paths: with TMA's path alone,
// for the problems it serves, and without it (read_back_only).
GEMM_HD constexpr bool has_tma_only_kernel(const Config& c, int out_bytes) {
  return c.promote > 0 && out_bytes == 2 && c.bn > kUnderNextTileMaxCols;
}
// The other kernel of such a pair never runs TMA's path (launches_tma_only_kernel
// sends those problems to its twin), so it is compiled without it: the read-back path alone.
GEMM_HD constexpr bool read_back_only(const Config& c, int out_bytes, bool tma_only) {
  return has_tma_only_kernel(c, out_bytes) && !tma_only;
}
// Which of the two a problem launches.
GEMM_HD bool launches_tma_only_kernel(const Config& c, const GemmShape& s, float beta, int out_bytes) {
  return has_tma_only_kernel(c, out_bytes) && tma_stores_c(s, beta, out_bytes);
}
// How the epilogue stores a tile (kernel.cuh, epilogue), by the kernel (its configuration, output
// and whether it is the TMA-only twin) and whether the tile goes under the next one's products.
enum class StorePath {
  tma,               // staged in C's type and stored by TMA: in a TMA-only kernel, and under the next tile
  read_back,         // staged as f32 and read back along C's rows: in the read-back-only twin
  tma_or_read_back,  // both compiled in, chosen by the problem (tma_stores_c)
};
GEMM_HD constexpr StorePath store_path(const Config& c, int out_bytes, bool tma_only, bool under_next_tile) {
  if (under_next_tile || (tma_only && has_tma_only_kernel(c, out_bytes))) return StorePath::tma;
  if (read_back_only(c, out_bytes, tma_only)) return StorePath::read_back;
  return StorePath::tma_or_read_back;
}
// Whether a problem's tiles are stored under the next tile's first products: the kernel it launches
// has the registers for it (epilogue_under_next_tile) and TMA stores C (tma_stores_c).
GEMM_HD bool stores_under_next_tile(const Config& c, const GemmShape& s, float beta, int out_bytes) {
  return epilogue_under_next_tile(c, out_bytes, launches_tma_only_kernel(c, s, beta, out_bytes)) &&
         tma_stores_c(s, beta, out_bytes);
}

// --- The k-loop's addresses in the uniform datapath (step 21) --------------------------------------

// Which kernels compute the A and B descriptors of the k-loop once, from the consumer's index made
// warp-uniform, and add the stage's and the k-step's offsets to them (kernel.cuh), so that ptxas
// keeps that arithmetic in uniform registers. Two kinds keep step 20's descriptors, rebuilt from the
// stage's address at every k-step:
// - the promoted tiles wider than 176 columns with both store paths compiled in (f32 output):
//   there ptxas serialised the wgmmas (C7511) with the change. The 176-column tile has the room,
//   and so do the kernels with one store path (the twins of has_tma_only_kernel);
// - the tiles of at most 128 columns that store under the next tile: with the change they ran
//   slower (the performance log, step 21).
constexpr int kUniformMaxColsBothPaths = kFittedTileCols;  // the widest promoted tile with room for it and both paths
GEMM_HD constexpr bool uniform_addresses(const Config& c, int out_bytes, bool tma_only) {
  const bool both_paths = !tma_only && !read_back_only(c, out_bytes, tma_only);
  const bool no_room = c.promote > 0 && c.bn > kUniformMaxColsBothPaths && both_paths;
  const bool slower = c.bn <= kUnderNextTileMaxCols && epilogue_under_next_tile(c, out_bytes, tma_only);
  return !no_room && !slower;
}

// --- The trace: one warp's memory instructions, in the kernel's order -----------------------------

// Where the GPU is not known (model_predict, the host tests), traces plan the persistent grid for
// the H100's 132 SMs. The program sizes it for the GPU it runs on (resident_blocks: whole clusters
// the GPU can hold), so at large shapes a trace for another GPU may deal the tiles differently;
// shapes with fewer units than clusters (the profiler comparisons) are dealt alike on any GPU.
constexpr int kTraceSms = 132;
inline LaunchShape trace_launch_shape(const gemm::TraceProblem& p, const Config& c) {
  return launch_shape(p.shape, c, p.sms > 0 ? p.sms : kTraceSms);
}

// What this step leaves to ordinary memory instructions, for f32 output, which stores each tile
// after it (epilogue_under_next_tile), as step 19 does: the same instructions as step 19's. The
// copies into shared memory are TMA's and wgmma reads its operands itself, so the
// producer warps issue none, and a consumer warp's are the loads of the two scales at its start,
// then all in the epilogue of each of its block's
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
  // Before its first tile, every consumer thread reads the two per-tensor scales (the program
  // always passes both) to fold them into alpha: one address for the whole warp, one sector each.
  for (int which = 0; which < 2; ++which)
    emit(gemm::make_instruction(Space::global, Access::load, Operand::scales, 4, 0,
                                which == 0 ? "ld.global *scale_a (into alpha)" : "ld.global *scale_b (into alpha)",
                                kEveryLane, [&](int) { return which; }));
  int half = 0, ordinal = 0;  // the staging half the next slice goes to; the tile's place
  for (int u = cluster; u < units(s, c); u = next_unit(u, clusters), ++ordinal) {
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
  for (int u = cluster; u < units(s, c); u = next_unit(u, clusters), ++ordinal) {
    const TileCoord tile = tile_at(u, rank, s, c);
    const int row0 = consumer_row0(tile, consumer, c), col0 = tile_col0(tile, c);
    const int n = narrow_tile(tile.n, s, c) ? kNarrowCols : c.bn;  // the wgmma's n
    gemm::HeldElement held;
    held.mma = {gemm::MmaKind::wgmma, kWgmmaM, n, kWgmmaK};
    held.tile = ordinal, held.tile_m = tile.m, held.tile_n = tile.n, held.promote = c.promote;
    for (int reg = 0; reg < n / 2; ++reg)
      for (int lane = 0; lane < kWarpSize; ++lane) {
        held.lane = lane, held.reg = reg;
        held.row = row0 + accumulator_row(warp_in_group, lane, reg);
        held.col = col0 + accumulator_col(lane, reg);
        emit(held);
      }
  }
}

}  // namespace step22
