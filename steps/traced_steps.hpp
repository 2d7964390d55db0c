// Every program whose memory instructions are traced, with its launch and trace functions: one list
// for the model-vs-profiler tool, the host tests and the viewer. Host-only (plain C++).
// Each traced step registers itself in its own folder (steps/NN_name/traced.hpp: its TracedProgram,
// from its own mapping functions, with what the viewer's panels need of it); CMake gathers those
// files in step order into build/generated/traced_registry.hpp (gemm_write_traced_registry in
// cmake/GemmSteps.cmake, from steps/traced_registry.hpp.in), so a new step edits nothing here.
#pragma once

#include <map>
#include <string>
#include <vector>

#include "traced_program.hpp"
#include "traced_registry.hpp"

namespace gemm {

// Every traced program, in step order (a demo's variants in its order).
inline std::vector<TracedProgram> traced_programs() {
  std::vector<TracedProgram> list;
  traced::add_every_step(list);
  return list;
}

// The GPU a problem runs on, as the programs' choices see it (TraceProblem: its SMs, and the shared
// memory per block where it is known).
inline GpuLimits gpu_of(const TraceProblem& problem) {
  GpuLimits gpu{problem.sms};
  if (problem.shared_per_block > 0) gpu.shared_per_block = problem.shared_per_block;
  return gpu;
}

// The tunables a program runs a problem with, decided as the program decides: the ones the problem
// sets (as --param does; the defaults fill the rest), else, where the program chooses by shape and
// the GPU's SM count is known, its choice; else its defaults.
inline std::map<std::string, int> run_params(const TracedProgram& program, const TraceProblem& problem) {
  std::map<std::string, int> params = problem.params;
  if (params.empty() && program.params_for_shape && problem.sms > 0)
    params = program.params_for_shape(problem.shape, problem.layout, gpu_of(problem));
  for (const auto& [key, value] : program.default_params) params.emplace(key, value);
  return params;
}

// The launch-level prediction of the four profiler counters for one program and problem, with the
// tunables the program would run it with (run_params).
inline AccessTotals predict(const TracedProgram& program, const TraceProblem& given) {
  TraceProblem problem = given;
  problem.params = run_params(program, given);
  return predict_launch(program.launch(problem), [&](const Dim3& block, int warp, const TraceSink& sink) {
    program.trace(problem, block, warp, sink);
  });
}

}  // namespace gemm
