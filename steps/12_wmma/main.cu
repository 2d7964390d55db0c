// Step 12: tensor cores through WMMA, f16/bf16 in, f32 accumulate, f32/f16/bf16 out, NN/NT/TN.
// See docs/12-wmma.md.
#include "kernel.cuh"

int main(int argc, char** argv) {
  gemm::TcStepDescription step;
  step.name = "12_wmma";
  step.title = "tensor cores through WMMA: 16x16x16 fragments from shared tiles, one compute loop for NN, NT, TN";
  step.min_cc = 75;
  step.params = gemm::param_specs(step12::kTunables, step12::kConfigs[0]);
  step.check_params = gemm::params_rule(step12::kTunables, step12::config_rule);
  step.launch_shape = gemm::params_launch_shape(step12::kTunables, step12::launch_shape);
  step.launch = step12::launch;
  step.kernel = gemm::same_kernel_for_every_problem(step12::kernel_for);
  return gemm::run_tc_step(argc, argv, step);
}
