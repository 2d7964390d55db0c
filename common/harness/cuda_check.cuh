// CUDA and cuBLAS error checks that name the failing call.
//
// CUDA_CHECK(call) / CUBLAS_CHECK(call) throw CudaError with "call: error name: description
// (file:line)". These two are macros on purpose: only a macro can quote the call's own text.
#pragma once

#include <cublas_v2.h>
#include <cuda_runtime.h>

#include <stdexcept>
#include <string>

namespace gemm {

struct CudaError : std::runtime_error {
  CudaError(const std::string& message, cudaError_t code_ = cudaErrorUnknown)
      : std::runtime_error(message), code(code_) {}
  cudaError_t code;
};

[[noreturn]] void throw_cuda_error(cudaError_t code, const char* call, const char* file, int line);
[[noreturn]] void throw_cublas_error(cublasStatus_t status, const char* call, const char* file, int line);

inline void check_cuda(cudaError_t code, const char* call, const char* file, int line) {
  if (code != cudaSuccess) throw_cuda_error(code, call, file, line);
}
inline void check_cublas(cublasStatus_t status, const char* call, const char* file, int line) {
  if (status != CUBLAS_STATUS_SUCCESS) throw_cublas_error(status, call, file, line);
}

}  // namespace gemm

#define CUDA_CHECK(call) ::gemm::check_cuda((call), #call, __FILE__, __LINE__)
#define CUBLAS_CHECK(call) ::gemm::check_cublas((call), #call, __FILE__, __LINE__)
// After a kernel launch: a bad configuration shows up here, not at the launch itself.
#define CUDA_CHECK_LAUNCH(what) ::gemm::check_cuda(cudaGetLastError(), what, __FILE__, __LINE__)
