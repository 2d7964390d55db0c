// Step 08, vectorized: the index math, shared by the kernel, the host tests and the viewer.
//
// Step 07's tiling, with the memory instructions made wide:
//  - global loads of A and B are 16-byte loads of 4 consecutive floats (a "chunk") when the rows
//    allow it: A when K % 4 == 0, B (and C) when N % 4 == 0; otherwise 4 scalar loads. With BK a
//    multiple of 4 a chunk is then either wholly inside the matrix or wholly outside (zero-filled);
//  - the A tile is stored TRANSPOSED in shared memory (a_tile_t[k][m]), so that a thread's TM values
//    of A for one k are contiguous, like its TN values of B: both are read with 16-byte loads;
//  - a thread's TM rows (TN columns) are not contiguous: they are groups of 4, one group in each
//    (TM / 4)-th of the block tile (its halves at TM = 8). Across a warp, a 16-byte shared load then reads
//    consecutive 16-byte slots (no bank conflict) where contiguous 8-wide thread tiles would put
//    lanes 32 bytes apart (a 2-way conflict);
//  - C is written with 16-byte stores when N % 4 == 0, consecutive across each row of threads of the
//    warp.
#pragma once

#include "dispatch.hpp"
#include "hd.hpp"
#include "tile_copy.hpp"
#include "trace.hpp"
#include "tunables.hpp"

namespace step08 {

using gemm::ceil_div;
using gemm::CElement;
using gemm::GemmShape;
using gemm::LaunchShape;
using gemm::ThreadCoord;

constexpr int kChunk = 4;  // floats per 16-byte access

struct Config {
  int bm, bn, bk, tm, tn;
  int min_blocks = 0;  // blocks per SM the compiler must fit (__launch_bounds__); 0: the compiler's choice
  GEMM_HD constexpr bool operator==(const Config& o) const {
    return bm == o.bm && bn == o.bn && bk == o.bk && tm == o.tm && tn == o.tn && min_blocks == o.min_blocks;
  }
};

// The tunables, each declared here once (--param NAME=value, --help, the results file, the traced
// registry: common/host/tunables.hpp); their values are kConfigs' fields.
inline constexpr gemm::Tunable<Config> kTunables[] = {
    {"BM", &Config::bm, "rows of C per block"},
    {"BN", &Config::bn, "columns of C per block"},
    {"BK", &Config::bk, "depth of the shared tiles"},
    {"TM", &Config::tm, "rows of C per thread"},
    {"TN", &Config::tn, "columns of C per thread (results per thread = TM*TN)"},
    {"MINB", &Config::min_blocks, "blocks per SM the compiler must fit (__launch_bounds__; caps registers)"},
};

GEMM_HD constexpr int threads(const Config& c) { return (c.bm / c.tm) * (c.bn / c.tn); }

// The compiled configurations; the first is the default, the measured best on the H100 (the sweep in
// docs/08-vectorized.md).
constexpr Config kConfigs[] = {
    {128, 128, 16, 8, 8, 1}, {128, 128, 8, 8, 8, 2}, {128, 64, 8, 4, 4, 2}, {64, 64, 8, 4, 4, 4},
    {128, 128, 8, 8, 4, 1},  {128, 64, 16, 4, 4, 2}, {64, 128, 8, 4, 8, 2},
};
constexpr int kConfigCount = int(sizeof(kConfigs) / sizeof(kConfigs[0]));

inline const char* config_rule(const Config& c) {
  if (c.min_blocks < 0 || c.min_blocks > 32)
    return "MINB (blocks per SM for __launch_bounds__) must be 0..32, 0 leaving it to the compiler";
  if (c.bm <= 0 || c.bn <= 0 || c.bk <= 0 || c.tm <= 0 || c.tn <= 0) return "BM, BN, BK, TM and TN must be positive";
  if (c.bm % c.tm != 0 || c.bn % c.tn != 0) return "BM must be a multiple of TM and BN a multiple of TN";
  if (c.bk % kChunk != 0 || c.bn % kChunk != 0 || c.tm % kChunk != 0 || c.tn % kChunk != 0)
    return "BK, BN, TM and TN must be multiples of 4 (16-byte accesses)";
  if (threads(c) % 32 != 0 || threads(c) > 1024)
    return "(BM/TM)*(BN/TN) threads must be a multiple of 32 and at most 1024";
  if (gemm::index_of(kConfigs, c) >= 0) return "";
  return "this combination is not compiled in; see the list in steps/08_vectorized/mapping.hpp (--help)";
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

// Whether the 16-byte paths apply (uniform over the launch): rows of A, B and C must start on 16 bytes.
GEMM_HD bool vector_a(const GemmShape& shape) { return shape.k % kChunk == 0; }
GEMM_HD bool vector_bc(const GemmShape& shape) { return shape.n % kChunk == 0; }

GEMM_HD int k_tiles(const GemmShape& shape, const Config& c) { return ceil_div(shape.k, c.bk); }
GEMM_HD int thread_id(const ThreadCoord& t) { return t.thread.x; }
GEMM_HD int thread_col(const ThreadCoord& t, const Config& c) { return thread_id(t) % (c.bn / c.tn); }
GEMM_HD int thread_row(const ThreadCoord& t, const Config& c) { return thread_id(t) / (c.bn / c.tn); }

// Row i (0 <= i < TM) of a thread within the block tile: group i/4 of the thread rows, 4 rows per
// thread in each group; likewise column j. Groups are (threads along that side) * 4 apart.
GEMM_HD int row_in_tile(const ThreadCoord& t, const Config& c, int i) {
  return (i / kChunk) * ((c.bm / c.tm) * kChunk) + thread_row(t, c) * kChunk + i % kChunk;
}
GEMM_HD int col_in_tile(const ThreadCoord& t, const Config& c, int j) {
  return (j / kChunk) * ((c.bn / c.tn) * kChunk) + thread_col(t, c) * kChunk + j % kChunk;
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

// Tiles are copied in chunks of 4 floats along a row: copy `copy` of a thread is chunk
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

// Element q (0..3) of a thread's A chunk: A(block row + r, kt*BK + 4*cc + q), r = chunk / (BK/4).
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
// The transposed A tile a_tile_t[BK][BM]: element q of the chunk (row r = chunk / (BK/4) of the A
// tile, piece cc = chunk % (BK/4) of that row) goes to row (k) 4*cc + q, column r.
GEMM_HD int a_store_index(const ThreadCoord& t, const Config& c, int copy, int q) {
  const int chunk = chunk_of(t, c, copy), per_row = c.bk / kChunk;
  return ((chunk % per_row) * kChunk + q) * c.bm + chunk / per_row;
}
// The B tile b_tile[BK][BN], stored as it is in B: the chunk lands on 4 consecutive words.
GEMM_HD int b_store_index(const ThreadCoord& t, const Config& c, int copy) { return chunk_of(t, c, copy) * kChunk; }
// Inner loop step `dot`: a thread's values of A and B, 4 contiguous words per group.
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

}  // namespace step08
