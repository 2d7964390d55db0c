// Step 15: Hopper (sm_90a) wgmma from shared tiles that TMA copies, an mbarrier per stage.
// See docs/15-tma-wgmma.md.
#include "kernel.cuh"

int main(int argc, char** argv) {
  gemm::TcStepDescription step;
  step.name = "15_tma_wgmma";
  step.title = "one warpgroup multiplies with wgmma from 128-byte-swizzled tiles that TMA copies STAGES k-tiles ahead, "
               "each stage's arrival signalled by an mbarrier (sm_90a)";
  step.min_cc = 90;
  step.only_cc = 90;  // sm_90a code runs on compute capability 9.0 only
  step.params = gemm::param_specs(step15::kTunables, step15::kConfigs[0]);
  step.check_params = gemm::params_rule(step15::kTunables, step15::config_rule);
  step.shape_rule = gemm::tc_aligned_rows_rule;  // TMA: every stored row starts on 16 bytes
  step.launch_shape = [](const gemm::GemmShape& shape, const gemm::Params& params) {
    return step15::launch_shape(shape, step15::config_from(params));
  };
  step.launch = step15::launch;
  step.kernel = gemm::same_kernel_for_every_problem(step15::kernel_for);
  return gemm::run_tc_step(argc, argv, step);
}
