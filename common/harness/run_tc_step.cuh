// run_tc_step: the whole program of a tensor-core step, the counterpart of run_step
// for f16/bf16 inputs with f32 accumulation. Per shape: seeded inputs rounded to the input type and
// stored in the chosen layout, one checked launch (C poisoned with NaN when beta == 0, guard zones
// around C), a reference on the same rounded inputs (CPU fp64 for small problems, cuBLAS with f32
// output otherwise), then the step and cublasGemmEx with the same input type, output type and
// layout timed the same way. The runner is run_step's (step_runner.cuh), with what differs for these
// types (run_tc_step.cu).
#pragma once

#include <cublas_v2.h>
#include <cuda_runtime.h>

#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include "cublas_ref.cuh"
#include "gemm_types.hpp"
#include "hd.hpp"
#include "options.hpp"
#include "run_step.cuh"

namespace gemm {

// The problem a launch receives, TcProblem, is in gemm_types.hpp.
struct TcStepDescription {
  std::string name, title;
  int min_cc = 75;
  int only_cc = 0;  // nonzero: runs on exactly this compute capability (sm_90a code: 90)
  std::vector<ParamSpec> params;
  // "" or the rule a shape breaks; empty function: tc_shape_rule.
  std::function<std::string(const GemmShape&, Layout)> shape_rule;
  std::function<std::string(const Params&)> check_params;
  std::function<LaunchShape(const GemmShape&, const Params&)> launch_shape;
  std::function<void(const TcProblem&, const Params&, cudaStream_t)> launch;
  // The kernel this problem launches with these params, for the resource report: the problem as
  // `launch` receives it, without its buffers (a step that compiles instances for kinds of shape,
  // as step 14 for shapes of whole tiles, or for beta = 0, as step 20, returns the problem's).
  std::function<const void*(const TcProblem&, const Params&)> kernel;
  // Optional: the tunables to run with when the command line sets none (--param fixes them), given
  // the defaults and this GPU's limits (gpu.shared_per_block: the shared memory one block may have,
  // its opt-in limit), e.g. a smaller configuration where the default's stages do not fit.
  std::function<Params(const Params& defaults, const GpuLimits& gpu)> params_for_gpu;
  // Optional: the tunables a shape runs with when the command line sets none (as StepDescription's:
  // e.g. a smaller tile where the default's would leave most SMs idle), from the layout, the
  // defaults (after params_for_gpu) and the GPU's limits (its SMs; a tile that does not fit its
  // shared memory per block is not chosen).
  std::function<Params(const GemmShape&, Layout, const Params& defaults, const GpuLimits& gpu)> params_for_shape;
};

// For a tensor-core step whose kernel depends only on the params and the types:
// `kernel_for(params, layout, dtype, out)` as the description's `kernel`.
template <typename KernelFor>
auto same_kernel_for_every_problem(KernelFor kernel_for) {
  return [kernel_for](const TcProblem& problem, const Params& params) {
    return kernel_for(params, problem.layout, problem.dtype, problem.out);
  };
}

int run_tc_step(int argc, char** argv, const TcStepDescription& step);
// The FP8 step (19): e4m3/e5m2 inputs with per-tensor scales, layout NT, cuBLASLt as the yardstick.
int run_fp8_step(int argc, char** argv, const TcStepDescription& step);

// A float rounded to f16 or bf16 (its 16 bits), and back.
std::uint16_t to_16bit(float value, InputType type);
float from_16bit(std::uint16_t bits, InputType type);

}  // namespace gemm
