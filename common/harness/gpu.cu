#include "gpu.cuh"

#include <cublas_v2.h>

#include "compiled_code.hpp"
#include "cuda_check.cuh"
#include "options.hpp"

namespace gemm {

namespace {
std::string version_string(int version) {
  return std::to_string(version / 1000) + "." + std::to_string((version % 1000) / 10);
}
std::string capability(int cc) { return std::to_string(cc / 10) + "." + std::to_string(cc % 10); }
}  // namespace

CurrentGpu current_gpu() {
  int device = 0, major = 0, minor = 0;
  CurrentGpu gpu;
  CUDA_CHECK(cudaGetDevice(&device));
  CUDA_CHECK(cudaDeviceGetAttribute(&gpu.sms, cudaDevAttrMultiProcessorCount, device));
  CUDA_CHECK(cudaDeviceGetAttribute(&major, cudaDevAttrComputeCapabilityMajor, device));
  CUDA_CHECK(cudaDeviceGetAttribute(&minor, cudaDevAttrComputeCapabilityMinor, device));
  gpu.cc = 10 * major + minor;
  CUDA_CHECK(cudaDeviceGetAttribute(&gpu.shared_per_block, cudaDevAttrMaxSharedMemoryPerBlockOptin, device));
  return gpu;
}

DeviceInfo select_device(int device, int min_cc, const std::string& step_name, int only_cc) {
  int count = 0;
  const cudaError_t status = cudaGetDeviceCount(&count);
  if (status != cudaSuccess || count == 0) {
    cudaGetLastError();  // clear the sticky-free error so later calls are not confused
    throw NoSuitableGpu(step_name + ": no CUDA GPU found (" +
                        std::string(status == cudaSuccess ? "no devices" : cudaGetErrorString(status)) +
                        "); this step needs an NVIDIA GPU of compute capability " + capability(min_cc) +
                        (only_cc != 0 ? " exactly" : " or newer") + " and a working driver");
  }
  if (device >= count)
    throw UsageError("--device " + std::to_string(device) + " does not exist; this machine has " + std::to_string(count) +
                     " GPU(s), numbered from 0");
  CUDA_CHECK(cudaSetDevice(device));
  cudaDeviceProp prop{};
  CUDA_CHECK(cudaGetDeviceProperties(&prop, device));
  DeviceInfo info;
  info.name = prop.name;
  info.cc_major = prop.major;
  info.cc_minor = prop.minor;
  info.sms = prop.multiProcessorCount;
  int clock_khz = 0, memory_clock_khz = 0;
  CUDA_CHECK(cudaDeviceGetAttribute(&clock_khz, cudaDevAttrClockRate, device));
  CUDA_CHECK(cudaDeviceGetAttribute(&memory_clock_khz, cudaDevAttrMemoryClockRate, device));
  info.clock_mhz = clock_khz / 1000;
  info.memory_clock_mhz = memory_clock_khz / 1000;
  info.memory_bytes = (long long)prop.totalGlobalMem;
  info.l2_bytes = prop.l2CacheSize;
  int driver = 0, runtime = 0;
  CUDA_CHECK(cudaDriverGetVersion(&driver));
  CUDA_CHECK(cudaRuntimeGetVersion(&runtime));
  info.driver = version_string(driver);
  info.runtime = version_string(runtime);
  int cublas_major = 0, cublas_minor = 0, cublas_patch = 0;
  cublasGetProperty(MAJOR_VERSION, &cublas_major);
  cublasGetProperty(MINOR_VERSION, &cublas_minor);
  cublasGetProperty(PATCH_LEVEL, &cublas_patch);
  info.cublas = std::to_string(cublas_major) + "." + std::to_string(cublas_minor) + "." + std::to_string(cublas_patch);

  const int cc = prop.major * 10 + prop.minor;
  // An architecture-specific step first: "needs 9.0 or newer" would be wrong for it on a newer GPU.
  if (only_cc != 0 && cc != only_cc)
    throw NoSuitableGpu(step_name + ": " + info.name + " has compute capability " + capability(cc) +
                        "; this step is built for sm_" + std::to_string(only_cc) +
                        "a, whose instructions run on compute capability " + capability(only_cc) + " GPUs only");
  if (cc < min_cc)
    throw NoSuitableGpu(step_name + ": " + info.name + " has compute capability " + capability(cc) +
                        "; this step needs " + capability(min_cc) + " or newer");
  return info;
}

void check_compiled_code(const void* kernel, int needed_cc, const std::string& why, const std::string& step_name) {
  if (kernel == nullptr) return;
  const CurrentGpu gpu = current_gpu();
  cudaFuncAttributes attributes{};
  const cudaError_t status = cudaFuncGetAttributes(&attributes, kernel);
  if (status == cudaErrorNoKernelImageForDevice || status == cudaErrorInvalidDeviceFunction) {
    cudaGetLastError();  // not sticky: clear it
    throw NoSuitableGpu(no_code_for_gpu(step_name, gpu.cc));
  }
  CUDA_CHECK(status);
  const std::string refusal =
      compiled_code_rule(step_name, {attributes.ptxVersion, attributes.binaryVersion}, needed_cc, why, gpu.cc);
  if (!refusal.empty()) throw NoSuitableGpu(refusal);
}

std::string device_header(const DeviceInfo& info) {
  return "GPU: " + info.name + " | cc " + std::to_string(info.cc_major) + "." + std::to_string(info.cc_minor) + " | " +
         std::to_string(info.sms) + " SMs | " + std::to_string(info.clock_mhz) + " MHz | L2 " +
         std::to_string(info.l2_bytes >> 20) + " MiB | driver " + info.driver + ", runtime " + info.runtime +
         ", cuBLAS " + info.cublas;
}

}  // namespace gemm
