// Step 19: FP8 on Hopper (sm_90a): e4m3 (or e5m2) inputs with per-tensor scales, wgmma k = 32, the
// tensor cores' sums promoted into f32 registers. See docs/19-fp8.md.
#include "kernel.cuh"

int main(int argc, char** argv) {
  gemm::TcStepDescription step;
  step.name = "19_fp8";
  step.title = "FP8 (e4m3, e5m2) wgmma with per-tensor scales, the tensor cores' sums promoted into f32 every PROMOTE "
               "k-tiles; step 18's pipeline (sm_90a)";
  step.min_cc = 90;
  step.only_cc = 90;  // sm_90a code runs on compute capability 9.0 only
  step.params = gemm::param_specs(step19::kTunables, step19::kConfigs[0]);
  step.check_params = gemm::params_rule(step19::kTunables, step19::config_rule);
  step.launch_shape = [](const gemm::GemmShape& shape, const gemm::Params& params) {
    const step19::Config cfg = step19::config_from(params);
    return step19::launch_shape(shape, cfg, step19::resident_blocks(cfg));
  };
  step.launch = step19::launch;
  step.kernel = gemm::same_kernel_for_every_problem(step19::kernel_for);
  // Without --param, the tile is chosen by shape: 128 x 128 where its rounds take less time
  // (mapping.hpp, config_for_shape).
  step.params_for_shape = [](const gemm::GemmShape& shape, gemm::Layout, const gemm::Params&,
                             const gemm::GpuLimits& gpu) {  // sm_90a alone: every tile fits (config_rule)
    return step19::to_params(step19::config_for_shape(shape, gpu.sms));
  };
  return gemm::run_fp8_step(argc, argv, step);
}
