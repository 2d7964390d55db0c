// Every program whose memory instructions are traced, with its launch and trace functions: one list
// for the model-vs-profiler tool, the host tests and the viewer. Host-only (plain C++).
// A new step with a trace adds its line here.
#pragma once

#include <functional>
#include <string>
#include <vector>

#include "01_naive/mapping.hpp"
#include "02_gmem_coalescing/mapping.hpp"
#include "03_smem_banks_square/mapping.hpp"
#include "04_smem_banks_rectangular/mapping.hpp"
#include "05_smem_tiling/mapping.hpp"
#include "trace.hpp"

namespace gemm {

struct TracedProgram {
  std::string step;     // folder name
  std::string variant;  // a demo's variant, "" for GEMM steps
  std::string kernel;   // the kernel's name, as the profiler's kernel filter matches it
  bool takes_shape;     // GEMM steps run any shape; the demos have a fixed one
  std::function<LaunchShape(const TraceProblem&)> launch;
  std::function<void(const TraceProblem&, const Dim3&, int, const TraceSink&)> trace;
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
  }
}
}  // namespace detail

inline std::vector<TracedProgram> traced_programs() {
  std::vector<TracedProgram> list;
  list.push_back({"01_naive", "", "naive_sgemm", true,
                  [](const TraceProblem& p) { return step01::launch_shape(p.shape); }, step01::trace_warp});
  list.push_back({"02_gmem_coalescing", "", "coalesced_sgemm", true,
                  [](const TraceProblem& p) { return step02::launch_shape(p.shape); }, step02::trace_warp});
  detail::add_demo(list, "03_smem_banks_square", step03::kTile, step03::kVariants, step03::kVariantCount,
                   step03::trace_warp);
  detail::add_demo(list, "04_smem_banks_rectangular", step04::kTile, step04::kVariants, step04::kVariantCount,
                   step04::trace_warp);
  list.push_back({"05_smem_tiling", "", "smem_tiled_sgemm", true,
                  [](const TraceProblem& p) { return step05::launch_shape(p.shape); }, step05::trace_warp});
  return list;
}

// The launch-level prediction of the four profiler counters for one program and problem.
inline AccessTotals predict(const TracedProgram& program, const TraceProblem& problem) {
  return predict_launch(program.launch(problem), [&](const Dim3& block, int warp, const TraceSink& sink) {
    program.trace(problem, block, warp, sink);
  });
}

}  // namespace gemm
