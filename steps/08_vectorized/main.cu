// Step 08: vectorized loads and stores, A transposed in shared memory. See docs/08-vectorized.md.
#include "kernel.cuh"

int main(int argc, char** argv) {
  const step08::Config d = step08::kConfigs[0];
  gemm::StepDescription step;
  step.name = "08_vectorized";
  step.title = "16-byte global and shared accesses, A transposed in shared memory, 16-byte stores of C";
  step.min_cc = 75;
  step.params = {{"BM", d.bm, "rows of C per block"},
                 {"BN", d.bn, "columns of C per block"},
                 {"BK", d.bk, "depth of the shared tiles"},
                 {"TM", d.tm, "rows of C per thread"},
                 {"TN", d.tn, "columns of C per thread (results per thread = TM*TN)"},
                 {"MINB", d.min_blocks, "blocks per SM the compiler must fit (__launch_bounds__; caps registers)"}};
  step.check_params = [](const gemm::Params& params) {
    return std::string(step08::config_rule(step08::config_from(params)));
  };
  step.launch_shape = [](const gemm::GemmShape& shape, const gemm::Params& params) {
    return step08::launch_shape(shape, step08::config_from(params));
  };
  step.launch = step08::launch;
  step.kernel = gemm::same_kernel_for_every_shape(step08::kernel_for);
  return gemm::run_step(argc, argv, step);
}
