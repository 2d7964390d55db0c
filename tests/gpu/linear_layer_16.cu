// Step 16 for the linear-layer test (linear_layer_step.hpp); sm_90a code, run on compute
// capability 9.0 only.
#include "16_warp_specialized/kernel.cuh"
#include "linear_layer_step.hpp"

namespace {

linear_layer::Step step16() {
  const gemm::Params params = step16::to_params(step16::kConfigs[0]);
  return {"16_warp_specialized", 90, 90, [params](const gemm::TcProblem& p, cudaStream_t s) { step16::launch(p, params, s); }};
}

const linear_layer::Registration registration("16", step16);

}  // namespace
