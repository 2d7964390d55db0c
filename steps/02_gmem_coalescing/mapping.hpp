// Step 02, global memory coalescing: the index math, shared by the kernel, the host tests and the viewer.
//
// The only change from step 01: threadIdx.x and threadIdx.y swap roles, so threadIdx.x now walks the
// COLUMNS of C. The 32 lanes of a warp own 32 consecutive columns of one row, so at each k they read
// 32 consecutive floats of B (128 bytes: 4 sectors, the minimum), all read the same element of A (a
// broadcast: one sector), and the final store of C is 128 contiguous bytes. The blocks are laid out
// as in step 01 (blockIdx.x walks blocks of rows).
#pragma once

#include "hd.hpp"
#include "trace.hpp"

namespace step02 {

using gemm::ceil_div;
using gemm::CElement;
using gemm::GemmShape;
using gemm::LaunchShape;
using gemm::ThreadCoord;

constexpr int kBlockSide = 32;  // threads per block along x and along y

GEMM_HD LaunchShape launch_shape(const GemmShape& shape) {
  LaunchShape launch;
  launch.grid = {ceil_div(shape.m, kBlockSide), ceil_div(shape.n, kBlockSide), 1};
  launch.block = {kBlockSide, kBlockSide, 1};
  return launch;
}

// The element of C a thread computes: threadIdx.x -> column, threadIdx.y -> row.
GEMM_HD CElement c_element(const GemmShape& shape, const ThreadCoord& t) {
  CElement e;
  e.row = t.block.x * kBlockSide + t.thread.y;
  e.col = t.block.y * kBlockSide + t.thread.x;
  e.valid = e.row < shape.m && e.col < shape.n;
  return e;
}

// Element offsets (row-major) the thread reads and writes at step k of the dot product.
GEMM_HD int a_index(const GemmShape& shape, const CElement& e, int k) { return e.row * shape.k + k; }
GEMM_HD int b_index(const GemmShape& shape, const CElement& e, int k) { return k * shape.n + e.col; }
GEMM_HD int c_index(const GemmShape& shape, const CElement& e) { return e.row * shape.n + e.col; }

// The memory instructions of one warp, in program order, from the same functions the kernel calls.
inline void trace_warp(const gemm::TraceProblem& problem, const gemm::Dim3& block, int warp,
                       const gemm::TraceSink& emit) {
  gemm::trace_elementwise_gemm(problem, block, warp, emit, launch_shape, c_element, a_index, b_index, c_index);
}

}  // namespace step02
