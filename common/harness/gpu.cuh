// Device selection, capability checks and the run header.
#pragma once

#include <cuda_runtime.h>

#include <stdexcept>
#include <string>

#include "results.hpp"

namespace gemm {

// Thrown when no suitable GPU is present: the step exits 77 with this message.
struct NoSuitableGpu : std::runtime_error {
  using std::runtime_error::runtime_error;
};

// Selects `device` and checks it has at least `min_cc` (e.g. 75 for 7.5) and, when `only_cc` is set,
// exactly that capability (code built for an "a" target such as sm_90a runs on that one
// architecture alone). Throws NoSuitableGpu with a message that names what the step needs.
DeviceInfo select_device(int device, int min_cc, const std::string& step_name, int only_cc = 0);

// The current device as launch code sees it: SMs, compute capability (10 * major + minor) and the
// shared memory one block may opt in to. A few cudaDeviceGetAttribute calls, cheap enough to make
// in front of every launch.
struct CurrentGpu {
  int sms = 0;
  int cc = 0;
  int shared_per_block = 0;
};
CurrentGpu current_gpu();

// Refuses (NoSuitableGpu, exit 77) a run whose kernel was compiled for an older architecture than
// `needed_cc`, so that a step never launches a kernel whose body was compiled out for this GPU
// (compiled_code.hpp says how it decides). `why`: what needs it ("bf16 inputs").
void check_compiled_code(const void* kernel, int needed_cc, const std::string& why, const std::string& step_name);

// "GPU: NVIDIA H100 80GB HBM3 | cc 9.0 | 132 SMs | 1980 MHz | driver 13.0, runtime 13.0, cuBLAS 13.0.0"
std::string device_header(const DeviceInfo& info);

}  // namespace gemm
