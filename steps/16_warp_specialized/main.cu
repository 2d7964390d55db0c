// Step 16: Hopper (sm_90a) wgmma + TMA with the block's warps specialized: a producer warpgroup
// copies, consumer warpgroups multiply, STAGES buffers and two mbarriers per stage between them.
// See docs/16-warp-specialized.md.
#include "kernel.cuh"

int main(int argc, char** argv) {
  gemm::TcStepDescription step;
  step.name = "16_warp_specialized";
  step.title = "a producer warpgroup (one thread issues the TMA copies, up to STAGES - 1 k-tiles ahead) and consumer warpgroups "
               "(wgmma) hand buffers over through full and empty mbarriers; setmaxnreg (sm_90a)";
  step.min_cc = 90;
  step.only_cc = 90;  // sm_90a code runs on compute capability 9.0 only
  step.params = gemm::param_specs(step16::kTunables, step16::kConfigs[0]);
  step.check_params = gemm::params_rule(step16::kTunables, step16::config_rule);
  step.shape_rule = gemm::tc_aligned_rows_rule;  // TMA: every stored row starts on 16 bytes
  step.launch_shape = [](const gemm::GemmShape& shape, const gemm::Params& params) {
    return step16::launch_shape(shape, step16::config_from(params));
  };
  step.launch = step16::launch;
  step.kernel = gemm::same_kernel_for_every_problem(step16::kernel_for);
  return gemm::run_tc_step(argc, argv, step);
}
