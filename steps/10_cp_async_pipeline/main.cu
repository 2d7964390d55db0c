// Step 10: a cp.async multi-stage pipeline. See docs/10-cp-async-pipeline.md.
#include "kernel.cuh"

int main(int argc, char** argv) {
  gemm::StepDescription step;
  step.name = "10_cp_async_pipeline";
  step.title = "cp.async copies k-tiles into STAGES padded shared buffers ahead of the compute (sm_80+)";
  step.min_cc = 80;  // cp.async
  step.params = gemm::param_specs(step10::kTunables, step10::kConfigs[0]);
  step.check_params = gemm::params_rule(step10::kTunables, step10::config_rule);
  step.launch_shape = gemm::params_launch_shape(step10::kTunables, step10::launch_shape);
  step.launch = step10::launch;
  // Without --param, the block tile is chosen by shape: the default or its transpose, whichever
  // covers the shape in fewer waves (mapping.hpp, config_for_shape).
  step.params_for_shape = [](const gemm::GemmShape& shape, const gemm::Params&, const gemm::GpuLimits& gpu) {
    return step10::to_params(step10::config_for_shape(shape, gpu));
  };
  step.kernel = [](const gemm::GemmShape& shape, const gemm::Params& params) {
    return step10::kernel_for(shape, params);
  };
  return gemm::run_step(argc, argv, step);
}
