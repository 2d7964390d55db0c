// Step 13 for the linear-layer test (linear_layer_step.hpp).
#include "13_wmma_pipeline/kernel.cuh"
#include "gpu.cuh"
#include "linear_layer_step.hpp"

namespace {

linear_layer::Step step13() {
  // The configuration the step's own program runs with on this GPU: the default where its shared
  // memory fits, else the first that does (config_for_gpu).
  return {"13_wmma_pipeline", 80, 0, [](const gemm::TcProblem& p, cudaStream_t s) {
            const gemm::Params params = step13::to_params(step13::config_for_gpu(gemm::current_gpu().shared_per_block));
            step13::launch(p, params, s);
          }};
}

const linear_layer::Registration registration("13", step13);

}  // namespace
