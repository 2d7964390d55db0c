// Step 07: 2D block tiling. See docs/07-2d-blocktiling.md.
#include "kernel.cuh"

int main(int argc, char** argv) {
  gemm::StepDescription step;
  step.name = "07_2d_blocktiling";
  step.title = "each thread computes a TMxTN block of C as outer products of register-held A and B values";
  step.min_cc = 75;
  step.params = gemm::param_specs(step07::kTunables, step07::kConfigs[0]);
  step.check_params = gemm::params_rule(step07::kTunables, step07::config_rule);
  step.launch_shape = gemm::params_launch_shape(step07::kTunables, step07::launch_shape);
  step.launch = step07::launch;
  step.kernel = gemm::same_kernel_for_every_shape(step07::kernel_for);
  return gemm::run_step(argc, argv, step);
}
