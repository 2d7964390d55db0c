// Step 26: Hopper (sm_90a) wgmma + TMA + mbarrier pipeline, warp specialized and persistent: step
// 25 with a 128 x 144 tile, whose count fills the SMs at some mid sizes. See docs/26-fitted-tile.md.
#include "kernel.cuh"

int main(int argc, char** argv) {
  gemm::TcStepDescription step;
  step.name = "26_fitted_tile";
  step.title = "16-bit as in step 25, with a 128 x 144 tile where its rounds fill the SMs (1536^3), B's last 16 columns "
               "in a box of their own (sm_90a)";
  step.min_cc = 90;
  step.only_cc = 90;  // sm_90a code runs on compute capability 9.0 only
  step.params = gemm::param_specs(step26::kTunables, step26::kConfigs[0]);
  step.check_params = gemm::params_rule(step26::kTunables, step26::config_rule);
  step.shape_rule = gemm::tc_aligned_rows_rule;  // TMA: every stored row starts on 16 bytes
  step.launch_shape = [](const gemm::GemmShape& shape, const gemm::Params& params) {
    const step26::Config cfg = step26::config_from(params);
    return step26::launch_shape(shape, cfg, step26::resident_blocks(cfg));
  };
  step.launch = step26::launch;
  step.kernel = gemm::same_kernel_for_every_problem(step26::kernel_for);
  // Without --param, the tile is chosen by shape: 128 x 128 or 64 x 128 where the default's tiles
  // would fill a single round on a fraction of the SMs, 128 x 192 or 128 x 144 where their counted
  // time beats the choice by the margin (mapping.hpp, config_for_shape).
  step.params_for_shape = [](const gemm::GemmShape& shape, gemm::Layout layout, const gemm::Params&,
                             const gemm::GpuLimits& gpu) {  // sm_90a alone: every tile fits (config_rule)
    return step26::to_params(step26::config_for_shape(shape, layout, gpu.sms));
  };
  return gemm::run_tc_step(argc, argv, step);
}
