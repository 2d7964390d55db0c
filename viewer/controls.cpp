// The menu bar (File > Open a results file) and the top bar: the step, the shape, beta, a
// tensor-core step's layout, the tunables, and the last message.
#include "panels.hpp"
// imgui_stdlib.h after imgui.h (panels.hpp includes it): it uses imgui.h's macros.
#include <imgui_stdlib.h>

#include <algorithm>

#include "theme.hpp"
#ifdef __EMSCRIPTEN__
#include "web/web.hpp"
#endif

namespace gemm::viewer {

bool pick(const char* label, const std::vector<std::string>& names, int& selected) {
  bool picked = false;
  if (ImGui::BeginCombo(label, names[size_t(selected)].c_str())) {
    for (size_t i = 0; i < names.size(); ++i)
      if (ImGui::Selectable(names[i].c_str(), int(i) == selected)) selected = int(i), picked = true;
    ImGui::EndCombo();
  }
  return picked;
}

void controls(App& app) {
  std::vector<std::string> labels;
  for (const auto& p : app.programs) labels.push_back(program_label(p));
  ImGui::SetNextItemWidth(ui(320));
  int chosen = app.program;
  if (pick("step", labels, chosen)) app.select_program(chosen);
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
        for (Layout layout : app.current().layouts)  // the FP8 step takes NT alone
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
      now += params_text(p.params);
      ImGui::SetNextItemWidth(ui(360));
      if (ImGui::BeginCombo("params", now.c_str())) {
        for (const auto& config : configs) {
          if (ImGui::Selectable(params_text(config).c_str(), config == p.params)) {
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

void open_results(App& app, const std::string& path) {
  ResultsFile file = load_results(path);
  app.message = file.ok() ? "opened " + path : file.error;
  app.add_results(file);
}

void menu(App& app, bool& open_popup) {
  if (ImGui::BeginMenuBar()) {
    if (ImGui::BeginMenu("File")) {
#ifdef __EMSCRIPTEN__  // in a browser: its file picker (or a file dropped on the page), a PNG download
      if (ImGui::MenuItem("Open results file...")) web_choose_results_file();
      if (ImGui::MenuItem("Save screenshot (PNG)")) web_save_screenshot();
#else
      if (ImGui::MenuItem("Open results file...")) open_popup = true;
#endif
      ImGui::EndMenu();
    }
    if (ImGui::BeginMenu("View")) {
      ImGui::MenuItem("Shared memory panel", nullptr, &app.show_shared);
      ImGui::MenuItem("Timeline: pipeline stages and persistent rounds", nullptr, &app.show_timeline);
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
      open_results(app, app.open_path);
      ImGui::CloseCurrentPopup();
    }
    ImGui::SameLine();
    if (ImGui::Button("Cancel")) ImGui::CloseCurrentPopup();
    ImGui::EndPopup();
  }
}

}  // namespace gemm::viewer
