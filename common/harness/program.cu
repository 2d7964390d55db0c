#include "program.cuh"

#include <cstdio>

#include "cuda_check.cuh"
#include "exit_codes.hpp"
#include "gpu.cuh"
#include "options.hpp"

namespace gemm {

int run_program(const std::string& name, const std::function<int()>& body) {
  try {
    return body();
  } catch (const UsageError& error) {
    std::fprintf(stderr, "%s: %s\n", name.c_str(), error.what());
    return kExitUsage;
  } catch (const NoSuitableGpu& error) {
    std::fprintf(stderr, "%s (skipped)\n", error.what());
    return kExitNoGpu;
  } catch (const CudaError& error) {
    std::fprintf(stderr, "%s: CUDA error: %s\n", name.c_str(), error.what());
    return kExitCudaError;
  } catch (const std::exception& error) {
    std::fprintf(stderr, "%s: error: %s\n", name.c_str(), error.what());
    return kExitCudaError;
  }
}

}  // namespace gemm
