// Experiment behind docs/access-model.md, "8- and 16-byte accesses": wavefronts per shared-load
// instruction for 4-, 8- and 16-byte patterns, one warp, one load per kernel. On a GPU:
//   nvcc -arch=sm_90 -O3 tools/experiments/lds_phases.cu -o lds_phases
//   ncu --metrics l1tex__data_pipe_lsu_wavefronts_mem_shared_op_ld.sum,smsp__inst_executed_op_shared_ld.sum ./lds_phases
// tests/host/test_access_model.cpp holds what an H100 measured, as the model's expected values.
#include <cstdio>
#include <cuda_runtime.h>
template <int W, int P> __device__ __forceinline__ int byte_addr(int l) {
  switch (P) {
    case 0: return W * l;                 // consecutive
    case 1: return 0;                     // broadcast
    case 2: return W * (l / 2);           // lane pairs share
    case 3: return W * (l % 8);           // 8 distinct, repeated 4x
    case 4: return W * (l % 16);          // the two half-warps read the same addresses
    case 5: return 128 * l;               // stride 128 B
    case 6: return 128 * (l % 8) + W * (l / 8);  // quarter-warps at stride 128
    case 7: return W * ((l * 5) % 32);    // a permutation
  }
  return 0;
}
template <int W, int P> __global__ void probe(float* out) {
  __shared__ __align__(16) float s[32 * 32 * 4 + 64];
  for (int i = threadIdx.x; i < 32 * 32 * 4 + 64; i += 32) s[i] = float(i);
  __syncthreads();
  const int a = byte_addr<W, P>(threadIdx.x) / 4;
  float v;
  if (W == 4) v = s[a];
  if (W == 8) { float2 t = *reinterpret_cast<float2*>(s + a); v = t.x + t.y; }
  if (W == 16) { float4 t = *reinterpret_cast<float4*>(s + a); v = t.x + t.y + t.z + t.w; }
  out[threadIdx.x] = v;
}
template <int W> void run_all(float* out) {
  probe<W, 0><<<1, 32>>>(out); probe<W, 1><<<1, 32>>>(out); probe<W, 2><<<1, 32>>>(out); probe<W, 3><<<1, 32>>>(out);
  probe<W, 4><<<1, 32>>>(out); probe<W, 5><<<1, 32>>>(out); probe<W, 6><<<1, 32>>>(out); probe<W, 7><<<1, 32>>>(out);
}
int main() {
  float* out; cudaMalloc(&out, 1024);
  run_all<4>(out); run_all<8>(out); run_all<16>(out);
  cudaDeviceSynchronize(); printf("%s\n", cudaGetErrorString(cudaGetLastError()));
}
