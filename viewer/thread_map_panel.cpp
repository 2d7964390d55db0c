// The thread map panel: the owner of every element of C as a texture, the selected warp outlined,
// the owner of the element under the mouse in a tooltip; a click selects its warp.
#include <algorithm>

#include "panels.hpp"
#include "theme.hpp"

namespace gemm::viewer {

void thread_map_panel(App& app, ImVec2 size) {
  const TracedProgram& program = app.current();
  if (app.map_dirty) {
    app.map = owner_map(program, app.problem());
    app.map_digest = app.map.digest();
    app.map_dirty = false;
    app.map_texture_dirty = true;
  }
  if (app.map_texture_dirty) {
    app.map_texture.upload(app.map.pixels(app.colour_by), app.map.cols, app.map.rows);
    app.map_texture_dirty = false;
  }
  {
    // What the map shows, for the geometry file (and the docs pictures' sidecars).
    const LaunchShape l = app.map.launch;
    app.shown["thread_map"] = {{"rows", app.map.rows}, {"cols", app.map.cols}, {"colour_by", to_string(app.colour_by)},
                               {"grid", {l.grid.x, l.grid.y, l.grid.z}}, {"block", {l.block.x, l.block.y, l.block.z}},
                               {"owners_fnv1a", std::to_string(app.map_digest)}};
  }
  ImGui::Text("%s", thread_map_title(program, app.map).c_str());
  ImGui::TextDisabled("%s", launch_text(app.map.launch).c_str());
  if (!app.map.any_owned()) ImGui::TextWrapped("%s", no_owner_text(program).c_str());
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
  const MapWindow shown = map_window(app.map, std::max(avail.x, 50.0f), std::max(avail.y - 40, 50.0f), app.zoom,
                                     app.pan_row, app.pan_col);
  const float cell = shown.cell;
  const int row0 = shown.row0, col0 = shown.col0;
  ImDrawList* draw = ImGui::GetWindowDrawList();
  const ImVec2 p0 = origin, p1{origin.x + float(shown.cols) * cell, origin.y + float(shown.rows) * cell};
  const ImVec2 uv0{float(col0) / float(app.map.cols), float(row0) / float(app.map.rows)};
  const ImVec2 uv1{float(col0 + shown.cols) / float(app.map.cols), float(row0 + shown.rows) / float(app.map.rows)};
  draw->AddImage(app.map_texture.handle(), p0, p1, uv0, uv1);
  app.grids.push_back({"thread_map", p0.x, p0.y, cell, row0, col0, shown.rows, shown.cols});
  // The selected warp's elements, outlined.
  if (cell >= 3) {
    for (int r = row0; r < row0 + shown.rows; ++r)
      for (int c = col0; c < col0 + shown.cols; ++c)
        if (app.map.at(r, c).in_warp(app.block, app.warp)) {
          const ImVec2 a{p0.x + float(c - col0) * cell, p0.y + float(r - row0) * cell};
          draw->AddRect(a, {a.x + cell, a.y + cell}, palette.outline);
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
      if (owner.key() != app.hovered_key || app.map_dirty) {
        app.hovered_key = owner.key();
        app.hovered = elements_of(app.map, owner.key());
      }
      ImGui::Text("%s", owned_text(app.hovered).c_str());
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

}  // namespace gemm::viewer
