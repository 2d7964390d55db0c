// The viewer's panels and bars: each draws one part of the window from the App (and the model's
// viewer_model.hpp), inside the ImGui window or child the caller began. main.cpp lays them out.
#pragma once

#include <imgui.h>

#include <string>
#include <vector>

#include "app.hpp"

namespace gemm::viewer {

// thread_map_panel.cpp: who computes each element of C; a click selects a warp.
void thread_map_panel(App& app, ImVec2 size);
// access_panel.cpp: the selected warp's memory instructions, what one touches, its counts.
void access_panel(App& app, ImVec2 size);
// performance_panel.cpp: measured GFLOPS from the results files, and running the step here.
void performance_panel(App& app, ImVec2 size);
// shared_panel.cpp: a stage of A or B in shared memory, what one instruction, TMA box or wgmma
// k-step touches in it.
void shared_panel(App& app, ImVec2 size);
// access_panel.cpp: per phase of a shared access, the lanes in each bank, conflicts outlined.
void bank_strip(const TraceInstruction& instruction);
// A run started by the performance panel that has finished: its results file added to the list.
void collect_run(App& app);
// timeline_panel.cpp: one block's pipeline stages over its k-tiles; a persistent grid's rounds.
void timeline_panel(App& app, ImVec2 size);
// controls.cpp: the menu bar (opening a results file) and the top bar (step, shape, tunables).
void menu(App& app, bool& open_popup);
void controls(App& app);
// A results file opened by the user: added to the list and shown, or its one-line error said
// (controls.cpp; the browser's page calls it for a file chosen or dropped there).
void open_results(App& app, const std::string& path);
// One frame: the menu and top bar, then the panels (main.cpp; the browser's page draws the same).
void frame(App& app, int width, int height, bool& open_popup);
// A combo box of names (controls.cpp); true when one was picked (`selected` holds it).
bool pick(const char* label, const std::vector<std::string>& names, int& selected);

}  // namespace gemm::viewer
