// Step 13, WMMA fed by a cp.async pipeline: C = alpha*A*B + beta*C with tensor cores through the
// wmma API, the k-tiles copied global -> shared by cp.async STAGES - 1 k-tiles ahead of the
// compute. f16 or bf16 inputs, f32 accumulation, output f32 or the inputs' 16-bit type, layouts
// NN, NT and TN. One kernel template; the layout decides only which way each shared tile runs and
// so which wmma layout its fragments load with (mapping.hpp), never the compute loop.
#pragma once

#include <cuda_bf16.h>
#include <cuda_fp16.h>
#include <mma.h>

#include <cstdint>
#include <type_traits>

#include "cuda_check.cuh"
#include "dispatch.hpp"
#include "mapping.hpp"
#include "output_types.cuh"
#include "run_tc_step.cuh"
#include "tc_dispatch.cuh"

namespace step13 {

namespace wmma = nvcuda::wmma;

// cp.async (PTX ISA): 16 bytes global -> shared without passing through registers; the thread does
// not wait for it. A source size of 0 reads nothing and writes zeros (the chunks outside the
// matrix). Around the L1 (.cg): each tile is read once.
__device__ __forceinline__ void cp_async_16(void* shared, const void* global, bool inside) {
  static_assert(kCopyBypassesL1, "the copies are cp.async.cg: change mapping.hpp with them");
  const auto address = static_cast<std::uint32_t>(__cvta_generic_to_shared(shared));
  asm volatile("cp.async.cg.shared.global [%0], [%1], 16, %2;\n" ::"r"(address), "l"(global), "r"(inside ? 16 : 0));
}
// Closes the group of copies issued since the last commit.
__device__ __forceinline__ void cp_async_commit() { asm volatile("cp.async.commit_group;\n" ::); }
// Waits until at most `kPending` committed groups are still in flight (this thread's copies only:
// a __syncthreads() must follow before other threads read the tile).
template <int kPending>
__device__ __forceinline__ void cp_async_wait() {
  asm volatile("cp.async.wait_group %0;\n" ::"n"(kPending));
}

// Issues this thread's copies of one operand's tile at k-tile kt into `tile` (its place in a
// stage): chunks of 8 elements of the stored rows, each to the same place in the tile's padded row.
template <typename In, int kConfig>
__device__ __forceinline__ void copy_tile(const OperandTile& t, const Stored& s, const In* matrix, int mn_origin, int kt,
                                          In* tile) {
  constexpr Config cfg = kConfigs[kConfig];
#pragma unroll
  for (int index = int(threadIdx.x); index < tile_chunks(t); index += threads(cfg)) {
    const Copy copy = copy_at(t, s, cfg, mn_origin, kt, index);
    cp_async_16(tile + copy_destination(t, copy), matrix + copy_source(copy, s), copy.inside);
  }
}

using gemm::float_to_out;
using gemm::out_to_float;

template <Layout kLayout, typename In, typename Out, int kConfig>
__global__ void __launch_bounds__(threads(kConfigs[kConfig]))
    wmma_pipeline_gemm(GemmShape shape, float alpha, const In* __restrict__ a, const In* __restrict__ b, float beta,
                       Out* __restrict__ c) {
  constexpr Config cfg = kConfigs[kConfig];
  constexpr int kFragRows = cfg.wm / kFragment, kFragCols = cfg.wn / kFragment;
  // cp.async exists from sm_80 on; the harness refuses older GPUs before launching (min_cc).
#if defined(__CUDA_ARCH__) && (__CUDA_ARCH__ >= 800 || !defined(__CUDA_ARCH__))
  constexpr bool kCompiled = true;
#else
  constexpr bool kCompiled = false;
#endif
  if constexpr (kCompiled) {
    constexpr OperandTile kA = a_tile(kLayout, cfg), kB = b_tile(kLayout, cfg);
    // A tile stored the other way round from a fragment's rows is loaded as the other wmma layout.
    using ALayout = std::conditional_t<kA.k_major, wmma::row_major, wmma::col_major>;
    using BLayout = std::conditional_t<kB.k_major, wmma::col_major, wmma::row_major>;
    extern __shared__ __align__(128) unsigned char shared[];  // STAGES x (A tile, B tile), staging tiles
    In* const stages = reinterpret_cast<In*>(shared);
    auto c_stage = reinterpret_cast<float (*)[kFragment * kFragment]>(shared + staging_offset_bytes(cfg));  // per warp
    const int warp = int(threadIdx.x) / kWarpSize, lane = int(threadIdx.x) % kWarpSize;

    wmma::fragment<wmma::accumulator, 16, 16, 16, float> acc[kFragRows][kFragCols];
#pragma unroll
    for (int i = 0; i < kFragRows; ++i)
#pragma unroll
      for (int j = 0; j < kFragCols; ++j) wmma::fill_fragment(acc[i][j], 0.0f);

    const Stored a_shape = a_stored(shape, kLayout), b_shape = b_stored(shape, kLayout);
    auto copy_k_tile = [&](int kt) {  // into its stage: the A tile, then the B tile
      In* const stage = stages + stage_of(kt, cfg) * stage_elements(kLayout, cfg);
      copy_tile<In, kConfig>(kA, a_shape, a, int(blockIdx.y) * cfg.bm, kt, stage);
      copy_tile<In, kConfig>(kB, b_shape, b, int(blockIdx.x) * cfg.bn, kt, stage + tile_elements(kA));
    };
    // Prologue: k-tiles 0 .. STAGES - 2 in flight, a commit group each (empty past the end, so that
    // the group count and the waits below stay in step).
#pragma unroll
    for (int ahead = 0; ahead < k_tile_copied_in(0, cfg); ++ahead) {
      if (ahead < k_tiles(shape, cfg)) copy_k_tile(ahead);
      cp_async_commit();
    }

    for (int kt = 0; kt < k_tiles(shape, cfg); ++kt) {
      // k-tile kt has landed: this thread's copies (at most STAGES - 2 younger groups still in
      // flight), then everyone's (the barrier). Past the barrier every warp is also done with k-tile
      // kt - 1, so its stage takes k-tile kt + STAGES - 1, copied while the tensor cores work on kt.
      cp_async_wait<groups_in_flight(cfg)>();
      __syncthreads();
      if (k_tile_copied_in(kt, cfg) < k_tiles(shape, cfg)) copy_k_tile(k_tile_copied_in(kt, cfg));
      cp_async_commit();
      const In* const a_tile = stages + stage_of(kt, cfg) * stage_elements(kLayout, cfg);
      const In* const b_tile = a_tile + tile_elements(kA);
#pragma unroll
      for (int kk = 0; kk < cfg.bk; kk += kFragment) {
        wmma::fragment<wmma::matrix_a, 16, 16, 16, In, ALayout> a_frag[kFragRows];
        wmma::fragment<wmma::matrix_b, 16, 16, 16, In, BLayout> b_frag[kFragCols];
#pragma unroll
        for (int i = 0; i < kFragRows; ++i)
          wmma::load_matrix_sync(a_frag[i], &a_tile[fragment_offset(kA, fragment_row(warp, cfg, i), kk)], tile_stride(kA));
#pragma unroll
        for (int j = 0; j < kFragCols; ++j)
          wmma::load_matrix_sync(b_frag[j], &b_tile[fragment_offset(kB, fragment_col(warp, cfg, j), kk)], tile_stride(kB));
#pragma unroll
        for (int i = 0; i < kFragRows; ++i)
#pragma unroll
          for (int j = 0; j < kFragCols; ++j) wmma::mma_sync(acc[i][j], a_frag[i], b_frag[j], acc[i][j]);
      }
    }
    cp_async_wait<0>();  // no copy may still be writing shared memory when the block exits

    // Epilogue: each accumulator goes through the warp's 16 x 16 staging tile: store_matrix_sync writes
    // whole f32 tiles to 32-byte-aligned addresses, and a fragment's element-to-lane layout is
    // unspecified, so only the staged tile can be written to C with the edge checks and C's type.
#pragma unroll
    for (int i = 0; i < kFragRows; ++i)
#pragma unroll
      for (int j = 0; j < kFragCols; ++j) {
        wmma::store_matrix_sync(c_stage[warp], acc[i][j], kFragment, wmma::mem_row_major);
        __syncwarp();
#pragma unroll
        for (int round = 0; round < kStageRounds; ++round) {
          const int e = stage_element(lane, round);
          const int row = int(blockIdx.y) * cfg.bm + fragment_row(warp, cfg, i) + e / kFragment;
          const int col = int(blockIdx.x) * cfg.bn + fragment_col(warp, cfg, j) + e % kFragment;
          if (row >= shape.m || col >= shape.n) continue;
          Out* at = c + (long long)row * shape.n + col;
          float value = alpha * c_stage[warp][e];
          if (beta != 0.0f) value += beta * out_to_float(*at);  // BLAS: C is read only when beta != 0
          *at = float_to_out<Out>(value);
        }
        __syncwarp();
      }
  }
}

inline int config_index(const Config& c) { return gemm::index_of(kConfigs, c); }

// Calls f(kernel) with the instance these types, layout and params select.
template <typename F>
void with_kernel(gemm::Layout layout, gemm::InputType dtype, gemm::OutputType out, const gemm::Params& params, F&& f) {
  gemm::dispatch_tc_kernel<kConfigCount>(
      config_index(config_from(params)), layout, dtype, out, [&](auto config, auto layout_constant, auto in, auto out_type) {
        f(wmma_pipeline_gemm<decltype(layout_constant)::value, typename decltype(in)::type,
                             typename decltype(out_type)::type, decltype(config)::value>);
      });
}

// The kernel these params and types select, allowed the dynamic shared memory its stages need
// (above 48 KB a kernel must opt in); set once per instance, not in front of every timed launch.
inline const void* kernel_for(const gemm::Params& params, gemm::Layout layout, gemm::InputType dtype,
                              gemm::OutputType out) {
  const void* function = nullptr;
  with_kernel(layout, dtype, out, params, [&](auto kernel) { function = reinterpret_cast<const void*>(kernel); });
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
  const LaunchShape shape = launch_shape(p.shape, config_from(params));
  with_kernel(p.layout, p.dtype, p.out, params, [&](auto kernel) { launch_kernel(kernel, p, shape, stream); });
  CUDA_CHECK_LAUNCH("wmma_pipeline_gemm<<<...>>>");
}

}  // namespace step13
