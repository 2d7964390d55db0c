// Step 14: mma.sync + ldmatrix + a cp.async multi-stage pipeline, swizzled shared memory (sm_80+).
// See docs/14-mma-ldmatrix.md.
#include "kernel.cuh"

int main(int argc, char** argv) {
  gemm::TcStepDescription step;
  step.name = "14_mma_ldmatrix";
  step.title = "mma.sync m16n8k16 fed by ldmatrix (.trans for transposed operands) from swizzled tiles that "
               "cp.async fills STAGES k-tiles ahead (sm_80+)";
  step.min_cc = 80;  // cp.async, mma.sync m16n8k16
  step.params = gemm::param_specs(step14::kTunables, step14::kConfigs[0]);  // see config_for_gpu for GPUs where it does not fit
  step.check_params = gemm::params_rule(step14::kTunables, step14::config_rule);
  step.shape_rule = gemm::tc_aligned_rows_rule;
  step.launch_shape = gemm::params_launch_shape(step14::kTunables, step14::launch_shape);
  step.params_for_gpu = [](const gemm::Params&, const gemm::GpuLimits& gpu) {
    return step14::to_params(step14::config_for_gpu(gpu.shared_per_block));
  };
  // Without --param, the tile is chosen by shape: smaller tiles where the default's would leave most
  // SMs idle, its transpose where that takes fewer waves (mapping.hpp, config_for_shape).
  step.params_for_shape = [](const gemm::GemmShape& shape, gemm::Layout, const gemm::Params&,
                             const gemm::GpuLimits& gpu) {
    return step14::to_params(step14::config_for_shape(shape, gpu));
  };
  step.launch = step14::launch;
  step.kernel = [](const gemm::TcProblem& problem, const gemm::Params& params) {
    return step14::kernel_for(problem.shape, params, problem.layout, problem.dtype, problem.out);
  };
  return gemm::run_tc_step(argc, argv, step);
}
