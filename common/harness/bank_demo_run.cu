#include "bank_demo_run.cuh"

#include <cstdio>

#include "cuda_check.cuh"
#include "device_buffer.cuh"
#include "exit_codes.hpp"
#include "program.cuh"
#include "gpu.cuh"
#include "options.hpp"
#include "timer.cuh"

namespace gemm {

namespace {

constexpr int kDefaultReps = 50;

struct VariantResult {
  TimingStats time;
  AccessTotals predicted;
  SharedCost store_cost, load_cost;  // of one instruction of warp 0
  bool passed = false;
};

Json to_json(const BankDemoDescription& demo, const bank_demo::Variant& v, const VariantResult& r, bool timed) {
  Json tile = Json::object();
  tile.set("width", demo.tile.width).set("height", demo.tile.height).set("pad", v.pad).set("dynamic", v.dynamic);
  Json predicted = Json::object();
  predicted.set("shared_store_wavefronts", r.predicted.shared_store_wavefronts)
      .set("shared_load_wavefronts", r.predicted.shared_load_wavefronts)
      .set("global_store_sectors", r.predicted.global_store_sectors)
      .set("global_load_sectors", r.predicted.global_load_sectors)
      .set("store_wavefronts_per_instruction", r.store_cost.wavefronts)
      .set("load_wavefronts_per_instruction", r.load_cost.wavefronts);
  Json run = Json::object();
  run.set("step", demo.name)
      .set("variant", v.name)
      .set("kind", "bank_demo")
      .set("description", v.what)
      .set("params", Json::object())
      .set("tile", tile)
      .set("blocks", bank_demo::kBlocks)
      .set("repeats", bank_demo::kRepeats)
      .set("predicted", predicted)
      .set("shapes", Json::array());
  if (timed) {
    Json time = Json::object();
    time.set("median_ms", r.time.median_ms).set("min_ms", r.time.min_ms).set("max_ms", r.time.max_ms).set("reps", r.time.reps);
    run.set("time", time);
  }
  run.set("verdict", r.passed ? "PASS" : "FAIL");
  return run;
}

int run(int argc, char** argv, const BankDemoDescription& demo) {
  OptionSet set;
  set.gemm_shapes = false;
  for (const auto& v : demo.variants) set.variants.push_back(v.name);
  const Options options = parse_options(argc, argv, {}, set);
  if (options.help) {
    std::printf("%s", usage_text(demo.name, demo.title, {}, set).c_str());
    return kExitOk;
  }
  const DeviceInfo device = select_device(options.device, 75, demo.name);
  std::printf("%s: %s\n%s\n", demo.name.c_str(), demo.title.c_str(), device_header(device).c_str());
  std::printf("tile %d wide x %d high ints, block %d x %d threads, %d blocks, %d x {store, barrier, load, barrier}\n",
              demo.tile.width, demo.tile.height, demo.tile.width, demo.tile.height, bank_demo::kBlocks,
              bank_demo::kRepeats);
  std::printf("%-26s | %14s %14s | %16s %16s | %10s | %s\n", "variant", "st wavefronts", "ld wavefronts",
              "st wavefr/launch", "ld wavefr/launch", "median us", "verdict");
  std::printf("%-26s | %14s %14s | %16s %16s | %10s |\n", "", "per instr.", "per instr.", "(model)", "(model)", "");

  const int outputs = demo.tile.width * demo.tile.height * bank_demo::kBlocks;
  DeviceBuffer<int> out{std::size_t(outputs)};
  std::vector<int> host(static_cast<std::size_t>(outputs));
  const CudaStream owned_stream;
  const cudaStream_t stream = owned_stream.get();
  LaunchTimer timer(stream, device.l2_bytes);
  const bool timed = !options.check_only;
  const int reps = options.reps ? options.reps : kDefaultReps;

  Json runs = Json::array();
  bool all_passed = true;
  for (int index = 0; index < int(demo.variants.size()); ++index) {
    const bank_demo::Variant& v = demo.variants[size_t(index)];
    if (!options.variant.empty() && options.variant != v.name) continue;
    VariantResult result;
    // Model: one block, times the number of blocks (every block runs the same trace; only the
    // 128-byte-aligned output offset differs), and one instruction of warp 0 for the per-instruction
    // columns. tools/check_model_ncu.py sums every block of the launch instead.
    LaunchShape one_block = bank_demo::launch_shape(demo.tile, v);
    one_block.grid = {1, 1, 1};
    const AccessTotals per_block = predict_launch(one_block, [&](const Dim3& block, int warp, const TraceSink& sink) {
      bank_demo::trace_warp(demo.tile, v, block, warp, sink);
    });
    for (int block = 0; block < bank_demo::kBlocks; ++block) result.predicted += per_block;
    bool first_store = true, first_load = true;
    bank_demo::trace_warp(demo.tile, v, Dim3{0, 0, 0}, 0, [&](const TraceInstruction& instruction) {
      if (instruction.access.space != Space::shared) return;
      SharedCost& cost = instruction.access.access == Access::store ? result.store_cost : result.load_cost;
      bool& first = instruction.access.access == Access::store ? first_store : first_load;
      if (first) cost = shared_cost(instruction.access);
      first = false;
    });

    // Check: poison, one launch, compare every output with the mapping's expected value.
    CUDA_CHECK(cudaMemset(out.data(), 0xff, out.bytes()));
    demo.launch(index, out.data(), stream);
    CUDA_CHECK(cudaStreamSynchronize(stream));
    out.download(host.data(), host.size());
    result.passed = true;
    for (int block = 0; block < bank_demo::kBlocks && result.passed; ++block)
      for (int ty = 0; ty < demo.tile.height; ++ty)
        for (int tx = 0; tx < demo.tile.width; ++tx)
          if (host[size_t(bank_demo::output_index(demo.tile, block, tx, ty))] !=
              bank_demo::expected_output(demo.tile, v, tx, ty)) {
            if (result.passed)
              std::fprintf(stderr, "%s: variant %s: block %d thread (%d, %d) read the wrong word\n", demo.name.c_str(),
                           v.name, block, tx, ty);
            result.passed = false;
          }
    all_passed = all_passed && result.passed;

    if (timed) {
      auto run_once = [&] { demo.launch(index, out.data(), stream); };
      for (int i = 0; i < options.warmup; ++i) run_once();
      result.time = timer.time(run_once, reps);
    }
    char time_text[32] = "-";
    if (timed) std::snprintf(time_text, sizeof time_text, "%.2f", result.time.median_ms * 1000.0);
    std::printf("%-26s | %14d %14d | %16lld %16lld | %10s | %s\n", v.name, result.store_cost.wavefronts,
                result.load_cost.wavefronts, result.predicted.shared_store_wavefronts,
                result.predicted.shared_load_wavefronts, time_text, result.passed ? "PASS" : "FAIL");
    std::fflush(stdout);
    runs.push(to_json(demo, v, result, timed));
  }
  if (!options.json_path.empty()) {
    Json document = Json::object();
    document.set("schema", kResultsSchema).set("date", utc_now()).set("device", to_json(device)).set("runs", runs);
    try {
      write_results_file(options.json_path, document);
    } catch (const std::runtime_error& error) {
      throw UsageError(error.what());
    }
    std::printf("results written to %s\n", options.json_path.c_str());
  }
  return all_passed ? kExitOk : kExitWrongResult;
}

}  // namespace

int run_bank_demo(int argc, char** argv, const BankDemoDescription& demo) {
  return run_program(demo.name, [&] { return run(argc, argv, demo); });
}

}  // namespace gemm
