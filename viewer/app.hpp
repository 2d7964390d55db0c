// The viewer's state: the program and problem on screen, what each panel keeps between frames, the
// results files, and the record of the frame drawn (for the geometry file of --screenshot).
#pragma once

#include <glad/gl.h>  // the textures' OpenGL calls; glad before any other GL header
#include <imgui.h>

#include <array>
#include <cstdint>
#include <future>
#include <map>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include <nlohmann/json.hpp>

#include "args.hpp"
#include "shared_model.hpp"
#include "timeline_model.hpp"
#include "viewer_model.hpp"

namespace gemm::viewer {

// Grids are drawn as one texel per cell (a rectangle per cell is too slow).
struct Texture {
  GLuint id = 0;
  int width = 0, height = 0;
  void upload(const std::vector<Rgba>& pixels, int w, int h);
  ImTextureID handle() const { return reinterpret_cast<ImTextureID>(static_cast<std::uintptr_t>(id)); }
};

// Where a grid was drawn, for the geometry file (the tests check pixels against the model with it).
struct DrawnGrid {
  std::string name;
  float x = 0, y = 0, cell = 0;
  int row0 = 0, col0 = 0, rows = 0, cols = 0;
};

struct App {
  std::vector<TracedProgram> programs = traced_programs();
  int program = 0;
  GemmShape shape{64, 64, 64};
  float beta = 0;
  std::map<std::string, int> params;
  ColourBy colour_by = ColourBy::thread;

  // Thread map.
  OwnerMap map;
  Texture map_texture;
  bool map_dirty = true, map_texture_dirty = true;
  float zoom = 0;  // pixels per cell; 0: fit
  float pan_row = 0, pan_col = 0;
  std::uint64_t map_digest = 0;

  // Selected warp and instruction.
  Dim3 block{0, 0, 0};
  int warp = 0;
  WarpTrace trace;
  bool trace_dirty = true;
  int iteration_index = 0, instruction_index = 0;
  Texture operand_texture;
  std::string operand_texture_key;
  std::optional<AccessTotals> totals;
  std::future<AccessTotals> totals_future;
  std::string totals_key;

  // The elements of the thread under the mouse (found once per thread, shown in the tooltip).
  std::uint32_t hovered_key = OwnerMap::kNone;
  ThreadElements hovered;
  // Held maps (the tensor-core steps): what holds the element under the mouse, and the element
  // selected by a click or --element (its holder named below the map), each found once.
  int hovered_row = -1, hovered_col = -1;
  std::vector<std::string> hovered_held;
  std::optional<std::pair<int, int>> selected_element;
  std::vector<std::string> selected_held;
  bool selected_dirty = true;

  // Results.
  std::vector<ResultsFile> results;
  int results_index = 0;
  int perf_shape = -1;
  RunGroup perf_group = RunGroup::fp32;  // the performance panel's runs: fp32, 16-bit tensor-core or FP8
  bool perf_follows_step = true;  // the runs of the selected step's group, its bars highlighted (no --perf)
  std::string open_path, message;
  bool gpu_present = false;
  std::string bin_dir;
  std::future<std::string> run_future;

  // Geometry of this frame, and the counts the access panel showed (for the geometry file).
  std::map<std::string, std::array<float, 4>> panels;
  std::vector<DrawnGrid> grids;
  nlohmann::json shown;

  int sms = 0;  // the GPU a step that picks its tile by shape plans for (0: not known)
  // The first frames scroll the instruction list to the selected instruction (set from the command line).
  int frames_drawn = 0;
  bool docs = false;                   // --docs: one panel across the window
  std::string solo_panel;              // with --docs: the panel drawn
  std::map<std::string, float> drawn_bottom;  // per panel: the lowest point drawn (screen y), for --docs' crop
  Layout layout = Layout::nn;  // a tensor-core step's storage of A and B

  // The shared-memory panel (shared_panel.cpp), a fourth column when shown (View menu, --panel
  // shared): what it is asked for, the view computed for that (again only when shared_key changes),
  // its textures (the stage; a TMA box as stored) and the first line drawn.
  bool show_shared = false;
  SharedSelection shared;
  SharedView shared_view;
  std::string shared_key;
  Texture shared_texture, source_texture;
  float shared_line0 = 0;

  // The timeline (timeline_panel.cpp), drawn across the window instead of the three panels.
  bool show_timeline = false;
  TimelineState timeline;
  Texture rounds_texture, tiles_texture;  // its rounds grid and C's tiles, one texel per cell
  std::string rounds_texture_key;

  TraceProblem problem() const;
  const TracedProgram& current() const { return programs[size_t(program)]; }
  void select_program(int index);
  // A step with a shape rule (the tensor-core steps: K and the stored rows multiples of 8) is shown
  // only for shapes its program takes: M, N and K rounded up to multiples of 8, with the rule said.
  void fit_shape();
  // A results file opened or run in this session: appended and shown.
  void add_results(ResultsFile file);
};

// The App the command line asks for: the step, problem, warp and results files, each checked
// (a usage_error names what is wrong). argv0 locates the build's results and the step programs.
void start(App& app, const Args& args, const char* argv0);

// The selection on screen as command-line options (--step ... --warp W --instruction J), which
// start() turns back into the same selection: the browser page's link (link.hpp, tools/web).
std::vector<std::string> selection_arguments(const App& app);

// Work a panel starts and collects in a later frame (a launch's totals): on a thread of its own;
// in the browser, which has no threads in this build, done at once (its future is ready).
template <class Work>
auto in_background(Work work) -> std::future<decltype(work())> {
#ifdef __EMSCRIPTEN__
  std::promise<decltype(work())> done;
  done.set_value(work());
  return done.get_future();
#else
  return std::async(std::launch::async, std::move(work));
#endif
}

}  // namespace gemm::viewer
