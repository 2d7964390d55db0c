// Step 06, 1D block tiling: each thread computes TM elements of a column of C, reusing one B value
// from a register for TM multiply-adds.
#pragma once

#include "cuda_check.cuh"
#include "dispatch.hpp"
#include "epilogue.hpp"
#include "mapping.hpp"
#include "run_step.cuh"
#include "tile_copy.hpp"

namespace step06 {

template <int kConfig>
__global__ void __launch_bounds__(threads(kConfigs[kConfig]),
                                   gemm::launch_min_blocks(threads(kConfigs[kConfig]), kConfigs[kConfig].min_blocks))
    blocktiled_1d_sgemm(GemmShape shape, float alpha, const float* __restrict__ a, const float* __restrict__ b,
                        float beta, float* __restrict__ c) {
  constexpr Config cfg = kConfigs[kConfig];
  __shared__ float a_tile[cfg.bm * cfg.bk];
  __shared__ float b_tile[cfg.bk * cfg.bn];
  const ThreadCoord t = gemm::this_thread();
  float acc[cfg.tm] = {};  // the thread's TM results, in registers

  // The formulas the mapping's functions compute (mapping.hpp), with M, N, K the shape, BM, BN, BK,
  // TM the configuration, BM * BN / TM threads a block, tid = threadIdx.x.
  for (int kt = 0; kt < k_tiles(shape, cfg); ++kt) {
    // The k-tile's loads first, all of them in flight together, then its shared stores.
    float a_staged[a_copies(cfg)], b_staged[b_copies(cfg)];
    // Copy `copy` of a thread is tile element idx = tid + copy * BM * BN / TM:
    //   A[(blockIdx.x * BM + idx / BK) * K + kt * BK + idx % BK] into a_tile[idx],
    //   B[(kt * BK + idx / BN) * N + blockIdx.y * BN + idx % BN] into b_tile[idx]
    // (zero outside A and B): the tiles lie as in A and B.
#pragma unroll
    for (int copy = 0; copy < a_copies(cfg); ++copy) {
      const MatrixCoord from = a_tile_source(shape, t, cfg, kt, copy);
      a_staged[copy] = gemm::load_or_zero(a, a_index(shape, from), from.valid && a_copy_exists(t, cfg, copy));
    }
#pragma unroll
    for (int copy = 0; copy < b_copies(cfg); ++copy) {
      const MatrixCoord from = b_tile_source(shape, t, cfg, kt, copy);
      b_staged[copy] = gemm::load_or_zero(b, b_index(shape, from), from.valid && b_copy_exists(t, cfg, copy));
    }
#pragma unroll
    for (int copy = 0; copy < a_copies(cfg); ++copy)
      if (a_copy_exists(t, cfg, copy)) a_tile[copy_element(t, cfg, copy)] = a_staged[copy];
#pragma unroll
    for (int copy = 0; copy < b_copies(cfg); ++copy)
      if (b_copy_exists(t, cfg, copy)) b_tile[copy_element(t, cfg, copy)] = b_staged[copy];
    __syncthreads();
    // The thread's BK values of B (its column of the B tile): each loaded once, used TM times.
    // The thread's column of C is tid % BN, its rows tid / BN * TM + i: b_tile[dot * BN + tid % BN],
    // a_tile[(tid / BN * TM + i) * BK + dot].
    float b_values[cfg.bk];
#pragma unroll
    for (int dot = 0; dot < cfg.bk; ++dot) b_values[dot] = b_tile[b_tile_load_index(t, cfg, dot)];
#pragma unroll
    for (int i = 0; i < cfg.tm; ++i)
#pragma unroll
      for (int dot = 0; dot < cfg.bk; ++dot) acc[i] += a_tile[a_tile_load_index(t, cfg, dot, i)] * b_values[dot];
    __syncthreads();
  }
#pragma unroll
  for (int i = 0; i < cfg.tm; ++i) {
    // row = blockIdx.x * BM + tid / BN * TM + i, col = blockIdx.y * BN + tid % BN
    const CElement e = c_element(shape, t, cfg, i);
    if (!e.valid) continue;
    const int at = c_index(shape, e);  // C[row * N + col]
    c[at] = gemm::epilogue(alpha, acc[i], beta, c + at);
  }
}

inline int config_index(const Config& c) { return gemm::index_of(kConfigs, c); }

inline const void* kernel_for(const gemm::Params& params) {
  const void* function = nullptr;
  gemm::dispatch_index<kConfigCount>(config_index(config_from(params)), [&](auto index) {
    function = reinterpret_cast<const void*>(blocktiled_1d_sgemm<decltype(index)::value>);
  });
  return function;
}

inline void launch(const gemm::Fp32Problem& p, const gemm::Params& params, cudaStream_t stream) {
  const Config cfg = config_from(params);
  const LaunchShape shape = launch_shape(p.shape, cfg);
  gemm::dispatch_index<kConfigCount>(config_index(cfg), [&](auto index) {
    blocktiled_1d_sgemm<decltype(index)::value><<<gemm::to_dim3(shape.grid), gemm::to_dim3(shape.block), 0, stream>>>(
        p.shape, p.alpha, p.a, p.b, p.beta, p.c);
  });
  CUDA_CHECK_LAUNCH("blocktiled_1d_sgemm<<<...>>>");
}

}  // namespace step06
