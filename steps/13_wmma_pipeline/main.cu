// Step 13: step 12's WMMA kernel fed by step 10's cp.async pipeline (sm_80+).
// See docs/13-wmma-pipeline.md.
#include "kernel.cuh"

int main(int argc, char** argv) {
  gemm::TcStepDescription step;
  step.name = "13_wmma_pipeline";
  step.title = "step 10's cp.async pipeline feeding the WMMA tensor cores: k-tiles copied STAGES - 1 ahead (sm_80+)";
  step.min_cc = 80;  // cp.async
  step.params = gemm::param_specs(step13::kTunables, step13::kConfigs[0]);  // see config_for_gpu for GPUs where it does not fit
  step.check_params = gemm::params_rule(step13::kTunables, step13::config_rule);
  step.shape_rule = gemm::tc_aligned_rows_rule;  // cp.async copies whole 16-byte chunks of the stored rows
  step.launch_shape = gemm::params_launch_shape(step13::kTunables, step13::launch_shape);
  step.params_for_gpu = [](const gemm::Params&, const gemm::GpuLimits& gpu) {
    return step13::to_params(step13::config_for_gpu(gpu.shared_per_block));
  };
  step.launch = step13::launch;
  step.kernel = gemm::same_kernel_for_every_problem(step13::kernel_for);
  return gemm::run_tc_step(argc, argv, step);
}
