// Step 02: global memory coalescing. See docs/02-gmem-coalescing.md.
#include "kernel.cuh"

int main(int argc, char** argv) {
  gemm::StepDescription step;
  step.name = "02_gmem_coalescing";
  step.title = "one thread per element of C, threadIdx.x walks columns of C (coalesced B and C)";
  step.min_cc = 75;
  step.launch_shape = [](const gemm::GemmShape& shape, const gemm::Params&) { return step02::launch_shape(shape); };
  step.launch = step02::launch;
  step.kernel = [](const gemm::GemmShape&, const gemm::Params&) {
    return reinterpret_cast<const void*>(step02::coalesced_sgemm);
  };
  return gemm::run_step(argc, argv, step);
}
