// Experiment behind docs/access-model.md, "cp.async": what Nsight Compute counts for one warp-level
// cp.async (SASS LDGSTS) with known lane addresses, so that the access model prices the copies of
// steps 10, 11, 13 and 14 by a measured rule. Each launch is one warp issuing one cp.async of a pattern in
// common/host/ldgsts_patterns.hpp (a width, .ca or .cg, where the lanes read, where they write, which lanes
// read); the program prints the launches in order, and the profiler reports them in the same order.
// tests/host/test_access_model.cpp holds what an H100 measured, as the model's expected values.
// On a GPU, from the repository root:
//   nvcc -arch=sm_90 -O3 -std=c++17 tools/experiments/ldgsts_counts.cu -o ldgsts_counts
//   ncu --csv --metrics l1tex__t_sectors_pipe_lsu_mem_global_op_ld.sum,\
//   smsp__sass_l1tex_data_pipe_lsu_wavefronts_mem_shared_op_ldgsts.sum ./ldgsts_counts
// (the first counts the global sectors of loads and of cp.async alike; the second the shared
// wavefronts of cp.async alone).
#include <cuda_runtime.h>

#include <cstdint>
#include <cstdio>

#include "../../common/host/ldgsts_patterns.hpp"

namespace {

template <int kWidth, bool kBypassL1>
__global__ void probe(const unsigned char* source, ldgsts::Case pattern, int* sink) {
  __shared__ __align__(128) unsigned char tile[32 * 128 + 256];
  const int lane = int(threadIdx.x);
  if (!ldgsts::takes_part(pattern.sizes, lane)) return;
  const unsigned char* from = source + ldgsts::global_offset(pattern.global, kWidth, lane);
  const std::uint32_t to =
      static_cast<std::uint32_t>(__cvta_generic_to_shared(tile + ldgsts::shared_offset(pattern.shared, kWidth, lane)));
  const int bytes = ldgsts::reads(pattern.sizes, lane) ? kWidth : 0;  // 0: read nothing, write zeros
  if constexpr (kBypassL1)
    asm volatile("cp.async.cg.shared.global [%0], [%1], 16, %2;\n" ::"r"(to), "l"(from), "r"(bytes) : "memory");
  else
    asm volatile("cp.async.ca.shared.global [%0], [%1], %2, %3;\n" ::"r"(to), "l"(from), "n"(kWidth), "r"(bytes) : "memory");
  asm volatile("cp.async.commit_group;\ncp.async.wait_group 0;\n" ::: "memory");
  if (tile[lane] == 77) sink[0] = lane;  // the copy's result is used
}

using Probe = void (*)(const unsigned char*, ldgsts::Case, int*);
constexpr Probe kProbes[ldgsts::kVariantCount] = {probe<4, false>, probe<8, false>, probe<16, false>, probe<16, true>};

}  // namespace

int main() {
  unsigned char* source = nullptr;
  int* sink = nullptr;
  if (cudaMalloc(&source, 64 * 1024) != cudaSuccess) return std::printf("no GPU\n"), 77;
  cudaMemset(source, 0, 64 * 1024);
  cudaMalloc(&sink, sizeof(int));
  int launch = 0;
  for (int v = 0; v < ldgsts::kVariantCount; ++v)
    for (const ldgsts::Case& pattern : ldgsts::kCases) {
      kProbes[v]<<<1, ldgsts::kLanes>>>(source, pattern, sink);
      std::printf("%3d | %s %2d B | global %d | shared %d | sizes %d\n", launch++, ldgsts::kVariants[v].bypass ? "cg" : "ca",
                  ldgsts::kVariants[v].width, pattern.global, pattern.shared, pattern.sizes);
    }
  const cudaError_t status = cudaDeviceSynchronize();
  std::printf("%s\n", cudaGetErrorString(status));
  return status == cudaSuccess ? 0 : 3;
}
