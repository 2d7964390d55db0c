// Step 09, warptiling: step 08's kernel, unchanged line for line. What changed is in mapping.hpp:
// which elements of C a thread owns (row_in_tile, col_in_tile), now block tile -> warp tile -> lane
// tile, and with it which shared-memory words each warp reads in the inner loop.
#pragma once

#include "cuda_check.cuh"
#include "dispatch.hpp"
#include "epilogue.hpp"
#include "mapping.hpp"
#include "run_step.cuh"
#include "tile_copy.hpp"

namespace step09 {

template <int kConfig>
__global__ void __launch_bounds__(threads(kConfigs[kConfig]),
                                   gemm::launch_min_blocks(threads(kConfigs[kConfig]), kConfigs[kConfig].min_blocks))
    warptiled_sgemm(GemmShape shape, float alpha, const float* __restrict__ a, const float* __restrict__ b,
                     float beta, float* __restrict__ c) {
  constexpr Config cfg = kConfigs[kConfig];
  __shared__ __align__(16) float a_tile_t[cfg.bk * cfg.bm];  // transposed: [k][m]
  __shared__ __align__(16) float b_tile[cfg.bk * cfg.bn];    // as in B: [k][n]
  const ThreadCoord t = gemm::this_thread();
  // The 16-byte paths need rows that start on 16 bytes; the test is the same for the whole launch.
  const bool wide_a = vector_a(shape), wide_bc = vector_bc(shape);
  float acc[cfg.tm][cfg.tn] = {};
  float a_values[cfg.tm], b_values[cfg.tn];

  // The formulas the mapping's functions compute (mapping.hpp), with M, N, K the shape,
  // BM, BN, BK, WM, WN, TM, TN the configuration, threads = (BM / WM) * (BN / WN) * 32 a block, tid = threadIdx.x,
  // and the tiles copied in chunks of 4 floats (kChunk) along their rows.
  for (int kt = 0; kt < k_tiles(shape, cfg); ++kt) {
    // The k-tile's loads first, all of them in flight together, then its shared stores.
    // Copy `copy` of a thread is chunk = tid + copy * threads of the tile; element q (0..3) of it:
    //   A[(blockIdx.x * BM + chunk / (BK / 4)) * K + kt * BK + chunk % (BK / 4) * 4 + q]
    //   B[(kt * BK + chunk / (BN / 4)) * N + blockIdx.y * BN + chunk % (BN / 4) * 4 + q]
    // (one 16-byte load from q = 0 where the rows start on 16 bytes; zero outside A and B).
    float a_staged[a_copies(cfg)][kChunk];
    float4 b_staged[b_copies(cfg)];
#pragma unroll
    for (int copy = 0; copy < a_copies(cfg); ++copy) {
      const bool exists = a_copy_exists(t, cfg, copy);
      if (wide_a) {  // the chunk is wholly inside A or wholly outside
        const MatrixCoord from = a_source(shape, t, cfg, kt, copy, 0);
        const float4 v = gemm::load4_or_zero(a, a_index(shape, from), exists && from.valid);
        a_staged[copy][0] = v.x, a_staged[copy][1] = v.y, a_staged[copy][2] = v.z, a_staged[copy][3] = v.w;
      } else {
#pragma unroll
        for (int q = 0; q < kChunk; ++q) {
          const MatrixCoord from = a_source(shape, t, cfg, kt, copy, q);
          a_staged[copy][q] = gemm::load_or_zero(a, a_index(shape, from), exists && from.valid);
        }
      }
    }
#pragma unroll
    for (int copy = 0; copy < b_copies(cfg); ++copy) {
      const bool exists = b_copy_exists(t, cfg, copy);
      if (wide_bc) {
        const MatrixCoord from = b_source(shape, t, cfg, kt, copy, 0);
        b_staged[copy] = gemm::load4_or_zero(b, b_index(shape, from), exists && from.valid);
      } else {
        float chunk[kChunk];
#pragma unroll
        for (int q = 0; q < kChunk; ++q) {
          const MatrixCoord from = b_source(shape, t, cfg, kt, copy, q);
          chunk[q] = gemm::load_or_zero(b, b_index(shape, from), exists && from.valid);
        }
        b_staged[copy] = float4{chunk[0], chunk[1], chunk[2], chunk[3]};
      }
    }
    // Element q of an A chunk goes to a_tile_t[(chunk % (BK / 4) * 4 + q) * BM + chunk / (BK / 4)]
    // (the transpose), a B chunk to b_tile[chunk * 4 .. chunk * 4 + 3] (as it lies in B).
#pragma unroll
    for (int copy = 0; copy < a_copies(cfg); ++copy) {
      if (!a_copy_exists(t, cfg, copy)) continue;
#pragma unroll
      for (int q = 0; q < kChunk; ++q) a_tile_t[a_store_index(t, cfg, copy, q)] = a_staged[copy][q];  // the transpose
    }
#pragma unroll
    for (int copy = 0; copy < b_copies(cfg); ++copy)
      if (b_copy_exists(t, cfg, copy)) *reinterpret_cast<float4*>(&b_tile[b_store_index(t, cfg, copy)]) = b_staged[copy];
    __syncthreads();
    // The thread's rows and columns of the tile: its warp's tile (warp = tid / 32, warp_row =
    // warp / (BN / WN), warp_col = warp % (BN / WN)), then its lane's place in it, in the conflict-free
    // order (lane = tid % 32, long(lane) = ((lane >> 3) & 1) * 4 + ((lane >> 1) & 3), short(lane) =
    // (((lane >> 3) ^ (lane >> 4)) & 1) * 2 + (lane & 1); lane_row = long(lane) and lane_col =
    // short(lane) where WM / TM = 8, the other way round where it is 4), 4 contiguous at a time:
    //   row_in_tile(i) = warp_row * WM + i / 4 * (WM / TM * 4) + lane_row * 4 + i % 4
    //   col_in_tile(j) = warp_col * WN + j / 4 * (WN / TN * 4) + lane_col * 4 + j % 4
    // a_tile_t[dot * BM + row_in_tile(i)] and b_tile[dot * BN + col_in_tile(j)], 4 words a load.
#pragma unroll
    for (int dot = 0; dot < cfg.bk; ++dot) {
#pragma unroll
      for (int i = 0; i < cfg.tm; i += kChunk) {
        const float4 v = *reinterpret_cast<const float4*>(&a_tile_t[a_load_index(t, cfg, dot, i)]);
        a_values[i] = v.x, a_values[i + 1] = v.y, a_values[i + 2] = v.z, a_values[i + 3] = v.w;
      }
#pragma unroll
      for (int j = 0; j < cfg.tn; j += kChunk) {
        const float4 v = *reinterpret_cast<const float4*>(&b_tile[b_load_index(t, cfg, dot, j)]);
        b_values[j] = v.x, b_values[j + 1] = v.y, b_values[j + 2] = v.z, b_values[j + 3] = v.w;
      }
#pragma unroll
      for (int i = 0; i < cfg.tm; ++i)
#pragma unroll
        for (int j = 0; j < cfg.tn; ++j) acc[i][j] += a_values[i] * b_values[j];
    }
    __syncthreads();
  }

  // C[(blockIdx.x * BM + row_in_tile(i)) * N + blockIdx.y * BN + col_in_tile(j)], 4 floats a store
  // where C's rows start on 16 bytes.
#pragma unroll
  for (int i = 0; i < cfg.tm; ++i) {
    if (wide_bc) {
#pragma unroll
      for (int j = 0; j < cfg.tn; j += kChunk) {
        const CElement e = c_element(shape, t, cfg, i, j);
        if (!e.valid) continue;  // the chunk is wholly inside C or wholly outside
        float4* at = reinterpret_cast<float4*>(c + c_index(shape, e));
        float4 out{alpha * acc[i][j], alpha * acc[i][j + 1], alpha * acc[i][j + 2], alpha * acc[i][j + 3]};
        if (beta != 0.0f) {  // BLAS: C is read only when beta != 0
          const float4 old = *at;
          out.x += beta * old.x, out.y += beta * old.y, out.z += beta * old.z, out.w += beta * old.w;
        }
        *at = out;
      }
    } else {
#pragma unroll
      for (int j = 0; j < cfg.tn; ++j) {
        const CElement e = c_element(shape, t, cfg, i, j);
        if (!e.valid) continue;
        const int at = c_index(shape, e);
        c[at] = gemm::epilogue(alpha, acc[i][j], beta, c + at);
      }
    }
  }
}

inline int config_index(const Config& c) { return gemm::index_of(kConfigs, c); }

inline const void* kernel_for(const gemm::Params& params) {
  const void* function = nullptr;
  gemm::dispatch_index<kConfigCount>(config_index(config_from(params)), [&](auto index) {
    function = reinterpret_cast<const void*>(warptiled_sgemm<decltype(index)::value>);
  });
  return function;
}

inline void launch(const gemm::Fp32Problem& p, const gemm::Params& params, cudaStream_t stream) {
  const Config cfg = config_from(params);
  const LaunchShape shape = launch_shape(p.shape, cfg);
  gemm::dispatch_index<kConfigCount>(config_index(cfg), [&](auto index) {
    warptiled_sgemm<decltype(index)::value><<<gemm::to_dim3(shape.grid), gemm::to_dim3(shape.block), 0, stream>>>(
        p.shape, p.alpha, p.a, p.b, p.beta, p.c);
  });
  CUDA_CHECK_LAUNCH("warptiled_sgemm<<<...>>>");
}

}  // namespace step09
