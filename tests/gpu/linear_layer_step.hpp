// The tensor-core step a linear-layer test runs, in the configuration its program runs by default. Each step's
// kernels are compiled in a file of their own (linear_layer_NN.cu, for each step that declares
// gemm_step_linear_layer in its CMakeLists.txt), for the architectures that step is built for, so
// that they compile in parallel; that file registers the step under its number.
#pragma once

#include <functional>
#include <map>
#include <string>
#include <utility>

#include <cuda_runtime.h>

#include "run_tc_step.cuh"

namespace linear_layer {

struct Step {
  std::string name;
  int min_cc = 75, only_cc = 0;  // as the step's own program refuses GPUs (select_device)
  std::function<void(const gemm::TcProblem&, cudaStream_t)> launch;
  // The kernel a problem launches, where a build could hold it compiled for an older architecture
  // than the problem needs (bf16 below sm_80): refused as the step's program refuses it
  // (check_compiled_code, exit 77).
  std::function<const void*(const gemm::TcProblem&)> kernel = {};
};

// The steps linked into the test, by number ("12"), each added by its own file at start-up:
//   const linear_layer::Registration registration("12", step12);
std::map<std::string, std::function<Step()>>& registered_steps();
struct Registration {
  Registration(const std::string& number, std::function<Step()> make) { registered_steps()[number] = std::move(make); }
};

}  // namespace linear_layer
