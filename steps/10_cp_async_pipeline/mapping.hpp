// Step 10, a cp.async pipeline: the index math, shared by the kernel, the host tests and the viewer.
//
// Step 09's warp tiles, fed by a pipeline. Until now every k-tile went global -> registers ->
// shared memory -> __syncthreads -> compute, and while a block waited for its loads its warps had
// nothing else to do. Here the copies are cp.async (sm_80+): the hardware moves global memory
// straight into shared memory without passing through registers, the thread does not wait for it,
// and the shared tiles come in STAGES buffers: while the warps compute on stage kt % STAGES, the
// copies of k-tiles kt + 1 .. kt + STAGES - 2 are in flight, and kt + STAGES - 1 goes out at the
// end of kt.
//
// What cp.async changes in the mapping: it copies 4, 8 or 16 bytes as they are, it cannot transpose
// a 16-byte chunk. So
//  - A (transposed into a_tile_t[k][m] as in step 08) is copied one float at a time: a warp copies
//    8 consecutive k (one 32-byte sector) of 4 rows, and the tile's rows are padded to BM + 4 floats,
//    which puts the warp's 32 stores in 32 different banks (bank = 4k + row, mod 32);
//  - B keeps 16-byte copies when N % 4 == 0; otherwise element by element, lanes along a row;
//  - cp.async's source-size operand fills a copy that falls outside the matrix with zeros, so the
//    ragged edges need no branch around the copy.
#pragma once

#include "dispatch.hpp"
#include "gpu_limits.hpp"
#include "hd.hpp"
#include "trace.hpp"
#include "tunables.hpp"

namespace step10 {

using gemm::ceil_div;
using gemm::CElement;
using gemm::GemmShape;
using gemm::LaunchShape;
using gemm::ThreadCoord;

constexpr int kChunk = 4;        // floats per 16-byte access
constexpr int kWarpSize = 32;    // lanes per warp
constexpr int kSectorFloats = 8; // floats in a 32-byte sector: the k-run a warp copies of one A row
constexpr int kRowsPerWarpCopy = kWarpSize / kSectorFloats;  // rows of A one warp-wide copy covers
constexpr int kAPad = 4;         // floats added to each row of a_tile_t (keeps rows 16-byte aligned)

struct Config {
  int bm, bn, bk;  // block tile
  int wm, wn;      // warp tile
  int tm, tn;      // thread tile
  int stages;      // shared-memory buffers in the pipeline
  int min_blocks = 0;  // blocks per SM the compiler must fit (__launch_bounds__); 0: the compiler's choice
  GEMM_HD constexpr bool operator==(const Config& o) const {
    return bm == o.bm && bn == o.bn && bk == o.bk && wm == o.wm && wn == o.wn && tm == o.tm && tn == o.tn &&
           stages == o.stages && min_blocks == o.min_blocks;
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
    {"STAGES", &Config::stages, "shared-memory buffers in the pipeline (3..8: one read, one landed, the rest in flight)"},
    {"MINB", &Config::min_blocks, "blocks per SM the compiler must fit (__launch_bounds__; caps registers)"},
};

GEMM_HD constexpr int warps(const Config& c) { return (c.bm / c.wm) * (c.bn / c.wn); }
GEMM_HD constexpr int threads(const Config& c) { return warps(c) * kWarpSize; }
GEMM_HD constexpr int lanes_n(const Config& c) { return c.wn / c.tn; }
GEMM_HD constexpr int lanes_m(const Config& c) { return c.wm / c.tm; }

// One stage of shared memory: the transposed, padded A tile, then the B tile.
GEMM_HD constexpr int a_tile_stride(const Config& c) { return c.bm + kAPad; }
GEMM_HD constexpr int a_stage_floats(const Config& c) { return c.bk * a_tile_stride(c); }
GEMM_HD constexpr int b_stage_floats(const Config& c) { return c.bk * c.bn; }
GEMM_HD constexpr int stage_floats(const Config& c) { return a_stage_floats(c) + b_stage_floats(c); }
GEMM_HD constexpr int shared_bytes(const Config& c) { return c.stages * stage_floats(c) * 4; }

// The compiled configurations; the first is the default, the measured best on the H100 (the sweep in
// docs/11-split-k-tail.md), the second its transpose for the choice by shape (kTallConfig).
constexpr Config kConfigs[] = {
    {128, 256, 16, 32, 128, 8, 16, 3, 1}, {256, 128, 8, 64, 64, 16, 8, 3, 1},  {128, 256, 8, 64, 64, 8, 16, 3, 1},
    {256, 128, 16, 64, 64, 16, 8, 3, 1},  {128, 256, 16, 64, 64, 8, 16, 4, 1}, {128, 256, 32, 64, 64, 8, 16, 3, 1},
    {128, 256, 16, 64, 64, 8, 16, 3, 1},
    {128, 128, 16, 64, 32, 8, 8, 3, 0},   {64, 128, 8, 32, 64, 8, 8, 4, 3},    {128, 64, 8, 64, 32, 8, 8, 4, 3},
};
constexpr int kConfigCount = int(sizeof(kConfigs) / sizeof(kConfigs[0]));

// The default's transpose: the same work per block, cut 256 x 128 instead of 128 x 256. Only the
// block and thread tiles decide the waves; its depth is its own (BK = 8 measured faster than 16 at
// 4095 x 4097 x 4093, where N is odd and B is copied a float at a time).
constexpr int kTallConfig = 1;
static_assert(kConfigs[kTallConfig].bm == kConfigs[0].bn && kConfigs[kTallConfig].bn == kConfigs[0].bm &&
                  kConfigs[kTallConfig].tm == kConfigs[0].tn && kConfigs[kTallConfig].tn == kConfigs[0].tm,
              "kTallConfig must be the default with its block and thread tiles transposed");

inline const char* config_rule(const Config& c) {
  if (c.min_blocks < 0 || c.min_blocks > 32)
    return "MINB (blocks per SM for __launch_bounds__) must be 0..32, 0 leaving it to the compiler";
  if (c.bm <= 0 || c.bn <= 0 || c.bk <= 0 || c.wm <= 0 || c.wn <= 0 || c.tm <= 0 || c.tn <= 0)
    return "BM, BN, BK, WM, WN, TM and TN must be positive";
  if (c.stages < 3 || c.stages > 8)
    return "STAGES must be 3..8: the stage being read, the next one landed, at least one in flight";
  if (c.bm % c.wm != 0 || c.bn % c.wn != 0) return "BM must be a multiple of WM and BN a multiple of WN";
  if (c.wm % c.tm != 0 || c.wn % c.tn != 0) return "WM must be a multiple of TM and WN a multiple of TN";
  if (!((lanes_m(c) == 8 && lanes_n(c) == 4) || (lanes_m(c) == 4 && lanes_n(c) == 8)))
    return "WM/TM x WN/TN must be 8 x 4 or 4 x 8: one thread tile per lane, in the conflict-free lane order";
  if (c.bn % kChunk != 0 || c.tm % kChunk != 0 || c.tn % kChunk != 0)
    return "BN, TM and TN must be multiples of 4 (16-byte accesses)";
  if (c.bk % kSectorFloats != 0 || c.bm % kWarpSize != 0)
    return "BK must be a multiple of 8 and BM of 32 (the conflict-free copy of A)";
  if (threads(c) > 1024) return "(BM/WM)*(BN/WN) warps must be at most 32 (1024 threads)";
  if ((threads(c) / kWarpSize) % (c.bk / kSectorFloats) != 0 || (c.bm * c.bk) % threads(c) != 0)
    return "the threads must copy the A tile in whole rounds: warps a multiple of BK/8, BM*BK a multiple of threads";
  if (threads(c) % c.bn != 0 || (c.bk * c.bn / kChunk) % threads(c) != 0)
    return "the threads must copy the B tile in whole rounds: threads a multiple of BN, BK*BN/4 of threads";
  if (gemm::index_of(kConfigs, c) >= 0) return "";
  return "this combination is not compiled in; see the list in steps/10_cp_async_pipeline/mapping.hpp (--help)";
}

inline Config config_from(const gemm::Params& params) { return gemm::config_from(kTunables, params); }

// The tiles of C, cut BM x BN, one block each: the tile row in blockIdx.x, so that blocks that run at
// the same time share their tile of B and walk down A.
GEMM_HD gemm::Dim3 tile_grid(const GemmShape& shape, const Config& c) {
  return {ceil_div(shape.m, c.bm), ceil_div(shape.n, c.bn), 1};
}
GEMM_HD int tile_count(const GemmShape& shape, const Config& c) {
  const gemm::Dim3 g = tile_grid(shape, c);
  return g.x * g.y;
}

// Waves of blocks a launch takes on `sms` multiprocessors: these kernels fit MINB blocks per SM (one
// for the default and its transpose, which need 224 to 246 registers per thread).
GEMM_HD int blocks_per_sm(const Config& c) { return c.min_blocks > 0 ? c.min_blocks : 1; }
GEMM_HD int waves(const GemmShape& shape, const Config& c, int sms) {
  return ceil_div(tile_count(shape, c), sms * blocks_per_sm(c));
}

// The block tile by shape, when the command line sets no tunables. Every SM works through about
// `waves` tiles one after another, so the time goes as waves x tile area. The default and its
// transpose have the same area; the one with fewer waves wins, the default on a tie. 4096 x 4096
// cuts into 512 tiles either way (3.9 waves on 132 SMs); 4095 x 4097 into 544 tiles of 128 x 256
// (5 waves, the last one an eighth full) but 528 of 256 x 128 (exactly 4 waves). The transpose is
// taken only where its stages fit the GPU's shared memory per block (docs/your-gpu.md).
inline Config config_for_shape(const GemmShape& shape, const gemm::GpuLimits& gpu) {
  const Config& wide = kConfigs[0];
  const Config& tall = kConfigs[kTallConfig];
  const bool fewer_waves = waves(shape, tall, gpu.sms) < waves(shape, wide, gpu.sms);
  return fewer_waves && gemm::fits_shared(shared_bytes(tall), gpu) ? tall : wide;
}
// On a GPU known by its SMs alone (as much shared memory per block as any gives).
inline Config config_for_shape(const GemmShape& shape, int sms) { return config_for_shape(shape, gemm::GpuLimits{sms}); }

inline gemm::Params to_params(const Config& c, const gemm::Params& base = {}) {
  return gemm::to_params(kTunables, c, base);
}

GEMM_HD bool vector_bc(const GemmShape& shape) { return shape.n % kChunk == 0; }

GEMM_HD int k_tiles(const GemmShape& shape, const Config& c) { return ceil_div(shape.k, c.bk); }
// The kernel keeps its stages as running indices, stepped by next_stage (the stage k-tile kt is
// read from, and the one refilled: the stage k-tile kt - 1 used), rather than computing a remainder
// in its loop; stage_of is that walk in closed form, for the traces and the viewer's timeline. The
// host test holds the two together over hundreds of k-tiles (test_mapping_NN.cpp, pipeline_checks.hpp).
GEMM_HD constexpr int next_stage(int stage, const Config& c) { return stage + 1 == c.stages ? 0 : stage + 1; }
GEMM_HD int stage_of(int kt, const Config& c) { return kt % c.stages; }
// The pipeline (kernel.cuh, multiply): the prologue copies the k-tiles below k_tile_copied_in(0),
// one commit group each, and waits until groups_in_flight_after_prologue of them are in flight
// (k-tile 0 has landed). Iteration kt computes k-tile kt, then waits until groups_in_flight are (every
// slot commits a group, empty or not, so group g is k-tile g: k-tile kt + 1 has landed), and, past
// the barrier that follows, copies k-tile k_tile_copied_in(kt) into the stage k-tile kt - 1 used.
GEMM_HD constexpr int k_tile_copied_in(int kt, const Config& c) { return kt + c.stages - 1; }
GEMM_HD constexpr int groups_in_flight_after_prologue(const Config& c) { return c.stages - 2; }
GEMM_HD constexpr int groups_in_flight(const Config& c) { return c.stages - 3; }
GEMM_HD int thread_id(const ThreadCoord& t) { return t.thread.x; }

GEMM_HD LaunchShape launch_shape(const GemmShape& shape, const Config& c) {
  LaunchShape launch;
  launch.grid = tile_grid(shape, c);
  launch.block = {threads(c), 1, 1};
  launch.shared_bytes = shared_bytes(c);
  return launch;
}

// Step 09's hierarchy: block tile -> warp tile -> lane tile.
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

// Copy `copy` of a thread moves element (or chunk) thread + copy * threads of the tile.
GEMM_HD int copy_item(const ThreadCoord& t, const Config& c, int copy) { return thread_id(t) + copy * threads(c); }

// A, one float per copy. Item e of the tile: k-run position e % 8, then 4 rows, then the k-runs of
// the tile, then the rest of the rows, so that a warp's 32 copies are 8 consecutive k (one 32-byte
// sector) of 4 rows. The 4 rows take different k-runs where the tile has them (BK / 8 of them):
// cp.async through the L1 reads its data out of the L1's banks, and with K a multiple of 32 every
// row of A starts on the same bank, so 4 rows' same k-run would sit on the same 8 banks and take 4
// wavefronts where 2 (BK = 16) or 1 (BK = 32) will do (the access model's cp.async rule).
GEMM_HD int a_copies(const Config& c) { return c.bm * c.bk / threads(c); }
GEMM_HD int a_tile_k(const ThreadCoord& t, const Config& c, int copy) {
  const int e = copy_item(t, c, copy);
  const int k_run = (e / kWarpSize + (e % kWarpSize) / kSectorFloats) % (c.bk / kSectorFloats);
  return k_run * kSectorFloats + e % kSectorFloats;
}
GEMM_HD int a_tile_row(const ThreadCoord& t, const Config& c, int copy) {
  const int e = copy_item(t, c, copy);
  return (e / kWarpSize / (c.bk / kSectorFloats)) * kRowsPerWarpCopy + (e % kWarpSize) / kSectorFloats;
}
GEMM_HD MatrixCoord a_source(const GemmShape& shape, const ThreadCoord& t, const Config& c, int kt, int copy) {
  MatrixCoord m;
  m.row = t.block.x * c.bm + a_tile_row(t, c, copy);
  m.col = kt * c.bk + a_tile_k(t, c, copy);
  m.valid = m.row < shape.m && m.col < shape.k;
  return m;
}
// Offsets within a stage, in floats.
GEMM_HD int a_store_index(const ThreadCoord& t, const Config& c, int copy) {
  return a_tile_k(t, c, copy) * a_tile_stride(c) + a_tile_row(t, c, copy);
}

// B, 16-byte chunks along rows when N % 4 == 0 (a chunk is then wholly inside B or wholly outside).
GEMM_HD int b_chunk_copies(const Config& c) { return c.bk * c.bn / kChunk / threads(c); }
GEMM_HD MatrixCoord b_chunk_source(const GemmShape& shape, const ThreadCoord& t, const Config& c, int kt, int copy) {
  const int chunk = copy_item(t, c, copy), per_row = c.bn / kChunk;
  MatrixCoord m;
  m.row = kt * c.bk + chunk / per_row;
  m.col = t.block.y * c.bn + (chunk % per_row) * kChunk;
  m.valid = m.row < shape.k && m.col < shape.n;
  return m;
}
GEMM_HD int b_chunk_store_index(const ThreadCoord& t, const Config& c, int copy) {
  return a_stage_floats(c) + copy_item(t, c, copy) * kChunk;
}
// B element by element otherwise, consecutive lanes on consecutive columns.
GEMM_HD int b_element_copies(const Config& c) { return c.bk * c.bn / threads(c); }
GEMM_HD MatrixCoord b_element_source(const GemmShape& shape, const ThreadCoord& t, const Config& c, int kt, int copy) {
  const int e = copy_item(t, c, copy);
  MatrixCoord m;
  m.row = kt * c.bk + e / c.bn;
  m.col = t.block.y * c.bn + e % c.bn;
  m.valid = m.row < shape.k && m.col < shape.n;
  return m;
}
GEMM_HD int b_element_store_index(const ThreadCoord& t, const Config& c, int copy) {
  return a_stage_floats(c) + copy_item(t, c, copy);
}

// How a thread's copies relate to each other (the rule below makes these exact; the host tests check
// them against the per-copy functions above). Copy `copy` of A is row a_copy_row_step * copy further
// down than copy 0, at the same k, and lands that many floats further along a_tile_t's row; a B copy
// is b_*_row_step rows further down, in the same column. The kernel computes copy 0's addresses once
// and steps from there: per k-tile, a copy costs an add, a compare and the cp.async itself.
GEMM_HD constexpr int a_copy_row_step(const Config& c) {
  return threads(c) / kWarpSize / (c.bk / kSectorFloats) * kRowsPerWarpCopy;
}
GEMM_HD constexpr int b_chunk_row_step(const Config& c) { return threads(c) / (c.bn / kChunk); }
GEMM_HD constexpr int b_element_row_step(const Config& c) { return threads(c) / c.bn; }

// Inner loop step `dot`: 16-byte loads of a thread's values of A and B, as in step 09.
GEMM_HD int a_load_index(const ThreadCoord& t, const Config& c, int dot, int i) {
  return dot * a_tile_stride(c) + row_in_tile(t, c, i);
}
GEMM_HD int b_load_index(const ThreadCoord& t, const Config& c, int dot, int j) {
  return a_stage_floats(c) + dot * c.bn + col_in_tile(t, c, j);
}

GEMM_HD int a_index(const GemmShape& shape, const MatrixCoord& m) { return m.row * shape.k + m.col; }
GEMM_HD int b_index(const GemmShape& shape, const MatrixCoord& m) { return m.row * shape.n + m.col; }
GEMM_HD int c_index(const GemmShape& shape, const CElement& e) { return e.row * shape.n + e.col; }

// The kernel's copies (kernel.cuh): 4-byte ones through the L1 (cp.async.ca, the only kind that
// size allows), 16-byte ones around it (cp.async.cg). The access model prices them differently.
constexpr bool kElementCopyBypassesL1 = false, kChunkCopyBypassesL1 = true;

// The trace of pipelined_sgemm.
// A cp.async is one instruction that reads global memory and writes shared memory; it is
// listed as its two halves (the global read, the shared write), which is how the profiler counts its
// sectors and wavefronts. Shared offsets include the stage: stage * stage_floats.
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
  // The copies of k-tile kt are issued STAGES - 1 tiles ahead of its use; the trace lists each tile's
  // copies under its own iteration, in the order the kernel issues them. In its last STAGES - 1
  // iterations the loop still issues the copies of k-tiles past the end (kernel.cuh: cheaper than a
  // branch): they read nothing and write zeros into stages no one reads again, and the trace lists
  // them under the iteration that issues them.
  const int tiles = k_tiles(s, c);
  auto copies = [&](int kt, int iteration) {
    const bool past_end = kt >= tiles;
    const int base = stage_of(kt, c) * stage_floats(c);
    // One cp.async: lanes whose source lies outside the matrix read nothing (source size 0) but
    // still write a zero. `source(t)` is the element thread t copies, `index` its place in the
    // matrix, `store(t)` where it lands in the stage; the labels are {read, write} while inside,
    // then past the end.
    using Labels = const char* const[2][2];
    auto copy = [&](Operand matrix, Operand tile, int width, bool bypasses_l1, Labels& labels, auto source, auto index,
                    auto store) {
      gemm::emit_async_copy(
          emit, bypasses_l1,
          gemm::make_instruction(Space::global, Access::load, matrix, width, iteration, labels[past_end][0],
                                 mask([&](const ThreadCoord& t) { return source(t).valid; }),
                                 [&](int lane) { return index(s, source(coord(lane))); }),
          gemm::make_instruction(Space::shared, Access::store, tile, width, iteration, labels[past_end][1], lanes.exists,
                                 [&](int lane) { return base + store(coord(lane)); }));
    };
    static Labels a_labels = {
        {"cp.async 4 B: A element (global read)", "cp.async 4 B: A element -> a_tile_t[k][m] (shared write)"},
        {"cp.async 4 B: A, k-tile past the end (reads nothing)", "cp.async 4 B: zero -> a_tile_t[k][m] (shared write)"}};
    static Labels b_chunk_labels = {
        {"cp.async 16 B: B chunk (global read)", "cp.async 16 B: B chunk -> b_tile (shared write)"},
        {"cp.async 16 B: B, k-tile past the end (reads nothing)", "cp.async 16 B: zeros -> b_tile (shared write)"}};
    static Labels b_element_labels = {
        {"cp.async 4 B: B element, N % 4 != 0 (global read)", "cp.async 4 B: B element -> b_tile (shared write)"},
        {"cp.async 4 B: B, k-tile past the end (reads nothing)", "cp.async 4 B: zero -> b_tile (shared write)"}};
    for (int i = 0; i < a_copies(c); ++i)
      copy(Operand::A, Operand::smem_A, 4, kElementCopyBypassesL1, a_labels,
           [&](const ThreadCoord& t) { return a_source(s, t, c, kt, i); }, a_index,
           [&](const ThreadCoord& t) { return a_store_index(t, c, i); });
    if (vector_bc(s)) {
      for (int i = 0; i < b_chunk_copies(c); ++i)
        copy(Operand::B, Operand::smem_B, chunk_width, kChunkCopyBypassesL1, b_chunk_labels,
             [&](const ThreadCoord& t) { return b_chunk_source(s, t, c, kt, i); }, b_index,
             [&](const ThreadCoord& t) { return b_chunk_store_index(t, c, i); });
    } else {
      for (int i = 0; i < b_element_copies(c); ++i)
        copy(Operand::B, Operand::smem_B, 4, kElementCopyBypassesL1, b_element_labels,
             [&](const ThreadCoord& t) { return b_element_source(s, t, c, kt, i); }, b_index,
             [&](const ThreadCoord& t) { return b_element_store_index(t, c, i); });
    }
  };
  for (int kt = 0; kt < k_tile_copied_in(0, c) && kt < tiles; ++kt) copies(kt, kt);  // the prologue fills the pipeline
  for (int kt = 0; kt < tiles; ++kt) {
    const int ahead = k_tile_copied_in(kt, c);  // the k-tile this iteration copies
    copies(ahead, ahead < tiles ? ahead : kt);
    const int base = stage_of(kt, c) * stage_floats(c);
    for (int dot = 0; dot < c.bk; ++dot) {
      for (int i = 0; i < c.tm; i += kChunk)
        emit(gemm::make_instruction(Space::shared, Access::load, Operand::smem_A, chunk_width, kt,
                                    "ld.shared.v4 A tile_t [dot][rows i..i+3]", lanes.exists,
                                    [&](int lane) { return base + a_load_index(coord(lane), c, dot, i); }));
      for (int j = 0; j < c.tn; j += kChunk)
        emit(gemm::make_instruction(Space::shared, Access::load, Operand::smem_B, chunk_width, kt,
                                    "ld.shared.v4 B tile [dot][cols j..j+3]", lanes.exists,
                                    [&](int lane) { return base + b_load_index(coord(lane), c, dot, j); }));
    }
  }
  for (int i = 0; i < c.tm; ++i)
    for (int j = 0; j < c.tn; j += (vector_bc(s) ? kChunk : 1)) {
      const std::uint32_t active = mask([&](const ThreadCoord& t) { return c_element(s, t, c, i, j).valid; });
      gemm::emit_c_update(problem, vector_bc(s) ? chunk_width : 4, tiles, active,
                          [&](int lane) { return c_index(s, c_element(s, coord(lane), c, i, j)); }, emit);
    }
}

}  // namespace step10
