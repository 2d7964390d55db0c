// The tensor-core step a linear-layer test runs, in the configuration its program runs by default. Each step's
// kernels are compiled in a file of their own (linear_layer_12.cu, _13.cu, ..., _18.cu), for the
// architectures that step is built for, so that they compile in parallel.
#pragma once

#include <functional>
#include <string>

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

Step step12();
Step step13();
Step step14();
Step step15();
Step step16();
Step step17();
Step step18();

}  // namespace linear_layer
