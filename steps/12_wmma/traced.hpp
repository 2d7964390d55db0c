// Step 12 in the traced registry (steps/traced_steps.hpp gathers every traced step's): its program
// (launch, trace, tunables, who holds C) and its stage of shared memory, each from the step's own
// mapping functions. Host-only; CMake includes this file in build/generated/traced_registry.hpp
// (docs/design.md, "Checklist: adding a step").
#pragma once

#include <vector>

#include "12_wmma/mapping.hpp"
#include "shared_stages.hpp"
#include "traced_program.hpp"

namespace gemm::shared_stages {

// Step 12: one stage, a_tile[BM][BK + 8] and b_tile[BK][BN + 8] whatever the layout (the copies
// transpose A in TN and B in NT).
inline SharedStage step12_stage(const TraceProblem& p, const Dim3&, int k_tile) {
  const step12::Config c = step12::config_from(p.params);
  const long long a_bytes = (long long)c.bm * step12::a_stride(c) * kSixteenBitBytes;
  const long long b_bytes = (long long)c.bk * step12::b_stride(c) * kSixteenBitBytes;
  SharedStage s = stage_frame(1, a_bytes + b_bytes, step12::k_tiles(p.shape, c), k_tile);
  const std::string padded = "rows padded by " + std::to_string(step12::kPad) + " elements";
  s.tiles.push_back(staged_tile(Operand::A, c.bm, c.bk, kSixteenBitBytes, true, 0, a_bytes, "a_tile[m][k], " + padded,
                                [&](int m, int k) {
                                  step12::Chunk at;
                                  at.tile_row = m, at.tile_col = k;
                                  return step12::a_tile_index(at, c, 0) * kSixteenBitBytes;
                                }));
  s.tiles.push_back(staged_tile(Operand::B, c.bn, c.bk, kSixteenBitBytes, false, a_bytes, b_bytes,
                                "b_tile[k][n], " + padded, [&](int n, int k) {
                                  step12::Chunk at;
                                  at.tile_row = k, at.tile_col = n;
                                  return step12::b_tile_index(at, c, 0) * kSixteenBitBytes;
                                }));
  return s;
}

}  // namespace gemm::shared_stages

namespace gemm::traced {

inline TracedProgram step12_program() {
  TracedProgram program{"12_wmma", "", "wmma_gemm", true, {}, step12::trace_warp};
  program.launch = [](const TraceProblem& p) { return step12::launch_shape(p.shape, step12::config_from(p.params)); };
  detail::add_tunables(program, step12::kTunables, step12::kConfigs);
  program.accumulators = step12::warp_accumulators;
  program.tensor_core = true;
  program.shape_rule = tc_shape_rule;
  program.shared_stage = shared_stages::step12_stage;
  return program;
}
inline void add_step12(std::vector<TracedProgram>& list) { list.push_back(step12_program()); }

}  // namespace gemm::traced
