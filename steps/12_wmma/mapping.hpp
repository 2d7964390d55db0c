// Step 12, WMMA: the index math, shared by the kernel and the host tests.
//
// The first tensor-core step. A warp multiplies 16 x 16 tiles with wmma::mma_sync: the operands
// come from shared memory as "fragments" (wmma::load_matrix_sync), whose distribution over the 32
// lanes the hardware decides. What this file decides is everything around it:
//  - the block tile BM x BN is cut into warp tiles WM x WN, each a grid of 16 x 16 fragments;
//  - A and B are staged in shared memory in ONE layout, whatever their layout in global memory:
//    a_tile[m][k] and b_tile[k][n], rows padded by 8 elements (16 bytes). The compute loop is then
//    the same for NN, NT and TN;
//  - the copies read global memory in 16-byte chunks of 8 consecutive elements along the stored
//    rows, so they stay coalesced in every layout; the transpose (A in TN, B in NT) happens while a
//    chunk is written to shared memory, element by element.
#pragma once

#include <map>
#include <string>

#include "accumulators.hpp"
#include "dispatch.hpp"
#include "gemm_types.hpp"
#include "hd.hpp"
#include "trace.hpp"
#include "tunables.hpp"

namespace step12 {

using gemm::ceil_div;
using gemm::GemmShape;
using gemm::Layout;
using gemm::LaunchShape;

constexpr int kFragment = 16;  // wmma tile side (m16n16k16)
constexpr int kChunk = 8;      // 16-bit elements per 16-byte copy
// Elements added to each shared row: WMMA's row stride (ldm) a multiple of 8 and its fragments on 32
// bytes, and the 8 rows a fragment load reads at once in different banks.
constexpr int kPad = 8;
constexpr int kWarpSize = 32;

struct Config {
  int bm, bn, bk;  // block tile
  int wm, wn;      // warp tile (multiples of 16)
  GEMM_HD constexpr bool operator==(const Config& o) const {
    return bm == o.bm && bn == o.bn && bk == o.bk && wm == o.wm && wn == o.wn;
  }
};

// The tunables, each declared here once (--param NAME=value, --help, the results file, the traced
// registry: common/host/tunables.hpp); their values are kConfigs' fields.
inline constexpr gemm::Tunable<Config> kTunables[] = {
    {"BM", &Config::bm, "rows of C per block (16 with WM=16 and BN=BK=WN=16: the minimal one-warp kernel)"},
    {"BN", &Config::bn, "columns of C per block"},
    {"BK", &Config::bk, "depth of the shared tiles (a multiple of 16)"},
    {"WM", &Config::wm, "rows of C per warp (a multiple of 16)"},
    {"WN", &Config::wn, "columns of C per warp (a multiple of 16)"},
};

GEMM_HD constexpr int warps(const Config& c) { return (c.bm / c.wm) * (c.bn / c.wn); }
GEMM_HD constexpr int threads(const Config& c) { return warps(c) * kWarpSize; }
GEMM_HD constexpr int a_stride(const Config& c) { return c.bk + kPad; }  // a_tile[BM][BK + 8]
GEMM_HD constexpr int b_stride(const Config& c) { return c.bn + kPad; }  // b_tile[BK][BN + 8]

// The compiled configurations; the first is the default (the blocked multi-warp kernel), the second
// the minimal one the doc starts from: one warp per block, one 16 x 16 tile of C, K in steps of 16.
constexpr Config kConfigs[] = {
    {128, 128, 32, 32, 64},
    {16, 16, 16, 16, 16},
    {64, 64, 32, 32, 32},
    {128, 128, 32, 64, 64},
};
constexpr int kConfigCount = int(sizeof(kConfigs) / sizeof(kConfigs[0]));

inline const char* config_rule(const Config& c) {
  if (c.bm <= 0 || c.bn <= 0 || c.bk <= 0 || c.wm <= 0 || c.wn <= 0) return "BM, BN, BK, WM and WN must be positive";
  if (c.wm % kFragment || c.wn % kFragment || c.bk % kFragment) return "WM, WN and BK must be multiples of 16";
  if (c.bm % c.wm || c.bn % c.wn) return "BM must be a multiple of WM and BN of WN";
  if (gemm::index_of(kConfigs, c) >= 0) return "";
  return "this combination is not compiled in; see the list in steps/12_wmma/mapping.hpp (--help)";
}

inline Config config_from(const gemm::Params& params) { return gemm::config_from(kTunables, params); }
inline gemm::Params to_params(const Config& c, const gemm::Params& base = {}) {
  return gemm::to_params(kTunables, c, base);
}

GEMM_HD LaunchShape launch_shape(const GemmShape& shape, const Config& c) {
  LaunchShape launch;
  launch.grid = {ceil_div(shape.n, c.bn), ceil_div(shape.m, c.bm), 1};  // x walks the columns of C
  launch.block = {threads(c), 1, 1};
  return launch;
}

GEMM_HD int k_tiles(const GemmShape& shape, const Config& c) { return ceil_div(shape.k, c.bk); }

// A warp's tile: warp w of the block covers rows warp_row * WM .. and columns warp_col * WN ..
GEMM_HD int warp_row(int warp, const Config& c) { return warp / (c.bn / c.wn); }
GEMM_HD int warp_col(int warp, const Config& c) { return warp % (c.bn / c.wn); }

struct Chunk {
  int row = 0, col = 0;  // of the STORED matrix (8 elements from col on)
  bool valid = false;
  int tile_row = 0, tile_col = 0;  // where element 0 of the chunk lands in the shared tile
  bool transposed = false;         // element e lands at (tile_row + e, tile_col) instead of (tile_row, tile_col + e)
};

// Chunks per tile and per thread (the last round may be partial).
GEMM_HD int a_chunks(const Config& c) { return c.bm * c.bk / kChunk; }
GEMM_HD int b_chunks(const Config& c) { return c.bk * c.bn / kChunk; }
GEMM_HD int copies(int chunks, const Config& c) { return ceil_div(chunks, threads(c)); }

// Chunk `index` of the A tile of block row `block_m` at k-tile kt. NN and NT: A is stored M x K,
// chunks run along k (a row of the tile); TN: A is stored K x M, chunks run along m and are written
// down a column of the tile.
GEMM_HD Chunk a_chunk(const GemmShape& s, Layout layout, const Config& c, int block_m, int kt, int index) {
  Chunk ch;
  if (layout != Layout::tn) {
    const int per_row = c.bk / kChunk;
    ch.tile_row = index / per_row;
    ch.tile_col = (index % per_row) * kChunk;
    ch.row = block_m * c.bm + ch.tile_row;
    ch.col = kt * c.bk + ch.tile_col;
    ch.valid = ch.row < s.m && ch.col < s.k;
  } else {
    // Consecutive lanes: 2 chunks of one stored row (a 32-byte sector), then the next k. A warp
    // then reads 16 whole sectors, and each transposed store instruction hits every bank at most
    // twice (chunks 8 rows apart in the tile would all fall in one bank: 8 padded rows are a
    // multiple of 32 words).
    const int line = (index / 2) % c.bk, in_row = (index / 2 / c.bk) * 2 + index % 2;
    ch.tile_col = line;                           // k
    ch.tile_row = in_row * kChunk;                // m
    ch.row = kt * c.bk + ch.tile_col;             // stored row: k
    ch.col = block_m * c.bm + ch.tile_row;        // stored column: m
    ch.valid = ch.row < s.k && ch.col < s.m;
    ch.transposed = true;
  }
  return ch;
}

// Chunk `index` of the B tile. NN and TN: B is stored K x N, chunks along n (a row of the tile);
// NT: B is stored N x K, chunks along k, written down a column of the tile.
GEMM_HD Chunk b_chunk(const GemmShape& s, Layout layout, const Config& c, int block_n, int kt, int index) {
  Chunk ch;
  if (layout != Layout::nt) {
    const int per_row = c.bn / kChunk;
    ch.tile_row = index / per_row;                // k
    ch.tile_col = (index % per_row) * kChunk;     // n
    ch.row = kt * c.bk + ch.tile_row;
    ch.col = block_n * c.bn + ch.tile_col;
    ch.valid = ch.row < s.k && ch.col < s.n;
  } else {
    const int line = (index / 2) % c.bn, in_row = (index / 2 / c.bn) * 2 + index % 2;  // as for A in TN
    ch.tile_col = line;                           // n
    ch.tile_row = in_row * kChunk;                // k
    ch.row = block_n * c.bn + ch.tile_col;        // stored row: n
    ch.col = kt * c.bk + ch.tile_row;             // stored column: k
    ch.valid = ch.row < s.n && ch.col < s.k;
    ch.transposed = true;
  }
  return ch;
}

// Stored shapes of A and B (rows x row length; the row length is the leading dimension).
GEMM_HD int a_stored_rows(const GemmShape& s, Layout layout) { return layout == Layout::tn ? s.k : s.m; }
GEMM_HD int a_stored_cols(const GemmShape& s, Layout layout) { return layout == Layout::tn ? s.m : s.k; }
GEMM_HD int b_stored_rows(const GemmShape& s, Layout layout) { return layout == Layout::nt ? s.n : s.k; }
GEMM_HD int b_stored_cols(const GemmShape& s, Layout layout) { return layout == Layout::nt ? s.k : s.n; }
// A chunk is one 16-byte load when the stored rows start on 16 bytes (row length a multiple of 8;
// K always is). Otherwise (M in TN, N in NN and TN not multiples of 8) its 8 elements are loaded
// one by one, each checked against the edge: element_valid.
GEMM_HD bool wide_rows(int stored_cols) { return stored_cols % kChunk == 0; }
GEMM_HD bool element_valid(const Chunk& ch, int e, int stored_rows, int stored_cols) {
  return ch.row < stored_rows && ch.col + e < stored_cols;
}
GEMM_HD long long stored_index(const Chunk& ch, int stored_cols) { return (long long)ch.row * stored_cols + ch.col; }
// Shared offsets of element e of a chunk.
GEMM_HD int a_tile_index(const Chunk& ch, const Config& c, int e) {
  return ch.transposed ? (ch.tile_row + e) * a_stride(c) + ch.tile_col : ch.tile_row * a_stride(c) + ch.tile_col + e;
}
GEMM_HD int b_tile_index(const Chunk& ch, const Config& c, int e) {
  return ch.transposed ? (ch.tile_row + e) * b_stride(c) + ch.tile_col : ch.tile_row * b_stride(c) + ch.tile_col + e;
}

// The fragments of a warp: fragment (i, j) of warp w covers the 16 x 16 tile of C starting at
// these rows and columns of the block tile; at step kk of the k-tile it multiplies a_tile rows
// from fragment_row, columns kk.., with b_tile rows kk.., columns from fragment_col.
GEMM_HD int fragment_row(int warp, const Config& c, int i) { return warp_row(warp, c) * c.wm + i * kFragment; }
GEMM_HD int fragment_col(int warp, const Config& c, int j) { return warp_col(warp, c) * c.wn + j * kFragment; }

// The C element lane `lane` handles in round r of the epilogue: the warp reads its 16 x 16 staging
// tile row by row (element e = lane + 32 r, two rows of 16 per round) and writes C at that spot.
constexpr int kStageRounds = kFragment * kFragment / kWarpSize;
GEMM_HD int stage_element(int lane, int round) { return lane + round * kWarpSize; }

// What the compiler makes of wmma here (CUDA 13.0 for sm_80 and later; seen in the SASS that
// Nsight Compute's source view shows for this kernel, and checked by tools/check_model_ncu.py). The
// API leaves the lane layout of a fragment to the compiler, so the kernel cannot name it; the trace
// lists what was observed:
//  - load_matrix_sync of a 16 x 16 fragment is one ldmatrix.x4 (SASS LDSM.16.M88.4), .trans for B
//    (b_tile is stored k by n). Each of its four 8 x 8 matrices is 8 rows of 16 bytes, one row
//    address per lane; which lane gives which row the compiler decides, and does not change the
//    banks a matrix reads, so the trace gives lane l row l % 16 and 8 elements from (l / 16) * 8;
//  - store_matrix_sync of an f32 accumulator into a row-major 16 x 16 tile is four 8-byte stores
//    (STS.64), in the accumulator layout of mma.m16n8k16, which the fragment is made of: lane l
//    holds rows l / 4 and l / 4 + 8, columns 2 (l % 4) and + 1, of each 16 x 8 half.
GEMM_HD int wmma_load_row(int lane) { return lane % kFragment; }
GEMM_HD int wmma_load_col(int lane) { return (lane / kFragment) * kChunk; }
constexpr int kStagingStores = 4;  // per store_matrix_sync: 2 row halves x 2 column halves
GEMM_HD int wmma_store_element(int lane, int store) {
  const int row = lane / 4 + (store / 2) * 8, col = 2 * (lane % 4) + (store % 2) * 8;
  return row * kFragment + col;
}

// The trace: the instructions of one warp, for the default output type (f32), as the kernel issues
// them: per k-tile the copies (global reads, 16 bytes or element by element; shared writes, along a
// tile row or, transposed, down a column), then per 16 k's the fragment loads (above); per fragment
// of C its staging stores (above), the lanes' reads of the staging tile and the C updates. The B
// tile is placed after the A tile, the staging tiles after both (all three are multiples of 128
// bytes, so the banks are as in the kernel whatever order the compiler lays them out in).
inline void trace_warp(const gemm::TraceProblem& problem, const gemm::Dim3& block, int warp,
                       const gemm::TraceSink& emit) {
  using gemm::Access;
  using gemm::Operand;
  using gemm::Space;
  constexpr int kInBytes = 2;  // f16 and bf16
  const GemmShape& s = problem.shape;
  const Layout layout = problem.layout;
  const Config c = config_from(problem.params);
  const int first_thread = warp * kWarpSize;
  const int tiles = k_tiles(s, c);
  const int b_base = c.bm * a_stride(c);                        // in elements of the input type
  const int stage_base = (b_base + c.bk * b_stride(c)) * kInBytes / 4;  // in floats
  auto copy_operand = [&](bool is_a, int kt) {
    const int chunks = is_a ? a_chunks(c) : b_chunks(c);
    const int rows = is_a ? a_stored_rows(s, layout) : b_stored_rows(s, layout);
    const int cols = is_a ? a_stored_cols(s, layout) : b_stored_cols(s, layout);
    const Operand global = is_a ? Operand::A : Operand::B, shared = is_a ? Operand::smem_A : Operand::smem_B;
    for (int round = 0; round < step12::copies(chunks, c); ++round) {
      std::array<Chunk, kWarpSize> chunk{};
      std::uint32_t exists = 0;
      for (int lane = 0; lane < kWarpSize; ++lane) {
        const int index = first_thread + lane + round * threads(c);
        if (index >= chunks) continue;
        exists |= 1u << lane;
        chunk[size_t(lane)] = is_a ? a_chunk(s, layout, c, block.y, kt, index) : b_chunk(s, layout, c, block.x, kt, index);
      }
      if (!exists) continue;
      auto at = [&](int lane) { return stored_index(chunk[size_t(lane)], cols); };
      if (wide_rows(cols)) {
        std::uint32_t inside = 0;
        for (int lane = 0; lane < kWarpSize; ++lane)
          if (((exists >> lane) & 1u) && chunk[size_t(lane)].valid) inside |= 1u << lane;
        if (inside)
          emit(gemm::make_instruction(Space::global, Access::load, global, 16, kt,
                                      is_a ? "ld.global.v4 A chunk (8 elements)" : "ld.global.v4 B chunk (8 elements)",
                                      inside, at, kInBytes));
      } else {
        for (int e = 0; e < kChunk; ++e) {
          std::uint32_t inside = 0;
          for (int lane = 0; lane < kWarpSize; ++lane)
            if (((exists >> lane) & 1u) && element_valid(chunk[size_t(lane)], e, rows, cols)) inside |= 1u << lane;
          if (inside)
            emit(gemm::make_instruction(Space::global, Access::load, global, kInBytes, kt,
                                        is_a ? "ld.global A element (row not 16-byte aligned)"
                                             : "ld.global B element (row not 16-byte aligned)",
                                        inside, [&](int lane) { return at(lane) + e; }, kInBytes));
        }
      }
      auto tile_at = [&](int lane, int e) {
        return is_a ? a_tile_index(chunk[size_t(lane)], c, e) : b_base + b_tile_index(chunk[size_t(lane)], c, e);
      };
      const bool transposed = layout == (is_a ? Layout::tn : Layout::nt);
      if (!transposed) {
        emit(gemm::make_instruction(Space::shared, Access::store, shared, 16, kt,
                                    is_a ? "st.shared.v4 A chunk -> a_tile row" : "st.shared.v4 B chunk -> b_tile row",
                                    exists, [&](int lane) { return tile_at(lane, 0); }, kInBytes));
      } else {
        for (int e = 0; e < kChunk; ++e)
          emit(gemm::make_instruction(Space::shared, Access::store, shared, kInBytes, kt,
                                      is_a ? "st.shared A element -> a_tile column (the transpose)"
                                           : "st.shared B element -> b_tile column (the transpose)",
                                      exists, [&](int lane) { return tile_at(lane, e); }, kInBytes));
      }
    }
  };
  constexpr std::uint32_t kEveryLane = 0xffffffffu;
  for (int kt = 0; kt < tiles; ++kt) {
    copy_operand(true, kt);
    copy_operand(false, kt);
    for (int kk = 0; kk < c.bk; kk += kFragment) {  // every warp, every step of the tile (zeros past K)
      for (int i = 0; i < c.wm / kFragment; ++i)
        emit(gemm::make_instruction(Space::shared, Access::load, Operand::smem_A, 16, kt,
                                    "load_matrix_sync A = ldmatrix.x4 (16 x 16 fragment)", kEveryLane,
                                    [&](int lane) {
                                      return (fragment_row(warp, c, i) + wmma_load_row(lane)) * a_stride(c) + kk +
                                             wmma_load_col(lane);
                                    },
                                    kInBytes));
      for (int j = 0; j < c.wn / kFragment; ++j)
        emit(gemm::make_instruction(Space::shared, Access::load, Operand::smem_B, 16, kt,
                                    "load_matrix_sync B = ldmatrix.x4.trans (16 x 16 fragment)", kEveryLane,
                                    [&](int lane) {
                                      return b_base + (kk + wmma_load_row(lane)) * b_stride(c) + fragment_col(warp, c, j) +
                                             wmma_load_col(lane);
                                    },
                                    kInBytes));
    }
  }
  const int staging = stage_base + warp * kFragment * kFragment;
  for (int i = 0; i < c.wm / kFragment; ++i)
    for (int j = 0; j < c.wn / kFragment; ++j) {
      for (int store = 0; store < kStagingStores; ++store)
        emit(gemm::make_instruction(Space::shared, Access::store, Operand::tile, 8, tiles,
                                    "store_matrix_sync = st.shared.v2 (accumulator -> staging tile)", kEveryLane,
                                    [&](int lane) { return staging + wmma_store_element(lane, store); }));
      for (int round = 0; round < kStageRounds; ++round) {
        auto row = [&](int lane) { return block.y * c.bm + fragment_row(warp, c, i) + stage_element(lane, round) / kFragment; };
        auto col = [&](int lane) { return block.x * c.bn + fragment_col(warp, c, j) + stage_element(lane, round) % kFragment; };
        std::uint32_t active = 0;  // lanes whose element is inside C; the others skip the round
        for (int lane = 0; lane < kWarpSize; ++lane)
          if (row(lane) < s.m && col(lane) < s.n) active |= 1u << lane;
        if (!active) continue;
        emit(gemm::make_instruction(Space::shared, Access::load, Operand::tile, 4, tiles, "ld.shared c_stage[e]", active,
                                    [&](int lane) { return staging + stage_element(lane, round); }));
        gemm::emit_c_update(problem, 4, tiles, active, [&](int lane) { return (long long)row(lane) * s.n + col(lane); },
                            emit);
      }
    }
}

// Who holds each element of C at the end of the k-loop (the viewer's thread map, the host tests):
// fragment acc[i][j] of warp `warp` holds the 16 x 16 tile of C at fragment_row/col, as the
// epilogue stores it. Which lane holds which element of a fragment the WMMA API leaves to the
// compiler (see above), so the elements are the warp's, lane -1.
inline void warp_accumulators(const gemm::TraceProblem& problem, const gemm::Dim3& block, int warp,
                              const gemm::HeldSink& emit) {
  const Config c = config_from(problem.params);
  gemm::HeldElement held;
  held.mma = {gemm::MmaKind::wmma, kFragment, kFragment, kFragment};
  held.tile_m = block.y, held.tile_n = block.x;
  for (int i = 0; i < c.wm / kFragment; ++i)
    for (int j = 0; j < c.wn / kFragment; ++j)
      for (int e = 0; e < kFragment * kFragment; ++e) {
        held.frag_i = i, held.frag_j = j, held.reg = i * (c.wn / kFragment) + j;
        held.row = block.y * c.bm + fragment_row(warp, c, i) + e / kFragment;
        held.col = block.x * c.bn + fragment_col(warp, c, j) + e % kFragment;
        emit(held);
      }
}

}  // namespace step12
