// Step 24: step 23's FP8 kernel, in which a consumer alone in its block adds each k-tile's sum while
// the tensor cores run the next k-tile's products (sm_90a). See docs/24-overlapped-promotion.md.
#include "kernel.cuh"

int main(int argc, char** argv) {
  gemm::TcStepDescription step;
  step.name = "24_overlapped_promotion";
  step.title = "FP8 as in step 23, with the promotion under the next k-tile's products (sm_90a)";
  step.min_cc = 90;
  step.only_cc = 90;  // sm_90a code runs on compute capability 9.0 only
  step.params = gemm::param_specs(step24::kTunables, step24::kConfigs[0]);
  step.check_params = gemm::params_rule(step24::kTunables, step24::config_rule);
  step.launch_shape = [](const gemm::GemmShape& shape, const gemm::Params& params) {
    const step24::Config cfg = step24::config_from(params);
    return step24::launch_shape(shape, cfg, step24::resident_blocks(cfg));
  };
  step.launch = step24::launch;
  // The resource report names the instance the problem launches: where TMA stores C,
  // the one compiled without the read-back path (kernel.cuh, kernel_for).
  step.kernel = [](const gemm::TcProblem& problem, const gemm::Params& params) {
    return step24::kernel_for(problem, params);
  };
  // Without --param, the tile is chosen by shape: 128 x 192, 128 x 176, 128 x 128 or 64 x 128, whichever's
  // schedule takes the least time (mapping.hpp, config_for_shape).
  step.params_for_shape = [](const gemm::GemmShape& shape, gemm::Layout, const gemm::Params&,
                             const gemm::GpuLimits& gpu) {  // sm_90a alone: every tile fits (config_rule)
    return step24::to_params(step24::config_for_shape(shape, gpu.sms));
  };
  return gemm::run_fp8_step(argc, argv, step);
}
