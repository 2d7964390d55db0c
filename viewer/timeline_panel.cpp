// The timeline panel: one block's shared-memory stages over its k-tiles (who fills each stage, who
// drains it, the waits and barrier phases), and for the persistent steps the tiles each block takes
// round by round and the order they cover C. The model (timeline_model.hpp) computes all of it from
// the steps' own functions, once per selection; this file draws it and names what is under the mouse.
#include <algorithm>
#include <cmath>

#include "panels.hpp"
#include "theme.hpp"

namespace gemm::viewer {

namespace {

// A tooltip of wrapped lines.
void tooltip(const std::string& text) {
  ImGui::BeginTooltip();
  ImGui::PushTextWrapPos(ui(560));
  ImGui::TextUnformatted(text.c_str());
  ImGui::PopTextWrapPos();
  ImGui::EndTooltip();
}

bool inside(const ImVec2& p, const ImVec2& a, const ImVec2& b) { return p.x >= a.x && p.x < b.x && p.y >= a.y && p.y < b.y; }

// The linear index of the App's block in the launch the timeline plans.
int linear_block(const App& app) {
  const LaunchShape launch = app.current().launch(app.problem());
  return app.block.y * std::max(launch.grid.x, 1) + app.block.x;
}
void select_block(App& app, int linear) {
  const LaunchShape launch = app.current().launch(app.problem());
  const int blocks = std::max(launch.grid.x * launch.grid.y, 1);
  linear = std::clamp(linear, 0, blocks - 1);
  app.block = {linear % std::max(launch.grid.x, 1), linear / std::max(launch.grid.x, 1), 0};
  app.trace_dirty = true;
}

// The controls (a docs picture says what they are set to instead).
void controls(App& app, TimelineState& state) {
  const TimelineView& v = state.view;
  const bool fp8_output = v.spec.can_store_under_next_tile || !v.spec.promotion_ends.empty();
  if (app.docs) {
    std::string said = "block " + std::to_string(v.block);
    if (v.persistent) said += ", from its tile " + std::to_string(state.tile);
    if (fp8_output) said += state.out_bytes == 2 ? ", 16-bit output" : ", f32 output";
    char latency[64];
    std::snprintf(latency, sizeof(latency), "; a copy lands %.2g k-tile time%s after it is issued", double(state.copy_latency),
                  state.copy_latency == 1.0f ? "" : "s");
    ImGui::TextWrapped("%s%s", said.c_str(), latency);
    return;
  }
  int block = v.block;
  ImGui::SetNextItemWidth(ui(110));
  if (ImGui::InputInt("block", &block)) {
    select_block(app, block);
    state.tile = 0;  // the new block's first tile
  }
  if (v.persistent) {
    ImGui::SameLine();
    int tile = state.tile;
    ImGui::SetNextItemWidth(ui(160));
    if (ImGui::SliderInt("its tile", &tile, 0, std::max(int(v.timeline.tile_starts.size()) - 1, 0))) {
      state.tile = tile;
      state.first_column = first_column_of_tile(v.timeline, tile);
    }
  }
  if (v.persistent || app.current().params_for_shape) {  // the grid, or the tile chosen by shape, depends on it
    ImGui::SameLine();
    int sms = app.sms;
    ImGui::SetNextItemWidth(ui(110));
    if (ImGui::InputInt("SMs", &sms) && sms >= 1) {
      app.sms = sms;  // as --sms: also what a step that chooses its tile by shape plans for
      app.map_dirty = app.trace_dirty = true;
    }
  }
  if (fp8_output) {
    ImGui::SameLine();
    const char* outs[] = {"16-bit output (bf16)", "f32 output"};
    int out = state.out_bytes == 2 ? 0 : 1;
    ImGui::SetNextItemWidth(ui(170));
    if (ImGui::Combo("##out", &out, outs, 2)) state.out_bytes = out == 0 ? 2 : 4;
  }
  ImGui::SameLine();
  ImGui::SetNextItemWidth(ui(140));
  ImGui::SliderFloat("copy latency (k-tiles)", &state.copy_latency, 0.25f, 4.0f, "%.2f");
}

// The stages over time: a row per stage, then the roles'; a window of k-tile columns.
void stage_chart(App& app, TimelineState& state, float width) {
  const Timeline& t = state.view.timeline;
  ImDrawList* draw = ImGui::GetWindowDrawList();
  const ImVec2 mouse = ImGui::GetIO().MousePos;
  const float label_w = ui(96), row_h = ui(22), axis_h = ui(30);
  const float chart_w = std::max(width - label_w - ui(10), ui(100));
  const int columns = int(t.columns.size());
  // Column width: the whole block where it fits, else a window of columns at least 26 pixels wide.
  const float unit = std::clamp(chart_w / float(std::max(t.end, 1.0)), ui(26), ui(120));
  const int shown = std::max(1, std::min(columns, int(chart_w / unit) - 1));
  if (state.first_column < 0) state.first_column = first_column_of_tile(t, state.tile);
  state.first_column = std::clamp(state.first_column, 0, std::max(columns - shown, 0));
  if (!app.docs && columns > shown) {
    ImGui::SetNextItemWidth(ui(300));
    ImGui::SliderInt("from k-tile column", &state.first_column, 0, columns - shown);
    ImGui::SameLine();
    ImGui::TextDisabled("(%d of %d columns shown)", shown, columns);
  }
  const double t0 = state.first_column == 0 ? 0.0 : t.columns[size_t(state.first_column)].at - 0.5;
  const double t1 = t0 + chart_w / unit;
  const ImVec2 origin = ImGui::GetCursorScreenPos();
  const float x0 = origin.x + label_w, y0 = origin.y + axis_h;
  auto x_of = [&](double at) { return x0 + float((std::clamp(at, t0, t1) - t0) * unit); };
  auto row_y = [&](int row) { return y0 + float(row) * row_h; };
  nlohmann::json& shown_json = app.shown["timeline"];
  shown_json["t0"] = t0;
  shown_json["t1"] = t1;
  shown_json["rows"] = nlohmann::json::array();
  for (size_t row = 0; row < t.rows.size(); ++row) {
    const float y = row_y(int(row));
    draw->AddText({origin.x, y + (row_h - ImGui::GetFontSize()) / 2}, palette.text, t.rows[row].c_str());
    draw->AddLine({x0, y + row_h}, {x0 + chart_w, y + row_h}, IM_COL32(128, 128, 128, 60));
    shown_json["rows"].push_back({{"name", t.rows[row]}, {"y0", y}, {"y1", y + row_h}});
  }
  // The axis: each k-tile column's start, and where the block starts a tile.
  for (int c = state.first_column; c < columns; ++c) {
    const TimelineColumn& col = t.columns[size_t(c)];
    if (col.at > t1) break;
    const float x = x_of(col.at);
    draw->AddLine({x, y0 - ui(6)}, {x, y0}, palette.axis);
    draw->AddText({x + 2, y0 - ui(16)}, palette.text, std::to_string(col.k_tile).c_str());
  }
  const bool persistent = !t.tiles.empty() && t.tiles[0].unit >= 0;
  for (size_t tile = 0; persistent && tile < t.tile_starts.size(); ++tile) {
    const double at = t.tile_starts[tile];
    if (at < t0 || at > t1) continue;
    const BlockTile& bt = t.tiles[tile];
    const std::string label = "tile " + std::to_string(tile) + " (" + std::to_string(bt.m) + ", " + std::to_string(bt.n) +
                              ")" + (bt.narrow ? " narrow" : "") + (bt.outside ? " below C" : "");
    draw->AddLine({x_of(at), origin.y}, {x_of(at), y0}, palette.peak, 2);
    draw->AddText({x_of(at) + 3, origin.y}, palette.peak, label.c_str());
  }
  // Bars, then the marks over them; the one under the mouse named.
  const std::string* hover = nullptr;
  shown_json["bars"] = nlohmann::json::array();
  for (const TimelineBar& bar : t.bars) {
    if (bar.to <= t0 || bar.from >= t1) continue;
    const float y = row_y(bar.row);
    const ImVec2 a{x_of(bar.from) + 1, y + 2}, b{x_of(bar.to) - 1, y + row_h - 2};
    if (b.x <= a.x) continue;
    draw->AddRectFilled(a, b, im(bar_colour(bar.kind)));
    const ImVec2 text_size = ImGui::CalcTextSize(bar.label.c_str());
    if (text_size.x + 4 < b.x - a.x) draw->AddText({a.x + 2, a.y + 1}, IM_COL32(20, 20, 20, 255), bar.label.c_str());
    shown_json["bars"].push_back({{"row", bar.row}, {"kind", to_string(bar.kind)}, {"j", bar.j}, {"tile", bar.tile},
                                  {"k_tile", bar.k_tile}, {"x0", a.x}, {"y0", a.y}, {"x1", b.x}, {"y1", b.y},
                                  {"colour", bar_colour(bar.kind)}});
    if (inside(mouse, a, b)) hover = &bar.hover;
  }
  for (const TimelineMark& mark : t.marks) {
    if (mark.at < t0 || mark.at > t1) continue;
    const float x = x_of(mark.at) + float(mark.order % 6) * ui(3), y = row_y(mark.row);
    draw->AddLine({x, y + row_h * 0.55f}, {x, y + row_h - 2}, im(mark_colour(mark.kind)), 2);  // under the labels
    if (std::fabs(mouse.x - x) <= 1.5f && mouse.y >= y && mouse.y < y + row_h) hover = &mark.hover;
  }
  if (hover) tooltip(*hover);
  ImGui::Dummy({width, axis_h + row_h * float(t.rows.size()) + ui(4)});
}

// A legend of the bar kinds the chart uses.
void legend(const Timeline& t) {
  ImDrawList* draw = ImGui::GetWindowDrawList();
  bool used[8] = {};
  for (const TimelineBar& bar : t.bars) used[int(bar.kind)] = true;
  const char* meaning[] = {"copies in flight", "landed, not yet read", "read by the multiply", "zeros past the end",
                           "products", "promotion", "epilogue", "waiting"};
  const float right = ImGui::GetCursorScreenPos().x + ImGui::GetContentRegionAvail().x;
  float end_x = -1;  // where the last item ended (-1: none on this line)
  for (int k = 0; k < 8; ++k) {
    if (!used[k]) continue;
    const float item_w = ui(16) + ImGui::GetStyle().ItemSpacing.x + ImGui::CalcTextSize(meaning[k]).x;
    if (end_x >= 0 && end_x + ui(14) + item_w <= right) ImGui::SameLine(0, ui(14));
    const ImVec2 p = ImGui::GetCursorScreenPos();
    draw->AddRectFilled({p.x, p.y + 2}, {p.x + ui(14), p.y + ImGui::GetFontSize()}, im(bar_colour(BarKind(k))));
    ImGui::Dummy({ui(16), ImGui::GetFontSize()});
    ImGui::SameLine();
    ImGui::TextUnformatted(meaning[k]);
    end_x = ImGui::GetItemRectMax().x;
  }
  ImGui::PushStyleColor(ImGuiCol_Text, ImGui::GetStyleColorVec4(ImGuiCol_TextDisabled));
  ImGui::TextWrapped("%s", t.kind == PipelineKind::warp_specialized || t.kind == PipelineKind::tma_one_warpgroup
                                 ? "a bar's number: the k-tile (of its tile); p: the parity of the full barrier phase "
                                   "its bytes complete, which the consumers' wait names; ticks: waits, arrivals, "
                                   "copies issued (hover names them)"
                                 : "a bar's number: the k-tile; ticks: copies issued, commit groups, waits and "
                                   "barriers (hover names them)");
  ImGui::PopStyleColor();
}

// The persistent grid: blocks x rounds, and C's tiles coloured by the round that takes them.
void rounds(App& app, TimelineState& state, float width) {
  const TimelineView& v = state.view;
  const PersistentPlan& plan = v.plan;
  ImDrawList* draw = ImGui::GetWindowDrawList();
  const ImVec2 mouse = ImGui::GetIO().MousePos;
  for (const std::string& line : v.plan_lines) {
    ImGui::Bullet();
    ImGui::TextWrapped("%s", line.c_str());
  }
  if (v.choices.size() > 1) ImGui::TextWrapped("The compiled configurations at this shape:");
  for (size_t i = 0; i < v.choices.size(); ++i) {
    ImGui::PushStyleColor(ImGuiCol_Text, ImGui::GetStyleColorVec4(v.choices[i].shown ? ImGuiCol_Text : ImGuiCol_TextDisabled));
    ImGui::Indent();
    ImGui::TextWrapped("%s", v.choice_lines[i].c_str());
    ImGui::Unindent();
    ImGui::PopStyleColor();
  }
  const float gap = ui(30), margin = ui(70), half = (width - gap) / 2;
  const float avail_h = ui(app.docs ? 220 : 300);  // the grid's and the map's height, at most
  const int rounds_shown = std::max(std::min(plan.rounds, int((half - margin) / 2)), 1);
  const float cell_w = std::max(std::min(ui(70), (half - margin) / float(rounds_shown)), 2.0f);
  const float cell_h = std::max(std::min(ui(10), avail_h / float(std::max(plan.blocks, 1))), 2.0f);
  ImGui::TextWrapped("Left, blocks by rounds: the tile each block takes in each round, coloured by its tile column (B's "
                     "tile, which the blocks of a cluster share by TMA multicast); orange: a narrow tile, grey: below C, "
                     "dark: no unit left. Right, C's tiles coloured by the round that takes them (outlined: the block's).");
  const std::string* hover = nullptr;
  std::string hover_text;
  const ImVec2 top = ImGui::GetCursorScreenPos();
  const float label_h = ImGui::GetFontSize() + 2;
  const ImVec2 origin{top.x + margin, top.y + label_h};
  // Round numbers over the columns, block numbers beside the rows (as often as the text fits).
  for (int round = 0; round < rounds_shown; ++round)
    if (cell_w >= ImGui::CalcTextSize("00").x + 4 || round == 0)
      draw->AddText({origin.x + float(round) * cell_w + 2, top.y}, palette.text, std::to_string(round).c_str());
  int label_every = std::max(1, int(std::ceil(label_h / cell_h)));
  while (plan.blocks / label_every > 24) label_every *= 2;
  for (int block = 0; block < plan.blocks; block += label_every)
    draw->AddText({top.x, origin.y + float(block) * cell_h}, palette.text, ("block " + std::to_string(block)).c_str());
  // The grid and the map as textures, one texel per cell (thousands of rectangles would cost the
  // software renderer a frame), made again only when the selection changes.
  const std::vector<RoundCell>& cells = v.cells;
  const std::vector<TileRound>& by_tile = v.by_tile;
  const std::string texture_key = state.key + "|" + std::to_string(rounds_shown);
  if (app.rounds_texture_key != texture_key && plan.blocks > 0 && plan.tiles_m > 0) {
    std::vector<Rgba> grid(size_t(rounds_shown) * size_t(plan.blocks));
    for (int block = 0; block < plan.blocks; ++block)
      for (int round = 0; round < rounds_shown; ++round)
        grid[size_t(block) * size_t(rounds_shown) + size_t(round)] =
            round_cell_colour(cells[size_t(block) * size_t(plan.rounds) + size_t(round)]);
    app.rounds_texture.upload(grid, rounds_shown, plan.blocks);
    std::vector<Rgba> map(by_tile.size());
    for (size_t i = 0; i < by_tile.size(); ++i) map[i] = round_colour(by_tile[i].round);
    app.tiles_texture.upload(map, plan.tiles_n, plan.tiles_m);
    app.rounds_texture_key = texture_key;
  }
  const ImVec2 grid_end{origin.x + cell_w * float(rounds_shown), origin.y + cell_h * float(plan.blocks)};
  draw->AddImage(app.rounds_texture.handle(), origin, grid_end);
  for (int round = 1; round < rounds_shown && cell_w >= 6; ++round)  // the rounds apart
    draw->AddLine({origin.x + float(round) * cell_w, origin.y}, {origin.x + float(round) * cell_w, grid_end.y},
                  IM_COL32(255, 255, 255, 160));
  if (inside(mouse, origin, grid_end)) {
    const int block = std::clamp(int((mouse.y - origin.y) / cell_h), 0, plan.blocks - 1);
    const int round = std::clamp(int((mouse.x - origin.x) / cell_w), 0, rounds_shown - 1);
    const RoundCell& cell = cells[size_t(block) * size_t(plan.rounds) + size_t(round)];
    hover_text = round_cell_text(plan, block, cell);
    hover = &hover_text;
    if (ImGui::IsMouseClicked(0) && cell.taken) {
      select_block(app, block);
      state.tile = round;
      state.first_column = -1;
    }
  }
  // The selected block's row.
  const float sel_y = origin.y + float(v.block) * cell_h;
  draw->AddRect({origin.x - 1, sel_y - 1}, {origin.x + cell_w * float(rounds_shown) + 1, sel_y + cell_h + 1}, palette.outline);
  app.shown["timeline"]["rounds"] = {{"x", origin.x}, {"y", origin.y}, {"cell_w", cell_w}, {"cell_h", cell_h},
                                     {"blocks", plan.blocks}, {"rounds", plan.rounds}, {"rounds_shown", rounds_shown}};
  // C's tiles: the narrow column, and the selected block's tiles, outlined.
  const float map_x = top.x + half + gap;
  const float tile_px = std::max(std::min({half / float(std::max(plan.tiles_n, 1)), avail_h / float(std::max(plan.tiles_m, 1)),
                                           ui(28)}), 1.0f);
  const ImVec2 map0{map_x, origin.y}, map1{map_x + tile_px * float(plan.tiles_n), origin.y + tile_px * float(plan.tiles_m)};
  draw->AddImage(app.tiles_texture.handle(), map0, map1);
  if (tile_px >= 5) {  // the tiles apart
    for (int n = 1; n < plan.tiles_n; ++n)
      draw->AddLine({map0.x + float(n) * tile_px, map0.y}, {map0.x + float(n) * tile_px, map1.y}, IM_COL32(255, 255, 255, 160));
    for (int m = 1; m < plan.tiles_m; ++m)
      draw->AddLine({map0.x, map0.y + float(m) * tile_px}, {map1.x, map0.y + float(m) * tile_px}, IM_COL32(255, 255, 255, 160));
  }
  if (plan.narrow_units > 0)
    draw->AddRect({map1.x - tile_px, map0.y}, map1, im(kNarrowTile), 0, 0, 2);
  for (const BlockTile& tile : v.spec.tiles)
    if (!tile.outside && tile.m >= 0) {
      const ImVec2 a{map_x + float(tile.n) * tile_px, origin.y + float(tile.m) * tile_px};
      draw->AddRect(a, {a.x + tile_px, a.y + tile_px}, palette.outline, 0, 0, 2);
    }
  if (inside(mouse, map0, map1)) {
    const int m = std::clamp(int((mouse.y - map0.y) / tile_px), 0, plan.tiles_m - 1);
    const int n = std::clamp(int((mouse.x - map0.x) / tile_px), 0, plan.tiles_n - 1);
    const TileRound& tr = by_tile[size_t(m) * size_t(plan.tiles_n) + size_t(n)];
    hover_text = "tile (" + std::to_string(m) + ", " + std::to_string(n) + "): round " + std::to_string(tr.round) +
                 ", block " + std::to_string(tr.block);
    hover = &hover_text;
  }
  if (hover) tooltip(*hover);
  ImGui::Dummy({width, label_h + std::max(cell_h * float(plan.blocks), tile_px * float(plan.tiles_m)) + ui(6)});
  if (plan.rounds > rounds_shown) ImGui::TextDisabled("the first %d of %d rounds shown", rounds_shown, plan.rounds);
}

}  // namespace

void timeline_panel(App& app, ImVec2 size) {
  TimelineState& state = app.timeline;
  const TracedProgram& program = app.current();
  const TraceProblem problem = app.problem();
  const int block = linear_block(app);
  const std::string key = timeline_key(program, problem, block, state.out_bytes, state.copy_latency);
  if (key != state.key) {  // a new selection: computed once, not every frame
    state.view = timeline_view(program, problem, block, state.out_bytes, state.copy_latency);
    state.key = key;
    state.tile = std::clamp(state.tile, 0, std::max(int(state.view.timeline.tile_starts.size()) - 1, 0));
    state.first_column = -1;
  }
  const TimelineView& v = state.view;
  ImGui::Text("Timeline: %s", program_label(program).c_str());
  if (app.docs) ImGui::TextDisabled("%s", problem_text(program, problem).c_str());
  ImGui::TextWrapped("A logical schedule: the kernel's program order and what its waits guarantee, from the step's "
                     "own functions; not a measurement. A k-tile's products take one column.");
  app.shown["timeline"] = {{"step", program.step}, {"pipelined", v.pipelined}};
  if (!v.pipelined) {
    ImGui::TextWrapped("%s", v.why_not.c_str());
    return;
  }
  for (const std::string& line : v.header) ImGui::TextWrapped("%s", line.c_str());
  for (const std::string& hazard : v.timeline.hazards)
    ImGui::TextColored(ImGui::ColorConvertU32ToFloat4(palette.conflict_text), "inconsistent: %s", hazard.c_str());
  controls(app, state);
  app.shown["timeline"].update({{"block", v.block}, {"stages", v.spec.stages}, {"k_tiles", v.spec.k_tiles},
                                {"tiles", v.timeline.tiles.size()}, {"max_in_flight", v.timeline.max_in_flight},
                                {"hazards", v.timeline.hazards.size()}, {"out_bytes", state.out_bytes},
                                {"copy_latency", state.copy_latency}, {"first_column", state.first_column},
                                {"epilogue_under_next_tile", v.spec.epilogue_under_next_tile}});
  const float width = ImGui::GetContentRegionAvail().x;
  stage_chart(app, state, width);
  app.shown["timeline"]["first_column"] = state.first_column;
  legend(v.timeline);
  if (v.persistent) {
    ImGui::Separator();
    rounds(app, state, width);
  }
  (void)size;
}

}  // namespace gemm::viewer
