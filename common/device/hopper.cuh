// The Hopper instructions the sm_90a steps issue by inline PTX, each written once: mbarriers, the
// Tensor Memory Accelerator's (TMA) loads and stores and their bulk groups, the fences between
// ordinary and asynchronous accesses, clusters, setmaxnreg, and wgmma's fence and groups (the
// wgmma instructions themselves are in wgmma.cuh). Each wrapper names its section of the PTX ISA,
// https://docs.nvidia.com/cuda/parallel-thread-execution/, by title and anchor (#...): the section
// numbers move between ISA versions, the anchors stay.
//
// Shared-memory operands are 32-bit shared addresses (shared_address), as the instructions take
// them; a barrier is the address of its 8 bytes.
#pragma once

#include <cuda.h>

#include <cstdint>

namespace gemm {

#if defined(__CUDA_ARCH_FEAT_SM90_ALL)

// The shared-memory address of a generic pointer into shared memory.
__device__ __forceinline__ std::uint32_t shared_address(const void* pointer) {
  return static_cast<std::uint32_t>(__cvta_generic_to_shared(pointer));
}

// --- mbarriers ----------------------------------------------------------------------------------
// A barrier in shared memory completes a phase when `arrivals` threads have arrived and the bytes
// announced with arrive.expect_tx have landed; then it starts the next phase, of the other parity.

// PTX ISA, mbarrier.init (#parallel-synchronization-and-communication-instructions-mbarrier-init)
__device__ __forceinline__ void barrier_init(std::uint32_t barrier, int arrivals) {
  asm volatile("mbarrier.init.shared::cta.b64 [%0], %1;\n" ::"r"(barrier), "r"(arrivals));
}
// Initialised barriers become visible to the other threads of the cluster and to TMA.
// PTX ISA, membar / fence (#parallel-synchronization-and-communication-instructions-membar-fence)
__device__ __forceinline__ void fence_barrier_init() {
  asm volatile("fence.mbarrier_init.release.cluster;\n" ::: "memory");
}
// Waits until the phase of the barrier with this parity has completed (try_wait returns false
// after a time the hardware chooses; the loop asks again).
// PTX ISA, mbarrier.test_wait / mbarrier.try_wait
// (#parallel-synchronization-and-communication-instructions-mbarrier-test-wait-try-wait)
__device__ __forceinline__ void barrier_wait(std::uint32_t barrier, std::uint32_t parity) {
  std::uint32_t done = 0;
  while (!done)
    asm volatile(
        "{\n.reg .pred p;\nmbarrier.try_wait.parity.shared::cta.b64 p, [%1], %2;\nselp.u32 %0, 1, 0, p;\n}\n"
        : "=r"(done)
        : "r"(barrier), "r"(parity)
        : "memory");
}
// The producer's arrival: it also announces how many bytes the copies will bring.
// PTX ISA, mbarrier.arrive (#parallel-synchronization-and-communication-instructions-mbarrier-arrive)
__device__ __forceinline__ void barrier_arrive_expect_bytes(std::uint32_t barrier, int bytes) {
  asm volatile("mbarrier.arrive.expect_tx.shared::cta.b64 _, [%0], %1;\n" ::"r"(barrier), "r"(bytes) : "memory");
}
// PTX ISA, mbarrier.arrive (#parallel-synchronization-and-communication-instructions-mbarrier-arrive)
__device__ __forceinline__ void barrier_arrive(std::uint32_t barrier) {
  asm volatile("mbarrier.arrive.shared::cta.b64 _, [%0];\n" ::"r"(barrier) : "memory");
}

// --- Clusters -----------------------------------------------------------------------------------

// This block's rank in its cluster.
// PTX ISA, %cluster_ctarank (#special-registers-cluster-ctarank)
__device__ __forceinline__ std::uint32_t cluster_rank() {
  std::uint32_t rank;
  asm volatile("mov.u32 %0, %%cluster_ctarank;\n" : "=r"(rank));
  return rank;
}
// Every thread of every block of the cluster: what each did before is visible to all after.
// PTX ISA, barrier.cluster (#parallel-synchronization-and-communication-instructions-barrier-cluster)
__device__ __forceinline__ void cluster_sync() {
  asm volatile("barrier.cluster.arrive.release.aligned;\nbarrier.cluster.wait.acquire.aligned;\n" ::: "memory");
}
// An arrival on the barrier at the same place in the shared memory of block `rank` of the cluster.
// PTX ISA, mapa (#data-movement-and-conversion-instructions-mapa), then mbarrier.arrive
__device__ __forceinline__ void barrier_arrive_in(std::uint32_t barrier, std::uint32_t rank) {
  std::uint32_t remote;
  asm volatile("mapa.shared::cluster.u32 %0, %1, %2;\n" : "=r"(remote) : "r"(barrier), "r"(rank));
  asm volatile("mbarrier.arrive.shared::cluster.b64 _, [%0];\n" ::"r"(remote) : "memory");
}

// --- TMA loads: one box of a tensor map into shared memory, completing on a barrier --------------
// A box is named by its first element, `at` (a step's BoxCoord): at.inner along the tensor map's
// contiguous dimension, at.outer along the other.

// PTX ISA, cp.async.bulk.tensor (#data-movement-and-conversion-instructions-cp-async-bulk-tensor)
template <typename Box>
__device__ __forceinline__ void tma_load(std::uint32_t destination, const CUtensorMap* map, Box at, std::uint32_t barrier) {
  asm volatile(
      "cp.async.bulk.tensor.2d.shared::cluster.global.mbarrier::complete_tx::bytes [%0], [%1, {%2, %3}], [%4];\n" ::"r"(
          destination),
      "l"(reinterpret_cast<std::uint64_t>(map)), "r"(at.inner), "r"(at.outer), "r"(barrier)
      : "memory");
}
// The same box into the same place of the shared memory of every block in `blocks` (a bit per rank
// in the cluster), completing on each one's barrier at `barrier`'s place.
// PTX ISA, cp.async.bulk.tensor (#data-movement-and-conversion-instructions-cp-async-bulk-tensor)
template <typename Box>
__device__ __forceinline__ void tma_load_multicast(std::uint32_t destination, const CUtensorMap* map, Box at,
                                                   std::uint32_t barrier, std::uint16_t blocks) {
  asm volatile(
      "cp.async.bulk.tensor.2d.shared::cluster.global.mbarrier::complete_tx::bytes.multicast::cluster [%0], [%1, {%2, "
      "%3}], [%4], %5;\n" ::"r"(destination),
      "l"(reinterpret_cast<std::uint64_t>(map)), "r"(at.inner), "r"(at.outer), "r"(barrier), "h"(blocks)
      : "memory");
}

// --- TMA stores: a box of shared memory to global, tracked in bulk groups by the issuing thread --

// An L2 policy under which the lines a store writes are the first to go when L2 needs room.
// PTX ISA, createpolicy (#data-movement-and-conversion-instructions-createpolicy)
__device__ __forceinline__ std::uint64_t evict_first_policy() {
  std::uint64_t policy;
  asm volatile("createpolicy.fractional.L2::evict_first.b64 %0, 1.0;\n" : "=l"(policy));
  return policy;
}
// The box at `at` of the tensor map from shared memory at `source`.
// PTX ISA, cp.async.bulk.tensor (#data-movement-and-conversion-instructions-cp-async-bulk-tensor)
template <typename Box>
__device__ __forceinline__ void tma_store(const CUtensorMap* map, std::uint32_t source, Box at, std::uint64_t policy) {
  asm volatile("cp.async.bulk.tensor.2d.global.shared::cta.bulk_group.L2::cache_hint [%0, {%2, %3}], [%1], %4;\n" ::"l"(
                   reinterpret_cast<std::uint64_t>(map)),
               "r"(source), "r"(at.inner), "r"(at.outer), "l"(policy)
               : "memory");
}
// The stores issued since the last commit become one bulk group.
// PTX ISA, cp.async.bulk.commit_group (#data-movement-and-conversion-instructions-cp-async-bulk-commit-group)
__device__ __forceinline__ void tma_store_commit() { asm volatile("cp.async.bulk.commit_group;\n" ::: "memory"); }
// Until TMA has read every committed store's shared memory (it may still be writing).
// PTX ISA, cp.async.bulk.wait_group (#data-movement-and-conversion-instructions-cp-async-bulk-wait-group)
__device__ __forceinline__ void tma_store_wait_read() { asm volatile("cp.async.bulk.wait_group.read 0;\n" ::: "memory"); }
// Until every committed store is complete.
// PTX ISA, cp.async.bulk.wait_group (#data-movement-and-conversion-instructions-cp-async-bulk-wait-group)
__device__ __forceinline__ void tma_store_wait_all() { asm volatile("cp.async.bulk.wait_group 0;\n" ::: "memory"); }
// Ordinary shared-memory writes become visible to TMA (the "async proxy").
// PTX ISA, membar / fence (#parallel-synchronization-and-communication-instructions-membar-fence)
__device__ __forceinline__ void fence_for_tma() { asm volatile("fence.proxy.async.shared::cta;\n" ::: "memory"); }

// --- Registers and named barriers ---------------------------------------------------------------

// A warpgroup gives back registers (dec) or takes them (inc): kRegisters per thread from here on.
// PTX ISA, setmaxnreg (#miscellaneous-instructions-setmaxnreg)
template <int kRegisters>
__device__ __forceinline__ void setmaxnreg_dec() {
  asm volatile("setmaxnreg.dec.sync.aligned.u32 %0;\n" ::"n"(kRegisters));
}
// PTX ISA, setmaxnreg (#miscellaneous-instructions-setmaxnreg)
template <int kRegisters>
__device__ __forceinline__ void setmaxnreg_inc() {
  asm volatile("setmaxnreg.inc.sync.aligned.u32 %0;\n" ::"n"(kRegisters));
}
// kThreads threads wait for each other at named barrier `id` (0 is __syncthreads').
// PTX ISA, bar / barrier (#parallel-synchronization-and-communication-instructions-bar)
template <int kThreads>
__device__ __forceinline__ void named_barrier_sync(int id) {
  asm volatile("bar.sync %0, %1;\n" ::"r"(id), "n"(kThreads) : "memory");
}
// The same, and each learns whether any of them passed true.
// PTX ISA, bar.red (#parallel-synchronization-and-communication-instructions-bar)
template <int kThreads>
__device__ __forceinline__ bool named_barrier_or(int id, bool value) {
  std::uint32_t any;
  asm volatile(
      "{\n .reg .pred mine, theirs;\n setp.ne.u32 mine, %1, 0;\n bar.red.or.pred theirs, %2, %3, mine;\n"
      " selp.u32 %0, 1, 0, theirs;\n}\n"
      : "=r"(any)
      : "r"(std::uint32_t(value)), "r"(id), "n"(kThreads)
      : "memory");
  // Every thread has the same answer, but ptxas cannot see it through bar.red: read from lane 0,
  // it is known to be the same across the warp, so a branch on it does not split the warp, and
  // what a loop carries past that branch (the pipeline's stage and phase) stays in uniform
  // registers. (Taken as it came, it slowed step 23's k-loop: the performance log, step 23.)
  return __shfl_sync(0xffffffffu, any, 0) != 0;
}

// --- wgmma's fence and groups ---------------------------------------------------------------------

// Register accesses before it are ordered before the wgmma that follow.
// PTX ISA, wgmma.fence (#asynchronous-warpgroup-level-matrix-instructions-wgmma-fence)
__device__ __forceinline__ void wgmma_fence() { asm volatile("wgmma.fence.sync.aligned;\n" ::: "memory"); }
// The wgmma issued since the last commit become one group.
// PTX ISA, wgmma.commit_group (#asynchronous-warpgroup-level-matrix-instructions-wgmma-commit-group)
__device__ __forceinline__ void wgmma_commit() { asm volatile("wgmma.commit_group.sync.aligned;\n" ::: "memory"); }
// Until at most kPending groups are in flight.
// PTX ISA, wgmma.wait_group (#asynchronous-warpgroup-level-matrix-instructions-wgmma-wait-group)
template <int kPending>
__device__ __forceinline__ void wgmma_wait() {
  asm volatile("wgmma.wait_group.sync.aligned %0;\n" ::"n"(kPending) : "memory");
}
// No instruction: keeps the compiler from moving reads or writes of the accumulators across the
// asynchronous wgmma that owns them between issue and wait.
template <int kCount>
__device__ __forceinline__ void pin(float (&registers)[kCount]) {
#pragma unroll
  for (int i = 0; i < kCount; ++i) asm volatile("" : "+f"(registers[i])::"memory");
}

#endif  // __CUDA_ARCH_FEAT_SM90_ALL

}  // namespace gemm
