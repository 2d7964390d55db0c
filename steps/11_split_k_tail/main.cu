// Step 11: the last wave of tiles split along k, the last fp32 step. See docs/11-split-k-tail.md.
#include "kernel.cuh"

int main(int argc, char** argv) {
  gemm::StepDescription step;
  step.name = "11_split_k_tail";
  step.title = "the ragged last wave of tiles split along k over every SM, programmatic dependent launch: the last fp32 step";
  step.min_cc = 80;  // cp.async
  step.params = gemm::param_specs(step11::kTunables, step11::kConfigs[0]);
  step.check_params = [](const gemm::Params& params) {
    const std::string rule = step11::config_rule(step11::config_from(params));
    return rule.empty() ? std::string(step11::split_rule(params)) : rule;
  };
  step.launch_shape = gemm::params_launch_shape(step11::kTunables, step11::launch_shape);
  step.launch = step11::launch;
  // Without --param, the block tile is chosen by shape: the default or its transpose, whichever
  // covers the shape in fewer waves (mapping.hpp, config_for_shape).
  // SPLIT, not a field of Config, keeps its value.
  step.params_for_shape = [](const gemm::GemmShape& shape, const gemm::Params& defaults, const gemm::GpuLimits& gpu) {
    return step11::to_params(step11::config_for_shape(shape, gpu), defaults);
  };
  step.kernel = [](const gemm::GemmShape& shape, const gemm::Params& params) {
    return step11::kernel_for(shape, params);
  };
  return gemm::run_step(argc, argv, step);
}
