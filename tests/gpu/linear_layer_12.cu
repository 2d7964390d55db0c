// Step 12 for the linear-layer test (linear_layer_step.hpp).
#include "12_mma_pipeline/kernel.cuh"
#include "linear_layer_step.hpp"

linear_layer::Step linear_layer::step12() {
  const gemm::Params params = step12::to_params(step12::kConfigs[0]);
  return {"12_mma_pipeline", 80, 0, [params](const gemm::TcProblem& p, cudaStream_t s) { step12::launch(p, params, s); }};
}
