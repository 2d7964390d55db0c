// Experiment behind docs/access-model.md, "Where the hardware adds wavefronts": the shared-load
// wavefront excess against the number of blocks per launch. Build and profile on a GPU:
//   nvcc -arch=sm_90 -O3 tools/experiments/bank_excess.cu -o bank_excess
//   for g in 132 264 2048; do ncu --metrics l1tex__data_pipe_lsu_wavefronts_mem_shared_op_ld.sum,\
//     smsp__inst_executed_op_shared_ld.sum ./bank_excess $g; done
// (132 = one block per SM on an H100; use your GPU's SM count.)
// The row_row demo kernel (32x32 ints, 64 x {store, barrier, load, barrier}) at several grid sizes.
#include <cstdio>
#include <cstdlib>
#include <cuda_runtime.h>
__global__ void row_row(int* out) {
  __shared__ int tile[32 * 32];
  const int w = threadIdx.y * 32 + threadIdx.x;
  int sum = 0;
  for (int r = 0; r < 64; ++r) {
    tile[w] = w * 64 + r;
    __syncthreads();
    sum += tile[w];
    __syncthreads();
  }
  out[blockIdx.x * 1024 + w] = sum;
}
int main(int argc, char** argv) {
  int* out;
  cudaMalloc(&out, 4096 * 1024 * sizeof(int));
  for (int i = 1; i < argc; ++i) row_row<<<atoi(argv[i]), dim3(32, 32)>>>(out);
  cudaDeviceSynchronize();
  printf("%s\n", cudaGetErrorString(cudaGetLastError()));
  return 0;
}
