// Step 23: step 22's FP8 kernel with the last round's k-tiles shared out over every cluster where
// the units do not fill it (stream-K), the partial sums added up in a fixed order (sm_90a). See
// docs/23-stream-k.md.
#include "kernel.cuh"

int main(int argc, char** argv) {
  gemm::TcStepDescription step;
  step.name = "23_stream_k";
  step.title = "FP8 as in step 22, with the last round's k-tiles shared out over every cluster (stream-K) "
               "(sm_90a)";
  step.min_cc = 90;
  step.only_cc = 90;  // sm_90a code runs on compute capability 9.0 only
  step.params = gemm::param_specs(step23::kTunables, step23::kConfigs[0]);
  step.check_params = gemm::params_rule(step23::kTunables, step23::config_rule);
  step.launch_shape = [](const gemm::GemmShape& shape, const gemm::Params& params) {
    const step23::Config cfg = step23::config_from(params);
    return step23::launch_shape(shape, cfg, step23::resident_blocks(cfg));
  };
  step.launch = step23::launch;
  // The resource report names the instance the problem launches: where TMA stores C,
  // the one compiled without the read-back path (kernel.cuh, kernel_for).
  step.kernel = [](const gemm::TcProblem& problem, const gemm::Params& params) {
    return step23::kernel_for(problem, params);
  };
  // Without --param, the tile is chosen by shape: 128 x 192, 128 x 176 or 128 x 128, whichever's
  // schedule takes the least time (mapping.hpp, config_for_shape).
  step.params_for_shape = [](const gemm::GemmShape& shape, gemm::Layout, const gemm::Params&,
                             const gemm::GpuLimits& gpu) {  // sm_90a alone: every tile fits (config_rule)
    return step23::to_params(step23::config_for_shape(shape, gpu.sms));
  };
  return gemm::run_fp8_step(argc, argv, step);
}
