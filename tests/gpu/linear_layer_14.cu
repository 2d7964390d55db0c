// Step 14 for the linear-layer test (linear_layer_step.hpp).
#include "14_mma_ldmatrix/kernel.cuh"
#include "gpu.cuh"
#include "linear_layer_step.hpp"

namespace {

linear_layer::Step step14() {
  // The configuration the step's own program runs with on this GPU: the default where its shared
  // memory fits, else the first that does (config_for_gpu).
  return {"14_mma_ldmatrix", 80, 0, [](const gemm::TcProblem& p, cudaStream_t s) {
            const gemm::Params params = step14::to_params(step14::config_for_gpu(gemm::current_gpu().shared_per_block));
            step14::launch(p, params, s);
          }};
}

const linear_layer::Registration registration("14", step14);

}  // namespace
