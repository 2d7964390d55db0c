// Who holds each element of C when a tensor-core step's k-loop ends (each step's warp_accumulators,
// steps/traced_steps.hpp's `accumulators`): on ragged shapes, in every layout and compiled
// configuration, every element of C is held by exactly one (thread, register) of one block, once
// per tile; no register of a lane holds two elements of a tile; each element lies in the tile its
// block computes; and registers and lanes are within what the instruction gives a thread.
#include <gtest/gtest.h>

#include <map>
#include <string>
#include <vector>

#include "declared_steps.hpp"
#include "traced_steps.hpp"

namespace {

using gemm::GemmShape;
using gemm::HeldElement;
using gemm::Layout;
using gemm::MmaKind;
using gemm::TracedProgram;
using gemm::TraceProblem;

// Ragged against every tile (128 x 256, 128 x 192, 128 x 176, 64 x 64 ...), with an odd number of
// tile rows (the clusters of 2 then have a tile below C), a last tile column narrow enough for the
// persistent steps' narrow tiles (296 = 256 + 40 and 128 + 128 + 40) and one that is not (328);
// M, N and K multiples of 8 (K of 16) as the steps' shape rules ask.
const GemmShape kShapes[] = {{328, 296, 48}, {200, 328, 64}, {72, 56, 16}};
// Few SMs, so that each persistent block takes several tiles; and the H100's count.
const int kSms[] = {4, 132};

std::string where(const TracedProgram& program, const TraceProblem& p) {
  std::string text = program.step + " " + std::to_string(p.shape.m) + "x" + std::to_string(p.shape.n) + "x" +
                     std::to_string(p.shape.k) + " " + gemm::to_string(p.layout) + " sms " + std::to_string(p.sms) + ":";
  for (const auto& [key, value] : p.params) text += " " + key + "=" + std::to_string(value);
  return text;
}

// Every element the accumulators of a launch hold, checked as it is collected.
void expect_held_once(const TracedProgram& program, const TraceProblem& p) {
  const std::string at = where(program, p);
  const gemm::LaunchShape launch = program.launch(p);
  const int warps = gemm::warps_per_block(launch.block);
  const int bm = p.params.at("BM"), bn = p.params.at("BN");
  std::vector<long long> holder(size_t(p.shape.m) * size_t(p.shape.n), -1);  // elements of C: block * 1024 + thread
  for (int y = 0; y < launch.grid.y; ++y)
    for (int x = 0; x < launch.grid.x; ++x) {
      const long long block = (long long)y * launch.grid.x + x;
      std::map<int, std::vector<char>> tile_held;  // per tile of the block: its bm x bn elements, held yet
      for (int warp = 0; warp < warps; ++warp) {
        std::map<int, std::vector<char>> registers;  // per tile: the warp's (lane, register) pairs, used yet
        program.accumulators(p, {x, y, 0}, warp, [&](const HeldElement& h) {
          if (testing::Test::HasFatalFailure()) return;  // one message, not one per element
          // The element lies in its tile, which the block computes (a grid of tiles, or dealt).
          ASSERT_TRUE(h.row >= 0 && h.col >= 0) << at;
          ASSERT_EQ(h.row / bm, h.tile_m) << at << " row " << h.row;
          ASSERT_EQ(h.col / bn, h.tile_n) << at << " col " << h.col;
          // Lanes and registers as the instruction gives them to a thread.
          switch (h.mma.kind) {
            case MmaKind::wmma:
              ASSERT_EQ(h.lane, -1) << at << ": WMMA's lane layout is the compiler's";
              ASSERT_EQ(h.reg, h.frag_i * (p.params.at("WN") / 16) + h.frag_j) << at << ": the fragment acc[i][j]";
              break;
            case MmaKind::mma_sync:
              ASSERT_TRUE(h.lane >= 0 && h.lane < 32) << at;
              ASSERT_EQ(h.reg / 4, h.frag_i * (p.params.at("WN") / 8) + h.frag_j) << at << ": acc[i][j][r]";
              ASSERT_EQ(h.mma.m * h.mma.n / 32, 4) << at << ": m16n8 gives a thread 4 registers";
              break;
            case MmaKind::wgmma:
              ASSERT_TRUE(h.lane >= 0 && h.lane < 32) << at;
              ASSERT_EQ(h.mma.m, 64) << at;
              ASSERT_LE(h.mma.n, bn) << at;
              ASSERT_TRUE(h.reg >= 0 && h.reg < h.mma.n / 2) << at << ": m64nN gives a thread N / 2 registers";
              break;
          }
          // A lane's register holds one element of a tile (WMMA: not named).
          if (h.lane >= 0) {
            std::vector<char>& used = registers[h.tile];
            used.resize(32 * 256);
            ASSERT_LT(h.reg, 256) << at;
            ASSERT_FALSE(used[size_t(h.lane * 256 + h.reg)]) << at << " lane " << h.lane << " register " << h.reg
                                                              << " of warp " << warp << " holds two elements";
            used[size_t(h.lane * 256 + h.reg)] = 1;
          }
          // An element of a tile is held once in its block (past C's edge too: computed, never stored).
          std::vector<char>& held = tile_held[h.tile];
          held.resize(size_t(bm) * size_t(bn));
          const size_t in_tile = size_t(h.row % bm) * size_t(bn) + size_t(h.col % bn);
          ASSERT_FALSE(held[in_tile]) << at << " (" << h.row << ", " << h.col << ") held twice in block " << block
                                      << "'s tile " << h.tile;
          held[in_tile] = 1;
          if (h.row >= p.shape.m || h.col >= p.shape.n) return;
          long long& who = holder[size_t(h.row) * size_t(p.shape.n) + size_t(h.col)];
          ASSERT_EQ(who, -1) << at << " (" << h.row << ", " << h.col << ") held by block " << who / 1024 << " thread "
                             << who % 1024 << " and by block " << block << " warp " << warp;
          who = block * 1024 + warp * 32 + std::max(h.lane, 0);
        });
        if (testing::Test::HasFatalFailure()) return;
      }
    }
  long long held = 0;
  for (long long who : holder) held += who >= 0;
  EXPECT_EQ(held, (long long)p.shape.m * p.shape.n) << at << ": every element of C is held";
}

}  // namespace

TEST(Accumulators, EveryTensorCoreStepHasThem) {
  int with = 0;
  for (const TracedProgram& program : gemm::traced_programs()) {
    EXPECT_EQ(bool(program.accumulators), program.tensor_core) << program.step;
    with += bool(program.accumulators);
  }
  // Every traced tensor-core and FP8 step, as the declarations list them.
  int declared = 0;
  for (const gemm::declared::Step& step : gemm::declared::kSteps) {
    const std::string kind = step.kind;
    declared += step.traced && (kind == "tensor_core" || kind == "fp8");
  }
  EXPECT_EQ(with, declared) << "every traced tensor-core step";
}

TEST(Accumulators, EveryElementOfCIsHeldOnce) {
  for (const TracedProgram& program : gemm::traced_programs()) {
    if (!program.accumulators) continue;
    for (const auto& params : program.configs)
      for (Layout layout : program.layouts)
        for (const GemmShape& shape : kShapes)
          for (int sms : kSms) {
            TraceProblem p;
            p.shape = shape;
            p.layout = layout;
            p.params = params;
            p.sms = sms;
            ASSERT_EQ(program.shape_rule(shape, layout), "") << program.step;
            expect_held_once(program, p);
            if (HasFatalFailure()) return;
          }
  }
}
