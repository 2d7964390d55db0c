// Step 26, Hopper: C = alpha*A*B + beta*C with wgmma, TMA and an mbarrier pipeline, warp
// specialized and persistent (sm_90a): step 25's kernel, its persistent grid dealt places, a whole
// unit or two narrow ones (mapping.hpp: paired, first_unit, next_unit), with one tile more, 128 x
// 144 (mapping.hpp, kConfigs and config_for_shape). What that tile needs of the kernel: wgmma with
// n = 144 (common/device/wgmma.cuh); for an N-major B, its last 16 columns copied through a tensor
// map of their own (b_tail_map, the 32-byte swizzle) and multiplied by a wgmma of their own (n =
// 16, multiply_k_tile); and slices of C that end at the tile's edge (slice_count,
// slice_first_col). f16 or bf16 inputs, f32 accumulation, output f32 or the inputs' 16-bit type,
// layouts NN, NT and TN: the layout picks the TMA boxes and wgmma's transpose bits (mapping.hpp),
// nothing else.
//
// Roles: warpgroup 0 is the producer, one of its threads issues every copy; warpgroups 1.. are the
// consumers, each multiplying 64 rows of the block tile. They hand the STAGES shared buffers to
// each other through two mbarriers per stage: "full" (TMA's bytes have landed) and
// "empty" (every consumer warp is done reading). Each block loops over tiles (tile_at) until none
// is left, so the producer fetches the next tile while the consumers write the last one. With
// CLUSTER = 2, two blocks on tiles one above the other share B: each copies half of B's boxes into
// both (TMA multicast), and a stage is free only when the consumers of both have read it.
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

namespace step26 {

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
// f(std::integral_constant<int, i>) for i = kBegin .. kEnd - 1: an unrolled loop whose index is a
// compile-time constant, so that it can index the accumulator array (a run-time index would move
// the array to local memory).
template <int kBegin, int kEnd, typename F>
__device__ __forceinline__ void static_for(F&& f) {
  if constexpr (kBegin < kEnd) {
    f(std::integral_constant<int, kBegin>{});
    static_for<kBegin + 1, kEnd>(f);
  }
}

// The named barrier of one consumer warpgroup (barrier 0 is __syncthreads).
__device__ __forceinline__ void consumer_sync(int consumer) {
  gemm::named_barrier_sync<kWarpgroup>(1 + consumer);
}

// Four neighbouring elements of a row of C (col .. col + 3) from the staging buffer (alpha
// already applied): one vector store when the run is inside C and aligned (row length a multiple
// of 4), else element by element up to the edge.
template <typename Out>
__device__ __forceinline__ void store_run(Out* at, int col, const GemmShape& shape, float4 v, float beta) {
  if (whole_run(col, shape)) {
    if constexpr (std::is_same_v<Out, float>) {
      if (beta != 0.0f) {  // BLAS: C is read only when beta != 0
        const float4 old = *reinterpret_cast<const float4*>(at);
        v.x += beta * old.x, v.y += beta * old.y, v.z += beta * old.z, v.w += beta * old.w;
      }
      *reinterpret_cast<float4*>(at) = v;
    } else {
      if (beta != 0.0f) {
        const uint2 old = *reinterpret_cast<const uint2*>(at);
        const float2 lo = gemm::unpack_pair<Out>(old.x), hi = gemm::unpack_pair<Out>(old.y);
        v.x += beta * lo.x, v.y += beta * lo.y, v.z += beta * hi.x, v.w += beta * hi.y;
      }
      *reinterpret_cast<uint2*>(at) = make_uint2(gemm::pack_pair<Out>(v.x, v.y), gemm::pack_pair<Out>(v.z, v.w));
    }
  } else {
    const float values[kRun] = {v.x, v.y, v.z, v.w};
#pragma unroll
    for (int e = 0; e < kRun; ++e)
      if (col + e < shape.n)
        at[e] = float_to_out<Out>(beta != 0.0f ? values[e] + beta * out_to_float(at[e]) : values[e]);
  }
}

// --- The block: its shared memory and its tiles -------------------------------------------------

// What every thread of a block knows: where its stages and barriers lie in shared memory (the
// stages aligned to the swizzle's 1024-byte period, then the consumers' staging buffers, then two
// barriers per stage), and which units it takes.
struct Block {
  std::uint32_t stage0;         // stage 0's shared address
  std::uint32_t full0, empty0;  // stage 0's barriers: TMA's bytes have landed; the consumers are done
  int unit_count, k_tile_count;
  int single;             // the units that are a place each; those after them go in pairs (single_units)
  int rank;               // in the cluster: of each unit, the block takes tile row unit_row * CLUSTER + rank
  int cluster, clusters;  // its cluster takes the units of places cluster, cluster + clusters, ... (first_unit)
  __device__ __forceinline__ std::uint32_t full(int stage) const {
    return full0 + std::uint32_t(stage * kBarrierBytes);
  }
  __device__ __forceinline__ std::uint32_t empty(int stage) const {
    return empty0 + std::uint32_t(stage * kBarrierBytes);
  }
};

// --- The producer -------------------------------------------------------------------------------

// One thread issues every copy: the k-tiles of the block's tiles in turn, each into the next stage
// once the consumers of every block of the cluster are done with it. Its first pass over the stages
// finds them empty: waiting on the parity before the barrier's first phase returns at once.
template <int kConfig>
__device__ __forceinline__ void produce_tiles(const CUtensorMap& a_map, const CUtensorMap& b_map, const CUtensorMap& b_tail_map,
                                              const GemmShape& shape, const TmaOperand& a_op, const TmaOperand& b_op,
                                              const Block& block) {
  constexpr Config cfg = kConfigs[kConfig];
  PipelineState pipeline;  // the stage and barrier phase of the next k-tile (advance)
  for (int u = first_unit(block.cluster, block.single); u < block.unit_count; u = next_unit(u, block.clusters, block.single)) {
    const TileCoord tile = tile_at(u, block.rank, shape, cfg);
    const bool narrow = narrow_tile(tile.n, shape, cfg);
    const int b_boxes = b_boxes_copied(b_op, narrow);
    for (int kt = 0; kt < block.k_tile_count; ++kt) {
      // Free in every block of the cluster (each one's consumers arrive here too).
      gemm::barrier_wait(block.empty(pipeline.stage), pipeline.empty_parity());
      // The whole stage lands here, this block's copies and the others' share of B (of a narrow
      // tile's B, the first box only); out-of-matrix parts count too (zeros).
      // (a tile without a tail counts its boxes as step 25 does: no code of the tail in its kernel)
      constexpr bool kTailed = cfg.bn % kBoxInner != 0;
      gemm::barrier_arrive_expect_bytes(block.full(pipeline.stage),
                                        a_tile_bytes(cfg) + (kTailed ? b_bytes_copied(b_op, narrow) : b_boxes * box_bytes(b_op)));
      const std::uint32_t a_tile = block.stage0 + std::uint32_t(pipeline.stage * stage_bytes(cfg));
      const std::uint32_t b_tile = a_tile + a_tile_bytes(cfg);
      for (int box = 0; box < a_op.boxes; ++box)
        gemm::tma_load(a_tile + box * box_bytes(a_op), &a_map, tma_box(a_op, tile.m * cfg.bm, kt, box, cfg),
                       block.full(pipeline.stage));
      for (int box = block.rank; box < b_boxes; box += cfg.cluster) {
        const std::uint32_t into = b_tile + box * box_bytes(b_op);
        const BoxCoord at = tma_box(b_op, tile.n * cfg.bn, kt, box, cfg);
        const CUtensorMap* map = &b_map;
        if constexpr (cfg.bn % kBoxInner != 0)
          if (tail_box(b_op, box)) map = &b_tail_map;  // the tail: 16 columns, 32-byte swizzle
        if constexpr (cfg.cluster > 1)
          gemm::tma_load_multicast(into, map, at, block.full(pipeline.stage), (1u << cfg.cluster) - 1);
        else
          gemm::tma_load(into, map, at, block.full(pipeline.stage));
      }
      pipeline.advance(cfg);
    }
  }
  // The other blocks' consumers arrive on this block's barriers until their last k-tile: wait for
  // every stage's last release before the block may end.
  if constexpr (cfg.cluster > 1)
    for (int s = 0; s < cfg.stages; ++s) {
      gemm::barrier_wait(block.empty(pipeline.stage), pipeline.empty_parity());
      pipeline.advance(cfg);
    }
}

// --- A consumer ---------------------------------------------------------------------------------

// A consumer warpgroup: 64 rows of the block's tiles, multiplied (multiply_tile) and stored
// (epilogue), tile after tile (consume_tiles). What it keeps between its phases: its place among
// the stages and in the staging buffer, and the accumulators.
template <Layout kLayout, typename In, typename Out, int kConfig>
struct Consumer {
  static constexpr int kOutBytes = int(sizeof(Out));
  static constexpr int kBn = kConfigs[kConfig].bn;  // the tile's columns

  const CUtensorMap& c_map;
  const GemmShape& shape;
  const Block& block;
  const TmaOperand &a_op, &b_op;
  float alpha;
  const float beta;
  Out* const c;
  const int consumer, warp_in_group, lane;
  const Descriptor a_strides, b_strides;
  unsigned char* const staging;  // the consumers' staging buffers
  // TMA stores C (tma_stores_c). An int, not a bool: held as a bool, ptxas serialised the wgmma of
  // some kernels (C7511, docs/results/trials/2026-12-02-kloop-spill-h200/ptxas-variants.txt).
  const int store_with_tma;
  const bool leader;  // issues the consumer's TMA stores
  // C's lines go first when L2 needs room: C is written once and not read again here, while the
  // tiles of A and B are read by many blocks.
  const std::uint64_t c_policy;
  // The f32 accumulators (the kernel's registers).
  float (&acc)[kBn / 2];
  // Its place among the stages (PipelineState: phase, then stage, the order the kernel was tuned
  // with, mapping.hpp) and the staging buffer's half its next slice takes.
  PipelineState pipeline;
  int staging_half = 0;

  __device__ __forceinline__ Consumer(const CUtensorMap& c_map, const GemmShape& shape, const Block& block, float alpha,
                                      const TmaOperand& a_op, const TmaOperand& b_op, float beta, Out* c,
                                      unsigned char* shared, int warpgroup,
                                      float (&acc)[kBn / 2])
      : c_map(c_map), shape(shape), block(block),
        a_op(a_op), b_op(b_op),
        alpha(alpha), beta(beta), c(c),
        consumer(warpgroup - 1),
        warp_in_group((int(threadIdx.x) / kWarpSize) % (kWarpgroup / kWarpSize)),
        lane(int(threadIdx.x) % kWarpSize),
        a_strides(descriptor_strides(a_op)), b_strides(descriptor_strides(b_op)),
        staging(shared + (block.stage0 - gemm::shared_address(shared)) +
                kConfigs[kConfig].stages * stage_bytes(kConfigs[kConfig])),
        store_with_tma(tma_stores_c(shape, beta, kOutBytes)),
        leader(threadIdx.x % kWarpgroup == 0),
        c_policy(gemm::evict_first_policy()),
        acc(acc) {
#pragma unroll
    for (int i = 0; i < kBn / 2; ++i) acc[i] = 0.0f;
  }

  // What wgmma adds into: the accumulators.
  __device__ __forceinline__ float (&chain())[kBn / 2] {
    return acc;
  }

  // The consumer's main loop: each of the block's tiles multiplied, then stored.
  __device__ __forceinline__ void consume_tiles() {
    constexpr Config cfg = kConfigs[kConfig];
    for (int u = first_unit(block.cluster, block.single); u < block.unit_count; u = next_unit(u, block.clusters, block.single)) {
      const TileCoord tile = tile_at(u, block.rank, shape, cfg);
      if constexpr (cfg.bn > kNarrowCols) {
        if (narrow_tile(tile.n, shape, cfg)) multiply_tile<kNarrowCols>();
        else multiply_tile<cfg.bn>();
      } else {
        multiply_tile<cfg.bn>();
      }
      if (tile.m >= tiles_m(shape, cfg)) continue;  // below C (a cluster's second tile): nothing to store
      epilogue(tile);
    }
    if (store_with_tma && leader) gemm::tma_store_wait_all();
  }

  // A stage is handed back to the producer of every block of the cluster (each wrote into it).
  __device__ __forceinline__ void release(int stage_done) const {
    gemm::barrier_arrive(block.empty(stage_done));
    if constexpr (kConfigs[kConfig].cluster > 1)
      gemm::barrier_arrive_in(block.empty(stage_done), std::uint32_t(block.rank ^ 1));
  }

  // The k-tiles of one tile: n = BN, or for a narrow tile n = 64 into the first accumulators (the
  // others keep what they held: their columns lie outside C, so nothing reaches C from them).
  // Each form is a loop of its own, so that nothing but wgmma touches the accumulators between
  // their issue and the wait.
  template <int kCols>
  __device__ __forceinline__ void multiply_tile() {
    int previous = -1;    // the stage whose products may still be running
    for (int kt = 0; kt < block.k_tile_count; ++kt) multiply_k_tile<kCols>(kt, previous);
    gemm::wgmma_wait<0>();
    gemm::pin(chain());
    if (previous >= 0 && lane == 0) release(previous);
  }

  // One k-tile of the tile. An N-major B's 144 columns are two wgmma: n = 128 from the whole boxes,
  // then n = 16 from the tail (its own descriptor: the 32-byte swizzle) into the accumulators after
  // those, where n = 144 would have put them.
  template <int kCols>
  __device__ __forceinline__ void multiply_k_tile(int kt, int& previous) {
    constexpr Config cfg = kConfigs[kConfig];
    constexpr bool kTail = !b_k_major(kLayout) && kCols % kBoxInner != 0;
    constexpr int kBoxCols = kTail ? kCols - kTailCols : kCols;  // the n of the first wgmma
    float(&d)[kBoxCols / 2] = *reinterpret_cast<float(*)[kBoxCols / 2]>(chain());
    gemm::barrier_wait(block.full(pipeline.stage), pipeline.phase);
    const std::uint32_t a_tile = block.stage0 + std::uint32_t(pipeline.stage * stage_bytes(cfg)), b_tile = a_tile + a_tile_bytes(cfg);
    gemm::wgmma_fence();
    gemm::pin(chain());
#pragma unroll
    for (int kk = 0; kk < cfg.bk / kWgmmaK; ++kk) {
      const std::uint64_t a = wgmma_descriptor(a_tile + operand_offset(a_op, consumer, kk), a_strides);
      gemm::wgmma_m64k16<In, a_k_major(kLayout) ? 0 : 1, b_k_major(kLayout) ? 0 : 1>(
          d, a, wgmma_descriptor(b_tile + operand_offset(b_op, 0, kk), b_strides), kt > 0 || kk > 0);
      if constexpr (kTail) {
        float(&d_tail)[kTailCols / 2] = *reinterpret_cast<float(*)[kTailCols / 2]>(chain() + kBoxCols / 2);
        gemm::wgmma_m64k16<In, a_k_major(kLayout) ? 0 : 1, 1>(
            d_tail, a, wgmma_descriptor(b_tile + tail_offset(b_op, kk), tail_descriptor_strides(b_op)), kt > 0 || kk > 0);
      }
    }
    gemm::wgmma_commit();
    // One group stays in flight: the previous k-tile's products are done, so its stage can be handed
    // back to the producer while this one's run.
    gemm::wgmma_wait<1>();
    gemm::pin(chain());
    if (previous >= 0 && lane == 0) release(previous);
    previous = pipeline.stage;
    pipeline.advance(cfg);
  }

  // Epilogue: the tile's results to C. 16-bit output goes through TMA as 16 bits (64 columns a
  // slice), everything else is staged as f32 (32 columns).
  __device__ __forceinline__ void epilogue(const TileCoord& tile) {
    constexpr Config cfg = kConfigs[kConfig];
    const int row0 = consumer_row0(tile, consumer, cfg), col0 = tile_col0(tile, cfg);
    if constexpr (kOutBytes == 2) {
      if (store_with_tma) store_tile<2>(row0, col0, store_with_tma);
      else store_tile<4>(row0, col0, store_with_tma);
    } else {
      store_tile<4>(row0, col0, store_with_tma);  // f32 staging serves both
    }
  }

  // The tile one slice (a box of C, 64 rows x 128 bytes) at a time, into the two halves of the
  // staging buffer in turn: the accumulators (times alpha), then to C by TMA (by_tma) or read back
  // along the rows of C.
  template <int kStaged>
  __device__ __forceinline__ void store_tile(int row0, int col0, bool by_tma) {
    static_for<0, slice_count(kBn, kStaged)>(
        [&](auto slice) { store_slice<kStaged, decltype(slice)::value>(row0, col0, by_tma); });
  }

  // One slice: the accumulators of its columns (from kFirst: the last slice of a 144-column tile
  // ends at its edge, slice_first_col), times alpha, into its half of the
  // staging buffer, in C's type (kStaged = 2) or as f32; then one thread hands it to TMA, or every
  // thread reads runs of it back along the rows of C, adds beta * C and stores them. (One function:
  // with those three parts in functions of their own, ptxas serialised some kernels' wgmma, C7511.)
  template <int kStaged, int kSlice>
  __device__ __forceinline__ void store_slice(int row0, int col0, bool by_tma) {
    constexpr int kFirst = slice_first_col(kSlice, kBn, kStaged);
    unsigned char* half = staging + staging_half_byte(consumer, staging_half);
#pragma unroll
    for (int reg = kFirst / 2; reg < (kFirst + slice_cols(kStaged)) / 2; reg += 2) {
      const int row = accumulator_row(warp_in_group, lane, reg), col = accumulator_col(lane, reg) - kFirst;
      if constexpr (kStaged == 2)
        *reinterpret_cast<std::uint32_t*>(half + staging_byte(row, col, 2)) =
            gemm::pack_pair<Out>(alpha * acc[reg], alpha * acc[reg + 1]);
      else
        *reinterpret_cast<float2*>(half + staging_byte(row, col, 4)) = make_float2(alpha * acc[reg], alpha * acc[reg + 1]);
    }
    if (by_tma) {
      gemm::fence_for_tma();
      if (leader) gemm::tma_store_wait_read();  // the previous slice's store has read the other half
    }
    // The slice is complete in its half, and the other half is free for the next slice (its store
    // has read it, or every thread has read it back).
    consumer_sync(consumer);
    if (by_tma) {
      if (leader) {  // TMA clips at C's edges
        gemm::tma_store(&c_map, gemm::shared_address(half), c_box(row0, col0 + kFirst, 0, kStaged), c_policy);
        gemm::tma_store_commit();
      }
    } else {
#pragma unroll
      for (int i = 0; i < kReadBacks; ++i) {
        const StagedChunk chunk = staged_chunk(int(threadIdx.x) % kWarpgroup, i);
        const int row = row0 + chunk.row, col = col0 + kFirst + chunk.col;
        // (columns the previous slice stored are skipped: beta * C is added once)
        if (row < shape.m && col < shape.n && read_back_stores(kSlice, kFirst, chunk.col, kStaged))
          store_run(c + (long long)row * shape.n + col, col, shape,
                    *reinterpret_cast<const float4*>(half + staging_byte(chunk.row, chunk.col, 4)), beta);
      }
    }
    staging_half ^= 1;
  }
};

#endif  // __CUDA_ARCH_FEAT_SM90_ALL

// --- The kernel ---------------------------------------------------------------------------------

template <Layout kLayout, typename In, typename Out, int kConfig>
__global__ void __launch_bounds__(threads(kConfigs[kConfig]), 1)
    hopper_gemm(const __grid_constant__ CUtensorMap a_map, const __grid_constant__ CUtensorMap b_map,
                const __grid_constant__ CUtensorMap b_tail_map, const __grid_constant__ CUtensorMap c_map, GemmShape shape,
                float alpha, float beta, Out* __restrict__ c) {
#if defined(__CUDA_ARCH_FEAT_SM90_ALL)
  constexpr Config cfg = kConfigs[kConfig];
  constexpr int kConsumerWarps = consumers(cfg) * (kWarpgroup / kWarpSize);
  static_assert(consumer_registers(cfg) >= registers_at_start(cfg), "setmaxnreg.inc may not lower the count");
  extern __shared__ __align__(16) unsigned char shared[];
  const std::uint32_t stage0 = (gemm::shared_address(shared) + kSwizzleAtomBytes - 1) & ~std::uint32_t(kSwizzleAtomBytes - 1);
  const std::uint32_t full0 = stage0 + cfg.stages * stage_bytes(cfg) + consumers(cfg) * kStagingBytes;
  const std::uint32_t empty0 = full0 + cfg.stages * kBarrierBytes;
  const TmaOperand a_op = a_operand(shape, kLayout, cfg), b_op = b_operand(shape, kLayout, cfg);
  const int warpgroup = int(threadIdx.x) / kWarpgroup;
  const int unit_count = units(shape, cfg), k_tile_count = k_tiles(shape, cfg);
  const int rank = cfg.cluster > 1 ? int(gemm::cluster_rank()) : 0;
  const int cluster = cluster_of(int(blockIdx.x), cfg), clusters = int(gridDim.x) / cfg.cluster;
  const Block block{stage0, full0, empty0, unit_count, k_tile_count, single_units(shape, cfg, clusters),
                    rank, cluster, clusters};

  if (threadIdx.x == 0) {
    for (int s = 0; s < cfg.stages; ++s) {
      gemm::barrier_init(block.full(s), 1);  // the producer's arrival (+ the copies' bytes, its own and the others')
      // One arrival per consumer warp of every block of the cluster: all of them read what this
      // block's producer writes into the stage.
      gemm::barrier_init(block.empty(s), kConsumerWarps * cfg.cluster);
    }
    gemm::fence_barrier_init();  // visible to TMA
  }
  // The other blocks of the cluster arrive on these barriers and copy into this shared memory:
  // nothing may reach it before it is initialised.
  if constexpr (cfg.cluster > 1) gemm::cluster_sync();
  else __syncthreads();
  if (warpgroup == 0) {
    gemm::setmaxnreg_dec<kProducerRegisters>();
    if (threadIdx.x == 0) produce_tiles<kConfig>(a_map, b_map, b_tail_map, shape, a_op, b_op, block);
  } else {
    gemm::setmaxnreg_inc<consumer_registers(cfg)>();
    float acc[cfg.bn / 2];
    Consumer<kLayout, In, Out, kConfig> consumer(c_map, shape, block, alpha, a_op, b_op, beta, c, shared, warpgroup, acc);
    consumer.consume_tiles();
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

inline const void* kernel_for(const gemm::Params& params, gemm::Layout layout, gemm::InputType dtype, gemm::OutputType out) {
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
// The tail's: boxes of 16 elements (32 bytes) by box_outer rows, with the 32-byte swizzle; an
// operand without a tail has none (the kernel never reads it).
inline CUtensorMap tail_map(const void* matrix, const TmaOperand& op, gemm::InputType dtype) {
  if (op.tail == 0) return CUtensorMap{};
  static_assert(kTailSwizzleBytes == 32, "the tail's tensor map swizzles 32 bytes");
  return gemm::input_map(matrix, dtype, op.inner, op.outer, op.tail, op.box_outer, CU_TENSOR_MAP_SWIZZLE_32B);
}

template <typename Out>
void launch_kernel(void (*kernel)(CUtensorMap, CUtensorMap, CUtensorMap, CUtensorMap, GemmShape, float, float, Out*),
                   const gemm::TcProblem& p, const Config& cfg, cudaStream_t stream) {
  const TmaOperand b_op = b_operand(p.shape, p.layout, cfg);
  const CUtensorMap a_map = operand_map(p.a, a_operand(p.shape, p.layout, cfg), p.dtype);
  const CUtensorMap b_map = operand_map(p.b, b_op, p.dtype), b_tail_map = tail_map(p.b, b_op, p.dtype);
  // C as boxes of 128 bytes x 64 rows, only where the kernel stores it with TMA.
  constexpr int kOutBytes = int(sizeof(Out));
  const CUtensorMap c_map = tma_stores_c(p.shape, p.beta, kOutBytes)
                                ? gemm::tensor_map(p.c, gemm::tensor_map_type<Out>(), kOutBytes, p.shape.n, p.shape.m,
                                                   c_box_cols(kOutBytes), kWgmmaM)
                                : CUtensorMap{};
  const LaunchShape shape = launch_shape(p.shape, cfg, resident_blocks(cfg));
  const gemm::ClusterLaunch launch(shape, cfg.cluster, stream);
  CUDA_CHECK(cudaLaunchKernelEx(&launch.config, kernel, a_map, b_map, b_tail_map, c_map, p.shape, p.alpha, p.beta,
                                static_cast<Out*>(p.c)));
}

inline void launch(const gemm::TcProblem& p, const gemm::Params& params, cudaStream_t stream) {
  const Config cfg = config_from(params);
  kernel_for(params, p.layout, p.dtype, p.out);
  with_kernel(p.layout, p.dtype, p.out, params, [&](auto kernel) { launch_kernel(kernel, p, cfg, stream); });
  CUDA_CHECK_LAUNCH("hopper_gemm<<<...>>>");
}

}  // namespace step26
