// The viewer's command line: the usage text, and each option parsed and checked.
#include "args.hpp"

#include "viewer_model.hpp"

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
    "  --layout nn|nt|tn    how a tensor-core step's A and B are stored (default nn; the FP8 steps: nt,\n"
    "                       the one they take)\n"
    "  --sms N              the GPU's SMs, for a step that picks its tile by shape when no --param is\n"
    "                       given, as the program does (default: the first results file's GPU)\n"
    "  --block X,Y          the block of the selected warp (default 0,0); --warp W (default: the block's\n"
    "                       first warp with memory instructions: 0 but in the warp-specialized steps)\n"
    "  --iteration I        the loop iteration shown (default: the first); --instruction J (its J-th)\n"
    "  --colour block|warpgroup|warp|thread|register   how the thread map is coloured (default thread,\n"
    "                       that is the lane; lane is the same); warpgroup and register: the tensor-core\n"
    "                       steps, whose map shows which thread and register hold each element of C\n"
    "  --element ROW,COL    an element of C the thread map names the holder of (tensor-core steps)\n"
    "  --perf fp32|tensor|fp8   the performance panel's runs: fp32 steps, 16-bit tensor-core steps or the\n"
    "                       FP8 steps (default: the selected step's, its bars highlighted)\n"
    "  --results PATH       a results file or folder, repeatable (default: docs/results of this\n"
    "                       checkout, and the build's results/ folder when a run wrote one)\n"
    "  --size WxH           window size in pixels (default 1600x900)\n"
    "  --screenshot FILE    render one frame, write FILE (PNG) and FILE.json (geometry), exit\n"
    "  --panel thread|access|performance|shared|timeline|all   what --screenshot captures (default all;\n"
    "                       shared also opens the shared-memory panel, which the View menu shows or hides;\n"
    "                       timeline draws the pipeline's stages over k-tiles and a persistent grid's\n"
    "                       rounds across the window, View menu too)\n"
    "  --operand a|b        the shared-memory panel's operand (default a); --k-tile KT (default 0): the\n"
    "                       stage it lands in; --shared-item J: the J-th entry of the panel's list (a\n"
    "                       warp's instruction, a TMA box, a wgmma k-step; default 0, the stage alone);\n"
    "                       --shared-colour k|mn: words coloured by the k or the m/n they hold (default k)\n"
    "  --tile T             with the timeline: the block's T-th tile, for a persistent step (default 0)\n"
    "  --out bf16|f16|f32   with the timeline: the FP8 steps' output, which decides their epilogue (default bf16)\n"
    "  --copy-latency X     with the timeline: k-tiles' products a copy takes to land (default 1)\n"
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
#ifdef __EMSCRIPTEN__
  // The browser's page has no exit: it says what is wrong with its link and starts on the defaults
  // (web/web_main.cpp).
  throw UsageError(message);
#else
  std::fprintf(stderr, "gemm_viewer: %s (see --help)\n", message.c_str());
  std::exit(kExitUsage);
#endif
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
        a.layout_given = true;
      } catch (const UsageError& error) {
        usage_error(error.what());
      }
    } else if (arg == "--sms") a.sms = to_int_from(value, "--sms", 1);
    else if (arg == "--instruction") a.instruction = to_int_from(value, "--instruction", 0);
    else if (arg == "--colour" || arg == "--color") a.colour = value;
    else if (arg == "--element") {
      const auto comma = value.find(',');
      if (comma == std::string::npos) usage_error("--element must be ROW,COL, got '" + value + "'");
      a.element = {to_int_from(value.substr(0, comma), "--element ROW", 0), to_int_from(value.substr(comma + 1), "--element COL", 0)};
    }
    else if (arg == "--results") a.results.push_back(value);
    else if (arg == "--perf") a.perf = value;
    else if (arg == "--screenshot") a.screenshot = value;
    else if (arg == "--geometry") a.geometry = value;
    else if (arg == "--panel") a.panel = value;
    else if (arg == "--operand") a.operand = value;
    else if (arg == "--k-tile") a.k_tile = to_int_from(value, "--k-tile", 0);
    else if (arg == "--shared-item") a.shared_item = to_int_from(value, "--shared-item", 0);
    else if (arg == "--shared-colour" || arg == "--shared-color") a.shared_colour = value;
    else if (arg == "--theme") a.theme = value;
    else if (arg == "--font-scale") {
      char* end = nullptr;
      a.font_scale = std::strtof(value.c_str(), &end);
      if (value.empty() || *end != '\0' || !(a.font_scale >= 0.5f && a.font_scale <= 4.0f))
        usage_error("--font-scale must be a number from 0.5 to 4, got '" + value + "'");
    }
    else if (arg == "--frames") a.frames = to_int_from(value, "--frames", 0);
    else if (arg == "--tile") a.tile = to_int_from(value, "--tile", 0);
    else if (arg == "--out") {
      if (value != "bf16" && value != "f16" && value != "f32") usage_error("--out must be bf16, f16 or f32");
      a.out_bytes = value == "f32" ? 4 : 2;
    } else if (arg == "--copy-latency") {
      char* end = nullptr;
      a.copy_latency = std::strtof(value.c_str(), &end);
      if (value.empty() || *end != '\0' || !(a.copy_latency >= 0.25f && a.copy_latency <= 4.0f))
        usage_error("--copy-latency must be a number from 0.25 to 4, got '" + value + "'");
    }
    else if (arg == "--size") {
      const auto x = value.find('x');
      if (x == std::string::npos) usage_error("--size must be WxH, got '" + value + "'");
      a.width = to_int(value.substr(0, x), "--size W");
      a.height = to_int(value.substr(x + 1), "--size H");
      if (a.width < 640 || a.height < 400) usage_error("--size must be at least 640x400");
      a.size_given = true;
    } else usage_error("unknown option '" + arg + "'");
  }
  if (a.panel != "thread" && a.panel != "access" && a.panel != "performance" && a.panel != "shared" &&
      a.panel != "timeline" && a.panel != "all")
    usage_error("--panel must be thread, access, performance, shared, timeline or all");
  if (a.operand != "a" && a.operand != "b") usage_error("--operand must be a or b");
  if (a.shared_colour != "k" && a.shared_colour != "mn") usage_error("--shared-colour must be k or mn");
  if (!is_colour_by_name(a.colour)) usage_error("--colour must be block, warpgroup, warp, thread (or lane) or register");
  if (!a.perf.empty() && a.perf != "fp32" && a.perf != "tensor" && a.perf != "fp8") usage_error("--perf must be fp32, tensor or fp8");
  if (a.theme != "dark" && a.theme != "light") usage_error("--theme must be dark or light");
  if (a.docs) {
    if (a.panel == "all")
      usage_error("--docs draws one panel: add --panel thread, access, performance, shared or timeline");
    a.theme = "light";
    if (a.font_scale == 1.0f) a.font_scale = 2.0f;
    if (!a.size_given) a.width = 1500, a.height = 1800;
  }
  if (a.geometry.empty() && !a.screenshot.empty()) a.geometry = a.screenshot + ".json";
  return a;
}

}  // namespace gemm::viewer
