// Step 11: the last wave of tiles split along k, the last fp32 step. See docs/11-split-k-tail.md.
#include "kernel.cuh"

int main(int argc, char** argv) {
  const step11::Config d = step11::kConfigs[0];
  gemm::StepDescription step;
  step.name = "11_split_k_tail";
  step.title = "the ragged last wave of tiles split along k over every SM, programmatic dependent launch: the last fp32 step";
  step.min_cc = 80;  // cp.async
  step.params = {{"BM", d.bm, "rows of C per block"},
                 {"BN", d.bn, "columns of C per block"},
                 {"BK", d.bk, "depth of the shared tiles"},
                 {"WM", d.wm, "rows of C per warp"},
                 {"WN", d.wn, "columns of C per warp"},
                 {"TM", d.tm, "rows of C per thread"},
                 {"TN", d.tn, "columns of C per thread (results per thread = TM*TN)"},
                 {"STAGES", d.stages, "shared-memory buffers in the pipeline (2 = double buffering)"},
                 {"MINB", d.min_blocks, "blocks per SM the compiler must fit (__launch_bounds__; caps registers)"},
                 {"SPLIT", 1, "1: a partial last wave of tiles is split along k over all SMs; 0: every tile whole"}};
  step.check_params = [](const gemm::Params& params) {
    const std::string rule = step11::config_rule(step11::config_from(params));
    return rule.empty() ? std::string(step11::split_rule(params)) : rule;
  };
  step.launch_shape = [](const gemm::GemmShape& shape, const gemm::Params& params) {
    return step11::launch_shape(shape, step11::config_from(params));
  };
  step.launch = step11::launch;
  // Without --param, the block tile is chosen by shape: the default or its transpose, whichever
  // covers the shape in fewer waves (mapping.hpp, config_for_shape).
  step.params_for_shape = [](const gemm::GemmShape& shape, const gemm::Params& defaults, int sms) {
    gemm::Params chosen = step11::to_params(step11::config_for_shape(shape, sms));
    chosen["SPLIT"] = defaults.at("SPLIT");
    return chosen;
  };
  step.kernel = [](const gemm::GemmShape& shape, const gemm::Params& params) {
    return step11::kernel_for(shape, params);
  };
  return gemm::run_step(argc, argv, step);
}
