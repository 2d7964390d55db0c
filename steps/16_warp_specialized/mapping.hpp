// Step 16, Hopper: the index math, shared by the kernel and the host tests.
//
// Step 15's TMA copies (tma_box, zeros outside the matrix), swizzled tiles (tile_byte),
// wgmma descriptors and accumulator layout are unchanged. What this step adds is the block's
// division of labour: one producer warpgroup, whose single thread issues the copies, and one
// consumer warpgroup per 64 rows of the block tile (consumers, threads), with STAGES buffers
// between them and the registers moved to the consumers (kernel.cuh, consumer_registers). With two
// consumers the block tile is 128 rows: A's tile is cut for them by operand_offset.
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

namespace step16 {

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
constexpr int kBarrierBytes = 8;      // one mbarrier

struct Config {
  int bm, bn, bk;    // block tile; BK = 64 (one swizzled row of k)
  int stages;        // k-tiles in flight in shared memory
  GEMM_HD constexpr bool operator==(const Config& o) const {
    return bm == o.bm && bn == o.bn && bk == o.bk && stages == o.stages;
  }
};

// The tunables, each declared here once (--param NAME=value, --help, the results file, the traced
// registry: common/host/tunables.hpp); their values are kConfigs' fields.
inline constexpr gemm::Tunable<Config> kTunables[] = {
    {"BM", &Config::bm, "rows of C per block: 64 per consumer warpgroup (64 or 128)"},
    {"BN", &Config::bn, "columns of C per block: the n of each wgmma (64..256, a multiple of 64)"},
    {"BK", &Config::bk, "depth of the shared tiles (64: one 128-byte swizzled row)"},
    {"STAGES", &Config::stages, "k-tiles in flight in shared memory"},
};

// One producer warpgroup (one thread issues the copies) and one consumer warpgroup per 64 rows.
GEMM_HD constexpr int consumers(const Config& c) { return c.bm / kWgmmaM; }
GEMM_HD constexpr int threads(const Config& c) { return (1 + consumers(c)) * kWarpgroup; }

// The compiled configurations; the first is the default: 128 x 256 (two consumers, each on step 15's
// 64 x 256) and 4 stages, the most that fit (5 would take 240 KB of the 227 KB a block may have).
// The others differ from it in one tunable each, so that each can be tried alone (--param STAGES=3,
// BN=192 or BN=128).
constexpr Config kConfigs[] = {
    {128, 256, 64, 4},
    {128, 256, 64, 3},
    {128, 192, 64, 4},
    {128, 128, 64, 4},
};
constexpr int kConfigCount = int(sizeof(kConfigs) / sizeof(kConfigs[0]));

GEMM_HD constexpr int a_tile_bytes(const Config& c) { return c.bm * c.bk * kElementBytes; }
GEMM_HD constexpr int b_tile_bytes(const Config& c) { return c.bn * c.bk * kElementBytes; }
GEMM_HD constexpr int stage_bytes(const Config& c) { return a_tile_bytes(c) + b_tile_bytes(c); }
// Stages, two barriers per stage (full, empty), and room to align the stages to the swizzle's
// 1024-byte period (dynamic shared memory is only 16-byte aligned).
GEMM_HD constexpr int shared_bytes(const Config& c) {
  return c.stages * stage_bytes(c) + 2 * c.stages * kBarrierBytes + kSwizzleAtomBytes;
}
constexpr int kMaxSharedBytes = gemm::architecture_limits(90).shared_per_block;  // sm_90's per block: 227 KB

inline const char* config_rule(const Config& c) {
  if (c.bm <= 0 || c.bn <= 0 || c.bk <= 0 || c.stages <= 0) return "all params must be positive";
  if (c.bk != kBoxInner) return "BK must be 64 (one 128-byte swizzled row of 16-bit k's)";
  if (c.bm % kWgmmaM || c.bm > 2 * kWgmmaM) return "BM must be 64 or 128 (one consumer warpgroup per 64 rows)";
  if (c.bn % kBoxInner || c.bn > 256) return "BN must be 64, 128, 192 or 256 (wgmma n <= 256, boxes of 64)";
  if (c.stages < 2 || c.stages > 8) return "STAGES must be 2..8";
  if (shared_bytes(c) > kMaxSharedBytes) return "the stages need more than 227 KB of shared memory";
  if (gemm::index_of(kConfigs, c) >= 0) return "";
  return "this combination is not compiled in; see the list in steps/16_warp_specialized/mapping.hpp (--help)";
}

inline Config config_from(const gemm::Params& params) { return gemm::config_from(kTunables, params); }
inline gemm::Params to_params(const Config& c, const gemm::Params& base = {}) {
  return gemm::to_params(kTunables, c, base);
}

// --- The grid: one block per tile ---------------------------------------------------------------

GEMM_HD int tiles_m(const GemmShape& s, const Config& c) { return ceil_div(s.m, c.bm); }
GEMM_HD int tiles_n(const GemmShape& s, const Config& c) { return ceil_div(s.n, c.bn); }
GEMM_HD int tiles(const GemmShape& s, const Config& c) { return tiles_m(s, c) * tiles_n(s, c); }
GEMM_HD int k_tiles(const GemmShape& s, const Config& c) { return ceil_div(s.k, c.bk); }

GEMM_HD LaunchShape launch_shape(const GemmShape& shape, const Config& c) {
  LaunchShape launch;
  launch.grid = {tiles_n(shape, c), tiles_m(shape, c), 1};
  launch.block = {threads(c), 1, 1};
  launch.shared_bytes = shared_bytes(c);
  return launch;
}

// The tile of block (x, y): x walks the tile columns, y the tile rows.
struct TileCoord {
  int m = 0, n = 0;  // tile row and column
};
GEMM_HD TileCoord tile_of(const gemm::Dim3& block) { return {block.y, block.x}; }

// --- The pipeline: which stage and which barrier phase a k-tile takes ----------------------------

// The kernel's running counters are the one definition of the schedule: the block's k-tiles take
// the stages in turn (++stage; at STAGES back to 0), and each pass over the stages waits for the
// next phase of their full barriers, named by its parity: 0, 1, 0, ... The kernel advances its
// PipelineState once a k-tile; stage_of and full_parity (the viewer's timeline, the tests) walk it
// from the block's first k-tile, so the j-th k-tile lives in stage j % STAGES and completes phase
// j / STAGES of that stage's full barrier.
struct PipelineState {
  // (stage first, then phase: the order the kernel's compiled code was checked with; ptxas numbers
  // the registers it allots by it, and the machine code follows)
  int stage = 0;
  std::uint32_t phase = 0;  // the parity of the full barrier's phase this k-tile completes
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
// A phase of an empty barrier completes with one arrival per consumer warp.
GEMM_HD constexpr int empty_arrivals(const Config& c) {
  return consumers(c) * (kWarpgroup / kWarpSize);
}

// --- TMA boxes --------------------------------------------------------------------------------

// An operand as TMA sees it: the stored matrix (inner = row length, outer = rows) cut
// into boxes of kBoxInner x box_outer elements. K-major operands need one box per tile (64 k's by
// BM or BN rows); M/N-major ones BM/64 or BN/64 boxes of 64 m's or n's by 64 k's.
GEMM_HD constexpr bool a_k_major(Layout layout) { return layout != Layout::tn; }
GEMM_HD constexpr bool b_k_major(Layout layout) { return layout == Layout::nt; }
struct TmaOperand {
  bool k_major = true;
  int inner = 0, outer = 0;    // stored extent: row length (the leading dimension) and rows
  int box_outer = 0;           // rows of one box
  int boxes = 1;               // boxes per tile
};
GEMM_HD TmaOperand a_operand(const GemmShape& s, Layout layout, const Config& c) {
  if (a_k_major(layout)) return {true, s.k, s.m, c.bm, 1};
  return {false, s.m, s.k, c.bk, c.bm / kBoxInner};
}
GEMM_HD TmaOperand b_operand(const GemmShape& s, Layout layout, const Config& c) {
  if (b_k_major(layout)) return {true, s.k, s.n, c.bn, 1};
  return {false, s.n, s.k, c.bk, c.bn / kBoxInner};
}
// The first element (inner, outer) of box `box` of the tile at m or n = `mn0`, k-tile kt; it lands
// at byte box * box_bytes of the operand's tile in shared memory.
struct BoxCoord {
  int inner = 0, outer = 0;
};
GEMM_HD BoxCoord tma_box(const TmaOperand& op, int mn0, int kt, int box, const Config& c) {
  if (op.k_major) return {kt * c.bk, mn0 + box * op.box_outer};
  return {mn0 + box * kBoxInner, kt * c.bk};
}
GEMM_HD int box_bytes(const TmaOperand& op) { return kBoxInner * op.box_outer * kElementBytes; }
// Where element (mn, k) of a tile (mn < BM or BN, k < BK) lies in shared memory after the copy,
// in bytes from the tile's start: rows of 128 bytes, 16-byte chunks swizzled by XOR with the row's
// position in its 1024-byte period (CU_TENSOR_MAP_SWIZZLE_128B). This is what wgmma_descriptor
// describes to the tensor cores; the host tests check the two against each other.
GEMM_HD int tile_byte(const TmaOperand& op, int mn, int k) {
  const int row = op.k_major ? mn : (mn / kBoxInner) * op.box_outer + k;
  const int in_row = (op.k_major ? k : mn % kBoxInner) * kElementBytes;
  const int chunk = (in_row / 16) ^ (row % 8);
  return row * kSwizzleBytes + chunk * 16 + in_row % 16;
}

// --- wgmma operand descriptors ---------------------------------------------------------------

// The 64-bit shared-memory matrix descriptor (PTX ISA, "Matrix Descriptor Format"): start address,
// leading- and stride-dimension byte offsets (all >> 4), and the swizzle mode (1 = 128 bytes).
// 128-byte-swizzled layouts (CUTLASS's canonical forms):
//  - K-major: 8 rows of 128 bytes form one 1024-byte atom; the stride offset is the step from one
//    group of 8 m/n rows to the next (1024); the leading offset is unused (1);
//  - M/N-major: a row holds 64 m's or n's of one k; the stride offset steps 8 k-rows (1024), the
//    leading offset steps to the next 64 m's or n's (the next box: 64 k-rows x 128 bytes).
struct Descriptor {
  int leading_bytes = 0, stride_bytes = 0;
};
GEMM_HD Descriptor descriptor_strides(const TmaOperand& op) {
  if (op.k_major) return {16, kSwizzleAtomBytes};
  return {box_bytes(op), kSwizzleAtomBytes};
}
GEMM_HD std::uint64_t wgmma_descriptor(std::uint32_t start_byte, const Descriptor& d) {
  constexpr std::uint64_t kSwizzle128 = 1;
  return std::uint64_t((start_byte >> 4) & 0x3fff) | std::uint64_t((unsigned(d.leading_bytes) >> 4) & 0x3fff) << 16 |
         std::uint64_t((unsigned(d.stride_bytes) >> 4) & 0x3fff) << 32 | kSwizzle128 << 62;
}
// Byte offset, within a tile, of the operand of wgmma step `kk` (k = 16 kk ..) for the 64 rows of
// consumer `consumer` (A) or for the whole tile (B, consumer 0): K-major tiles move 32 bytes along
// their swizzled rows (the hardware applies the swizzle to the address it forms), M/N-major ones
// move 16 k-rows down.
GEMM_HD int operand_offset(const TmaOperand& op, int consumer, int kk) {
  if (op.k_major) return consumer * kWgmmaM * kSwizzleBytes + kk * kWgmmaK * kElementBytes;
  return consumer * box_bytes(op) + kk * kWgmmaK * kSwizzleBytes;
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

// The epilogue stores C straight from the accumulators: each lane holds pairs of neighbouring
// columns (reg, reg + 1), one 8-byte (f32) or 4-byte (16-bit) store per pair where the pair lies
// inside C and C's rows keep it aligned (N even), else element by element up to C's edge. A warp's
// 32 lanes cover 8 rows of 8 columns per store: 8 short pieces of rows, each in its own cache line.
constexpr int kPair = 2;  // values per store
GEMM_HD bool whole_pair(int col, const GemmShape& s) { return col + kPair <= s.n && s.n % kPair == 0; }

// --- The trace: one warp's memory instructions, in the kernel's order -----------------------------

inline LaunchShape trace_launch_shape(const gemm::TraceProblem& p, const Config& c) { return launch_shape(p.shape, c); }

// What this step leaves to ordinary memory instructions, for f32 output (the default): the
// copies into shared memory are TMA's and wgmma reads its operands itself, so the
// producer warps issue none, and a consumer warp's are all in the epilogue of its block's tile:
// per accumulator pair, the update of C (one 8-byte store, and load where beta != 0, where the
// pair is whole; element by element at C's right edge).
inline void trace_warp(const gemm::TraceProblem& problem, const gemm::Dim3& block, int warp,
                       const gemm::TraceSink& emit) {
  constexpr int kWarpsPerGroup = kWarpgroup / kWarpSize;
  const GemmShape& s = problem.shape;
  const Config c = config_from(problem.params);
  const int warpgroup = warp / kWarpsPerGroup;
  if (warpgroup == 0) return;  // the producer
  const int consumer = warpgroup - 1, warp_in_group = warp % kWarpsPerGroup;
  const TileCoord tile = tile_of(block);
  constexpr int ordinal = 0;  // one tile per block
  const int row0 = consumer_row0(tile, consumer, c), col0 = tile_col0(tile, c);
  for (int reg = 0; reg < c.bn / 2; reg += kPair) {
    auto row = [&](int lane) { return row0 + accumulator_row(warp_in_group, lane, reg); };
    auto col = [&](int lane) { return col0 + accumulator_col(lane, reg); };
    std::uint32_t inside = 0, whole = 0;
    for (int lane = 0; lane < kWarpSize; ++lane)
      if (row(lane) < s.m && col(lane) < s.n) {
        inside |= 1u << lane;
        if (whole_pair(col(lane), s)) whole |= 1u << lane;
      }
    auto c_at = [&](int lane) { return (long long)row(lane) * s.n + col(lane); };
    gemm::emit_c_update(problem, 4 * kPair, ordinal, whole, c_at, emit);
    for (int e = 0; e < kPair; ++e) {
      std::uint32_t edge = 0;  // lanes of a pair cut by C's edge or misaligned, element e inside C
      for (int lane = 0; lane < kWarpSize; ++lane)
        if (((inside & ~whole) >> lane) & 1u && col(lane) + e < s.n) edge |= 1u << lane;
      gemm::emit_c_update(problem, 4, ordinal, edge, [&](int lane) { return c_at(lane) + e; }, emit);
    }
  }
}

// Who holds each element of C when the k-loop ends (the viewer's thread map, the host tests): lane
// `lane` of warp `warp_in_group` of consumer `consumer` holds in register reg the element at
// consumer_row0 + accumulator_row, tile_col0 + accumulator_col, as the epilogue reads it.
inline void warp_accumulators(const gemm::TraceProblem& problem, const gemm::Dim3& block, int warp,
                              const gemm::HeldSink& emit) {
  constexpr int kWarpsPerGroup = kWarpgroup / kWarpSize;
  const Config c = config_from(problem.params);
  const int warpgroup = warp / kWarpsPerGroup;
  if (warpgroup == 0) return;  // the producer holds no results
  const int consumer = warpgroup - 1, warp_in_group = warp % kWarpsPerGroup;
  const TileCoord tile = tile_of(block);  // one tile per block
  const int row0 = consumer_row0(tile, consumer, c), col0 = tile_col0(tile, c);
  gemm::HeldElement held;
  held.mma = {gemm::MmaKind::wgmma, kWgmmaM, c.bn, kWgmmaK};
  held.tile_m = tile.m, held.tile_n = tile.n;
  for (int reg = 0; reg < c.bn / 2; ++reg)
    for (int lane = 0; lane < kWarpSize; ++lane) {
      held.lane = lane, held.reg = reg;
      held.row = row0 + accumulator_row(warp_in_group, lane, reg);
      held.col = col0 + accumulator_col(lane, reg);
      emit(held);
    }
}

}  // namespace step16
