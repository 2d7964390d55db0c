// cuBLAS as reference and as the yardstick: SGEMM in fp32 with TF32 off; and, for reference only,
// the same product on the tensor cores in TF32.
#pragma once

#include <cublas_v2.h>
#include <cuda_runtime.h>

#include "gemm_types.hpp"

namespace gemm {

// A cuBLAS handle in fp32 pedantic-free default math (no TF32: CUBLAS_DEFAULT_MATH never uses TF32
// for SGEMM; the handle never gets CUBLAS_TF32_TENSOR_OP_MATH, and the TF32 reference below asks
// for TF32 through its own call's compute type), bound to a stream.
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

// The same product with fp32 inputs and output but TF32 tensor-core arithmetic (inputs rounded to
// 10 mantissa bits, f32 accumulation): what the fp32 steps' GPU could do if fp32's precision were
// not the contract. A reference line, never the yardstick. Tensor cores take TF32 from sm_80 on.
constexpr const char* kCublasTf32Label = "cublasGemmEx (fp32 in and out, CUBLAS_COMPUTE_32F_FAST_TF32)";
constexpr int kTf32MinCc = 80;
void cublas_tf32_gemm(cublasHandle_t handle, const Fp32Problem& problem);

// cublasGemmEx on a tensor-core problem's inputs, layout and input type, f32 compute, writing C of
// `c_type` to `c` (row-major, through cuBLAS's column-major view).
void cublas_gemm_ex(cublasHandle_t handle, const TcProblem& problem, OutputType c_type, void* c);

}  // namespace gemm
