#include "launch_limits.hpp"

namespace gemm {

namespace {
std::string shape_name(const GemmShape& s) {
  return std::to_string(s.m) + "x" + std::to_string(s.n) + "x" + std::to_string(s.k);
}
std::string capability(int cc) { return std::to_string(cc / 10) + "." + std::to_string(cc % 10); }
}  // namespace

std::string launch_limits_rule(const GemmShape& s, const LaunchShape& launch, const LaunchLimits& gpu) {
  const int grid[3] = {launch.grid.x, launch.grid.y, launch.grid.z};
  const char* axis = "xyz";
  for (int i = 0; i < 3; ++i)
    if (grid[i] > gpu.max_grid[i])
      return "shape " + shape_name(s) + " needs " + std::to_string(grid[i]) + " blocks along grid " + axis[i] +
             ", above this GPU's limit of " + std::to_string(gpu.max_grid[i]) +
             ": use a smaller dimension for that axis (see this step's mapping.hpp)";
  const long long threads = (long long)launch.block.x * launch.block.y * launch.block.z;
  if (threads > gpu.threads_per_block)
    return "these tunables give " + std::to_string(threads) + " threads per block; this GPU allows " +
           std::to_string(gpu.threads_per_block) + ": choose smaller tiles (--help lists the compiled ones)";
  if (launch.shared_bytes > gpu.shared_per_block)
    return "these tunables need " + std::to_string(launch.shared_bytes) +
           " bytes of shared memory per block; this GPU (compute capability " + capability(gpu.cc) + ") allows " +
           std::to_string(gpu.shared_per_block) +
           ": choose smaller tiles or fewer stages (--help lists the compiled ones), or leave them to the step "
           "(no --param, no --defaults): it chooses tunables that fit (docs/your-gpu.md)";
  return "";
}

}  // namespace gemm
