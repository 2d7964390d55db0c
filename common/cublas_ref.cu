#include "cublas_ref.cuh"

#include "cuda_check.cuh"

namespace gemm {

CublasHandle::CublasHandle(cudaStream_t stream) {
  CUBLAS_CHECK(cublasCreate(&handle_));
  CUBLAS_CHECK(cublasSetStream(handle_, stream));
  CUBLAS_CHECK(cublasSetMathMode(handle_, CUBLAS_DEFAULT_MATH));
}

CublasHandle::~CublasHandle() { cublasDestroy(handle_); }

void cublas_sgemm(cublasHandle_t handle, const Fp32Problem& p) {
  CUBLAS_CHECK(cublasSgemm(handle, CUBLAS_OP_N, CUBLAS_OP_N, p.shape.n, p.shape.m, p.shape.k, &p.alpha, p.b,
                           p.shape.n, p.a, p.shape.k, &p.beta, p.c, p.shape.n));
}

void cublas_tf32_gemm(cublasHandle_t handle, const Fp32Problem& p) {
  CUBLAS_CHECK(cublasGemmEx(handle, CUBLAS_OP_N, CUBLAS_OP_N, p.shape.n, p.shape.m, p.shape.k, &p.alpha, p.b, CUDA_R_32F,
                            p.shape.n, p.a, CUDA_R_32F, p.shape.k, &p.beta, p.c, CUDA_R_32F, p.shape.n,
                            CUBLAS_COMPUTE_32F_FAST_TF32, CUBLAS_GEMM_DEFAULT));
}

}  // namespace gemm
