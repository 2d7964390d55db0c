// Step 12 for the linear-layer test (linear_layer_step.hpp).
#include "12_wmma/kernel.cuh"
#include "linear_layer_step.hpp"

namespace {

linear_layer::Step step12() {
  const step12::Config c = step12::kConfigs[0];
  const gemm::Params params = step12::to_params(c);
  return {"12_wmma", 75, 0, [params](const gemm::TcProblem& p, cudaStream_t s) { step12::launch(p, params, s); },
          [params](const gemm::TcProblem& p) { return step12::kernel_for(params, p.layout, p.dtype, p.out); }};
}

const linear_layer::Registration registration("12", step12);

}  // namespace
