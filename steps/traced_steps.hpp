// Every program whose memory instructions are traced, with its launch and trace functions: one list
// for the model-vs-profiler tool, the host tests and the viewer. Host-only (plain C++).
// A new step with a trace adds its line here.
#pragma once

#include <functional>
#include <map>
#include <string>
#include <vector>

#include "01_naive/mapping.hpp"
#include "02_gmem_coalescing/mapping.hpp"
#include "03_smem_banks_square/mapping.hpp"
#include "04_smem_banks_rectangular/mapping.hpp"
#include "05_smem_tiling/mapping.hpp"
#include "06_1d_blocktiling/mapping.hpp"
#include "07_2d_blocktiling/mapping.hpp"
#include "08_vectorized/mapping.hpp"
#include "09_warptiling/mapping.hpp"
#include "10_cp_async_pipeline/mapping.hpp"
#include "11_split_k_tail/mapping.hpp"
#include "12_wmma/mapping.hpp"
#include "13_wmma_pipeline/mapping.hpp"
#include "14_mma_ldmatrix/mapping.hpp"
#include "15_hopper_wgmma/mapping.hpp"
#include "trace.hpp"

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
  // when no --param is given, on a GPU of `sms` SMs (the program's own params_for_shape, from the
  // same mapping function).
  std::function<std::map<std::string, int>(const GemmShape&, Layout, int sms)> params_for_shape = {};
  // Tensor-core steps: the layouts they trace (TraceProblem::layout) and the rule their shapes
  // obey ("" or the rule broken; the program's own rule, for the viewer to refuse what it refuses).
  bool tensor_core = false;
  std::function<std::string(const GemmShape&, Layout)> shape_rule = {};
  // What a trace's iteration counts, as the viewer labels it ("k-tile 3"): a k-tile from step 05
  // on, a single k in steps 01-02 ("k = 3"), a repetition in the bank demos, a tile in step 15.
  std::string iteration_unit = "k-tile";
  // For the viewer, where a program has them: which warps issue no memory instructions of their
  // own, and who writes C when no thread does.
  std::string quiet_warps = "";
  std::string c_writer = "";
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
}  // namespace detail

inline std::vector<TracedProgram> traced_programs() {
  std::vector<TracedProgram> list;
  list.push_back({"01_naive", "", "naive_sgemm", true,
                  [](const TraceProblem& p) { return step01::launch_shape(p.shape); }, step01::trace_warp});
  list.back().iteration_unit = "k =";
  list.push_back({"02_gmem_coalescing", "", "coalesced_sgemm", true,
                  [](const TraceProblem& p) { return step02::launch_shape(p.shape); }, step02::trace_warp});
  list.back().iteration_unit = "k =";
  detail::add_demo(list, "03_smem_banks_square", step03::kTile, step03::kVariants, step03::kVariantCount,
                   step03::trace_warp);
  detail::add_demo(list, "04_smem_banks_rectangular", step04::kTile, step04::kVariants, step04::kVariantCount,
                   step04::trace_warp);
  list.push_back({"05_smem_tiling", "", "smem_tiled_sgemm", true,
                  [](const TraceProblem& p) { return step05::launch_shape(p.shape); }, step05::trace_warp});
  const step06::Config d06 = step06::kConfigs[0];
  list.push_back({"06_1d_blocktiling", "", "blocktiled_1d_sgemm", true,
                  [](const TraceProblem& p) { return step06::launch_shape(p.shape, step06::config_from(p.params)); },
                  step06::trace_warp,
                  {{"BM", d06.bm}, {"BN", d06.bn}, {"BK", d06.bk}, {"TM", d06.tm}, {"MINB", d06.min_blocks}}});
  for (const step06::Config& c : step06::kConfigs)
    list.back().configs.push_back({{"BM", c.bm}, {"BN", c.bn}, {"BK", c.bk}, {"TM", c.tm}, {"MINB", c.min_blocks}});
  const step07::Config d07 = step07::kConfigs[0];
  list.push_back({"07_2d_blocktiling", "", "blocktiled_2d_sgemm", true,
                  [](const TraceProblem& p) { return step07::launch_shape(p.shape, step07::config_from(p.params)); },
                  step07::trace_warp,
                  {{"BM", d07.bm}, {"BN", d07.bn}, {"BK", d07.bk}, {"TM", d07.tm}, {"TN", d07.tn},
                   {"MINB", d07.min_blocks}}});
  for (const step07::Config& c : step07::kConfigs)
    list.back().configs.push_back(
        {{"BM", c.bm}, {"BN", c.bn}, {"BK", c.bk}, {"TM", c.tm}, {"TN", c.tn}, {"MINB", c.min_blocks}});
  const step08::Config d08 = step08::kConfigs[0];
  list.push_back({"08_vectorized", "", "vectorized_sgemm", true,
                  [](const TraceProblem& p) { return step08::launch_shape(p.shape, step08::config_from(p.params)); },
                  step08::trace_warp,
                  {{"BM", d08.bm}, {"BN", d08.bn}, {"BK", d08.bk}, {"TM", d08.tm}, {"TN", d08.tn},
                   {"MINB", d08.min_blocks}}});
  for (const step08::Config& c : step08::kConfigs)
    list.back().configs.push_back(
        {{"BM", c.bm}, {"BN", c.bn}, {"BK", c.bk}, {"TM", c.tm}, {"TN", c.tn}, {"MINB", c.min_blocks}});
  const step09::Config d09 = step09::kConfigs[0];
  const auto params09 = [](const step09::Config& c) {
    return std::map<std::string, int>{{"BM", c.bm}, {"BN", c.bn}, {"BK", c.bk}, {"WM", c.wm},
                                      {"WN", c.wn}, {"TM", c.tm}, {"TN", c.tn}, {"MINB", c.min_blocks}};
  };
  list.push_back({"09_warptiling", "", "warptiled_sgemm", true,
                  [](const TraceProblem& p) { return step09::launch_shape(p.shape, step09::config_from(p.params)); },
                  step09::trace_warp, params09(d09)});
  for (const step09::Config& c : step09::kConfigs) list.back().configs.push_back(params09(c));
  list.push_back({"10_cp_async_pipeline", "", "pipelined_sgemm", true,
                  [](const TraceProblem& p) { return step10::launch_shape(p.shape, step10::config_from(p.params)); },
                  step10::trace_warp, step10::to_params(step10::kConfigs[0])});
  for (const step10::Config& c : step10::kConfigs) list.back().configs.push_back(step10::to_params(c));
  list.back().params_for_shape = [](const GemmShape& shape, Layout, int sms) {
    return step10::to_params(step10::config_for_shape(shape, sms));
  };
  list.push_back({"11_split_k_tail", "", "pipelined_sgemm", true,
                  [](const TraceProblem& p) { return step11::launch_shape(p.shape, step11::config_from(p.params)); },
                  step11::trace_warp, step11::to_params(step11::kConfigs[0])});
  for (const step11::Config& c : step11::kConfigs) list.back().configs.push_back(step11::to_params(c));
  list.back().params_for_shape = [](const GemmShape& shape, Layout, int sms) {
    return step11::to_params(step11::config_for_shape(shape, sms));
  };
  const auto params11 = [](const step12::Config& c) {
    return std::map<std::string, int>{{"BM", c.bm}, {"BN", c.bn}, {"BK", c.bk}, {"WM", c.wm}, {"WN", c.wn}};
  };
  list.push_back({"12_wmma", "", "wmma_gemm", true,
                  [](const TraceProblem& p) { return step12::launch_shape(p.shape, step12::config_from(p.params)); },
                  step12::trace_warp, params11(step12::kConfigs[0])});
  for (const step12::Config& c : step12::kConfigs) list.back().configs.push_back(params11(c));
  list.back().tensor_core = true;
  list.back().shape_rule = tc_shape_rule;
  list.push_back({"13_wmma_pipeline", "", "wmma_pipeline_gemm", true,
                  [](const TraceProblem& p) { return step13::launch_shape(p.shape, step13::config_from(p.params)); },
                  step13::trace_warp, step13::to_params(step13::kConfigs[0])});
  for (const step13::Config& c : step13::kConfigs) list.back().configs.push_back(step13::to_params(c));
  list.back().tensor_core = true;
  list.back().shape_rule = tc_aligned_rows_rule;
  list.push_back({"14_mma_ldmatrix", "", "mma_pipeline_gemm", true,
                  [](const TraceProblem& p) { return step14::launch_shape(p.shape, step14::config_from(p.params)); },
                  step14::trace_warp, step14::to_params(step14::kConfigs[0])});
  for (const step14::Config& c : step14::kConfigs) list.back().configs.push_back(step14::to_params(c));
  list.back().params_for_shape = [](const GemmShape& shape, Layout, int sms) {
    return step14::to_params(step14::config_for_shape(shape, sms));
  };
  list.back().tensor_core = true;
  list.back().shape_rule = tc_aligned_rows_rule;
  list.push_back({"15_hopper_wgmma", "", "hopper_gemm", true,
                  [](const TraceProblem& p) { return step15::trace_launch_shape(p, step15::config_from(p.params)); },
                  step15::trace_warp, step15::to_params(step15::kConfigs[0])});
  for (const step15::Config& c : step15::kConfigs) list.back().configs.push_back(step15::to_params(c));
  list.back().params_for_shape = [](const GemmShape& shape, Layout layout, int sms) {
    return step15::to_params(step15::config_for_shape(shape, layout, sms));
  };
  list.back().tensor_core = true;
  list.back().shape_rule = tc_aligned_rows_rule;
  list.back().iteration_unit = "tile";  // the block's tiles, in the order it takes them
  list.back().quiet_warps = "the producer warps 0-3 hand their copies to the copy engine";
  list.back().c_writer = "the copy engine writes C when beta = 0 and C's rows are 16-byte aligned; with beta != 0 "
                         "the consumer threads read C and store it themselves";
  return list;
}

// The tunables a program runs a problem with, decided as the program decides: the ones the problem
// sets (as --param does; the defaults fill the rest), else, where the program chooses by shape and
// the GPU's SM count is known, its choice; else its defaults.
inline std::map<std::string, int> run_params(const TracedProgram& program, const TraceProblem& problem) {
  std::map<std::string, int> params = problem.params;
  if (params.empty() && program.params_for_shape && problem.sms > 0)
    params = program.params_for_shape(problem.shape, problem.layout, problem.sms);
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
