// The GEMM Steps viewer: thread map, warp access and measured GFLOPS side by side (docs/viewer.md).
//
// Everything drawn comes from viewer_model.hpp, which computes it from the steps' own traces, the
// access model and results files; this file only lays it out. Headless mode (--screenshot) renders
// one frame, writes a PNG and a geometry file (where each grid was drawn) and exits.
//
// Exit codes: 0 done, 2 bad usage, 3 no display or no OpenGL 3.3 context.
#include <glad/gl.h>
// glad first: it provides the GL declarations GLFW would otherwise include.
#include <GLFW/glfw3.h>
#include <backends/imgui_impl_glfw.h>
#include <backends/imgui_impl_opengl3.h>
#include <imgui.h>
#include <imgui_stdlib.h>
#include <stb_image_write.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <future>
#include <map>
#include <optional>
#include <set>
#include <sstream>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "options.hpp"
#include "viewer_model.hpp"

namespace {

using namespace gemm;
using namespace gemm::viewer;

constexpr int kExitUsage = 2;
constexpr int kExitGraphics = 3;

// ---- Command line ---------------------------------------------------------------------------------

struct Args {
  std::string screenshot, geometry, panel = "all", step = "05_smem_tiling", variant, colour = "thread", perf = "fp32";
  std::vector<std::string> results;  // files or folders; none: the checkout's docs/results and build/results
  GemmShape shape{64, 64, 64};
  float beta = 0;
  std::map<std::string, int> params;
  bool defaults = false;  // --defaults: the step's default tunables at any shape
  Dim3 block{0, 0, 0};
  int warp = -1, instruction = 0, iteration = -1, frames = 0;  // warp -1: the first that issues memory instructions
  int width = 1600, height = 900;
  int sms = 0;  // 0: the first results file's GPU
  gemm::Layout layout = gemm::Layout::nn;
  // --docs: a picture for a web page: light theme, larger font, one panel across the whole window,
  // the image cropped to what the panel drew.
  bool docs = false, size_given = false;
  std::string theme = "dark";
  float font_scale = 1.0f;
};

const char* kUsage =
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
    "                       first warp with memory instructions, 0 but in step 15)\n"
    "  --iteration I        the loop iteration shown (default: the first); --instruction J (its J-th)\n"
    "  --colour block|warp|thread   how the thread map is coloured (default thread)\n"
    "  --perf fp32|tensor   the performance panel's runs: fp32 steps or tensor-core steps (default fp32)\n"
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

[[noreturn]] void usage_error(const std::string& message) {
  std::fprintf(stderr, "gemm_viewer: %s (see --help)\n", message.c_str());
  std::exit(kExitUsage);
}

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
    } else if (arg == "--warp") {
      a.warp = to_int(value, "--warp");
      if (a.warp < 0) usage_error("--warp must be 0 or more");
    }
    else if (arg == "--iteration") {
      a.iteration = to_int(value, "--iteration");
      if (a.iteration < 0) usage_error("--iteration must be 0 or more");
    }
    else if (arg == "--layout") {
      try {
        a.layout = gemm::parse_layout(value, "--layout");
      } catch (const gemm::UsageError& error) {
        usage_error(error.what());
      }
    } else if (arg == "--sms") {
      a.sms = to_int(value, "--sms");
      if (a.sms < 1) usage_error("--sms must be at least 1");
    }
    else if (arg == "--instruction") {
      a.instruction = to_int(value, "--instruction");
      if (a.instruction < 0) usage_error("--instruction must be 0 or more");
    }
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
    else if (arg == "--frames") {
      a.frames = to_int(value, "--frames");
      if (a.frames < 0) usage_error("--frames must be 0 or more");
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
  if (a.panel != "thread" && a.panel != "access" && a.panel != "performance" && a.panel != "all")
    usage_error("--panel must be thread, access, performance or all");
  if (a.colour != "block" && a.colour != "warp" && a.colour != "thread") usage_error("--colour must be block, warp or thread");
  if (a.perf != "fp32" && a.perf != "tensor") usage_error("--perf must be fp32 or tensor");
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

// ---- Textures: grids are drawn as one texel per cell (a rectangle per cell is too slow) ----------

struct Texture {
  GLuint id = 0;
  int width = 0, height = 0;
  void upload(const std::vector<Rgba>& pixels, int w, int h) {
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
  ImTextureID handle() const { return reinterpret_cast<ImTextureID>(static_cast<std::uintptr_t>(id)); }
};

// Where a grid was drawn, for the geometry file (the tests check pixels against the model with it).
struct DrawnGrid {
  std::string name;
  float x = 0, y = 0, cell = 0;
  int row0 = 0, col0 = 0, rows = 0, cols = 0;
};

// ---- The application ------------------------------------------------------------------------------

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
  std::uint32_t hovered_key = 0xffffffffu;
  std::vector<std::pair<int, int>> hovered_elements;
  long long hovered_count = 0;

  // Results.
  std::vector<ResultsFile> results;
  int results_index = 0;
  int perf_shape = -1;
  bool perf_tensor = false;  // the performance panel shows fp32 runs, or tensor-core runs
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

  TraceProblem problem() const {
    TraceProblem p;
    p.shape = shape;
    p.beta = beta;
    p.params = params;
    p.sms = sms;
    p.layout = layout;
    return with_defaults(programs[size_t(program)], p);
  }
  const TracedProgram& current() const { return programs[size_t(program)]; }
  void select_program(int index) {
    program = index;
    params.clear();
    block = {0, 0, 0};
    map_dirty = trace_dirty = true;
    iteration_index = instruction_index = 0;
    fit_shape();
    warp = first_traced_warp(current(), problem(), block);  // step 15: its first consumer warp
  }
  // A step with a shape rule (the tensor-core steps: K and the stored rows multiples of 8) is shown
  // only for shapes its program takes: M, N and K rounded up to multiples of 8, with the rule said.
  void fit_shape() {
    if (!current().shape_rule) return;
    const std::string rule = current().shape_rule(shape, layout);
    if (rule.empty()) return;
    const auto up = [](int v) { return (v + 7) / 8 * 8; };
    shape = {up(shape.m), up(shape.n), up(shape.k)};
    message = "shape rounded up to " + std::to_string(shape.m) + "x" + std::to_string(shape.n) + "x" +
              std::to_string(shape.k) + ": " + rule;
    map_dirty = trace_dirty = true;
  }
};

int find_program(const std::vector<TracedProgram>& programs, const std::string& step, const std::string& variant) {
  for (size_t i = 0; i < programs.size(); ++i)
    if (programs[i].step == step && (variant.empty() ? true : programs[i].variant == variant)) return int(i);
  return -1;
}

std::string operand_name(Operand operand) { return to_string(operand); }

ImU32 im(Rgba c) { return ImU32(c); }

// A width laid out for the 13-pixel font, at the font's size (--font-scale).
float ui(float pixels) { return pixels * ImGui::GetFontSize() / 13.0f; }

// Colours the panels draw with besides the model's (lanes, blocks, untouched cells), per theme.
struct Palette {
  ImU32 text = IM_COL32(200, 200, 200, 255);     // labels drawn on the canvas
  ImU32 axis = IM_COL32(160, 160, 160, 255);
  ImU32 outline = IM_COL32(255, 255, 255, 255);  // the selected warp's cells
  ImU32 cublas = IM_COL32(255, 210, 60, 255);
  ImU32 peak = IM_COL32(255, 90, 90, 255);
  ImU32 conflict = IM_COL32(255, 40, 40, 255), conflict_text = IM_COL32(255, 90, 90, 255);
  ImU32 tf32 = IM_COL32(150, 200, 255, 255), message = IM_COL32(255, 204, 102, 255);
};
Palette palette;

void use_light_theme() {
  ImGui::StyleColorsLight();
  palette.text = IM_COL32(20, 20, 20, 255);
  palette.axis = IM_COL32(90, 90, 90, 255);
  palette.outline = IM_COL32(0, 0, 0, 255);
  palette.cublas = IM_COL32(190, 120, 0, 255);
  palette.peak = IM_COL32(200, 30, 30, 255);
  palette.conflict = IM_COL32(220, 0, 0, 255);
  palette.conflict_text = IM_COL32(200, 0, 0, 255);
  palette.tf32 = IM_COL32(20, 90, 180, 255);
  palette.message = IM_COL32(150, 80, 0, 255);
}

// ---- Thread map panel ------------------------------------------------------------------------------

void thread_map_panel(App& app, ImVec2 size) {
  const TracedProgram& program = app.current();
  if (app.map_dirty) {
    app.map = owner_map(program, app.problem());
    // A digest of every cell's owner (FNV-1a over the packed block/thread keys): it changes when the mapping does.
    app.map_digest = 1469598103934665603ull;
    for (const std::uint32_t key : app.map.packed) app.map_digest = (app.map_digest ^ key) * 1099511628211ull;
    app.map_dirty = false;
    app.map_texture_dirty = true;
  }
  if (app.map_texture_dirty) {
    std::vector<Rgba> pixels(size_t(app.map.rows) * size_t(app.map.cols));
    for (int r = 0; r < app.map.rows; ++r)
      for (int c = 0; c < app.map.cols; ++c) pixels[size_t(r) * size_t(app.map.cols) + size_t(c)] = app.map.colour(r, c, app.colour_by);
    app.map_texture.upload(pixels, app.map.cols, app.map.rows);
    app.map_texture_dirty = false;
  }
  {
    // What the map shows, for the geometry file (and the docs pictures' sidecars).
    const LaunchShape l = app.map.launch;
    const char* colours[] = {"block", "warp", "thread"};
    app.shown["thread_map"] = {{"rows", app.map.rows}, {"cols", app.map.cols}, {"colour_by", colours[int(app.colour_by)]},
                               {"grid", {l.grid.x, l.grid.y, l.grid.z}}, {"block", {l.block.x, l.block.y, l.block.z}},
                               {"owners_fnv1a", std::to_string(app.map_digest)}};
  }
  ImGui::Text("Thread map: %s of %s, %d x %d", program.takes_shape ? "C" : "the output", program_label(program).c_str(),
              app.map.rows, app.map.cols);
  const LaunchShape launch = app.map.launch;
  ImGui::TextDisabled("grid %d x %d x %d blocks of %d x %d x %d threads", launch.grid.x, launch.grid.y, launch.grid.z,
                      launch.block.x, launch.block.y, launch.block.z);
  if (!app.map.any_owned())
    ImGui::TextWrapped("No thread stores an element here%s%s.", program.c_writer.empty() ? "" : ": ",
                       program.c_writer.c_str());
  const char* modes[] = {"colour by block", "colour by warp", "colour by thread (lane)"};
  if (app.docs) {  // a picture: what the colours are, instead of the controls
    ImGui::TextWrapped("%s; outlined: warp %d of block (%d, %d)", modes[int(app.colour_by)], app.warp, app.block.x,
                       app.block.y);
  } else {
    int mode = int(app.colour_by);
    ImGui::SetNextItemWidth(ui(200));
    if (ImGui::Combo("##colour", &mode, modes, 3)) {
      app.colour_by = ColourBy(mode);
      app.map_texture_dirty = true;
    }
    ImGui::SameLine();
    ImGui::SetNextItemWidth(ui(140));
    ImGui::SliderFloat("zoom (px per cell)", &app.zoom, 0.0f, 32.0f, app.zoom == 0 ? "fit" : "%.1f");
  }

  const ImVec2 origin = ImGui::GetCursorScreenPos();
  const ImVec2 avail = ImGui::GetContentRegionAvail();
  const float area_w = std::max(avail.x, 50.0f), area_h = std::max(avail.y - 40, 50.0f);
  // Fit: the largest whole number of pixels per cell that shows the whole map (or a fraction when
  // the map is larger than the panel).
  float cell = app.zoom;
  if (cell <= 0) {
    const float fit = std::min(area_w / float(app.map.cols), area_h / float(app.map.rows));
    cell = fit >= 1 ? std::floor(fit) : fit;
  }
  const int visible_cols = std::min(app.map.cols, int(area_w / cell));
  const int visible_rows = std::min(app.map.rows, int(area_h / cell));
  app.pan_col = std::clamp(app.pan_col, 0.0f, float(app.map.cols - visible_cols));
  app.pan_row = std::clamp(app.pan_row, 0.0f, float(app.map.rows - visible_rows));
  const int col0 = int(app.pan_col), row0 = int(app.pan_row);
  ImDrawList* draw = ImGui::GetWindowDrawList();
  const ImVec2 p0 = origin, p1{origin.x + float(visible_cols) * cell, origin.y + float(visible_rows) * cell};
  const ImVec2 uv0{float(col0) / float(app.map.cols), float(row0) / float(app.map.rows)};
  const ImVec2 uv1{float(col0 + visible_cols) / float(app.map.cols), float(row0 + visible_rows) / float(app.map.rows)};
  draw->AddImage(app.map_texture.handle(), p0, p1, uv0, uv1);
  app.grids.push_back({"thread_map", p0.x, p0.y, cell, row0, col0, visible_rows, visible_cols});
  // The selected warp's elements, outlined.
  if (cell >= 3) {
    for (int r = row0; r < row0 + visible_rows; ++r)
      for (int c = col0; c < col0 + visible_cols; ++c) {
        const Owner owner = app.map.at(r, c);
        if (owner.block >= 0 && owner.warp == app.warp && owner.block_coord.x == app.block.x &&
            owner.block_coord.y == app.block.y && owner.block_coord.z == app.block.z) {
          const ImVec2 a{p0.x + float(c - col0) * cell, p0.y + float(r - row0) * cell};
          draw->AddRect(a, {a.x + cell, a.y + cell}, palette.outline);
        }
      }
  }
  ImGui::InvisibleButton("##map", {std::max(1.0f, p1.x - p0.x), std::max(1.0f, p1.y - p0.y)});
  if (ImGui::IsItemHovered()) {
    const ImVec2 mouse = ImGui::GetIO().MousePos;
    const int c = col0 + int((mouse.x - p0.x) / cell), r = row0 + int((mouse.y - p0.y) / cell);
    const Owner owner = app.map.at(r, c);
    ImGui::BeginTooltip();
    ImGui::Text("element (%d, %d)", r, c);
    if (owner.block >= 0) {
      ImGui::Text("block (%d, %d), thread %d: warp %d, lane %d", owner.block_coord.x, owner.block_coord.y, owner.thread,
                  owner.warp, owner.lane);
      const std::uint32_t key = std::uint32_t(owner.block) << 10 | std::uint32_t(owner.thread);
      if (key != app.hovered_key || app.map_dirty) {
        app.hovered_key = key;
        app.hovered_elements.clear();
        app.hovered_count = 0;
        for (int rr = 0; rr < app.map.rows; ++rr)
          for (int cc = 0; cc < app.map.cols; ++cc)
            if (app.map.packed[size_t(rr) * size_t(app.map.cols) + size_t(cc)] == key) {
              if (app.hovered_elements.size() < 8) app.hovered_elements.push_back({rr, cc});
              ++app.hovered_count;
            }
      }
      std::string owned;
      for (const auto& [er, ec] : app.hovered_elements) owned += " (" + std::to_string(er) + "," + std::to_string(ec) + ")";
      ImGui::Text("owns %lld element%s:%s%s", app.hovered_count, app.hovered_count == 1 ? "" : "s", owned.c_str(),
                  app.hovered_count > 8 ? " ..." : "");
      ImGui::TextDisabled("click: show this warp's accesses");
    } else {
      ImGui::Text("outside the problem");
    }
    ImGui::EndTooltip();
    if (ImGui::IsMouseClicked(0) && owner.block >= 0) {
      app.block = owner.block_coord;
      app.warp = owner.warp;
      app.trace_dirty = true;
    }
    if (ImGui::IsMouseDragging(0)) {
      const ImVec2 delta = ImGui::GetIO().MouseDelta;
      app.pan_col -= delta.x / cell;
      app.pan_row -= delta.y / cell;
    }
    const float wheel = ImGui::GetIO().MouseWheel;
    if (wheel != 0) app.zoom = std::clamp((app.zoom == 0 ? cell : app.zoom) * (wheel > 0 ? 1.25f : 0.8f), 0.05f, 64.0f);
  }
  if (!app.docs) ImGui::TextDisabled("drag to pan, wheel to zoom; the selected warp is outlined");
  (void)size;
}

// ---- Warp access panel ------------------------------------------------------------------------------

void bank_strip(const TraceInstruction& instruction) {
  const std::vector<BankPhase> phases = bank_phases(instruction.access);
  ImDrawList* draw = ImGui::GetWindowDrawList();
  // The label column and the strip's height follow the font (--font-scale).
  const float label_w = ImGui::CalcTextSize("phase 00 ").x;
  const float strip_h = std::max(18.0f, std::floor(ImGui::GetTextLineHeight() * 1.4f));
  const float cell = std::max(8.0f, std::floor((ImGui::GetContentRegionAvail().x - label_w - 10) / kSharedBanks));
  for (size_t p = 0; p < phases.size(); ++p) {
    const ImVec2 o = ImGui::GetCursorScreenPos();
    draw->AddText({o.x, o.y + 2}, palette.text, ("phase " + std::to_string(p)).c_str());
    const float x0 = o.x + label_w;
    for (int bank = 0; bank < kSharedBanks; ++bank) {
      const auto& lanes = phases[p].lanes[size_t(bank)];
      const ImVec2 a{x0 + float(bank) * cell, o.y}, b{a.x + cell - 1, o.y + strip_h};
      draw->AddRectFilled(a, b, im(kUntouched));
      for (size_t l = 0; l < lanes.size(); ++l) {
        const float h = strip_h / float(lanes.size());
        draw->AddRectFilled({a.x, a.y + h * float(l)}, {b.x, a.y + h * float(l + 1)}, im(lane_colour(lanes[l])));
      }
      const int degree = phases[p].distinct_words[size_t(bank)];
      if (degree > 1) {
        draw->AddRect(a, b, palette.conflict, 0, 0, 2);
        draw->AddText({a.x + 1, b.y + 1}, palette.conflict_text, std::to_string(degree).c_str());
      }
    }
    ImGui::Dummy({label_w + cell * float(kSharedBanks), strip_h + ImGui::GetTextLineHeight() + 1});
  }
}

void access_panel(App& app, ImVec2 size) {
  const TracedProgram& program = app.current();
  const TraceProblem problem = app.problem();
  if (app.trace_dirty) {
    app.trace = warp_trace(program, problem, app.block, app.warp);
    app.trace_dirty = false;
    app.iteration_index = std::clamp(app.iteration_index, 0, std::max(0, int(app.trace.iterations.size()) - 1));
  }
  ImGui::Text("Warp access: block (%d, %d), warp %d", app.block.x, app.block.y, app.warp);
  if (app.docs) {  // no top bar in a docs picture: the step, shape and tunables it shows
    std::string params;
    for (const auto& [key, value] : problem.params) params += (params.empty() ? "; " : " ") + key + "=" + std::to_string(value);
    ImGui::TextWrapped("%s, %d x %d x %d%s%s", program_label(program).c_str(), problem.shape.m, problem.shape.n,
                       problem.shape.k, program.tensor_core ? (std::string(", ") + to_string(app.layout)).c_str() : "",
                       params.c_str());
  }
  if (app.trace.instructions.empty()) {
    ImGui::TextWrapped("This warp issues no memory instructions: it lies past the edge of the problem, or its work "
                       "is another unit's%s%s%s. Pick another in the thread map.",
                       program.quiet_warps.empty() ? "" : " (", program.quiet_warps.c_str(),
                       program.quiet_warps.empty() ? "" : ")");
    return;
  }
  const int last = int(app.trace.iterations.size()) - 1;
  ImGui::SetNextItemWidth(size.x * 0.6f);
  ImGui::SliderInt("##iteration", &app.iteration_index, 0, last, "");
  ImGui::SameLine();
  const int iteration = app.trace.iterations[size_t(app.iteration_index)];
  ImGui::Text("%s", iteration_text(program, iteration).c_str());
  const std::vector<int> at = app.trace.at_iteration(iteration);
  app.instruction_index = std::clamp(app.instruction_index, 0, int(at.size()) - 1);
  // Docs pictures: up to 8 rows at the font's size (the selected one scrolled into view).
  const float list_h = app.docs ? ImGui::GetTextLineHeightWithSpacing() * float(std::min<size_t>(at.size(), 8)) + 10
                                : std::min(160.0f, 22.0f * float(at.size()) + 8);
  ImGui::BeginChild("##instructions", {0, list_h}, true);
  for (size_t j = 0; j < at.size(); ++j) {
    const TraceInstruction& ins = app.trace.instructions[size_t(at[j])];
    const InstructionCost cost = instruction_cost(ins);
    std::string text = iteration_text(program, iteration) + ": " + instruction_text(ins) + "   ";
    text += cost.shared ? std::to_string(cost.shared_cost.wavefronts) + " wavefronts (ideal " +
                              std::to_string(cost.shared_cost.ideal_wavefronts) + ")"
                        : std::to_string(cost.global.sectors) + " sectors (ideal " + std::to_string(cost.global.ideal_sectors) + ")";
    if (ImGui::Selectable((text + "##" + std::to_string(j)).c_str(), int(j) == app.instruction_index))
      app.instruction_index = int(j);
    if (int(j) == app.instruction_index && app.frames_drawn < 3) ImGui::SetScrollHereY(0.5f);
  }
  ImGui::EndChild();
  const TraceInstruction& ins = app.trace.instructions[size_t(at[size_t(app.instruction_index)])];
  const OperandGrid grid = operand_grid(ins.operand, program, problem, app.trace);
  const std::vector<Touch> touched = touches(ins, grid);
  // The window of the operand around the touched elements (at most 64 x 64 cells).
  int r0 = grid.rows, r1 = -1, c0 = grid.cols, c1 = -1;
  for (const Touch& t : touched) r0 = std::min(r0, t.row), r1 = std::max(r1, t.row), c0 = std::min(c0, t.col), c1 = std::max(c1, t.col);
  if (r1 < 0) r0 = c0 = 0, r1 = c1 = 0;
  constexpr int kWindow = 64;
  const int rows = std::min(grid.rows, std::max(r1 - r0 + 1, std::min(grid.rows, 8)));
  const int cols = std::min(grid.cols, std::max(c1 - c0 + 1, std::min(grid.cols, 32)));
  const int shown_rows = std::min(rows, kWindow), shown_cols = std::min(cols, kWindow);
  const int row0 = std::clamp(r0 - (shown_rows - std::min(shown_rows, r1 - r0 + 1)) / 2, 0, grid.rows - shown_rows);
  const int col0 = grid.banked ? 0 : std::clamp(c0 - (shown_cols - std::min(shown_cols, c1 - c0 + 1)) / 2, 0, grid.cols - shown_cols);
  const std::string key = std::to_string(app.program) + "/" + std::to_string(at[size_t(app.instruction_index)]) + "/" +
                          std::to_string(row0) + "," + std::to_string(col0) + "/" + std::to_string(shown_rows) + "x" +
                          std::to_string(shown_cols) + "/" + std::to_string(app.block.x) + "," + std::to_string(app.block.y) +
                          "/" + std::to_string(app.warp) + "/" + std::to_string(iteration);
  if (key != app.operand_texture_key) {
    std::vector<Rgba> pixels(size_t(shown_rows) * size_t(shown_cols), kUntouched);
    for (const Touch& t : touched)
      if (t.row >= row0 && t.row < row0 + shown_rows && t.col >= col0 && t.col < col0 + shown_cols)
        pixels[size_t(t.row - row0) * size_t(shown_cols) + size_t(t.col - col0)] = lane_colour(t.lane);
    app.operand_texture.upload(pixels, shown_cols, shown_rows);
    app.operand_texture_key = key;
  }
  ImGui::TextWrapped("%s%s (%d x %d%s), rows %d-%d, columns %d-%d", ins.access.space == Space::shared ? "" : "global ",
              operand_name(ins.operand).c_str(), grid.rows, grid.cols, grid.banked ? ", one column per bank" : "", row0,
              row0 + shown_rows - 1, col0, col0 + shown_cols - 1);
  const ImVec2 avail = ImGui::GetContentRegionAvail();
  // Docs pictures are cropped to what was drawn: the grid takes up to 640 pixels of height, whatever is left.
  const float grid_h = app.docs ? 640.0f * ImGui::GetIO().FontGlobalScale : avail.y * 0.45f;
  const float cell = std::max(2.0f, std::floor(std::min({avail.x / float(shown_cols), grid_h / float(shown_rows),
                                                         app.docs ? 32.0f : 1e9f})));
  const ImVec2 p0 = ImGui::GetCursorScreenPos();
  ImDrawList* draw = ImGui::GetWindowDrawList();
  draw->AddImage(app.operand_texture.handle(), p0, {p0.x + float(shown_cols) * cell, p0.y + float(shown_rows) * cell});
  app.grids.push_back({"operand", p0.x, p0.y, cell, row0, col0, shown_rows, shown_cols});
  if (!grid.banked && cell >= 4) {
    // 32-byte sector and 128-byte line boundaries along each row (elements are 4 bytes).
    for (int r = 0; r < shown_rows; ++r)
      for (int c = 0; c <= shown_cols; ++c) {
        const long long index = (long long)(row0 + r) * grid.cols + col0 + c;
        const bool line = index % 32 == 0, sector = index % 8 == 0;
        if (!sector) continue;
        const float x = p0.x + float(c) * cell, y = p0.y + float(r) * cell;
        draw->AddLine({x, y}, {x, y + cell}, line ? IM_COL32(255, 255, 255, 255) : IM_COL32(150, 150, 150, 255),
                      line ? 2.0f : 1.0f);
      }
  }
  ImGui::Dummy({float(shown_cols) * cell, float(shown_rows) * cell});
  if (!grid.banked) ImGui::TextDisabled("thin lines: 32-byte sectors; thick: 128-byte lines");

  const InstructionCost cost = instruction_cost(ins);
  app.shown["instruction"] = {{"label", ins.label}, {"operand", operand_name(ins.operand)}, {"width", ins.access.width},
                              {"iteration", iteration}, {"shared", cost.shared}};
  if (cost.shared)
    app.shown["instruction"].update({{"wavefronts", cost.shared_cost.wavefronts},
                                     {"ideal_wavefronts", cost.shared_cost.ideal_wavefronts},
                                     {"max_conflict", cost.shared_cost.max_conflict}});
  else
    app.shown["instruction"].update({{"requests", cost.global.requests}, {"sectors", cost.global.sectors},
                                     {"ideal_sectors", cost.global.ideal_sectors}, {"lines", cost.global.lines}});
  if (cost.shared) {
    if (app.docs) ImGui::TextWrapped("%s", instruction_text(ins).c_str());  // the instruction named, in full
    ImGui::TextWrapped("this instruction: %d wavefronts, ideal %d, worst conflict %d-way", cost.shared_cost.wavefronts,
                cost.shared_cost.ideal_wavefronts, cost.shared_cost.max_conflict);
    if (ins.access.async_copy && !ins.access.bypasses_l1)
      ImGui::TextWrapped("cp.async through the L1: conflicts among the sources' L1 banks add to the wavefronts the "
                         "writes below need (docs/access-model.md, \"cp.async\")");
    bank_strip(ins);
  } else {
    if (app.docs) ImGui::TextWrapped("%s", instruction_text(ins).c_str());
    ImGui::TextWrapped("this instruction: %d request, %d sectors (ideal %d), %d lines", cost.global.requests, cost.global.sectors,
                cost.global.ideal_sectors, cost.global.lines);
    if (ins.access.async_copy && ins.access.bypasses_l1)
      ImGui::TextWrapped("cp.async around the L1: the profiler counts its sectors by pairs of neighbouring lanes, the "
                         "lines each pair reads (docs/access-model.md, \"cp.async\")");
  }
  // The whole launch, computed in the background (large launches take a moment).
  std::ostringstream k;
  k << app.program << "/" << problem.shape.m << "x" << problem.shape.n << "x" << problem.shape.k << "/" << problem.beta;
  for (const auto& [name, value] : problem.params) k << "/" << name << "=" << value;
  if (k.str() != app.totals_key) {
    app.totals_key = k.str();
    app.totals.reset();
    const TracedProgram* p = &program;
    app.totals_future = std::async(std::launch::async, [p, problem] { return launch_totals(*p, problem); });
  }
  if (!app.totals && app.totals_future.valid() &&
      app.totals_future.wait_for(std::chrono::seconds(0)) == std::future_status::ready)
    app.totals = app.totals_future.get();
  if (app.totals) {
    const AccessTotals& t = *app.totals;
    app.shown["launch"] = {{"global_load_sectors", t.global_load_sectors},
                           {"global_store_sectors", t.global_store_sectors},
                           {"shared_load_wavefronts", t.shared_load_wavefronts},
                           {"shared_store_wavefronts", t.shared_store_wavefronts},
                           {"shared_load_requests", t.shared_load_requests},
                           {"shared_store_requests", t.shared_store_requests}};
    ImGui::Text("whole launch (the model; Nsight Compute's counters):");
    ImGui::Text("  global: %lld load sectors, %lld store sectors", t.global_load_sectors, t.global_store_sectors);
    ImGui::Text("  shared: %lld load wavefronts, %lld store wavefronts", t.shared_load_wavefronts, t.shared_store_wavefronts);
    ImGui::Text("  shared instructions: %lld loads, %lld stores", t.shared_load_requests, t.shared_store_requests);
  } else {
    ImGui::TextDisabled("whole launch: computing...");
  }
}

// ---- Performance panel -----------------------------------------------------------------------------

std::string fmt_gflops(double g) {
  char buffer[64];
  std::snprintf(buffer, sizeof(buffer), "%.1f TFLOPS", g / 1000.0);
  return buffer;
}

void run_selected_step(App& app) {
  const TracedProgram& program = app.current();
  if (!program.takes_shape || app.run_future.valid()) return;
  const std::string binary = app.bin_dir + "/" + program.step;
  const std::string json = (std::filesystem::temp_directory_path() / ("gemm_viewer_" + program.step + ".json")).string();
  std::ostringstream command;
  command << "'" << binary << "' --shapes " << app.shape.m << "x" << app.shape.n << "x" << app.shape.k;
  if (program.tensor_core) command << " --layout " << to_string(app.layout);
  command << " --json '" << json << "' > /dev/null 2>&1";
  app.message = "running " + program.step + " ...";
  const std::string cmd = command.str();
  app.run_future = std::async(std::launch::async, [cmd, json] { return std::system(cmd.c_str()) == 0 ? json : std::string(); });
}

void performance_panel(App& app, ImVec2 size) {
  ImGui::Text("Performance: measured GFLOPS (results files)");
  if (app.results.empty()) {
    ImGui::TextWrapped("No results file loaded. File > Open a results file (docs/results/<gpu>.json).");
    return;
  }
  std::vector<std::string> names;
  for (const auto& r : app.results) names.push_back(r.ok() ? r.gpu + "  (" + std::filesystem::path(r.path).filename().string() + ")"
                                                           : std::filesystem::path(r.path).filename().string() + " (unusable)");
  app.results_index = std::clamp(app.results_index, 0, int(app.results.size()) - 1);
  ImGui::SetNextItemWidth(size.x - 20);
  if (ImGui::BeginCombo("##results", names[size_t(app.results_index)].c_str())) {
    for (size_t i = 0; i < names.size(); ++i)
      if (ImGui::Selectable(names[i].c_str(), int(i) == app.results_index)) app.results_index = int(i);
    ImGui::EndCombo();
  }
  const ResultsFile& file = app.results[size_t(app.results_index)];
  app.shown["results"] = {{"path", file.path}, {"error", file.error}, {"runs", file.runs.size()}};
  if (!file.ok()) {
    ImGui::PushStyleColor(ImGuiCol_Text, IM_COL32(255, 110, 110, 255));
    ImGui::TextWrapped("%s", file.error.c_str());
    ImGui::PopStyleColor();
    return;
  }
  // fp32 runs (against the fp32 peak) or tensor-core runs (f16/bf16 in): their scales differ tenfold.
  if (ImGui::RadioButton("fp32 steps", !app.perf_tensor)) app.perf_tensor = false, app.perf_shape = -1;
  ImGui::SameLine();
  if (ImGui::RadioButton("tensor-core steps", app.perf_tensor)) app.perf_tensor = true, app.perf_shape = -1;
  std::vector<const ResultRun*> shown_runs;
  for (const auto& run : file.runs)
    if (run.tensor_core() == app.perf_tensor) shown_runs.push_back(&run);
  // The shapes measured, square first.
  std::vector<std::array<int, 3>> shapes;
  for (const ResultRun* run : shown_runs)
    for (const auto& p : run->points)
      if (std::find(shapes.begin(), shapes.end(), std::array<int, 3>{p.m, p.n, p.k}) == shapes.end())
        shapes.push_back({p.m, p.n, p.k});
  std::sort(shapes.begin(), shapes.end(), [](const auto& a, const auto& b) {
    const bool sa = a[0] == a[1] && a[1] == a[2], sb = b[0] == b[1] && b[1] == b[2];
    return sa != sb ? sa : a < b;
  });
  if (shapes.empty()) {
    ImGui::Text(app.perf_tensor ? "This file holds no tensor-core runs." : "This file holds no fp32 GEMM runs.");
    return;
  }
  if (app.perf_shape < 0 || app.perf_shape >= int(shapes.size())) {
    app.perf_shape = 0;
    for (size_t i = 0; i < shapes.size(); ++i)
      if (shapes[i] == std::array<int, 3>{4096, 4096, 4096}) app.perf_shape = int(i);
  }
  auto shape_name = [](const std::array<int, 3>& s) {
    return std::to_string(s[0]) + "x" + std::to_string(s[1]) + "x" + std::to_string(s[2]);
  };
  ImGui::SetNextItemWidth(ui(180));
  if (ImGui::BeginCombo("bars at", shape_name(shapes[size_t(app.perf_shape)]).c_str())) {
    for (size_t i = 0; i < shapes.size(); ++i)
      if (ImGui::Selectable(shape_name(shapes[i]).c_str(), int(i) == app.perf_shape)) app.perf_shape = int(i);
    ImGui::EndCombo();
  }
  // The fp32 peak for fp32 runs; for tensor-core runs no peak line (it depends on the clock the
  // tensor cores sustain, which the results file does not record): cuBLAS is the line to reach.
  const double peak = app.perf_tensor ? 0.0 : file.fp32_peak_gflops();
  const auto& sel = shapes[size_t(app.perf_shape)];
  // cuBLAS in TF32 (fp32 runs on sm_80+) is a reference, not the yardstick, and several times the
  // fp32 peak: named above the charts rather than drawn, so that it does not flatten the fp32 bars.
  double tf32 = 0;
  for (const ResultRun* run : shown_runs)
    for (const auto& p : run->points)
      if (p.m == sel[0] && p.n == sel[1] && p.k == sel[2]) tf32 = std::max(tf32, p.tf32_gflops);
  app.shown["tf32_reference_gflops"] = tf32;
  if (tf32 > 0) {
    ImGui::PushStyleColor(ImGuiCol_Text, palette.tf32);
    ImGui::TextWrapped("cuBLAS in TF32 on the tensor cores: %s (a reference, not fp32; off this scale)",
                       fmt_gflops(tf32).c_str());
    ImGui::PopStyleColor();
  }
  ImDrawList* draw = ImGui::GetWindowDrawList();
  const ImVec2 avail = ImGui::GetContentRegionAvail();
  // Docs pictures are cropped to what was drawn: charts of a fixed height (scaled with the font).
  const float chart_h = app.docs ? ui(240) : std::max(120.0f, (avail.y - 90) / 2);
  const float label_up = app.docs ? ImGui::GetTextLineHeight() + 2 : 15;  // a line's label sits above it
  const ImVec2 mouse = ImGui::GetIO().MousePos;

  // Bars: every step at the selected shape, against cuBLAS (same runs) and the fp32 peak.
  {
    const ImVec2 o = ImGui::GetCursorScreenPos();
    const float left = o.x + 40, bottom = o.y + chart_h, width = avail.x - 60;
    struct Bar {
      size_t run;  // index into shown_runs: the colour, the same as the run's line below
      const ResultPoint* point;
    };
    std::vector<Bar> bars;
    double cublas = 0;
    for (size_t r = 0; r < shown_runs.size(); ++r)
      for (const auto& p : shown_runs[r]->points)
        if (p.m == sel[0] && p.n == sel[1] && p.k == sel[2]) bars.push_back({r, &p}), cublas = std::max(cublas, p.cublas_gflops);
    const double top = std::max({peak, cublas, 1.0}) * 1.05;
    app.shown["bars"] = nlohmann::json::array();
    app.shown["bars_shape"] = {sel[0], sel[1], sel[2]};
    draw->AddLine({left, bottom}, {left + width, bottom}, palette.axis);
    const float bar_w = width / float(std::max<size_t>(bars.size(), 1));
    for (size_t i = 0; i < bars.size(); ++i) {
      const ResultRun& run = *shown_runs[bars[i].run];
      const ResultPoint& point = *bars[i].point;
      const float h = float(point.gflops / top) * chart_h;
      const ImVec2 a{left + bar_w * float(i) + 3, bottom - h}, b{left + bar_w * float(i + 1) - 3, bottom};
      const Rgba colour = index_colour(std::uint32_t(bars[i].run));
      draw->AddRectFilled(a, b, im(colour));
      draw->AddText({a.x, bottom + 2}, palette.text, run.step.substr(0, 2).c_str());
      app.shown["bars"].push_back({{"label", run.label()}, {"gflops", point.gflops}, {"x0", a.x}, {"y0", a.y},
                                   {"x1", b.x}, {"y1", b.y}, {"bottom", bottom}, {"chart_height", chart_h},
                                   {"top_gflops", top}, {"colour", colour}});
      if (mouse.x >= a.x && mouse.x < b.x && mouse.y >= o.y && mouse.y < bottom) {
        ImGui::BeginTooltip();
        ImGui::Text("%s at %s", run.label().c_str(), shape_name(sel).c_str());
        ImGui::Text("%.1f GFLOPS (%.3f ms), cuBLAS %.1f GFLOPS: %.1f%%", point.gflops, point.median_ms,
                    point.cublas_gflops, 100 * point.gflops / std::max(1.0, point.cublas_gflops));
        if (point.tf32_gflops > 0)
          ImGui::Text("cuBLAS in TF32 on the tensor cores (a reference, not fp32): %.1f GFLOPS", point.tf32_gflops);
        ImGui::Text("commit %s, %s", run.commit.substr(0, 10).c_str(), run.date.c_str());
        ImGui::EndTooltip();
      }
    }
    const float y_cublas = bottom - float(cublas / top) * chart_h, y_peak = bottom - float(peak / top) * chart_h;
    draw->AddLine({left, y_cublas}, {left + width, y_cublas}, palette.cublas, 2);
    draw->AddText({left + 4, y_cublas - label_up}, palette.cublas, ("cuBLAS " + fmt_gflops(cublas)).c_str());
    if (peak > 0) {
      draw->AddLine({left, y_peak}, {left + width, y_peak}, palette.peak, 1);
      draw->AddText({left + 4, y_peak - label_up}, palette.peak, ("fp32 peak " + fmt_gflops(peak)).c_str());
    }
    ImGui::Dummy({avail.x, chart_h + (app.docs ? ImGui::GetTextLineHeight() + 6 : 20)});
  }
  // Lines: GFLOPS against size (square shapes), one line per step, cuBLAS dashed in yellow.
  {
    ImGui::Text("GFLOPS by size (square shapes)");
    std::vector<int> sizes;
    for (const auto& s : shapes)
      if (s[0] == s[1] && s[1] == s[2]) sizes.push_back(s[0]);
    std::sort(sizes.begin(), sizes.end());
    const ImVec2 o = ImGui::GetCursorScreenPos();
    const float left = o.x + 40, bottom = o.y + chart_h, width = avail.x - 60;
    double top = std::max(peak, 1.0);
    for (const ResultRun* run : shown_runs)
      for (const auto& p : run->points) top = std::max({top, p.gflops, p.cublas_gflops});
    top *= 1.05;
    draw->AddLine({left, bottom}, {left + width, bottom}, palette.axis);
    auto x_of = [&](size_t i) { return left + width * (sizes.size() > 1 ? float(i) / float(sizes.size() - 1) : 0.5f); };
    for (size_t i = 0; i < sizes.size(); ++i) {
      const std::string label = std::to_string(sizes[i]);
      const float w = ImGui::CalcTextSize(label.c_str()).x;  // docs: centred, and inside the panel
      const float x = app.docs ? std::min(x_of(i) - w / 2, o.x + avail.x - w - 4) : x_of(i) - 12;
      draw->AddText({x, bottom + 2}, palette.text, label.c_str());
    }
    std::string hover;
    for (size_t r = 0; r < shown_runs.size(); ++r) {
      std::vector<ImVec2> points, cublas;
      for (size_t i = 0; i < sizes.size(); ++i)
        for (const auto& p : shown_runs[r]->points)
          if (p.m == sizes[i] && p.n == sizes[i] && p.k == sizes[i]) {
            points.push_back({x_of(i), bottom - float(p.gflops / top) * chart_h});
            cublas.push_back({x_of(i), bottom - float(p.cublas_gflops / top) * chart_h});
            const ImVec2& q = points.back();
            if (std::abs(mouse.x - q.x) < 6 && std::abs(mouse.y - q.y) < 6)
              hover = shown_runs[r]->label() + " at " + std::to_string(sizes[i]) + "^3: " + std::to_string(int(p.gflops)) +
                      " GFLOPS, cuBLAS " + std::to_string(int(p.cublas_gflops));
          }
      if (r == 0 && cublas.size() > 1) draw->AddPolyline(cublas.data(), int(cublas.size()), palette.cublas, 0, 2);
      if (points.size() > 1) draw->AddPolyline(points.data(), int(points.size()), im(index_colour(std::uint32_t(r))), 0, 2);
      for (const auto& q : points) draw->AddCircleFilled(q, 3, im(index_colour(std::uint32_t(r))));
    }
    if (peak > 0) {
      const float y_peak = bottom - float(peak / top) * chart_h;
      draw->AddLine({left, y_peak}, {left + width, y_peak}, palette.peak, 1);
    }
    if (!hover.empty()) ImGui::SetTooltip("%s", hover.c_str());
    ImGui::Dummy({avail.x, chart_h + (app.docs ? ImGui::GetTextLineHeight() + 6 : 20)});
    // Legend: one swatch per step, cuBLAS in yellow, the fp32 peak in red.
    for (size_t r = 0; r < shown_runs.size(); ++r) {
      const ImVec2 at = ImGui::GetCursorScreenPos();
      draw->AddRectFilled({at.x, at.y + 3}, {at.x + 10, at.y + 13}, im(index_colour(std::uint32_t(r))));
      ImGui::Dummy({12, 14});
      ImGui::SameLine();
      ImGui::Text("%s", (shown_runs[r]->step.substr(0, 2) + " " + shown_runs[r]->types_label()).c_str());
      ImGui::SameLine();
      if (ImGui::GetContentRegionAvail().x < 90) ImGui::NewLine();
    }
    ImGui::TextColored(ImGui::ColorConvertU32ToFloat4(palette.cublas), "cuBLAS");
    if (peak > 0) {
      ImGui::SameLine();
      ImGui::TextColored(ImGui::ColorConvertU32ToFloat4(palette.peak), "fp32 peak");
    }
  }
  if (app.gpu_present) {
    if (ImGui::Button("Run the selected step here") && !app.run_future.valid()) run_selected_step(app);
  } else {
    ImGui::TextDisabled("no GPU here: \"Run\" needs one");
  }
}

// ---- Frame ----------------------------------------------------------------------------------------------

void controls(App& app) {
  std::vector<std::string> labels;
  for (const auto& p : app.programs) labels.push_back(program_label(p));
  ImGui::SetNextItemWidth(ui(320));
  if (ImGui::BeginCombo("step", labels[size_t(app.program)].c_str())) {
    for (size_t i = 0; i < labels.size(); ++i)
      if (ImGui::Selectable(labels[i].c_str(), int(i) == app.program)) app.select_program(int(i));
    ImGui::EndCombo();
  }
  if (app.current().takes_shape) {
    ImGui::SameLine();
    int mnk[3] = {app.shape.m, app.shape.n, app.shape.k};
    ImGui::SetNextItemWidth(ui(240));
    if (ImGui::InputInt3("M N K", mnk, ImGuiInputTextFlags_EnterReturnsTrue)) {
      for (int& v : mnk) v = std::clamp(v, 1, kMaxMapSide);
      app.shape = {mnk[0], mnk[1], mnk[2]};
      app.map_dirty = app.trace_dirty = true;
      app.fit_shape();
    }
    ImGui::SameLine();
    bool reads_c = app.beta != 0;
    if (ImGui::Checkbox("beta != 0", &reads_c)) {
      app.beta = reads_c ? 0.5f : 0.0f;
      app.trace_dirty = true;
    }
    if (app.current().tensor_core) {
      ImGui::SameLine();
      ImGui::SetNextItemWidth(ui(60));
      if (ImGui::BeginCombo("layout", to_string(app.layout))) {
        for (gemm::Layout layout : {gemm::Layout::nn, gemm::Layout::nt, gemm::Layout::tn})
          if (ImGui::Selectable(to_string(layout), layout == app.layout)) {
            app.layout = layout;
            app.map_dirty = app.trace_dirty = true;
            app.fit_shape();
          }
        ImGui::EndCombo();
      }
    }
    const auto& configs = app.current().configs;
    if (!configs.empty()) {
      ImGui::SameLine();
      const TraceProblem p = app.problem();
      std::string now;
      if (app.params.empty() && app.current().params_for_shape && app.sms > 0)
        now = "by shape, " + std::to_string(app.sms) + " SMs: ";  // as the program chooses without --param
      for (const auto& [k, v] : p.params) now += k + "=" + std::to_string(v) + " ";
      ImGui::SetNextItemWidth(ui(360));
      if (ImGui::BeginCombo("params", now.c_str())) {
        for (const auto& config : configs) {
          std::string text;
          for (const auto& [k, v] : config) text += k + "=" + std::to_string(v) + " ";
          if (ImGui::Selectable(text.c_str(), config == p.params)) {
            app.params = config;
            app.map_dirty = app.trace_dirty = true;
            app.block = {0, 0, 0};
            app.warp = first_traced_warp(app.current(), app.problem(), app.block);
          }
        }
        ImGui::EndCombo();
      }
    }
  }
  if (!app.message.empty()) {
    ImGui::SameLine();
    ImGui::TextColored(ImGui::ColorConvertU32ToFloat4(palette.message), "%s", app.message.c_str());
  }
}

void menu(App& app, bool& open_popup) {
  if (ImGui::BeginMenuBar()) {
    if (ImGui::BeginMenu("File")) {
      if (ImGui::MenuItem("Open results file...")) open_popup = true;
      ImGui::EndMenu();
    }
    ImGui::EndMenuBar();
  }
  if (open_popup) {
    ImGui::OpenPopup("Open results file");
    open_popup = false;
  }
  if (ImGui::BeginPopupModal("Open results file", nullptr, ImGuiWindowFlags_AlwaysAutoResize)) {
    ImGui::Text("Path of a results file (docs/results/<gpu>.json or build/results/<gpu>.json):");
    ImGui::SetNextItemWidth(ui(600));
    ImGui::InputText("##path", &app.open_path);
    if (ImGui::Button("Open")) {
      ResultsFile file = load_results(app.open_path);
      app.message = file.ok() ? "opened " + app.open_path : file.error;
      app.results.push_back(file);
      app.results_index = int(app.results.size()) - 1;
      app.perf_shape = -1;
      ImGui::CloseCurrentPopup();
    }
    ImGui::SameLine();
    if (ImGui::Button("Cancel")) ImGui::CloseCurrentPopup();
    ImGui::EndPopup();
  }
}

void frame(App& app, int width, int height, bool& open_popup) {
  app.grids.clear();
  app.panels.clear();
  app.shown = nlohmann::json::object();
  if (app.run_future.valid() && app.run_future.wait_for(std::chrono::seconds(0)) == std::future_status::ready) {
    const std::string json = app.run_future.get();
    if (json.empty()) {
      app.message = "the run failed (see the step's own output in a terminal)";
    } else {
      ResultsFile file = load_results(json);
      file.path = "this session: " + app.current().step;
      app.message = file.ok() ? "run added to the results list" : file.error;
      app.results.push_back(file);
      app.results_index = int(app.results.size()) - 1;
      app.perf_shape = -1;
    }
  }
  ImGui::SetNextWindowPos({0, 0});
  ImGui::SetNextWindowSize({float(width), float(height)});
  ImGui::Begin("GEMM Steps", nullptr,
               ImGuiWindowFlags_NoDecoration | ImGuiWindowFlags_NoMove | ImGuiWindowFlags_MenuBar |
                   ImGuiWindowFlags_NoBringToFrontOnFocus | ImGuiWindowFlags_NoSavedSettings);
  if (!app.docs) {
    menu(app, open_popup);
    controls(app);
  }
  const ImVec2 avail = ImGui::GetContentRegionAvail();
  const float gap = ImGui::GetStyle().ItemSpacing.x;
  const float w = app.docs ? avail.x : (avail.x - 2 * gap) / 3;
  auto panel = [&](const char* id, const char* name, auto body) {
    if (app.docs && app.solo_panel != name) return;
    ImGui::BeginChild(id, {w, avail.y}, true, ImGuiWindowFlags_NoScrollbar | ImGuiWindowFlags_NoScrollWithMouse);
    const ImVec2 p = ImGui::GetWindowPos(), s = ImGui::GetWindowSize();
    app.panels[name] = {p.x, p.y, s.x, s.y};
    body(app, s);
    app.drawn_bottom[name] = ImGui::GetCursorScreenPos().y;
    ImGui::EndChild();
    if (!app.docs) ImGui::SameLine();
  };
  panel("##thread", "thread", thread_map_panel);
  panel("##access", "access", access_panel);
  panel("##performance", "performance", performance_panel);
  ImGui::End();
  ++app.frames_drawn;
}

bool write_screenshot(const App& app, const Args& args, int fb_width, int fb_height, float scale) {
  std::vector<unsigned char> pixels(size_t(fb_width) * size_t(fb_height) * 3);
  glPixelStorei(GL_PACK_ALIGNMENT, 1);
  glReadBuffer(GL_BACK);
  glReadPixels(0, 0, fb_width, fb_height, GL_RGB, GL_UNSIGNED_BYTE, pixels.data());
  // OpenGL's rows run bottom-up; a PNG's top-down. Crop to the panel asked for.
  int x0 = 0, y0 = 0, w = fb_width, h = fb_height;
  if (args.panel != "all") {
    const auto& r = app.panels.at(args.panel);
    x0 = int(r[0] * scale), y0 = int(r[1] * scale), w = int(r[2] * scale), h = int(r[3] * scale);
    // --docs: down to what the panel drew, and a margin (the window is taller than most panels).
    if (app.docs) h = std::min(h, int((app.drawn_bottom.at(args.panel) - r[1]) * scale) + int(8 * scale));
    w = std::min(w, fb_width - x0), h = std::min(h, fb_height - y0);
  }
  std::vector<unsigned char> out(size_t(w) * size_t(h) * 3);
  for (int y = 0; y < h; ++y)
    std::copy_n(&pixels[(size_t(fb_height - 1 - (y0 + y)) * size_t(fb_width) + size_t(x0)) * 3], size_t(w) * 3,
                &out[size_t(y) * size_t(w) * 3]);
  if (!stbi_write_png(args.screenshot.c_str(), w, h, 3, out.data(), w * 3)) {
    std::fprintf(stderr, "gemm_viewer: cannot write %s\n", args.screenshot.c_str());
    return false;
  }
  nlohmann::json geometry;
  geometry["image"] = {{"width", w}, {"height", h}, {"origin_x", x0}, {"origin_y", y0}, {"scale", scale}};
  for (const auto& [name, r] : app.panels) geometry["panels"][name] = {r[0] * scale - float(x0), r[1] * scale - float(y0), r[2] * scale, r[3] * scale};
  for (const DrawnGrid& g : app.grids)
    geometry["grids"].push_back({{"name", g.name}, {"x", g.x * scale - float(x0)}, {"y", g.y * scale - float(y0)},
                                 {"cell", g.cell * scale}, {"row0", g.row0}, {"col0", g.col0}, {"rows", g.rows},
                                 {"cols", g.cols}});
  const TraceProblem p = app.problem();
  geometry["shown"] = app.shown;
  geometry["selection"] = {{"step", app.current().step}, {"variant", app.current().variant},
                           {"shape", {p.shape.m, p.shape.n, p.shape.k}}, {"beta", p.beta}, {"params", p.params},
                           {"block", {app.block.x, app.block.y}}, {"warp", app.warp},
                           {"iteration_index", app.iteration_index}, {"instruction_index", app.instruction_index}};
  std::ofstream(args.geometry) << geometry.dump(2) << "\n";
  return true;
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

int main(int argc, char** argv) {
  const Args args = parse(argc, argv);
  App app;
  app.program = find_program(app.programs, args.step, args.variant);
  if (app.program < 0) {
    std::string known;
    for (const auto& p : app.programs) known += " " + program_label(p);
    usage_error("no traced step '" + args.step + (args.variant.empty() ? "" : "' variant '" + args.variant) +
                "'; known:" + known);
  }
  for (const std::string& results : args.results.empty() ? default_results(argv[0]) : args.results) {
    if (std::filesystem::is_directory(results)) {
      for (const auto& path : results_files_in(results)) app.results.push_back(load_results(path));
    } else {
      app.results.push_back(load_results(results));  // a missing or malformed file shows its message in the panel
    }
  }
  app.sms = args.sms;
  for (const ResultsFile& file : app.results)
    if (app.sms == 0 && file.ok()) app.sms = file.sms;
  app.shape = args.shape;
  app.beta = args.beta;
  app.params = args.params;
  if (args.defaults && app.params.empty()) app.params = app.current().default_params;  // --param takes the rest
  app.layout = args.layout;
  if (app.current().shape_rule) {
    const std::string rule = app.current().shape_rule(app.shape, app.layout);
    if (!rule.empty()) usage_error("--shape for " + app.current().step + " (layout " + to_string(app.layout) + "): " + rule);
  }
  app.perf_tensor = args.perf == "tensor";
  app.colour_by = args.colour == "block" ? ColourBy::block : args.colour == "warp" ? ColourBy::warp : ColourBy::thread;
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
  app.docs = args.docs;
  app.solo_panel = args.panel;

  app.gpu_present = std::system("nvidia-smi -L > /dev/null 2>&1") == 0;
  app.bin_dir = std::filesystem::absolute(argv[0]).parent_path().string();

  if (!glfwInit()) {
    std::fprintf(stderr, "gemm_viewer: no display (GLFW could not start): run it on a desktop, or headless under "
                         "xvfb-run -a -s \"-screen 0 1920x1080x24\"\n");
    return kExitGraphics;
  }
  const bool headless = !args.screenshot.empty();
  glfwWindowHint(GLFW_CONTEXT_VERSION_MAJOR, 3);
  glfwWindowHint(GLFW_CONTEXT_VERSION_MINOR, 3);
  glfwWindowHint(GLFW_OPENGL_PROFILE, GLFW_OPENGL_CORE_PROFILE);
  glfwWindowHint(GLFW_OPENGL_FORWARD_COMPAT, GLFW_TRUE);
  if (headless) glfwWindowHint(GLFW_VISIBLE, GLFW_FALSE);
  GLFWwindow* window = glfwCreateWindow(args.width, args.height, "GEMM Steps viewer", nullptr, nullptr);
  if (!window) {
    std::fprintf(stderr, "gemm_viewer: could not open an OpenGL 3.3 core window (driver or display): on a machine "
                         "without a GPU driver, Mesa's software OpenGL (libgl1-mesa-dri) provides one\n");
    glfwTerminate();
    return kExitGraphics;
  }
  glfwMakeContextCurrent(window);
  if (!gladLoadGL(glfwGetProcAddress)) {
    std::fprintf(stderr, "gemm_viewer: could not load OpenGL functions\n");
    return kExitGraphics;
  }
  glfwSwapInterval(headless ? 0 : 1);
  IMGUI_CHECKVERSION();
  ImGui::CreateContext();
  ImGui::GetIO().IniFilename = nullptr;
  if (args.theme == "light") use_light_theme();
  else ImGui::StyleColorsDark();
  if (args.font_scale != 1.0f) {
    // The built-in font rasterised at the size asked (sharper than scaling the 13-pixel one).
    ImFontConfig font;
    font.SizePixels = std::round(13.0f * args.font_scale);
    ImGui::GetIO().Fonts->AddFontDefault(&font);
    ImGui::GetStyle().ScaleAllSizes(args.font_scale);
  }
  // Without anti-aliased lines and fills ImGui emits a third of the vertices: the frame stays well
  // under 16 ms with a software renderer (Mesa's llvmpipe in CI), at the cost of jagged chart lines.
  ImGui::GetStyle().AntiAliasedLines = false;
  ImGui::GetStyle().AntiAliasedFill = false;
  ImGui_ImplGlfw_InitForOpenGL(window, true);
  ImGui_ImplOpenGL3_Init("#version 330 core");

  bool open_popup = false;
  int frames = 0, exit_code = 0;
  // Headless: a few frames for ImGui's layout to settle, the background launch totals to finish,
  // and --frames more to time. Their median is what is printed: on a shared machine a few frames
  // are held up by other processes, which would move a mean but say nothing of the viewer.
  const int settle = 3;
  std::vector<double> timed_ms;
  while (!glfwWindowShouldClose(window)) {
    glfwPollEvents();
    int fb_width = 0, fb_height = 0, win_width = 0, win_height = 0;
    glfwGetFramebufferSize(window, &fb_width, &fb_height);
    glfwGetWindowSize(window, &win_width, &win_height);
    const auto start = std::chrono::steady_clock::now();
    ImGui_ImplOpenGL3_NewFrame();
    ImGui_ImplGlfw_NewFrame();
    ImGui::NewFrame();
    frame(app, win_width, win_height, open_popup);
    ImGui::Render();
    glViewport(0, 0, fb_width, fb_height);
    if (args.theme == "light") glClearColor(0.94f, 0.94f, 0.94f, 1);
    else glClearColor(0.08f, 0.08f, 0.09f, 1);
    glClear(GL_COLOR_BUFFER_BIT);
    ImGui_ImplOpenGL3_RenderDrawData(ImGui::GetDrawData());
    glFinish();
    const double ms = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start).count();
    ++frames;
    if (headless) {
      const bool settled = frames >= settle && (app.totals.has_value() || !app.totals_future.valid());
      if (settled && frames > settle + args.frames) {
        if (args.frames > 0) {
          std::nth_element(timed_ms.begin(), timed_ms.begin() + timed_ms.size() / 2, timed_ms.end());
          std::printf("frame time: %.2f ms (median of %d frames)\n", timed_ms[timed_ms.size() / 2], args.frames);
        }
        exit_code = write_screenshot(app, args, fb_width, fb_height, float(fb_width) / float(std::max(1, win_width))) ? 0 : 1;
        break;
      }
      if (settled && frames > settle) timed_ms.push_back(ms);
      if (!settled && app.totals_future.valid()) app.totals_future.wait();
    }
    glfwSwapBuffers(window);
  }
  ImGui_ImplOpenGL3_Shutdown();
  ImGui_ImplGlfw_Shutdown();
  ImGui::DestroyContext();
  glfwDestroyWindow(window);
  glfwTerminate();
  return exit_code;
}
