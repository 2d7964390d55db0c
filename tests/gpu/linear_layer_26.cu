// Step 26 for the linear-layer test (linear_layer_step.hpp); sm_90a code, run on compute
// capability 9.0 only.
#include "26_fitted_tile/kernel.cuh"
#include "linear_layer_step.hpp"

namespace {

linear_layer::Step step26() {
  const gemm::Params params = step26::to_params(step26::kConfigs[0]);
  return {"26_fitted_tile", 90, 90, [params](const gemm::TcProblem& p, cudaStream_t s) { step26::launch(p, params, s); }};
}

const linear_layer::Registration registration("26", step26);

}  // namespace
