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

namespace {
cudaDataType_t cuda_type(InputType t) { return t == InputType::bf16 ? CUDA_R_16BF : CUDA_R_16F; }
cudaDataType_t cuda_type(OutputType t) {
  return t == OutputType::f16 ? CUDA_R_16F : t == OutputType::bf16 ? CUDA_R_16BF : CUDA_R_32F;
}
}  // namespace

// Row-major C = A*B through column-major cuBLAS: C^T = B^T * A^T. A row-major matrix read as
// column-major is its transpose, so a stored operand goes in untransposed exactly when it is stored
// as the logical operand (nn), and transposed when it is stored transposed (B in nt, A in tn).
void cublas_gemm_ex(cublasHandle_t handle, const TcProblem& p, OutputType c_type, void* c) {
  const GemmShape& s = p.shape;
  const cublasOperation_t op_b = p.layout == Layout::nt ? CUBLAS_OP_T : CUBLAS_OP_N;
  const cublasOperation_t op_a = p.layout == Layout::tn ? CUBLAS_OP_T : CUBLAS_OP_N;
  const int ld_b = p.layout == Layout::nt ? s.k : s.n;
  const int ld_a = p.layout == Layout::tn ? s.m : s.k;
  CUBLAS_CHECK(cublasGemmEx(handle, op_b, op_a, s.n, s.m, s.k, &p.alpha, p.b, cuda_type(p.dtype), ld_b, p.a,
                            cuda_type(p.dtype), ld_a, &p.beta, c, cuda_type(c_type), s.n, CUBLAS_COMPUTE_32F,
                            CUBLAS_GEMM_DEFAULT));
}

}  // namespace gemm
