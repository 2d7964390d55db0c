// Step 09, warptiling: the index math, shared by the kernel, the host tests and the viewer.
//
// Step 08 cut the block tile straight into thread tiles: thread t of the block owned thread row
// t / (BN/TN) and thread column t % (BN/TN), so one warp was a strip 2 thread rows high and 16 wide.
// Step 09 adds the level in between that the hardware has anyway, the warp:
//  - the block tile BM x BN is cut into warp tiles WM x WN, one per warp (warp w of the block owns
//    warp row w / (BN/WN), warp column w % (BN/WN));
//  - each warp tile is cut into the 32 lanes' thread tiles, 8 x 4 (or 4 x 8) lane positions, in an
//    order chosen for the banks (lane_row, lane_col below); as in step 08 a lane's TM rows (TN
//    columns) are groups of 4 spread over the warp tile.
// What it changes: a warp's shared loads touch WM values of A and WN values of B per step of the
// inner loop (step 08: 16 and 128), and with the lane order every 16-byte load costs 2 wavefronts
// where step 08's B loads cost 4: a third fewer wavefronts for the same instructions. A warp's
// results are a compact rectangle of C. The global-to-shared copies are step 08's.
#pragma once

#include "dispatch.hpp"
#include "hd.hpp"
#include "tile_copy.hpp"
#include "trace.hpp"
#include "tunables.hpp"

namespace step09 {

using gemm::ceil_div;
using gemm::CElement;
using gemm::GemmShape;
using gemm::LaunchShape;
using gemm::ThreadCoord;

constexpr int kChunk = 4;      // floats per 16-byte access
constexpr int kWarpSize = 32;  // lanes per warp

struct Config {
  int bm, bn, bk;  // block tile
  int wm, wn;      // warp tile
  int tm, tn;      // thread tile
  int min_blocks = 0;  // blocks per SM the compiler must fit (__launch_bounds__); 0: the compiler's choice
  GEMM_HD constexpr bool operator==(const Config& o) const {
    return bm == o.bm && bn == o.bn && bk == o.bk && wm == o.wm && wn == o.wn && tm == o.tm && tn == o.tn &&
           min_blocks == o.min_blocks;
  }
};

// The tunables, each declared here once (--param NAME=value, --help, the results file, the traced
// registry: common/host/tunables.hpp); their values are kConfigs' fields.
inline constexpr gemm::Tunable<Config> kTunables[] = {
    {"BM", &Config::bm, "rows of C per block"},
    {"BN", &Config::bn, "columns of C per block"},
    {"BK", &Config::bk, "depth of the shared tiles"},
    {"WM", &Config::wm, "rows of C per warp"},
    {"WN", &Config::wn, "columns of C per warp"},
    {"TM", &Config::tm, "rows of C per thread"},
    {"TN", &Config::tn, "columns of C per thread (results per thread = TM*TN)"},
    {"MINB", &Config::min_blocks, "blocks per SM the compiler must fit (__launch_bounds__; caps registers)"},
};

GEMM_HD constexpr int warps(const Config& c) { return (c.bm / c.wm) * (c.bn / c.wn); }
GEMM_HD constexpr int threads(const Config& c) { return warps(c) * kWarpSize; }
GEMM_HD constexpr int lanes_n(const Config& c) { return c.wn / c.tn; }  // lane columns in a warp tile
GEMM_HD constexpr int lanes_m(const Config& c) { return c.wm / c.tm; }  // lane rows

// The compiled configurations; the first is the default, the measured best on the H100 (the sweep in
// docs/09-warptiling.md).
constexpr Config kConfigs[] = {
    {128, 128, 16, 64, 32, 8, 8, 2}, {128, 128, 8, 64, 32, 8, 8, 2},  {128, 128, 8, 32, 64, 8, 8, 2},
    {128, 128, 8, 64, 64, 8, 16, 1}, {128, 64, 8, 64, 32, 8, 8, 3},   {64, 128, 8, 32, 64, 8, 8, 3},
    {128, 128, 8, 32, 32, 4, 8, 2},  {128, 256, 8, 64, 64, 8, 16, 1}, {128, 128, 8, 64, 32, 8, 8, 0},
};
constexpr int kConfigCount = int(sizeof(kConfigs) / sizeof(kConfigs[0]));

inline const char* config_rule(const Config& c) {
  if (c.min_blocks < 0 || c.min_blocks > 32)
    return "MINB (blocks per SM for __launch_bounds__) must be 0..32, 0 leaving it to the compiler";
  if (c.bm <= 0 || c.bn <= 0 || c.bk <= 0 || c.wm <= 0 || c.wn <= 0 || c.tm <= 0 || c.tn <= 0)
    return "BM, BN, BK, WM, WN, TM and TN must be positive";
  if (c.bm % c.wm != 0 || c.bn % c.wn != 0) return "BM must be a multiple of WM and BN a multiple of WN";
  if (c.wm % c.tm != 0 || c.wn % c.tn != 0) return "WM must be a multiple of TM and WN a multiple of TN";
  if (!((lanes_m(c) == 8 && lanes_n(c) == 4) || (lanes_m(c) == 4 && lanes_n(c) == 8)))
    return "WM/TM x WN/TN must be 8 x 4 or 4 x 8: one thread tile per lane, in the conflict-free lane order";
  if (c.bk % kChunk != 0 || c.bn % kChunk != 0 || c.tm % kChunk != 0 || c.tn % kChunk != 0)
    return "BK, BN, TM and TN must be multiples of 4 (16-byte accesses)";
  if (threads(c) > 1024) return "(BM/WM)*(BN/WN) warps must be at most 32 (1024 threads)";
  if (gemm::index_of(kConfigs, c) >= 0) return "";
  return "this combination is not compiled in; see the list in steps/09_warptiling/mapping.hpp (--help)";
}

inline Config config_from(const gemm::Params& params) { return gemm::config_from(kTunables, params); }
inline gemm::Params to_params(const Config& c, const gemm::Params& base = {}) {
  return gemm::to_params(kTunables, c, base);
}

GEMM_HD LaunchShape launch_shape(const GemmShape& shape, const Config& c) {
  LaunchShape launch;
  launch.grid = {ceil_div(shape.m, c.bm), ceil_div(shape.n, c.bn), 1};
  launch.block = {threads(c), 1, 1};
  return launch;
}

GEMM_HD bool vector_a(const GemmShape& shape) { return shape.k % kChunk == 0; }
GEMM_HD bool vector_bc(const GemmShape& shape) { return shape.n % kChunk == 0; }

GEMM_HD int k_tiles(const GemmShape& shape, const Config& c) { return ceil_div(shape.k, c.bk); }
GEMM_HD int thread_id(const ThreadCoord& t) { return t.thread.x; }

// The hierarchy: block tile -> warp tile -> lane (thread) tile.
GEMM_HD int warp_id(const ThreadCoord& t) { return thread_id(t) / kWarpSize; }
GEMM_HD int lane_id(const ThreadCoord& t) { return thread_id(t) % kWarpSize; }
GEMM_HD int warp_row(const ThreadCoord& t, const Config& c) { return warp_id(t) / (c.bn / c.wn); }
GEMM_HD int warp_col(const ThreadCoord& t, const Config& c) { return warp_id(t) % (c.bn / c.wn); }
// Where a lane sits in its warp tile. Not row by row: a 16-byte shared load is served in quarter
// warps, and two quarters (lanes 0-15, 16-31) share one pass through the banks only when they read
// different banks (the access model's pairing rule, measured). So each quarter of the warp takes a
// 4 x 2 block of lane positions (2 x 4 when the warp tile is 4 lanes high), and the two quarters of
// each half-warp take blocks that differ in both row and column:
//    quarter 0: long side 0-3, short side 0-1    quarter 1: long side 4-7, short side 2-3
//    quarter 2: long side 0-3, short side 2-3    quarter 3: long side 4-7, short side 0-1
// Every 16-byte load of A and of B then costs 2 wavefronts, the least a 16-byte load can cost.
GEMM_HD int lane_long(int lane) { return ((lane >> 3) & 1) * 4 + ((lane >> 1) & 3); }  // 0..7
GEMM_HD int lane_short(int lane) { return (((lane >> 3) ^ (lane >> 4)) & 1) * 2 + (lane & 1); }  // 0..3
GEMM_HD int lane_row(const ThreadCoord& t, const Config& c) {
  return lanes_m(c) == 8 ? lane_long(lane_id(t)) : lane_short(lane_id(t));
}
GEMM_HD int lane_col(const ThreadCoord& t, const Config& c) {
  return lanes_m(c) == 8 ? lane_short(lane_id(t)) : lane_long(lane_id(t));
}

// Row i (0 <= i < TM) of a thread within the block tile: its warp tile's first row, then group i/4
// of the lane rows (groups are (lane rows) * 4 apart), 4 rows per lane in each group; likewise column j.
GEMM_HD int row_in_tile(const ThreadCoord& t, const Config& c, int i) {
  return warp_row(t, c) * c.wm + (i / kChunk) * (lanes_m(c) * kChunk) + lane_row(t, c) * kChunk + i % kChunk;
}
GEMM_HD int col_in_tile(const ThreadCoord& t, const Config& c, int j) {
  return warp_col(t, c) * c.wn + (j / kChunk) * (lanes_n(c) * kChunk) + lane_col(t, c) * kChunk + j % kChunk;
}

GEMM_HD CElement c_element(const GemmShape& shape, const ThreadCoord& t, const Config& c, int i, int j) {
  CElement e;
  e.row = t.block.x * c.bm + row_in_tile(t, c, i);
  e.col = t.block.y * c.bn + col_in_tile(t, c, j);
  e.valid = e.row < shape.m && e.col < shape.n;
  return e;
}

struct MatrixCoord {
  int row = 0, col = 0;
  bool valid = false;
};

// The global-to-shared copies are step 08's: chunks of 4 floats along a row, chunk
// thread + copy * threads of the tile.
GEMM_HD constexpr int a_chunks(const Config& c) { return c.bm * c.bk / kChunk; }
GEMM_HD constexpr int b_chunks(const Config& c) { return c.bk * c.bn / kChunk; }
GEMM_HD constexpr int a_copies(const Config& c) { return ceil_div(a_chunks(c), threads(c)); }
GEMM_HD constexpr int b_copies(const Config& c) { return ceil_div(b_chunks(c), threads(c)); }
GEMM_HD int chunk_of(const ThreadCoord& t, const Config& c, int copy) { return thread_id(t) + copy * threads(c); }
// Whether copy number `copy` of a thread is part of the tile: always, when the threads divide the
// tile's chunks (the kernel then needs no test: the first term is a compile-time constant there).
GEMM_HD bool a_copy_exists(const ThreadCoord& t, const Config& c, int copy) {
  return a_chunks(c) % threads(c) == 0 || chunk_of(t, c, copy) < a_chunks(c);
}
GEMM_HD bool b_copy_exists(const ThreadCoord& t, const Config& c, int copy) {
  return b_chunks(c) % threads(c) == 0 || chunk_of(t, c, copy) < b_chunks(c);
}

GEMM_HD MatrixCoord a_source(const GemmShape& shape, const ThreadCoord& t, const Config& c, int kt, int copy, int q) {
  const int chunk = chunk_of(t, c, copy), per_row = c.bk / kChunk;
  MatrixCoord m;
  m.row = t.block.x * c.bm + chunk / per_row;
  m.col = kt * c.bk + (chunk % per_row) * kChunk + q;
  m.valid = m.row < shape.m && m.col < shape.k;
  return m;
}
GEMM_HD MatrixCoord b_source(const GemmShape& shape, const ThreadCoord& t, const Config& c, int kt, int copy, int q) {
  const int chunk = chunk_of(t, c, copy), per_row = c.bn / kChunk;
  MatrixCoord m;
  m.row = kt * c.bk + chunk / per_row;
  m.col = t.block.y * c.bn + (chunk % per_row) * kChunk + q;
  m.valid = m.row < shape.k && m.col < shape.n;
  return m;
}
GEMM_HD int a_store_index(const ThreadCoord& t, const Config& c, int copy, int q) {
  const int chunk = chunk_of(t, c, copy), per_row = c.bk / kChunk;
  return ((chunk % per_row) * kChunk + q) * c.bm + chunk / per_row;
}
GEMM_HD int b_store_index(const ThreadCoord& t, const Config& c, int copy) { return chunk_of(t, c, copy) * kChunk; }
GEMM_HD int a_load_index(const ThreadCoord& t, const Config& c, int dot, int i) { return dot * c.bm + row_in_tile(t, c, i); }
GEMM_HD int b_load_index(const ThreadCoord& t, const Config& c, int dot, int j) { return dot * c.bn + col_in_tile(t, c, j); }

GEMM_HD int a_index(const GemmShape& shape, const MatrixCoord& m) { return m.row * shape.k + m.col; }
GEMM_HD int b_index(const GemmShape& shape, const MatrixCoord& m) { return m.row * shape.n + m.col; }
GEMM_HD int c_index(const GemmShape& shape, const CElement& e) { return e.row * shape.n + e.col; }

inline void trace_warp(const gemm::TraceProblem& problem, const gemm::Dim3& block, int warp,
                       const gemm::TraceSink& emit) {
  using gemm::Access;
  using gemm::Operand;
  using gemm::Space;
  const GemmShape& s = problem.shape;
  const Config c = config_from(problem.params);
  const gemm::WarpLanes lanes = gemm::warp_lanes(launch_shape(s, c).block, block, warp);
  auto coord = [&](int lane) { return lanes.coord[size_t(lane)]; };
  auto mask = [&](auto predicate) { return gemm::lane_mask(lanes, predicate); };
  const int chunk_width = 4 * kChunk;
  for (int kt = 0; kt < k_tiles(s, c); ++kt) {
    for (int copy = 0; copy < a_copies(c); ++copy) {
      const auto exists = [&](const ThreadCoord& t) { return a_copy_exists(t, c, copy); };
      if (vector_a(s)) {
        emit(gemm::make_instruction(Space::global, Access::load, Operand::A, chunk_width, kt, "ld.global.v4 A chunk",
                                    lanes.exists,
                                    [&](int lane) {
                                      const MatrixCoord from = a_source(s, coord(lane), c, kt, copy, 0);
                                      return gemm::load_index(a_index(s, from), from.valid && exists(coord(lane)));
                                    }));
      } else {
        for (int q = 0; q < kChunk; ++q)
          emit(gemm::make_instruction(Space::global, Access::load, Operand::A, 4, kt, "ld.global A element (K % 4 != 0)",
                                      lanes.exists,
                                      [&](int lane) {
                                        const MatrixCoord from = a_source(s, coord(lane), c, kt, copy, q);
                                        return gemm::load_index(a_index(s, from), from.valid && exists(coord(lane)));
                                      }));
      }
      for (int q = 0; q < kChunk; ++q)
        emit(gemm::make_instruction(Space::shared, Access::store, Operand::smem_A, 4, kt, "st.shared A tile, transposed",
                                    mask(exists), [&](int lane) { return a_store_index(coord(lane), c, copy, q); }));
    }
    for (int copy = 0; copy < b_copies(c); ++copy) {
      const auto exists = [&](const ThreadCoord& t) { return b_copy_exists(t, c, copy); };
      if (vector_bc(s)) {
        emit(gemm::make_instruction(Space::global, Access::load, Operand::B, chunk_width, kt, "ld.global.v4 B chunk",
                                    lanes.exists,
                                    [&](int lane) {
                                      const MatrixCoord from = b_source(s, coord(lane), c, kt, copy, 0);
                                      return gemm::load_index(b_index(s, from), from.valid && exists(coord(lane)));
                                    }));
      } else {
        for (int q = 0; q < kChunk; ++q)
          emit(gemm::make_instruction(Space::global, Access::load, Operand::B, 4, kt, "ld.global B element (N % 4 != 0)",
                                      lanes.exists,
                                      [&](int lane) {
                                        const MatrixCoord from = b_source(s, coord(lane), c, kt, copy, q);
                                        return gemm::load_index(b_index(s, from), from.valid && exists(coord(lane)));
                                      }));
      }
      emit(gemm::make_instruction(Space::shared, Access::store, Operand::smem_B, chunk_width, kt, "st.shared.v4 B chunk",
                                  mask(exists), [&](int lane) { return b_store_index(coord(lane), c, copy); }));
    }
    for (int dot = 0; dot < c.bk; ++dot) {
      for (int i = 0; i < c.tm; i += kChunk)
        emit(gemm::make_instruction(Space::shared, Access::load, Operand::smem_A, chunk_width, kt,
                                    "ld.shared.v4 A tile_t [dot][rows i..i+3]", lanes.exists,
                                    [&](int lane) { return a_load_index(coord(lane), c, dot, i); }));
      for (int j = 0; j < c.tn; j += kChunk)
        emit(gemm::make_instruction(Space::shared, Access::load, Operand::smem_B, chunk_width, kt,
                                    "ld.shared.v4 B tile [dot][cols j..j+3]", lanes.exists,
                                    [&](int lane) { return b_load_index(coord(lane), c, dot, j); }));
    }
  }
  for (int i = 0; i < c.tm; ++i)
    for (int j = 0; j < c.tn; j += (vector_bc(s) ? kChunk : 1)) {
      const std::uint32_t active = mask([&](const ThreadCoord& t) { return c_element(s, t, c, i, j).valid; });
      gemm::emit_c_update(problem, vector_bc(s) ? chunk_width : 4, k_tiles(s, c), active,
                          [&](int lane) { return c_index(s, c_element(s, coord(lane), c, i, j)); }, emit);
    }
}

}  // namespace step09
