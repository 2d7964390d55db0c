// Step 18: Hopper (sm_90a) wgmma + TMA + mbarrier pipeline, warp specialized and persistent, C
// stored by TMA from shared memory, the tile chosen by shape.
// See docs/18-tma-store-epilogue.md.
#include "kernel.cuh"

int main(int argc, char** argv) {
  gemm::TcStepDescription step;
  step.name = "18_tma_store_epilogue";
  step.title = "step 17 with each tile of C staged in shared memory and stored by TMA, and the tile chosen by shape "
               "(sm_90a)";
  step.min_cc = 90;
  step.only_cc = 90;  // sm_90a code runs on compute capability 9.0 only
  step.params = gemm::param_specs(step18::kTunables, step18::kConfigs[0]);
  step.check_params = gemm::params_rule(step18::kTunables, step18::config_rule);
  step.shape_rule = gemm::tc_aligned_rows_rule;  // TMA: every stored row starts on 16 bytes
  step.launch_shape = [](const gemm::GemmShape& shape, const gemm::Params& params) {
    const step18::Config cfg = step18::config_from(params);
    return step18::launch_shape(shape, cfg, step18::resident_blocks(cfg));
  };
  step.launch = step18::launch;
  step.kernel = gemm::same_kernel_for_every_problem(step18::kernel_for);
  // Without --param, the tile is chosen by shape: 128 x 128 or 64 x 128 where the default's tiles
  // would fill a single round on a fraction of the SMs, 128 x 192 where its counted time beats the
  // choice by the margin (mapping.hpp, config_for_shape).
  step.params_for_shape = [](const gemm::GemmShape& shape, gemm::Layout layout, const gemm::Params&,
                             const gemm::GpuLimits& gpu) {  // sm_90a alone: every tile fits (config_rule)
    return step18::to_params(step18::config_for_shape(shape, layout, gpu.sms));
  };
  return gemm::run_tc_step(argc, argv, step);
}
