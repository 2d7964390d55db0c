// Whether a launch fits the GPU it would run on: blocks along each grid axis, threads per block and
// shared memory per block. Decided before any launch, so that tunables a GPU cannot run (a --param
// whose stages need more shared memory than an RTX 4090 gives a block) are a usage error with a
// one-line message (exit 2), never a failed launch. Host code, with unit tests
// (tests/host/test_gpu_limits.cpp); the harness calls it with the GPU's properties.
#pragma once

#include <string>

#include "hd.hpp"

namespace gemm {

// The limits of the GPU at hand, as the CUDA runtime reports them (cudaDeviceProp).
struct LaunchLimits {
  int max_grid[3] = {0, 0, 0};
  int threads_per_block = 0;
  long long shared_per_block = 0;  // with opt-in (sharedMemPerBlockOptin)
  int cc = 0;                      // 10 * major + minor, named in the message
};

// "" when the launch fits, else the one-line refusal naming the limit and the fix. `shape`: the
// problem, named where the grid is what does not fit.
std::string launch_limits_rule(const GemmShape& shape, const LaunchShape& launch, const LaunchLimits& gpu);

}  // namespace gemm
