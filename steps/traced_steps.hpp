// Every program whose memory instructions are traced, with its launch and trace functions: one list
// for the model-vs-profiler tool, the host tests and the viewer. Host-only (plain C++).
// A new step with a trace adds its line here.
#pragma once

#include <cstddef>
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
#include "15_tma_wgmma/mapping.hpp"
#include "16_warp_specialized/mapping.hpp"
#include "17_persistent_clusters/mapping.hpp"
#include "18_tma_store_epilogue/mapping.hpp"
#include "19_fp8/mapping.hpp"
#include "20_overlapped_epilogue/mapping.hpp"
#include "21_uniform_datapath/mapping.hpp"
#include "22_tile_width/mapping.hpp"
#include "gpu_limits.hpp"
#include "pipeline_schedules.hpp"
#include "shared_stage.hpp"
#include "shared_stages.hpp"
#include "accumulators.hpp"
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
  // Optional, for the viewer's timeline (steps/pipeline_schedules.hpp, detail::add_pipelines): how a
  // block moves its k-tiles through the shared-memory stages, for output of `out_bytes` bytes (the
  // FP8 steps' epilogue depends on it); and, for the persistent steps, how the grid deals the tiles.
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
// The pipelines the viewer's timeline draws, each from its step's own functions
// (steps/pipeline_schedules.hpp): the kind of loop the kernel runs, and which of the persistent
// steps' functions a step has.
inline void add_pipelines(std::vector<TracedProgram>& list) {
  auto set = [&](const std::string& step, auto pipeline) {
    for (TracedProgram& program : list)
      if (program.step == step) program.pipeline = pipeline;
  };
  auto set_plan = [&](const std::string& step, auto plan) {
    for (TracedProgram& program : list)
      if (program.step == step) program.persistent = plan;
  };
  using pipelines::cp_async;
  constexpr PipelineKind kWaitAfter = PipelineKind::cp_async_wait_after_compute;
  // Step 10's loop copies k-tiles past the last one too (zeros into stages no one reads: kernel.cuh),
  // as step 11's does; steps 13 and 14 commit empty groups there instead.
  set("10_cp_async_pipeline", [](const TraceProblem& p, const Dim3&, int) {
    return cp_async<true>(kWaitAfter, p.shape, step10::config_from(p.params), true);
  });
  set("11_split_k_tail", [](const TraceProblem& p, const Dim3&, int) {  // a whole tile, as its trace
    return cp_async<true>(kWaitAfter, p.shape, step11::config_from(p.params), true);
  });
  set("13_wmma_pipeline", [](const TraceProblem& p, const Dim3&, int) {
    return cp_async<false>(PipelineKind::cp_async_wait_before_compute, p.shape, step13::config_from(p.params), false);
  });
  set("14_mma_ldmatrix", [](const TraceProblem& p, const Dim3&, int) {
    return cp_async<true>(kWaitAfter, p.shape, step14::config_from(p.params), false);
  });
  set("15_tma_wgmma", [](const TraceProblem& p, const Dim3& block, int) {
    const step15::TileCoord tile = step15::tile_of(block);
    return pipelines::tma_one_warpgroup(p.shape, step15::config_from(p.params), BlockTile{-1, 0, tile.m, tile.n});
  });
  set("16_warp_specialized", [](const TraceProblem& p, const Dim3& block, int) {
    const step16::TileCoord tile = step16::tile_of(block);
    return pipelines::warp_specialized(p.shape, step16::config_from(p.params), BlockTile{-1, 0, tile.m, tile.n});
  });
  using pipelines::kCountedTime;
  using pipelines::kNarrowTiles;
  using pipelines::kPromotion;
  using pipelines::kUnderNextTile;
  using pipelines::persistent_pipeline;
  using pipelines::persistent_plan;
  set("17_persistent_clusters", [](const TraceProblem& p, const Dim3& block, int out_bytes) {
    return persistent_pipeline<0>(p, step17::config_from(p.params), block.x, out_bytes, step17::kTraceSms);
  });
  set_plan("17_persistent_clusters", [](const TraceProblem& p) {
    return persistent_plan<0>(p, step17::config_from(p.params), step17::kTraceSms);
  });
  constexpr int k18 = kNarrowTiles | kCountedTime, k19 = k18 | kPromotion, k20 = k19 | kUnderNextTile;
  set("18_tma_store_epilogue", [](const TraceProblem& p, const Dim3& block, int out_bytes) {
    return persistent_pipeline<k18>(p, step18::config_from(p.params), block.x, out_bytes, step18::kTraceSms);
  });
  set_plan("18_tma_store_epilogue", [](const TraceProblem& p) {
    return persistent_plan<k18>(p, step18::config_from(p.params), step18::kTraceSms, step18::kNarrowUnitsPerWhole);
  });
  set("19_fp8", [](const TraceProblem& p, const Dim3& block, int out_bytes) {
    return persistent_pipeline<k19>(p, step19::config_from(p.params), block.x, out_bytes, step19::kTraceSms);
  });
  set_plan("19_fp8", [](const TraceProblem& p) {
    return persistent_plan<k19>(p, step19::config_from(p.params), step19::kTraceSms, step19::kNarrowUnitsPerWhole);
  });
  set("20_overlapped_epilogue", [](const TraceProblem& p, const Dim3& block, int out_bytes) {
    return persistent_pipeline<k20>(p, step20::config_from(p.params), block.x, out_bytes, step20::kTraceSms);
  });
  set_plan("20_overlapped_epilogue", [](const TraceProblem& p) {
    return persistent_plan<k20>(p, step20::config_from(p.params), step20::kTraceSms, step20::kNarrowUnitsPerWhole);
  });
  set("21_uniform_datapath", [](const TraceProblem& p, const Dim3& block, int out_bytes) {
    return persistent_pipeline<k20>(p, step21::config_from(p.params), block.x, out_bytes, step21::kTraceSms);
  });
  set_plan("21_uniform_datapath", [](const TraceProblem& p) {
    return persistent_plan<k20>(p, step21::config_from(p.params), step21::kTraceSms, step21::kNarrowUnitsPerWhole);
  });
  set("22_tile_width", [](const TraceProblem& p, const Dim3& block, int out_bytes) {
    return persistent_pipeline<k20>(p, step22::config_from(p.params), block.x, out_bytes, step22::kTraceSms);
  });
  set_plan("22_tile_width", [](const TraceProblem& p) {
    return persistent_plan<k20>(p, step22::config_from(p.params), step22::kTraceSms, step22::kNarrowUnitsPerWhole);
  });
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
  list.push_back({"06_1d_blocktiling", "", "blocktiled_1d_sgemm", true,
                  [](const TraceProblem& p) { return step06::launch_shape(p.shape, step06::config_from(p.params)); },
                  step06::trace_warp});
  detail::add_tunables(list.back(), step06::kTunables, step06::kConfigs);
  list.push_back({"07_2d_blocktiling", "", "blocktiled_2d_sgemm", true,
                  [](const TraceProblem& p) { return step07::launch_shape(p.shape, step07::config_from(p.params)); },
                  step07::trace_warp});
  detail::add_tunables(list.back(), step07::kTunables, step07::kConfigs);
  list.push_back({"08_vectorized", "", "vectorized_sgemm", true,
                  [](const TraceProblem& p) { return step08::launch_shape(p.shape, step08::config_from(p.params)); },
                  step08::trace_warp});
  detail::add_tunables(list.back(), step08::kTunables, step08::kConfigs);
  list.push_back({"09_warptiling", "", "warptiled_sgemm", true,
                  [](const TraceProblem& p) { return step09::launch_shape(p.shape, step09::config_from(p.params)); },
                  step09::trace_warp});
  detail::add_tunables(list.back(), step09::kTunables, step09::kConfigs);
  list.push_back({"10_cp_async_pipeline", "", "pipelined_sgemm", true,
                  [](const TraceProblem& p) { return step10::launch_shape(p.shape, step10::config_from(p.params)); },
                  step10::trace_warp});
  detail::add_tunables(list.back(), step10::kTunables, step10::kConfigs);
  list.back().params_for_shape = [](const GemmShape& shape, Layout, const GpuLimits& gpu) {
    return step10::to_params(step10::config_for_shape(shape, gpu));
  };
  list.push_back({"11_split_k_tail", "", "pipelined_sgemm", true,
                  [](const TraceProblem& p) { return step11::launch_shape(p.shape, step11::config_from(p.params)); },
                  step11::trace_warp});
  detail::add_tunables(list.back(), step11::kTunables, step11::kConfigs);  // not SPLIT: the traces draw whole tiles
  list.back().params_for_shape = [](const GemmShape& shape, Layout, const GpuLimits& gpu) {
    return step11::to_params(step11::config_for_shape(shape, gpu));
  };
  list.push_back({"12_wmma", "", "wmma_gemm", true,
                  [](const TraceProblem& p) { return step12::launch_shape(p.shape, step12::config_from(p.params)); },
                  step12::trace_warp});
  detail::add_tunables(list.back(), step12::kTunables, step12::kConfigs);
  list.back().accumulators = step12::warp_accumulators;
  list.back().tensor_core = true;
  list.back().shape_rule = tc_shape_rule;
  list.push_back({"13_wmma_pipeline", "", "wmma_pipeline_gemm", true,
                  [](const TraceProblem& p) { return step13::launch_shape(p.shape, step13::config_from(p.params)); },
                  step13::trace_warp});
  detail::add_tunables(list.back(), step13::kTunables, step13::kConfigs);
  list.back().accumulators = step13::warp_accumulators;
  // Not by shape but by the GPU's shared memory per block, as the program's params_for_gpu.
  list.back().params_for_shape = [](const GemmShape&, Layout, const GpuLimits& gpu) {
    return step13::to_params(step13::config_for_gpu(gpu.shared_per_block));
  };
  list.back().tensor_core = true;
  list.back().shape_rule = tc_aligned_rows_rule;
  list.push_back({"14_mma_ldmatrix", "", "mma_pipeline_gemm", true,
                  [](const TraceProblem& p) { return step14::launch_shape(p.shape, step14::config_from(p.params)); },
                  step14::trace_warp});
  detail::add_tunables(list.back(), step14::kTunables, step14::kConfigs);
  list.back().accumulators = step14::warp_accumulators;
  list.back().params_for_shape = [](const GemmShape& shape, Layout, const GpuLimits& gpu) {
    return step14::to_params(step14::config_for_shape(shape, gpu));
  };
  list.back().tensor_core = true;
  list.back().shape_rule = tc_aligned_rows_rule;
  list.push_back({"15_tma_wgmma", "", "hopper_gemm", true,
                  [](const TraceProblem& p) { return step15::trace_launch_shape(p, step15::config_from(p.params)); },
                  step15::trace_warp});
  detail::add_tunables(list.back(), step15::kTunables, step15::kConfigs);
  list.back().accumulators = step15::warp_accumulators;
  list.back().tensor_core = true;
  list.back().shape_rule = tc_aligned_rows_rule;
  list.back().iteration_unit = "tile";  // one tile per block: its epilogue is the whole trace
  list.push_back({"16_warp_specialized", "", "hopper_gemm", true,
                  [](const TraceProblem& p) { return step16::trace_launch_shape(p, step16::config_from(p.params)); },
                  step16::trace_warp});
  detail::add_tunables(list.back(), step16::kTunables, step16::kConfigs);
  list.back().accumulators = step16::warp_accumulators;
  list.back().tensor_core = true;
  list.back().shape_rule = tc_aligned_rows_rule;
  list.back().iteration_unit = "tile";  // one tile per block: its epilogue is the whole trace
  list.back().quiet_warps = "the producer warps 0-3 hand their copies to the Tensor Memory Accelerator (TMA)";
  list.push_back({"17_persistent_clusters", "", "hopper_gemm", true,
                  [](const TraceProblem& p) { return step17::trace_launch_shape(p, step17::config_from(p.params)); },
                  step17::trace_warp});
  detail::add_tunables(list.back(), step17::kTunables, step17::kConfigs);
  list.back().accumulators = step17::warp_accumulators;
  list.back().tensor_core = true;
  list.back().shape_rule = tc_aligned_rows_rule;
  list.back().iteration_unit = "tile";  // the block's tiles, in the order it takes them
  list.back().quiet_warps = "the producer warps 0-3 hand their copies to the Tensor Memory Accelerator (TMA)";
  list.push_back({"18_tma_store_epilogue", "", "hopper_gemm", true,
                  [](const TraceProblem& p) { return step18::trace_launch_shape(p, step18::config_from(p.params)); },
                  step18::trace_warp});
  detail::add_tunables(list.back(), step18::kTunables, step18::kConfigs);
  list.back().accumulators = step18::warp_accumulators;
  list.back().params_for_shape = [](const GemmShape& shape, Layout layout, const GpuLimits& gpu) {
    return step18::to_params(step18::config_for_shape(shape, layout, gpu.sms));
  };
  list.back().tensor_core = true;
  list.back().shape_rule = tc_aligned_rows_rule;
  list.back().iteration_unit = "tile";  // the block's tiles, in the order it takes them
  list.back().quiet_warps = "the producer warps 0-3 hand their copies to the Tensor Memory Accelerator (TMA)";
  list.back().c_writer = "the Tensor Memory Accelerator (TMA) stores C from the staged slices when beta = 0 and C's "
                         "rows are 16-byte aligned; with beta != 0 the consumer threads read C and store it themselves";
  // Step 19 traces what step 18's does, for f32 output (the program's --out f32; it writes bf16 by
  // default), in the one layout it takes.
  list.push_back({"19_fp8", "", "fp8_gemm", true,
                  [](const TraceProblem& p) { return step19::trace_launch_shape(p, step19::config_from(p.params)); },
                  step19::trace_warp});
  detail::add_tunables(list.back(), step19::kTunables, step19::kConfigs);
  list.back().accumulators = step19::warp_accumulators;
  list.back().params_for_shape = [](const GemmShape& shape, Layout, const GpuLimits& gpu) {
    return step19::to_params(step19::config_for_shape(shape, gpu.sms));
  };
  list.back().tensor_core = true;
  list.back().layouts = {Layout::nt};
  list.back().shape_rule = fp8_shape_rule;
  list.back().iteration_unit = "tile";  // the block's tiles, in the order it takes them
  list.back().quiet_warps = "the producer warps 0-3 hand their copies to the Tensor Memory Accelerator (TMA)";
  list.back().c_writer = "the Tensor Memory Accelerator (TMA) stores C from the staged slices when beta = 0 and C's "
                         "rows are 16-byte aligned; with beta != 0 the consumer threads read C and store it themselves "
                         "(the trace is of f32 output, --out f32)";
  // Step 20 is step 19 but for when 16-bit output is stored; its trace, of f32 output, which it
  // stores after each tile (step20::epilogue_under_next_tile), has step 19's instructions.
  list.push_back(list.back());
  list.back().step = "20_overlapped_epilogue";
  list.back().launch = [](const TraceProblem& p) { return step20::trace_launch_shape(p, step20::config_from(p.params)); };
  list.back().trace = step20::trace_warp;
  list.back().configs.clear();
  detail::add_tunables(list.back(), step20::kTunables, step20::kConfigs);
  list.back().accumulators = step20::warp_accumulators;
  list.back().params_for_shape = [](const GemmShape& shape, Layout, const GpuLimits& gpu) {
    return step20::to_params(step20::config_for_shape(shape, gpu.sms));
  };
  // Step 21 changes how the k-loop computes its wgmma descriptors, which are not memory
  // instructions: its trace is step 20's.
  list.push_back(list.back());
  list.back().step = "21_uniform_datapath";
  list.back().launch = [](const TraceProblem& p) { return step21::trace_launch_shape(p, step21::config_from(p.params)); };
  list.back().trace = step21::trace_warp;
  list.back().configs.clear();
  detail::add_tunables(list.back(), step21::kTunables, step21::kConfigs);
  list.back().accumulators = step21::warp_accumulators;
  list.back().params_for_shape = [](const GemmShape& shape, Layout, const GpuLimits& gpu) {
    return step21::to_params(step21::config_for_shape(shape, gpu.sms));
  };
  // Step 22 adds a tile and chooses among three by shape; with f32 output its tiles store after
  // each tile, as step 21's do, the 176-column one with slices that end at its edge.
  list.push_back(list.back());
  list.back().step = "22_tile_width";
  list.back().launch = [](const TraceProblem& p) { return step22::trace_launch_shape(p, step22::config_from(p.params)); };
  list.back().trace = step22::trace_warp;
  list.back().configs.clear();
  detail::add_tunables(list.back(), step22::kTunables, step22::kConfigs);
  list.back().accumulators = step22::warp_accumulators;
  list.back().params_for_shape = [](const GemmShape& shape, Layout, const GpuLimits& gpu) {
    return step22::to_params(step22::config_for_shape(shape, gpu.sms));
  };
  detail::add_pipelines(list);
  shared_stages::add_shared_stages(list);
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
