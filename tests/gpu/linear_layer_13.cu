// Step 13 for the linear-layer test (linear_layer_step.hpp); sm_90a code, run on compute
// capability 9.0 only.
#include "13_hopper_wgmma/kernel.cuh"
#include "linear_layer_step.hpp"

linear_layer::Step linear_layer::step13() {
  const gemm::Params params = step13::to_params(step13::kConfigs[0]);
  return {"13_hopper_wgmma", 90, 90, [params](const gemm::TcProblem& p, cudaStream_t s) { step13::launch(p, params, s); }};
}
