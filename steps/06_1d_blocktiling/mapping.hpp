// Step 06, 1D block tiling: the index math, shared by the kernel, the host tests and the viewer.
//
// A block computes a BM x BN tile of C with BM*BN/TM threads; each thread computes TM elements of one
// column of C (rows thread_row*TM .. +TM-1). K is walked in tiles of BK: the block copies a BM x BK
// tile of A and a BK x BN tile of B into shared memory (each thread copies every threads-th element),
// then a thread loads its BK values of the B tile (its column) into registers once and uses each
// for TM multiply-adds, one row of its A tile at a time. Shared words read per multiply-add drop from 2 (step 05) to 1 + 1/TM; since the
// compiler loads A four words at a time (kAWordsPerLoad), load instructions per FFMA drop from 1.25
// (step 05) to 1/4 + 1/TM.
#pragma once

#include "dispatch.hpp"
#include "hd.hpp"
#include "tile_copy.hpp"
#include "trace.hpp"
#include "tunables.hpp"

namespace step06 {

using gemm::ceil_div;
using gemm::CElement;
using gemm::GemmShape;
using gemm::LaunchShape;
using gemm::ThreadCoord;

struct Config {
  int bm, bn, bk, tm;
  int min_blocks = 0;  // blocks per SM the compiler must fit (__launch_bounds__); 0: the compiler's choice
  GEMM_HD constexpr bool operator==(const Config& o) const {
    return bm == o.bm && bn == o.bn && bk == o.bk && tm == o.tm && min_blocks == o.min_blocks;
  }
};

// The tunables, each declared here once (--param NAME=value, --help, the results file, the traced
// registry: common/host/tunables.hpp); their values are kConfigs' fields.
inline constexpr gemm::Tunable<Config> kTunables[] = {
    {"BM", &Config::bm, "rows of C per block"},
    {"BN", &Config::bn, "columns of C per block"},
    {"BK", &Config::bk, "depth of the shared tiles"},
    {"TM", &Config::tm, "rows of C per thread (results per thread)"},
    {"MINB", &Config::min_blocks, "blocks per SM the compiler must fit (__launch_bounds__; caps registers)"},
};

GEMM_HD constexpr int threads(const Config& c) { return c.bm * c.bn / c.tm; }

// The compiled configurations (--param BM, BN, BK, TM, MINB choose one). The first is the default,
// the measured best on the H100 (the sweep in docs/06-1d-blocktiling.md); the others span TM = 2..32
// results per thread, tile shapes and occupancy targets.
constexpr Config kConfigs[] = {
    {64, 64, 8, 32, 1},  {64, 64, 8, 8, 0},  {64, 64, 8, 8, 1},   {64, 64, 8, 8, 2},   {32, 64, 8, 2, 2},  {64, 64, 8, 4, 2},
    {64, 64, 8, 16, 2},  {128, 64, 8, 16, 1}, {64, 128, 8, 8, 1}, {128, 64, 8, 8, 1},  {64, 32, 8, 8, 4},  {128, 32, 8, 8, 2},
    {32, 128, 8, 8, 2},  {64, 64, 16, 8, 2}, {64, 64, 16, 8, 0},  {64, 64, 8, 8, 3},   {64, 64, 8, 8, 4},  {128, 64, 8, 16, 0},
};
constexpr int kConfigCount = int(sizeof(kConfigs) / sizeof(kConfigs[0]));

// "" when the configuration is one the step can run, else the rule it breaks.
inline const char* config_rule(const Config& c) {
  if (c.min_blocks < 0 || c.min_blocks > 32)
    return "MINB (blocks per SM for __launch_bounds__) must be 0..32, 0 leaving it to the compiler";
  if (c.bm <= 0 || c.bn <= 0 || c.bk <= 0 || c.tm <= 0) return "BM, BN, BK and TM must be positive";
  if (c.bm % c.tm != 0) return "BM must be a multiple of TM (each thread owns TM whole rows)";
  if (threads(c) % 32 != 0 || threads(c) > 1024) return "BM*BN/TM threads must be a multiple of 32 and at most 1024";
  if (gemm::index_of(kConfigs, c) >= 0) return "";
  return "this combination is not compiled in; see the list in steps/06_1d_blocktiling/mapping.hpp (--help)";
}

GEMM_HD LaunchShape launch_shape(const GemmShape& shape, const Config& c) {
  LaunchShape launch;
  launch.grid = {ceil_div(shape.m, c.bm), ceil_div(shape.n, c.bn), 1};
  launch.block = {threads(c), 1, 1};
  launch.shared_bytes = 0;  // static shared memory: (BM*BK + BK*BN) floats
  return launch;
}

GEMM_HD int k_tiles(const GemmShape& shape, const Config& c) { return ceil_div(shape.k, c.bk); }
GEMM_HD int thread_id(const ThreadCoord& t) { return t.thread.x; }
// Consecutive threads take consecutive columns of C: a warp shares thread_row, so its A-tile reads
// are broadcasts and its B-tile reads are 32 consecutive words.
GEMM_HD int thread_col(const ThreadCoord& t, const Config& c) { return thread_id(t) % c.bn; }
GEMM_HD int thread_row(const ThreadCoord& t, const Config& c) { return thread_id(t) / c.bn; }

// Result i (0 <= i < TM) of a thread.
GEMM_HD CElement c_element(const GemmShape& shape, const ThreadCoord& t, const Config& c, int i) {
  CElement e;
  e.row = t.block.x * c.bm + thread_row(t, c) * c.tm + i;
  e.col = t.block.y * c.bn + thread_col(t, c);
  e.valid = e.row < shape.m && e.col < shape.n;
  return e;
}

struct MatrixCoord {
  int row = 0, col = 0;
  bool valid = false;
};

// Copy number `copy` of a thread at k-tile kt: tile element idx = thread + copy * threads.
GEMM_HD constexpr int a_copies(const Config& c) { return ceil_div(c.bm * c.bk, threads(c)); }
GEMM_HD constexpr int b_copies(const Config& c) { return ceil_div(c.bk * c.bn, threads(c)); }
GEMM_HD int copy_element(const ThreadCoord& t, const Config& c, int copy) { return thread_id(t) + copy * threads(c); }
// Whether copy number `copy` of a thread is part of the tile: always, when the threads divide the tile
// (the kernel then needs no test: the first term is a compile-time constant there).
GEMM_HD bool a_copy_exists(const ThreadCoord& t, const Config& c, int copy) {
  return (c.bm * c.bk) % threads(c) == 0 || copy_element(t, c, copy) < c.bm * c.bk;
}
GEMM_HD bool b_copy_exists(const ThreadCoord& t, const Config& c, int copy) {
  return (c.bk * c.bn) % threads(c) == 0 || copy_element(t, c, copy) < c.bk * c.bn;
}
// A tile: BM x BK row-major; B tile: BK x BN row-major. Store index = the tile element itself.
GEMM_HD MatrixCoord a_tile_source(const GemmShape& shape, const ThreadCoord& t, const Config& c, int kt, int copy) {
  const int idx = copy_element(t, c, copy);
  MatrixCoord m;
  m.row = t.block.x * c.bm + idx / c.bk;
  m.col = kt * c.bk + idx % c.bk;
  m.valid = m.row < shape.m && m.col < shape.k;
  return m;
}
GEMM_HD MatrixCoord b_tile_source(const GemmShape& shape, const ThreadCoord& t, const Config& c, int kt, int copy) {
  const int idx = copy_element(t, c, copy);
  MatrixCoord m;
  m.row = kt * c.bk + idx / c.bn;
  m.col = t.block.y * c.bn + idx % c.bn;
  m.valid = m.row < shape.k && m.col < shape.n;
  return m;
}
// A thread's BK values of B (its column), loaded once per k-tile; then, for each row i, the BK
// values of that row of its A tile.
GEMM_HD int b_tile_load_index(const ThreadCoord& t, const Config& c, int dot) { return dot * c.bn + thread_col(t, c); }
GEMM_HD int a_tile_load_index(const ThreadCoord& t, const Config& c, int dot, int i) {
  return (thread_row(t, c) * c.tm + i) * c.bk + dot;
}

GEMM_HD int a_index(const GemmShape& shape, const MatrixCoord& m) { return m.row * shape.k + m.col; }
GEMM_HD int b_index(const GemmShape& shape, const MatrixCoord& m) { return m.row * shape.n + m.col; }
GEMM_HD int c_index(const GemmShape& shape, const CElement& e) { return e.row * shape.n + e.col; }

// How the compiler emits the inner loop (checked with the profiler's instruction counts): for each
// result row i, the BK words A tile[row i][0 .. BK-1] are contiguous and 16-byte aligned, so they
// are loaded 4 at a time (LDS.128); B is loaded once per k-tile, BK words, before the rows.
constexpr int kAWordsPerLoad = 4;

inline Config config_from(const gemm::Params& params) { return gemm::config_from(kTunables, params); }
inline gemm::Params to_params(const Config& c, const gemm::Params& base = {}) {
  return gemm::to_params(kTunables, c, base);
}

// One warp's memory instructions per k-tile, from the functions above.
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
  for (int kt = 0; kt < k_tiles(s, c); ++kt) {
    for (int copy = 0; copy < a_copies(c); ++copy) {
      const auto exists = [&](const ThreadCoord& t) { return a_copy_exists(t, c, copy); };
      emit(gemm::make_instruction(Space::global, Access::load, Operand::A, 4, kt, "ld.global A tile element",
                                  lanes.exists,
                                  [&](int lane) {
                                    const MatrixCoord from = a_tile_source(s, coord(lane), c, kt, copy);
                                    return gemm::load_index(a_index(s, from), from.valid && exists(coord(lane)));
                                  }));
      emit(gemm::make_instruction(Space::shared, Access::store, Operand::smem_A, 4, kt, "st.shared A tile", mask(exists),
                                  [&](int lane) { return copy_element(coord(lane), c, copy); }));
    }
    for (int copy = 0; copy < b_copies(c); ++copy) {
      const auto exists = [&](const ThreadCoord& t) { return b_copy_exists(t, c, copy); };
      emit(gemm::make_instruction(Space::global, Access::load, Operand::B, 4, kt, "ld.global B tile element",
                                  lanes.exists,
                                  [&](int lane) {
                                    const MatrixCoord from = b_tile_source(s, coord(lane), c, kt, copy);
                                    return gemm::load_index(b_index(s, from), from.valid && exists(coord(lane)));
                                  }));
      emit(gemm::make_instruction(Space::shared, Access::store, Operand::smem_B, 4, kt, "st.shared B tile", mask(exists),
                                  [&](int lane) { return copy_element(coord(lane), c, copy); }));
    }
    // In the kernel's order: the thread's B values first, then its A tile row by row.
    for (int dot = 0; dot < c.bk; ++dot)
      emit(gemm::make_instruction(Space::shared, Access::load, Operand::smem_B, 4, kt, "ld.shared B tile [dot][col]",
                                  lanes.exists, [&](int lane) { return b_tile_load_index(coord(lane), c, dot); }));
    for (int i = 0; i < c.tm; ++i)
      for (int dot = 0; dot < c.bk; dot += kAWordsPerLoad)
        emit(gemm::make_instruction(Space::shared, Access::load, Operand::smem_A, 4 * kAWordsPerLoad, kt,
                                    "ld.shared.v4 A tile [row i][dot..dot+3]", lanes.exists,
                                    [&](int lane) { return a_tile_load_index(coord(lane), c, dot, i); }));
  }
  for (int i = 0; i < c.tm; ++i) {
    const std::uint32_t active = mask([&](const ThreadCoord& t) { return c_element(s, t, c, i).valid; });
    gemm::emit_c_update(problem, 4, k_tiles(s, c), active,
                        [&](int lane) { return c_index(s, c_element(s, coord(lane), c, i)); }, emit);
  }
}

}  // namespace step06
