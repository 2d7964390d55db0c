// Pieces every step program shares, fp32 (run_step) and tensor-core (run_tc_step) alike: the
// tunables chosen by shape, the launch checked against the GPU's limits, the kernel's resource
// report, and the results file.
#pragma once

#include <cuda_runtime.h>

#include <functional>
#include <string>

#include "gpu_limits.hpp"
#include "hd.hpp"
#include "options.hpp"
#include "results.hpp"

namespace gemm {

std::string shape_text(const GemmShape& s);

// A step's choice of tunables for a shape, given its defaults and the GPU's limits (its SMs, and the
// shared memory a block may have: a configuration that does not fit is not chosen).
using ParamsForShape = std::function<Params(const GemmShape&, const Params& defaults, const GpuLimits& gpu)>;

// The tunables a shape runs with: the run's own (--param fixes them for every shape; without it
// they are the defaults) unless no --param was given and the step chooses by shape. A choice the
// step's own rule (`check_params`) refuses is a bug in the step: std::logic_error.
Params params_for(const GemmShape& s, const Options& options, const ParamsForShape& choose, const GpuLimits& gpu,
                  const std::function<std::string(const Params&)>& check_params, const std::string& step_name);

// Runs one shape (`run` with `params`). Where those are not the run's (`run_params`, the header
// line's), or where the shape launches another kernel (`kernel_of`: a step may pick a compiled
// instance by shape) than the one the header line reported (`run_kernel`), it says so in a line
// above the row and records them and that kernel's report (`report`) in the row, as the results
// file keeps them.
ShapeResult run_with_params(const GemmShape& s, const Params& params, const Params& run_params, const void* run_kernel,
                            const std::function<ShapeResult(const Params&)>& run,
                            const std::function<const void*(const Params&)>& kernel_of,
                            const std::function<KernelReport(const void*, const Params&)>& report);

// Throws UsageError naming the limit when a launch needs more blocks, threads or shared memory
// than this GPU has.
void check_launch_limits(const GemmShape& shape, const LaunchShape& launch, const cudaDeviceProp& prop);

// Registers, local memory, shared memory and occupancy of `function` at `launch`; printed as one line.
KernelReport kernel_report(const void* function, const LaunchShape& launch, const cudaDeviceProp& prop);

// Runs every shape, prints its table row as it finishes and adds it to `run`; writes --json.
// Returns the exit code: 0 when every checked shape passed, 1 otherwise.
int run_shapes(const Options& options, const DeviceInfo& device, const std::vector<GemmShape>& shapes, StepRun& run,
               const std::function<ShapeResult(const GemmShape&)>& run_shape);

// Writes --json when it was given (a file that cannot be written is a usage error).
void write_json_if_asked(const Options& options, const DeviceInfo& device, const StepRun& run);

class LaunchTimer;

// Times the step and cuBLAS the same way: `warmup` launches of each first (module loading, cuBLAS's
// kernel choice for a new shape, clocks), then `reps` timed launches each (0: enough for about a
// second, 5..30), every one after an L2 flush, the two in turn (one of ours, one of cuBLAS's, ...).
void time_against_cublas(LaunchTimer& timer, int warmup, int reps, const std::function<void()>& ours,
                         const std::function<void()>& cublas, ShapeResult& result);

// Times a reference that is not part of the comparison (cuBLAS in TF32 for the fp32 steps): after
// the comparison, alone, `reps` launches after `warmup` untimed ones, each after an L2 flush. Not in
// turn with the other two, so that their launches do not share the card's power limit with it.
TimingStats time_reference(LaunchTimer& timer, int warmup, int reps, const std::function<void()>& reference);

// Sets the verdict of a checked shape and says on stderr what went wrong, if anything: a write
// outside C, or the worst element (computed[] is C as floats).
void finish_check(ShapeResult& result, bool guards_intact, const std::vector<float>& computed, const GemmShape& s,
                  const std::string& step_name);

}  // namespace gemm
