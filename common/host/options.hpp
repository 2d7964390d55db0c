// Command-line options shared by every step program (docs/design.md, "The step program contract").
//
// Parsing is strict: an unknown option, a missing or non-numeric value, or a size below 1 throws
// UsageError, whose message is one line that names the problem and the fix. Pure C++ (no CUDA), so
// the host tests exercise every rule.
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <stdexcept>
#include <string>
#include <vector>

#include "gemm_types.hpp"
#include "hd.hpp"

namespace gemm {

struct UsageError : std::runtime_error {
  using std::runtime_error::runtime_error;
};

// ParamSpec, a tunable as the options see it, is in gemm_types.hpp.

// Which optional option groups a step takes.
struct OptionSet {
  bool tensor_core = false;            // --layout, --dtype, --out
  bool fp8 = false;                    // with tensor_core: --dtype e4m3|e5m2; defaults layout nt, out bf16
  std::vector<std::string> variants;   // --variant NAME (the bank demos); empty: not taken
  bool gemm_shapes = true;             // --size, --m/--n/--k, --shapes, --sweep, --alpha, --beta
  // A program that runs on the CPU (step 00): its own defaults in the help, no GPU options, no --sweep.
  bool cpu = false;
  std::string default_shapes;          // the help's default shapes; empty: the GPU steps' 1024, 2048, 4096
  std::string default_reps;            // the help's default --reps; empty: the GPU steps' rule
};

struct Options {
  std::vector<GemmShape> shapes;  // empty: the step's default set
  bool sweep = false;
  float alpha = 1.0f;
  float beta = 0.0f;
  int reps = 0;  // 0: chosen from the measured time of a warm-up launch
  int warmup = 2;
  bool check = true;
  bool check_only = false;
  std::string json_path;
  std::uint64_t seed = 2024;
  int device = 0;
  bool help = false;
  Params params;                      // every declared param, defaults filled in
  bool params_given = false;          // at least one --param, or --defaults, on the command line
  Layout layout = Layout::nn;
  InputType dtype = InputType::f32;
  OutputType out = OutputType::f32;
  std::string variant;  // "" = all variants
};

// Parses argv[1..argc). `params` are the step's tunables; `set` its extra option groups.
Options parse_options(int argc, const char* const* argv, const std::vector<ParamSpec>& params,
                      const OptionSet& set = {});

// The usage text for --help.
std::string usage_text(const std::string& program, const std::string& description,
                       const std::vector<ParamSpec>& params, const OptionSet& set = {});

// The shapes --sweep runs: powers of two 128..8192, then odd shapes.
std::vector<GemmShape> sweep_shapes();

// "MxNxK" or "N" (square) -> shape; throws UsageError naming the option on bad input.
GemmShape parse_shape(const std::string& text, const std::string& option);

// Strict number parsing; throws UsageError naming the option.
long long parse_integer(const std::string& text, const std::string& option);
double parse_real(const std::string& text, const std::string& option);
// "nn", "nt" or "tn" -> Layout; throws UsageError naming the option on anything else.
Layout parse_layout(const std::string& text, const std::string& option);

}  // namespace gemm
