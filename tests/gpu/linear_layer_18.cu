// Step 18 for the linear-layer test (linear_layer_step.hpp); sm_90a code, run on compute
// capability 9.0 only.
#include "18_tma_store_epilogue/kernel.cuh"
#include "linear_layer_step.hpp"

namespace {

linear_layer::Step step18() {
  const gemm::Params params = step18::to_params(step18::kConfigs[0]);
  return {"18_tma_store_epilogue", 90, 90, [params](const gemm::TcProblem& p, cudaStream_t s) { step18::launch(p, params, s); }};
}

const linear_layer::Registration registration("18", step18);

}  // namespace
