// Step 21: step 20's FP8 kernel, with the k-loop's wgmma descriptors computed once and moved by
// the stage's offset in uniform registers (sm_90a). See docs/21-uniform-datapath.md.
#include "kernel.cuh"

int main(int argc, char** argv) {
  gemm::TcStepDescription step;
  step.name = "21_uniform_datapath";
  step.title = "FP8 as in step 20, the k-loop's wgmma descriptors computed once and moved by the stage's offset in "
               "uniform registers, where ptxas has the room and it is faster (sm_90a)";
  step.min_cc = 90;
  step.only_cc = 90;  // sm_90a code runs on compute capability 9.0 only
  step.params = gemm::param_specs(step21::kTunables, step21::kConfigs[0]);
  step.check_params = gemm::params_rule(step21::kTunables, step21::config_rule);
  step.launch_shape = [](const gemm::GemmShape& shape, const gemm::Params& params) {
    const step21::Config cfg = step21::config_from(params);
    return step21::launch_shape(shape, cfg, step21::resident_blocks(cfg));
  };
  step.launch = step21::launch;
  // The resource report names the instance the problem launches: where TMA stores C,
  // the one compiled without the read-back path (kernel.cuh, kernel_for).
  step.kernel = [](const gemm::TcProblem& problem, const gemm::Params& params) {
    return step21::kernel_for(problem, params);
  };
  // Without --param, the tile is chosen by shape: 128 x 128 where its rounds take less time
  // (mapping.hpp, config_for_shape).
  step.params_for_shape = [](const gemm::GemmShape& shape, gemm::Layout, const gemm::Params&,
                             const gemm::GpuLimits& gpu) {  // sm_90a alone: every tile fits (config_rule)
    return step21::to_params(step21::config_for_shape(shape, gpu.sms));
  };
  return gemm::run_fp8_step(argc, argv, step);
}
