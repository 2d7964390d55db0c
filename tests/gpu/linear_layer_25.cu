// Step 25 for the linear-layer test (linear_layer_step.hpp); sm_90a code, run on compute
// capability 9.0 only.
#include "25_narrow_pairs/kernel.cuh"
#include "linear_layer_step.hpp"

namespace {

linear_layer::Step step25() {
  const gemm::Params params = step25::to_params(step25::kConfigs[0]);
  return {"25_narrow_pairs", 90, 90, [params](const gemm::TcProblem& p, cudaStream_t s) { step25::launch(p, params, s); }};
}

const linear_layer::Registration registration("25", step25);

}  // namespace
