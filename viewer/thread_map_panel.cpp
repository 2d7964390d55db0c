// The thread map panel: the owner of every element of C as a texture (the fp32 steps: the thread that
// stores it; the tensor-core steps: the thread and register that hold it when the k-loop ends), the
// selected warp outlined, the owner of the element under the mouse in a tooltip; a click selects
// its warp (and the element, named below the map).
#include <algorithm>

#include "panels.hpp"
#include "theme.hpp"

namespace gemm::viewer {

namespace {

// What holds an element, a line each (held maps), or nothing.
std::vector<std::string> holder_lines(const App& app, int row, int col) {
  const std::optional<HeldElement> held = held_element(app.current(), app.problem(), app.map, row, col);
  if (!held) return {};
  return held_text(*held, app.map.at(row, col), app.map.launch);
}

void colour_choice(App& app) {
  const std::vector<ColourBy> offered = colourings(app.map);
  std::vector<std::string> labels;
  int mode = 0;
  for (size_t i = 0; i < offered.size(); ++i) {
    labels.push_back(colour_label(app.map, offered[i]));
    if (offered[i] == app.colour_by) mode = int(i);
  }
  ImGui::SetNextItemWidth(ui(240));
  if (pick("##colour", labels, mode)) {
    app.colour_by = offered[size_t(mode)];
    app.map_texture_dirty = true;
  }
}

}  // namespace

void thread_map_panel(App& app, ImVec2 size) {
  const TracedProgram& program = app.current();
  if (app.map_dirty) {
    app.map = thread_map(program, app.problem());
    app.map_digest = app.map.digest();
    app.map_dirty = false;
    app.map_texture_dirty = true;
    app.hovered_key = OwnerMap::kNone;
    app.hovered_row = app.hovered_col = -1;
    app.selected_dirty = true;
  }
  if (app.map_texture_dirty) {
    app.map_texture.upload(app.map.pixels(app.colour_by), app.map.cols, app.map.rows);
    app.map_texture_dirty = false;
  }
  if (app.selected_dirty) {
    app.selected_held.clear();
    if (app.selected_element) app.selected_held = holder_lines(app, app.selected_element->first, app.selected_element->second);
    app.selected_dirty = false;
  }
  const std::string stored = c_store_text(program, app.map), note = colour_note(app.map, app.colour_by);
  {
    // What the map shows, for the geometry file (and the docs pictures' sidecars).
    const LaunchShape l = app.map.launch;
    nlohmann::json& shown = app.shown["thread_map"];
    shown = {{"rows", app.map.rows}, {"cols", app.map.cols}, {"colour_by", to_string(app.colour_by)},
             {"grid", {l.grid.x, l.grid.y, l.grid.z}}, {"block", {l.block.x, l.block.y, l.block.z}},
             {"owners_fnv1a", std::to_string(app.map_digest)}};
    if (app.map.held) {
      const StoreSummary& s = app.map.stores;
      shown["held"] = {{"elements", s.elements}, {"stored_by_threads", s.stored},
                       {"stored_by_holding_thread", s.by_holding_thread}, {"lanes_known", app.map.lanes_known}};
      shown["c_stored"] = stored;
    }
    if (!note.empty()) shown["note"] = note;
    if (app.selected_element)
      shown["selected"] = {{"element", {app.selected_element->first, app.selected_element->second}},
                           {"held", app.selected_held}};
  }
  ImGui::TextWrapped("%s", thread_map_title(program, app.map).c_str());
  ImGui::TextDisabled("%s", launch_text(app.map.launch).c_str());
  if (!app.map.held && !app.map.any_owned()) ImGui::TextWrapped("%s", no_owner_text(program).c_str());
  if (!stored.empty()) ImGui::TextWrapped("%s", stored.c_str());
  if (!note.empty()) ImGui::TextWrapped("%s", note.c_str());
  if (app.docs) {  // a picture: what the colours are, instead of the controls
    ImGui::TextWrapped("%s; outlined: warp %d of block (%d, %d)", colour_label(app.map, app.colour_by).c_str(), app.warp,
                       app.block.x, app.block.y);
  } else {
    colour_choice(app);
    ImGui::SameLine();
    ImGui::SetNextItemWidth(ui(140));
    ImGui::SliderFloat("zoom (px per cell)", &app.zoom, 0.0f, 32.0f, app.zoom == 0 ? "fit" : "%.1f");
  }

  const ImVec2 origin = ImGui::GetCursorScreenPos();
  const ImVec2 avail = ImGui::GetContentRegionAvail();
  // Room below the map for its footer: the selected element's holder (a line each) and the hint.
  const float footer = ImGui::GetTextLineHeightWithSpacing() * float(2 * app.selected_held.size() + (app.docs ? 0 : 1)) + 20;
  const MapWindow shown = map_window(app.map, std::max(avail.x, 50.0f), std::max(avail.y - footer, 50.0f), app.zoom,
                                     app.pan_row, app.pan_col);
  const float cell = shown.cell;
  const int row0 = shown.row0, col0 = shown.col0;
  ImDrawList* draw = ImGui::GetWindowDrawList();
  const ImVec2 p0 = origin, p1{origin.x + float(shown.cols) * cell, origin.y + float(shown.rows) * cell};
  const ImVec2 uv0{float(col0) / float(app.map.cols), float(row0) / float(app.map.rows)};
  const ImVec2 uv1{float(col0 + shown.cols) / float(app.map.cols), float(row0 + shown.rows) / float(app.map.rows)};
  draw->AddImage(app.map_texture.handle(), p0, p1, uv0, uv1);
  app.grids.push_back({"thread_map", p0.x, p0.y, cell, row0, col0, shown.rows, shown.cols});
  // The selected warp's elements, outlined: the edges between its cells and the others' (a line per
  // edge of the region, not a rectangle per cell: a wgmma warp holds a thousand cells of a tile).
  if (cell >= 3) {
    auto mine = [&](int r, int c) { return app.map.at(r, c).in_warp(app.block, app.warp); };
    for (int r = row0; r < row0 + shown.rows; ++r)
      for (int c = col0; c < col0 + shown.cols; ++c) {
        if (!mine(r, c)) continue;
        const float x = p0.x + float(c - col0) * cell, y = p0.y + float(r - row0) * cell;
        if (!mine(r - 1, c)) draw->AddLine({x, y}, {x + cell, y}, palette.outline);
        if (!mine(r + 1, c)) draw->AddLine({x, y + cell - 1}, {x + cell, y + cell - 1}, palette.outline);
        if (!mine(r, c - 1)) draw->AddLine({x, y}, {x, y + cell}, palette.outline);
        if (!mine(r, c + 1)) draw->AddLine({x + cell - 1, y}, {x + cell - 1, y + cell}, palette.outline);
      }
  }
  if (app.selected_element) {  // the selected element, outlined thicker (inside its cell)
    const auto [r, c] = *app.selected_element;
    if (r >= row0 && r < row0 + shown.rows && c >= col0 && c < col0 + shown.cols) {
      const ImVec2 a{p0.x + float(c - col0) * cell, p0.y + float(r - row0) * cell};
      draw->AddRect(a, {a.x + cell, a.y + cell}, palette.outline, 0, 0, std::max(1.0f, std::min(3.0f, cell / 3)));
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
      if (app.map.held) {
        if (r != app.hovered_row || c != app.hovered_col) {
          app.hovered_row = r, app.hovered_col = c;
          app.hovered_held = holder_lines(app, r, c);
        }
        for (const std::string& line : app.hovered_held) ImGui::Text("%s", line.c_str());
      } else {
        ImGui::Text("block (%d, %d), thread %d: warp %d, lane %d", owner.block_coord.x, owner.block_coord.y, owner.thread,
                    owner.warp, owner.lane);
      }
      if (owner.key() != app.hovered_key) {
        app.hovered_key = owner.key();
        app.hovered = elements_of(app.map, owner.key());
      }
      ImGui::Text("%s%s", app.map.held && !app.map.lanes_known ? "the warp " : "",
                  owned_text(app.hovered, app.map.held).c_str());
      ImGui::TextDisabled("click: select this element, and its warp for the access panel");
    } else {
      ImGui::Text("outside the problem");
    }
    ImGui::EndTooltip();
    if (ImGui::IsMouseClicked(0) && owner.block >= 0) {
      app.block = owner.block_coord;
      app.warp = owner.warp;
      app.trace_dirty = true;
      app.selected_element = {r, c};
      app.selected_dirty = true;
    }
    if (ImGui::IsMouseDragging(0)) {
      const ImVec2 delta = ImGui::GetIO().MouseDelta;
      app.pan_col -= delta.x / cell;
      app.pan_row -= delta.y / cell;
    }
    const float wheel = ImGui::GetIO().MouseWheel;
    if (wheel != 0) app.zoom = std::clamp((app.zoom == 0 ? cell : app.zoom) * (wheel > 0 ? 1.25f : 0.8f), 0.05f, 64.0f);
  }
  if (app.selected_element && !app.selected_held.empty()) {
    ImGui::TextWrapped("element (%d, %d): %s", app.selected_element->first, app.selected_element->second,
                       app.selected_held.front().c_str());
    for (size_t i = 1; i < app.selected_held.size(); ++i) ImGui::TextWrapped("  %s", app.selected_held[i].c_str());
  }
  if (!app.docs) ImGui::TextDisabled("drag to pan, wheel to zoom; the selected warp is outlined");
  (void)size;
}

}  // namespace gemm::viewer
