#include "options.hpp"

#include <cerrno>
#include <cmath>
#include <cstdlib>
#include <limits>
#include <sstream>

namespace gemm {

long long parse_integer(const std::string& text, const std::string& option) {
  if (text.empty()) throw UsageError(option + " needs a whole number, got an empty value");
  errno = 0;
  char* end = nullptr;
  const long long value = std::strtoll(text.c_str(), &end, 10);
  if (end == text.c_str() || *end != '\0')
    throw UsageError(option + " needs a whole number, got '" + text + "'");
  if (errno == ERANGE) throw UsageError(option + " value '" + text + "' is out of range");
  return value;
}

Layout parse_layout(const std::string& text, const std::string& option) {
  if (text == "nn") return Layout::nn;
  if (text == "nt") return Layout::nt;
  if (text == "tn") return Layout::tn;
  throw UsageError(option + " takes nn, nt or tn, got '" + text + "'");
}

double parse_real(const std::string& text, const std::string& option) {
  if (text.empty()) throw UsageError(option + " needs a number, got an empty value");
  errno = 0;
  char* end = nullptr;
  const double value = std::strtod(text.c_str(), &end);
  if (end == text.c_str() || *end != '\0')
    throw UsageError(option + " needs a number, got '" + text + "'");
  if (errno == ERANGE || !std::isfinite(value))
    throw UsageError(option + " value '" + text + "' is not a finite number");
  return value;
}

namespace {

constexpr long long kMaxDimension = std::numeric_limits<int>::max();

int parse_dimension(const std::string& text, const std::string& option) {
  const long long value = parse_integer(text, option);
  if (value < 1)
    throw UsageError(option + " must be at least 1, got " + text + " (sizes are counts of rows/columns)");
  if (value > kMaxDimension)
    throw UsageError(option + " must be at most " + std::to_string(kMaxDimension) + ", got " + text);
  return int(value);
}

int parse_count(const std::string& text, const std::string& option, long long min_value,
                long long max_value) {
  const long long value = parse_integer(text, option);
  if (value < min_value || value > max_value)
    throw UsageError(option + " must be between " + std::to_string(min_value) + " and " +
                     std::to_string(max_value) + ", got " + text);
  return int(value);
}

}  // namespace

GemmShape parse_shape(const std::string& text, const std::string& option) {
  std::vector<std::string> parts;
  std::string part;
  std::istringstream stream(text);
  while (std::getline(stream, part, 'x')) parts.push_back(part);
  if (!text.empty() && text.back() == 'x') parts.push_back("");
  if (parts.size() == 1) {
    const int size = parse_dimension(parts[0], option);
    return {size, size, size};
  }
  if (parts.size() != 3)
    throw UsageError(option + " takes N or MxNxK (e.g. 1024 or 1000x999x1001), got '" + text + "'");
  return {parse_dimension(parts[0], option), parse_dimension(parts[1], option),
          parse_dimension(parts[2], option)};
}

std::vector<GemmShape> sweep_shapes() {
  std::vector<GemmShape> shapes;
  for (int size = 128; size <= 8192; size *= 2) shapes.push_back({size, size, size});
  shapes.push_back({17, 33, 65});
  shapes.push_back({1000, 999, 1001});
  shapes.push_back({4095, 4097, 4093});
  return shapes;
}

Options parse_options(int argc, const char* const* argv, const std::vector<ParamSpec>& params,
                      const OptionSet& set) {
  Options options;
  for (const ParamSpec& spec : params) options.params[spec.name] = spec.default_value;
  if (set.fp8) {  // the FP8 step's defaults: the one layout it takes, and bf16 out (what FP8 layers write)
    options.layout = Layout::nt;
    options.out = OutputType::bf16;
  }

  std::optional<int> size, m, n, k;
  std::vector<GemmShape> listed;

  for (int index = 1; index < argc; ++index) {
    std::string arg = argv[index];
    std::string value;
    bool has_inline_value = false;
    if (arg.rfind("--", 0) == 0) {
      const auto equals = arg.find('=');
      if (equals != std::string::npos && arg.rfind("--param", 0) != 0) {
        value = arg.substr(equals + 1);
        arg = arg.substr(0, equals);
        has_inline_value = true;
      }
    }
    auto next_value = [&]() -> std::string {
      if (has_inline_value) return value;
      if (index + 1 >= argc) throw UsageError(arg + " needs a value (see --help)");
      return argv[++index];
    };
    auto flag = [&]() {
      if (has_inline_value) throw UsageError(arg + " takes no value");
    };

    if (arg == "--help" || arg == "-h") {
      flag();
      options.help = true;
    } else if (arg == "--size") {
      size = parse_dimension(next_value(), arg);
    } else if (arg == "--m") {
      m = parse_dimension(next_value(), arg);
    } else if (arg == "--n") {
      n = parse_dimension(next_value(), arg);
    } else if (arg == "--k") {
      k = parse_dimension(next_value(), arg);
    } else if (arg == "--shapes") {
      std::istringstream list(next_value());
      std::string item;
      while (std::getline(list, item, ',')) listed.push_back(parse_shape(item, arg));
      if (listed.empty()) throw UsageError("--shapes needs a list such as 1024,1000x999x1001");
    } else if (arg == "--sweep") {
      flag();
      options.sweep = true;
    } else if (arg == "--alpha") {
      options.alpha = float(parse_real(next_value(), arg));
    } else if (arg == "--beta") {
      options.beta = float(parse_real(next_value(), arg));
    } else if (arg == "--reps") {
      options.reps = parse_count(next_value(), arg, 1, 100000);
    } else if (arg == "--warmup") {
      options.warmup = parse_count(next_value(), arg, 0, 100000);
    } else if (arg == "--no-check") {
      flag();
      options.check = false;
    } else if (arg == "--check-only") {
      flag();
      options.check_only = true;
    } else if (arg == "--json") {
      options.json_path = next_value();
      if (options.json_path.empty()) throw UsageError("--json needs a file name");
    } else if (arg == "--seed") {
      const long long seed = parse_integer(next_value(), arg);
      if (seed < 0) throw UsageError("--seed must be 0 or more, got " + std::to_string(seed));
      options.seed = std::uint64_t(seed);
    } else if (arg == "--device") {
      options.device = parse_count(next_value(), arg, 0, 1023);
    } else if (arg == "--param" || arg.rfind("--param=", 0) == 0) {
      const std::string assignment = arg == "--param" ? next_value() : arg.substr(8);
      const auto equals = assignment.find('=');
      if (equals == std::string::npos)
        throw UsageError("--param takes key=value (e.g. --param BM=128), got '" + assignment + "'");
      const std::string key = assignment.substr(0, equals);
      auto found = options.params.find(key);
      if (found == options.params.end()) {
        std::string known;
        for (const ParamSpec& spec : params) known += (known.empty() ? "" : ", ") + spec.name;
        throw UsageError("unknown --param '" + key + "'; this step takes: " +
                         (known.empty() ? std::string("none") : known));
      }
      found->second = int(parse_integer(assignment.substr(equals + 1), "--param " + key));
      options.params_given = true;
    } else if (arg == "--defaults") {  // a step without tunables has nothing to fix: accepted alike
      flag();
      options.params_given = true;  // the defaults as they are, for every shape
    } else if (!set.variants.empty() && arg == "--variant") {
      options.variant = next_value();
      bool known = false;
      std::string names;
      for (const std::string& name : set.variants) {
        known = known || name == options.variant;
        names += (names.empty() ? "" : ", ") + name;
      }
      if (!known) throw UsageError("unknown --variant '" + options.variant + "'; choose one of: " + names);
    } else if (set.tensor_core && arg == "--layout") {
      options.layout = parse_layout(next_value(), arg);
    } else if (set.tensor_core && arg == "--dtype") {
      const std::string text = next_value();
      if (set.fp8) {
        if (text == "e4m3") options.dtype = InputType::e4m3;
        else if (text == "e5m2") options.dtype = InputType::e5m2;
        else throw UsageError("--dtype takes e4m3 or e5m2 in this FP8 step, got '" + text + "'");
      } else {
        if (text == "f16") options.dtype = InputType::f16;
        else if (text == "bf16") options.dtype = InputType::bf16;
        else throw UsageError("--dtype takes f16 or bf16, got '" + text + "'");
      }
    } else if (set.tensor_core && arg == "--out") {
      const std::string text = next_value();
      if (text == "f32") options.out = OutputType::f32;
      else if (text == "f16") options.out = OutputType::f16;
      else if (text == "bf16") options.out = OutputType::bf16;
      else throw UsageError("--out takes f32, f16 or bf16, got '" + text + "'");
    } else {
      throw UsageError("unknown option '" + arg + "' (run with --help for the list)");
    }
    if (!set.gemm_shapes && (arg == "--size" || arg == "--m" || arg == "--n" || arg == "--k" || arg == "--shapes" ||
                             arg == "--sweep" || arg == "--alpha" || arg == "--beta"))
      throw UsageError(arg + " does not apply to this program: its tile shape is fixed (see --help)");
    if (set.cpu && arg == "--sweep")
      throw UsageError("--sweep runs up to 8192^3, hours for a CPU loop: give --shapes instead, e.g. --shapes 256,512,1024");
  }

  if (set.tensor_core && options.dtype == InputType::f32) options.dtype = set.fp8 ? InputType::e4m3 : InputType::f16;
  if (options.check_only && !options.check)
    throw UsageError("--check-only and --no-check contradict each other; use one");

  const bool any_dim = m || n || k;
  const int given = int(bool(size)) + int(any_dim) + int(!listed.empty()) + int(options.sweep);
  if (given > 1)
    throw UsageError("give one of --size, --m/--n/--k, --shapes or --sweep");
  if (size) options.shapes.push_back({*size, *size, *size});
  if (any_dim) {
    if (!(m && n && k)) throw UsageError("--m, --n and --k go together: give all three");
    options.shapes.push_back({*m, *n, *k});
  }
  if (!listed.empty()) options.shapes = listed;
  if (options.sweep) options.shapes = sweep_shapes();
  return options;
}

std::string usage_text(const std::string& program, const std::string& description,
                       const std::vector<ParamSpec>& params, const OptionSet& set) {
  std::ostringstream out;
  out << program << ": " << description << "\n\n"
      << "usage: " << program << " [options]\n\n";
  if (!set.variants.empty()) {
    out << "variants (default: all, in this order):\n";
    for (const std::string& name : set.variants) out << "  --variant " << name << "\n";
  }
  if (set.gemm_shapes) {
    out << "shapes (default: " << (set.default_shapes.empty() ? "1024, 2048 and 4096 square" : set.default_shapes)
        << "):\n"
        << "  --size N            one square problem N x N x N\n"
        << "  --m M --n N --k K   one problem C[MxN] = A[MxK] * B[KxN]\n"
        << "  --shapes LIST       several, e.g. 1024,1000x999x1001\n";
    if (!set.cpu) out << "  --sweep             powers of two 128..8192, then odd shapes\n";
    out << "computation:\n"
        << "  --alpha A --beta B  C = alpha*A*B + beta*C (default 1, 0)\n";
  }
  if (set.fp8)
    out << "  --layout nt         storage of A and B: A is M x K, B is stored N x K (the only layout FP8 wgmma\n"
        << "                      and cuBLASLt's FP8 GEMM read; the default)\n"
        << "  --dtype e4m3|e5m2   e4m3: A and B in e4m3; e5m2: A in e5m2 (a gradient), B in e4m3 (default e4m3);\n"
        << "                      each with a per-tensor scale, f32 accumulation\n"
        << "  --out f32|f16|bf16  output type (default bf16)\n";
  else if (set.tensor_core)
    out << "  --layout nn|nt|tn   storage of A and B (T = stored transposed; default nn)\n"
        << "  --dtype f16|bf16    input type (default f16); accumulation is f32\n"
        << "  --out f32|f16|bf16  output type (default f32; f16 with f16 inputs, bf16 with bf16 inputs)\n";
  out << "measurement:\n"
      << "  --reps R            timed repetitions (default: "
      << (set.default_reps.empty() ? "enough for about a second, 5..30" : set.default_reps) << ")\n";
  if (!set.cpu)
    out << "  --warmup W          untimed launches first (default 2)\n"
        << "  --no-check          time only, skip verification\n";
  out << "  --check-only        verify only, skip timing\n"
      << "  --json FILE         write a results file\n"
      << "  --seed S            random inputs seed (default 2024)\n";
  if (!set.cpu) out << "  --device D          CUDA device index (default 0)\n";
  if (!params.empty()) {
    out << "tunables (--param key=value; any --param, or --defaults, fixes them for every shape, where\n"
        << "a step would otherwise choose its tile by shape):\n";
    for (const ParamSpec& spec : params)
      out << "  " << spec.name << " (default " << spec.default_value << "): " << spec.help << "\n";
  }
  if (set.cpu)
    out << "exit codes: 0 all verified, 1 wrong result, 2 bad usage\n";
  else
    out << "exit codes: 0 all verified, 1 wrong result, 2 bad usage or unsupported shape,\n"
        << "            3 CUDA error, 77 no suitable GPU\n";
  return out.str();
}

}  // namespace gemm
