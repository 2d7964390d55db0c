// The viewer's command line: the usage text, and each option parsed and checked.
#include "args.hpp"

#include <cstdio>
#include <cstdlib>
#include <sstream>
#include <stdexcept>

namespace gemm::viewer {

namespace {

const char* const kUsage =
    "usage: gemm_viewer [options]\n"
    "  --step NAME          step folder, e.g. 05_smem_tiling (default), 03_smem_banks_square\n"
    "  --variant NAME       a bank demo's variant, e.g. row_col\n"
    "  --shape MxNxK        the problem (default 64x64x64); --beta B (default 0)\n"
    "  --param KEY=VALUE    a tunable of the step (default: the step's defaults)\n"
    "  --defaults           the step's default tunables, also where it would choose its tile by shape\n"
    "  --layout nn|nt|tn    how a tensor-core step's A and B are stored (default nn)\n"
    "  --sms N              the GPU's SMs, for a step that picks its tile by shape when no --param is\n"
    "                       given, as the program does (default: the first results file's GPU)\n"
    "  --block X,Y          the block of the selected warp (default 0,0); --warp W (default: the block's\n"
    "                       first warp with memory instructions: 0 but in the warp-specialized steps)\n"
    "  --iteration I        the loop iteration shown (default: the first); --instruction J (its J-th)\n"
    "  --colour block|warp|thread   how the thread map is coloured (default thread)\n"
    "  --perf fp32|tensor|fp8   the performance panel's runs: fp32 steps, 16-bit tensor-core steps or the\n"
    "                       FP8 step (default fp32)\n"
    "  --results PATH       a results file or folder, repeatable (default: docs/results of this\n"
    "                       checkout, and the build's results/ folder when a run wrote one)\n"
    "  --size WxH           window size in pixels (default 1600x900)\n"
    "  --screenshot FILE    render one frame, write FILE (PNG) and FILE.json (geometry), exit\n"
    "  --panel thread|access|performance|all   what --screenshot captures (default all)\n"
    "  --frames N           with --screenshot: render N frames first and print their median frame time\n"
    "  --theme dark|light   colours (default dark); --font-scale F: text size (default 1; whole numbers are sharpest)\n"
    "  --docs               a picture for the docs: light theme, font scale 2, the --panel alone across a\n"
    "                       1500 x 1800 window (--size changes it), cropped to what the panel drew\n"
    "exit codes: 0 done, 2 bad usage, 3 no display or no OpenGL 3.3\n";

int to_int(const std::string& text, const std::string& what) {
  try {
    size_t used = 0;
    const int value = std::stoi(text, &used);
    if (used != text.size()) throw std::invalid_argument(text);
    return value;
  } catch (const std::exception&) {
    usage_error(what + " must be a whole number, got '" + text + "'");
  }
}

// A whole number of at least `least` (0 or 1), for the options that count.
int to_int_from(const std::string& text, const std::string& what, int least) {
  const int value = to_int(text, what);
  if (value < least) usage_error(what + (least == 0 ? " must be 0 or more" : " must be at least " + std::to_string(least)));
  return value;
}

}  // namespace

[[noreturn]] void usage_error(const std::string& message) {
  std::fprintf(stderr, "gemm_viewer: %s (see --help)\n", message.c_str());
  std::exit(kExitUsage);
}

Args parse(int argc, char** argv) {
  Args a;
  for (int i = 1; i < argc; ++i) {
    const std::string arg = argv[i];
    if (arg == "--help" || arg == "-h") {
      std::printf("%s", kUsage);
      std::exit(0);
    }
    if (arg == "--defaults") {
      a.defaults = true;
      continue;
    }
    if (arg == "--docs") {
      a.docs = true;
      continue;
    }
    if (i + 1 >= argc) usage_error(arg + " needs a value");
    const std::string value = argv[++i];
    if (arg == "--step") a.step = value;
    else if (arg == "--variant") a.variant = value;
    else if (arg == "--shape") {
      int m = 0, n = 0, k = 0;
      char x1 = 0, x2 = 0;
      std::istringstream in(value);
      if (!(in >> m >> x1 >> n >> x2 >> k) || x1 != 'x' || x2 != 'x' || m < 1 || n < 1 || k < 1)
        usage_error("--shape must be MxNxK with each at least 1, got '" + value + "'");
      a.shape = {m, n, k};
    } else if (arg == "--beta") {
      char* end = nullptr;
      a.beta = std::strtof(value.c_str(), &end);
      if (value.empty() || *end != '\0') usage_error("--beta must be a number, got '" + value + "'");
    }
    else if (arg == "--param") {
      const auto eq = value.find('=');
      if (eq == std::string::npos) usage_error("--param must be KEY=VALUE, got '" + value + "'");
      a.params[value.substr(0, eq)] = to_int(value.substr(eq + 1), "--param " + value.substr(0, eq));
    } else if (arg == "--block") {
      const auto comma = value.find(',');
      if (comma == std::string::npos) usage_error("--block must be X,Y, got '" + value + "'");
      a.block = {to_int(value.substr(0, comma), "--block X"), to_int(value.substr(comma + 1), "--block Y"), 0};
    } else if (arg == "--warp") a.warp = to_int_from(value, "--warp", 0);
    else if (arg == "--iteration") a.iteration = to_int_from(value, "--iteration", 0);
    else if (arg == "--layout") {
      try {
        a.layout = parse_layout(value, "--layout");
      } catch (const UsageError& error) {
        usage_error(error.what());
      }
    } else if (arg == "--sms") a.sms = to_int_from(value, "--sms", 1);
    else if (arg == "--instruction") a.instruction = to_int_from(value, "--instruction", 0);
    else if (arg == "--colour" || arg == "--color") a.colour = value;
    else if (arg == "--results") a.results.push_back(value);
    else if (arg == "--perf") a.perf = value;
    else if (arg == "--screenshot") a.screenshot = value;
    else if (arg == "--geometry") a.geometry = value;
    else if (arg == "--panel") a.panel = value;
    else if (arg == "--theme") a.theme = value;
    else if (arg == "--font-scale") {
      char* end = nullptr;
      a.font_scale = std::strtof(value.c_str(), &end);
      if (value.empty() || *end != '\0' || !(a.font_scale >= 0.5f && a.font_scale <= 4.0f))
        usage_error("--font-scale must be a number from 0.5 to 4, got '" + value + "'");
    }
    else if (arg == "--frames") a.frames = to_int_from(value, "--frames", 0);
    else if (arg == "--size") {
      const auto x = value.find('x');
      if (x == std::string::npos) usage_error("--size must be WxH, got '" + value + "'");
      a.width = to_int(value.substr(0, x), "--size W");
      a.height = to_int(value.substr(x + 1), "--size H");
      if (a.width < 640 || a.height < 400) usage_error("--size must be at least 640x400");
      a.size_given = true;
    } else usage_error("unknown option '" + arg + "'");
  }
  if (a.panel != "thread" && a.panel != "access" && a.panel != "performance" && a.panel != "all")
    usage_error("--panel must be thread, access, performance or all");
  if (a.colour != "block" && a.colour != "warp" && a.colour != "thread") usage_error("--colour must be block, warp or thread");
  if (a.perf != "fp32" && a.perf != "tensor" && a.perf != "fp8") usage_error("--perf must be fp32, tensor or fp8");
  if (a.theme != "dark" && a.theme != "light") usage_error("--theme must be dark or light");
  if (a.docs) {
    if (a.panel == "all") usage_error("--docs draws one panel: add --panel thread, access or performance");
    a.theme = "light";
    if (a.font_scale == 1.0f) a.font_scale = 2.0f;
    if (!a.size_given) a.width = 1500, a.height = 1800;
  }
  if (a.geometry.empty() && !a.screenshot.empty()) a.geometry = a.screenshot + ".json";
  return a;
}

}  // namespace gemm::viewer
