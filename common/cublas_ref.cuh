// cuBLAS as reference and as the yardstick: SGEMM in fp32 with TF32 off.
#pragma once

#include <cublas_v2.h>

#include "run_step.cuh"

namespace gemm {

// A cuBLAS handle in fp32 pedantic-free default math (no TF32: CUBLAS_DEFAULT_MATH never uses TF32
// for SGEMM; TF32 needs CUBLAS_TF32_TENSOR_OP_MATH, which we never set), bound to a stream.
class CublasHandle {
 public:
  explicit CublasHandle(cudaStream_t stream);
  ~CublasHandle();
  CublasHandle(const CublasHandle&) = delete;
  CublasHandle& operator=(const CublasHandle&) = delete;
  cublasHandle_t get() const { return handle_; }

 private:
  cublasHandle_t handle_ = nullptr;
};

constexpr const char* kCublasSgemmLabel = "cublasSgemm (fp32, TF32 off)";

// Row-major C = alpha*A*B + beta*C through column-major cuBLAS: C^T = B^T * A^T, i.e. the operands
// swap places and no transpose is needed.
void cublas_sgemm(cublasHandle_t handle, const Fp32Problem& problem);

}  // namespace gemm
