// Step 01, naive: one thread per element of C, threadIdx.x walking the rows of C.
#pragma once

#include "cuda_check.cuh"
#include "epilogue.hpp"
#include "mapping.hpp"
#include "run_step.cuh"

namespace step01 {

// const __restrict__: A and B are only read and never alias C, so the compiler may load them
// through the read-only data path (ld.global.nc).
__global__ void naive_sgemm(GemmShape shape, float alpha, const float* __restrict__ a,
                            const float* __restrict__ b, float beta, float* __restrict__ c) {
  // The formulas the mapping's functions compute (mapping.hpp; kBlockSide = 32), with M, N, K the
  // shape: this thread's element of C is row = blockIdx.x * 32 + threadIdx.x, col = blockIdx.y * 32 + threadIdx.y.
  const CElement e = c_element(shape, gemm::this_thread());
  if (!e.valid) return;  // threads past the edge of C own nothing
  float acc = 0.0f;
  // A[row * K + k] * B[k * N + col]
  for (int k = 0; k < shape.k; ++k) acc += a[a_index(shape, e, k)] * b[b_index(shape, e, k)];
  const int at = c_index(shape, e);  // C[row * N + col]
  c[at] = gemm::epilogue(alpha, acc, beta, c + at);
}

inline void launch(const gemm::Fp32Problem& p, const gemm::Params&, cudaStream_t stream) {
  const LaunchShape shape = launch_shape(p.shape);
  naive_sgemm<<<gemm::to_dim3(shape.grid), gemm::to_dim3(shape.block), 0, stream>>>(p.shape, p.alpha, p.a, p.b,
                                                                                      p.beta, p.c);
  CUDA_CHECK_LAUNCH("naive_sgemm<<<...>>>");
}

}  // namespace step01
