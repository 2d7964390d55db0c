// Experiment behind docs/performance-log.md (step 11, "The FFMA ceiling, measured"; step 14, "The
// ceiling of mma.sync on this card"; step 18, "The ceiling of wgmma here"): how fast the multiply
// instruction of each ladder can go on this GPU with no memory traffic at all, the most a step
// built on it could reach.
//  - FFMA (steps 01-10): 16 independent chains of fused multiply-adds per thread.
//  - mma.sync.m16n8k16 bf16 -> f32 (steps 12-14): 16 independent accumulator tiles per warp, the
//    operands held in registers.
//  - step 14's inner loop (performance log, step 14 version 13): the same mma.sync fed by ldmatrix
//    from shared memory one k-step ahead, a 64 x 64 warp tile, 8 warps per SM, with and without the
//    k-tile barrier; no global memory.
//  - wgmma.mma_async m64n256k16 bf16 -> f32 (step 18, sm_90a): two warpgroups per SM, both operands
//    in shared memory, four k-steps a group and one group in flight, as step 18 issues them.
// Each is launched 20 times (short runs, like a 4096^3 GEMM) and then 400 times back to back (long
// enough for the card to reach its power limit); the clock is read inside the last launch. On an
// sm_90 GPU, from the repository root:
//   nvcc -O3 -arch=sm_90a -std=c++17 -I steps/18_tma_store_epilogue -I common/device -I common/host \
//     tools/experiments/instruction_ceilings.cu -o instruction_ceilings && ./instruction_ceilings
#include <cuda_bf16.h>

#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <vector>

#include "mapping.hpp"  // step 18's wgmma descriptor
#include "wgmma.cuh"

namespace {

constexpr int kChains = 16;

__device__ __forceinline__ long long global_ns() {
  long long t;
  asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(t));
  return t;
}
// Two bf16 values in [1, 2) with scrambled mantissas: operands that toggle bits as real data does.
__device__ __forceinline__ std::uint32_t bf16_pair(std::uint32_t x) {
  x *= 2654435761u, x ^= x >> 13, x *= 2246822519u, x ^= x >> 16;
  return (x & 0x007f007fu) | 0x3f803f80u;
}
// Results that nothing reads could be dropped: one impossible store keeps them, and thread 0 of
// block 0 writes the SM clock it saw (MHz) into out[1].
__device__ __forceinline__ void keep(float sum, long long cycles0, long long ns0, float* out) {
  if (sum == 1234.5f) out[0] = sum;
  if (threadIdx.x == 0 && blockIdx.x == 0) out[1] = float(clock64() - cycles0) * 1000.0f / float(global_ns() - ns0);
}

__global__ void __launch_bounds__(256) ffma_loop(int iterations, float* out) {
  const long long cycles0 = clock64(), ns0 = global_ns();
  float acc[kChains];
  const float a = 1.0f + threadIdx.x * 1e-7f, b = 1.0f - threadIdx.x * 1e-7f;
  for (int c = 0; c < kChains; ++c) acc[c] = float(c);
  for (int i = 0; i < iterations; ++i)
#pragma unroll
    for (int c = 0; c < kChains; ++c) acc[c] = fmaf(acc[c], a, b);
  float sum = 0.0f;
  for (float v : acc) sum += v;
  keep(sum, cycles0, ns0, out);
}

__global__ void __launch_bounds__(256) mma_sync_loop(int iterations, float* out) {
  const long long cycles0 = clock64(), ns0 = global_ns();
  std::uint32_t a[4];
  for (int r = 0; r < 4; ++r) a[r] = bf16_pair(threadIdx.x * 8 + r);
  const std::uint32_t b0 = bf16_pair(threadIdx.x * 8 + 4), b1 = bf16_pair(threadIdx.x * 8 + 5);
  float d[kChains][4] = {};
  for (int i = 0; i < iterations; ++i)
#pragma unroll
    for (int c = 0; c < kChains; ++c)
      asm volatile(
          "mma.sync.aligned.m16n8k16.row.col.f32.bf16.bf16.f32 {%0, %1, %2, %3}, {%4, %5, %6, %7}, {%8, %9}, "
          "{%0, %1, %2, %3};\n"
          : "+f"(d[c][0]), "+f"(d[c][1]), "+f"(d[c][2]), "+f"(d[c][3])
          : "r"(a[0]), "r"(a[1]), "r"(a[2]), "r"(a[3]), "r"(b0), "r"(b1));
  float sum = 0.0f;
  for (auto& tile : d) sum += tile[0] + tile[1] + tile[2] + tile[3];
  keep(sum, cycles0, ns0, out);
}

// Step 14's inner loop alone: a warp tile of 64 x 64 (4 x 8 tiles of m16n8, 128 accumulators per
// thread), its fragments loaded with ldmatrix from shared memory one k-step ahead (two sets in
// registers), 8 warps per SM as step 14 runs; no global memory, no epilogue. kBarrier adds step 14's
// one __syncthreads() per k-tile of 4 k-steps (BK = 64). Each ldmatrix reads 512 contiguous bytes
// (conflict-free), a different part of a 32 KB region for each k-step of a cycle of 8.
constexpr int kLdmatrixRegionBytes = 8 * 8 * 512;

__device__ __forceinline__ void ldmatrix_x4(std::uint32_t (&r)[4], std::uint32_t address) {
  asm volatile("ldmatrix.sync.aligned.m8n8.x4.shared.b16 {%0, %1, %2, %3}, [%4];\n"
               : "=r"(r[0]), "=r"(r[1]), "=r"(r[2]), "=r"(r[3])
               : "r"(address));
}

template <bool kBarrier>
__global__ void __launch_bounds__(256, 1) mma_ldmatrix_loop(int iterations, float* out) {
  const long long cycles0 = clock64(), ns0 = global_ns();
  __shared__ __align__(16) std::uint32_t region[kLdmatrixRegionBytes / 4];
  for (int i = int(threadIdx.x); i < kLdmatrixRegionBytes / 4; i += int(blockDim.x)) region[i] = bf16_pair(std::uint32_t(i));
  __syncthreads();
  const int lane = int(threadIdx.x) % 32;
  const std::uint32_t base = static_cast<std::uint32_t>(__cvta_generic_to_shared(region)) + std::uint32_t(lane * 16);
  struct Fragments {
    std::uint32_t a[4][4], b[4][4];  // 4 m16 x k16 tiles of A; 4 pairs of k16 x n8 tiles of B
  };
  Fragments frags[2];
  auto load = [&](Fragments& f, int step) {  // step: the k-step within the cycle of 8
#pragma unroll
    for (int i = 0; i < 4; ++i) ldmatrix_x4(f.a[i], base + std::uint32_t((step * 8 + i) * 512));
#pragma unroll
    for (int j = 0; j < 4; ++j) ldmatrix_x4(f.b[j], base + std::uint32_t((step * 8 + 4 + j) * 512));
  };
  float acc[4][8][4] = {};
  load(frags[0], 0);
  for (int i = 0; i < iterations; ++i)
#pragma unroll
    for (int step = 0; step < 8; ++step) {
      if (kBarrier && step % 4 == 3) __syncthreads();
      load(frags[(step + 1) % 2], (step + 1) % 8);
      const Fragments& f = frags[step % 2];
#pragma unroll
      for (int m = 0; m < 4; ++m)
#pragma unroll
        for (int n = 0; n < 8; ++n)
          asm volatile(
              "mma.sync.aligned.m16n8k16.row.col.f32.bf16.bf16.f32 {%0, %1, %2, %3}, {%4, %5, %6, %7}, {%8, %9}, "
              "{%0, %1, %2, %3};\n"
              : "+f"(acc[m][n][0]), "+f"(acc[m][n][1]), "+f"(acc[m][n][2]), "+f"(acc[m][n][3])
              : "r"(f.a[m][0]), "r"(f.a[m][1]), "r"(f.a[m][2]), "r"(f.a[m][3]), "r"(f.b[n / 2][(n % 2) * 2]),
                "r"(f.b[n / 2][(n % 2) * 2 + 1]));
    }
  float sum = 0.0f;
  for (auto& row : acc)
    for (auto& tile : row) sum += tile[0] + tile[1] + tile[2] + tile[3];
  keep(sum, cycles0, ns0, out);
}

constexpr int kOperandBytes = 8192 + 32768;  // A: 64 rows x 128 bytes; B: 256 rows x 128 bytes
constexpr int kWgmmaSharedBytes = kOperandBytes + step18::kSwizzleAtomBytes;

__global__ void __launch_bounds__(256, 1) wgmma_loop(int iterations, float* out) {
#if defined(__CUDA_ARCH_FEAT_SM90_ALL)
  const long long cycles0 = clock64(), ns0 = global_ns();
  extern __shared__ __align__(16) unsigned char shared[];
  const std::uint32_t start = static_cast<std::uint32_t>(__cvta_generic_to_shared(shared));
  const std::uint32_t base = (start + step18::kSwizzleAtomBytes - 1) & ~std::uint32_t(step18::kSwizzleAtomBytes - 1);
  unsigned char* operands = shared + (base - start);
  for (int i = int(threadIdx.x); i < kOperandBytes / 4; i += int(blockDim.x))
    reinterpret_cast<std::uint32_t*>(operands)[i] = bf16_pair(std::uint32_t(i));
  asm volatile("fence.proxy.async.shared::cta;\n" ::: "memory");  // visible to the tensor cores
  __syncthreads();
  const step18::Descriptor k_major{16, step18::kSwizzleAtomBytes};
  float acc[128] = {};
  for (int i = 0; i < iterations; ++i) {
    asm volatile("wgmma.fence.sync.aligned;\n" ::: "memory");
#pragma unroll
    for (int kk = 0; kk < 4; ++kk)
      gemm::wgmma_m64k16<__nv_bfloat16, 0, 0>(acc, step18::wgmma_descriptor(base + kk * 32, k_major),
                                                step18::wgmma_descriptor(base + 8192 + kk * 32, k_major), 1);
    asm volatile("wgmma.commit_group.sync.aligned;\n" ::: "memory");
    asm volatile("wgmma.wait_group.sync.aligned 1;\n" ::: "memory");
  }
  asm volatile("wgmma.wait_group.sync.aligned 0;\n" ::: "memory");
  float sum = 0.0f;
  for (float v : acc) sum += v;
  keep(sum, cycles0, ns0, out);
#endif
}

// Times `launches` launches back to back; prints the median rate of the first and last five and
// the clock inside the last launch.
template <typename Launch>
void measure(const char* name, const Launch& launch, double flops_per_launch, int launches, float* out) {
  std::vector<cudaEvent_t> events(launches + 1);
  for (auto& e : events) cudaEventCreate(&e);
  launch();  // warm-up
  cudaDeviceSynchronize();
  cudaEventRecord(events[0]);
  for (int i = 0; i < launches; ++i) launch(), cudaEventRecord(events[i + 1]);
  cudaEventSynchronize(events[launches]);
  std::vector<float> ms(launches);
  for (int i = 0; i < launches; ++i) cudaEventElapsedTime(&ms[i], events[i], events[i + 1]);
  auto median_of = [](std::vector<float> v) { std::sort(v.begin(), v.end()); return v[v.size() / 2]; };
  const float first = median_of({ms.begin(), ms.begin() + 5}), last = median_of({ms.end() - 5, ms.end()});
  float seen[2] = {};
  cudaMemcpy(seen, out, sizeof(seen), cudaMemcpyDeviceToHost);
  std::printf("%-40s %4d launches of %7.3f ms: first %7.1f TFLOPS, last %7.1f TFLOPS, clock %4.0f MHz\n", name, launches,
              last, flops_per_launch / (first * 1e9), flops_per_launch / (last * 1e9), seen[1]);
  for (auto& e : events) cudaEventDestroy(e);
}

}  // namespace

int main() {
  cudaDeviceProp gpu{};
  if (cudaGetDeviceProperties(&gpu, 0) != cudaSuccess) return std::printf("no GPU\n"), 77;
  const int sms = gpu.multiProcessorCount;
  std::printf("%s, %d SMs, compute capability %d.%d\n", gpu.name, sms, gpu.major, gpu.minor);
  float* out = nullptr;
  cudaMalloc(&out, 2 * sizeof(float));
  cudaFuncSetAttribute(wgmma_loop, cudaFuncAttributeMaxDynamicSharedMemorySize, kWgmmaSharedBytes);
  for (int launches : {20, 400}) {
    const int scale = launches == 20 ? 1 : 10;  // the long runs also run 10x longer launches
    for (int warps_per_sm : {8, 16}) {
      const int blocks = sms * warps_per_sm / 8, threads = blocks * 256;
      char name[64];
      std::snprintf(name, sizeof(name), "FFMA, %d warps/SM", warps_per_sm);
      const int ffma_iterations = 4000 * scale;
      measure(name, [&] { ffma_loop<<<blocks, 256>>>(ffma_iterations, out); }, 2.0 * kChains * ffma_iterations * threads,
              launches, out);
      std::snprintf(name, sizeof(name), "mma.sync m16n8k16, %d warps/SM", warps_per_sm);
      const int mma_iterations = 2000 * scale;
      measure(name, [&] { mma_sync_loop<<<blocks, 256>>>(mma_iterations, out); },
              2.0 * 16 * 8 * 16 * kChains * mma_iterations * (threads / 32), launches, out);
    }
    const int ldmatrix_iterations = 200 * scale;  // 8 k-steps of 32 mma.sync per warp each
    const double ldmatrix_flops = 2.0 * 16 * 8 * 16 * 32 * 8 * ldmatrix_iterations * 8 * sms;
    measure("step 14's loop: ldmatrix + mma.sync, 8 warps/SM",
            [&] { mma_ldmatrix_loop<false><<<sms, 256>>>(ldmatrix_iterations, out); }, ldmatrix_flops, launches, out);
    measure("  ... with a barrier every 4 k-steps", [&] { mma_ldmatrix_loop<true><<<sms, 256>>>(ldmatrix_iterations, out); },
            ldmatrix_flops, launches, out);
    if (gpu.major == 9) {
      const int iterations = 400 * scale;
      measure("wgmma m64n256k16, 2 warpgroups/SM", [&] { wgmma_loop<<<sms, 256, kWgmmaSharedBytes>>>(iterations, out); },
              2.0 * 64 * 256 * 16 * 4 * iterations * 2 * sms, launches, out);
    }
  }
  const cudaError_t status = cudaDeviceSynchronize();
  std::printf("%s\n", cudaGetErrorString(status));
  return status == cudaSuccess ? 0 : 3;
}
