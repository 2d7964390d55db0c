// Step 06: 1D block tiling. See docs/06-1d-blocktiling.md.
#include "kernel.cuh"

int main(int argc, char** argv) {
  const step06::Config d = step06::kConfigs[0];
  gemm::StepDescription step;
  step.name = "06_1d_blocktiling";
  step.title = "each thread computes TM elements of a column of C from one register-held B value";
  step.min_cc = 75;
  step.params = {{"BM", d.bm, "rows of C per block"},
                 {"BN", d.bn, "columns of C per block"},
                 {"BK", d.bk, "depth of the shared tiles"},
                 {"TM", d.tm, "rows of C per thread (results per thread)"},
                 {"MINB", d.min_blocks, "blocks per SM the compiler must fit (__launch_bounds__; caps registers)"}};
  step.check_params = [](const gemm::Params& params) {
    return std::string(step06::config_rule(step06::config_from(params)));
  };
  step.launch_shape = [](const gemm::GemmShape& shape, const gemm::Params& params) {
    return step06::launch_shape(shape, step06::config_from(params));
  };
  step.launch = step06::launch;
  step.kernel = gemm::same_kernel_for_every_shape(step06::kernel_for);
  return gemm::run_step(argc, argv, step);
}
