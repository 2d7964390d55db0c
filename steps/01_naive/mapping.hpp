// Step 01, naive: the index math, shared by the kernel, the host tests and the viewer.
//
// One thread per element of C, in blocks of 32 x 32 threads. threadIdx.x walks the ROWS of C: the
// 32 lanes of a warp (consecutive threadIdx.x, same threadIdx.y) own 32 consecutive rows of one
// column. At each k they read A in 32 different rows (addresses K floats apart: 32 sectors) and all
// read the same element of B (one sector), and the final store of C is again 32 rows apart.
#pragma once

#include "hd.hpp"
#include "trace.hpp"

namespace step01 {

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

// The element of C a thread computes: x -> row, y -> column.
GEMM_HD CElement c_element(const GemmShape& shape, const ThreadCoord& t) {
  CElement e;
  e.row = t.block.x * kBlockSide + t.thread.x;
  e.col = t.block.y * kBlockSide + t.thread.y;
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

}  // namespace step01
