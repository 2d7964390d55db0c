// Step 12, WMMA: C = alpha*A*B + beta*C with tensor cores through the wmma API: f16 or bf16
// inputs, f32 accumulation, output f32 or the inputs' 16-bit type, layouts NN, NT and TN. One
// kernel template; the layout only changes how the tiles are copied into shared memory
// (mapping.hpp), never the compute loop.
#pragma once

#include <cuda_bf16.h>
#include <cuda_fp16.h>
#include <mma.h>

#include <type_traits>

#include "cuda_check.cuh"
#include "dispatch.hpp"
#include "mapping.hpp"
#include "output_types.cuh"
#include "run_tc_step.cuh"
#include "tc_dispatch.cuh"

namespace step12 {

namespace wmma = nvcuda::wmma;

// Copies the A and B tiles of k-tile kt into shared memory: 16-byte chunks of the stored rows,
// written along a tile row, or down a tile column where the layout stores the operand transposed.
template <typename In>
__device__ inline uint4 load_chunk(const In* matrix, const Chunk& ch, int stored_rows, int stored_cols) {
  uint4 v = {0, 0, 0, 0};  // outside the matrix: zeros
  if (wide_rows(stored_cols)) {
    // Rows start on 16 bytes, so a chunk is wholly inside or wholly outside.
    if (ch.valid) v = *reinterpret_cast<const uint4*>(matrix + stored_index(ch, stored_cols));
  } else {
    In* e = reinterpret_cast<In*>(&v);
#pragma unroll
    for (int i = 0; i < kChunk; ++i)
      if (element_valid(ch, i, stored_rows, stored_cols)) e[i] = matrix[stored_index(ch, stored_cols) + i];
  }
  return v;
}

template <typename In>
__device__ inline void store_chunk(In* tile, const Chunk& ch, const uint4& v, int (*index)(const Chunk&, const Config&, int),
                                   const Config& cfg) {
  if (!ch.transposed) {
    *reinterpret_cast<uint4*>(&tile[index(ch, cfg, 0)]) = v;
  } else {
    const In* e = reinterpret_cast<const In*>(&v);
#pragma unroll
    for (int i = 0; i < kChunk; ++i) tile[index(ch, cfg, i)] = e[i];  // the transpose
  }
}

// Copies the A and B tiles of k-tile kt into shared memory: chunks of 8 elements of the stored
// rows, written along a tile row, or down a tile column where the layout stores the operand
// transposed (A in TN, B in NT).
template <Layout kLayout, typename In, int kConfig>
__device__ void copy_tiles(const GemmShape& shape, const In* a, const In* b, In* a_tile, In* b_tile, int kt) {
  constexpr Config cfg = kConfigs[kConfig];
  const int a_rows = a_stored_rows(shape, kLayout), a_cols = a_stored_cols(shape, kLayout);
  const int b_rows = b_stored_rows(shape, kLayout), b_cols = b_stored_cols(shape, kLayout);
  for (int index = int(threadIdx.x); index < a_chunks(cfg); index += threads(cfg)) {
    const Chunk ch = a_chunk(shape, kLayout, cfg, int(blockIdx.y), kt, index);
    store_chunk(a_tile, ch, load_chunk(a, ch, a_rows, a_cols), a_tile_index, cfg);
  }
  for (int index = int(threadIdx.x); index < b_chunks(cfg); index += threads(cfg)) {
    const Chunk ch = b_chunk(shape, kLayout, cfg, int(blockIdx.x), kt, index);
    store_chunk(b_tile, ch, load_chunk(b, ch, b_rows, b_cols), b_tile_index, cfg);
  }
}

using gemm::float_to_out;
using gemm::out_to_float;

template <Layout kLayout, typename In, typename Out, int kConfig>
__global__ void __launch_bounds__(threads(kConfigs[kConfig]))
    wmma_gemm(GemmShape shape, float alpha, const In* __restrict__ a, const In* __restrict__ b, float beta,
              Out* __restrict__ c) {
  constexpr Config cfg = kConfigs[kConfig];
  constexpr int kFragRows = cfg.wm / kFragment, kFragCols = cfg.wn / kFragment;
  // bf16 fragments exist from sm_80 on; the harness refuses bf16 on older GPUs before launching.
#if defined(__CUDA_ARCH__) && (__CUDA_ARCH__ >= 800 || !defined(__CUDA_ARCH__))
  constexpr bool kCompiled = true;
#else
  constexpr bool kCompiled = std::is_same_v<In, __half>;
#endif
  if constexpr (kCompiled) {
    __shared__ __align__(32) In a_tile[cfg.bm * a_stride(cfg)];
    __shared__ __align__(32) In b_tile[cfg.bk * b_stride(cfg)];
    __shared__ __align__(32) float c_stage[warps(cfg)][kFragment * kFragment];  // one 16 x 16 tile per warp
    const int warp = int(threadIdx.x) / kWarpSize, lane = int(threadIdx.x) % kWarpSize;

    wmma::fragment<wmma::accumulator, 16, 16, 16, float> acc[kFragRows][kFragCols];
#pragma unroll
    for (int i = 0; i < kFragRows; ++i)
#pragma unroll
      for (int j = 0; j < kFragCols; ++j) wmma::fill_fragment(acc[i][j], 0.0f);

    for (int kt = 0; kt < k_tiles(shape, cfg); ++kt) {
      copy_tiles<kLayout, In, kConfig>(shape, a, b, a_tile, b_tile, kt);
      __syncthreads();
#pragma unroll
      for (int kk = 0; kk < cfg.bk; kk += kFragment) {
        wmma::fragment<wmma::matrix_a, 16, 16, 16, In, wmma::row_major> a_frag[kFragRows];
        wmma::fragment<wmma::matrix_b, 16, 16, 16, In, wmma::row_major> b_frag[kFragCols];
#pragma unroll
        for (int i = 0; i < kFragRows; ++i)
          wmma::load_matrix_sync(a_frag[i], &a_tile[fragment_row(warp, cfg, i) * a_stride(cfg) + kk], a_stride(cfg));
#pragma unroll
        for (int j = 0; j < kFragCols; ++j)
          wmma::load_matrix_sync(b_frag[j], &b_tile[kk * b_stride(cfg) + fragment_col(warp, cfg, j)], b_stride(cfg));
#pragma unroll
        for (int i = 0; i < kFragRows; ++i)
#pragma unroll
          for (int j = 0; j < kFragCols; ++j) wmma::mma_sync(acc[i][j], a_frag[i], b_frag[j], acc[i][j]);
      }
      __syncthreads();
    }

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
        f(wmma_gemm<decltype(layout_constant)::value, typename decltype(in)::type, typename decltype(out_type)::type,
                   decltype(config)::value>);
      });
}

inline const void* kernel_for(const gemm::Params& params, gemm::Layout layout, gemm::InputType dtype,
                              gemm::OutputType out) {
  const void* function = nullptr;
  with_kernel(layout, dtype, out, params, [&](auto kernel) { function = reinterpret_cast<const void*>(kernel); });
  return function;
}

template <typename In, typename Out>
void launch_kernel(void (*kernel)(GemmShape, float, const In*, const In*, float, Out*), const gemm::TcProblem& p,
                   const LaunchShape& shape, cudaStream_t stream) {
  kernel<<<gemm::to_dim3(shape.grid), gemm::to_dim3(shape.block), 0, stream>>>(
      p.shape, p.alpha, static_cast<const In*>(p.a), static_cast<const In*>(p.b), p.beta, static_cast<Out*>(p.c));
}

inline void launch(const gemm::TcProblem& p, const gemm::Params& params, cudaStream_t stream) {
  const LaunchShape shape = launch_shape(p.shape, config_from(params));
  with_kernel(p.layout, p.dtype, p.out, params, [&](auto kernel) { launch_kernel(kernel, p, shape, stream); });
  CUDA_CHECK_LAUNCH("wmma_gemm<<<...>>>");
}

}  // namespace step12
