// run_tc_step: the whole program of a tensor-core step (steps 12-15), the counterpart of run_step
// for f16/bf16 inputs with f32 accumulation. Per shape: seeded inputs rounded to the input type and
// stored in the chosen layout, one checked launch (C poisoned with NaN when beta == 0, guard zones
// around C), a reference on the same rounded inputs (CPU fp64 for small problems, cuBLAS with f32
// output otherwise), then the step and cublasGemmEx with the same input type, output type and
// layout timed the same way.
#pragma once

#include <cublas_v2.h>
#include <cuda_runtime.h>

#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include "hd.hpp"
#include "options.hpp"
#include "run_step.cuh"

namespace gemm {

// C = alpha * A * B + beta * C, row-major. Layout nn: A is M x K, B is K x N; nt: B is stored N x K
// (B transposed); tn: A is stored K x M. C is M x N of the output type. Leading dimensions are the
// stored row lengths (K or M for A, N or K for B, N for C).
struct TcProblem {
  GemmShape shape;
  float alpha = 1, beta = 0;
  Layout layout = Layout::nn;
  InputType dtype = InputType::f16;
  OutputType out = OutputType::f32;
  const void* a = nullptr;
  const void* b = nullptr;
  void* c = nullptr;
};

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
  // The kernel this shape launches with these params and types, for the resource report (a step
  // that compiles instances for kinds of shape, as step 14 for shapes of whole tiles, returns the
  // shape's).
  std::function<const void*(const GemmShape&, const Params&, Layout, InputType, OutputType)> kernel;
  // Optional: the tunables to run with when the command line sets none (--param fixes them), given
  // the defaults and the shared memory one block may have on this GPU (its opt-in limit), e.g. a
  // smaller configuration where the default's stages do not fit.
  std::function<Params(const Params& defaults, int shared_bytes_per_block)> params_for_gpu;
  // Optional: the tunables a shape runs with when the command line sets none (as StepDescription's:
  // e.g. a smaller tile where the default's would leave most SMs idle), from the layout, the
  // defaults (after params_for_gpu) and the GPU's SM count.
  std::function<Params(const GemmShape&, Layout, const Params& defaults, int sms)> params_for_shape;
};

int run_tc_step(int argc, char** argv, const TcStepDescription& step);

// A float rounded to f16 or bf16 (its 16 bits), and back.
std::uint16_t to_16bit(float value, InputType type);
float from_16bit(std::uint16_t bits, InputType type);

// cublasGemmEx on a problem's inputs, layout and input type, f32 compute, writing C of `c_type`
// to `c` (row-major, through cuBLAS's column-major view).
void cublas_gemm_ex(cublasHandle_t handle, const TcProblem& problem, OutputType c_type, void* c);

}  // namespace gemm
