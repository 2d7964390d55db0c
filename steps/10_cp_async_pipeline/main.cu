// Step 10: a cp.async multi-stage pipeline. See docs/10-cp-async-pipeline.md.
#include "kernel.cuh"

int main(int argc, char** argv) {
  const step10::Config d = step10::kConfigs[0];
  gemm::StepDescription step;
  step.name = "10_cp_async_pipeline";
  step.title = "cp.async copies k-tiles into STAGES padded shared buffers ahead of the compute (sm_80+)";
  step.min_cc = 80;  // cp.async
  step.params = {{"BM", d.bm, "rows of C per block"},
                 {"BN", d.bn, "columns of C per block"},
                 {"BK", d.bk, "depth of the shared tiles"},
                 {"WM", d.wm, "rows of C per warp"},
                 {"WN", d.wn, "columns of C per warp"},
                 {"TM", d.tm, "rows of C per thread"},
                 {"TN", d.tn, "columns of C per thread (results per thread = TM*TN)"},
                 {"STAGES", d.stages, "shared-memory buffers in the pipeline (2 = double buffering)"},
                 {"MINB", d.min_blocks, "blocks per SM the compiler must fit (__launch_bounds__; caps registers)"}};
  step.check_params = [](const gemm::Params& params) {
    return std::string(step10::config_rule(step10::config_from(params)));
  };
  step.launch_shape = [](const gemm::GemmShape& shape, const gemm::Params& params) {
    return step10::launch_shape(shape, step10::config_from(params));
  };
  step.launch = step10::launch;
  // Without --param, the block tile is chosen by shape: the default or its transpose, whichever
  // covers the shape in fewer waves (mapping.hpp, config_for_shape).
  step.params_for_shape = [](const gemm::GemmShape& shape, const gemm::Params&, int sms) {
    return step10::to_params(step10::config_for_shape(shape, sms));
  };
  step.kernel = [](const gemm::GemmShape& shape, const gemm::Params& params) {
    return step10::kernel_for(shape, params);
  };
  return gemm::run_step(argc, argv, step);
}
