// Step 06: 1D block tiling. See docs/06-1d-blocktiling.md.
#include "kernel.cuh"

int main(int argc, char** argv) {
  gemm::StepDescription step;
  step.name = "06_1d_blocktiling";
  step.title = "each thread computes TM elements of a column of C from one register-held B value";
  step.min_cc = 75;
  step.params = gemm::param_specs(step06::kTunables, step06::kConfigs[0]);
  step.check_params = gemm::params_rule(step06::kTunables, step06::config_rule);
  step.launch_shape = gemm::params_launch_shape(step06::kTunables, step06::launch_shape);
  step.launch = step06::launch;
  step.kernel = gemm::same_kernel_for_every_shape(step06::kernel_for);
  return gemm::run_step(argc, argv, step);
}
