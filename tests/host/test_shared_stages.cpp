// The stages of shared memory the viewer draws (TracedProgram::shared_stage, steps/shared_stages.hpp)
// against the hardware's rules and the steps' traces, for every program that stages tiles, every
// compiled configuration, layout and stage:
//  - each tile holds each of its elements once, inside the tile, and the tiles of a stage do not
//    overlap;
//  - every wgmma k-step's descriptor, as the kernel builds it, decoded by the one decoder
//    (common/host/hopper_shared.hpp), names for element (mn, k) of the operand the byte where the
//    step's tile_byte puts element (mn0 + mn, k0 + k) of the tile: the picture of a k-step's reads is
//    the step's own layout;
//  - every element of every TMA box lands (the 128-byte swizzle, or a tail box's 32-byte one) where
//    tile_byte puts the element of the matrix it carries, and the boxes of a k-tile cover the tile once;
//  - the cp.async copies of the traces (steps 13 and 14) write each element where the stage says it
//    lies.
#include <gtest/gtest.h>

#include <set>
#include <string>
#include <vector>

#include "declared_steps.hpp"
#include "hopper_shared.hpp"
#include "traced_steps.hpp"

namespace {

using gemm::Operand;
using gemm::SharedStage;
using gemm::StagedTile;
using gemm::TraceProblem;
using gemm::TracedProgram;

std::vector<std::map<std::string, int>> configs_of(const TracedProgram& p) {
  return p.configs.empty() ? std::vector<std::map<std::string, int>>{p.default_params} : p.configs;
}

// A problem of 2 x 2 tiles and a k-tile per stage (the block's first tile is then (0, 0) or its
// cluster rank's, whole).
TraceProblem problem_for(const TracedProgram& program, const std::map<std::string, int>& params, gemm::Layout layout) {
  TraceProblem p;
  p.params = params;
  p.layout = layout;
  p.shape = {64, 64, 64};
  const SharedStage probe = program.shared_stage(p, {0, 0, 0}, 0);
  const StagedTile& a = probe.tiles.at(0);
  const StagedTile& b = probe.tiles.at(1);
  p.shape = {2 * a.mn, 2 * b.mn, probe.stages * a.k};
  return p;
}

std::string what(const TracedProgram& program, const std::map<std::string, int>& params, gemm::Layout layout) {
  std::string text = program.step + " " + gemm::to_string(layout);
  for (const auto& [key, value] : params) text += " " + key + "=" + std::to_string(value);
  return text;
}

long long programs_with_stages() {
  long long count = 0;
  for (const auto& program : gemm::traced_programs()) count += program.shared_stage ? 1 : 0;
  return count;
}

}  // namespace

TEST(SharedStages, EveryStepThatStagesTilesHasOne) {
  // The tensor-core steps stage tiles of A and B.
  long long tensor_core = 0;
  for (const auto& program : gemm::traced_programs()) {
    if (!program.tensor_core) continue;
    ++tensor_core;
    EXPECT_TRUE(bool(program.shared_stage)) << program.step;
  }
  EXPECT_EQ(programs_with_stages(), tensor_core);
}

TEST(SharedStages, TilesHoldEachElementOnceWithoutOverlap) {
  for (const auto& program : gemm::traced_programs()) {
    if (!program.shared_stage) continue;
    for (const auto& params : configs_of(program))
      for (const gemm::Layout layout : program.layouts) {
        const TraceProblem p = problem_for(program, params, layout);
        const SharedStage s = program.shared_stage(p, {0, 0, 0}, 0);
        const std::string label = what(program, params, layout);
        ASSERT_EQ(s.tiles.size(), 2u) << label;
        EXPECT_EQ(s.tiles[0].operand, Operand::A);
        EXPECT_EQ(s.tiles[1].operand, Operand::B);
        EXPECT_LE(s.tiles[0].offset + s.tiles[0].bytes, s.tiles[1].offset) << label;
        EXPECT_LE(s.tiles[1].offset + s.tiles[1].bytes, s.stage_bytes) << label;
        for (const StagedTile& t : s.tiles) {
          std::set<int> bytes;
          for (int mn = 0; mn < t.mn; ++mn)
            for (int k = 0; k < t.k; ++k) {
              const int at = t.byte(mn, k);
              ASSERT_TRUE(at >= 0 && at + t.element_bytes <= t.bytes) << label << " " << gemm::to_string(t.operand);
              ASSERT_EQ(at % t.element_bytes, 0) << label;
              ASSERT_TRUE(bytes.insert(at).second) << label << " " << gemm::to_string(t.operand) << " element " << mn
                                                   << "," << k << " shares its byte";
            }
        }
      }
  }
}

// The check that the panel's picture of a k-step is right: every Hopper step, every configuration,
// layout, stage, consumer and k-step.
TEST(SharedStages, DescriptorsReadWhereTileByteSays) {
  int steps = 0;
  for (const auto& program : gemm::traced_programs()) {
    if (!program.shared_stage) continue;
    bool any_reads = false;
    for (const auto& params : configs_of(program))
      for (const gemm::Layout layout : program.layouts) {
        const TraceProblem p = problem_for(program, params, layout);
        const std::string label = what(program, params, layout);
        const int stages = program.shared_stage(p, {0, 0, 0}, 0).stages;
        for (int kt = 0; kt < stages; ++kt) {
          const SharedStage s = program.shared_stage(p, {0, 0, 0}, kt);
          ASSERT_EQ(s.stage, kt) << label;
          any_reads = any_reads || !s.reads.empty();
          for (const gemm::WgmmaRead& r : s.reads) {
            const StagedTile& t = s.tiles[r.operand == Operand::A ? 0 : 1];
            const gemm::hopper::MatrixDescriptor d = gemm::hopper::decode_descriptor(r.descriptor);
            ASSERT_TRUE(gemm::hopper::decodable(d)) << label;
            ASSERT_EQ(r.k * t.element_bytes, 32) << label << ": a k-step reads 32 bytes of each row";
            ASSERT_EQ(r.k_major, t.k_major) << label;
            int wrong = 0;
            for (int mn = 0; mn < r.rows; ++mn)
              for (int k = 0; k < r.k; ++k) {
                const long long read = gemm::hopper::descriptor_byte(d, r.k_major, mn, k, t.element_bytes);
                const long long placed = kt * s.stage_bytes + t.offset + t.byte(r.mn0 + mn, r.k0 + k);
                wrong += read != placed;
              }
            ASSERT_EQ(wrong, 0) << label << " stage " << kt << " " << gemm::to_string(r.operand) << " consumer "
                                << r.consumer << " k-step " << r.k_step;
          }
        }
      }
    steps += any_reads ? 1 : 0;
  }
  // Every traced step built for sm_90a reads its operands through wgmma's descriptors.
  int hopper = 0;
  for (const gemm::declared::Step& step : gemm::declared::kSteps) hopper += step.traced && step.min_arch >= 90;
  EXPECT_EQ(steps, hopper) << "every Hopper step reads its operands through descriptors";
}

TEST(SharedStages, TmaBoxesLandWhereTileByteSaysAndCoverTheTile) {
  for (const auto& program : gemm::traced_programs()) {
    if (!program.shared_stage) continue;
    for (const auto& params : configs_of(program))
      for (const gemm::Layout layout : program.layouts) {
        const TraceProblem p = problem_for(program, params, layout);
        const std::string label = what(program, params, layout);
        const int kt = 1;
        const SharedStage s = program.shared_stage(p, {0, 0, 0}, kt);
        if (s.boxes.empty()) continue;
        for (const StagedTile& t : s.tiles) {
          std::vector<int> covered(size_t(t.mn) * size_t(t.k), 0);
          for (const gemm::TmaBoxCopy& box : s.boxes) {
            if (box.operand != t.operand) continue;
            ASSERT_EQ(box.bytes, box.inner * box.outer * t.element_bytes) << label;
            ASSERT_EQ(box.swizzle_span, box.inner * t.element_bytes) << label << ": a box's rows are its swizzle's span";
            ASSERT_EQ((t.offset + box.landing) % gemm::hopper::kSwizzlePeriod, 0) << label;
            const unsigned base = unsigned(s.stage * s.stage_bytes + t.offset + box.landing);
            for (int o = 0; o < box.outer; ++o)
              for (int i = 0; i < box.inner; ++i) {
                const int along = box.k_major ? box.inner0 + i - box.k0 : box.outer0 + o - box.k0;  // k
                const int mn = box.k_major ? box.outer0 + o - box.mn0 : box.inner0 + i - box.mn0;
                ASSERT_TRUE(mn >= 0 && mn < t.mn && along >= 0 && along < t.k) << label;
                ++covered[size_t(mn) * size_t(t.k) + size_t(along)];
                ASSERT_EQ(gemm::hopper::tma_landing_byte(base, i, o, t.element_bytes, box.swizzle_span),
                          unsigned(s.stage * s.stage_bytes + t.offset + t.byte(mn, along)))
                    << label << " box " << box.box << " element " << i << "," << o;
              }
          }
          for (int n : covered) ASSERT_EQ(n, 1) << label << " " << gemm::to_string(t.operand);
        }
      }
  }
}

// Steps 13 and 14 copy with cp.async: each lane's shared write carries the global element it reads
// (the write's counterpart), which must be the element the stage says lies there.
TEST(SharedStages, TheTracesCopiesWriteWhereTheStageSays) {
  for (const auto& program : gemm::traced_programs()) {
    if (!program.shared_stage || (program.step != "13_wmma_pipeline" && program.step != "14_mma_ldmatrix")) continue;
    for (const auto& params : configs_of(program))
      for (const gemm::Layout layout : program.layouts) {
        const TraceProblem p = problem_for(program, params, layout);
        const std::string label = what(program, params, layout);
        const gemm::LaunchShape launch = program.launch(p);
        long long checked = 0;
        for (int warp = 0; warp < gemm::warps_per_block(launch.block); ++warp)
          program.trace(p, {0, 0, 0}, warp, [&](const gemm::TraceInstruction& i) {
            if (!i.access.async_copy || i.access.space != gemm::Space::shared) return;
            const SharedStage s = program.shared_stage(p, {0, 0, 0}, i.iteration);
            const StagedTile& t = s.tiles[i.operand == Operand::smem_A ? 0 : 1];
            const bool a = t.operand == Operand::A;
            // The stored matrix: A is M x K (K x M in TN), B is K x N (N x K in NT).
            const bool stored_along_k = a ? layout != gemm::Layout::tn : layout == gemm::Layout::nt;
            const long long row_length = stored_along_k ? p.shape.k : (a ? p.shape.m : p.shape.n);
            for (int lane = 0; lane < 32; ++lane) {
              if (!((i.access.counterpart_active >> lane) & 1u)) continue;
              for (int e = 0; e < i.access.width / i.element_bytes; ++e) {
                const long long element = i.access.counterpart[size_t(lane)] / i.element_bytes + e;
                const long long row = element / row_length, col = element % row_length;
                const int mn = int(stored_along_k ? row : col), k = int((stored_along_k ? col : row) - i.iteration * t.k);
                ASSERT_TRUE(mn < t.mn && k >= 0 && k < t.k) << label;
                ASSERT_EQ(i.access.address[size_t(lane)] + e * i.element_bytes,
                          s.stage * s.stage_bytes + t.offset + t.byte(mn, k))
                    << label << " " << i.label << " lane " << lane;
                ++checked;
              }
            }
          });
        EXPECT_GT(checked, 0) << label;
      }
  }
}
