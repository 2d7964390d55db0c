// Step 11, the last wave split along k: step 10's pipelined kernel for the whole tiles, and a second
// kernel that shares the tiles of a partial last wave out over a wave of blocks along k, launched
// first (on sm_90, the whole tiles' launch overlaps it: programmatic dependent launch). Needs sm_80.
#pragma once

#include <map>

#include "cuda_check.cuh"
#include "device_buffer.cuh"
#include "dispatch.hpp"
#include "epilogue.hpp"
#include "gpu.cuh"
#include "mapping.hpp"
#include "run_step.cuh"

namespace step11 {

// cp.async, the asynchronous copy global -> shared (PTX ISA, "cp.async"). A source size below the
// copy size fills the rest with zeros: a source size of 0 reads nothing and writes zeros, which is
// how a copy that falls outside the matrix is made (its address is computed but never read).
// 4-byte copies go through L1 (.ca); 16-byte ones may bypass it (.cg): each tile is read once.
// The access model prices the two kinds differently; mapping.hpp names which is which.
__device__ inline void cp_async_4(float* shared_dst, const float* global_src, bool inside) {
  static_assert(!kElementCopyBypassesL1, "the 4-byte copies are cp.async.ca: change mapping.hpp with them");
  const unsigned dst = static_cast<unsigned>(__cvta_generic_to_shared(shared_dst));
  asm volatile("cp.async.ca.shared.global [%0], [%1], 4, %2;\n" ::"r"(dst), "l"(global_src), "r"(inside ? 4 : 0));
}
__device__ inline void cp_async_16(float* shared_dst, const float* global_src, bool inside) {
  static_assert(kChunkCopyBypassesL1, "the 16-byte copies are cp.async.cg: change mapping.hpp with them");
  const unsigned dst = static_cast<unsigned>(__cvta_generic_to_shared(shared_dst));
  asm volatile("cp.async.cg.shared.global [%0], [%1], 16, %2;\n" ::"r"(dst), "l"(global_src), "r"(inside ? 16 : 0));
}
// Closes the group of copies issued since the last commit.
__device__ inline void cp_async_commit() { asm volatile("cp.async.commit_group;\n" ::); }
// Waits until at most `kPending` committed groups are still in flight (this thread's copies only:
// a __syncthreads() must follow before other threads read the tile).
template <int kPending>
__device__ inline void cp_async_wait() {
  asm volatile("cp.async.wait_group %0;\n" ::"n"(kPending));
}

// Where a thread's copies start: copy 0 at k-tile 0, from the mapping's functions, computed once.
// The other copies and k-tiles are fixed steps from there (mapping.hpp: a_copy_row_step, ...).
struct CopyOrigin {
  const float* a_from;  // A element of copy 0 at k-tile 0 (only read when inside A)
  int a_row, a_k;       // its row of A and its k within the tile
  int a_to;             // its offset in a stage
  const float* b_from;  // B chunk (or element) of copy 0 at k-tile 0
  int b_row, b_col;     // its row within the tile and its column of B
  int b_to;
};

template <int kConfig>
__device__ inline CopyOrigin copy_origin(const GemmShape& shape, const ThreadCoord& t, const float* a, const float* b,
                                         bool wide_b) {
  constexpr Config cfg = kConfigs[kConfig];
  CopyOrigin o;
  const MatrixCoord a0 = a_source(shape, t, cfg, 0, 0);
  o.a_row = a0.row, o.a_k = a0.col;
  o.a_from = a + (long long)a0.row * shape.k + a0.col;
  o.a_to = a_store_index(t, cfg, 0);
  const MatrixCoord b0 = wide_b ? b_chunk_source(shape, t, cfg, 0, 0) : b_element_source(shape, t, cfg, 0, 0);
  o.b_row = b0.row, o.b_col = b0.col;
  o.b_from = b + (long long)b0.row * shape.n + b0.col;
  o.b_to = wide_b ? b_chunk_store_index(t, cfg, 0) : b_element_store_index(t, cfg, 0);
  return o;
}

// Issues this thread's copies of k-tile kt into `stage` (a pointer to one stage of shared memory).
// A copy outside the matrix passes its (unread) address with source size 0: no branch, no select.
template <int kConfig>
__device__ inline void copy_k_tile(const GemmShape& shape, const CopyOrigin& o, int kt, float* stage, bool wide_b) {
  constexpr Config cfg = kConfigs[kConfig];
  const int k_base = kt * cfg.bk;  // first k of this tile
  const bool a_k_inside = o.a_k + k_base < shape.k;
  const float* a_from = o.a_from + k_base;
  const long long a_copy_stride = (long long)a_copy_row_step(cfg) * shape.k;  // floats between copies
#pragma unroll
  for (int copy = 0; copy < a_copies(cfg); ++copy) {
    const int row_offset = copy * a_copy_row_step(cfg);
    cp_async_4(stage + o.a_to + row_offset, a_from + copy * a_copy_stride,
               a_k_inside && o.a_row + row_offset < shape.m);
  }
  const bool b_col_inside = o.b_col < shape.n;
  const float* b_from = o.b_from + (long long)k_base * shape.n;
  if (wide_b) {
    const long long b_copy_stride = (long long)b_chunk_row_step(cfg) * shape.n;
#pragma unroll
    for (int copy = 0; copy < b_chunk_copies(cfg); ++copy)
      cp_async_16(stage + o.b_to + copy * threads(cfg) * kChunk, b_from + copy * b_copy_stride,
                  b_col_inside && o.b_row + k_base + copy * b_chunk_row_step(cfg) < shape.k);
  } else {
    const long long b_copy_stride = (long long)b_element_row_step(cfg) * shape.n;
#pragma unroll
    for (int copy = 0; copy < b_element_copies(cfg); ++copy)
      cp_async_4(stage + o.b_to + copy * threads(cfg), b_from + copy * b_copy_stride,
                 b_col_inside && o.b_row + k_base + copy * b_element_row_step(cfg) < shape.k);
  }
}

// A thread's values of A and B for one step `dot` of the inner loop, from one stage.
template <int kConfig>
__device__ inline void load_fragments(const float* stage, const ThreadCoord& t, int dot, float* a_values,
                                      float* b_values) {
  constexpr Config cfg = kConfigs[kConfig];
#pragma unroll
  for (int i = 0; i < cfg.tm; i += kChunk) {
    const float4 v = *reinterpret_cast<const float4*>(&stage[a_load_index(t, cfg, dot, i)]);
    a_values[i] = v.x, a_values[i + 1] = v.y, a_values[i + 2] = v.z, a_values[i + 3] = v.w;
  }
#pragma unroll
  for (int j = 0; j < cfg.tn; j += kChunk) {
    const float4 v = *reinterpret_cast<const float4*>(&stage[b_load_index(t, cfg, dot, j)]);
    b_values[j] = v.x, b_values[j + 1] = v.y, b_values[j + 2] = v.z, b_values[j + 3] = v.w;
  }
}

// k-tiles [kt_begin, kt_end) of the tile in t.block, multiplied into acc through the pipeline.
template <int kConfig, bool kWideBC>
__device__ __forceinline__ void multiply(const GemmShape& shape, const ThreadCoord& t, const float* __restrict__ a,
                                         const float* __restrict__ b, int kt_begin, int kt_end, float* stages,
                                         float (&acc)[kConfigs[kConfig].tm][kConfigs[kConfig].tn]) {
  constexpr Config cfg = kConfigs[kConfig];
  const CopyOrigin origin = copy_origin<kConfig>(shape, t, a, b, kWideBC);
  float a_values[cfg.tm], b_values[cfg.tn];

  // Prologue: start the copies of the first STAGES - 1 k-tiles. Every slot commits a group, empty or
  // not, so that the number of groups still in flight says which tiles have landed.
#pragma unroll
  for (int ahead = 0; ahead < k_tile_copied_in(0, cfg); ++ahead) {
    if (kt_begin + ahead < kt_end)
      copy_k_tile<kConfig>(shape, origin, kt_begin + ahead, stages + ahead * stage_floats(cfg), kWideBC);
    cp_async_commit();
  }
  cp_async_wait<groups_in_flight_after_prologue(cfg)>();  // the first tile has landed (this thread's copies) ...
  __syncthreads();                  // ... everyone's
  // The stages of tile kt and of tile kt + STAGES - 1, kept as running indices instead of computing
  // (kt - kt_begin) % STAGES in the loop.
  int read_stage = 0, refill_stage = cfg.stages - 1;

  for (int kt = kt_begin; kt < kt_end; ++kt) {
    const float* stage = stages + read_stage * stage_floats(cfg);
#pragma unroll
    for (int dot = 0; dot < cfg.bk; ++dot) {
      load_fragments<kConfig>(stage, t, dot, a_values, b_values);
      if (dot == cfg.bk - 1) {
        // The one barrier of the tile sits here, with the last step's values already in registers:
        // a warp leaving the barrier has TM*TN multiply-adds ready to issue instead of waiting on
        // shared memory. Before it: wait for tile kt + 1 (STAGES - 3 newer groups may stay in
        // flight). After it every warp is past tile kt (its last step is in registers), so the stage
        // of tile kt - 1 takes tile kt + STAGES - 1.
        cp_async_wait<groups_in_flight(cfg)>();
        __syncthreads();
        // Past the end of the run the copies still go out (outside the matrix they read nothing and
        // store zeros) into stages no one reads again: cheaper than a branch around them.
        copy_k_tile<kConfig>(shape, origin, k_tile_copied_in(kt, cfg), stages + refill_stage * stage_floats(cfg), kWideBC);
        cp_async_commit();
      }
#pragma unroll
      for (int i = 0; i < cfg.tm; ++i)
#pragma unroll
        for (int j = 0; j < cfg.tn; ++j) acc[i][j] += a_values[i] * b_values[j];
    }
    refill_stage = read_stage;
    read_stage = next_stage(read_stage, cfg);
  }
  cp_async_wait<0>();  // no copy may still target shared memory when the stages are reused or freed
}

// C = alpha * acc + beta * C for the tile in t.block.
template <int kConfig, bool kWideBC>
__device__ __forceinline__ void store_c(const GemmShape& shape, const ThreadCoord& t, float alpha,
                                        const float (&acc)[kConfigs[kConfig].tm][kConfigs[kConfig].tn], float beta,
                                        float* __restrict__ c) {
  constexpr Config cfg = kConfigs[kConfig];
#pragma unroll
  for (int i = 0; i < cfg.tm; ++i) {
    if (kWideBC) {
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

// The other sharers' partial sums of the tile, added to acc in block order. Called by the last
// sharer to arrive, once every other sharer is counted in.
template <int kConfig>
__device__ __forceinline__ void add_slots(const Schedule& schedule, const Piece& piece, int first, const ThreadCoord& t,
                                          float (&acc)[kConfigs[kConfig].tm][kConfigs[kConfig].tn],
                                          const float* __restrict__ workspace) {
  constexpr Config cfg = kConfigs[kConfig];
  for (int sharer = first; sharer <= piece.last_sharer; ++sharer) {
    const float* theirs = workspace + (long long)slot_of(schedule, sharer, piece.tile) * slot_floats(cfg);
#pragma unroll
    for (int i = 0; i < cfg.tm; ++i)
#pragma unroll
      for (int j = 0; j < cfg.tn; j += kChunk) {
        const float4 v = __ldcg(reinterpret_cast<const float4*>(theirs + partial_index(t, cfg, i, j)));
        acc[i][j] += v.x, acc[i][j + 1] += v.y, acc[i][j + 2] += v.z, acc[i][j + 3] += v.w;
      }
  }
}

// A piece of a split tile: this block's partial sums go to its workspace slot, and the block counts
// itself in. The last of the tile's sharers to arrive then holds the tile's sum in acc (returns
// true) and stores C; the others are done with the tile. Nobody waits for anybody, so the order in
// which the blocks run cannot deadlock. The last one adds the slots up from zero, in block order,
// its own included: the sum is the same to the bit whichever block happens to be last.
// __stcg/__ldcg keep the partials in L2 (the L1 of another SM would not see them).
//
// One shortcut: the tile's first sharer, finding every other sharer already counted in, is the last
// and can keep its partial sums in registers: no slot written, none read back. In block order its
// partial comes first, and 0 + acc is what reading it back from its slot would have added (the same
// bits, -0 included). A split tile's first sharer is the block that comes in from the tile before,
// on the second piece of its run; it starts on the tile last and usually finishes it last.
template <int kConfig>
__device__ __forceinline__ bool add_up_split_tile(const Schedule& schedule, const Piece& piece, int block,
                                                  const ThreadCoord& t,
                                                  float (&acc)[kConfigs[kConfig].tm][kConfigs[kConfig].tn],
                                                  float* __restrict__ workspace, int* __restrict__ arrivals) {
  constexpr Config cfg = kConfigs[kConfig];
  __shared__ int arrived_before;
  if (thread_id(t) == 0)
    arrived_before = block == piece.first_sharer ? *reinterpret_cast<volatile int*>(&arrivals[piece.tile]) : -1;
  __syncthreads();
  if (arrived_before == sharers(piece) - 1) {
    if (thread_id(t) == 0) arrivals[piece.tile] = 0;  // ready for the next launch
    __threadfence();  // the other sharers' partials, counted in before us, are read after the count
#pragma unroll
    for (int i = 0; i < cfg.tm; ++i)
#pragma unroll
      for (int j = 0; j < cfg.tn; ++j) acc[i][j] = 0.0f + acc[i][j];
    add_slots<kConfig>(schedule, piece, piece.first_sharer + 1, t, acc, workspace);
    return true;
  }
  __syncthreads();  // everyone has read arrived_before before thread 0 sets it again
  float* mine = workspace + (long long)slot_of(schedule, block, piece.tile) * slot_floats(cfg);
#pragma unroll
  for (int i = 0; i < cfg.tm; ++i)
#pragma unroll
    for (int j = 0; j < cfg.tn; j += kChunk)
      __stcg(reinterpret_cast<float4*>(mine + partial_index(t, cfg, i, j)),
             float4{acc[i][j], acc[i][j + 1], acc[i][j + 2], acc[i][j + 3]});
  __threadfence();  // this thread's partials are visible GPU-wide before the block counts itself in
  __syncthreads();
  if (thread_id(t) == 0) arrived_before = atomicAdd(&arrivals[piece.tile], 1);
  __syncthreads();
  if (arrived_before != sharers(piece) - 1) return false;
  if (thread_id(t) == 0) arrivals[piece.tile] = 0;  // ready for the next launch
  __threadfence();  // the other sharers' partials, counted in before us, are read after the count
#pragma unroll
  for (int i = 0; i < cfg.tm; ++i)
#pragma unroll
    for (int j = 0; j < cfg.tn; ++j) acc[i][j] = 0.0f;
  add_slots<kConfig>(schedule, piece, piece.first_sharer, t, acc, workspace);
  return true;
}

// kWideBC: B and C have 16-byte aligned rows (vector_bc). A template parameter rather than a test in
// the loop, so that the loop body is one straight run of code the compiler can schedule as a whole.
// One whole tile per block, on the tile grid (blockIdx.x, .y = the tile's row and column); the
// blocks of the split tiles, numbered below first_tile, have nothing to do here and leave at once.
template <int kConfig, bool kWideBC>
__global__ void __launch_bounds__(threads(kConfigs[kConfig]),
                                   gemm::launch_min_blocks(threads(kConfigs[kConfig]), kConfigs[kConfig].min_blocks))
    pipelined_sgemm(GemmShape shape, float alpha, const float* __restrict__ a, const float* __restrict__ b,
                    float beta, float* __restrict__ c, int first_tile) {
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 800
  constexpr Config cfg = kConfigs[kConfig];
  extern __shared__ __align__(16) float stages[];  // STAGES x (a_tile_t[BK][BM + 4], b_tile[BK][BN])
  if (tile_index(shape, cfg, {int(blockIdx.x), int(blockIdx.y), 0}) < first_tile) return;
  const ThreadCoord t = gemm::this_thread();
  float acc[cfg.tm][cfg.tn] = {};
  multiply<kConfig, kWideBC>(shape, t, a, b, 0, k_tiles(shape, cfg), stages, acc);
  store_c<kConfig, kWideBC>(shape, t, alpha, acc, beta, c);
#if __CUDA_ARCH__ >= 900
  // Launched to overlap the split kernel (launch(), below): this grid may not complete before that
  // one has, so that whatever follows in the stream sees all of C. Long since true by now.
  cudaGridDependencySynchronize();
#endif
#endif  // sm_80+: the harness refuses older GPUs before launching (min_cc)
}

// The split blocks: each multiplies its run of the split tiles' k-tiles, one piece per tile touched.
// sms: the GPU's multiprocessors, which the schedule is cut for (mapping.hpp, schedule_of);
// workspace and arrivals: the partial sums and the counters (zeros at launch, zeros after it).
template <int kConfig, bool kWideBC>
__global__ void __launch_bounds__(threads(kConfigs[kConfig]),
                                   gemm::launch_min_blocks(threads(kConfigs[kConfig]), kConfigs[kConfig].min_blocks))
    split_sgemm(GemmShape shape, float alpha, const float* __restrict__ a, const float* __restrict__ b,
                float beta, float* __restrict__ c, int sms, float* __restrict__ workspace,
                int* __restrict__ arrivals) {
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 800
  constexpr Config cfg = kConfigs[kConfig];
  extern __shared__ __align__(16) float stages[];
#if __CUDA_ARCH__ >= 900
  // The whole tiles' launch may start now: its blocks take each SM as a split block leaves it,
  // instead of waiting for the whole split grid to drain (they touch other tiles of C).
  cudaTriggerProgrammaticLaunchCompletion();
#endif
  const int block = int(blockIdx.x);
  ThreadCoord t = gemm::this_thread();
  for (int index = 0; index < kMaxPieces; ++index) {
    // The schedule is worked out anew for each piece (a few integer operations) rather than kept in
    // registers through the main loop: measured faster (docs/performance-log.md, version 22).
    const Schedule schedule = schedule_of(shape, cfg, sms);
    const Piece piece = piece_of(schedule, block, index);
    if (!piece.valid) break;
    if (index > 0) __syncthreads();  // every warp is done reading the stages before they are refilled
    t.block = tile_at(shape, cfg, piece.tile);
    float acc[cfg.tm][cfg.tn] = {};
    multiply<kConfig, kWideBC>(shape, t, a, b, piece.kt_begin, piece.kt_end, stages, acc);
    if (sharers(piece) == 1 || add_up_split_tile<kConfig>(schedule, piece, block, t, acc, workspace, arrivals))
      store_c<kConfig, kWideBC>(shape, t, alpha, acc, beta, c);
  }
#endif
}

inline int config_index(const Config& c) { return gemm::index_of(kConfigs, c); }

// The kernel for these params and this B/C alignment, allowed the dynamic shared memory its stages
// need (above 48 KB a kernel must opt in). The attribute is set once per kernel, not in front of
// every timed launch.
inline const void* kernel_for(const gemm::Params& params, bool wide_bc, bool split = false) {
  const Config cfg = config_from(params);
  const int index = config_index(cfg);
  const void* function = nullptr;
  gemm::dispatch_index<kConfigCount>(index, [&](auto i) {
    constexpr int k = decltype(i)::value;
    if (split)
      function = wide_bc ? reinterpret_cast<const void*>(split_sgemm<k, true>)
                         : reinterpret_cast<const void*>(split_sgemm<k, false>);
    else
      function = wide_bc ? reinterpret_cast<const void*>(pipelined_sgemm<k, true>)
                         : reinterpret_cast<const void*>(pipelined_sgemm<k, false>);
  });
  static bool opted_in[2][2][kConfigCount] = {};
  if (!opted_in[split][wide_bc][index]) {
    CUDA_CHECK(cudaFuncSetAttribute(function, cudaFuncAttributeMaxDynamicSharedMemorySize, shared_bytes(cfg)));
    opted_in[split][wide_bc][index] = true;
  }
  return function;
}

// For the resource report: the kernel of this shape's whole tiles, the aligned instance where B's
// and C's rows allow it (vector_bc). A shape whose schedule splits tiles launches split_sgemm too.
inline const void* kernel_for(const GemmShape& shape, const gemm::Params& params) {
  return kernel_for(params, vector_bc(shape));
}

// The split tiles' workspace, per device, grown to the largest schedule seen and kept for the
// program's life. The arrival counters start at zero and every launch leaves them at zero (the last
// sharer of a tile resets its counter), so launches in one stream can reuse them; two launches in
// flight at once on different streams would not share them safely, and this program makes none.
struct SplitWorkspace {
  gemm::DeviceBuffer<float> partials;
  gemm::DeviceBuffer<int> arrivals;
};
inline SplitWorkspace& split_workspace(const Schedule& schedule, const Config& cfg) {
  int device = 0;
  CUDA_CHECK(cudaGetDevice(&device));
  static std::map<int, SplitWorkspace> workspaces;
  SplitWorkspace& w = workspaces[device];
  const size_t floats = size_t(workspace_slots(schedule)) * size_t(slot_floats(cfg));
  if (w.partials.size() < floats) w.partials = gemm::DeviceBuffer<float>(floats);
  if (w.arrivals.size() < size_t(schedule.split_tiles)) {
    w.arrivals = gemm::DeviceBuffer<int>(size_t(schedule.split_tiles));
    CUDA_CHECK(cudaMemset(w.arrivals.data(), 0, w.arrivals.bytes()));
  }
  return w;
}

// Two launches in one stream: the split tiles (when the schedule splits any), then the whole ones.
// (One kernel doing both measured slower: docs/performance-log.md, version 9.)
inline void launch(const gemm::Fp32Problem& p, const gemm::Params& params, cudaStream_t stream) {
  const Config cfg = config_from(params);
  const gemm::CurrentGpu gpu = gemm::current_gpu();
  const int sms = schedule_sms(params, gpu.sms);
  const Schedule schedule = schedule_of(p.shape, cfg, sms);
  const bool wide_bc = vector_bc(p.shape);
  const dim3 block = gemm::to_dim3(launch_shape(p.shape, cfg).block);
  const size_t shared = size_t(shared_bytes(cfg));
  if (schedule.split_blocks > 0) {
    kernel_for(params, wide_bc, true);
    SplitWorkspace& workspace = split_workspace(schedule, cfg);
    float* partials = workspace.partials.data();
    int* arrivals = workspace.arrivals.data();
    const dim3 grid = gemm::to_dim3(split_launch_shape(p.shape, cfg, sms).grid);
    gemm::dispatch_index<kConfigCount>(config_index(cfg), [&](auto index) {
      constexpr int k = decltype(index)::value;
      if (wide_bc)
        split_sgemm<k, true><<<grid, block, shared, stream>>>(p.shape, p.alpha, p.a, p.b, p.beta, p.c, sms, partials, arrivals);
      else
        split_sgemm<k, false><<<grid, block, shared, stream>>>(p.shape, p.alpha, p.a, p.b, p.beta, p.c, sms, partials, arrivals);
    });
    CUDA_CHECK_LAUNCH("split_sgemm<<<...>>>");
  }
  if (whole_blocks(schedule) == 0) return;
  kernel_for(params, wide_bc);
  // After a split launch, on sm_90+, the whole tiles' launch is a programmatic dependent launch: it
  // may begin while the split kernel still runs (the split blocks release it as they start).
  cudaLaunchConfig_t config = {};
  config.gridDim = gemm::to_dim3(launch_shape(p.shape, cfg).grid);
  config.blockDim = block;
  config.dynamicSmemBytes = shared;
  config.stream = stream;
  cudaLaunchAttribute overlap[1];
  overlap[0].id = cudaLaunchAttributeProgrammaticStreamSerialization;
  overlap[0].val.programmaticStreamSerializationAllowed = 1;
  config.attrs = overlap;
  config.numAttrs = schedule.split_blocks > 0 && gpu.cc >= 90 ? 1 : 0;
  gemm::dispatch_index<kConfigCount>(config_index(cfg), [&](auto index) {
    constexpr int k = decltype(index)::value;
    CUDA_CHECK(cudaLaunchKernelEx(&config, wide_bc ? pipelined_sgemm<k, true> : pipelined_sgemm<k, false>, p.shape,
                                  p.alpha, p.a, p.b, p.beta, p.c, schedule.split_tiles));
  });
  CUDA_CHECK_LAUNCH("pipelined_sgemm<<<...>>>");
}

}  // namespace step11
