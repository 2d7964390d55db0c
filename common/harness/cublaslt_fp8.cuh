// cuBLASLt as the yardstick of FP8 (e4m3, e5m2) GEMMs on sm_89+: per-tensor scaled A and B, f32
// accumulation, f32/f16/bf16 output; plus the FP8 conversions the host and the kernels share.
#pragma once

#include <cublasLt.h>
#include <cuda_fp8.h>
#include <cuda_runtime.h>

#include <cstddef>
#include <cstdint>
#include <map>
#include <memory>
#include <string>
#include <tuple>

#include "device_buffer.cuh"
#include "gemm_types.hpp"

namespace gemm {

enum class Fp8Type { e4m3, e5m2 };
const char* to_string(Fp8Type type);

// Round to nearest even; values past the largest finite one saturate to it (not to inf or NaN),
// which is what scaled FP8 training expects of an amax slightly off.
__host__ __device__ inline std::uint8_t to_fp8(float value, Fp8Type t) {
  return __nv_cvt_float_to_fp8(value, __NV_SATFINITE, t == Fp8Type::e4m3 ? __NV_E4M3 : __NV_E5M2);
}
// Exact: every e4m3 and e5m2 value is an f16 value.
__host__ __device__ inline float from_fp8(std::uint8_t bits, Fp8Type t) {
  return __half2float(__half(__nv_cvt_fp8_to_halfraw(bits, t == Fp8Type::e4m3 ? __NV_E4M3 : __NV_E5M2)));
}
__host__ __device__ constexpr float fp8_max(Fp8Type t) { return t == Fp8Type::e4m3 ? 448.0f : 57344.0f; }

// C = alpha * scale_a * scale_b * A * B + beta * C, row-major, C of `out` (M x N, leading dimension
// N). A is M x K (K contiguous); B is stored N x K (B transposed, K contiguous: the repo's layout
// "nt"), the only layout cuBLASLt's FP8 kernels take on Hopper. The scales are device pointers to
// one float each (nullptr: 1), the dequantisation factors of per-tensor scaled FP8. With beta == 0,
// C is not read.
struct Fp8Gemm {
  int m = 0, n = 0, k = 0;
  Fp8Type a_type = Fp8Type::e4m3, b_type = Fp8Type::e4m3;
  OutputType out = OutputType::f32;
  float alpha = 1, beta = 0;
  const void* a = nullptr;
  const void* b = nullptr;
  void* c = nullptr;
  const float* scale_a = nullptr;
  const float* scale_b = nullptr;
  // FP8 tensor cores accumulate in reduced precision; off, cuBLASLt promotes the partial sums to f32
  // every few k-steps (slower, closer to f32). On, it never does.
  bool fast_accum = false;
};

// A cuBLASLt handle, its 32 MiB workspace (NVIDIA's recommendation for Hopper) and the matmul plans
// (descriptors and chosen algorithm) of the problems it has run, so that a timed repetition costs
// one cublasLtMatmul. cuBLASLt handles carry no stream; the stream given here is the one the
// workspace is meant for: calls on other streams must not overlap calls on it.
class CublasLtHandle {
 public:
  static constexpr std::size_t kWorkspaceBytes = std::size_t{32} << 20;

  explicit CublasLtHandle(cudaStream_t stream);
  ~CublasLtHandle();
  CublasLtHandle(const CublasLtHandle&) = delete;
  CublasLtHandle& operator=(const CublasLtHandle&) = delete;
  cublasLtHandle_t get() const { return handle_; }
  cudaStream_t stream() const { return stream_; }

 private:
  struct Plan;
  // m, n, k, A's and B's types, output, fast accumulation, whether each scale pointer is set.
  using Key = std::tuple<int, int, int, Fp8Type, Fp8Type, OutputType, bool, bool, bool>;
  const Plan& plan(const Fp8Gemm& g);
  friend void cublaslt_fp8_gemm(CublasLtHandle& handle, const Fp8Gemm& g, cudaStream_t stream);

  cublasLtHandle_t handle_ = nullptr;
  cudaStream_t stream_ = nullptr;
  DeviceBuffer<unsigned char> workspace_;
  std::map<Key, std::unique_ptr<Plan>> plans_;
};

// Throws std::runtime_error when cuBLASLt has no algorithm for the problem: a type pair it lacks
// (e5m2 x e5m2 on sm_90), or rows not on 16 bytes (FP8 kernels need K a multiple of 16).
void cublaslt_fp8_gemm(CublasLtHandle& handle, const Fp8Gemm& g, cudaStream_t stream);

// "cublasLtMatmul (e4m3 x e4m3, f32 compute, bf16 out, TN, fast accumulation off)"
std::string cublaslt_fp8_label(const Fp8Gemm& g);

}  // namespace gemm
