// The GEMM Steps viewer: thread map, warp access and measured GFLOPS side by side (docs/viewer.md).
//
// Everything drawn comes from viewer_model.hpp, which computes it from the steps' own traces, the
// access model and results files. This file only wires the rooms together: the command line
// (args.cpp) starts the App (app.cpp); each frame lays out the menu and top bar (controls.cpp) and
// the three panels (thread_map_panel.cpp, access_panel.cpp, performance_panel.cpp) in the theme
// (theme.cpp). Headless mode (--screenshot) renders a few frames, writes a PNG and a geometry file
// (screenshot.cpp: where each grid was drawn) and exits.
//
// Exit codes: 0 done, 2 bad usage, 3 no display or no OpenGL 3.3 context.
#include <glad/gl.h>
// glad first: it provides the GL declarations GLFW would otherwise include.
#include <GLFW/glfw3.h>
#include <backends/imgui_impl_glfw.h>
#include <backends/imgui_impl_opengl3.h>
#include <imgui.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <vector>

#include "app.hpp"
#include "args.hpp"
#include "panels.hpp"
#include "screenshot.hpp"
#include "theme.hpp"

namespace {

using namespace gemm::viewer;

// One frame: the menu and top bar (not in a docs picture), then the panels side by side (--docs:
// the one asked for, across the window).
void frame(App& app, int width, int height, bool& open_popup) {
  app.grids.clear();
  app.panels.clear();
  app.shown = nlohmann::json::object();
  collect_run(app);
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

}  // namespace

int main(int argc, char** argv) {
  const Args args = parse(argc, argv);
  App app;
  start(app, args, argv[0]);

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
  use_theme(args.theme, args.font_scale);
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
    const ImVec4 clear = clear_colour(args.theme);
    glClearColor(clear.x, clear.y, clear.z, clear.w);
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
          // What the last frame asked of the renderer: unlike the time, it does not depend on the
          // machine's load, so a test can hold it (a grid drawn cell by cell needs 4 vertices a cell).
          const ImDrawData* drawn = ImGui::GetDrawData();
          std::printf("draw data: %d vertices, %d indices, %d lists\n", drawn->TotalVtxCount, drawn->TotalIdxCount,
                      drawn->CmdListsCount);
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
