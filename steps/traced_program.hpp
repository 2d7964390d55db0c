// What the traced registry holds of a program (TracedProgram), and the helpers the steps' own
// registrations share: each traced step registers itself in its folder (steps/NN_name/traced.hpp,
// which calls the step's own mapping functions), and steps/traced_steps.hpp gathers them in step
// order (build/generated/traced_registry.hpp, which CMake writes from the steps' declarations).
// Host-only (plain C++).
#pragma once

#include <cstddef>
#include <functional>
#include <map>
#include <string>
#include <utility>
#include <vector>

#include "accumulators.hpp"
#include "bank_demo.hpp"
#include "gpu_limits.hpp"
#include "pipeline_schedules.hpp"
#include "shared_stage.hpp"
#include "trace.hpp"
#include "tunables.hpp"

namespace gemm {

struct TracedProgram {
  std::string step;     // folder name
  std::string variant;  // a demo's variant, "" for GEMM steps
  std::string kernel;   // the kernel's name, as the profiler's kernel filter matches it
  bool takes_shape;     // GEMM steps run any shape; the demos have a fixed one
  std::function<LaunchShape(const TraceProblem&)> launch;
  std::function<void(const TraceProblem&, const Dim3&, int, const TraceSink&)> trace;
  std::map<std::string, int> default_params = {};  // the step's --param defaults
  std::vector<std::map<std::string, int>> configs = {};  // every compiled --param combination
  // Optional: the tunables the program chooses for a shape (and layout, for the tensor-core steps)
  // when no --param is given, on a GPU of these limits (its SMs and shared memory per block: the
  // program's own params_for_shape, from the same mapping function).
  std::function<std::map<std::string, int>(const GemmShape&, Layout, const GpuLimits&)> params_for_shape = {};
  // Tensor-core steps: the layouts they trace (TraceProblem::layout; the viewer offers these), and
  // the rule their shapes obey ("" or the rule broken; the program's own rule, for the viewer to
  // refuse what it refuses). The FP8 step takes NT alone.
  bool tensor_core = false;
  std::vector<Layout> layouts = {Layout::nn, Layout::nt, Layout::tn};
  std::function<std::string(const GemmShape&, Layout)> shape_rule = {};
  // What a trace's iteration counts, as the viewer labels it ("k-tile 3"): a k-tile from step 05
  // on, a single k in steps 01-02 ("k = 3"), a repetition in the bank demos, a tile in the Hopper steps.
  std::string iteration_unit = "k-tile";
  // For the viewer, where a program has them: which warps issue no memory instructions of their
  // own, and who writes C when no thread does.
  std::string quiet_warps = "";
  std::string c_writer = "";
  // Optional, for the viewer's timeline (steps/pipeline_schedules.hpp; set in the step's traced.hpp):
  // how a block moves its k-tiles through the shared-memory stages, for output of `out_bytes` bytes
  // (the FP8 steps' epilogue depends on it); and, for the persistent steps, how the grid deals the
  // tiles.
  std::function<PipelineSpec(const TraceProblem&, const Dim3& block, int out_bytes)> pipeline = {};
  std::function<PersistentPlan(const TraceProblem&)> persistent = {};
  // Tensor-core steps, for the viewer's thread map: who holds each element of C when the k-loop
  // ends, for a block and warp (the step's warp_accumulators, from its own accumulator functions).
  std::function<void(const TraceProblem&, const Dim3&, int, const HeldSink&)> accumulators = {};
  // Optional, for the steps that stage tiles of A and B (the viewer's shared-memory panel, the host
  // tests): a stage of shared memory as the step lays it out, with the TMA boxes of k-tile `k_tile`
  // for the block's tile and the wgmma descriptors that read it (steps/shared_stages.hpp).
  std::function<SharedStage(const TraceProblem&, const Dim3& block, int k_tile)> shared_stage = {};
};

namespace detail {
template <typename StepTile, typename Variants, typename TraceFn>
void add_demo(std::vector<TracedProgram>& list, const char* step, StepTile tile, const Variants& variants, int count,
              TraceFn trace) {
  for (int index = 0; index < count; ++index) {
    const bank_demo::Variant variant = variants[index];
    list.push_back({step, variant.name, "bank_demo_kernel", false,
                    [tile, variant](const TraceProblem&) { return bank_demo::launch_shape(tile, variant); },
                    [trace, index](const TraceProblem&, const Dim3& block, int warp, const TraceSink& emit) {
                      trace(index, block, warp, emit);
                    }});
    list.back().iteration_unit = "repetition";
  }
}

// A step's tunables in its entry, from its table and its compiled list (the first is the default):
// the fields of Config only, as the traces read them (not step 11's SPLIT).
template <typename Config, std::size_t N, std::size_t M>
void add_tunables(TracedProgram& program, const Tunable<Config> (&table)[N], const Config (&configs)[M]) {
  program.default_params = to_params(table, configs[0]);
  for (const Config& c : configs) program.configs.push_back(to_params(table, c));
}

// A program that is described as `before` is (its kernel, layouts and shape rule, what its trace's
// iteration counts, the viewer's notes on its warps and on who writes C), under the name `step`,
// with none of before's functions or tunables: a step whose trace is the step before's (the FP8
// steps after step 19) starts from this and sets each function from its own mapping, so that one
// it forgets is missing (and a test names it), never the step before's.
inline TracedProgram described_as(const TracedProgram& before, std::string step) {
  TracedProgram program{std::move(step), before.variant, before.kernel, before.takes_shape, {}, {}};
  program.tensor_core = before.tensor_core;
  program.layouts = before.layouts;
  program.shape_rule = before.shape_rule;
  program.iteration_unit = before.iteration_unit;
  program.quiet_warps = before.quiet_warps;
  program.c_writer = before.c_writer;
  return program;
}

}  // namespace detail
}  // namespace gemm
