// Step 15 for the linear-layer test (linear_layer_step.hpp); sm_90a code, run on compute
// capability 9.0 only.
#include "15_tma_wgmma/kernel.cuh"
#include "linear_layer_step.hpp"

namespace {

linear_layer::Step step15() {
  const gemm::Params params = step15::to_params(step15::kConfigs[0]);
  return {"15_tma_wgmma", 90, 90, [params](const gemm::TcProblem& p, cudaStream_t s) { step15::launch(p, params, s); }};
}

const linear_layer::Registration registration("15", step15);

}  // namespace
