#include "harness.cuh"

#include <algorithm>
#include <cstdio>
#include <stdexcept>
#include <string>

#include "cuda_check.cuh"
#include "exit_codes.hpp"
#include "launch_limits.hpp"
#include "report.hpp"
#include "timer.cuh"

namespace gemm {

namespace {
constexpr double kTargetTimedMs = 1000.0;
constexpr int kMinReps = 5;
constexpr int kMaxReps = 30;
}  // namespace

std::string shape_text(const GemmShape& s) {
  return std::to_string(s.m) + "x" + std::to_string(s.n) + "x" + std::to_string(s.k);
}

Params params_for(const GemmShape& s, const Options& options, const ParamsForShape& choose, const GpuLimits& gpu,
                  const std::function<std::string(const Params&)>& check_params, const std::string& step_name) {
  if (options.params_given || !choose) return options.params;
  const Params chosen = choose(s, options.params, gpu);
  if (check_params && !check_params(chosen).empty())
    throw std::logic_error(step_name + " chose tunables it cannot run for " + shape_text(s));
  return chosen;
}

namespace {
// "BM=256 BN=128": the tunables of `params` that differ from `defaults`.
std::string params_text(const Params& params, const Params& defaults) {
  std::string text;
  for (const auto& [key, value] : params) {
    const auto found = defaults.find(key);
    if (found != defaults.end() && found->second == value) continue;
    text += (text.empty() ? "" : " ") + key + "=" + std::to_string(value);
  }
  return text;
}
}  // namespace

ShapeResult run_with_params(const GemmShape& s, const Params& params, const Params& run_params, const void* run_kernel,
                            const std::function<ShapeResult(const Params&)>& run,
                            const std::function<const void*(const Params&)>& kernel_of,
                            const std::function<KernelReport(const void*, const Params&)>& report) {
  const void* kernel = kernel_of ? kernel_of(params) : nullptr;
  const bool own_params = params != run_params, own_kernel = kernel != run_kernel;
  if (!own_params && !own_kernel) return run(params);
  if (own_params)
    std::printf("  %s runs %s, chosen for this shape (--param fixes the tunables for every shape)\n",
                shape_text(s).c_str(), params_text(params, run_params).c_str());
  else
    std::printf("  %s launches another compiled instance of the kernel, chosen for this shape\n", shape_text(s).c_str());
  ShapeResult result = run(params);
  if (own_params) result.params = params;
  if (kernel) result.kernel = report(kernel, params);
  return result;
}

void check_launch_limits(const GemmShape& s, const LaunchShape& launch, const cudaDeviceProp& prop) {
  LaunchLimits gpu;
  for (int i = 0; i < 3; ++i) gpu.max_grid[i] = prop.maxGridSize[i];
  gpu.threads_per_block = prop.maxThreadsPerBlock;
  gpu.shared_per_block = (long long)prop.sharedMemPerBlockOptin;
  gpu.cc = 10 * prop.major + prop.minor;
  const std::string rule = launch_limits_rule(s, launch, gpu);
  if (!rule.empty()) throw UsageError(rule);
}

KernelReport kernel_report(const void* function, const LaunchShape& launch, const cudaDeviceProp& prop) {
  KernelReport kernel;
  cudaFuncAttributes attributes{};
  CUDA_CHECK(cudaFuncGetAttributes(&attributes, function));
  kernel.known = true;
  kernel.registers = attributes.numRegs;
  kernel.local_bytes = int(attributes.localSizeBytes);
  kernel.static_shared_bytes = int(attributes.sharedSizeBytes);
  kernel.threads_per_block = launch.block.x * launch.block.y * launch.block.z;
  CUDA_CHECK(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&kernel.blocks_per_sm, function, kernel.threads_per_block,
                                                           size_t(launch.shared_bytes)));
  kernel.occupancy = double(kernel.blocks_per_sm * kernel.threads_per_block) / prop.maxThreadsPerMultiProcessor;
  std::printf("kernel: %d registers, %d B local, %d B static shared per block, %d threads per block, %d blocks per "
              "SM (occupancy %.0f%%)\n",
              kernel.registers, kernel.local_bytes, kernel.static_shared_bytes, kernel.threads_per_block,
              kernel.blocks_per_sm, 100.0 * kernel.occupancy);
  return kernel;
}

int run_shapes(const Options& options, const DeviceInfo& device, const std::vector<GemmShape>& shapes, StepRun& run,
               const std::function<ShapeResult(const GemmShape&)>& run_shape) {
  bool all_passed = true;
  for (const GemmShape& s : shapes) {
    ShapeResult result = run_shape(s);
    all_passed = all_passed && result.verdict != Verdict::fail;
    std::printf("%s\n", table_row(result).c_str());
    const std::string reference = reference_line(result);
    if (!reference.empty()) std::printf("%s\n", reference.c_str());
    std::fflush(stdout);
    run.shapes.push_back(result);
  }
  write_json_if_asked(options, device, run);
  return all_passed ? kExitOk : kExitWrongResult;
}

void write_json_if_asked(const Options& options, const DeviceInfo& device, const StepRun& run) {
  if (options.json_path.empty()) return;
  try {
    write_results_file(options.json_path, results_document(device, {run}, utc_now()));
  } catch (const std::runtime_error& error) {
    throw UsageError(error.what());
  }
  std::printf("results written to %s\n", options.json_path.c_str());
}

void time_against_cublas(LaunchTimer& timer, int warmup, int reps, const std::function<void()>& ours,
                         const std::function<void()>& cublas, ShapeResult& result) {
  for (int i = 0; i < warmup; ++i) {
    ours();
    cublas();
  }
  if (reps == 0) {
    const double estimate_ms = std::max(timer.time_once(ours), timer.time_once(cublas));
    reps = estimate_ms > 0 ? int(kTargetTimedMs / estimate_ms) : kMaxReps;
    reps = std::min(kMaxReps, std::max(kMinReps, reps));
  }
  const std::vector<TimingStats> stats = timer.time_in_turn({ours, cublas}, reps);
  result.ours = stats[0];
  result.cublas = stats[1];
  result.timed = true;
}

TimingStats time_reference(LaunchTimer& timer, int warmup, int reps, const std::function<void()>& reference) {
  for (int i = 0; i < warmup; ++i) reference();
  return timer.time(reference, reps);
}

void finish_check(ShapeResult& result, bool guards_intact, const std::vector<float>& computed, const GemmShape& s,
                  const std::string& step_name) {
  result.checked = true;
  result.verdict = result.error.passed && guards_intact ? Verdict::pass : Verdict::fail;
  if (!guards_intact)
    std::fprintf(stderr, "%s: shape %s: the kernel wrote outside C (guard zone changed)\n", step_name.c_str(),
                 shape_text(s).c_str());
  if (!result.error.passed) {
    const std::size_t at = result.error.worst_index;
    std::fprintf(stderr, "%s: shape %s: worst element C[%zu][%zu] = %g (%zu non-finite values)\n", step_name.c_str(),
                 shape_text(s).c_str(), at / std::size_t(s.n), at % std::size_t(s.n), double(computed[at]),
                 result.error.non_finite);
  }
}

}  // namespace gemm
