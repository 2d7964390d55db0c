// Pieces every step program shares, fp32 (run_step) and tensor-core (run_tc_step) alike: the
// launch checked against the GPU's limits, the kernel's resource report, and the results file.
#pragma once

#include <cuda_runtime.h>

#include "hd.hpp"
#include "options.hpp"
#include "results.hpp"

namespace gemm {

std::string shape_text(const GemmShape& s);

// Throws UsageError naming the limit when a launch needs more blocks, threads or shared memory
// than this GPU has.
void check_launch_limits(const GemmShape& shape, const LaunchShape& launch, const cudaDeviceProp& prop);

// Registers, local memory, shared memory and occupancy of `function` at `launch`; printed as one line.
KernelReport kernel_report(const void* function, const LaunchShape& launch, const cudaDeviceProp& prop);

// Writes --json when it was given (a file that cannot be written is a usage error).
void write_json_if_asked(const Options& options, const DeviceInfo& device, const StepRun& run);

// Timing: enough repetitions for about kTargetTimedMs of measured time, within [kMinReps, kMaxReps].
int auto_reps(double estimate_ms);

}  // namespace gemm
