// Step 22: step 21's FP8 kernel with two more tiles, 128 x 176 and 128 x 64, and the tile chosen by
// shape counting what a k-tile costs besides its products (sm_90a). See docs/22-tile-width.md.
#include "kernel.cuh"

int main(int argc, char** argv) {
  gemm::TcStepDescription step;
  step.name = "22_tile_width";
  step.title = "FP8 as in step 21, with a 128 x 176 tile where its rounds take less time than the others' (4096^3) "
               "(sm_90a)";
  step.min_cc = 90;
  step.only_cc = 90;  // sm_90a code runs on compute capability 9.0 only
  step.params = gemm::param_specs(step22::kTunables, step22::kConfigs[0]);
  step.check_params = gemm::params_rule(step22::kTunables, step22::config_rule);
  step.launch_shape = [](const gemm::GemmShape& shape, const gemm::Params& params) {
    const step22::Config cfg = step22::config_from(params);
    return step22::launch_shape(shape, cfg, step22::resident_blocks(cfg));
  };
  step.launch = step22::launch;
  // The resource report names the instance the problem launches: where TMA stores C,
  // the one compiled without the read-back path (kernel.cuh, kernel_for).
  step.kernel = [](const gemm::TcProblem& problem, const gemm::Params& params) {
    return step22::kernel_for(problem, params);
  };
  // Without --param, the tile is chosen by shape: 128 x 192, 128 x 176, 128 x 128 or 128 x 64,
  // whichever's rounds take the least time (mapping.hpp, config_for_shape).
  step.params_for_shape = [](const gemm::GemmShape& shape, gemm::Layout, const gemm::Params&,
                             const gemm::GpuLimits& gpu) {  // sm_90a alone: every tile fits (config_rule)
    return step22::to_params(step22::config_for_shape(shape, gpu.sms));
  };
  return gemm::run_fp8_step(argc, argv, step);
}
