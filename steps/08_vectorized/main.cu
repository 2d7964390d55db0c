// Step 08: vectorized loads and stores, A transposed in shared memory. See docs/08-vectorized.md.
#include "kernel.cuh"

int main(int argc, char** argv) {
  gemm::StepDescription step;
  step.name = "08_vectorized";
  step.title = "16-byte global and shared accesses, A transposed in shared memory, 16-byte stores of C";
  step.min_cc = 75;
  step.params = gemm::param_specs(step08::kTunables, step08::kConfigs[0]);
  step.check_params = gemm::params_rule(step08::kTunables, step08::config_rule);
  step.launch_shape = gemm::params_launch_shape(step08::kTunables, step08::launch_shape);
  step.launch = step08::launch;
  step.kernel = gemm::same_kernel_for_every_shape(step08::kernel_for);
  return gemm::run_step(argc, argv, step);
}
