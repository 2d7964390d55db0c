// The access model (docs/access-model.md; its place: docs/design.md, "The access model"): what the
// memory system does with one warp-level memory instruction, given its 32 lane addresses.
//
// Global memory: the L1 serves a warp's access in 32-byte sectors of 128-byte lines. `sectors` is
// the number of distinct sectors the active lanes touch (what Nsight Compute counts as
// l1tex__t_sectors_pipe_lsu_mem_global_op_{ld,st}), `ideal_sectors` what the same bytes would need
// if they were contiguous and aligned, `lines` the distinct 128-byte lines.
//
// Shared memory: 32 banks of 4 bytes. A warp's access is split into phases (4-byte accesses: one
// phase of 32 lanes; 8-byte: two of 16 lanes; 16-byte: four of 8 lanes). In a phase, lanes that
// touch the same 4-byte word are served together (broadcast); distinct words in the same bank are
// served one after another. The wavefronts of a phase are the largest number of distinct words any
// bank holds; the instruction's wavefronts (smsp__sass_l1tex_data_pipe_lsu_wavefronts_mem_shared_op_{ld,st})
// are the sum over phases, except that two paired phases of an 8- or 16-byte access can share one
// wavefront (the rule, measured on an H100, is in access_model.cpp and docs/access-model.md).
// A cp.async has rules of its own, also measured. Its shared write: through the L1 (.ca) its data
// passes through the L1's banks on the way, so conflicts among the lanes' sources add to those of
// their destinations; around it (.cg) only the destinations count. Its global read around the L1
// (.cg) is counted by neighbouring pairs of lanes, which depends on the destinations too.
//
// Plain C++: the viewer, the host tests and the model-vs-profiler tool use it without CUDA.
#pragma once

#include <array>
#include <cstdint>

namespace gemm {

constexpr int kWarpSize = 32;
constexpr int kSectorBytes = 32;
constexpr int kLineBytes = 128;
constexpr int kSharedBanks = 32;
constexpr int kBankBytes = 4;

enum class Space : std::uint8_t { global, shared };
enum class Access : std::uint8_t { load, store };

// One warp-level memory instruction: byte addresses per lane, an active mask, a width of 1, 2, 4, 8
// or 16 (1 and 2 priced as one 32-lane phase).
// A cp.async (SASS LDGSTS) reads global memory and writes shared memory in one instruction; traces
// list it as its global read and its shared write. Each half also carries the other's lane
// addresses (`counterpart`: the write, where each lane read, lanes outside `counterpart_active`
// reading nothing and writing zeros; the read, where each lane writes) and whether the copy goes
// through the L1 (cp.async.ca) or around it (.cg), since its cost depends on both halves
// (global_cost, shared_cost).
struct WarpAccess {
  Space space = Space::global;
  Access access = Access::load;
  int width = 4;
  std::uint32_t active = 0;  // bit l set: lane l takes part
  std::array<std::int64_t, kWarpSize> address{};
  bool async_copy = false;               // one half of a cp.async
  bool bypasses_l1 = false;              // ... of a cp.async.cg
  std::uint32_t counterpart_active = 0;  // the lanes active in its other half
  std::array<std::int64_t, kWarpSize> counterpart{};  // their byte addresses there

  bool lane_active(int lane) const { return (active >> lane) & 1u; }
};

struct GlobalCost {
  int requests = 0;       // 1 for an issued instruction (0 when no lane is active)
  int sectors = 0;        // distinct 32-byte sectors touched
  int ideal_sectors = 0;  // sectors the distinct bytes would need, contiguous and aligned
  int lines = 0;          // distinct 128-byte lines touched
};

struct SharedCost {
  int wavefronts = 0;        // passes through the banks (1 per phase = conflict-free)
  int ideal_wavefronts = 0;  // the number of phases that have an active lane
  int max_conflict = 0;      // the worst phase's bank-conflict degree (1 = none)
};

GlobalCost global_cost(const WarpAccess& access);
SharedCost shared_cost(const WarpAccess& access);

// Lanes per phase for a shared access of this width (32, 16 or 8).
int shared_phase_lanes(int width);

// For the viewer: for each bank, how many distinct words the lanes of phase `phase` touch in it.
std::array<int, kSharedBanks> bank_load(const WarpAccess& access, int phase);

// Launch-level totals: the six counters tools/check_model_ncu.py compares, and the global requests.
struct AccessTotals {
  long long global_load_sectors = 0, global_store_sectors = 0;
  long long global_load_requests = 0, global_store_requests = 0;
  long long shared_load_wavefronts = 0, shared_store_wavefronts = 0;
  long long shared_load_requests = 0, shared_store_requests = 0;  // warp-level instructions

  void add(const WarpAccess& access);
  AccessTotals& operator+=(const AccessTotals& other);
};

}  // namespace gemm
