// Step 17: Hopper (sm_90a) wgmma + TMA + mbarrier pipeline, warp specialized, and now persistent,
// with the tiles in a group order and blocks in clusters sharing B by multicast.
// See docs/17-persistent-clusters.md.
#include "kernel.cuh"

int main(int argc, char** argv) {
  gemm::TcStepDescription step;
  step.name = "17_persistent_clusters";
  step.title = "step 16 on a persistent grid: one block per SM loops over tiles in GROUP_M order, blocks in clusters "
               "of 2 share B's copies by TMA multicast (sm_90a)";
  step.min_cc = 90;
  step.only_cc = 90;  // sm_90a code runs on compute capability 9.0 only
  step.params = gemm::param_specs(step17::kTunables, step17::kConfigs[0]);
  step.check_params = gemm::params_rule(step17::kTunables, step17::config_rule);
  step.shape_rule = gemm::tc_aligned_rows_rule;  // TMA: every stored row starts on 16 bytes
  step.launch_shape = [](const gemm::GemmShape& shape, const gemm::Params& params) {
    const step17::Config cfg = step17::config_from(params);
    return step17::launch_shape(shape, cfg, step17::resident_blocks(cfg));
  };
  step.launch = step17::launch;
  step.kernel = gemm::same_kernel_for_every_problem(step17::kernel_for);
  return gemm::run_tc_step(argc, argv, step);
}
