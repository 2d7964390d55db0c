// The access model on hand-computed cases.
#include <gtest/gtest.h>

#include <set>
#include <utility>

#include "access_model.hpp"
#include "ldgsts_patterns.hpp"
#include "trace.hpp"

using gemm::Access;
using gemm::Space;
using gemm::WarpAccess;

namespace {
WarpAccess make(Space space, int width, std::uint32_t active, long long (*address)(int lane)) {
  WarpAccess access;
  access.space = space;
  access.width = width;
  access.active = active;
  for (int lane = 0; lane < 32; ++lane) access.address[size_t(lane)] = address(lane);
  return access;
}
constexpr std::uint32_t kAll = 0xffffffffu;
}  // namespace

TEST(GlobalModel, ConsecutiveFloats) {
  // 32 lanes x 4 bytes from an aligned start: 128 bytes = 4 sectors, 1 line.
  const auto cost = gemm::global_cost(make(Space::global, 4, kAll, [](int l) { return 4LL * l; }));
  EXPECT_EQ(cost.requests, 1);
  EXPECT_EQ(cost.sectors, 4);
  EXPECT_EQ(cost.ideal_sectors, 4);
  EXPECT_EQ(cost.lines, 1);
}

TEST(GlobalModel, MisalignedConsecutiveFloats) {
  // Starting 4 bytes into a sector: 128 bytes straddle 5 sectors and 2 lines.
  const auto cost = gemm::global_cost(make(Space::global, 4, kAll, [](int l) { return 4 + 4LL * l; }));
  EXPECT_EQ(cost.sectors, 5);
  EXPECT_EQ(cost.ideal_sectors, 4);
  EXPECT_EQ(cost.lines, 2);
}

TEST(GlobalModel, StrideKFloats) {
  // Lane l reads row l of a row-major matrix with K = 1024: every lane its own sector and line.
  const auto cost = gemm::global_cost(make(Space::global, 4, kAll, [](int l) { return 4LL * 1024 * l; }));
  EXPECT_EQ(cost.sectors, 32);
  EXPECT_EQ(cost.ideal_sectors, 4);
  EXPECT_EQ(cost.lines, 32);
}

TEST(GlobalModel, OneAddressForAllLanes) {
  const auto cost = gemm::global_cost(make(Space::global, 4, kAll, [](int) { return 4096LL; }));
  EXPECT_EQ(cost.sectors, 1);
  EXPECT_EQ(cost.ideal_sectors, 1);
  EXPECT_EQ(cost.lines, 1);
}

TEST(GlobalModel, Float4PerLane) {
  // 32 x 16 bytes = 512 bytes: 16 sectors, 4 lines.
  const auto cost = gemm::global_cost(make(Space::global, 16, kAll, [](int l) { return 16LL * l; }));
  EXPECT_EQ(cost.sectors, 16);
  EXPECT_EQ(cost.ideal_sectors, 16);
  EXPECT_EQ(cost.lines, 4);
}

TEST(GlobalModel, InactiveLanes) {
  // Only lanes 0..7 active: 32 bytes, 1 sector. No lane active: nothing issued.
  EXPECT_EQ(gemm::global_cost(make(Space::global, 4, 0xffu, [](int l) { return 4LL * l; })).sectors, 1);
  const auto none = gemm::global_cost(make(Space::global, 4, 0u, [](int l) { return 4LL * l; }));
  EXPECT_EQ(none.requests, 0);
  EXPECT_EQ(none.sectors, 0);
}

TEST(SharedModel, ConsecutiveWordsNoConflict) {
  const auto cost = gemm::shared_cost(make(Space::shared, 4, kAll, [](int l) { return 4LL * l; }));
  EXPECT_EQ(cost.wavefronts, 1);
  EXPECT_EQ(cost.max_conflict, 1);
}

TEST(SharedModel, BroadcastIsFree) {
  EXPECT_EQ(gemm::shared_cost(make(Space::shared, 4, kAll, [](int) { return 128LL; })).wavefronts, 1);
}

TEST(SharedModel, ColumnOf32WideIntTileIs32Way) {
  // tile[lane][0] of int tile[32][32]: every lane in bank 0, 32 distinct words.
  const auto cost = gemm::shared_cost(make(Space::shared, 4, kAll, [](int l) { return 4LL * 32 * l; }));
  EXPECT_EQ(cost.wavefronts, 32);
  EXPECT_EQ(cost.max_conflict, 32);
}

TEST(SharedModel, OneWordOfPaddingRemovesTheConflict) {
  // tile[lane][0] of int tile[32][33]: word 33*l lands in bank l.
  EXPECT_EQ(gemm::shared_cost(make(Space::shared, 4, kAll, [](int l) { return 4LL * 33 * l; })).wavefronts, 1);
}

TEST(SharedModel, TwoWayConflict) {
  // Stride of 2 words: lanes l and l + 16 share a bank.
  EXPECT_EQ(gemm::shared_cost(make(Space::shared, 4, kAll, [](int l) { return 8LL * l; })).wavefronts, 2);
}

// What an H100 measured (tools/experiments/lds_phases.cu, Nsight Compute 2025.3): wavefronts of one
// shared load of width W with lane byte addresses given by eight patterns.
TEST(SharedModel, MatchesTheMeasuredPhasePatterns) {
  using Pattern = long long (*)(int lane, int width);
  const Pattern patterns[8] = {
      [](int l, int w) { return 1LL * w * l; },                          // consecutive
      [](int, int) { return 0LL; },                                      // broadcast
      [](int l, int w) { return 1LL * w * (l / 2); },                    // lane pairs share
      [](int l, int w) { return 1LL * w * (l % 8); },                    // 8 addresses, 4 times
      [](int l, int w) { return 1LL * w * (l % 16); },                   // both half-warps the same
      [](int l, int) { return 128LL * l; },                              // stride 128 bytes
      [](int l, int w) { return 128LL * (l % 8) + 1LL * w * (l / 8); },  // quarter-warps at stride 128
      [](int l, int w) { return 1LL * w * ((l * 5) % 32); },             // a permutation
  };
  const int measured[3][8] = {{1, 1, 1, 1, 1, 32, 8, 1}, {2, 1, 1, 2, 2, 32, 16, 2}, {4, 2, 2, 4, 4, 32, 32, 4}};
  const int widths[3] = {4, 8, 16};
  for (int w = 0; w < 3; ++w)
    for (int p = 0; p < 8; ++p) {
      WarpAccess access;
      access.space = Space::shared;
      access.width = widths[w];
      access.active = kAll;
      for (int lane = 0; lane < 32; ++lane) access.address[size_t(lane)] = patterns[p](lane, widths[w]);
      EXPECT_EQ(gemm::shared_cost(access).wavefronts, measured[w][p]) << "width " << widths[w] << " pattern " << p;
    }
}

// What an H100 measured for one cp.async (tools/experiments/ldgsts_counts.cu, Nsight Compute
// 2025.3): the global sectors (l1tex__t_sectors_pipe_lsu_mem_global_op_ld, which counts cp.async
// with the loads) and the shared wavefronts (smsp__sass_l1tex_data_pipe_lsu_wavefronts_mem_shared_op_ldgsts)
// of each pattern of ldgsts_patterns.hpp, per variant (.ca 4, 8 and 16 bytes, .cg 16 bytes) in the
// order of kCases. The model prices the copy as the trace lists it (emit_async_copy): its global
// read and its shared write.
TEST(AsyncCopyModel, MatchesTheMeasuredPatterns) {
  const int wavefronts[ldgsts::kVariantCount][ldgsts::kCaseCount] = {
      {1, 32, 32, 8, 4, 2, 1, 32, 4, 2, 1, 1, 1, 7, 7, 32, 11, 5, 11, 32, 32, 32, 16, 18, 32, 32, 32, 32, 8, 8, 8, 11},
      {2, 32, 32, 8, 4, 2, 2, 32, 4, 2, 2, 2, 1, 6, 6, 32, 18, 4, 10, 32, 32, 32, 16, 18, 32, 32, 32, 32, 16, 16, 8, 10},
      {4, 32, 32, 8, 4, 4, 4, 32, 4, 4, 4, 4, 2, 4, 4, 32, 32, 4, 8, 32, 32, 32, 16, 16, 32, 32, 32, 32, 32, 32, 8, 8},
      {4, 4, 4, 4, 4, 4, 4, 32, 4, 4, 4, 4, 2, 4, 4, 32, 32, 4, 4, 4, 32, 32, 4, 4, 32, 32, 4, 4, 32, 32, 4, 4}};
  const int sectors[ldgsts::kVariantCount][ldgsts::kCaseCount] = {
      {4, 1, 32, 32, 4, 4, 4, 4, 4, 4, 0, 4, 2, 4, 4, 16, 4, 4, 32, 32, 4, 32, 16, 16, 4, 16, 1, 1, 4, 4, 8, 8},
      {8, 1, 32, 32, 8, 8, 8, 8, 8, 8, 0, 8, 4, 8, 8, 16, 8, 8, 32, 32, 8, 32, 16, 16, 8, 16, 1, 1, 8, 8, 8, 8},
      {16, 1, 32, 32, 16, 16, 16, 16, 16, 16, 0, 16, 8, 16, 16, 16, 16, 16, 32, 32, 16, 32, 16, 16, 16, 16, 1, 1, 16, 16, 16, 16},
      {16, 16, 32, 16, 16, 16, 24, 32, 16, 16, 0, 16, 8, 16, 16, 16, 32, 16, 16, 32, 32, 32, 16, 16, 16, 16, 16, 16, 32, 16, 16, 16}};
  // .cg copies: the model counts the least such a copy takes, its destinations' conflicts. The
  // first version of the probe program (the same copies from other code) was counted more for the
  // copies with scattered sources, up to one wavefront per lane, in every run (docs/access-model.md).
  // Their global sectors follow pairs of lanes (global_cost), which all 32 patterns fit. Where the
  // model and the H100 differ (docs/access-model.md, "cp.async"), as (variant, case): one 4-byte
  // .ca mix, off by one wavefront.
  const std::set<std::pair<int, int>> wavefronts_differ = {{0, 23}};
  const std::set<std::pair<int, int>> sectors_differ = {};
  for (int v = 0; v < ldgsts::kVariantCount; ++v)
    for (int c = 0; c < ldgsts::kCaseCount; ++c) {
      const int width = ldgsts::kVariants[v].width;
      const ldgsts::Case pattern = ldgsts::kCases[c];
      std::uint32_t part = 0, read = 0;
      for (int lane = 0; lane < 32; ++lane) {
        if (ldgsts::takes_part(pattern.sizes, lane)) part |= 1u << lane;
        if (ldgsts::reads(pattern.sizes, lane)) read |= 1u << lane;
      }
      std::vector<WarpAccess> listed;
      gemm::emit_async_copy(
          [&](const gemm::TraceInstruction& instruction) { listed.push_back(instruction.access); },
          ldgsts::kVariants[v].bypass,
          gemm::make_instruction(Space::global, Access::load, gemm::Operand::A, width, 0, "read", read,
                                 [&](int lane) { return ldgsts::global_offset(pattern.global, width, lane); }, 1),
          gemm::make_instruction(Space::shared, Access::store, gemm::Operand::smem_A, width, 0, "write", part,
                                 [&](int lane) { return ldgsts::shared_offset(pattern.shared, width, lane); }, 1));
      ASSERT_EQ(listed.size(), 2u);
      const int model_sectors = gemm::global_cost(listed[0]).sectors;
      const int model_wavefronts = gemm::shared_cost(listed[1]).wavefronts;
      const std::string where = "variant " + std::to_string(v) + " case " + std::to_string(c);
      if (sectors_differ.count({v, c})) {
        EXPECT_NE(model_sectors, sectors[v][c]) << where << " (listed as differing)";
      } else {
        EXPECT_EQ(model_sectors, sectors[v][c]) << where;
      }
      if (wavefronts_differ.count({v, c})) {
        EXPECT_NE(model_wavefronts, wavefronts[v][c]) << where << " (listed as differing)";
      } else {
        EXPECT_EQ(model_wavefronts, wavefronts[v][c]) << where;
      }
    }
}

TEST(SharedModel, Float2PerLaneTakesTwoPhases) {
  // 8-byte accesses: two half-warp phases of 16 lanes x 8 bytes = 128 bytes each: 2 wavefronts.
  const auto cost = gemm::shared_cost(make(Space::shared, 8, kAll, [](int l) { return 8LL * l; }));
  EXPECT_EQ(cost.wavefronts, 2);
  EXPECT_EQ(cost.ideal_wavefronts, 2);
}

TEST(SharedModel, Float4PerLaneTakesFourPhases) {
  const auto cost = gemm::shared_cost(make(Space::shared, 16, kAll, [](int l) { return 16LL * l; }));
  EXPECT_EQ(cost.wavefronts, 4);
  // Float4 with a row stride of 128 bytes: the 8 lanes of a phase all start in bank 0: 8-way.
  EXPECT_EQ(gemm::shared_cost(make(Space::shared, 16, kAll, [](int l) { return 128LL * l; })).wavefronts, 32);
}

TEST(SharedModel, InactiveLanesDoNotConflict) {
  // Column access, only lane 0 and lane 5 active: 2 distinct words in bank 0.
  const auto cost =
      gemm::shared_cost(make(Space::shared, 4, (1u << 0) | (1u << 5), [](int l) { return 4LL * 32 * l; }));
  EXPECT_EQ(cost.wavefronts, 2);
  EXPECT_EQ(gemm::shared_cost(make(Space::shared, 4, 0u, [](int l) { return 4LL * l; })).wavefronts, 0);
}

TEST(SharedModel, BankLoadForTheViewer) {
  const auto load = gemm::bank_load(make(Space::shared, 4, kAll, [](int l) { return 8LL * l; }), 0);
  for (int bank = 0; bank < 32; ++bank) EXPECT_EQ(load[size_t(bank)], bank % 2 == 0 ? 2 : 0) << bank;
}
