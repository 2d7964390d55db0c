// Step 01: the naive kernel. See docs/01-naive.md.
#include "kernel.cuh"

int main(int argc, char** argv) {
  gemm::StepDescription step;
  step.name = "01_naive";
  step.title = "one thread per element of C, threadIdx.x walks rows of C (uncoalesced)";
  step.min_cc = 75;
  step.launch_shape = [](const gemm::GemmShape& shape, const gemm::Params&) { return step01::launch_shape(shape); };
  step.launch = step01::launch;
  step.kernel = [](const gemm::GemmShape&, const gemm::Params&) {
    return reinterpret_cast<const void*>(step01::naive_sgemm);
  };
  return gemm::run_step(argc, argv, step);
}
