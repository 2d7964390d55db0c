// Step 17, Hopper: C = alpha*A*B + beta*C with wgmma, TMA and an mbarrier pipeline, warp
// specialized and persistent (sm_90a). f16 or bf16 inputs, f32 accumulation, output f32 or the
// inputs' 16-bit type, layouts NN, NT and TN: the layout picks the TMA boxes and wgmma's transpose bits (mapping.hpp),
// nothing else.
//
// Roles (as in step 16): warpgroup 0 is the producer, one of its threads issues every copy;
// warpgroups 1.. are the consumers, each multiplying 64 rows of the block tile. They hand the
// STAGES shared buffers to each other through two mbarriers per stage: "full" (TMA's
// bytes have landed) and "empty" (every consumer warp is done reading). New here: each block
// loops over tiles (tile_at) until none is left, so the producer fetches the next tile while the
// consumers write the last one. With CLUSTER = 2, two blocks on tiles one above the other share B:
// each copies half of B's boxes into both (TMA multicast), and a stage is free only when the
// consumers of both have read it.
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

namespace step17 {

// Registers per thread after the roles are set (setmaxnreg): the producer needs few, and gives
// them to the consumers, whose 64 x BN accumulators take BN / 2 registers per thread. setmaxnreg
// moves registers within the block's own allocation (what __launch_bounds__(threads, 1) allowed
// each thread at the start, in steps of 8): a consumer may take only what the producer gave back,
// or its setmaxnreg.inc waits for ever. With 2 consumers: 168 each at the start, 232 after.
constexpr int kProducerRegisters = 40;
constexpr int kRegistersPerSm = 65536;
GEMM_HD constexpr int registers_at_start(const Config& c) { return kRegistersPerSm / threads(c) / 8 * 8; }
GEMM_HD constexpr int consumer_registers(const Config& c) {
  const int block = registers_at_start(c) * threads(c), producer = kProducerRegisters * kWarpgroup;
  const int share = (block - producer) / (consumers(c) * kWarpgroup) / 8 * 8;
  return share < 256 ? share : 256;  // setmaxnreg's ceiling
}

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
  constexpr int kConsumerWarps = consumers(cfg) * (kWarpgroup / kWarpSize);
  constexpr int kStageBytes = stage_bytes(cfg);
  constexpr int kCluster = cfg.cluster;
  static_assert(consumer_registers(cfg) >= registers_at_start(cfg), "setmaxnreg.inc may not lower the count");

  // Stages aligned to the swizzle's 1024-byte period, then the barriers.
  extern __shared__ __align__(16) unsigned char shared[];
  const std::uint32_t stage0 = (gemm::shared_address(shared) + kSwizzleAtomBytes - 1) & ~std::uint32_t(kSwizzleAtomBytes - 1);
  const std::uint32_t full0 = stage0 + cfg.stages * kStageBytes;
  const std::uint32_t empty0 = full0 + cfg.stages * kBarrierBytes;
  auto full = [&](int stage) { return full0 + std::uint32_t(stage * kBarrierBytes); };
  auto empty = [&](int stage) { return empty0 + std::uint32_t(stage * kBarrierBytes); };

  const TmaOperand a_op = a_operand(shape, kLayout, cfg), b_op = b_operand(shape, kLayout, cfg);
  const int warpgroup = int(threadIdx.x) / kWarpgroup;
  const int unit_count = units(shape, cfg), k_tile_count = k_tiles(shape, cfg);
  // In a cluster, block `rank` takes tile row unit_row * CLUSTER + rank of each unit (tile_at).
  const int rank = cfg.cluster > 1 ? int(gemm::cluster_rank()) : 0;
  const int cluster = cluster_of(int(blockIdx.x), cfg), clusters = int(gridDim.x) / cfg.cluster;

  if (threadIdx.x == 0) {
    for (int s = 0; s < cfg.stages; ++s) {
      gemm::barrier_init(full(s), 1);  // the producer's arrival (+ the copies' bytes, its own and the others')
      // One arrival per consumer warp of every block of the cluster: all of them read what this
      // block's producer writes into the stage.
      gemm::barrier_init(empty(s), kConsumerWarps * cfg.cluster);
    }
    gemm::fence_barrier_init();  // visible to TMA
  }
  // The other blocks of the cluster arrive on these barriers and copy into this shared memory:
  // nothing may reach it before it is initialised.
  if constexpr (cfg.cluster > 1) gemm::cluster_sync();
  else __syncthreads();

  if (warpgroup == 0) {
    // Producer. Its first pass over the stages finds them empty: waiting on the parity before the
    // barrier's first phase returns at once.
    gemm::setmaxnreg_dec<kProducerRegisters>();
    if (threadIdx.x == 0) {
      PipelineState pipeline;  // the stage and barrier phase of the next k-tile (advance)
      for (int u = cluster; u < unit_count; u = next_unit(u, clusters)) {
        const TileCoord tile = tile_at(u, rank, shape, cfg);
        for (int kt = 0; kt < k_tile_count; ++kt) {
          // Free in every block of the cluster (each one's consumers arrive here too).
          gemm::barrier_wait(empty(pipeline.stage), pipeline.empty_parity());
          // The whole stage lands here, this block's copies and the others' share of B;
          // out-of-matrix parts count too (zeros).
          gemm::barrier_arrive_expect_bytes(full(pipeline.stage), stage_bytes(cfg));
          const std::uint32_t a_tile = stage0 + std::uint32_t(pipeline.stage * kStageBytes), b_tile = a_tile + a_tile_bytes(cfg);
          for (int box = 0; box < a_op.boxes; ++box)
            gemm::tma_load(a_tile + box * box_bytes(a_op), &a_map, tma_box(a_op, tile.m * cfg.bm, kt, box, cfg), full(pipeline.stage));
          for (int box = rank; box < b_op.boxes; box += cfg.cluster) {
            const std::uint32_t into = b_tile + box * box_bytes(b_op);
            const BoxCoord at = tma_box(b_op, tile.n * cfg.bn, kt, box, cfg);
            if constexpr (cfg.cluster > 1) gemm::tma_load_multicast(into, &b_map, at, full(pipeline.stage), (1u << cfg.cluster) - 1);
            else gemm::tma_load(into, &b_map, at, full(pipeline.stage));
          }
          pipeline.advance(cfg);
        }
      }
      // The other blocks' consumers arrive on this block's barriers until their last k-tile: wait
      // for every stage's last release before the block may end.
      if constexpr (cfg.cluster > 1)
        for (int s = 0; s < cfg.stages; ++s) {
          gemm::barrier_wait(empty(pipeline.stage), pipeline.empty_parity());
          pipeline.advance(cfg);
        }
    }
  } else {
    gemm::setmaxnreg_inc<consumer_registers(cfg)>();
    const int consumer = warpgroup - 1;
    const int warp_in_group = (int(threadIdx.x) / kWarpSize) % (kWarpgroup / kWarpSize);
    const int lane = int(threadIdx.x) % kWarpSize;
    const Descriptor a_strides = descriptor_strides(a_op), b_strides = descriptor_strides(b_op);
    float acc[cfg.bn / 2];
#pragma unroll
    for (int i = 0; i < cfg.bn / 2; ++i) acc[i] = 0.0f;

    PipelineState pipeline;  // the stage and barrier phase of the next k-tile (advance)
    // A stage is handed back to the producer of every block of the cluster (each wrote into it).
    auto release = [&](int stage_done) {
      gemm::barrier_arrive(empty(stage_done));
      if constexpr (kCluster > 1) gemm::barrier_arrive_in(empty(stage_done), std::uint32_t(rank ^ 1));
    };
    for (int u = cluster; u < unit_count; u = next_unit(u, clusters)) {
      const TileCoord tile = tile_at(u, rank, shape, cfg);
      int previous = -1;  // the stage whose products may still be running
      for (int kt = 0; kt < k_tile_count; ++kt) {
        gemm::barrier_wait(full(pipeline.stage), pipeline.phase);
        const std::uint32_t a_tile = stage0 + std::uint32_t(pipeline.stage * kStageBytes), b_tile = a_tile + a_tile_bytes(cfg);
        gemm::wgmma_fence();
        gemm::pin(acc);
#pragma unroll
        for (int kk = 0; kk < cfg.bk / kWgmmaK; ++kk)
          gemm::wgmma_m64k16<In, a_k_major(kLayout) ? 0 : 1, b_k_major(kLayout) ? 0 : 1>(
              acc, wgmma_descriptor(a_tile + operand_offset(a_op, consumer, kk), a_strides),
              wgmma_descriptor(b_tile + operand_offset(b_op, 0, kk), b_strides), kt > 0 || kk > 0);
        gemm::wgmma_commit();
        // One group stays in flight: the previous k-tile's products are done, so its stage can be
        // handed back to the producer while this one's run.
        gemm::wgmma_wait<1>();
        gemm::pin(acc);
        if (previous >= 0 && lane == 0) release(previous);
        previous = pipeline.stage;
        pipeline.advance(cfg);
      }
      gemm::wgmma_wait<0>();
      gemm::pin(acc);
      if (lane == 0) release(previous);
      if (tile.m >= tiles_m(shape, cfg)) continue;  // below C (a cluster's second tile): nothing to store

      // Epilogue, straight from the accumulators (times alpha), a pair of columns at a time. The
      // producer is already copying the next tile's k-tiles into the stages just released.
      const int row0 = consumer_row0(tile, consumer, cfg), col0 = tile_col0(tile, cfg);
#pragma unroll
      for (int reg = 0; reg < cfg.bn / 2; reg += kPair) {
        const int row = row0 + accumulator_row(warp_in_group, lane, reg), col = col0 + accumulator_col(lane, reg);
        if (row < shape.m && col < shape.n)
          store_pair(c + (long long)row * shape.n + col, col, shape, alpha * acc[reg], alpha * acc[reg + 1], beta);
      }
    }
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

// The blocks of this configuration that can run at once on the current GPU, which the persistent
// grid must not exceed: one per SM, or as many whole clusters as the GPU holds (tma_host.cuh). The
// same for every layout and type.
inline int resident_blocks(const Config& cfg) {
  const int sms = gemm::current_gpu().sms;
  if (cfg.cluster == 1) return sms;
  const void* function = kernel_for(to_params(cfg), gemm::Layout::nn, gemm::InputType::f16, gemm::OutputType::f32);
  return gemm::resident_blocks_in_clusters(function, launch_shape(GemmShape{sms * cfg.bm, cfg.bn, cfg.bk}, cfg, sms),
                                           cfg.cluster, config_index(cfg));
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
  const LaunchShape shape = launch_shape(p.shape, cfg, resident_blocks(cfg));
  const gemm::ClusterLaunch launch(shape, cfg.cluster, stream);
  CUDA_CHECK(cudaLaunchKernelEx(&launch.config, kernel, a_map, b_map, p.shape, p.alpha, p.beta, static_cast<Out*>(p.c)));
}

inline void launch(const gemm::TcProblem& p, const gemm::Params& params, cudaStream_t stream) {
  const Config cfg = config_from(params);
  kernel_for(params, p.layout, p.dtype, p.out);
  with_kernel(p.layout, p.dtype, p.out, params, [&](auto kernel) { launch_kernel(kernel, p, cfg, stream); });
  CUDA_CHECK_LAUNCH("hopper_gemm<<<...>>>");
}

}  // namespace step17
