// The viewer's command line (gemm_viewer --help): parsed and checked here; what depends on the
// traced programs (the step, its tunables, the block and warp) is checked when the App starts.
#pragma once

#include <map>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "options.hpp"
#include "traced_steps.hpp"

namespace gemm::viewer {

constexpr int kExitUsage = 2;
constexpr int kExitGraphics = 3;

struct Args {
  // perf "": the selected step's group of runs.
  std::string screenshot, geometry, panel = "all", step = "05_smem_tiling", variant, colour = "thread", perf;
  std::vector<std::string> results;  // files or folders; none: the checkout's docs/results and build/results
  GemmShape shape{64, 64, 64};
  float beta = 0;
  std::map<std::string, int> params;
  bool defaults = false;  // --defaults: the step's default tunables at any shape
  Dim3 block{0, 0, 0};
  int warp = -1, instruction = 0, iteration = -1, frames = 0;  // warp -1: the first that issues memory instructions
  std::optional<std::pair<int, int>> element;  // --element ROW,COL
  int width = 1600, height = 900;
  int sms = 0;  // 0: the first results file's GPU
  Layout layout = Layout::nn;
  bool layout_given = false;  // without --layout a step that takes one layout (FP8: nt) gets it
  // The shared-memory panel: the operand (a or b), the k-tile, the item of its list, the colouring.
  std::string operand = "a", shared_colour = "k";
  int k_tile = 0, shared_item = 0;
  // --docs: a picture for a web page: light theme, larger font, one panel across the whole window,
  // the image cropped to what the panel drew.
  bool docs = false, size_given = false;
  std::string theme = "dark";
  float font_scale = 1.0f;
  // The timeline (--panel timeline): a persistent block's tile it starts at, the FP8 steps' output
  // (bytes), how long a copy takes to land (in k-tiles' products).
  int tile = 0, out_bytes = 2;
  float copy_latency = 1.0f;
};

// Prints the message and exits with kExitUsage.
[[noreturn]] void usage_error(const std::string& message);
// --help prints the usage and exits 0; a bad option is a usage_error.
Args parse(int argc, char** argv);

}  // namespace gemm::viewer
