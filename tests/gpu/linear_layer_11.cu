// Step 11 for the linear-layer test (linear_layer_step.hpp).
#include "11_wmma/kernel.cuh"
#include "linear_layer_step.hpp"

linear_layer::Step linear_layer::step11() {
  const step11::Config c = step11::kConfigs[0];
  const gemm::Params params{{"BM", c.bm}, {"BN", c.bn}, {"BK", c.bk}, {"WM", c.wm}, {"WN", c.wn}};
  return {"11_wmma", 75, 0, [params](const gemm::TcProblem& p, cudaStream_t s) { step11::launch(p, params, s); }};
}
