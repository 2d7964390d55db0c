// Step 17 for the linear-layer test (linear_layer_step.hpp); sm_90a code, run on compute
// capability 9.0 only.
#include "17_persistent_clusters/kernel.cuh"
#include "linear_layer_step.hpp"

namespace {

linear_layer::Step step17() {
  const gemm::Params params = step17::to_params(step17::kConfigs[0]);
  return {"17_persistent_clusters", 90, 90, [params](const gemm::TcProblem& p, cudaStream_t s) { step17::launch(p, params, s); }};
}

const linear_layer::Registration registration("17", step17);

}  // namespace
