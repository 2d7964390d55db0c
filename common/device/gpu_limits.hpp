// What each GPU architecture allows a block and an SM: the limits every configuration a step can
// choose must fit on the architectures the step runs on (tests/host/test_gpu_limits.cpp holds them
// to it, docs/your-gpu.md shows the result). Written once, here, from the CUDA C++ Programming
// Guide's "Features and Technical Specifications" table, technical specifications per compute
// capability:
//   https://docs.nvidia.com/cuda/cuda-c-programming-guide/index.html#features-and-technical-specifications
// (CUDA 13: https://docs.nvidia.com/cuda/cuda-programming-guide/05-appendices/compute-capabilities.html);
// the CUDA Toolkit's occupancy calculator (cuda_occupancy.h) has the same shared memory per SM and
// blocks per SM. A device helper, not host code, because the kernels' launch bounds read it too
// (launch_min_blocks in dispatch.hpp), and host code includes device helpers, never the reverse.
#pragma once

namespace gemm {

// Every architecture from sm_75 to sm_120 alike.
constexpr int kMaxThreadsPerBlock = 1024;
constexpr int kRegistersPerSm = 64 * 1024;      // 32-bit registers; one block may have them all
constexpr int kMaxRegistersPerThread = 255;
constexpr int kRegisterGranularity = 8;         // registers per thread are allotted in steps of 8 (256 per warp)

struct ArchitectureLimits {
  int cc;                // compute capability, 10 * major + minor
  const char* gpus;      // the GPUs learners bring of this architecture
  int shared_per_block;  // bytes of shared memory one block may have, opted in to (the harness does)
  int shared_per_sm;     // bytes an SM shares among its blocks; each block also takes what the
                         // system reserves, the difference between the two (1 KB from sm_80 on)
  int threads_per_sm;    // resident threads per SM
  int blocks_per_sm;     // resident blocks per SM
};

inline constexpr ArchitectureLimits kArchitectures[] = {
    {75, "T4, RTX 20", 64 * 1024, 64 * 1024, 1024, 16},
    {80, "A100, A30", 163 * 1024, 164 * 1024, 2048, 32},
    {86, "RTX 30, A10, A40", 99 * 1024, 100 * 1024, 1536, 16},
    {87, "Jetson Orin", 163 * 1024, 164 * 1024, 1536, 16},
    {89, "RTX 40, L4, L40S", 99 * 1024, 100 * 1024, 1536, 24},
    {90, "H100, H200, GH200", 227 * 1024, 228 * 1024, 2048, 32},
    {100, "B200, GB200", 227 * 1024, 228 * 1024, 2048, 32},
    {120, "RTX 50, RTX PRO 6000 Blackwell", 99 * 1024, 100 * 1024, 1536, 24},
};
constexpr int kArchitectureCount = int(sizeof(kArchitectures) / sizeof(kArchitectures[0]));

// The row of compute capability `cc`; one the table does not list takes the newest row of its major
// version below it (sm_103 that of sm_100, sm_121 that of sm_120), and without one the most
// cautious values of all (a clamp to them is always safe). nullptr never: callers need numbers.
constexpr ArchitectureLimits architecture_limits(int cc) {
  ArchitectureLimits found{0, "", 0, 0, 0, 0};
  for (const ArchitectureLimits& row : kArchitectures)
    if (row.cc <= cc && row.cc / 10 == cc / 10) found = row;
  if (found.cc != 0) return found;
  ArchitectureLimits cautious = kArchitectures[0];
  for (const ArchitectureLimits& row : kArchitectures) {
    if (row.shared_per_block < cautious.shared_per_block) cautious.shared_per_block = row.shared_per_block;
    if (row.shared_per_sm < cautious.shared_per_sm) cautious.shared_per_sm = row.shared_per_sm;
    if (row.threads_per_sm < cautious.threads_per_sm) cautious.threads_per_sm = row.threads_per_sm;
    if (row.blocks_per_sm < cautious.blocks_per_sm) cautious.blocks_per_sm = row.blocks_per_sm;
  }
  cautious.cc = cc;
  cautious.gpus = "";
  return cautious;
}
constexpr bool is_listed_architecture(int cc) {
  for (const ArchitectureLimits& row : kArchitectures)
    if (row.cc == cc) return true;
  return false;
}

// The most shared memory any architecture gives a block (sm_90's and sm_100's 227 KB).
constexpr int max_shared_per_block() {
  int most = 0;
  for (const ArchitectureLimits& row : kArchitectures)
    if (row.shared_per_block > most) most = row.shared_per_block;
  return most;
}

// What a step's choice of tunables knows of the GPU that will run them: how many blocks run at once
// (its SMs) and which configurations fit (the shared memory one block may have). A choice made
// knowing only the SMs takes the most any GPU gives a block: the H100's, where the shipped choices
// were measured.
struct GpuLimits {
  int sms = 0;
  int shared_per_block = max_shared_per_block();
};
constexpr GpuLimits gpu_limits(int cc, int sms) { return {sms, architecture_limits(cc).shared_per_block}; }
constexpr bool fits_shared(int shared_bytes, const GpuLimits& gpu) { return shared_bytes <= gpu.shared_per_block; }

}  // namespace gemm
