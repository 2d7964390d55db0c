// Step 09: block -> warp -> thread tiling. See docs/09-warptiling.md.
#include "kernel.cuh"

int main(int argc, char** argv) {
  gemm::StepDescription step;
  step.name = "09_warptiling";
  step.title = "block tile -> warp tile -> thread tile: each warp owns a compact WM x WN rectangle of C";
  step.min_cc = 75;
  step.params = gemm::param_specs(step09::kTunables, step09::kConfigs[0]);
  step.check_params = gemm::params_rule(step09::kTunables, step09::config_rule);
  step.launch_shape = gemm::params_launch_shape(step09::kTunables, step09::launch_shape);
  step.launch = step09::launch;
  step.kernel = gemm::same_kernel_for_every_shape(step09::kernel_for);
  return gemm::run_step(argc, argv, step);
}
