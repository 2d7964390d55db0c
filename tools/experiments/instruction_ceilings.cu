// The ceilings of the ladder's multiply instructions on this GPU: how fast each can go with no memory
// traffic at all, the most a step built on it could reach (docs/ladder.md, "Peaks and ceilings";
// docs/performance-log.md, step 10 version 16, step 14 versions 11 and 13, step 15).
//  - FFMA (the fp32 steps): 16 independent chains of fused multiply-adds per thread.
//  - mma.sync.m16n8k16 bf16 -> f32 (the mma.sync steps; WMMA compiles to it): 16 independent
//    accumulator tiles per warp, the operands held in registers.
//  - step 14's inner loop (performance log, step 14 version 13): the same mma.sync fed by ldmatrix
//    from shared memory one k-step ahead, a 64 x 64 warp tile, 8 warps per SM, with and without the
//    k-tile barrier; no global memory.
//  - wgmma.mma_async m64n256k16 bf16 -> f32 (the 16-bit wgmma steps, sm_90a): two warpgroups per
//    SM, both operands in shared memory, four k-steps a group and one group in flight, as the
//    persistent steps issue them.
//  - wgmma.mma_async m64n192k32 e4m3 -> f32 (the FP8 steps, sm_90a): the same with the widest FP8
//    tile the steps use.
// Each is launched 20 times back to back (short runs, like a 4096^3 GEMM: "short"), then 400 times
// with launches 10 times longer (long enough for the card to reach its power limit: "sustained").
// Every launch reads the SM clock it ran at (clock64 against %globaltimer), so each launch's rate is
// also given per SM and per clock, which does not depend on the clock the card held.
//
// Built and run on an sm_90 GPU from the repository root (about a minute):
//   nvcc -O3 -arch=sm_90a -std=c++17 -I steps/18_tma_store_epilogue -I common/device -I common/host \
//     tools/experiments/instruction_ceilings.cu -o build/instruction_ceilings
//   build/instruction_ceilings --commit "$(git describe --always --dirty --abbrev=40)" --out docs/results
// --out writes DIR/ceilings-<gpu>.json (schema gemm-steps-ceilings/1, docs/results/README.md), which
// tools/render_docs.py renders (the ceiling and ceilings-table markers). Exit codes: 0, 2 bad usage,
// 3 a CUDA error, 77 no GPU.
#include <cuda_bf16.h>

#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <ctime>
#include <string>
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

// The FP8 form: m64n192k32 e4m3 x e4m3 -> f32, A 64 rows and B 192 rows of 128 bytes (4 k-steps of
// 32 one-byte values), the same descriptors (they count bytes, whatever the type).
constexpr int kFp8OperandBytes = 8192 + 24576;
constexpr int kWgmmaFp8SharedBytes = kFp8OperandBytes + step18::kSwizzleAtomBytes;

__global__ void __launch_bounds__(256, 1) wgmma_fp8_loop(int iterations, float* out) {
#if defined(__CUDA_ARCH_FEAT_SM90_ALL)
  const long long cycles0 = clock64(), ns0 = global_ns();
  extern __shared__ __align__(16) unsigned char shared[];
  const std::uint32_t start = static_cast<std::uint32_t>(__cvta_generic_to_shared(shared));
  const std::uint32_t base = (start + step18::kSwizzleAtomBytes - 1) & ~std::uint32_t(step18::kSwizzleAtomBytes - 1);
  unsigned char* operands = shared + (base - start);
  // e4m3 bytes in [1, 2) with scrambled mantissas (0x38-0x3f), as bf16_pair does for 16 bits.
  for (int i = int(threadIdx.x); i < kFp8OperandBytes / 4; i += int(blockDim.x))
    reinterpret_cast<std::uint32_t*>(operands)[i] = (bf16_pair(std::uint32_t(i)) & 0x07070707u) | 0x38383838u;
  asm volatile("fence.proxy.async.shared::cta;\n" ::: "memory");  // visible to the tensor cores
  __syncthreads();
  const step18::Descriptor k_major{16, step18::kSwizzleAtomBytes};
  float acc[96] = {};
  for (int i = 0; i < iterations; ++i) {
    asm volatile("wgmma.fence.sync.aligned;\n" ::: "memory");
#pragma unroll
    for (int kk = 0; kk < 4; ++kk)
      gemm::wgmma_m64k32<__nv_fp8_e4m3, __nv_fp8_e4m3>(acc, step18::wgmma_descriptor(base + kk * 32, k_major),
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

// One measurement: an instruction in one configuration and phase, as the results file keeps it.
struct Ceiling {
  std::string instruction, label, config, phase;
  int launches = 0;
  double median_ms = 0, tflops = 0, clock_mhz = 0, flop_per_sm_clock = 0, first_tflops = 0, last_tflops = 0;
};

double median(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  return v.empty() ? 0.0 : v[v.size() / 2];
}

// Times `launches` launches back to back, each given its own slot of `slots` (two floats: the
// impossible store and the clock it saw); prints the median rate of the first and last five and the
// median clock, and returns the medians over every launch: time, rate, clock, and rate per SM and
// clock (each launch's rate over its own clock).
template <typename Launch>
Ceiling measure(const char* instruction, const char* label, const char* config, const char* phase,
                const Launch& launch, double flops_per_launch, int launches, int sms, float* slots) {
  std::vector<cudaEvent_t> events(launches + 1);
  for (auto& e : events) cudaEventCreate(&e);
  launch(slots);  // warm-up
  cudaDeviceSynchronize();
  cudaEventRecord(events[0]);
  for (int i = 0; i < launches; ++i) launch(slots + 2 * i), cudaEventRecord(events[i + 1]);
  cudaEventSynchronize(events[launches]);
  std::vector<float> seen(2 * launches);
  cudaMemcpy(seen.data(), slots, seen.size() * sizeof(float), cudaMemcpyDeviceToHost);
  std::vector<double> ms(launches), clocks(launches), per_clock(launches);
  for (int i = 0; i < launches; ++i) {
    float elapsed = 0;
    cudaEventElapsedTime(&elapsed, events[i], events[i + 1]);
    ms[i] = elapsed, clocks[i] = seen[2 * i + 1];
    per_clock[i] = flops_per_launch / (ms[i] * 1e-3) / (double(sms) * clocks[i] * 1e6);
  }
  for (auto& e : events) cudaEventDestroy(e);
  Ceiling c{instruction, label, config, phase, launches};
  c.median_ms = median(ms), c.clock_mhz = median(clocks), c.flop_per_sm_clock = median(per_clock);
  c.tflops = flops_per_launch / (c.median_ms * 1e9);
  c.first_tflops = flops_per_launch / (median({ms.begin(), ms.begin() + 5}) * 1e9);
  c.last_tflops = flops_per_launch / (median({ms.end() - 5, ms.end()}) * 1e9);
  std::printf("%-34s %-16s %4d launches of %8.3f ms: %7.1f TFLOPS (first %7.1f, last %7.1f), %5.0f MHz, "
              "%6.0f FLOP/SM/clock\n", label, config, launches, c.median_ms, c.tflops, c.first_tflops, c.last_tflops,
              c.clock_mhz, c.flop_per_sm_clock);
  return c;
}

std::string slug(const std::string& name) {  // as tools/bench_all.py names results files
  std::string out;
  for (char ch : name) {
    const char lower = char(ch >= 'A' && ch <= 'Z' ? ch - 'A' + 'a' : ch);
    const bool keep_char = (lower >= 'a' && lower <= 'z') || (lower >= '0' && lower <= '9');
    if (keep_char) out += lower;
    else if (!out.empty() && out.back() != '-') out += '-';
  }
  while (!out.empty() && out.back() == '-') out.pop_back();
  return out.empty() ? "unknown-gpu" : out;
}

std::string version_text(int version) {  // 13000 -> "13.0"
  return std::to_string(version / 1000) + "." + std::to_string((version % 1000) / 10);
}

bool write_json(const std::string& path, const cudaDeviceProp& gpu, int clock_mhz, const std::string& commit,
                const std::vector<Ceiling>& ceilings) {
  std::FILE* file = std::fopen(path.c_str(), "w");
  if (!file) return false;
  int driver = 0, runtime = 0;
  cudaDriverGetVersion(&driver);
  cudaRuntimeGetVersion(&runtime);
  char date[32];
  const std::time_t now = std::time(nullptr);
  std::strftime(date, sizeof(date), "%Y-%m-%dT%H:%M:%SZ", std::gmtime(&now));
  std::fprintf(file, "{\n  \"schema\": \"gemm-steps-ceilings/1\",\n  \"program\": \"tools/experiments/instruction_ceilings.cu\",\n");
  std::fprintf(file, "  \"commit\": \"%s\",\n  \"date\": \"%s\",\n", commit.c_str(), date);
  std::fprintf(file, "  \"device\": {\"name\": \"%s\", \"compute_capability\": \"%d.%d\", \"sms\": %d, \"clock_mhz\": %d, "
               "\"driver\": \"%s\", \"runtime\": \"%s\"},\n  \"ceilings\": [\n",
               gpu.name, gpu.major, gpu.minor, gpu.multiProcessorCount, clock_mhz, version_text(driver).c_str(),
               version_text(runtime).c_str());
  for (std::size_t i = 0; i < ceilings.size(); ++i) {
    const Ceiling& c = ceilings[i];
    std::fprintf(file, "    {\"instruction\": \"%s\", \"label\": \"%s\", \"config\": \"%s\", \"phase\": \"%s\", "
                 "\"launches\": %d, \"median_ms\": %.6f, \"tflops\": %.3f, \"first_tflops\": %.3f, "
                 "\"last_tflops\": %.3f, \"clock_mhz\": %.1f, \"flop_per_sm_clock\": %.1f}%s\n",
                 c.instruction.c_str(), c.label.c_str(), c.config.c_str(), c.phase.c_str(), c.launches, c.median_ms,
                 c.tflops, c.first_tflops, c.last_tflops, c.clock_mhz, c.flop_per_sm_clock,
                 i + 1 < ceilings.size() ? "," : "");
  }
  std::fprintf(file, "  ]\n}\n");
  return std::fclose(file) == 0;
}

}  // namespace

int usage(const char* problem) {
  std::fprintf(stderr, "instruction_ceilings: %s\nusage: instruction_ceilings [--out DIR] [--commit HASH]\n"
               "  --out DIR      write DIR/ceilings-<gpu>.json (docs/results for the shipped file)\n"
               "  --commit HASH  the commit the program was built from, for the file\n", problem);
  return 2;
}

int main(int argc, char** argv) {
  std::string out_dir, commit = "unknown";
  for (int i = 1; i < argc; ++i) {
    const std::string arg = argv[i];
    if ((arg == "--out" || arg == "--commit") && i + 1 < argc) (arg == "--out" ? out_dir : commit) = argv[++i];
    else if (arg == "--help") return usage("the ceilings of FFMA, mma.sync and wgmma on this GPU"), 0;
    else return usage(("unknown argument " + arg + " (see --help)").c_str());
  }
  cudaDeviceProp gpu{};
  if (cudaGetDeviceProperties(&gpu, 0) != cudaSuccess) return std::fprintf(stderr, "instruction_ceilings: no GPU\n"), 77;
  // Built for sm_90a alone (docs/ladder.md's command): elsewhere no kernel could launch, and the
  // rates would be of launches that never ran.
  if (gpu.major != 9 || gpu.minor != 0)
    return std::fprintf(stderr, "instruction_ceilings: built for sm_90a (H100/H200); this GPU is %s, cc %d.%d\n",
                        gpu.name, gpu.major, gpu.minor), 77;
  const int sms = gpu.multiProcessorCount;
  int clock_khz = 0;
  cudaDeviceGetAttribute(&clock_khz, cudaDevAttrClockRate, 0);
  std::printf("%s, %d SMs, compute capability %d.%d, %d MHz\n", gpu.name, sms, gpu.major, gpu.minor, clock_khz / 1000);
  constexpr int kMostLaunches = 400;
  float* slots = nullptr;
  cudaMalloc(&slots, 2 * (kMostLaunches + 1) * sizeof(float));
  cudaFuncSetAttribute(wgmma_loop, cudaFuncAttributeMaxDynamicSharedMemorySize, kWgmmaSharedBytes);
  cudaFuncSetAttribute(wgmma_fp8_loop, cudaFuncAttributeMaxDynamicSharedMemorySize, kWgmmaFp8SharedBytes);
  std::vector<Ceiling> ceilings;
  for (int launches : {20, kMostLaunches}) {
    const int scale = launches == 20 ? 1 : 10;  // the long runs also run 10x longer launches
    const char* phase = launches == 20 ? "short" : "sustained";
    for (int warps_per_sm : {8, 16}) {
      const int blocks = sms * warps_per_sm / 8, threads = blocks * 256;
      const std::string config = std::to_string(warps_per_sm) + " warps/SM";
      const int ffma_iterations = 4000 * scale;
      ceilings.push_back(measure("ffma", "FFMA", config.c_str(), phase,
                                 [&](float* slot) { ffma_loop<<<blocks, 256>>>(ffma_iterations, slot); },
                                 2.0 * kChains * ffma_iterations * threads, launches, sms, slots));
      const int mma_iterations = 2000 * scale;
      ceilings.push_back(measure("mma_sync", "mma.sync m16n8k16 bf16", config.c_str(), phase,
                                 [&](float* slot) { mma_sync_loop<<<blocks, 256>>>(mma_iterations, slot); },
                                 2.0 * 16 * 8 * 16 * kChains * mma_iterations * (threads / 32), launches, sms, slots));
    }
    const int ldmatrix_iterations = 200 * scale;  // 8 k-steps of 32 mma.sync per warp each
    const double ldmatrix_flops = 2.0 * 16 * 8 * 16 * 32 * 8 * ldmatrix_iterations * 8 * sms;
    ceilings.push_back(measure("mma_sync_ldmatrix", "step 14's loop: ldmatrix + mma.sync", "8 warps/SM", phase,
                               [&](float* slot) { mma_ldmatrix_loop<false><<<sms, 256>>>(ldmatrix_iterations, slot); },
                               ldmatrix_flops, launches, sms, slots));
    ceilings.push_back(measure("mma_sync_ldmatrix_barrier", "step 14's loop with its barrier", "8 warps/SM", phase,
                               [&](float* slot) { mma_ldmatrix_loop<true><<<sms, 256>>>(ldmatrix_iterations, slot); },
                               ldmatrix_flops, launches, sms, slots));
    const int iterations = 400 * scale;
    ceilings.push_back(measure("wgmma", "wgmma m64n256k16 bf16", "2 warpgroups/SM", phase,
                               [&](float* slot) { wgmma_loop<<<sms, 256, kWgmmaSharedBytes>>>(iterations, slot); },
                               2.0 * 64 * 256 * 16 * 4 * iterations * 2 * sms, launches, sms, slots));
    ceilings.push_back(measure("wgmma_fp8", "wgmma m64n192k32 e4m3", "2 warpgroups/SM", phase,
                               [&](float* slot) { wgmma_fp8_loop<<<sms, 256, kWgmmaFp8SharedBytes>>>(iterations, slot); },
                               2.0 * 64 * 192 * 32 * 4 * iterations * 2 * sms, launches, sms, slots));
  }
  const cudaError_t status = cudaDeviceSynchronize();
  if (status != cudaSuccess) {
    std::fprintf(stderr, "instruction_ceilings: %s\n", cudaGetErrorString(status));
    return 3;
  }
  if (!out_dir.empty()) {
    const std::string path = out_dir + "/ceilings-" + slug(gpu.name) + ".json";
    if (!write_json(path, gpu, clock_khz / 1000, commit, ceilings))
      return std::fprintf(stderr, "instruction_ceilings: cannot write %s\n", path.c_str()), 2;
    std::printf("wrote %s\n", path.c_str());
  }
  return 0;
}
