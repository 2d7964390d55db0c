// Step 15, Hopper: C = alpha*A*B + beta*C with wgmma from shared tiles that TMA copies, an
// mbarrier per stage (sm_90a). f16 or bf16 inputs, f32 accumulation, output f32 or the inputs'
// 16-bit type, layouts NN, NT and TN: the layout picks the TMA boxes and wgmma's transpose bits
// (mapping.hpp), nothing else.
//
// A block is one warpgroup (4 warps), which multiplies a 64 x BN tile with wgmma. One of its
// threads asks TMA for each k-tile, STAGES k-tiles ahead; the stage's mbarrier
// completes when the bytes have landed, and the warpgroup waits on it. A stage is refilled once
// every warp has finished with it (a __syncthreads), by the same thread.
#pragma once

#include <cuda.h>
#include <cudaTypedefs.h>
#include <cuda_bf16.h>
#include <cuda_fp16.h>

#include <cstdint>
#include <type_traits>

#include "cuda_check.cuh"
#include "dispatch.hpp"
#include "gpu.cuh"
#include "hopper.cuh"
#include "mapping.hpp"
#include "output_types.cuh"
#include "run_tc_step.cuh"
#include "tc_dispatch.cuh"
#include "tma_host.cuh"
#include "wgmma.cuh"

namespace step15 {

#if defined(__CUDA_ARCH_FEAT_SM90_ALL)

// --- Output -------------------------------------------------------------------------------------
using gemm::float_to_out;
using gemm::out_to_float;
// Two neighbouring elements of a row of C (col, col + 1), alpha already applied: one 8-byte (f32)
// or 4-byte (16-bit) store when the pair lies inside C and is aligned (whole_pair), else element by
// element up to C's edge.
template <typename Out>
__device__ __forceinline__ void store_pair(Out* at, int col, const GemmShape& shape, float v0, float v1, float beta) {
  if (whole_pair(col, shape)) {
    if constexpr (std::is_same_v<Out, float>) {
      if (beta != 0.0f) {  // BLAS: C is read only when beta != 0
        const float2 old = *reinterpret_cast<const float2*>(at);
        v0 += beta * old.x, v1 += beta * old.y;
      }
      *reinterpret_cast<float2*>(at) = make_float2(v0, v1);
    } else {
      if (beta != 0.0f) {
        const float2 old = gemm::unpack_pair<Out>(*reinterpret_cast<const std::uint32_t*>(at));
        v0 += beta * old.x, v1 += beta * old.y;
      }
      *reinterpret_cast<std::uint32_t*>(at) = gemm::pack_pair<Out>(v0, v1);
    }
  } else {
    const float values[kPair] = {v0, v1};
#pragma unroll
    for (int e = 0; e < kPair; ++e)
      if (col + e < shape.n)
        at[e] = float_to_out<Out>(beta != 0.0f ? values[e] + beta * out_to_float(at[e]) : values[e]);
  }
}

#endif  // __CUDA_ARCH_FEAT_SM90_ALL

// --- The kernel ---------------------------------------------------------------------------------

template <Layout kLayout, typename In, typename Out, int kConfig>
__global__ void __launch_bounds__(threads(kConfigs[kConfig]), 1)
    hopper_gemm(const __grid_constant__ CUtensorMap a_map, const __grid_constant__ CUtensorMap b_map, GemmShape shape,
                float alpha, float beta, Out* __restrict__ c) {
#if defined(__CUDA_ARCH_FEAT_SM90_ALL)
  constexpr Config cfg = kConfigs[kConfig];
  constexpr int kStageBytes = stage_bytes(cfg);

  // Stages aligned to the swizzle's 1024-byte period, then the barriers.
  extern __shared__ __align__(16) unsigned char shared[];
  const std::uint32_t stage0 = (gemm::shared_address(shared) + kSwizzleAtomBytes - 1) & ~std::uint32_t(kSwizzleAtomBytes - 1);
  const std::uint32_t full0 = stage0 + cfg.stages * kStageBytes;
  auto full = [&](int stage) { return full0 + std::uint32_t(stage * kBarrierBytes); };

  const TmaOperand a_op = a_operand(shape, kLayout, cfg), b_op = b_operand(shape, kLayout, cfg);
  const int k_tile_count = k_tiles(shape, cfg);
  const TileCoord tile = tile_of({int(blockIdx.x), int(blockIdx.y), int(blockIdx.z)});
  const int warp_in_group = int(threadIdx.x) / kWarpSize;
  const int lane = int(threadIdx.x) % kWarpSize;

  // The copies of k-tile kt into `stage` (one thread): the barrier is told how many bytes to
  // expect, and completes its phase when they have landed.
  auto copy_k_tile = [&](int kt, int stage) {
    // The whole stage lands here; out-of-matrix parts count too (zeros).
    gemm::barrier_arrive_expect_bytes(full(stage), stage_bytes(cfg));
    const std::uint32_t a_tile = stage0 + std::uint32_t(stage * kStageBytes), b_tile = a_tile + a_tile_bytes(cfg);
    for (int box = 0; box < a_op.boxes; ++box)
      gemm::tma_load(a_tile + box * box_bytes(a_op), &a_map, tma_box(a_op, tile.m * cfg.bm, kt, box, cfg), full(stage));
    for (int box = 0; box < b_op.boxes; ++box)
      gemm::tma_load(b_tile + box * box_bytes(b_op), &b_map, tma_box(b_op, tile.n * cfg.bn, kt, box, cfg), full(stage));
  };

  if (threadIdx.x == 0) {
    for (int s = 0; s < cfg.stages; ++s) gemm::barrier_init(full(s), 1);  // one arrival (+ the copies' bytes)
    gemm::fence_barrier_init();  // visible to TMA
  }
  __syncthreads();
  // The first STAGES k-tiles are asked for before any is multiplied.
  if (threadIdx.x == 0)
    for (int kt = 0; kt < cfg.stages && kt < k_tile_count; ++kt) copy_k_tile(kt, kt);

  const Descriptor a_strides = descriptor_strides(a_op), b_strides = descriptor_strides(b_op);
  float acc[cfg.bn / 2];
#pragma unroll
  for (int i = 0; i < cfg.bn / 2; ++i) acc[i] = 0.0f;

  PipelineState pipeline;  // the stage and barrier phase of the next k-tile (advance)
  for (int kt = 0; kt < k_tile_count; ++kt) {
    gemm::barrier_wait(full(pipeline.stage), pipeline.phase);
    const std::uint32_t a_tile = stage0 + std::uint32_t(pipeline.stage * kStageBytes), b_tile = a_tile + a_tile_bytes(cfg);
    gemm::wgmma_fence();
    gemm::pin(acc);
#pragma unroll
    for (int kk = 0; kk < cfg.bk / kWgmmaK; ++kk)
      gemm::wgmma_m64k16<In, a_k_major(kLayout) ? 0 : 1, b_k_major(kLayout) ? 0 : 1>(
          acc, wgmma_descriptor(a_tile + operand_offset(a_op, kk), a_strides),
          wgmma_descriptor(b_tile + operand_offset(b_op, kk), b_strides), kt > 0 || kk > 0);
    gemm::wgmma_commit();
    gemm::wgmma_wait<0>();  // this k-tile's products are done: the stage has been read
    gemm::pin(acc);
    // Every warp is done with the stage: refill it with the k-tile STAGES ahead.
    __syncthreads();
    if (threadIdx.x == 0 && k_tile_refilled_after(kt, cfg) < k_tile_count)
      copy_k_tile(k_tile_refilled_after(kt, cfg), pipeline.stage);
    pipeline.advance(cfg);
  }

  // Epilogue, straight from the accumulators (times alpha), a pair of columns at a time.
  const int row0 = tile.m * cfg.bm, col0 = tile.n * cfg.bn;
#pragma unroll
  for (int reg = 0; reg < cfg.bn / 2; reg += kPair) {
    const int row = row0 + accumulator_row(warp_in_group, lane, reg), col = col0 + accumulator_col(lane, reg);
    if (row < shape.m && col < shape.n)
      store_pair(c + (long long)row * shape.n + col, col, shape, alpha * acc[reg], alpha * acc[reg + 1], beta);
  }
#endif  // sm_90a: the harness refuses other GPUs before launching (only_cc)
}

// --- Host side ----------------------------------------------------------------------------------

inline int config_index(const Config& c) { return gemm::index_of(kConfigs, c); }

// Calls f(kernel) with the instance these types, layout and params select.
template <typename F>
void with_kernel(gemm::Layout layout, gemm::InputType dtype, gemm::OutputType out, const gemm::Params& params, F&& f) {
  gemm::dispatch_tc_kernel<kConfigCount>(
      config_index(config_from(params)), layout, dtype, out, [&](auto config, auto layout_constant, auto in, auto out_type) {
        f(hopper_gemm<decltype(layout_constant)::value, typename decltype(in)::type, typename decltype(out_type)::type,
                   decltype(config)::value>);
      });
}

inline const void* kernel_for(const gemm::Params& params, gemm::Layout layout, gemm::InputType dtype,
                              gemm::OutputType out) {
  const void* function = nullptr;
  with_kernel(layout, dtype, out, params, [&](auto kernel) { function = reinterpret_cast<const void*>(kernel); });
  gemm::allow_dynamic_shared(function, shared_bytes(config_from(params)));
  return function;
}

// A tensor map of an operand: its stored matrix in boxes of 64 elements (one swizzled row) by
// box_outer rows.
inline CUtensorMap operand_map(const void* matrix, const TmaOperand& op, gemm::InputType dtype) {
  return gemm::input_map(matrix, dtype, op.inner, op.outer, kBoxInner, op.box_outer);
}

template <typename Out>
void launch_kernel(void (*kernel)(CUtensorMap, CUtensorMap, GemmShape, float, float, Out*), const gemm::TcProblem& p,
                   const Config& cfg, cudaStream_t stream) {
  const CUtensorMap a_map = operand_map(p.a, a_operand(p.shape, p.layout, cfg), p.dtype);
  const CUtensorMap b_map = operand_map(p.b, b_operand(p.shape, p.layout, cfg), p.dtype);
  const LaunchShape shape = launch_shape(p.shape, cfg);
  kernel<<<gemm::to_dim3(shape.grid), gemm::to_dim3(shape.block), size_t(shape.shared_bytes), stream>>>(
      a_map, b_map, p.shape, p.alpha, p.beta, static_cast<Out*>(p.c));
}

inline void launch(const gemm::TcProblem& p, const gemm::Params& params, cudaStream_t stream) {
  const Config cfg = config_from(params);
  kernel_for(params, p.layout, p.dtype, p.out);
  with_kernel(p.layout, p.dtype, p.out, params, [&](auto kernel) { launch_kernel(kernel, p, cfg, stream); });
  CUDA_CHECK_LAUNCH("hopper_gemm<<<...>>>");
}

}  // namespace step15
