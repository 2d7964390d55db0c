// Step 09: block -> warp -> thread tiling. See docs/09-warptiling.md.
#include "kernel.cuh"

int main(int argc, char** argv) {
  const step09::Config d = step09::kConfigs[0];
  gemm::StepDescription step;
  step.name = "09_warptiling";
  step.title = "block tile -> warp tile -> thread tile: each warp owns a compact WM x WN rectangle of C";
  step.min_cc = 75;
  step.params = {{"BM", d.bm, "rows of C per block"},
                 {"BN", d.bn, "columns of C per block"},
                 {"BK", d.bk, "depth of the shared tiles"},
                 {"WM", d.wm, "rows of C per warp"},
                 {"WN", d.wn, "columns of C per warp"},
                 {"TM", d.tm, "rows of C per thread"},
                 {"TN", d.tn, "columns of C per thread (results per thread = TM*TN)"},
                 {"MINB", d.min_blocks, "blocks per SM the compiler must fit (__launch_bounds__; caps registers)"}};
  step.check_params = [](const gemm::Params& params) {
    return std::string(step09::config_rule(step09::config_from(params)));
  };
  step.launch_shape = [](const gemm::GemmShape& shape, const gemm::Params& params) {
    return step09::launch_shape(shape, step09::config_from(params));
  };
  step.launch = step09::launch;
  step.kernel = gemm::same_kernel_for_every_shape(step09::kernel_for);
  return gemm::run_step(argc, argv, step);
}
