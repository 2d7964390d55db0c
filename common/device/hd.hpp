// Portability layer for the index functions shared by kernels, host tests and the viewer.
//
// mapping.hpp files are plain C++ that g++ compiles; nvcc compiles the same text for the device.
// GEMM_HD marks a function as callable from both sides. This is the one macro the mappings use:
// it has to be a macro because __host__ __device__ are keywords only nvcc knows.
#pragma once

#if defined(__CUDACC__)
#define GEMM_HD __host__ __device__ __forceinline__
#else
#define GEMM_HD inline
#endif

namespace gemm {

// A host-side stand-in for CUDA's dim3/uint3, so that mappings can be evaluated without CUDA.
struct Dim3 {
  int x = 1, y = 1, z = 1;
};

// The shape of a launch, as the mapping computes it and the kernel launch uses it.
struct LaunchShape {
  Dim3 grid;
  Dim3 block;
  int shared_bytes = 0;  // dynamic shared memory per block
};

// Which thread of the launch: the kernel builds this from blockIdx/threadIdx, the host enumerates it.
struct ThreadCoord {
  Dim3 block;
  Dim3 thread;
};

// Problem dimensions. Row-major storage: A is M x K, B is K x N, C is M x N.
struct GemmShape {
  int m = 0, n = 0, k = 0;
};

GEMM_HD constexpr int ceil_div(int a, int b) { return (a + b - 1) / b; }

}  // namespace gemm

#if defined(__CUDACC__)
// Device side: the coordinate of the running thread.
namespace gemm {
__device__ __forceinline__ ThreadCoord this_thread() {
  return ThreadCoord{Dim3{int(blockIdx.x), int(blockIdx.y), int(blockIdx.z)},
                     Dim3{int(threadIdx.x), int(threadIdx.y), int(threadIdx.z)}};
}
inline dim3 to_dim3(const Dim3& d) { return dim3(unsigned(d.x), unsigned(d.y), unsigned(d.z)); }
}  // namespace gemm
#endif

namespace gemm {
// One element of C owned by a thread; `valid` is false for the threads past the edge of C.
struct CElement {
  int row = 0, col = 0;
  bool valid = false;
};
}  // namespace gemm
