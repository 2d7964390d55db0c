// Loads of the global -> shared tile copies of the tiled fp32 steps, at the ragged edges too.
//
// A copy that falls outside its matrix must store zero. Written as `inside ? a[i] : 0`, the compiler
// has to guard the load (it may not read outside the matrix): with more than a copy or two per
// thread it puts a branch around each load and its shared store, and every load then waits for the
// one before it. Here a copy outside the matrix reads element 0 instead, which always exists
// (M, N, K >= 1), and keeps zero: the load is unconditional, so all of a k-tile's loads can be in
// flight together before the first shared store. The traces (mapping.hpp) use load_index too.
#pragma once

#include "hd.hpp"

namespace gemm {

// The element a copy reads: its own when inside the matrix, else element 0.
GEMM_HD long long load_index(long long index, bool inside) { return inside ? index : 0; }

}  // namespace gemm

#if defined(__CUDACC__)
#include <cuda_runtime.h>

namespace gemm {

GEMM_HD float load_or_zero(const float* __restrict__ matrix, long long index, bool inside) {
  const float value = matrix[load_index(index, inside)];
  return inside ? value : 0.0f;
}

// 16 bytes from a 16-byte aligned index (the matrix itself is 16-byte aligned: cudaMalloc).
GEMM_HD float4 load4_or_zero(const float* __restrict__ matrix, long long index, bool inside) {
  const float4 value = *reinterpret_cast<const float4*>(matrix + load_index(index, inside));
  return inside ? value : float4{0.0f, 0.0f, 0.0f, 0.0f};
}

}  // namespace gemm
#endif
