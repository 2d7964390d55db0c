// The shared-memory panel: one stage of A or B as it lies in shared memory (128-byte lines by 32
// banks, as a texture), each word coloured by the element it holds, and what the selected item of
// the list touches in it: a warp's instruction (lanes, phases, wavefronts), a TMA box landing (the
// box as stored beside it), or a wgmma k-step's reads through its descriptor (core matrices). The
// model is shared_model.cpp; this file draws it.
#include <algorithm>
#include <cmath>

#include "panels.hpp"
#include "theme.hpp"

namespace gemm::viewer {

namespace {

// The key of what the view depends on: recomputed (and its textures uploaded) only when it changes.
std::string view_key(const App& app, const TraceProblem& problem) {
  std::string key = std::to_string(app.program) + "/" + shape_text(problem.shape) + "/" + to_string(problem.layout) +
                    "/" + std::to_string(problem.beta) + "/" + params_text(problem.params) + "/" +
                    std::to_string(app.block.x) + "," + std::to_string(app.block.y) + "/" + std::to_string(app.warp) +
                    "/" + to_string(app.shared.operand) + "/" + std::to_string(app.shared.k_tile) + "/" +
                    std::to_string(app.shared.item) + "/" + to_string(app.shared.colour);
  return key;
}

// A grid drawn from a texture of 32 columns: its top-left corner, cell size and the rows shown.
struct Placed {
  ImVec2 origin;
  float cell = 1;
  int row0 = 0, rows = 0;
};

Placed draw_grid(App& app, const Texture& texture, int rows, int row0, int shown_rows, float cell, const char* name) {
  const ImVec2 p0 = ImGui::GetCursorScreenPos();
  ImDrawList* draw = ImGui::GetWindowDrawList();
  const ImVec2 p1{p0.x + kSharedBanks * cell, p0.y + float(shown_rows) * cell};
  draw->AddImage(texture.handle(), p0, p1, {0, float(row0) / float(rows)}, {1, float(row0 + shown_rows) / float(rows)});
  if (cell >= 4) {
    // 16-byte chunks (4 banks) and the swizzle's 1024-byte period (8 lines).
    for (int bank = 4; bank < kSharedBanks; bank += 4) {
      const float x = p0.x + float(bank) * cell;
      draw->AddLine({x, p0.y}, {x, p1.y}, IM_COL32(255, 255, 255, 70));
    }
    for (int line = row0 + 8 - row0 % 8; line < row0 + shown_rows; line += 8) {
      const float y = p0.y + float(line - row0) * cell;
      draw->AddLine({p0.x, y}, {p1.x, y}, IM_COL32(255, 255, 255, 110));
    }
  }
  app.grids.push_back({name, p0.x, p0.y, cell, row0, 0, shown_rows, kSharedBanks});
  return {p0, cell, row0, shown_rows};
}

// An instruction's phases: per phase its lanes' first words (line, bank) and the access model's
// wavefronts, then the bank strip.
void phase_table(const SharedView& view, const TraceInstruction& instruction) {
  for (size_t p = 0; p < view.phases.size(); ++p) {
    const SharedPhase& phase = view.phases[p];
    if (phase.lanes.empty()) continue;
    std::string text = "phase " + std::to_string(p) + " (" + std::to_string(phase.wavefronts) + " wavefront" +
                       (phase.wavefronts == 1 ? "" : "s") + "):";
    for (size_t l = 0; l < phase.lanes.size() && l < 8; ++l)
      text += " " + std::to_string(phase.lanes[l]) + "->L" + std::to_string(phase.bytes[l] / 128) + "/b" +
              std::to_string((phase.bytes[l] % 128) / 4);
    if (phase.lanes.size() > 8) text += " ...";
    ImGui::TextWrapped("%s", text.c_str());
  }
  ImGui::TextWrapped("lane->L(line)/b(first bank) of each address; below, the lanes in each bank");
  bank_strip(instruction);
}

}  // namespace

void shared_panel(App& app, ImVec2 size) {
  const TracedProgram& program = app.current();
  const TraceProblem problem = app.problem();
  if (app.trace_dirty) {  // the access panel refreshes it too; in a docs picture it is not drawn
    app.trace = warp_trace(program, problem, app.block, app.warp);
    app.trace_dirty = false;
  }
  const std::string key = view_key(app, problem);
  const bool changed = key != app.shared_key;
  if (changed) {
    app.shared_view = shared_view(program, problem, app.block, app.trace, app.shared);
    app.shared_key = key;
    const SharedView& v = app.shared_view;
    if (v.why_not.empty()) {
      app.shared_texture.upload(shared_pixels(v, app.shared.colour), kSharedBanks, v.lines);
      const SourceBox source = source_box(v);
      if (source.rows > 0) app.source_texture.upload(source.pixels, kSharedBanks, source.rows);
    }
  }
  const SharedView& view = app.shared_view;
  ImGui::TextWrapped("%s", shared_title(program, view).c_str());
  if (!view.why_not.empty()) {
    ImGui::TextWrapped("%s", view.why_not.c_str());
    app.shown["shared"] = {{"available", false}};
    return;
  }
  if (app.docs) ImGui::TextWrapped("%s", problem_text(program, problem).c_str());
  ImGui::TextWrapped("%s", shared_caption(view).c_str());

  // The selection: operand, k-tile (and so the stage), colouring, the item.
  const SharedItem& item = view.items[size_t(view.item)];
  if (app.docs) {
    ImGui::TextWrapped("k-tile %d (stage %d); %s", std::clamp(app.shared.k_tile, 0, view.stage.k_tiles - 1),
                       view.stage.stage, item.label.c_str());
  } else {
    int operand = app.shared.operand == Operand::B ? 1 : 0;
    const char* operands[] = {"A", "B"};
    ImGui::SetNextItemWidth(ui(50));
    if (ImGui::Combo("##operand", &operand, operands, 2)) app.shared.operand = operand ? Operand::B : Operand::A;
    ImGui::SameLine();
    int colour = int(app.shared.colour);
    const char* colours[] = {"colour by k", "colour by m/n"};
    ImGui::SetNextItemWidth(ui(120));
    if (ImGui::Combo("##colour", &colour, colours, 2)) app.shared.colour = SharedColour(colour);
    ImGui::SameLine();
    ImGui::SetNextItemWidth(std::max(ui(60), ImGui::GetContentRegionAvail().x - ImGui::CalcTextSize("k-tile").x - ui(8)));
    int k_tile = std::clamp(app.shared.k_tile, 0, view.stage.k_tiles - 1);
    if (ImGui::SliderInt("k-tile", &k_tile, 0, view.stage.k_tiles - 1)) app.shared.k_tile = k_tile;
    ImGui::BeginChild("##items", {0, std::min(ui(130), ImGui::GetTextLineHeightWithSpacing() * float(view.items.size()) + 8)},
                      true);
    for (size_t i = 0; i < view.items.size(); ++i) {
      if (ImGui::Selectable((view.items[i].label + "##" + std::to_string(i)).c_str(), int(i) == view.item))
        app.shared.item = int(i);
      if (int(i) == view.item && app.frames_drawn < 3) ImGui::SetScrollHereY(0.5f);
    }
    ImGui::EndChild();
  }
  for (const std::string& note : view.notes) ImGui::TextWrapped("%s", note.c_str());

  // The grids: the stage, and beside it a TMA box as it lies in the stored matrix.
  const bool box = item.kind == SharedItemKind::tma_box;
  const ImVec2 avail = ImGui::GetContentRegionAvail();
  const float gap = ui(16);
  const float width = box ? (avail.x - gap) / 2 : avail.x;
  const float below = item.kind == SharedItemKind::instruction ? ImGui::GetTextLineHeightWithSpacing() * 9 : 0;
  const float height = std::max(ui(80), (app.docs ? ui(700) : avail.y) - below - ImGui::GetTextLineHeightWithSpacing() * 3);
  const SourceBox source = source_box(view);
  const int rows = std::max(view.lines, source.rows);
  // The whole stage where it fits; otherwise cells of at least 4 pixels (2 in a docs picture) and
  // the lines that fit, scrolled to what the item touches. An instruction touches a few lines: a docs
  // picture shows those large.
  const float least = item.kind == SharedItemKind::instruction && app.docs ? ui(12) : app.docs ? 2.0f : 4.0f;
  const float fit = std::max(height / float(rows), least);
  const float cell = std::max(2.0f, std::floor(std::min({width / kSharedBanks, fit, ui(14)})));
  const int shown_lines = std::max(1, std::min(view.lines, int(height / cell)));
  if (changed && shown_lines < view.lines) {
    const auto first = std::find_if(view.touch.begin(), view.touch.end(), [](int group) { return group >= 0; });
    const int line = first == view.touch.end() ? 0 : int(first - view.touch.begin()) / kSharedBanks;
    const int line0 = int(app.shared_line0);
    if (line < line0 || line >= line0 + shown_lines) app.shared_line0 = float(std::max(0, line - 2));
  }
  app.shared_line0 = std::clamp(app.shared_line0, 0.0f, float(view.lines - shown_lines));
  const int line0 = int(app.shared_line0);
  const float label_y = ImGui::GetCursorPosY();
  ImGui::TextDisabled("%s", box ? "in the stage:" : "lines of 128 bytes, banks 0-31:");
  const Placed stage = draw_grid(app, app.shared_texture, view.lines, line0, shown_lines, cell, "shared");
  ImGui::InvisibleButton("##stage", {kSharedBanks * cell, std::max(1.0f, float(shown_lines) * cell)});
  if (ImGui::IsItemHovered()) {
    const ImVec2 mouse = ImGui::GetIO().MousePos;
    const int bank = int((mouse.x - stage.origin.x) / cell), line = line0 + int((mouse.y - stage.origin.y) / cell);
    ImGui::BeginTooltip();
    for (const std::string& text : word_text(view, app.trace, line, bank)) ImGui::Text("%s", text.c_str());
    ImGui::EndTooltip();
    const float wheel = ImGui::GetIO().MouseWheel;
    if (wheel != 0) app.shared_line0 -= wheel * 4;
  }
  const float after_stage = ImGui::GetCursorPosY();
  if (box) {
    ImGui::SetCursorPos({ImGui::GetCursorPosX() + width + gap, label_y});
    ImGui::TextDisabled("the box as stored:");
    ImGui::SetCursorPosX(ImGui::GetCursorPosX() + width + gap);
    const int source_rows = std::min(source.rows, int(height / cell));
    draw_grid(app, app.source_texture, source.rows, 0, source_rows, cell, "shared_source");
    ImGui::Dummy({kSharedBanks * cell, float(source_rows) * cell});
    ImGui::SetCursorPosY(std::max(after_stage, ImGui::GetCursorPosY()));
    ImGui::PushStyleColor(ImGuiCol_Text, ImGui::GetStyleColorVec4(ImGuiCol_TextDisabled));
    const TmaBoxCopy& copy = view.stage.boxes[size_t(item.index)];
    ImGui::TextWrapped("colours: the 16-byte chunk of its stored row each word comes from; the Tensor Memory "
                       "Accelerator writes chunk c of box row r at chunk %s",
                       copy.swizzle_span == 128 ? "c ^ (r % 8)" : "c ^ (r / 4 % 2), rows of 32 bytes (the 32-byte swizzle)");
    ImGui::PopStyleColor();
  }
  if (shown_lines < view.lines)
    ImGui::TextDisabled("lines %d-%d of %d%s", line0, line0 + shown_lines - 1, view.lines,
                        app.docs ? "" : " (wheel to scroll)");
  if (item.kind == SharedItemKind::instruction) phase_table(view, app.trace.instructions[size_t(item.index)]);
  if (item.kind == SharedItemKind::wgmma_read)
    ImGui::TextWrapped("colours: the core matrix (8 rows x 16 bytes) each word is read in; dimmed: not read");

  // What the panel shows, for the geometry file (and the docs pictures' sidecars).
  nlohmann::json shown = {{"available", true},
                          {"operand", to_string(view.shown().operand)},
                          {"k_tile", std::clamp(app.shared.k_tile, 0, view.stage.k_tiles - 1)},
                          {"stage", view.stage.stage},
                          {"stages", view.stage.stages},
                          {"lines", view.lines},
                          {"first_byte", view.first_byte},
                          {"item", view.item},
                          {"item_label", item.label},
                          {"touched_bytes", view.touched_bytes},
                          {"colour", to_string(app.shared.colour)}};
  if (item.kind == SharedItemKind::instruction) {
    shown["wavefronts"] = view.cost.wavefronts;
    shown["ideal_wavefronts"] = view.cost.ideal_wavefronts;
  }
  if (item.kind == SharedItemKind::wgmma_read)
    shown["descriptor"] = std::to_string(view.stage.reads[size_t(item.index)].descriptor);
  app.shown["shared"] = shown;
  (void)size;
}

}  // namespace gemm::viewer
