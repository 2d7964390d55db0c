// run_step: the whole program of an fp32 GPU step, so that a step's main.cu is a description and
// one call. It parses the options, picks the GPU, validates every shape before running any, and for
// each shape: makes seeded inputs, runs one checked launch (C poisoned with NaN when beta == 0,
// guard zones around C), compares with a reference (CPU fp64 for small problems, cuBLAS fp32
// otherwise), times the step and cuBLAS SGEMM the same way, prints a row, and writes --json.
// run_step and run_tc_step are one runner (step_runner.cuh) with what differs for their types.
#pragma once

#include <cuda_runtime.h>

#include <functional>
#include <map>
#include <string>
#include <vector>

#include "gemm_types.hpp"
#include "harness.cuh"
#include "hd.hpp"
#include "options.hpp"

namespace gemm {

// The problem a launch receives, Fp32Problem, is in gemm_types.hpp.
struct StepDescription {
  std::string name;    // the folder name, e.g. "01_naive"
  std::string title;   // one line: what this stage changes
  int min_cc = 75;     // minimum compute capability, e.g. 80 for 8.0
  std::vector<ParamSpec> params;
  // Returns "" when the tunables are consistent, else the rule they break (exit 2).
  std::function<std::string(const Params&)> check_params;
  // The launch the step will make for a shape: the harness checks it against the GPU's limits.
  std::function<LaunchShape(const GemmShape&, const Params&)> launch_shape;
  // Enqueues the computation on `stream`; checks the launch (CUDA_CHECK_LAUNCH).
  std::function<void(const Fp32Problem&, const Params&, cudaStream_t)> launch;
  // The kernel this shape launches with these params (a __global__ function's address), for its
  // resource report: registers, local memory, shared memory, blocks per SM. A step that compiles
  // instances for kinds of shape (steps 10 and 11: B and C rows aligned or not) returns the shape's.
  // Optional.
  std::function<const void*(const GemmShape&, const Params&)> kernel;
  // Optional: the tunables a shape runs with when the command line sets none (--param fixes them
  // for every shape). A step may choose its configuration by shape, e.g. the block tile that covers
  // the shape in the fewest waves of blocks over the GPU's multiprocessors (gpu.sms), among those
  // that fit its shared memory per block (gpu.shared_per_block).
  ParamsForShape params_for_shape;
};

// For a step whose kernel does not depend on the shape: `kernel_for(params)` as the description's
// `kernel`, which also passes the shape (tensor-core steps: same_kernel_for_every_problem).
template <typename KernelFor>
auto same_kernel_for_every_shape(KernelFor kernel_for) {
  return [kernel_for](const GemmShape&, const Params& params) { return kernel_for(params); };
}

// The default shapes when none are given: 1024, 2048, 4096 square.
std::vector<GemmShape> default_shapes();

// The whole step program. Returns the exit code (docs/design.md, "The step program contract"): 0, 1,
// 2, 3 or 77.
int run_step(int argc, char** argv, const StepDescription& step);

}  // namespace gemm
