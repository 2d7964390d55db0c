// Step 13, WMMA fed by a cp.async pipeline: the index math, shared by the kernel and the host tests.
//
// Step 12's tensor-core kernel with step 10's pipeline. What this file decides:
//  - the block tile BM x BN is cut into warp tiles WM x WN, each a grid of 16 x 16 fragments (as in
//    step 12);
//  - the k-tiles are copied global -> shared by cp.async, 16 bytes at a time, STAGES - 1 k-tiles
//    ahead of the compute, into STAGES buffers. cp.async copies bytes as they lie: it cannot
//    transpose a chunk on the way, as step 12's stores did. So each operand's tile keeps the layout
//    the operand is stored in (a_tile[m][k] or [k][m], b_tile[k][n] or [n][k]), rows padded by 8
//    elements, and the transpose moves to the fragment load: load_matrix_sync reads a tile stored
//    the other way round as a col_major fragment. The compute loop stays one code for NN, NT, TN;
//  - a chunk is wholly inside or wholly outside its matrix only if every stored row starts on 16
//    bytes (gemm::tc_aligned_rows_rule), so that is the rule this step's shapes obey.
#pragma once

#include <array>
#include <map>
#include <string>

#include "accumulators.hpp"
#include "dispatch.hpp"
#include "hd.hpp"
#include "trace.hpp"
#include "tunables.hpp"

namespace step13 {

using gemm::ceil_div;
using gemm::GemmShape;
using gemm::Layout;
using gemm::LaunchShape;

constexpr int kFragment = 16;     // wmma tile side (m16n16k16)
constexpr int kChunk = 8;         // 16-bit elements per 16-byte copy
constexpr int kPad = 8;           // elements added to each shared row (keeps 16-byte copies and 32-byte fragments aligned)
constexpr int kElementBytes = 2;  // f16 and bf16
constexpr int kWarpSize = 32;

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
    {"BM", &Config::bm, "rows of C per block"},
    {"BN", &Config::bn, "columns of C per block"},
    {"BK", &Config::bk, "depth of the shared tiles (a multiple of 16)"},
    {"WM", &Config::wm, "rows of C per warp (a multiple of 16)"},
    {"WN", &Config::wn, "columns of C per warp (a multiple of 16)"},
    {"STAGES", &Config::stages, "k-tiles in flight in shared memory (2..8)"},
};

GEMM_HD constexpr int warps(const Config& c) { return (c.bm / c.wm) * (c.bn / c.wn); }
GEMM_HD constexpr int threads(const Config& c) { return warps(c) * kWarpSize; }

// The compiled configurations; the first is the default, two blocks of 4 warps per SM: on the H100
// the fastest of these at 4096^3 (NN, bf16), and faster than 8 warps on 128 x 256 in every layout
// at 4096^3 and 8192^3. A GPU whose blocks may not have the default's shared memory runs the first
// in this order that fits (config_for_gpu).
constexpr Config kConfigs[] = {
    {128, 128, 32, 64, 64, 4},  // 4 warps of 64 x 64; 84 KB of shared memory
    {128, 128, 32, 32, 64, 4},  // step 12's tile and warps; 88 KB
    {128, 256, 32, 64, 64, 4},  // 8 warps of 64 x 64; 128 KB
    {128, 256, 32, 64, 64, 3},  // the same with 3 stages; 98 KB
    {64, 64, 32, 32, 32, 4},    // small: 44 KB
};
constexpr int kConfigCount = int(sizeof(kConfigs) / sizeof(kConfigs[0]));

// One operand's tile in a stage: `rows` rows of `cols` elements (+ kPad), laid out as the operand is
// stored in global memory. k_major: a row runs along k (A in NN/NT, B in NT); otherwise a row runs
// along m or n and the rows are the k's (A in TN, B in NN/TN).
struct OperandTile {
  int rows = 0, cols = 0;
  bool k_major = true;
};
GEMM_HD constexpr OperandTile a_tile(Layout layout, const Config& c) {
  return layout == Layout::tn ? OperandTile{c.bk, c.bm, false} : OperandTile{c.bm, c.bk, true};
}
GEMM_HD constexpr OperandTile b_tile(Layout layout, const Config& c) {
  return layout == Layout::nt ? OperandTile{c.bn, c.bk, true} : OperandTile{c.bk, c.bn, false};
}
GEMM_HD constexpr int tile_stride(const OperandTile& t) { return t.cols + kPad; }  // elements per padded row
GEMM_HD constexpr int tile_elements(const OperandTile& t) { return t.rows * tile_stride(t); }
GEMM_HD constexpr int tile_chunks(const OperandTile& t) { return t.rows * t.cols / kChunk; }

// Shared memory: STAGES stages of (A tile, B tile), then one 16 x 16 float staging tile per warp for
// the epilogue. The launch does not know the layout, so it allots the largest stage of the three.
GEMM_HD constexpr int stage_elements(Layout layout, const Config& c) {
  return tile_elements(a_tile(layout, c)) + tile_elements(b_tile(layout, c));
}
GEMM_HD constexpr int max_stage_elements(const Config& c) {
  const int nn = stage_elements(Layout::nn, c), nt = stage_elements(Layout::nt, c), tn = stage_elements(Layout::tn, c);
  return nn > nt ? (nn > tn ? nn : tn) : (nt > tn ? nt : tn);
}
GEMM_HD constexpr int staging_offset_bytes(const Config& c) { return c.stages * max_stage_elements(c) * kElementBytes; }
GEMM_HD constexpr int shared_bytes(const Config& c) {
  return staging_offset_bytes(c) + warps(c) * kFragment * kFragment * 4;
}

inline const char* config_rule(const Config& c) {
  if (c.bm <= 0 || c.bn <= 0 || c.bk <= 0 || c.wm <= 0 || c.wn <= 0) return "BM, BN, BK, WM and WN must be positive";
  if (c.wm % kFragment || c.wn % kFragment || c.bk % kFragment) return "WM, WN and BK must be multiples of 16";
  if (c.bm % c.wm || c.bn % c.wn) return "BM must be a multiple of WM and BN of WN";
  if (c.stages < 2 || c.stages > 8)
    return "STAGES must be 2..8 (k-tile kt + STAGES - 1 is copied while k-tile kt is multiplied)";
  if (gemm::index_of(kConfigs, c) >= 0) return "";
  return "this combination is not compiled in; see the list in steps/13_wmma_pipeline/mapping.hpp (--help)";
}

inline Config config_from(const gemm::Params& params) { return gemm::config_from(kTunables, params); }
inline gemm::Params to_params(const Config& c, const gemm::Params& base = {}) {
  return gemm::to_params(kTunables, c, base);
}
// What runs when no --param is given, on a GPU whose blocks may have `shared_limit` bytes of
// shared memory: the first configuration in list order that fits.
inline Config config_for_gpu(int shared_limit) {
  for (const Config& c : kConfigs)
    if (shared_bytes(c) <= shared_limit) return c;
  return kConfigs[kConfigCount - 1];  // the smallest; the harness names the limit if even it does not fit
}

GEMM_HD LaunchShape launch_shape(const GemmShape& shape, const Config& c) {
  LaunchShape launch;
  launch.grid = {ceil_div(shape.n, c.bn), ceil_div(shape.m, c.bm), 1};  // x walks the columns of C
  launch.block = {threads(c), 1, 1};
  launch.shared_bytes = shared_bytes(c);
  return launch;
}

GEMM_HD int k_tiles(const GemmShape& shape, const Config& c) { return ceil_div(shape.k, c.bk); }

// The pipeline: k-tile kt lives in stage kt % STAGES. The prologue copies k-tiles 0 .. STAGES - 2;
// iteration kt copies k-tile kt + STAGES - 1, into the stage k-tile kt - 1 used. Each k-tile is one
// commit group (empty past the last k-tile, so that group g is always k-tile g), so before reading
// k-tile kt a thread waits until at most STAGES - 2 of its groups are still in flight.
GEMM_HD constexpr int stage_of(int kt, const Config& c) { return kt % c.stages; }
GEMM_HD constexpr int k_tile_copied_in(int kt, const Config& c) { return kt + c.stages - 1; }
GEMM_HD constexpr int groups_in_flight(const Config& c) { return c.stages - 2; }

// A warp's tile: warp w of the block covers rows warp_row * WM .. and columns warp_col * WN ..
GEMM_HD int warp_row(int warp, const Config& c) { return warp / (c.bn / c.wn); }
GEMM_HD int warp_col(int warp, const Config& c) { return warp % (c.bn / c.wn); }

// The stored matrices (rows x row length; the row length is the leading dimension).
struct Stored {
  int rows = 0, cols = 0;
};
GEMM_HD Stored a_stored(const GemmShape& s, Layout layout) { return layout == Layout::tn ? Stored{s.k, s.m} : Stored{s.m, s.k}; }
GEMM_HD Stored b_stored(const GemmShape& s, Layout layout) { return layout == Layout::nt ? Stored{s.n, s.k} : Stored{s.k, s.n}; }

// Copy `index` (< tile_chunks) of an operand's tile at k-tile kt, for the block whose tile starts at
// m or n = `mn_origin`: the chunk of 8 elements it fills (tile_row, tile_col) and where that chunk
// starts in the stored matrix. Consecutive indices run along a stored row, so a warp reads whole
// sectors. Every stored row starts on 16 bytes (the shape rule), so a chunk is wholly inside or
// wholly outside the matrix; one outside is filled with zeros (cp.async with a source size of 0).
struct Copy {
  int tile_row = 0, tile_col = 0;
  int stored_row = 0, stored_col = 0;
  bool inside = false;
};
GEMM_HD Copy copy_at(const OperandTile& t, const Stored& s, const Config& c, int mn_origin, int kt, int index) {
  Copy copy;
  const int per_row = t.cols / kChunk;
  copy.tile_row = index / per_row;
  copy.tile_col = (index % per_row) * kChunk;
  const int k_origin = kt * c.bk;
  copy.stored_row = (t.k_major ? mn_origin : k_origin) + copy.tile_row;
  copy.stored_col = (t.k_major ? k_origin : mn_origin) + copy.tile_col;
  copy.inside = copy.stored_row < s.rows && copy.stored_col < s.cols;
  return copy;
}
GEMM_HD long long copy_source(const Copy& copy, const Stored& s) { return (long long)copy.stored_row * s.cols + copy.stored_col; }
GEMM_HD int copy_destination(const OperandTile& t, const Copy& copy) { return copy.tile_row * tile_stride(t) + copy.tile_col; }

// Where the 16 x 16 fragment of an operand covering m's or n's mn0.. and k's k0.. starts in its
// tile. A k-major tile holds it row by row along k: A's fragment loads as wmma::row_major, B's as
// wmma::col_major; a tile stored the other way holds it row by row along m or n, the other layout.
// Either way the leading dimension is the tile's padded row.
GEMM_HD int fragment_offset(const OperandTile& t, int mn0, int k0) {
  return t.k_major ? mn0 * tile_stride(t) + k0 : k0 * tile_stride(t) + mn0;
}

// The fragments of a warp: fragment (i, j) of warp w covers the 16 x 16 tile of C starting at
// these rows and columns of the block tile.
GEMM_HD int fragment_row(int warp, const Config& c, int i) { return warp_row(warp, c) * c.wm + i * kFragment; }
GEMM_HD int fragment_col(int warp, const Config& c, int j) { return warp_col(warp, c) * c.wn + j * kFragment; }

// The C element lane `lane` handles in round r of the epilogue: the warp reads its 16 x 16 staging
// tile row by row (element e = lane + 32 r, two rows of 16 per round) and writes C at that spot.
constexpr int kStageRounds = kFragment * kFragment / kWarpSize;
GEMM_HD int stage_element(int lane, int round) { return lane + round * kWarpSize; }

// What the compiler makes of wmma here (CUDA 13.0 for sm_90, seen in the SASS; as in step 12, see
// its mapping.hpp). For f16 inputs, load_matrix_sync of a 16 x 16 fragment is one ldmatrix.x4
// (LDSM), .trans where the tile runs the other way from the fragment's registers: A stored m by k
// and B stored n by k are plain, A stored k by m and B stored k by n are .trans. Each of its four
// 8 x 8 matrices is 8 tile rows of 16 bytes; the trace gives lane l row l % 16 and 8 elements from
// (l / 16) * 8 of the fragment's 16 x 16 block of the tile. store_matrix_sync of an f32
// accumulator is four 8-byte stores in the accumulator layout of mma.m16n8k16. The trace lists this
// f16 code (the profiler comparison runs f16). For bf16 inputs the same calls compile otherwise:
// four generic 4-byte loads (LD) per fragment, and a register transpose (MOVM) per register where
// ldmatrix would take .trans.
GEMM_HD int wmma_load_row(int lane) { return lane % kFragment; }
GEMM_HD int wmma_load_col(int lane) { return (lane / kFragment) * kChunk; }
constexpr int kStagingStores = 4;  // per store_matrix_sync: 2 row halves x 2 column halves
GEMM_HD int wmma_store_element(int lane, int store) {
  const int row = lane / 4 + (store / 2) * 8, col = 2 * (lane % 4) + (store % 2) * 8;
  return row * kFragment + col;
}

// The kernel's copies go around the L1 (cp.async.cg in kernel.cuh); the access model prices them so.
constexpr bool kCopyBypassesL1 = true;

// The instructions of one warp, for the default output type (f32), as the kernel issues them: the
// copies of k-tiles 0 .. STAGES - 2 (the prologue); then per k-tile kt the copies of k-tile
// kt + STAGES - 1, listed under kt, when it exists (each cp.async as a 16-byte global read, lanes
// outside the matrix reading nothing, and a 16-byte shared write, zeros outside), and per 16 k's the
// fragment loads; per fragment of C its staging stores, the lanes' reads of the staging tile and the
// C updates. Shared addresses are elements of the one dynamic buffer: stage s at
// s * stage_elements, A's tile then B's; the staging tiles after the STAGES stages.
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
  const int first_thread = warp * kWarpSize;
  const int tiles = k_tiles(s, c), stage_size = stage_elements(layout, c);
  auto copies = [&](int kt) {
    const int stage = stage_of(kt, c) * stage_size;
    auto operand = [&](const OperandTile& t, const Stored& stored, int origin, Operand global, Operand shared, int base,
                       const char* read, const char* write) {
      for (int round = 0; round < ceil_div(tile_chunks(t), threads(c)); ++round) {
        std::array<Copy, kWarpSize> copy{};
        std::uint32_t exists = 0, inside = 0;
        for (int lane = 0; lane < kWarpSize; ++lane) {
          const int index = first_thread + lane + round * threads(c);
          if (index >= tile_chunks(t)) continue;
          exists |= 1u << lane;
          copy[size_t(lane)] = copy_at(t, stored, c, origin, kt, index);
          if (copy[size_t(lane)].inside) inside |= 1u << lane;
        }
        if (!exists) continue;
        gemm::emit_async_copy(
            emit, kCopyBypassesL1,
            gemm::make_instruction(Space::global, Access::load, global, 16, kt, read, inside,
                                   [&](int lane) { return copy_source(copy[size_t(lane)], stored); }, kElementBytes),
            gemm::make_instruction(Space::shared, Access::store, shared, 16, kt, write, exists,
                                   [&](int lane) { return base + copy_destination(t, copy[size_t(lane)]); },
                                   kElementBytes));
      }
    };
    operand(ta, sa, block.y * c.bm, Operand::A, Operand::smem_A, stage, "cp.async 16 B: A chunk (global read)",
            "cp.async 16 B: A chunk -> a_tile row (shared write)");
    operand(tb, sb, block.x * c.bn, Operand::B, Operand::smem_B, stage + tile_elements(ta),
            "cp.async 16 B: B chunk (global read)", "cp.async 16 B: B chunk -> b_tile row (shared write)");
  };
  for (int kt = 0; kt < k_tile_copied_in(0, c) && kt < tiles; ++kt) copies(kt);  // the prologue
  constexpr std::uint32_t kEveryLane = 0xffffffffu;
  auto fragment_load = [&](const OperandTile& t, int base, int mn0, int k0, int kt, const char* label) {
    emit(gemm::make_instruction(Space::shared, Access::load, &t == &ta ? Operand::smem_A : Operand::smem_B, 16, kt,
                                label, kEveryLane,
                                [&](int lane) {
                                  return base + fragment_offset(t, mn0, k0) + wmma_load_row(lane) * tile_stride(t) +
                                         wmma_load_col(lane);
                                },
                                kElementBytes));
  };
  for (int kt = 0; kt < tiles; ++kt) {
    if (k_tile_copied_in(kt, c) < tiles) copies(k_tile_copied_in(kt, c));
    const int stage = stage_of(kt, c) * stage_size;
    for (int kk = 0; kk < c.bk; kk += kFragment) {  // every warp, every step of the tile (zeros past K)
      for (int i = 0; i < c.wm / kFragment; ++i)
        fragment_load(ta, stage, fragment_row(warp, c, i), kk, kt,
                      ta.k_major ? "load_matrix_sync A (row_major) = ldmatrix.x4"
                                 : "load_matrix_sync A (col_major) = ldmatrix.x4.trans");
      for (int j = 0; j < c.wn / kFragment; ++j)
        fragment_load(tb, stage + tile_elements(ta), fragment_col(warp, c, j), kk, kt,
                      tb.k_major ? "load_matrix_sync B (col_major) = ldmatrix.x4"
                                 : "load_matrix_sync B (row_major) = ldmatrix.x4.trans");
    }
  }
  const int staging = staging_offset_bytes(c) / 4 + warp * kFragment * kFragment;  // in floats
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

// Who holds each element of C at the end of the k-loop, as in step 12: fragment acc[i][j] of warp
// `warp` holds the 16 x 16 tile of C at fragment_row/col; which lane holds which element the WMMA
// API leaves to the compiler (lane -1).
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

}  // namespace step13
