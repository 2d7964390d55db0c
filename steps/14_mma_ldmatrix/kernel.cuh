// Step 14, mma.sync pipeline: C = alpha*A*B + beta*C with mma.sync.m16n8k16 fed by ldmatrix from
// swizzled shared tiles, which cp.async fills STAGES k-tiles ahead. f16 or bf16 inputs, f32
// accumulation, output f32 or the inputs' 16-bit type, layouts NN, NT and TN: the layout decides
// only whether ldmatrix transposes (mapping.hpp), never the copies or the compute loop.
#pragma once

#include <cuda_bf16.h>
#include <cuda_fp16.h>

#include <cstdint>
#include <type_traits>

#include "cuda_check.cuh"
#include "dispatch.hpp"
#include "mapping.hpp"
#include "output_types.cuh"
#include "run_tc_step.cuh"
#include "tc_dispatch.cuh"

namespace step14 {

// --- The four instructions this step is about, as inline PTX (sm_80+) ----------------------------

__device__ __forceinline__ std::uint32_t shared_address(const void* pointer) {
  return static_cast<std::uint32_t>(__cvta_generic_to_shared(pointer));
}

// 16 bytes global -> shared without passing through registers; a source size of 0 writes zeros
// (the chunks outside the matrix) and reads nothing. Around the L1 (.cg): each tile is read once.
__device__ __forceinline__ void cp_async_16(std::uint32_t shared, const void* global, bool inside) {
  static_assert(kCopyBypassesL1, "the copies are cp.async.cg: change mapping.hpp with them");
  asm volatile("cp.async.cg.shared.global [%0], [%1], 16, %2;\n" ::"r"(shared), "l"(global), "r"(inside ? 16 : 0));
}
__device__ __forceinline__ void cp_async_commit() { asm volatile("cp.async.commit_group;\n" ::); }
template <int kPending>
__device__ __forceinline__ void cp_async_wait() {
  asm volatile("cp.async.wait_group %0;\n" ::"n"(kPending));
}

template <bool kTranspose>
__device__ __forceinline__ void ldmatrix_x4(std::uint32_t (&r)[4], std::uint32_t shared) {
  if constexpr (kTranspose)
    asm volatile("ldmatrix.sync.aligned.m8n8.x4.trans.shared.b16 {%0, %1, %2, %3}, [%4];\n"
                 : "=r"(r[0]), "=r"(r[1]), "=r"(r[2]), "=r"(r[3])
                 : "r"(shared));
  else
    asm volatile("ldmatrix.sync.aligned.m8n8.x4.shared.b16 {%0, %1, %2, %3}, [%4];\n"
                 : "=r"(r[0]), "=r"(r[1]), "=r"(r[2]), "=r"(r[3])
                 : "r"(shared));
}

// d += a * b for one 16 x 8 x 16 tile; a: 4 registers of 2 inputs, b: 2, d: 4 floats.
template <typename In>
__device__ __forceinline__ void mma_16x8x16(float (&d)[4], const std::uint32_t (&a)[4], std::uint32_t b0, std::uint32_t b1) {
  if constexpr (std::is_same_v<In, __half>)
    asm volatile(
        "mma.sync.aligned.m16n8k16.row.col.f32.f16.f16.f32 {%0, %1, %2, %3}, {%4, %5, %6, %7}, {%8, %9}, "
        "{%0, %1, %2, %3};\n"
        : "+f"(d[0]), "+f"(d[1]), "+f"(d[2]), "+f"(d[3])
        : "r"(a[0]), "r"(a[1]), "r"(a[2]), "r"(a[3]), "r"(b0), "r"(b1));
  else
    asm volatile(
        "mma.sync.aligned.m16n8k16.row.col.f32.bf16.bf16.f32 {%0, %1, %2, %3}, {%4, %5, %6, %7}, {%8, %9}, "
        "{%0, %1, %2, %3};\n"
        : "+f"(d[0]), "+f"(d[1]), "+f"(d[2]), "+f"(d[3])
        : "r"(a[0]), "r"(a[1]), "r"(a[2]), "r"(a[3]), "r"(b0), "r"(b1));
}

// --- The stores of C ---------------------------------------------------------------------------

using gemm::float_to_out;
using gemm::out_to_float;

// Two neighbouring elements of a row of C (col, col + 1): one 8-byte load (beta != 0) and one store
// when the pair lies inside C and is aligned (N even: every row starts on an even element), else
// element by element up to C's edge.
// kEdges = false: the shape is whole tiles (mapping.hpp, whole_tiles), so the pair is inside and aligned.
template <bool kEdges>
__device__ __forceinline__ void store_pair(float* at, int col, const GemmShape& shape, float v0, float v1, float alpha,
                                           float beta) {
  v0 *= alpha, v1 *= alpha;
  const bool both = col + 1 < shape.n;
  if (!kEdges || (both && shape.n % 2 == 0)) {
    if (beta != 0.0f) {  // BLAS: C is read only when beta != 0
      const float2 old = *reinterpret_cast<const float2*>(at);
      v0 += beta * old.x, v1 += beta * old.y;
    }
    *reinterpret_cast<float2*>(at) = make_float2(v0, v1);
  } else {
    at[0] = beta != 0.0f ? v0 + beta * at[0] : v0;
    if (both) at[1] = beta != 0.0f ? v1 + beta * at[1] : v1;
  }
}

// Four neighbouring 16-bit (f16, bf16) elements of a row of C (col .. col + 3, see quad_col): one
// 8-byte store when they lie inside C and its rows keep them aligned (N a multiple of 4), else
// element by element up to C's edge.
// kEdges = false: as for store_pair.
template <bool kEdges, typename Out>
__device__ __forceinline__ void store_quad(Out* at, int col, const GemmShape& shape, const float (&v)[4], float alpha,
                                           float beta) {
  float out[4];
#pragma unroll
  for (int e = 0; e < 4; ++e) out[e] = alpha * v[e];
  if (!kEdges || (col + 4 <= shape.n && shape.n % 4 == 0)) {
    if (beta != 0.0f) {  // BLAS: C is read only when beta != 0
      const uint2 old = *reinterpret_cast<const uint2*>(at);
      const float2 lo = gemm::unpack_pair<Out>(old.x), hi = gemm::unpack_pair<Out>(old.y);
      out[0] += beta * lo.x, out[1] += beta * lo.y, out[2] += beta * hi.x, out[3] += beta * hi.y;
    }
    *reinterpret_cast<uint2*>(at) = make_uint2(gemm::pack_pair<Out>(out[0], out[1]), gemm::pack_pair<Out>(out[2], out[3]));
  } else {
#pragma unroll
    for (int e = 0; e < 4; ++e)
      if (col + e < shape.n) at[e] = float_to_out<Out>(beta != 0.0f ? out[e] + beta * out_to_float(at[e]) : out[e]);
  }
}

// --- The kernel ---------------------------------------------------------------------------------

// One operand's copies for this thread: its first copy and where it lands in a stage; copy i is
// i * copy_row_step rows further down (copy_moved), the same distance in shared memory. The sources
// move by fixed strides too (copy_stride, k_tile_stride), so the plan keeps a running pointer to
// copy 0's source instead of computing every copy's offset afresh: each instruction spent on copy
// addresses is one fewer a warp issues between its mma.sync.
template <typename In>
struct OperandCopies {
  Copy first;
  std::uint32_t shared;  // byte offset of the first copy within a stage
  const In* next;        // copy 0's source in the next k-tile to be copied
  long long copy_stride, k_tile_stride;
};

template <typename In>
__device__ __forceinline__ OperandCopies<In> plan_copies(const OperandTile& t, int mn_origin, const In* matrix,
                                                         const Stored& s, const Config& cfg) {
  const Copy c = copy_at(t, mn_origin, int(threadIdx.x));
  return {c, std::uint32_t(tile_offset(t, c.row, c.chunk) * kElementBytes), matrix + copy_source(t, c, s, cfg, 0),
          copy_stride(t, s, cfg), k_tile_stride(t, s, cfg)};
}

// Copies k-tile kt, which must be the one after the k-tile of the previous call (or 0). A copy
// outside the matrix still gets its address, never read: a source size of 0 reads nothing. Without
// edges (kEdges = false, a shape of whole tiles) every copy is inside and none is tested.
template <typename In, int kCopies, bool kEdges>
__device__ __forceinline__ void issue_copies(const OperandTile& t, OperandCopies<In>& plan, std::uint32_t tile, int kt,
                                             const Stored& s, const Config& cfg) {
  const In* from = plan.next;
#pragma unroll
  for (int i = 0; i < kCopies; ++i) {
    const int rows = i * copy_row_step(t, cfg);
    cp_async_16(tile + plan.shared + std::uint32_t(rows * row_bytes(t)), from,
                !kEdges || copy_inside(t, copy_moved(plan.first, rows), s, cfg, kt));
    from += plan.copy_stride;
  }
  plan.next += plan.k_tile_stride;
}

// Epilogue: the block tile's results to C, straight from the accumulators; each lane holds pairs of
// neighbouring columns. f32: a pair is 8 bytes, and a warp's store fills whole sectors. 16-bit
// (f16, bf16): neighbouring lanes first trade halves of two side-by-side n8 tiles, so that each
// stores 4 columns (keeps_right_tile, quad_col).
template <int kConfig, bool kEdges, typename Out, int kFragRows, int kFragCols>
__device__ __forceinline__ void store_tile(const float (&acc)[kFragRows][kFragCols][4], int block_m, int block_n, int warp,
                                           int lane, const GemmShape& shape, float alpha, float beta, Out* c) {
  constexpr Config cfg = kConfigs[kConfig];
  if constexpr (sizeof(Out) == 2) {
    static_assert(kFragCols % 2 == 0, "the 16-bit epilogue pairs n8 tiles");
    const bool keeps_right = keeps_right_tile(lane);
#pragma unroll
    for (int i = 0; i < kFragRows; ++i)
#pragma unroll
      for (int j = 0; j < kFragCols; j += 2)
#pragma unroll
        for (int half = 0; half < 2; ++half) {
          const float left0 = acc[i][j][2 * half], left1 = acc[i][j][2 * half + 1];
          const float right0 = acc[i][j + 1][2 * half], right1 = acc[i][j + 1][2 * half + 1];
          // Keep one tile's pair, hand the neighbour the other's (every lane takes part).
          const float kept0 = keeps_right ? right0 : left0, kept1 = keeps_right ? right1 : left1;
          const float got0 = __shfl_xor_sync(0xffffffffu, keeps_right ? left0 : right0, 1);
          const float got1 = __shfl_xor_sync(0xffffffffu, keeps_right ? left1 : right1, 1);
          const float quad[4] = {keeps_right ? got0 : kept0, keeps_right ? got1 : kept1,
                                 keeps_right ? kept0 : got0, keeps_right ? kept1 : got1};
          const int row = block_m + fragment_row(warp, cfg, i) + accumulator_row(lane, 2 * half);
          const int col = block_n + fragment_col(warp, cfg, j) + quad_col(lane);
          if (!kEdges || (row < shape.m && col < shape.n))
            store_quad<kEdges>(c + (long long)row * shape.n + col, col, shape, quad, alpha, beta);
        }
  } else {
#pragma unroll
    for (int i = 0; i < kFragRows; ++i)
#pragma unroll
      for (int j = 0; j < kFragCols; ++j)
#pragma unroll
        for (int half = 0; half < 2; ++half) {
          const int row = block_m + fragment_row(warp, cfg, i) + accumulator_row(lane, 2 * half);
          const int col = block_n + fragment_col(warp, cfg, j) + accumulator_col(lane, 2 * half);
          if (!kEdges || (row < shape.m && col < shape.n))
            store_pair<kEdges>(c + (long long)row * shape.n + col, col, shape, acc[i][j][2 * half], acc[i][j][2 * half + 1],
                       alpha, beta);
        }
  }
}

// kEdges: false only for shapes of whole tiles (mapping.hpp, whole_tiles), where no copy or store
// needs its bounds tested.
template <Layout kLayout, typename In, typename Out, int kConfig, bool kEdges>
__global__ void __launch_bounds__(threads(kConfigs[kConfig]), 1)
    mma_pipeline_gemm(GemmShape shape, float alpha, const In* __restrict__ a, const In* __restrict__ b, float beta,
                      Out* __restrict__ c) {
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 800
  constexpr Config cfg = kConfigs[kConfig];
  constexpr OperandTile kA = a_tile(kLayout, cfg), kB = b_tile(kLayout, cfg);
  constexpr int kACopies = tile_chunks(kA) / threads(cfg), kBCopies = tile_chunks(kB) / threads(cfg);
  constexpr int kFragRows = cfg.wm / kMmaM, kFragCols = cfg.wn / kMmaN;
  constexpr std::uint32_t kATileBytes = tile_elements(kA) * kElementBytes;
  constexpr std::uint32_t kStageBytes = stage_elements(kLayout, cfg) * kElementBytes;

  extern __shared__ __align__(128) unsigned char stages[];  // STAGES x (A tile, B tile), swizzled
  const std::uint32_t stage0 = shared_address(stages);
  const int warp = int(threadIdx.x) / kWarpSize, lane = int(threadIdx.x) % kWarpSize;
  const int block_m = int(blockIdx.y) * cfg.bm, block_n = int(blockIdx.x) * cfg.bn;

  const Stored a_shape = a_stored(shape, kLayout), b_shape = b_stored(shape, kLayout);
  OperandCopies<In> a_copies = plan_copies(kA, block_m, a, a_shape, cfg), b_copies = plan_copies(kB, block_n, b, b_shape, cfg);
  auto load_stage = [&](int stage, int kt) {  // kt: 0, 1, 2, ... in turn
    const std::uint32_t tile = stage0 + std::uint32_t(stage) * kStageBytes;
    issue_copies<In, kACopies, kEdges>(kA, a_copies, tile, kt, a_shape, cfg);
    issue_copies<In, kBCopies, kEdges>(kB, b_copies, tile + kATileBytes, kt, b_shape, cfg);
  };

  // Each lane's ldmatrix address of its first A and B fragment within a stage (bytes, swizzled);
  // the others are fixed steps from it (fragment_step).
  const int warp_m = warp_row(warp, cfg) * cfg.wm, warp_n = warp_col(warp, cfg) * cfg.wn;
  const Spot a_spot = a_ldmatrix_spot(kA.k_major, warp_m, 0, lane), b_spot = b_ldmatrix_spot(kB.k_major, warp_n, 0, lane);
  const std::uint32_t a_first = std::uint32_t(tile_offset(kA, a_spot.row, a_spot.chunk) * kElementBytes);
  const std::uint32_t b_first = kATileBytes + std::uint32_t(tile_offset(kB, b_spot.row, b_spot.chunk) * kElementBytes);
  auto a_fragment_offset = [&](int i, int kk) {
    const FragmentStep step = fragment_step(kA, i, kk);
    return (a_first + std::uint32_t(step.add)) ^ std::uint32_t(step.xor_bytes);
  };
  auto b_fragment_offset = [&](int j, int kk) {  // j: a pair of n8 tiles
    const FragmentStep step = fragment_step(kB, j, kk);
    return kATileBytes + (((b_first - kATileBytes) + std::uint32_t(step.add)) ^ std::uint32_t(step.xor_bytes));
  };

  float acc[kFragRows][kFragCols][4];
#pragma unroll
  for (int i = 0; i < kFragRows; ++i)
#pragma unroll
    for (int j = 0; j < kFragCols; ++j)
#pragma unroll
      for (int r = 0; r < 4; ++r) acc[i][j][r] = 0.0f;

  // Fragments of one k-step (16 k's); two sets, so that the next step's ldmatrix overlap this
  // step's mma. A step's loads are numbered A's first, then B's (each B load is a pair of n8 tiles).
  struct Fragments {
    std::uint32_t a[kFragRows][4], b[kFragCols / 2][4];
  };
  constexpr int kFragmentLoads = kFragRows + kFragCols / 2;
  Fragments frags[2];
  auto load_fragment = [&](Fragments& f, std::uint32_t tile, int k, int load) {  // k: the step's first k in the tile
    if (load < kFragRows)
      ldmatrix_x4<!kA.k_major>(f.a[load], tile + a_fragment_offset(load, k));
    else
      ldmatrix_x4<!kB.k_major>(f.b[load - kFragRows], tile + b_fragment_offset(load - kFragRows, k));
  };

  const int tiles = k_tiles(shape, cfg);
  constexpr int kSteps = cfg.bk / kMmaK;
  // Prologue: STAGES - 1 k-tiles in flight (a group per k-tile, empty past the end, so that the
  // group count and the waits below stay in step), then the first fragments.
#pragma unroll
  for (int s = 0; s < k_tile_copied_in(0, cfg); ++s) {
    if (s < tiles) load_stage(s, s);
    cp_async_commit();
  }
  cp_async_wait<groups_in_flight_after_prologue(cfg)>();  // k-tile 0 has landed
  __syncthreads();
  int read_stage = 0, write_stage = cfg.stages - 1;
#pragma unroll
  for (int load = 0; load < kFragmentLoads; ++load) load_fragment(frags[0], stage0, 0, load);

  // One k-step's mma, columns [first, last) of the warp tile, column by column: each n8 column of
  // B meets the A fragments down, the next one up, so that every mma shares an operand with the
  // one before it (ptxas marks it .reuse). Row by row (A held, B changing) gives the same
  // instructions in another order and measured slower (docs/12, performance log version 26).
  auto multiply = [&](const Fragments& f, int first, int last) {
#pragma unroll
    for (int j = first; j < last; ++j)
#pragma unroll
      for (int step = 0; step < kFragRows; ++step) {
        const int i = j % 2 == 0 ? step : kFragRows - 1 - step;
        mma_16x8x16<In>(acc[i][j], f.a[i], f.b[j / 2][(j % 2) * 2], f.b[j / 2][(j % 2) * 2 + 1]);
      }
  };

  for (int kt = 0; kt < tiles; ++kt) {
#pragma unroll
    for (int kk = 0; kk < kSteps; ++kk) {
      const bool last_step = kk == kSteps - 1;
      int refill_stage = 0;
      if (last_step) {
        // This tile's last fragments are in registers. Wait until k-tile kt + 1 has landed (at
        // most STAGES - 3 younger groups pending) and every warp is past its last ldmatrix of this
        // stage; the stage k-tile kt - 1 came from is then free to refill, and the next one is read.
        cp_async_wait<groups_in_flight(cfg)>();
        __syncthreads();
        refill_stage = write_stage;
        write_stage = read_stage;
        read_stage = next_stage(read_stage, cfg);
      }
      // The next step's fragments (the first of the next k-tile after the last step) while this
      // step's multiply, column by column: before each of the first half of the columns, an equal
      // share of the loads, A's first (the next step's first column needs them all), rather than
      // all of them in front of the first column (performance log, version 33). In the last step
      // the copies of k-tile kt + STAGES - 1 go out halfway through the mma, with half of them
      // already issued, not in front of them all (version 27).
      constexpr int kLoadColumns = kFragCols / 2;
      const bool load_next = !last_step || kt + 1 < tiles;
      const std::uint32_t next_tile = stage0 + std::uint32_t(read_stage) * kStageBytes;
      const int next_k = last_step ? 0 : (kk + 1) * kMmaK;
      const Fragments& f = frags[kk % 2];
#pragma unroll
      for (int j = 0; j < kFragCols; ++j) {
        if (load_next && j < kLoadColumns) {
#pragma unroll
          for (int load = j * kFragmentLoads / kLoadColumns; load < (j + 1) * kFragmentLoads / kLoadColumns; ++load)
            load_fragment(frags[(kk + 1) % 2], next_tile, next_k, load);
        }
        if (last_step && j == kFragCols / 2) {
          if (k_tile_copied_in(kt, cfg) < tiles) load_stage(refill_stage, k_tile_copied_in(kt, cfg));
          cp_async_commit();
        }
        multiply(f, j, j + 1);
      }
    }
  }
  cp_async_wait<0>();  // no copy may still be writing shared memory when the block exits

  store_tile<kConfig, kEdges>(acc, block_m, block_n, warp, lane, shape, alpha, beta, c);
#endif  // sm_80+: the harness refuses older GPUs before launching (min_cc)
}

inline int config_index(const Config& c) { return gemm::index_of(kConfigs, c); }

// Calls f(kernel) with the instance these types, layout and params select: without bounds tests
// where `whole_tiles` (the shape is whole tiles) and such an instance is compiled
// (has_edge_free_instance), else the general one.
template <typename F>
void with_kernel(gemm::Layout layout, gemm::InputType dtype, gemm::OutputType out, const gemm::Params& params,
                 bool whole_tiles, F&& f) {
  gemm::dispatch_tc_kernel<kConfigCount>(
      config_index(config_from(params)), layout, dtype, out, [&](auto config, auto layout_constant, auto in, auto out_type) {
        constexpr int kConfig = decltype(config)::value;
        constexpr Layout kLayout = decltype(layout_constant)::value;
        using In = typename decltype(in)::type;
        using Out = typename decltype(out_type)::type;
        if constexpr (has_edge_free_instance(kConfig, kLayout)) {
          if (whole_tiles) {
            f(mma_pipeline_gemm<kLayout, In, Out, kConfig, false>);
            return;
          }
        }
        f(mma_pipeline_gemm<kLayout, In, Out, kConfig, true>);
      });
}

// The kernel this shape launches with these params and types (for the resource report: the
// instance without bounds tests where `launch` takes it), allowed the dynamic shared memory its
// stages need (above 48 KB a kernel must opt in); set once per instance, not in front of every
// timed launch.
inline const void* kernel_for(const GemmShape& shape, const gemm::Params& params, gemm::Layout layout,
                              gemm::InputType dtype, gemm::OutputType out) {
  const void* function = nullptr;
  with_kernel(layout, dtype, out, params, whole_tiles(shape, config_from(params)),
              [&](auto kernel) { function = reinterpret_cast<const void*>(kernel); });
  gemm::allow_dynamic_shared(function, shared_bytes(config_from(params)));
  return function;
}

template <typename In, typename Out>
void launch_kernel(void (*kernel)(GemmShape, float, const In*, const In*, float, Out*), const gemm::TcProblem& p,
                   const LaunchShape& shape, cudaStream_t stream) {
  gemm::allow_dynamic_shared(reinterpret_cast<const void*>(kernel), shape.shared_bytes);
  kernel<<<gemm::to_dim3(shape.grid), gemm::to_dim3(shape.block), size_t(shape.shared_bytes), stream>>>(
      p.shape, p.alpha, static_cast<const In*>(p.a), static_cast<const In*>(p.b), p.beta, static_cast<Out*>(p.c));
}

inline void launch(const gemm::TcProblem& p, const gemm::Params& params, cudaStream_t stream) {
  const Config cfg = config_from(params);
  const LaunchShape shape = launch_shape(p.shape, cfg);
  with_kernel(p.layout, p.dtype, p.out, params, whole_tiles(p.shape, cfg),
              [&](auto kernel) { launch_kernel(kernel, p, shape, stream); });
  CUDA_CHECK_LAUNCH("mma_pipeline_gemm<<<...>>>");
}

}  // namespace step14
