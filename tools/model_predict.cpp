// model_predict: the access model's launch-level counters for a traced step, as JSON.
//
//   model_predict --list
//   model_predict --step 01_naive --shape 256x256x256 --beta 0.5
//   model_predict --step 03_smem_banks_square --variant row_col
//   model_predict --configs 07_2d_blocktiling    (the compiled --param combinations)
//   model_predict --defaults 18_tma_store_epilogue     (the tunables it predicts with when none are given)
//   model_predict --step 18_tma_store_epilogue --shape 1000x1000x1000 --sms 132 --run-params
//                                                (the tunables the program runs that shape with;
//                                                 --layout nn|nt|tn for a tensor-core step, default nn)
//
// tools/check_model_ncu.py compares these with Nsight Compute's counters.
#include <cstdio>
#include <map>
#include <string>

#include "exit_codes.hpp"
#include "options.hpp"
#include "traced_steps.hpp"

int main(int argc, char** argv) {
  std::string step, variant, shape_text = "128";
  double beta = 0;
  gemm::Layout layout = gemm::Layout::nn;
  bool list = false, run_params = false;
  int sms = 0;
  std::map<std::string, int> params;
  std::string configs_of, defaults_of;
  try {
    for (int i = 1; i < argc; ++i) {
      const std::string arg = argv[i];
      auto value = [&]() -> std::string {
        if (i + 1 >= argc) throw gemm::UsageError(arg + " needs a value");
        return argv[++i];
      };
      if (arg == "--list") list = true;
      else if (arg == "--configs") configs_of = value();
      else if (arg == "--defaults") defaults_of = value();
      else if (arg == "--step") step = value();
      else if (arg == "--variant") variant = value();
      else if (arg == "--shape") shape_text = value();
      else if (arg == "--beta") beta = gemm::parse_real(value(), "--beta");
      else if (arg == "--sms") {
        sms = int(gemm::parse_integer(value(), "--sms"));
        if (sms < 1) throw gemm::UsageError("--sms must be at least 1 (the GPU's SM count)");
      }
      else if (arg == "--run-params") run_params = true;
      else if (arg == "--layout") layout = gemm::parse_layout(value(), "--layout");
      else if (arg == "--param") {
        const std::string assignment = value();
        const auto equals = assignment.find('=');
        if (equals == std::string::npos) throw gemm::UsageError("--param takes key=value");
        params[assignment.substr(0, equals)] = int(gemm::parse_integer(assignment.substr(equals + 1), "--param"));
      }
      else throw gemm::UsageError("unknown option '" + arg + "' (use --list, --configs, --defaults, --step, --variant, --shape, --beta, --layout, --param, --sms, --run-params)");
    }
    const auto programs = gemm::traced_programs();
    if (list) {
      for (const auto& program : programs)
        std::printf("%s %s %s %s\n", program.step.c_str(), program.variant.empty() ? "-" : program.variant.c_str(),
                    program.kernel.c_str(), program.takes_shape ? "shape" : "fixed");
      return gemm::kExitOk;
    }
    const auto line_of = [](const std::map<std::string, int>& config) {
      std::string line;
      for (const auto& [key, value] : config) line += (line.empty() ? "" : " ") + key + "=" + std::to_string(value);
      return line;
    };
    if (!configs_of.empty() || !defaults_of.empty()) {
      const std::string& wanted = configs_of.empty() ? defaults_of : configs_of;
      for (const auto& program : programs) {
        if (program.step != wanted) continue;
        if (!configs_of.empty())
          for (const auto& config : program.configs) std::printf("%s\n", line_of(config).c_str());
        else  // what a prediction uses: it is given no GPU's SM count, so no step chooses by shape
          std::printf("%s\n", line_of(program.default_params).c_str());
        return gemm::kExitOk;
      }
      throw gemm::UsageError("no traced program '" + wanted + "' (see --list)");
    }
    gemm::TraceProblem problem;
    problem.shape = gemm::parse_shape(shape_text, "--shape");
    problem.beta = float(beta);
    problem.variant = variant;
    problem.params = params;
    problem.sms = sms;
    problem.layout = layout;
    for (const auto& program : programs) {
      if (program.step != step || program.variant != variant) continue;
      if (run_params) {  // as the program decides: --param, else its choice for the shape on `sms` SMs
        std::printf("%s\n", line_of(gemm::run_params(program, problem)).c_str());
        return gemm::kExitOk;
      }
      const gemm::AccessTotals totals = gemm::predict(program, problem);
      std::printf(
          "{\"global_load_sectors\": %lld, \"global_store_sectors\": %lld, \"global_load_requests\": %lld, "
          "\"global_store_requests\": %lld, \"shared_load_wavefronts\": %lld, \"shared_store_wavefronts\": %lld, "
          "\"shared_load_requests\": %lld, \"shared_store_requests\": %lld}\n",
          totals.global_load_sectors, totals.global_store_sectors, totals.global_load_requests,
          totals.global_store_requests, totals.shared_load_wavefronts, totals.shared_store_wavefronts,
          totals.shared_load_requests, totals.shared_store_requests);
      return gemm::kExitOk;
    }
    throw gemm::UsageError("no traced program '" + step + (variant.empty() ? "" : "' variant '" + variant) +
                           "' (see --list)");
  } catch (const gemm::UsageError& error) {
    std::fprintf(stderr, "model_predict: %s\n", error.what());
    return gemm::kExitUsage;
  }
}
