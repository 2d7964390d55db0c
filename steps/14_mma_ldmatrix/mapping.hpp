// Step 14, mma.sync pipeline: the index math, shared by the kernel and the host tests.
//
// Step 12 let the wmma API decide which lane holds which element. This step writes it down:
//  - the tensor cores are driven by mma.sync.m16n8k16, whose fragments have a documented lane
//    layout (accumulator_row/col below);
//  - the fragments come out of shared memory through ldmatrix, which reads eight 16-byte rows per
//    8 x 8 matrix, one row address per lane (a_ldmatrix_spot, b_ldmatrix_spot). Its .trans form
//    transposes each 8 x 8 matrix on the way, so an operand stored "the other way round" (A in TN,
//    B in NN and TN) is loaded as it lies: the transposes cost nothing;
//  - the tiles are copied global -> shared with cp.async in 16-byte chunks exactly as they are
//    stored (no transposing copy), STAGES k-tiles ahead of the compute;
//  - inside a tile, chunk c of row r is stored at chunk position c ^ (r % 8) (the swizzle): the 8
//    rows an ldmatrix matrix reads, and the 8 chunks a quarter-warp of copies writes, then fall in 8
//    different groups of 4 banks, with no padding.
#pragma once

#include <array>
#include <map>
#include <string>

#include "accumulators.hpp"
#include "dispatch.hpp"
#include "gemm_types.hpp"
#include "gpu_limits.hpp"
#include "hd.hpp"
#include "trace.hpp"
#include "tunables.hpp"

namespace step14 {

using gemm::ceil_div;
using gemm::GemmShape;
using gemm::Layout;
using gemm::LaunchShape;

constexpr int kWarpSize = 32;
constexpr int kChunk = 8;         // 16-bit elements per 16-byte chunk: one cp.async, one ldmatrix row
constexpr int kElementBytes = 2;  // f16 and bf16
constexpr int kMmaM = 16, kMmaN = 8, kMmaK = 16;  // mma.sync.aligned.m16n8k16
constexpr int kSwizzleRows = 8;   // a 128-byte line is 8 chunks: the swizzle repeats every 8 rows

struct Config {
  int bm, bn, bk;  // block tile
  int wm, wn;      // warp tile (multiples of 16)
  int stages;      // k-tiles in flight in shared memory
  GEMM_HD constexpr bool operator==(const Config& o) const {
    return bm == o.bm && bn == o.bn && bk == o.bk && wm == o.wm && wn == o.wn && stages == o.stages;
  }
};

// The tunables, each declared here once (--param NAME=value, --help, the results file, the traced
// registry: common/host/tunables.hpp); their values are kConfigs' fields.
inline constexpr gemm::Tunable<Config> kTunables[] = {
    {"BM", &Config::bm, "rows of C per block (a multiple of 64)"},
    {"BN", &Config::bn, "columns of C per block (a multiple of 64)"},
    {"BK", &Config::bk, "depth of the shared tiles (32 or a multiple of 64)"},
    {"WM", &Config::wm, "rows of C per warp (a multiple of 16)"},
    {"WN", &Config::wn, "columns of C per warp (a multiple of 16)"},
    {"STAGES", &Config::stages, "k-tiles in flight in shared memory"},
};

GEMM_HD constexpr int warps(const Config& c) { return (c.bm / c.wm) * (c.bn / c.wn); }
GEMM_HD constexpr int threads(const Config& c) { return warps(c) * kWarpSize; }

// The compiled configurations; the first is the default (the measured best on the H100, see
// docs/14-mma-ldmatrix.md), the others are what it was measured against. A GPU whose blocks may
// not have the default's shared memory runs the first in this order that fits (config_for_gpu):
// the second needs 96 KB, which every GPU from sm_80 on allows.
constexpr Config kConfigs[] = {
    {128, 256, 64, 64, 64, 4},  // 192 KB of shared memory
    {128, 256, 32, 64, 64, 4},
    {128, 256, 64, 64, 64, 3},
    {128, 256, 32, 64, 64, 5},
    {128, 256, 32, 64, 64, 3},
    {128, 128, 32, 64, 64, 4},
    {256, 128, 32, 64, 64, 4},
    {64, 64, 64, 32, 32, 3},  // small: 4 warps, and rows of 8 chunks along k
};
constexpr int kConfigCount = int(sizeof(kConfigs) / sizeof(kConfigs[0]));

// One operand's tile in shared memory: `rows` rows of `chunks` 16-byte chunks, laid out as the
// operand is stored in global memory. k_major: a row runs along k (A in NN/NT, B in NT); otherwise
// a row runs along m or n and the rows are the k's (A in TN, B in NN/TN).
struct OperandTile {
  int rows = 0, chunks = 0;
  bool k_major = true;
};

GEMM_HD constexpr OperandTile a_tile(Layout layout, const Config& c) {
  return layout == Layout::tn ? OperandTile{c.bk, c.bm / kChunk, false} : OperandTile{c.bm, c.bk / kChunk, true};
}
GEMM_HD constexpr OperandTile b_tile(Layout layout, const Config& c) {
  return layout == Layout::nt ? OperandTile{c.bn, c.bk / kChunk, true} : OperandTile{c.bk, c.bn / kChunk, false};
}
GEMM_HD constexpr int tile_chunks(const OperandTile& t) { return t.rows * t.chunks; }
GEMM_HD constexpr int tile_elements(const OperandTile& t) { return tile_chunks(t) * kChunk; }

GEMM_HD constexpr int stage_elements(Layout layout, const Config& c) {
  return tile_elements(a_tile(layout, c)) + tile_elements(b_tile(layout, c));
}
GEMM_HD constexpr int shared_bytes(const Config& c) {
  return c.stages * (c.bm * c.bk + c.bk * c.bn) * kElementBytes;  // the same for every layout
}

// The swizzle: where chunk `chunk` of row `row` is stored within that row. Rows of 8 or more
// chunks: XOR with row % 8, so 8 consecutive rows put a given chunk in 8 different 16-byte bank
// groups. Rows of 4 chunks (BK = 32 along k): two rows share a 128-byte line, so rows 2r and
// 2r + 1 are told apart by the line half and the XOR uses the line index (row / 2) % 4.
GEMM_HD constexpr int swizzled_chunk(int row, int chunk, int chunks) {
  return chunks >= kSwizzleRows ? chunk ^ (row % kSwizzleRows) : chunk ^ ((row / 2) % 4);
}
// Element offset of (row, chunk) in a tile.
GEMM_HD constexpr int tile_offset(const OperandTile& t, int row, int chunk) {
  return (row * t.chunks + swizzled_chunk(row, chunk, t.chunks)) * kChunk;
}

// A thread's copies of one tile are `threads` indices apart, a whole number of tile rows (the rule
// makes the chunk count divide the thread count), so copy i is copy 0 moved down i * copy_row_step
// rows: the same chunk, and (the step being a multiple of 8 rows) the same swizzle. The kernel
// keeps copy 0 per operand and moves from it.
GEMM_HD constexpr int copy_row_step(const OperandTile& t, const Config& c) { return threads(c) / t.chunks; }
GEMM_HD constexpr int row_bytes(const OperandTile& t) { return t.chunks * kChunk * kElementBytes; }

inline const char* config_rule(const Config& c) {
  if (c.bm <= 0 || c.bn <= 0 || c.bk <= 0 || c.wm <= 0 || c.wn <= 0) return "BM, BN, BK, WM and WN must be positive";
  if (c.wm % kMmaM || c.wn % 16) return "WM and WN must be multiples of 16";
  if (c.bm % c.wm || c.bn % c.wn) return "BM must be a multiple of WM and BN of WN";
  if (c.bm % 64 || c.bn % 64) return "BM and BN must be multiples of 64 (a swizzled row of a transposed tile is 8 chunks or more)";
  if (c.bk != 32 && c.bk % 64) return "BK must be 32 or a multiple of 64 (a swizzled row along k is 4 chunks, or 8 or more)";
  if (c.stages < 3 || c.stages > 8) return "STAGES must be 3..8 (the copy of k-tile kt + 1 is awaited inside k-tile kt)";
  for (Layout layout : {Layout::nn, Layout::nt, Layout::tn})
    for (const OperandTile& t : {a_tile(layout, c), b_tile(layout, c)}) {
      if (tile_chunks(t) % threads(c)) return "the A and B tiles must have a multiple of (threads per block) 16-byte chunks";
      if (threads(c) % t.chunks || copy_row_step(t, c) % kSwizzleRows)
        return "a thread's copies must lie a multiple of 8 tile rows apart (threads a multiple of 8 x chunks per row)";
    }
  if (gemm::index_of(kConfigs, c) >= 0) return "";
  return "this combination is not compiled in; see the list in steps/14_mma_ldmatrix/mapping.hpp (--help)";
}

inline Config config_from(const gemm::Params& params) { return gemm::config_from(kTunables, params); }
inline gemm::Params to_params(const Config& c, const gemm::Params& base = {}) {
  return gemm::to_params(kTunables, c, base);
}
// What runs when no --param is given, on a GPU whose blocks may have `shared_limit` bytes of
// shared memory: the first configuration in list order whose stages fit.
inline Config config_for_gpu(int shared_limit) {
  for (const Config& c : kConfigs)
    if (shared_bytes(c) <= shared_limit) return c;
  return kConfigs[kConfigCount - 1];  // the smallest; the harness names the limit if even it does not fit
}

// --- The tile by shape ------------------------------------------------------------------------

// The compiled tiles the choice by shape takes besides the default: its transpose, half of it, and
// the small 64 x 64 one.
constexpr int kTallConfig = 6, kHalfConfig = 5, kSmallConfig = 7;
static_assert(kConfigs[kTallConfig].bm == kConfigs[0].bn && kConfigs[kTallConfig].bn == kConfigs[0].bm,
              "kTallConfig is the default's tile transposed");
static_assert(kConfigs[kHalfConfig].bm * kConfigs[kHalfConfig].bn * 2 == kConfigs[0].bm * kConfigs[0].bn,
              "kHalfConfig is half the default's tile");
static_assert(kConfigs[kSmallConfig].bm == 64 && kConfigs[kSmallConfig].bn == 64, "kSmallConfig is the 64 x 64 tile");

GEMM_HD int tile_count(const GemmShape& shape, const Config& c) {
  return ceil_div(shape.m, c.bm) * ceil_div(shape.n, c.bn);
}
// Waves of one block per SM (the default and its transpose need about all of an SM's registers).
GEMM_HD int waves(const GemmShape& shape, const Config& c, int sms) { return ceil_div(tile_count(shape, c), sms); }

// The tile by shape, when the command line sets no tunables, from `wide`, what runs otherwise (the
// default, or on a GPU without its shared memory the first that fits: config_for_gpu). The widest
// tile that gives more than half of the `sms` SMs a block, since a small problem cut into few wide
// tiles leaves most SMs idle (1024^3: 32 tiles of the default for 132 SMs): the wide one, else half
// of it, else the 64 x 64 tile; where the wide one is chosen, its transpose if that takes fewer
// waves (4088 x 4104: 544 tiles of 128 x 256 are 5 waves on 132 SMs, 528 of 256 x 128 are 4). A
// tile needing more shared memory than `wide` is not taken. The rule fits the H100's measurements
// of the four tiles from 512^3 to 4096^3 (docs/performance-log.md, step 14, "the tile by shape").
inline Config config_for_shape(const GemmShape& shape, int sms, const Config& wide = kConfigs[0]) {
  const auto fits = [&](const Config& c) { return shared_bytes(c) <= shared_bytes(wide); };
  const Config& tall = kConfigs[kTallConfig];
  const Config& half = kConfigs[kHalfConfig];
  if (2 * tile_count(shape, wide) > sms)
    return fits(tall) && waves(shape, tall, sms) < waves(shape, wide, sms) ? tall : wide;
  if (fits(half) && 2 * tile_count(shape, half) > sms) return half;
  return kConfigs[kSmallConfig];
}
// The same on a GPU given by its limits: the wide tile is what runs there without --param
// (config_for_gpu: the default, or the first that fits its shared memory per block).
inline Config config_for_shape(const GemmShape& shape, const gemm::GpuLimits& gpu) {
  return config_for_shape(shape, gpu.sms, config_for_gpu(gpu.shared_per_block));
}

GEMM_HD LaunchShape launch_shape(const GemmShape& shape, const Config& c) {
  LaunchShape launch;
  launch.grid = {ceil_div(shape.n, c.bn), ceil_div(shape.m, c.bm), 1};  // x walks the columns of C
  launch.block = {threads(c), 1, 1};
  launch.shared_bytes = shared_bytes(c);
  return launch;
}

GEMM_HD int k_tiles(const GemmShape& shape, const Config& c) { return ceil_div(shape.k, c.bk); }

// The pipeline (kernel.cuh): k-tile kt lives in stage kt % STAGES. The prologue copies the k-tiles
// below k_tile_copied_in(0), one commit group each, and waits until groups_in_flight_after_prologue of
// them are in flight (k-tile 0 has landed). In its last k-step iteration kt waits until
// groups_in_flight are (each k-tile is one commit group, empty past the last k-tile, so group g is
// k-tile g: k-tile kt + 1 has landed), and, past the barrier that follows, copies k-tile
// k_tile_copied_in(kt) into the stage k-tile kt - 1 used.
// The kernel keeps its stages as running indices, stepped by next_stage (the stage k-tile kt is
// read from, and the one refilled: the stage k-tile kt - 1 used), rather than computing a remainder
// in its loop; stage_of is that walk in closed form, for the traces and the viewer's timeline. The
// host test holds the two together over hundreds of k-tiles (test_mapping_NN.cpp, pipeline_checks.hpp).
GEMM_HD constexpr int next_stage(int stage, const Config& c) { return stage + 1 == c.stages ? 0 : stage + 1; }
GEMM_HD constexpr int stage_of(int kt, const Config& c) { return kt % c.stages; }
GEMM_HD constexpr int k_tile_copied_in(int kt, const Config& c) { return kt + c.stages - 1; }
GEMM_HD constexpr int groups_in_flight_after_prologue(const Config& c) { return c.stages - 2; }
GEMM_HD constexpr int groups_in_flight(const Config& c) { return c.stages - 3; }

// --- Shapes of whole tiles -----------------------------------------------------------------------

// A shape that is a whole number of tiles in M, N and K has no edges: every copy lies inside A and
// B and every result inside C, so the kernel can leave out the bounds tests (a comparison and a
// select per copy, per k-tile) and the edge paths of the stores. The kernel is compiled both ways
// and the launch takes this one where the shape allows. Only for the default tile, in NN and NT:
// measured on the H100 (docs/performance-log.md, step 14, version 31), TN's instance without the
// tests ran slower than with them, as ptxas scheduled it otherwise.
GEMM_HD bool whole_tiles(const GemmShape& shape, const Config& c) {
  return shape.m % c.bm == 0 && shape.n % c.bn == 0 && shape.k % c.bk == 0;
}
// `config`: an index into kConfigs, whose first entry is the default.
GEMM_HD constexpr bool has_edge_free_instance(int config, Layout layout) { return config == 0 && layout != Layout::tn; }

// A warp's tile: warp w of the block covers rows warp_row * WM .. and columns warp_col * WN ..
GEMM_HD int warp_row(int warp, const Config& c) { return warp / (c.bn / c.wn); }
GEMM_HD int warp_col(int warp, const Config& c) { return warp % (c.bn / c.wn); }

// --- Global -> shared copies -------------------------------------------------------------------

// The stored matrices (rows x row length; the row length is the leading dimension).
struct Stored {
  int rows = 0, cols = 0;
};
GEMM_HD Stored a_stored(const GemmShape& s, Layout layout) { return layout == Layout::tn ? Stored{s.k, s.m} : Stored{s.m, s.k}; }
GEMM_HD Stored b_stored(const GemmShape& s, Layout layout) { return layout == Layout::nt ? Stored{s.n, s.k} : Stored{s.k, s.n}; }

// Copy `index` of an operand tile (index < tile_chunks): which chunk of the tile it fills, and
// where that chunk starts in the stored matrix for k-tile 0 of the block whose tile starts at
// m or n = `mn_origin`. Consecutive indices run along a stored row: a warp reads whole sectors.
struct Copy {
  int row = 0, chunk = 0;               // in the tile
  int stored_row = 0, stored_col = 0;   // first element, at k-tile 0
};
GEMM_HD Copy copy_at(const OperandTile& t, int mn_origin, int index) {
  Copy c;
  c.row = index / t.chunks;
  c.chunk = index % t.chunks;
  if (t.k_major) {
    c.stored_row = mn_origin + c.row;
    c.stored_col = c.chunk * kChunk;
  } else {
    c.stored_row = c.row;
    c.stored_col = mn_origin + c.chunk * kChunk;
  }
  return c;
}
// Copy 0 of a thread moved `rows` tile rows down: its copy i with rows = i * copy_row_step.
GEMM_HD Copy copy_moved(Copy c, int rows) {
  c.row += rows;
  c.stored_row += rows;  // a tile row is a stored row in both orientations
  return c;
}
// Each k-tile moves a copy BK elements further along k: BK columns on in a k-major tile, BK rows
// down otherwise. The k coordinate of a copy at k-tile kt, and whether it is inside the matrix
// (rows start on 16 bytes, so a chunk is wholly inside or wholly outside).
GEMM_HD int copy_k(const OperandTile& t, const Copy& c, const Config& cfg, int kt) {
  return (t.k_major ? c.stored_col : c.stored_row) + kt * cfg.bk;
}
GEMM_HD bool copy_inside(const OperandTile& t, const Copy& c, const Stored& s, const Config& cfg, int kt) {
  return t.k_major ? (c.stored_row < s.rows && copy_k(t, c, cfg, kt) < s.cols)
                   : (copy_k(t, c, cfg, kt) < s.rows && c.stored_col < s.cols);
}
GEMM_HD long long copy_source(const OperandTile& t, const Copy& c, const Stored& s, const Config& cfg, int kt) {
  return t.k_major ? (long long)c.stored_row * s.cols + copy_k(t, c, cfg, kt)
                   : (long long)copy_k(t, c, cfg, kt) * s.cols + c.stored_col;
}
// The same offsets as fixed strides, which the kernel steps through instead (test_mapping_14 checks
// that they agree): copy i at k-tile kt starts at
// copy_source(copy 0, k-tile 0) + i * copy_stride + kt * k_tile_stride.
GEMM_HD long long copy_stride(const OperandTile& t, const Stored& s, const Config& cfg) {
  return (long long)copy_row_step(t, cfg) * s.cols;  // copy_row_step stored rows
}
GEMM_HD long long k_tile_stride(const OperandTile& t, const Stored& s, const Config& cfg) {
  return t.k_major ? cfg.bk : (long long)cfg.bk * s.cols;  // BK columns on, or BK rows down
}

// --- Shared -> registers: ldmatrix ---------------------------------------------------------------

// The row of a tile whose address a lane gives to ldmatrix.x4, which loads four 8 x 8 matrices
// (lanes 8j..8j+7 address the 8 rows of matrix j; matrix j lands in register j of every lane).
struct Spot {
  int row = 0, chunk = 0;
};

// A fragment of mma.m16n8k16 (16 rows m0.., 16 k's k0..) in the order the instruction wants its
// registers: (m 0-7, k 0-7), (m 8-15, k 0-7), (m 0-7, k 8-15), (m 8-15, k 8-15).
// k-major tile: a matrix row is 8 k's of one m (plain ldmatrix). Transposed tile: a matrix row is
// 8 m's of one k, and ldmatrix.trans hands each lane the elements of its m (see the doc).
GEMM_HD Spot a_ldmatrix_spot(bool k_major, int m0, int k0, int lane) {
  if (k_major) return {m0 + lane % 16, k0 / kChunk + lane / 16};
  return {k0 + (lane / 16) * 8 + lane % 8, m0 / kChunk + (lane / 8) % 2};
}
// Two B fragments side by side (n0.. n0+15, k0.. k0+15): (n 0-7: k 0-7, k 8-15), then (n 8-15: k 0-7,
// k 8-15), i.e. b0 and b1 of the n8 tile at n0, then of the one at n0 + 8.
GEMM_HD Spot b_ldmatrix_spot(bool k_major, int n0, int k0, int lane) {
  if (k_major) return {n0 + (lane / 16) * 8 + lane % 8, k0 / kChunk + (lane / 8) % 2};
  return {k0 + ((lane / 8) % 2) * 8 + lane % 8, n0 / kChunk + lane / 16};
}

// Every fragment of a lane is a fixed distance from its first one (i or j = 0, k-step 0), so the
// kernel keeps one address per operand and lane. A k-step (16 k's) is 2 chunks along a k-major row
// and 16 rows down a transposed tile; the next fragment (16 m's or n's) is 16 rows down a k-major
// tile and 2 chunks along a transposed row. Moving along a row is an XOR: the swizzle is an XOR
// and the lane's first chunk within the moved bits is 0 or 1, so adding 2, 4, 6 chunks changes
// bits that the first chunk leaves clear (the host tests check it against tile_offset).
struct FragmentStep {
  int add = 0, xor_bytes = 0;  // byte offset = ((first + add) ^ xor_bytes)
};
GEMM_HD constexpr FragmentStep fragment_step(const OperandTile& t, int fragment, int kk) {
  const int row_bytes = t.chunks * kChunk * kElementBytes, chunk_bytes = kChunk * kElementBytes;
  if (t.k_major) return {fragment * 16 * row_bytes, (kk / kChunk) * chunk_bytes};
  return {kk * row_bytes, fragment * 2 * chunk_bytes};
}

// --- Registers -> C -----------------------------------------------------------------------------

// The accumulator of mma.m16n8k16 (PTX ISA, "Matrix fragments for mma.m16n8k16"): register r of
// lane holds row lane / 4 (+ 8 for r = 2, 3) and column 2 * (lane % 4) + r % 2 of the 16 x 8 tile.
GEMM_HD int accumulator_row(int lane, int reg) { return lane / 4 + (reg / 2) * 8; }
GEMM_HD int accumulator_col(int lane, int reg) { return 2 * (lane % 4) + reg % 2; }

// 16-bit output: a lane's two columns of an n8 tile are 4 bytes, so stores straight from the
// accumulators would fill only half of each 32-byte sector they touch (8 rows x 16 bytes per
// warp). Neighbouring lanes (lane ^ 1, on the same row) trade halves of two side-by-side n8 tiles
// j and j + 1: even lanes keep their columns of tile j and take their neighbour's, odd lanes
// those of tile j + 1. Each lane then holds 4 consecutive columns from quad_col (within the 16
// columns of the two tiles), one 8-byte store, and a warp's store covers 8 rows x 32 bytes: whole
// sectors.
GEMM_HD bool keeps_right_tile(int lane) { return lane % 2 == 1; }
GEMM_HD int quad_col(int lane) { return keeps_right_tile(lane) ? kMmaN + 2 * (lane % 4 - 1) : 2 * (lane % 4); }

// The 16 x 8 tile (i, j) of a warp: rows warp_row * WM + 16 i .., columns warp_col * WN + 8 j ..
GEMM_HD int fragment_row(int warp, const Config& c, int i) { return warp_row(warp, c) * c.wm + i * kMmaM; }
GEMM_HD int fragment_col(int warp, const Config& c, int j) { return warp_col(warp, c) * c.wn + j * kMmaN; }

// --- The trace: one warp's memory instructions, in the kernel's order -----------------------------

// The kernel's copies go around the L1 (cp.async.cg in kernel.cuh); the access model prices them so.
constexpr bool kCopyBypassesL1 = true;

// Per k-tile (its copies listed under its own iteration, as they are issued STAGES - 1 k-tiles
// ahead): each cp.async of A, then of B, as a 16-byte global read (lanes outside the matrix read
// nothing) and a 16-byte shared write into the swizzled stage (every lane writes, zeros outside);
// per k-step, the ldmatrix.x4 of the A and B fragments (each lane gives one 16-byte row address);
// then the stores of C from the accumulators, pairs of columns (f32 output). Shared addresses are
// elements of the one dynamic buffer: stage s at s * stage_elements, A's tile, then B's.
inline void trace_warp(const gemm::TraceProblem& problem, const gemm::Dim3& block, int warp,
                       const gemm::TraceSink& emit) {
  using gemm::Access;
  using gemm::Operand;
  using gemm::Space;
  const GemmShape& s = problem.shape;
  const Layout layout = problem.layout;
  const Config c = config_from(problem.params);
  const OperandTile ta = a_tile(layout, c), tb = b_tile(layout, c);
  const Stored sa = a_stored(s, layout), sb = b_stored(s, layout);
  const int block_m = block.y * c.bm, block_n = block.x * c.bn, first_thread = warp * kWarpSize;
  constexpr std::uint32_t kEveryLane = 0xffffffffu;  // blocks are whole warps
  const int tiles = k_tiles(s, c), stage_size = stage_elements(layout, c);
  auto copies = [&](int kt) {
    const int stage = stage_of(kt, c) * stage_size;
    auto operand = [&](const OperandTile& t, const Stored& stored, int origin, Operand global, Operand shared, int base,
                       const char* read, const char* write) {
      for (int i = 0; i < tile_chunks(t) / threads(c); ++i) {
        std::array<Copy, kWarpSize> copy{};
        std::uint32_t inside = 0;
        for (int lane = 0; lane < kWarpSize; ++lane) {
          copy[size_t(lane)] = copy_moved(copy_at(t, origin, first_thread + lane), i * copy_row_step(t, c));
          if (copy_inside(t, copy[size_t(lane)], stored, c, kt)) inside |= 1u << lane;
        }
        gemm::emit_async_copy(
            emit, kCopyBypassesL1,
            gemm::make_instruction(Space::global, Access::load, global, 16, kt, read, inside,
                                   [&](int lane) { return copy_source(t, copy[size_t(lane)], stored, c, kt); },
                                   kElementBytes),
            gemm::make_instruction(
                Space::shared, Access::store, shared, 16, kt, write, kEveryLane,
                [&](int lane) { return base + tile_offset(t, copy[size_t(lane)].row, copy[size_t(lane)].chunk); },
                kElementBytes));
      }
    };
    operand(ta, sa, block_m, Operand::A, Operand::smem_A, stage, "cp.async 16 B: A chunk (global read)",
            "cp.async 16 B: A chunk -> swizzled A tile (shared write)");
    operand(tb, sb, block_n, Operand::B, Operand::smem_B, stage + tile_elements(ta), "cp.async 16 B: B chunk (global read)",
            "cp.async 16 B: B chunk -> swizzled B tile (shared write)");
  };
  for (int kt = 0; kt < k_tile_copied_in(0, c) && kt < tiles; ++kt) copies(kt);  // the prologue
  const int warp_m = warp_row(warp, c) * c.wm, warp_n = warp_col(warp, c) * c.wn;
  for (int kt = 0; kt < tiles; ++kt) {
    if (k_tile_copied_in(kt, c) < tiles) copies(k_tile_copied_in(kt, c));
    const int stage = stage_of(kt, c) * stage_size;
    for (int k0 = 0; k0 < c.bk; k0 += kMmaK) {
      for (int i = 0; i < c.wm / kMmaM; ++i)
        emit(gemm::make_instruction(Space::shared, Access::load, Operand::smem_A, 16, kt,
                                    ta.k_major ? "ldmatrix.x4 A fragment" : "ldmatrix.x4.trans A fragment", kEveryLane,
                                    [&](int lane) {
                                      const Spot at = a_ldmatrix_spot(ta.k_major, warp_m + i * kMmaM, k0, lane);
                                      return stage + tile_offset(ta, at.row, at.chunk);
                                    },
                                    kElementBytes));
      for (int j = 0; j < c.wn / 16; ++j)
        emit(gemm::make_instruction(Space::shared, Access::load, Operand::smem_B, 16, kt,
                                    tb.k_major ? "ldmatrix.x4 B fragments" : "ldmatrix.x4.trans B fragments", kEveryLane,
                                    [&](int lane) {
                                      const Spot at = b_ldmatrix_spot(tb.k_major, warp_n + j * 16, k0, lane);
                                      return stage + tile_elements(ta) + tile_offset(tb, at.row, at.chunk);
                                    },
                                    kElementBytes));
    }
  }
  // The epilogue (store_pair): one 8-byte store per pair where N is even, else element by element.
  for (int i = 0; i < c.wm / kMmaM; ++i)
    for (int j = 0; j < c.wn / kMmaN; ++j)
      for (int half = 0; half < 2; ++half) {
        auto row = [&](int lane) { return block_m + fragment_row(warp, c, i) + accumulator_row(lane, 2 * half); };
        auto col = [&](int lane) { return block_n + fragment_col(warp, c, j) + accumulator_col(lane, 2 * half); };
        for (int e = 0; e < (s.n % 2 == 0 ? 1 : 2); ++e) {
          std::uint32_t active = 0;
          for (int lane = 0; lane < kWarpSize; ++lane)
            if (row(lane) < s.m && col(lane) + e < s.n) active |= 1u << lane;
          gemm::emit_c_update(problem, s.n % 2 == 0 ? 8 : 4, tiles, active,
                              [&](int lane) { return (long long)row(lane) * s.n + col(lane) + e; }, emit);
        }
      }
}

// Who holds each element of C at the end of the k-loop (the viewer's thread map, the host tests):
// register r of fragment acc[i][j] of lane `lane` holds the element at fragment_row/col plus
// accumulator_row/col, as the epilogue reads it (f32 output stores it from there; 16-bit output
// first trades halves with the neighbouring lane, quad_col).
constexpr int kAccumulatorRegisters = kMmaM * kMmaN / kWarpSize;  // per fragment and lane: 4
inline void warp_accumulators(const gemm::TraceProblem& problem, const gemm::Dim3& block, int warp,
                              const gemm::HeldSink& emit) {
  const Config c = config_from(problem.params);
  const int block_m = block.y * c.bm, block_n = block.x * c.bn, fragment_cols = c.wn / kMmaN;
  gemm::HeldElement held;
  held.mma = {gemm::MmaKind::mma_sync, kMmaM, kMmaN, kMmaK};
  held.tile_m = block.y, held.tile_n = block.x;
  for (int i = 0; i < c.wm / kMmaM; ++i)
    for (int j = 0; j < fragment_cols; ++j)
      for (int r = 0; r < kAccumulatorRegisters; ++r)
        for (int lane = 0; lane < kWarpSize; ++lane) {
          held.frag_i = i, held.frag_j = j, held.lane = lane;
          held.reg = (i * fragment_cols + j) * kAccumulatorRegisters + r;
          held.row = block_m + fragment_row(warp, c, i) + accumulator_row(lane, r);
          held.col = block_n + fragment_col(warp, c, j) + accumulator_col(lane, r);
          emit(held);
        }
}

}  // namespace step14
