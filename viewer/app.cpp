// The App's state changes, and the App the command line asks for.
#include "app.hpp"

#include <algorithm>
#include <cstdlib>
#include <filesystem>
#include <iomanip>
#include <limits>
#include <sstream>

namespace gemm::viewer {

void Texture::upload(const std::vector<Rgba>& pixels, int w, int h) {
  if (!id) glGenTextures(1, &id);
  glBindTexture(GL_TEXTURE_2D, id);
  glTexParameteri(GL_TEXTURE_2D, GL_TEXTURE_MIN_FILTER, GL_NEAREST);
  glTexParameteri(GL_TEXTURE_2D, GL_TEXTURE_MAG_FILTER, GL_NEAREST);
  glTexParameteri(GL_TEXTURE_2D, GL_TEXTURE_WRAP_S, GL_CLAMP_TO_EDGE);
  glTexParameteri(GL_TEXTURE_2D, GL_TEXTURE_WRAP_T, GL_CLAMP_TO_EDGE);
  glPixelStorei(GL_UNPACK_ALIGNMENT, 1);
  glTexImage2D(GL_TEXTURE_2D, 0, GL_RGBA8, w, h, 0, GL_RGBA, GL_UNSIGNED_BYTE, pixels.data());
  width = w, height = h;
}

TraceProblem App::problem() const {
  TraceProblem p;
  p.shape = shape;
  p.beta = beta;
  p.params = params;
  p.sms = sms;
  p.layout = layout;
  return with_defaults(programs[size_t(program)], p);
}

void App::select_program(int index) {
  program = index;
  params.clear();
  block = {0, 0, 0};
  map_dirty = trace_dirty = true;
  iteration_index = instruction_index = 0;
  selected_element.reset();
  fit_shape();
  warp = first_traced_warp(current(), problem(), block);  // the warp-specialized steps: their first consumer warp
}

void App::fit_shape() {
  const TracedProgram& step = current();
  std::string layout_said;
  if (step.tensor_core && std::find(step.layouts.begin(), step.layouts.end(), layout) == step.layouts.end()) {
    layout = step.layouts.front();  // the FP8 step: NT alone
    layout_said = step.step + " takes layout " + to_string(layout);
    message = layout_said;
    map_dirty = trace_dirty = true;
  }
  if (!step.shape_rule) return;
  const std::string rule = step.shape_rule(shape, layout);
  if (rule.empty()) return;
  shape = rounded_up_to_8(shape);
  if (!step.shape_rule(shape, layout).empty()) shape.k = (shape.k + 15) / 16 * 16;  // the FP8 step's K
  message = (layout_said.empty() ? "" : layout_said + "; ") + "shape rounded up to " + shape_text(shape) + ": " + rule;
  map_dirty = trace_dirty = true;
}

void App::add_results(ResultsFile file) {
  results.push_back(std::move(file));
  results_index = int(results.size()) - 1;
  perf_shape = -1;
}

namespace {

int find_program(const std::vector<TracedProgram>& programs, const std::string& step, const std::string& variant) {
  for (size_t i = 0; i < programs.size(); ++i)
    if (programs[i].step == step && (variant.empty() ? true : programs[i].variant == variant)) return int(i);
  return -1;
}

std::vector<std::string> default_results(const char* argv0) {
  // The checkout's shipped results, and this build's own (build/bin/../results) when a run wrote them.
  std::vector<std::string> out;
  const std::filesystem::path shipped = std::filesystem::path(GEMM_SOURCE_DIR) / "docs" / "results";
  if (std::filesystem::is_directory(shipped)) out.push_back(shipped.string());
  const std::filesystem::path local = std::filesystem::absolute(argv0).parent_path().parent_path() / "results";
  if (std::filesystem::is_directory(local)) out.push_back(local.string());
  return out;
}

}  // namespace

void start(App& app, const Args& args, const char* argv0) {
  app.program = find_program(app.programs, args.step, args.variant);
  if (app.program < 0) {
    std::string known;
    for (const auto& p : app.programs) known += " " + program_label(p);
    usage_error("no traced step '" + args.step + (args.variant.empty() ? "" : "' variant '" + args.variant) +
                "'; known:" + known);
  }
  for (const std::string& results : args.results.empty() ? default_results(argv0) : args.results) {
    if (std::filesystem::is_directory(results)) {
      for (const auto& path : results_files_in(results)) app.results.push_back(load_results(path));
    } else {
      app.results.push_back(load_results(results));  // a missing or malformed file shows its message in the panel
    }
  }
  // A persistent step plans its grid in clusters of CLUSTER blocks, one block an SM: fewer SMs than
  // the largest cluster any step runs leave it no cluster to launch.
  int largest_cluster = 1;
  for (const TracedProgram& program : app.programs)
    for (const auto& config : program.configs) {
      const auto cluster = config.find("CLUSTER");
      if (cluster != config.end()) largest_cluster = std::max(largest_cluster, cluster->second);
    }
  if (args.sms > 0 && args.sms < largest_cluster)
    usage_error("--sms " + std::to_string(args.sms) + ": at least " + std::to_string(largest_cluster) +
                " (the largest cluster of blocks a step runs, one block an SM)");
  app.sms = args.sms;
  for (const ResultsFile& file : app.results)
    if (app.sms == 0 && file.ok()) app.sms = file.sms;
  app.shape = args.shape;
  app.beta = args.beta;
  app.params = args.params;
  if (args.defaults && app.params.empty()) app.params = app.current().default_params;  // --param takes the rest
  app.layout = args.layout;
  const std::vector<Layout>& layouts = app.current().layouts;
  if (!args.layout_given && app.current().tensor_core && std::find(layouts.begin(), layouts.end(), app.layout) == layouts.end())
    app.layout = layouts.front();  // the FP8 steps take NT alone
  if (app.current().shape_rule) {
    const std::string rule = app.current().shape_rule(app.shape, app.layout);
    if (!rule.empty()) usage_error("--shape for " + app.current().step + " (layout " + to_string(app.layout) + "): " + rule);
  }
  app.perf_group = args.perf == "tensor" ? RunGroup::tensor : args.perf == "fp8" ? RunGroup::fp8 : RunGroup::fp32;
  app.perf_follows_step = args.perf.empty();
  app.colour_by = colour_by_named(args.colour);
  if (!app.params.empty()) {
    const auto& configs = app.current().configs;
    const TraceProblem p = app.problem();
    if (!configs.empty()) {
      // A key the traces do not know (e.g. step 11's SPLIT, a choice of launches: the viewer draws
      // whole tiles) is named as such, not reported as an uncompiled combination.
      std::string known;
      for (const auto& [key, value] : configs.front()) known += (known.empty() ? "" : ", ") + key;
      for (const auto& [key, value] : args.params)
        if (!configs.front().count(key))
          usage_error("--param " + key + " is not a tunable the viewer draws for " + app.current().step +
                      "; it takes: " + known);
    }
    if (!configs.empty() && std::find(configs.begin(), configs.end(), p.params) == configs.end())
      usage_error("these --param values are not a compiled configuration of " + app.current().step);
  }
  const LaunchShape launch = app.current().launch(app.problem());
  if (args.block.x >= launch.grid.x || args.block.y >= launch.grid.y)
    usage_error("--block is outside the grid of " + std::to_string(launch.grid.x) + " x " + std::to_string(launch.grid.y));
  if (args.warp >= warps_per_block(launch.block))
    usage_error("--warp must be below " + std::to_string(warps_per_block(launch.block)));
  if (args.element) {
    if (args.element->first >= app.shape.m || args.element->second >= app.shape.n)
      usage_error("--element must lie inside C (" + std::to_string(app.shape.m) + " x " + std::to_string(app.shape.n) + ")");
    app.selected_element = args.element;
  }
  app.block = args.block;
  app.warp = args.warp >= 0 ? args.warp : first_traced_warp(app.current(), app.problem(), app.block);
  app.trace = warp_trace(app.current(), app.problem(), app.block, app.warp);
  app.trace_dirty = false;
  if (args.iteration >= 0) {
    const auto it = std::find(app.trace.iterations.begin(), app.trace.iterations.end(), args.iteration);
    if (it == app.trace.iterations.end()) usage_error("--iteration " + std::to_string(args.iteration) + " is not issued by this warp");
    app.iteration_index = int(it - app.trace.iterations.begin());
  }
  if (!app.trace.iterations.empty()) {
    const int count = int(app.trace.at_iteration(app.trace.iterations[size_t(app.iteration_index)]).size());
    if (args.instruction < 0 || args.instruction >= count)
      usage_error("--instruction must be below " + std::to_string(count) + " at that iteration");
  }
  app.instruction_index = args.instruction;
  app.show_shared = args.panel == "shared";
  app.shared = {args.operand == "b" ? Operand::B : Operand::A, args.k_tile, args.shared_item,
                shared_colour_named(args.shared_colour)};
  if (app.show_shared && app.current().shared_stage) {
    const SharedView view = shared_view(app.current(), app.problem(), app.block, app.trace, app.shared);
    if (args.k_tile >= view.stage.k_tiles)
      usage_error("--k-tile must be below " + std::to_string(view.stage.k_tiles) + " (the problem's k-tiles)");
    if (args.shared_item >= int(view.items.size()))
      usage_error("--shared-item must be below " + std::to_string(view.items.size()) + " for this operand and k-tile");
  }
  app.docs = args.docs;
  app.solo_panel = args.panel;
  app.show_timeline = args.panel == "timeline";
  app.timeline.tile = args.tile;
  app.timeline.out_bytes = args.out_bytes;
  app.timeline.copy_latency = args.copy_latency;

  app.gpu_present = std::system("nvidia-smi -L > /dev/null 2>&1") == 0;
  app.bin_dir = std::filesystem::absolute(argv0).parent_path().string();
}

namespace {

// The fewest digits that read back as the same float (0.3, not 0.300000012).
std::string float_text(float value) {
  std::string text;
  for (int digits = 6; digits <= std::numeric_limits<float>::max_digits10; ++digits) {
    std::ostringstream out;
    out << std::setprecision(digits) << value;
    text = out.str();
    if (std::strtof(text.c_str(), nullptr) == value) break;
  }
  return text;
}

}  // namespace

std::vector<std::string> selection_arguments(const App& app) {
  const TracedProgram& program = app.current();
  std::vector<std::string> a = {"--step", program.step};
  auto add = [&a](const std::string& option, const std::string& value) {
    a.push_back(option);
    a.push_back(value);
  };
  if (!program.variant.empty()) add("--variant", program.variant);
  if (program.takes_shape) {
    add("--shape", shape_text(app.shape));
    if (app.beta != 0) add("--beta", float_text(app.beta));
  }
  // The GPU a step plans its tile for, where it is not the first results file's (--sms).
  int results_sms = 0;
  for (const ResultsFile& file : app.results)
    if (results_sms == 0 && file.ok()) results_sms = file.sms;
  if (app.sms > 0 && app.sms != results_sms) add("--sms", std::to_string(app.sms));
  if (program.tensor_core) add("--layout", to_string(app.layout));
  for (const auto& [key, value] : app.params) add("--param", key + "=" + std::to_string(value));
  if (app.block.x != 0 || app.block.y != 0) add("--block", std::to_string(app.block.x) + "," + std::to_string(app.block.y));
  add("--warp", std::to_string(app.warp));
  if (!app.trace.iterations.empty()) {
    const size_t at = std::min(size_t(std::max(app.iteration_index, 0)), app.trace.iterations.size() - 1);
    add("--iteration", std::to_string(app.trace.iterations[at]));
    add("--instruction", std::to_string(app.instruction_index));
  }
  if (app.colour_by != ColourBy::thread) add("--colour", to_string(app.colour_by));
  if (app.perf_group != RunGroup::fp32) add("--perf", app.perf_group == RunGroup::tensor ? "tensor" : "fp8");
  if (app.show_timeline) {  // the timeline (View menu): what it shows
    add("--panel", "timeline");
    if (app.timeline.tile != 0) add("--tile", std::to_string(app.timeline.tile));
    if (app.timeline.out_bytes == 4) add("--out", "f32");
    if (app.timeline.copy_latency != float(kDefaultCopyLatency)) add("--copy-latency", float_text(app.timeline.copy_latency));
  } else if (app.show_shared) {  // the shared-memory panel (View menu): what it shows
    add("--panel", "shared");
    if (app.shared.operand == Operand::B) add("--operand", "b");
    if (app.shared.k_tile != 0) add("--k-tile", std::to_string(app.shared.k_tile));
    if (app.shared.item != 0) add("--shared-item", std::to_string(app.shared.item));
    if (app.shared.colour != SharedColour::k) add("--shared-colour", to_string(app.shared.colour));
  } else if (!app.solo_panel.empty() && app.solo_panel != "all") {
    add("--panel", app.solo_panel);
  }
  return a;
}

}  // namespace gemm::viewer
