// Step 05: shared-memory tiling. See docs/05-smem-tiling.md.
#include "kernel.cuh"

int main(int argc, char** argv) {
  gemm::StepDescription step;
  step.name = "05_smem_tiling";
  step.title = "32x32 tiles of A and B staged in shared memory, one element of C per thread";
  step.min_cc = 75;
  step.launch_shape = [](const gemm::GemmShape& shape, const gemm::Params&) { return step05::launch_shape(shape); };
  step.launch = step05::launch;
  step.kernel = [](const gemm::GemmShape&, const gemm::Params&) {
    return reinterpret_cast<const void*>(step05::smem_tiled_sgemm);
  };
  return gemm::run_step(argc, argv, step);
}
