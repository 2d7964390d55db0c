#include "cuda_check.cuh"

#include <string>

namespace gemm {

namespace {
std::string where(const char* file, int line) {
  std::string path = file;
  const auto slash = path.find_last_of('/');
  if (slash != std::string::npos) path = path.substr(slash + 1);
  return " (" + path + ":" + std::to_string(line) + ")";
}
}  // namespace

void throw_cuda_error(cudaError_t code, const char* call, const char* file, int line) {
  throw CudaError(std::string(call) + " failed: " + cudaGetErrorName(code) + ": " + cudaGetErrorString(code) +
                      where(file, line),
                  code);
}

void throw_cublas_error(cublasStatus_t status, const char* call, const char* file, int line) {
  throw CudaError(std::string(call) + " failed: " + cublasGetStatusName(status) + ": " +
                  cublasGetStatusString(status) + where(file, line));
}

}  // namespace gemm
