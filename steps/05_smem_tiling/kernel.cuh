// Step 05, shared-memory tiling: the block stages 32 x 32 tiles of A and B in shared memory and every
// thread reads its 32 multiply-adds' operands from there.
#pragma once

#include "cuda_check.cuh"
#include "epilogue.hpp"
#include "mapping.hpp"
#include "run_step.cuh"

namespace step05 {

__global__ void smem_tiled_sgemm(GemmShape shape, float alpha, const float* __restrict__ a,
                                 const float* __restrict__ b, float beta, float* __restrict__ c) {
  __shared__ float a_tile[kTile * kTile];
  __shared__ float b_tile[kTile * kTile];
  const ThreadCoord t = gemm::this_thread();
  float acc = 0.0f;
  // The formulas the mapping's functions compute (mapping.hpp; kTile = 32), with M, N, K the shape
  // and (tx, ty) = (threadIdx.x, threadIdx.y).
  // Every thread takes part in the copies and the barriers, also those past the edge of C.
  for (int kt = 0; kt < k_tiles(shape); ++kt) {
    // A[(blockIdx.x * 32 + ty) * K + kt * 32 + tx] and B[(kt * 32 + ty) * N + blockIdx.y * 32 + tx],
    // into a_tile[ty * 32 + tx] and b_tile[ty * 32 + tx]; zero outside A and B.
    const MatrixCoord from_a = a_tile_source(shape, t, kt);
    const MatrixCoord from_b = b_tile_source(shape, t, kt);
    a_tile[tile_store_index(t)] = from_a.valid ? a[a_index(shape, from_a)] : 0.0f;
    b_tile[tile_store_index(t)] = from_b.valid ? b[b_index(shape, from_b)] : 0.0f;
    __syncthreads();  // the tiles are complete before anyone reads them
    // a_tile[ty * 32 + kk] (one word for the whole warp: a broadcast) * b_tile[kk * 32 + tx]
    for (int kk = 0; kk < kTile; ++kk) acc += a_tile[a_tile_load_index(t, kk)] * b_tile[b_tile_load_index(t, kk)];
    __syncthreads();  // everyone is done reading before the next k-tile overwrites them
  }
  const CElement e = c_element(shape, t);  // row = blockIdx.x * 32 + ty, col = blockIdx.y * 32 + tx
  if (!e.valid) return;
  const int at = c_index(shape, e);  // C[row * N + col]
  c[at] = gemm::epilogue(alpha, acc, beta, c + at);
}

inline void launch(const gemm::Fp32Problem& p, const gemm::Params&, cudaStream_t stream) {
  const LaunchShape shape = launch_shape(p.shape);
  smem_tiled_sgemm<<<gemm::to_dim3(shape.grid), gemm::to_dim3(shape.block), 0, stream>>>(p.shape, p.alpha, p.a,
                                                                                           p.b, p.beta, p.c);
  CUDA_CHECK_LAUNCH("smem_tiled_sgemm<<<...>>>");
}

}  // namespace step05
