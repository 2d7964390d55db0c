#include "cublaslt_fp8.cuh"

#include <stdexcept>

#include "cuda_check.cuh"

namespace gemm {

const char* to_string(Fp8Type type) { return type == Fp8Type::e4m3 ? "e4m3" : "e5m2"; }

namespace {
cudaDataType_t cuda_type(Fp8Type t) { return t == Fp8Type::e4m3 ? CUDA_R_8F_E4M3 : CUDA_R_8F_E5M2; }
// Written without a switch so that it compiles whether or not OutputType has bf16 yet.
cudaDataType_t cuda_type(OutputType t) {
  return t == OutputType::f16 ? CUDA_R_16F : t == OutputType::f32 ? CUDA_R_32F : CUDA_R_16BF;
}

std::string shape_text(const Fp8Gemm& g) {
  return std::to_string(g.m) + " x " + std::to_string(g.n) + " x " + std::to_string(g.k);
}

template <typename T>
void set(cublasLtMatmulDesc_t desc, cublasLtMatmulDescAttributes_t attribute, const T& value) {
  CUBLAS_CHECK(cublasLtMatmulDescSetAttribute(desc, attribute, &value, sizeof(value)));
}
}  // namespace

struct CublasLtHandle::Plan {
  cublasLtMatmulDesc_t desc = nullptr;
  cublasLtMatrixLayout_t a = nullptr, b = nullptr, c = nullptr;  // cuBLASLt's A, B and C (= D)
  cublasLtMatmulAlgo_t algo{};

  Plan() = default;
  Plan(const Plan&) = delete;
  Plan& operator=(const Plan&) = delete;
  ~Plan() {
    if (c) cublasLtMatrixLayoutDestroy(c);
    if (b) cublasLtMatrixLayoutDestroy(b);
    if (a) cublasLtMatrixLayoutDestroy(a);
    if (desc) cublasLtMatmulDescDestroy(desc);
  }
};

CublasLtHandle::CublasLtHandle(cudaStream_t stream) : stream_(stream), workspace_(kWorkspaceBytes) {
  CUBLAS_CHECK(cublasLtCreate(&handle_));
}

CublasLtHandle::~CublasLtHandle() {
  plans_.clear();  // the descriptors go before the handle
  cublasLtDestroy(handle_);
}

// Row-major C (M x N) is column-major C^T (N x M, ld N), so cuBLASLt computes C^T = B^T * A^T with
// the operands swapped. Its A is our B: stored N x K row-major, i.e. column-major K x N (ld K),
// transposed to N x K. Its B is our A: stored M x K row-major, i.e. column-major K x M (ld K), used
// as is. That is "TN" (transa = T, transb = N), the one form Hopper's FP8 kernels accept; and it
// is why B must be stored N x K here.
const CublasLtHandle::Plan& CublasLtHandle::plan(const Fp8Gemm& g) {
  const Key key{g.m, g.n, g.k, g.a_type, g.b_type, g.out, g.fast_accum, g.scale_a != nullptr, g.scale_b != nullptr};
  auto found = plans_.find(key);
  if (found != plans_.end()) return *found->second;

  auto p = std::make_unique<Plan>();
  CUBLAS_CHECK(cublasLtMatmulDescCreate(&p->desc, CUBLAS_COMPUTE_32F, CUDA_R_32F));
  set(p->desc, CUBLASLT_MATMUL_DESC_TRANSA, CUBLAS_OP_T);
  set(p->desc, CUBLASLT_MATMUL_DESC_TRANSB, CUBLAS_OP_N);
  set(p->desc, CUBLASLT_MATMUL_DESC_FAST_ACCUM, static_cast<std::int8_t>(g.fast_accum ? 1 : 0));
  // Whether a scale is given may select other kernels; the pointers themselves are set per call.
  set(p->desc, CUBLASLT_MATMUL_DESC_A_SCALE_POINTER, static_cast<const void*>(g.scale_b));
  set(p->desc, CUBLASLT_MATMUL_DESC_B_SCALE_POINTER, static_cast<const void*>(g.scale_a));
  CUBLAS_CHECK(cublasLtMatrixLayoutCreate(&p->a, cuda_type(g.b_type), g.k, g.n, g.k));
  CUBLAS_CHECK(cublasLtMatrixLayoutCreate(&p->b, cuda_type(g.a_type), g.k, g.m, g.k));
  // C and D are one buffer of one type: FP8 takes C of D's type for f16/bf16/f32 output.
  CUBLAS_CHECK(cublasLtMatrixLayoutCreate(&p->c, cuda_type(g.out), g.n, g.m, g.n));

  cublasLtMatmulPreference_t preference = nullptr;
  CUBLAS_CHECK(cublasLtMatmulPreferenceCreate(&preference));
  const std::uint64_t workspace_bytes = kWorkspaceBytes;
  cublasStatus_t status = cublasLtMatmulPreferenceSetAttribute(
      preference, CUBLASLT_MATMUL_PREF_MAX_WORKSPACE_BYTES, &workspace_bytes, sizeof(workspace_bytes));
  // The preference's default alignment (256 bytes) is cudaMalloc's: a pointer into the middle of a
  // buffer may fail in cublasLtMatmul.
  cublasLtMatmulHeuristicResult_t result{};
  int found_count = 0;
  if (status == CUBLAS_STATUS_SUCCESS)
    status = cublasLtMatmulAlgoGetHeuristic(handle_, p->desc, p->a, p->b, p->c, p->c, preference, 1, &result,
                                            &found_count);
  cublasLtMatmulPreferenceDestroy(preference);
  if (status == CUBLAS_STATUS_NOT_SUPPORTED || (status == CUBLAS_STATUS_SUCCESS && found_count == 0))
    throw std::runtime_error("cuBLASLt has no FP8 algorithm for " + std::string(to_string(g.a_type)) + " x " +
                             to_string(g.b_type) + " -> " + to_string(g.out) + " at M x N x K = " + shape_text(g));
  CUBLAS_CHECK(status);
  p->algo = result.algo;
  return *plans_.emplace(key, std::move(p)).first->second;
}

void cublaslt_fp8_gemm(CublasLtHandle& handle, const Fp8Gemm& g, cudaStream_t stream) {
  const CublasLtHandle::Plan& p = handle.plan(g);
  // Setting an attribute only writes into the host-side descriptor, cheap enough for every call.
  set(p.desc, CUBLASLT_MATMUL_DESC_A_SCALE_POINTER, static_cast<const void*>(g.scale_b));
  set(p.desc, CUBLASLT_MATMUL_DESC_B_SCALE_POINTER, static_cast<const void*>(g.scale_a));
  CUBLAS_CHECK(cublasLtMatmul(handle.get(), p.desc, &g.alpha, g.b, p.a, g.a, p.b, &g.beta, g.c, p.c, g.c, p.c,
                              &p.algo, handle.workspace_.data(), handle.workspace_.bytes(), stream));
}

std::string cublaslt_fp8_label(const Fp8Gemm& g) {
  return std::string("cublasLtMatmul (") + to_string(g.a_type) + " x " + to_string(g.b_type) + ", f32 compute, " +
         to_string(g.out) + " out, TN, fast accumulation " + (g.fast_accum ? "on" : "off") + ")";
}

}  // namespace gemm
