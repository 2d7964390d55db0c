// Step 23, FP8 with the last round's k-tiles shared out (stream-K): step 22's kernel with the
// schedule of mapping.hpp (schedule_of, piece_of); the last of a unit's sharers to finish adds their
// partial sums up in a fixed order (add_up_split_unit). Each kernel is compiled with that code
// (kSplit) and without, step 22's.
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
#include <cuda_fp8.h>

#include <cstdint>
#include <map>
#include <type_traits>

#include "cuda_check.cuh"
#include "device_buffer.cuh"
#include "dispatch.hpp"
#include "gpu.cuh"
#include "hopper.cuh"
#include "mapping.hpp"
#include "output_types.cuh"
#include "run_tc_step.cuh"
#include "tc_dispatch.cuh"
#include "tma_host.cuh"
#include "wgmma.cuh"

namespace step23 {

// Registers per thread after the roles are set (setmaxnreg): the producer needs few, and gives
// them to the consumers, whose 64 x BN accumulators take BN / 2 registers per thread, twice that
// with promotion (96 + 96 at BN = 192). setmaxnreg moves registers within the block's own
// allocation (what __launch_bounds__(threads, 1) allowed each thread at the start, in steps of 8):
// a consumer may take only what the producer gave back, or its setmaxnreg.inc waits for ever. The
// producer keeps setmaxnreg's minimum, 24 (step 18: 40), so that with 2 consumers each goes from
// 168 at the start to 240.
constexpr int kProducerRegisters = 24;
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
  int rank;               // in the cluster: of each unit, the block takes tile row unit_row * CLUSTER + rank
  int cluster, clusters;  // its cluster takes units cluster, cluster + clusters, ... (tile_at)
  Schedule schedule;      // with kSplit: its whole units, then its pieces (work_item)
  __device__ __forceinline__ std::uint32_t full(int stage) const {
    return full0 + std::uint32_t(stage * kBarrierBytes);
  }
  __device__ __forceinline__ std::uint32_t empty(int stage) const {
    return empty0 + std::uint32_t(stage * kBarrierBytes);
  }
};

// take(unit, kt_begin, kt_end, piece) for each work item (work_item); without kSplit, step 22's loop.
template <bool kSplit, typename Take>
__device__ __forceinline__ void for_each_work(const Block& block, const GemmShape& shape, const Config& cfg,
                                              Take&& take) {
  if constexpr (kSplit) {
    for (Work work = work_item(block.schedule, block.cluster, 0); work.valid;
         work = work_item(block.schedule, block.cluster, work.item + 1))
      take(work.unit, work.kt_begin, work.kt_end, work.piece);
  } else {
    for (int u = block.cluster; u < block.unit_count; u = next_unit(u, block.clusters)) take(u, 0, block.k_tile_count, -1);
  }
}

// --- The producer -------------------------------------------------------------------------------

// One thread issues every copy: the k-tiles of the block's tiles in turn, each into the next stage
// once the consumers of every block of the cluster are done with it. Its first pass over the stages
// finds them empty: waiting on the parity before the barrier's first phase returns at once.
template <int kConfig, bool kSplit>
__device__ __forceinline__ void produce_tiles(const CUtensorMap& a_map, const CUtensorMap& b_map, const GemmShape& shape,
                                              const TmaOperand& a_op, const TmaOperand& b_op, const Block& block) {
  constexpr Config cfg = kConfigs[kConfig];
  PipelineState pipeline;  // the stage and barrier phase of the next k-tile (advance)
  for_each_work<kSplit>(block, shape, cfg, [&](int unit, int kt_begin, int kt_end, int) {
    constexpr Config cfg = kConfigs[kConfig];
    const TileCoord tile = tile_at(unit, block.rank, shape, cfg);
    const int b_boxes = b_boxes_copied(b_op, narrow_tile(tile.n, shape, cfg));
    for (int kt = kt_begin; kt < kt_end; ++kt) {
      // Free in every block of the cluster (each one's consumers arrive here too).
      gemm::barrier_wait(block.empty(pipeline.stage), pipeline.empty_parity());
      // The whole stage lands here, this block's copies and the others' share of B (of a narrow
      // tile's B, the first box only); out-of-matrix parts count too (zeros).
      gemm::barrier_arrive_expect_bytes(block.full(pipeline.stage), a_tile_bytes(cfg) + b_boxes * box_bytes(b_op));
      const std::uint32_t a_tile = block.stage0 + std::uint32_t(pipeline.stage * stage_bytes(cfg));
      const std::uint32_t b_tile = a_tile + a_tile_bytes(cfg);
      for (int box = 0; box < a_op.boxes; ++box)
        gemm::tma_load(a_tile + box * box_bytes(a_op), &a_map, tma_box(a_op, tile.m * cfg.bm, kt, box, cfg),
                       block.full(pipeline.stage));
      for (int box = block.rank; box < b_boxes; box += cfg.cluster) {
        const std::uint32_t into = b_tile + box * box_bytes(b_op);
        const BoxCoord at = tma_box(b_op, tile.n * cfg.bn, kt, box, cfg);
        if constexpr (cfg.cluster > 1)
          gemm::tma_load_multicast(into, &b_map, at, block.full(pipeline.stage), (1u << cfg.cluster) - 1);
        else
          gemm::tma_load(into, &b_map, at, block.full(pipeline.stage));
      }
      pipeline.advance(cfg);
    }
  });
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
//
// Kernels with uniform_addresses take the consumer's index from a warp-wide minimum (a REDUX,
// whose result ptxas holds in a uniform register: every lane has the same), so that what is
// computed from it is uniform too; elsewhere as in step 20.
template <typename InA, typename InB, typename Out, int kConfig, bool kTmaOnly, bool kSplit>
struct Consumer {
  static constexpr int kOutBytes = int(sizeof(Out));
  static constexpr int kBn = kConfigs[kConfig].bn;  // the tile's columns
  static constexpr bool kPromote = kConfigs[kConfig].promote > 0;
  static constexpr bool kUniform = uniform_addresses(kConfigs[kConfig], kOutBytes, kTmaOnly);
  // The epilogue under the next tile's products. With promotion the tensor cores add into
  // interval_sum, not into the accumulators: once the next tile's first k-tile is issued, the
  // accumulators still hold the last tile, and nothing needs them until that k-tile's products
  // are added in. So the last tile's epilogue runs there, while the tensor cores work, rather than
  // between the tiles, where both consumers store and the tensor cores wait (step 19). Only where
  // the registers allow it (epilogue_under_next_tile); elsewhere the epilogue follows the tile as
  // in step 19.
  static constexpr bool kUnderNextTile = epilogue_under_next_tile(kConfigs[kConfig], kOutBytes, kTmaOnly);

  const CUtensorMap& c_map;
  const GemmShape& shape;
  const Block& block;
  float alpha;
  const float beta;
  Out* const c;
  const int consumer, warp_in_group, lane;
  const Descriptor strides;
  // Stage 0's descriptors. A descriptor holds the start address >> 4 in its low 14 bits, and no
  // address of shared memory carries out of them, so moving a descriptor by a byte offset is
  // adding offset >> 4 to the 64-bit value.
  const std::uint64_t a_stage0, b_stage0;
  unsigned char* const staging;  // the consumers' staging buffers
  float* const partials;         // the workspace: the split units' partial sums (slot_of)
  int* const arrivals;           // and the sharers counted in (arrival_of)
  // TMA stores C (tma_stores_c). An int, not a bool: held as a bool, ptxas serialised the wgmma of
  // some kernels (C7511, docs/results/trials/2026-12-02-kloop-spill-h200/ptxas-variants.txt).
  const int store_with_tma;
  const bool leader;  // issues the consumer's TMA stores
  // C's lines go first when L2 needs room: C is written once and not read again here, while the
  // tiles of A and B are read by many blocks.
  const std::uint64_t c_policy;
  // The f32 accumulators, and with promotion the tensor cores' sum of the current interval (the
  // kernel's registers).
  float (&acc)[kBn / 2];
  float (&interval_sum)[kPromote ? kBn / 2 : 1];
  // Its place among the stages (PipelineState: phase, then stage, the order the kernel was tuned
  // with, mapping.hpp) and the staging buffer's half its next slice takes.
  PipelineState pipeline;
  int staging_half = 0;

  __device__ __forceinline__ Consumer(const CUtensorMap& c_map, const GemmShape& shape, const Block& block, float alpha,
                                      const float* scale_a, const float* scale_b, float beta, Out* c,
                                      float* partials, int* arrivals, unsigned char* shared, int warpgroup,
                                      float (&acc)[kBn / 2], float (&interval_sum)[kPromote ? kBn / 2 : 1])
      : c_map(c_map), shape(shape), block(block),
        alpha(alpha), beta(beta), c(c),
        consumer(kUniform ? int(__reduce_min_sync(0xffffffffu, unsigned(warpgroup - 1))) : warpgroup - 1),
        warp_in_group((int(threadIdx.x) / kWarpSize) % (kWarpgroup / kWarpSize)),
        lane(int(threadIdx.x) % kWarpSize),
        strides(descriptor_strides()),
        a_stage0(wgmma_descriptor(block.stage0 + operand_offset(consumer, 0), strides)),
        b_stage0(wgmma_descriptor(block.stage0 + a_tile_bytes(kConfigs[kConfig]), strides)),
        staging(shared + (block.stage0 - gemm::shared_address(shared)) +
                kConfigs[kConfig].stages * stage_bytes(kConfigs[kConfig])),
        partials(partials),
        arrivals(arrivals),
        store_with_tma(tma_stores_c(shape, beta, kOutBytes)),
        leader(threadIdx.x % kWarpgroup == 0),
        c_policy(gemm::evict_first_policy()),
        acc(acc),
        interval_sum(interval_sum) {
    // The per-tensor scales multiply alpha once: the kernel sums the FP8 values as they are stored.
    if (scale_a) this->alpha *= *scale_a;
    if (scale_b) this->alpha *= *scale_b;
#pragma unroll
    for (int i = 0; i < kBn / 2; ++i) acc[i] = 0.0f;
  }

  // What wgmma adds into: the interval's sum, or without promotion the accumulators themselves.
  __device__ __forceinline__ float (&chain())[kBn / 2] {
    return *reinterpret_cast<float(*)[kBn / 2]>(kPromote ? interval_sum : acc);
  }

  // The consumer's main loop: each of the block's tiles multiplied, then stored, after the tile or
  // (kUnderNextTile, where TMA stores C) under the next tile's first products.
  __device__ __forceinline__ void consume_tiles() {
    constexpr Config cfg = kConfigs[kConfig];
    const bool store_under_next_tile = kUnderNextTile && store_with_tma;
    // No empty asm settles store_with_tma here, as in steps 20 and 21: with one, ptxas serialised the
    // 176-column tile's wgmma (C7511, docs/results/trials/2026-12-05-pin-ptxas/README.md).
    bool pending = false;  // the tile last multiplied, not yet stored
    TileCoord last{};
    // Under the next tile's first products: the last tile's epilogue, then fresh accumulators.
    auto under_first_products = [&] {
      if (pending) epilogue<true>(last);
      pending = false;
#pragma unroll
      for (int i = 0; i < kBn / 2; ++i) acc[i] = 0.0f;  // the interval sums of the new tile add into these
    };
    for_each_work<kSplit>(block, shape, cfg, [&](int unit, int kt_begin, int kt_end, int piece) {
      constexpr Config cfg = kConfigs[kConfig];
      const TileCoord tile = tile_at(unit, block.rank, shape, cfg);
      const int k_tile_count = kt_end - kt_begin;
      if constexpr (cfg.bn > kNarrowCols) {
        if (narrow_tile(tile.n, shape, cfg)) multiply_tile<kNarrowCols>(k_tile_count, under_first_products);
        else multiply_tile<cfg.bn>(k_tile_count, under_first_products);
      } else {
        multiply_tile<cfg.bn>(k_tile_count, under_first_products);
      }
      if (tile.m >= tiles_m(shape, cfg)) return;  // below C (a cluster's second tile): nothing to store
      if constexpr (kSplit)
        if (piece >= 0 && !add_up_split_unit(piece_of(block.schedule, block.cluster, piece))) return;
      if (store_under_next_tile) pending = true, last = tile;
      else epilogue<false>(tile);
    });
    if constexpr (kUnderNextTile)
      if (pending) epilogue<true>(last);
    if (store_with_tma && leader) gemm::tma_store_wait_all();
  }

  // A stage is handed back to the producer of every block of the cluster (each wrote into it).
  __device__ __forceinline__ void release(int stage_done) const {
    gemm::barrier_arrive(block.empty(stage_done));
    if constexpr (kConfigs[kConfig].cluster > 1)
      gemm::barrier_arrive_in(block.empty(stage_done), std::uint32_t(block.rank ^ 1));
  }

  // --- A split unit's partial sums added up (this step) ---

  // The last of a split unit's sharers to finish adds the others' partial sums to its own and stores
  // the tile (true); the others write theirs to their slots (slot_of). A consumer counts its 64 rows
  // in as a whole (arrival_of), the barrier telling every thread whether it was last. The sum runs
  // in the sharers' order, the same bits whichever is last (step 11's rule); the first sharer, which
  // usually finishes last, keeps its partial in registers (0 + acc: what reading it back adds).
  __device__ __forceinline__ bool add_up_split_unit(const Piece& piece) {
    constexpr Config cfg = kConfigs[kConfig];
    if (sharers(piece) == 1) return true;  // a run that holds the whole unit
    const int warp = consumer * (kWarpgroup / kWarpSize) + warp_in_group;
    int* const arrived = arrivals + arrival_of(block.schedule, piece.unit, block.rank, consumer, cfg);
    bool first_is_last = false;
    if (block.cluster == piece.first_sharer)
      first_is_last = gemm::named_barrier_or<kWarpgroup>(
          1 + consumer, leader && *reinterpret_cast<volatile int*>(arrived) == sharers(piece) - 1);
    if (!first_is_last) {
      float* const mine = partials + (long long)slot_of(block.cluster, piece.index, block.rank, warp, cfg) * slot_floats(cfg);
#pragma unroll
      for (int reg = 0; reg < kBn / 2; reg += kPartialRun)
        __stcg(reinterpret_cast<float4*>(mine + partial_index(lane, reg)),
               make_float4(acc[reg], acc[reg + 1], acc[reg + 2], acc[reg + 3]));
      __threadfence();           // this thread's partials are visible GPU-wide ...
      consumer_sync(consumer);   // ... and every thread's, before the consumer counts itself in
      int before = 0;            // sharers counted in before this one
      if (leader) before = atomicAdd(arrived, 1);
      if (!gemm::named_barrier_or<kWarpgroup>(1 + consumer, leader && before == sharers(piece) - 1)) return false;
    }
    if (leader) *arrived = 0;  // ready for the next launch
    __threadfence();           // the others' partials, counted in before, are read after the count
#pragma unroll
    for (int i = 0; i < kBn / 2; ++i) acc[i] = first_is_last ? 0.0f + acc[i] : 0.0f;
    add_slots(piece, first_is_last ? piece.first_sharer + 1 : piece.first_sharer, warp);
    return true;
  }

  // Sharers first .. last's partials of the piece's unit, added to acc in that order.
  __device__ __forceinline__ void add_slots(const Piece& piece, int first, int warp) {
    constexpr Config cfg = kConfigs[kConfig];
    for (int q = first; q <= piece.last_sharer; ++q) {
      const int slot = slot_of(q, piece_index_of(block.schedule, q, piece.unit), block.rank, warp, cfg);
      const float* const theirs = partials + (long long)slot * slot_floats(cfg);
#pragma unroll
      for (int reg = 0; reg < kBn / 2; reg += kPartialRun) {
        const float4 v = __ldcg(reinterpret_cast<const float4*>(theirs + partial_index(lane, reg)));
        acc[reg] += v.x, acc[reg + 1] += v.y, acc[reg + 2] += v.z, acc[reg + 3] += v.w;
      }
    }
  }

  // The k-tiles of one tile: n = BN, or for a narrow tile n = 64 into the first accumulators (the
  // others keep what they held: their columns lie outside C, so nothing reaches C from them).
  // Each form is a loop of its own, so that nothing but wgmma writes the registers the wgmmas write
  // between their issue and the wait (under the next tile, the epilogue reads and zeroes acc there,
  // which the promoted wgmmas do not write: they write chain()).
  //
  // Without promotion (PROMOTE = 0) the tensor cores sum all of K into the accumulators, as in
  // step 18. With it, they sum each interval of PROMOTE k-tiles into interval_sum, starting afresh
  // (accumulate = 0 on the interval's first k-step); at the interval's end the consumer waits for
  // its products and adds their sum into the f32 accumulators. That wait leaves none of this
  // warpgroup's products in flight while it adds (the other consumer's keep the tensor cores busy
  // meanwhile, where the two are out of step). With kUnderNextTile, under_first_products (the
  // last tile's epilogue, then fresh accumulators) runs while the first k-tile's products do.
  template <int kCols, typename Under>
  __device__ __forceinline__ void multiply_tile(int k_tile_count, Under&& under_first_products) {
    int previous = -1;    // the stage whose products may still be running
    int in_interval = 0;  // k-tiles of the current interval before this one
    if constexpr (kUnderNextTile) {
      // The first k-tile apart, so that what runs under its products is not inside the loop.
      multiply_k_tile<kCols>(0, k_tile_count, previous, in_interval, under_first_products);
      for (int kt = 1; kt < k_tile_count; ++kt) multiply_k_tile<kCols>(kt, k_tile_count, previous, in_interval, [] {});
    } else {
      if constexpr (kPromote) {
#pragma unroll
        for (int i = 0; i < kCols / 2; ++i) acc[i] = 0.0f;
      }
      for (int kt = 0; kt < k_tile_count; ++kt) multiply_k_tile<kCols>(kt, k_tile_count, previous, in_interval, [] {});
    }
    gemm::wgmma_wait<0>();
    gemm::pin(chain());
    if (previous >= 0 && lane == 0) release(previous);
  }

  // One k-tile of the tile; under_products runs while its products are in flight.
  template <int kCols, typename Under>
  __device__ __forceinline__ void multiply_k_tile(int kt, int k_tile_count, int& previous, int& in_interval, Under&& under_products) {
    constexpr Config cfg = kConfigs[kConfig];
    float(&sum)[kCols / 2] = *reinterpret_cast<float(*)[kCols / 2]>(acc);
    float(&d)[kCols / 2] = *reinterpret_cast<float(*)[kCols / 2]>(chain());
    gemm::barrier_wait(block.full(pipeline.stage), pipeline.phase);
    [[maybe_unused]] const std::uint32_t a_tile = block.stage0 + std::uint32_t(pipeline.stage * stage_bytes(cfg)),
                                         b_tile = a_tile + a_tile_bytes(cfg);
    gemm::wgmma_fence();
    gemm::pin(chain());
    const bool fresh = kPromote ? in_interval == 0 : kt == 0;  // the first k-step overwrites d
#pragma unroll
    for (int kk = 0; kk < cfg.bk / kWgmmaK; ++kk) {
      if constexpr (kUniform) {  // stage 0's descriptors moved by the stage and the k-step
        const std::uint64_t at = descriptor_offset(stage_bytes(cfg), pipeline.stage, kk);
        gemm::wgmma_m64k32<InA, InB>(d, a_stage0 + at, b_stage0 + at, !fresh || kk > 0);
      } else {
        gemm::wgmma_m64k32<InA, InB>(d, wgmma_descriptor(a_tile + operand_offset(consumer, kk), strides),
                                     wgmma_descriptor(b_tile + operand_offset(0, kk), strides), !fresh || kk > 0);
      }
    }
    gemm::wgmma_commit();
    under_products();
    if (kPromote && promotion_ends(in_interval, kt, k_tile_count, cfg)) {
      // Promotion: this interval's products are done (so are its stages), and their sum is added
      // in f32.
      gemm::wgmma_wait<0>();
      gemm::pin(chain());
      if (lane == 0) {
        if (previous >= 0) release(previous);
        release(pipeline.stage);
      }
      previous = -1;
      in_interval = 0;
#pragma unroll
      for (int i = 0; i < kCols / 2; ++i) sum[i] += d[i];
    } else {
      // One group stays in flight: the previous k-tile's products are done, so its stage can be
      // handed back to the producer while this one's run.
      gemm::wgmma_wait<1>();
      gemm::pin(chain());
      if (previous >= 0 && lane == 0) release(previous);
      previous = pipeline.stage;
    }
    pipeline.advance(cfg);
  }

  // Epilogue: the tile's results to C, as store_path says (mapping.hpp). 16-bit output goes
  // through TMA as 16 bits (64 columns a slice), everything else is staged as f32 (32 columns).
  template <bool kUnderNext>
  __device__ __forceinline__ void epilogue(const TileCoord& tile) {
    constexpr StorePath kPath = store_path(kConfigs[kConfig], kOutBytes, kTmaOnly, kUnderNext);
    constexpr Config cfg = kConfigs[kConfig];
    const int row0 = consumer_row0(tile, consumer, cfg), col0 = tile_col0(tile, cfg);
    if constexpr (kPath == StorePath::tma) {
      store_tile<kOutBytes>(row0, col0, true);
    } else if constexpr (kPath == StorePath::read_back) {
      store_tile<4>(row0, col0, false);
    } else if constexpr (kOutBytes == 2) {
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

  // One slice: the accumulators of its columns (from kFirst), times alpha, into its half of the
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

// kTmaOnly: compiled with TMA's store path alone (has_tma_only_kernel), for the problems where it
// stores C (launches_tma_only_kernel); its twin, with the read-back path alone (read_back_only).
// kSplit: with the pieces' code, which slows the kernel where nothing splits (the performance log, step 23).
template <typename InA, typename InB, typename Out, int kConfig, bool kTmaOnly, bool kSplit>
__global__ void __launch_bounds__(threads(kConfigs[kConfig]), 1)
    fp8_gemm(const __grid_constant__ CUtensorMap a_map, const __grid_constant__ CUtensorMap b_map,
             const __grid_constant__ CUtensorMap c_map, GemmShape shape, float alpha, const float* scale_a,
             const float* scale_b, float beta, Out* __restrict__ c, Schedule schedule, float* partials, int* arrivals) {
#if defined(__CUDA_ARCH_FEAT_SM90_ALL)
  constexpr Config cfg = kConfigs[kConfig];
  constexpr int kConsumerWarps = consumers(cfg) * (kWarpgroup / kWarpSize);
  static_assert(consumer_registers(cfg) >= registers_at_start(cfg), "setmaxnreg.inc may not lower the count");
  extern __shared__ __align__(16) unsigned char shared[];
  const std::uint32_t stage0 = (gemm::shared_address(shared) + kSwizzleAtomBytes - 1) & ~std::uint32_t(kSwizzleAtomBytes - 1);
  const std::uint32_t full0 = stage0 + cfg.stages * stage_bytes(cfg) + consumers(cfg) * kStagingBytes;
  const std::uint32_t empty0 = full0 + cfg.stages * kBarrierBytes;
  const TmaOperand a_op = a_operand(shape, cfg), b_op = b_operand(shape, cfg);
  const int warpgroup = int(threadIdx.x) / kWarpgroup;
  const int unit_count = units(shape, cfg), k_tile_count = k_tiles(shape, cfg);
  const int rank = cfg.cluster > 1 ? int(gemm::cluster_rank()) : 0;
  const int cluster = cluster_of(int(blockIdx.x), cfg), clusters = int(gridDim.x) / cfg.cluster;
  const Block block{stage0, full0, empty0, unit_count, k_tile_count, rank, cluster, clusters, schedule};

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
    if (threadIdx.x == 0) produce_tiles<kConfig, kSplit>(a_map, b_map, shape, a_op, b_op, block);
  } else {
    gemm::setmaxnreg_inc<consumer_registers(cfg)>();
    float acc[cfg.bn / 2];
    float interval_sum[cfg.promote > 0 ? cfg.bn / 2 : 1];
    Consumer<InA, InB, Out, kConfig, kTmaOnly, kSplit> consumer(c_map, shape, block, alpha, scale_a, scale_b, beta, c,
                                                                partials, arrivals, shared, warpgroup, acc,
                                                                interval_sum);
    consumer.consume_tiles();
  }
#endif  // sm_90a: the harness refuses other GPUs before launching (only_cc)
}

// --- Host side ----------------------------------------------------------------------------------

inline int config_index(const Config& c) { return gemm::index_of(kConfigs, c); }

// Calls f(kernel) with the instance these types and params select: A e4m3 or e5m2 (--dtype), B
// e4m3; C f32, f16 or bf16; for the configurations compiled twice, the one without the read-back
// path where tma_stores (TMA stores C: tma_stores_c); with the pieces' code where split.
template <typename F>
void with_kernel(gemm::InputType dtype, gemm::OutputType out, const gemm::Params& params, bool tma_stores, bool split,
                 F&& f) {
  gemm::dispatch_index<kConfigCount>(config_index(config_from(params)), [&](auto config) {
    constexpr int kConfig = decltype(config)::value;
    auto with_out = [&](auto a_tag, auto out_tag) {
      using InA = typename decltype(a_tag)::type;
      using Out = typename decltype(out_tag)::type;
      if constexpr (has_tma_only_kernel(kConfigs[kConfig], int(sizeof(Out))))
        if (tma_stores) return split ? f(fp8_gemm<InA, __nv_fp8_e4m3, Out, kConfig, true, true>)
                                     : f(fp8_gemm<InA, __nv_fp8_e4m3, Out, kConfig, true, false>);
      split ? f(fp8_gemm<InA, __nv_fp8_e4m3, Out, kConfig, false, true>) : f(fp8_gemm<InA, __nv_fp8_e4m3, Out, kConfig, false, false>);
    };
    auto with_a = [&](auto a_tag) {
      switch (out) {
        case gemm::OutputType::f32: with_out(a_tag, gemm::TypeTag<float>{}); break;
        case gemm::OutputType::f16: with_out(a_tag, gemm::TypeTag<__half>{}); break;
        case gemm::OutputType::bf16: with_out(a_tag, gemm::TypeTag<__nv_bfloat16>{}); break;
      }
    };
    if (dtype == gemm::InputType::e5m2) with_a(gemm::TypeTag<__nv_fp8_e5m2>{});
    else with_a(gemm::TypeTag<__nv_fp8_e4m3>{});
  });
}

// The instance a problem launches, its shared-memory limit raised.
inline const void* kernel_for(const gemm::Params& params, gemm::InputType dtype, gemm::OutputType out, bool tma_stores,
                              bool split) {
  const void* function = nullptr;
  with_kernel(dtype, out, params, tma_stores, split,
              [&](auto kernel) { function = reinterpret_cast<const void*>(kernel); });
  gemm::allow_dynamic_shared(function, shared_bytes(config_from(params)));
  return function;
}
inline int resident_blocks(const Config& cfg);
// The one a problem launches (its buffers unset), for the resource report.
inline const void* kernel_for(const gemm::TcProblem& p, const gemm::Params& params) {
  const Config cfg = config_from(params);
  return kernel_for(params, p.dtype, p.out, launches_tma_only_kernel(cfg, p.shape, p.beta, gemm::output_bytes(p.out)),
                    schedule_of(p.shape, cfg, resident_blocks(cfg)).split_units > 0);
}

// The blocks of this configuration that can run at once on the current GPU, which the persistent
// grid must not exceed: one per SM, or as many whole clusters as the GPU holds (tma_host.cuh). The
// same for every type.
inline int resident_blocks(const Config& cfg) {
  const int sms = gemm::current_gpu().sms;
  if (cfg.cluster == 1) return sms;
  const void* function = kernel_for(to_params(cfg), gemm::InputType::e4m3, gemm::OutputType::f32, false, false);
  return gemm::resident_blocks_in_clusters(function, launch_shape(GemmShape{sms * cfg.bm, cfg.bn, cfg.bk}, cfg, sms),
                                           cfg.cluster, config_index(cfg));
}

// A tensor map of an operand: its stored matrix (K-major, 1-byte elements) in boxes of 128 k's
// (one swizzled row) by box_outer rows.
inline CUtensorMap operand_map(const void* matrix, const TmaOperand& op) {
  return gemm::tensor_map(matrix, CU_TENSOR_MAP_DATA_TYPE_UINT8, kElementBytes, op.inner, op.outer, kBoxInner, op.box_outer);
}

// The split units' workspace, per device, kept for the program's life: launches in one stream reuse
// it (the last sharer resets its counter to zero); two in flight on two streams would not.
struct SplitWorkspace {
  gemm::DeviceBuffer<float> partials;
  gemm::DeviceBuffer<int> arrivals;
};
inline SplitWorkspace& split_workspace(const Schedule& schedule, const Config& cfg) {
  int device = 0;
  CUDA_CHECK(cudaGetDevice(&device));
  static std::map<int, SplitWorkspace> workspaces;
  SplitWorkspace& w = workspaces[device];
  const size_t floats = size_t(workspace_slots(schedule, cfg)) * size_t(slot_floats(cfg));
  if (w.partials.size() < floats) w.partials = gemm::DeviceBuffer<float>(floats);
  if (w.arrivals.size() < size_t(arrival_counters(schedule, cfg))) {
    w.arrivals = gemm::DeviceBuffer<int>(size_t(arrival_counters(schedule, cfg)));
    CUDA_CHECK(cudaMemset(w.arrivals.data(), 0, w.arrivals.bytes()));
  }
  return w;
}

template <typename Out>
void launch_kernel(void (*kernel)(CUtensorMap, CUtensorMap, CUtensorMap, GemmShape, float, const float*, const float*,
                                  float, Out*, Schedule, float*, int*),
                   const gemm::TcProblem& p, const Config& cfg, const Schedule& schedule, cudaStream_t stream) {
  const CUtensorMap a_map = operand_map(p.a, a_operand(p.shape, cfg));
  const CUtensorMap b_map = operand_map(p.b, b_operand(p.shape, cfg));
  // C as boxes of 128 bytes x 64 rows, only where the kernel stores it with TMA.
  constexpr int kOutBytes = int(sizeof(Out));
  const CUtensorMap c_map = tma_stores_c(p.shape, p.beta, kOutBytes)
                                ? gemm::tensor_map(p.c, gemm::tensor_map_type<Out>(), kOutBytes, p.shape.n, p.shape.m,
                                                   c_box_cols(kOutBytes), kWgmmaM)
                                : CUtensorMap{};
  SplitWorkspace& workspace = split_workspace(schedule, cfg);
  const LaunchShape shape = launch_shape(p.shape, cfg, resident_blocks(cfg));
  const gemm::ClusterLaunch launch(shape, cfg.cluster, stream);
  CUDA_CHECK(cudaLaunchKernelEx(&launch.config, kernel, a_map, b_map, c_map, p.shape, p.alpha, p.scale_a, p.scale_b,
                                p.beta, static_cast<Out*>(p.c), schedule, workspace.partials.data(),
                                workspace.arrivals.data()));
}

inline void launch(const gemm::TcProblem& p, const gemm::Params& params, cudaStream_t stream) {
  const Config cfg = config_from(params);
  const bool tma_stores = launches_tma_only_kernel(cfg, p.shape, p.beta, gemm::output_bytes(p.out));
  const Schedule schedule = schedule_of(p.shape, cfg, resident_blocks(cfg));
  kernel_for(params, p.dtype, p.out, tma_stores, schedule.split_units > 0);
  with_kernel(p.dtype, p.out, params, tma_stores, schedule.split_units > 0,
              [&](auto kernel) { launch_kernel(kernel, p, cfg, schedule, stream); });
  CUDA_CHECK_LAUNCH("fp8_gemm<<<...>>>");
}

}  // namespace step23
