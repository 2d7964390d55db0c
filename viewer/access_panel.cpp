// The warp access panel: the selected warp's memory instructions by iteration, the elements (or
// shared-memory words, by bank) one instruction touches coloured by lane, its counts and the whole
// launch's.
#include <algorithm>
#include <chrono>
#include <cmath>
#include <sstream>

#include "panels.hpp"
#include "theme.hpp"

namespace gemm::viewer {

// The 32 banks of each phase of a shared access: the lanes in each, a conflict outlined with its degree.
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

namespace {

// The whole launch's counts, computed in the background (large launches take a moment).
void launch_counts(App& app, const TracedProgram& program, const TraceProblem& problem) {
  std::ostringstream k;
  k << app.program << "/" << problem.shape.m << "x" << problem.shape.n << "x" << problem.shape.k << "/" << problem.beta;
  for (const auto& [name, value] : problem.params) k << "/" << name << "=" << value;
  if (k.str() != app.totals_key) {
    app.totals_key = k.str();
    app.totals.reset();
    const TracedProgram* p = &program;
    app.totals_future = in_background([p, problem] { return launch_totals(*p, problem); });
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
    for (const std::string& line : totals_text(t)) ImGui::Text("%s", line.c_str());
  } else {
    ImGui::TextDisabled("whole launch: computing...");
  }
}

}  // namespace

void access_panel(App& app, ImVec2 size) {
  const TracedProgram& program = app.current();
  const TraceProblem problem = app.problem();
  if (app.trace_dirty) {
    app.trace = warp_trace(program, problem, app.block, app.warp);
    app.trace_dirty = false;
    app.iteration_index = std::clamp(app.iteration_index, 0, std::max(0, int(app.trace.iterations.size()) - 1));
  }
  ImGui::Text("Warp access: block (%d, %d), warp %d", app.block.x, app.block.y, app.warp);
  // No top bar in a docs picture: the step, shape and tunables it shows.
  if (app.docs) ImGui::TextWrapped("%s", problem_text(program, problem).c_str());
  if (app.trace.instructions.empty()) {
    ImGui::TextWrapped("%s", quiet_warp_text(program).c_str());
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
    const std::string text = instruction_row_text(program, iteration, app.trace.instructions[size_t(at[j])]);
    if (ImGui::Selectable((text + "##" + std::to_string(j)).c_str(), int(j) == app.instruction_index))
      app.instruction_index = int(j);
    if (int(j) == app.instruction_index && app.frames_drawn < 3) ImGui::SetScrollHereY(0.5f);
  }
  ImGui::EndChild();
  const TraceInstruction& ins = app.trace.instructions[size_t(at[size_t(app.instruction_index)])];
  const OperandGrid grid = operand_grid(ins.operand, program, problem, app.trace);
  const std::vector<Touch> touched = touches(ins, grid);
  const OperandWindow window = operand_window(grid, touched);
  const std::string key = std::to_string(app.program) + "/" + std::to_string(at[size_t(app.instruction_index)]) + "/" +
                          std::to_string(window.row0) + "," + std::to_string(window.col0) + "/" +
                          std::to_string(window.rows) + "x" + std::to_string(window.cols) + "/" +
                          std::to_string(app.block.x) + "," + std::to_string(app.block.y) + "/" +
                          std::to_string(app.warp) + "/" + std::to_string(iteration);
  if (key != app.operand_texture_key) {
    app.operand_texture.upload(window.pixels(touched), window.cols, window.rows);
    app.operand_texture_key = key;
  }
  ImGui::TextWrapped("%s", operand_caption(ins, grid, window).c_str());
  const ImVec2 avail = ImGui::GetContentRegionAvail();
  // Docs pictures are cropped to what was drawn: the grid takes up to 640 pixels of height, whatever is left.
  const float grid_h = app.docs ? 640.0f * ImGui::GetIO().FontGlobalScale : avail.y * 0.45f;
  const float cell = std::max(2.0f, std::floor(std::min({avail.x / float(window.cols), grid_h / float(window.rows),
                                                         app.docs ? 32.0f : 1e9f})));
  const ImVec2 p0 = ImGui::GetCursorScreenPos();
  ImDrawList* draw = ImGui::GetWindowDrawList();
  draw->AddImage(app.operand_texture.handle(), p0, {p0.x + float(window.cols) * cell, p0.y + float(window.rows) * cell});
  app.grids.push_back({"operand", p0.x, p0.y, cell, window.row0, window.col0, window.rows, window.cols});
  if (!grid.banked && cell >= 4) {
    // 32-byte sector and 128-byte line boundaries along each row, in the instruction's element size.
    for (int r = 0; r < window.rows; ++r)
      for (int c = 0; c <= window.cols; ++c) {
        const Boundary boundary =
            boundary_at((long long)(window.row0 + r) * grid.cols + window.col0 + c, ins.element_bytes);
        if (boundary == Boundary::none) continue;
        const bool line = boundary == Boundary::line;
        const float x = p0.x + float(c) * cell, y = p0.y + float(r) * cell;
        draw->AddLine({x, y}, {x, y + cell}, line ? IM_COL32(255, 255, 255, 255) : IM_COL32(150, 150, 150, 255),
                      line ? 2.0f : 1.0f);
      }
  }
  ImGui::Dummy({float(window.cols) * cell, float(window.rows) * cell});
  if (!grid.banked) ImGui::TextDisabled("thin lines: 32-byte sectors; thick: 128-byte lines");

  const InstructionCost cost = instruction_cost(ins);
  app.shown["instruction"] = {{"label", ins.label}, {"operand", to_string(ins.operand)}, {"width", ins.access.width},
                              {"iteration", iteration}, {"shared", cost.shared}};
  if (cost.shared)
    app.shown["instruction"].update({{"wavefronts", cost.shared_cost.wavefronts},
                                     {"ideal_wavefronts", cost.shared_cost.ideal_wavefronts},
                                     {"max_conflict", cost.shared_cost.max_conflict}});
  else
    app.shown["instruction"].update({{"requests", cost.global.requests}, {"sectors", cost.global.sectors},
                                     {"ideal_sectors", cost.global.ideal_sectors}, {"lines", cost.global.lines}});
  if (app.docs) ImGui::TextWrapped("%s", instruction_text(ins).c_str());  // the instruction named, in full
  ImGui::TextWrapped("%s", cost_text(cost).c_str());
  const std::string note = cp_async_note(ins);
  if (!note.empty()) ImGui::TextWrapped("%s", note.c_str());
  if (cost.shared) bank_strip(ins);
  launch_counts(app, program, problem);
}

}  // namespace gemm::viewer
