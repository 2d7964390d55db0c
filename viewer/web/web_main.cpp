// The viewer in a browser (tools/web; docs/viewer.md, "In a browser"): the native viewer's App,
// panels and frame() (main.cpp) in the page's animation loop, compiled to WebAssembly by Emscripten
// and drawn by WebGL 2. What is the browser's own is here:
//   - the selection comes from the page's link (link.hpp: the query is the command line, which
//     args.cpp parses as natively) and the link follows the selection as it changes;
//   - a results file chosen in the browser's picker or dropped on the page is written into the
//     page's file system and opened as File > Open opens a path (open_results);
//   - "Save screenshot" downloads the PNG that --screenshot writes;
//   - gemm_web_report() returns what --screenshot's geometry file holds (where each grid was drawn,
//     what the panels showed, the selection), the link and the frame time: tools/web --check
//     compares it with the native viewer's.
// A bad link (an unknown step, a warp outside the block) is said on the page, which starts on the
// defaults; "Run the selected step here" needs the native viewer on a machine with a GPU.
#include <emscripten.h>
#include <emscripten/html5.h>

#include <GLFW/glfw3.h>
#include <backends/imgui_impl_glfw.h>
#include <backends/imgui_impl_opengl3.h>
#include <imgui.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <memory>
#include <string>
#include <vector>

#include "app.hpp"
#include "args.hpp"
#include "link.hpp"
#include "panels.hpp"
#include "screenshot.hpp"
#include "theme.hpp"
#include "web.hpp"

namespace {

using namespace gemm::viewer;

// Where the page's file system has the build: the shipped results are under /gemm-steps/docs/results
// (web.cmake); a build's own results folder does not exist here.
const char* const kProgramPath = "/gemm-steps/build/bin/gemm_viewer";
// The frames whose median is reported as the frame time (the native --frames median, over a window).
constexpr size_t kTimedFrames = 120;

struct Page {
  Args args;
  std::unique_ptr<App> app;
  GLFWwindow* window = nullptr;
  bool open_popup = false, save_screenshot = false;
  std::string link_error;  // what was wrong with the link the page was opened with ("": nothing)
  std::string query;       // the selection's query, as the link now shows it
  std::vector<double> frame_ms;
  long long frames = 0;
  int fb_width = 0, fb_height = 0, win_width = 0, win_height = 0;
};
Page page;

// clang-format off
EM_JS(int, page_width, (), { return window.innerWidth; });
EM_JS(int, page_height, (), { return window.innerHeight; });
EM_JS(void, show_query, (const char* query), {
  history.replaceState(null, "", location.pathname + "?" + UTF8ToString(query) + location.hash);
});
EM_JS(void, open_file_picker, (), { Module.chooseResultsFile(); });
EM_JS(void, say_no_webgl, (), { Module.noWebGL(); });
EM_JS(void, download_file, (const char* path, const char* name, const char* type), {
  const data = FS.readFile(UTF8ToString(path));
  const url = URL.createObjectURL(new Blob([data], {type: UTF8ToString(type)}));
  const a = document.createElement("a");
  a.href = url;
  a.download = UTF8ToString(name);
  document.body.appendChild(a);
  a.click();
  a.remove();
  setTimeout(() => URL.revokeObjectURL(url), 1000);
});
// clang-format on

// The App the link asks for; a bad link is said, and the defaults shown.
void start_from_link() {
  const std::string link = emscripten_run_script_string("window.location.search");
  std::vector<std::string> arguments = arguments_from_query(link);
  arguments.insert(arguments.begin(), kProgramPath);
  std::vector<char*> argv;
  for (std::string& argument : arguments) argv.push_back(argument.data());
  try {
    page.args = parse(int(argv.size()), argv.data());
    page.app = std::make_unique<App>();
    start(*page.app, page.args, kProgramPath);
    return;
  } catch (const gemm::UsageError& error) {
    page.link_error = error.what();
  }
  std::fprintf(stderr, "gemm_viewer: this link's selection: %s; showing the defaults\n", page.link_error.c_str());
  page.args = Args{};
  page.app = std::make_unique<App>();
  start(*page.app, page.args, kProgramPath);
  page.app->message = "this link: " + page.link_error + "; showing the defaults";
}

double median(std::vector<double> values) {
  if (values.empty()) return 0;
  std::nth_element(values.begin(), values.begin() + long(values.size() / 2), values.end());
  return values[values.size() / 2];
}

void one_frame() {
  App& app = *page.app;
  // The canvas follows the browser's window (at least the native viewer's smallest size).
  const int want_w = std::max(640, page_width()), want_h = std::max(400, page_height());
  glfwGetWindowSize(page.window, &page.win_width, &page.win_height);
  if (want_w != page.win_width || want_h != page.win_height) glfwSetWindowSize(page.window, want_w, want_h);
  glfwPollEvents();
  glfwGetFramebufferSize(page.window, &page.fb_width, &page.fb_height);
  glfwGetWindowSize(page.window, &page.win_width, &page.win_height);

  const auto begin = std::chrono::steady_clock::now();
  ImGui_ImplOpenGL3_NewFrame();
  ImGui_ImplGlfw_NewFrame();
  ImGui::NewFrame();
  frame(app, page.win_width, page.win_height, page.open_popup);
  ImGui::Render();
  glViewport(0, 0, page.fb_width, page.fb_height);
  const ImVec4 clear = clear_colour(page.args.theme);
  glClearColor(clear.x, clear.y, clear.z, clear.w);
  glClear(GL_COLOR_BUFFER_BIT);
  ImGui_ImplOpenGL3_RenderDrawData(ImGui::GetDrawData());
  glFinish();
  const double ms = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - begin).count();
  if (page.frame_ms.size() == kTimedFrames) page.frame_ms.erase(page.frame_ms.begin());
  page.frame_ms.push_back(ms);
  ++page.frames;

  // The browser keeps the frame until this function returns: read it back now.
  if (page.save_screenshot) {
    page.save_screenshot = false;
    Args shot = page.args;
    shot.panel = "all";
    shot.docs = false;
    shot.screenshot = "/tmp/gemm-viewer.png";
    shot.geometry = shot.screenshot + ".json";
    const float scale = float(page.fb_width) / float(std::max(1, page.win_width));
    if (write_screenshot(app, shot, page.fb_width, page.fb_height, scale))
      download_file(shot.screenshot.c_str(), ("gemm-viewer-" + app.current().step + ".png").c_str(), "image/png");
  }

  // The link follows the selection. A link that was refused stays as typed until the selection
  // changes, so that the reader sees what was asked.
  const std::string query = query_from_arguments(selection_arguments(app));
  if (query != page.query) {
    if (page.frames > 1 || page.link_error.empty()) show_query(query.c_str());
    page.query = query;
  }
}

}  // namespace

namespace gemm::viewer {

void web_choose_results_file() { open_file_picker(); }
void web_save_screenshot() { page.save_screenshot = true; }

}  // namespace gemm::viewer

extern "C" {

// A file the page wrote into its file system (chosen or dropped): opened as File > Open opens one.
EMSCRIPTEN_KEEPALIVE void gemm_web_open_results(const char* path) {
  if (page.app) open_results(*page.app, path);
}

// Frames drawn so far (the check waits for a few).
EMSCRIPTEN_KEEPALIVE int gemm_web_frames() { return int(page.frames); }

// What the last frame drew, as --screenshot's geometry file has it (origin: the canvas' top left),
// with what only the page has: the link, the frame time, the link's error and the message shown.
EMSCRIPTEN_KEEPALIVE const char* gemm_web_report() {
  static std::string text;
  if (!page.app) return "{}";
  const App& app = *page.app;
  const float scale = float(page.fb_width) / float(std::max(1, page.win_width));
  nlohmann::json report = geometry_json(app, 0, 0, scale);
  report["image"] = {{"width", page.fb_width}, {"height", page.fb_height}, {"origin_x", 0}, {"origin_y", 0},
                     {"scale", scale}};
  report["query"] = page.query;
  report["link_error"] = page.link_error;
  report["message"] = app.message;
  report["frames"] = page.frames;
  report["frame_ms_median"] = median(page.frame_ms);
  report["frame_ms_count"] = page.frame_ms.size();
  nlohmann::json files = nlohmann::json::array();
  for (const ResultsFile& file : app.results) files.push_back({{"name", results_name(file)}, {"error", file.error}});
  report["results_files"] = files;
  text = report.dump();
  return text.c_str();
}

}  // extern "C"

int main() {
  start_from_link();
  if (!glfwInit()) {
    std::fprintf(stderr, "gemm_viewer: GLFW could not start in this browser\n");
    return kExitGraphics;
  }
  page.window = glfwCreateWindow(std::max(640, page_width()), std::max(400, page_height()), "GEMM Steps viewer",
                                 nullptr, nullptr);
  if (!page.window) {
    std::fprintf(stderr, "gemm_viewer: this browser gave no WebGL 2 context (is WebGL turned off?)\n");
    say_no_webgl();
    return kExitGraphics;
  }
  glfwMakeContextCurrent(page.window);
  IMGUI_CHECKVERSION();
  ImGui::CreateContext();
  ImGui::GetIO().IniFilename = nullptr;
  use_theme(page.args.theme, page.args.font_scale);
  ImGui_ImplGlfw_InitForOpenGL(page.window, true);
  ImGui_ImplOpenGL3_Init("#version 300 es");
  emscripten_set_main_loop(one_frame, 0, true);
  return 0;
}
