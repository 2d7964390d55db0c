// Step 12: tensor cores through WMMA, f16/bf16 in, f32 accumulate, f32/f16 out, NN/NT/TN.
// See docs/12-wmma.md.
#include "kernel.cuh"

int main(int argc, char** argv) {
  const step12::Config d = step12::kConfigs[0];
  gemm::TcStepDescription step;
  step.name = "12_wmma";
  step.title = "tensor cores through WMMA: 16x16x16 fragments from shared tiles, one compute loop for NN, NT, TN";
  step.min_cc = 75;
  step.params = {{"BM", d.bm, "rows of C per block (16 with WM=16 and BN=BK=WN=16: the minimal one-warp kernel)"},
                 {"BN", d.bn, "columns of C per block"},
                 {"BK", d.bk, "depth of the shared tiles (a multiple of 16)"},
                 {"WM", d.wm, "rows of C per warp (a multiple of 16)"},
                 {"WN", d.wn, "columns of C per warp (a multiple of 16)"}};
  step.check_params = [](const gemm::Params& params) {
    return std::string(step12::config_rule(step12::config_from(params)));
  };
  step.launch_shape = [](const gemm::GemmShape& shape, const gemm::Params& params) {
    return step12::launch_shape(shape, step12::config_from(params));
  };
  step.launch = step12::launch;
  step.kernel = gemm::same_kernel_for_every_shape(step12::kernel_for);
  return gemm::run_tc_step(argc, argv, step);
}
