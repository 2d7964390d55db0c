// Step 20: step 19's FP8 kernel, with each tile's epilogue under the next tile's first products
// (sm_90a). See docs/20-overlapped-epilogue.md.
#include "kernel.cuh"

int main(int argc, char** argv) {
  gemm::TcStepDescription step;
  step.name = "20_overlapped_epilogue";
  step.title = "FP8 as in step 19, each tile stored under the next tile's first products where the registers allow "
               "(16-bit output; the 192-column tile in a kernel without the read-back path) (sm_90a)";
  step.min_cc = 90;
  step.only_cc = 90;  // sm_90a code runs on compute capability 9.0 only
  step.params = gemm::param_specs(step20::kTunables, step20::kConfigs[0]);
  step.check_params = gemm::params_rule(step20::kTunables, step20::config_rule);
  step.launch_shape = [](const gemm::GemmShape& shape, const gemm::Params& params) {
    const step20::Config cfg = step20::config_from(params);
    return step20::launch_shape(shape, cfg, step20::resident_blocks(cfg));
  };
  step.launch = step20::launch;
  // The resource report names the instance the problem launches: where TMA stores C,
  // the one compiled without the read-back path (kernel.cuh, kernel_for).
  step.kernel = [](const gemm::TcProblem& problem, const gemm::Params& params) {
    return step20::kernel_for(problem, params);
  };
  // Without --param, the tile is chosen by shape: 128 x 128 where its rounds take less time
  // (mapping.hpp, config_for_shape).
  step.params_for_shape = [](const gemm::GemmShape& shape, gemm::Layout, const gemm::Params&,
                             const gemm::GpuLimits& gpu) {  // sm_90a alone: every tile fits (config_rule)
    return step20::to_params(step20::config_for_shape(shape, gpu.sms));
  };
  return gemm::run_fp8_step(argc, argv, step);
}
