// Step 07: 2D block tiling. See docs/07-2d-blocktiling.md.
#include "kernel.cuh"

int main(int argc, char** argv) {
  const step07::Config d = step07::kConfigs[0];
  gemm::StepDescription step;
  step.name = "07_2d_blocktiling";
  step.title = "each thread computes a TMxTN block of C as outer products of register-held A and B values";
  step.min_cc = 75;
  step.params = {{"BM", d.bm, "rows of C per block"},
                 {"BN", d.bn, "columns of C per block"},
                 {"BK", d.bk, "depth of the shared tiles"},
                 {"TM", d.tm, "rows of C per thread"},
                 {"TN", d.tn, "columns of C per thread (results per thread = TM*TN)"},
                 {"MINB", d.min_blocks, "blocks per SM the compiler must fit (__launch_bounds__; caps registers)"}};
  step.check_params = [](const gemm::Params& params) {
    return std::string(step07::config_rule(step07::config_from(params)));
  };
  step.launch_shape = [](const gemm::GemmShape& shape, const gemm::Params& params) {
    return step07::launch_shape(shape, step07::config_from(params));
  };
  step.launch = step07::launch;
  step.kernel = gemm::same_kernel_for_every_shape(step07::kernel_for);
  return gemm::run_step(argc, argv, step);
}
