// The performance panel: one results file's runs as bars at one shape and as lines over the square
// sizes, against cuBLAS and the fp32 peak (the model's PerformanceView says what); and running the
// selected step on this machine's GPU.
#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdlib>
#include <filesystem>
#include <sstream>

#include "panels.hpp"
#include "theme.hpp"

namespace gemm::viewer {

namespace {

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

// The chart's space below the drawing (its axis labels) before what follows.
void chart_space(const App& app, float width, float chart_h) {
  ImGui::Dummy({width, chart_h + (app.docs ? ImGui::GetTextLineHeight() + 6 : 20)});
}

// Bars: every run at the selected shape, against cuBLAS (same runs) and the fp32 peak.
void bars(App& app, const PerformanceView& view, float width_available, float chart_h, float label_up) {
  ImDrawList* draw = ImGui::GetWindowDrawList();
  const ImVec2 mouse = ImGui::GetIO().MousePos;
  const MeasuredShape& sel = view.shapes[size_t(view.shape)];
  const ImVec2 o = ImGui::GetCursorScreenPos();
  const float left = o.x + 40, bottom = o.y + chart_h, width = width_available - 60;
  const double top = view.bar_top;
  app.shown["bars"] = nlohmann::json::array();
  app.shown["bars_shape"] = {sel[0], sel[1], sel[2]};
  draw->AddLine({left, bottom}, {left + width, bottom}, palette.axis);
  const float bar_w = width / float(std::max<size_t>(view.bars.size(), 1));
  // The gap between bars: 3 pixels a side, less where the bars are many and narrow, so that each
  // keeps half its slot (a fixed gap wider than the slot left no bar to draw).
  const float gap = std::min(3.0f, bar_w / 4);
  for (size_t i = 0; i < view.bars.size(); ++i) {
    const ResultRun& run = *view.runs[view.bars[i].run];
    const ResultPoint& point = *view.bars[i].point;
    const float h = float(point.gflops / top) * chart_h;
    const ImVec2 a{left + bar_w * float(i) + gap, bottom - h}, b{left + bar_w * float(i + 1) - gap, bottom};
    const Rgba colour = index_colour(std::uint32_t(view.bars[i].run));
    draw->AddRectFilled(a, b, im(colour));
    if (view.bars[i].highlighted) {
      // The selected step's bars: outlined, with a mark above and the label in the outline's colour.
      draw->AddRect({a.x - 3, a.y - 3}, {b.x + 3, b.y}, palette.outline, 0, 0, 2);
      const float mid = (a.x + b.x) / 2, mark = std::min(8.0f, (b.x - a.x) / 2 + 2);
      draw->AddTriangleFilled({mid - mark, a.y - 6 - mark}, {mid + mark, a.y - 6 - mark}, {mid, a.y - 6}, palette.outline);
    }
    draw->AddText({a.x, bottom + 2}, view.bars[i].highlighted ? palette.outline : palette.text, short_name(run).c_str());
    app.shown["bars"].push_back({{"label", run.label()}, {"gflops", point.gflops}, {"x0", a.x}, {"y0", a.y},
                                 {"x1", b.x}, {"y1", b.y}, {"bottom", bottom}, {"chart_height", chart_h},
                                 {"top_gflops", top}, {"colour", colour}, {"highlighted", view.bars[i].highlighted}});
    if (mouse.x >= a.x && mouse.x < b.x && mouse.y >= o.y && mouse.y < bottom) {
      ImGui::BeginTooltip();
      for (const std::string& line : bar_tooltip(run, point, sel)) ImGui::Text("%s", line.c_str());
      ImGui::EndTooltip();
    }
  }
  const float y_cublas = bottom - float(view.bar_cublas / top) * chart_h, y_peak = bottom - float(view.peak / top) * chart_h;
  draw->AddLine({left, y_cublas}, {left + width, y_cublas}, palette.cublas, 2);
  draw->AddText({left + 4, y_cublas - label_up}, palette.cublas, ("cuBLAS " + tflops_text(view.bar_cublas)).c_str());
  if (view.peak > 0) {
    draw->AddLine({left, y_peak}, {left + width, y_peak}, palette.peak, 1);
    draw->AddText({left + 4, y_peak - label_up}, palette.peak, ("fp32 peak " + tflops_text(view.peak)).c_str());
  }
  chart_space(app, width_available, chart_h);
}

// Lines: GFLOPS against size (square shapes), one line per run, cuBLAS in its colour; then the legend.
void lines(const App& app, const PerformanceView& view, float width_available, float chart_h) {
  ImDrawList* draw = ImGui::GetWindowDrawList();
  const ImVec2 mouse = ImGui::GetIO().MousePos;
  ImGui::Text("GFLOPS by size (square shapes)");
  const std::vector<int>& sizes = view.sizes;
  const ImVec2 o = ImGui::GetCursorScreenPos();
  const float left = o.x + 40, bottom = o.y + chart_h, width = width_available - 60;
  const double top = view.line_top;
  draw->AddLine({left, bottom}, {left + width, bottom}, palette.axis);
  auto x_of = [&](size_t i) { return left + width * (sizes.size() > 1 ? float(i) / float(sizes.size() - 1) : 0.5f); };
  for (size_t i = 0; i < sizes.size(); ++i) {
    const std::string label = std::to_string(sizes[i]);
    const float w = ImGui::CalcTextSize(label.c_str()).x;  // docs: centred, and inside the panel
    const float x = app.docs ? std::min(x_of(i) - w / 2, o.x + width_available - w - 4) : x_of(i) - 12;
    draw->AddText({x, bottom + 2}, palette.text, label.c_str());
  }
  std::string hover;
  for (size_t r = 0; r < view.runs.size(); ++r) {
    std::vector<ImVec2> points, cublas;
    for (const auto& [i, p] : view.lines[r]) {  // i: the size
      points.push_back({x_of(i), bottom - float(p->gflops / top) * chart_h});
      cublas.push_back({x_of(i), bottom - float(p->cublas_gflops / top) * chart_h});
      const ImVec2& q = points.back();
      if (std::abs(mouse.x - q.x) < 6 && std::abs(mouse.y - q.y) < 6) hover = line_point_text(*view.runs[r], sizes[i], *p);
    }
    if (r == 0 && cublas.size() > 1) draw->AddPolyline(cublas.data(), int(cublas.size()), palette.cublas, 0, 2);
    if (points.size() > 1) draw->AddPolyline(points.data(), int(points.size()), im(index_colour(std::uint32_t(r))), 0, 2);
    for (const auto& q : points) draw->AddCircleFilled(q, 3, im(index_colour(std::uint32_t(r))));
  }
  if (view.peak > 0) {
    const float y_peak = bottom - float(view.peak / top) * chart_h;
    draw->AddLine({left, y_peak}, {left + width, y_peak}, palette.peak, 1);
  }
  if (!hover.empty()) ImGui::SetTooltip("%s", hover.c_str());
  chart_space(app, width_available, chart_h);
  // Legend: one swatch per run, cuBLAS, the fp32 peak.
  for (size_t r = 0; r < view.runs.size(); ++r) {
    const ImVec2 at = ImGui::GetCursorScreenPos();
    draw->AddRectFilled({at.x, at.y + 3}, {at.x + 10, at.y + 13}, im(index_colour(std::uint32_t(r))));
    ImGui::Dummy({12, 14});
    ImGui::SameLine();
    ImGui::Text("%s", legend_text(*view.runs[r]).c_str());
    ImGui::SameLine();
    if (ImGui::GetContentRegionAvail().x < 90) ImGui::NewLine();
  }
  ImGui::TextColored(ImGui::ColorConvertU32ToFloat4(palette.cublas), "cuBLAS");
  if (view.peak > 0) {
    ImGui::SameLine();
    ImGui::TextColored(ImGui::ColorConvertU32ToFloat4(palette.peak), "fp32 peak");
  }
}

}  // namespace

void collect_run(App& app) {
  if (!app.run_future.valid() || app.run_future.wait_for(std::chrono::seconds(0)) != std::future_status::ready) return;
  const std::string json = app.run_future.get();
  if (json.empty()) {
    app.message = "the run failed (see the step's own output in a terminal)";
    return;
  }
  ResultsFile file = load_results(json);
  file.path = "this session: " + app.current().step;
  app.message = file.ok() ? "run added to the results list" : file.error;
  app.add_results(file);
}

void performance_panel(App& app, ImVec2 size) {
  ImGui::Text("Performance: measured GFLOPS (results files)");
  if (app.results.empty()) {
    ImGui::TextWrapped("No results file loaded. File > Open a results file (docs/results/<gpu>.json).");
    return;
  }
  std::vector<std::string> names;
  for (const auto& r : app.results) names.push_back(results_name(r));
  app.results_index = std::clamp(app.results_index, 0, int(app.results.size()) - 1);
  ImGui::SetNextItemWidth(size.x - 20);
  pick("##results", names, app.results_index);
  const ResultsFile& file = app.results[size_t(app.results_index)];
  app.shown["results"] = {{"path", file.path}, {"error", file.error}, {"runs", file.runs.size()}};
  if (!file.ok()) {
    ImGui::PushStyleColor(ImGuiCol_Text, IM_COL32(255, 110, 110, 255));
    ImGui::TextWrapped("%s", file.error.c_str());
    ImGui::PopStyleColor();
    return;
  }
  // fp32 runs (against the fp32 peak), 16-bit tensor-core runs (f16/bf16 in) or the FP8 step's: their
  // scales differ tenfold, and FP8's twice again. Unless --perf or a button chose, the selected
  // step's group, with its bars highlighted.
  const std::string step = app.current().step;
  if (app.perf_follows_step)
    if (const std::optional<RunGroup> group = group_of_step(file, step); group && *group != app.perf_group)
      app.perf_group = *group, app.perf_shape = -1;
  auto group_button = [&](const char* label, RunGroup group) {
    if (ImGui::RadioButton(label, app.perf_group == group))
      app.perf_group = group, app.perf_shape = -1, app.perf_follows_step = false;
  };
  group_button("fp32 steps", RunGroup::fp32);
  ImGui::SameLine();
  group_button("tensor-core steps", RunGroup::tensor);
  ImGui::SameLine();
  group_button("FP8 step", RunGroup::fp8);
  if (!app.docs) {
    ImGui::SameLine();
    ImGui::Checkbox("follow the step", &app.perf_follows_step);
  }
  app.shown["perf_group"] = app.perf_group == RunGroup::fp32 ? "fp32" : app.perf_group == RunGroup::tensor ? "tensor" : "fp8";
  PerformanceView view = performance_view(file, app.perf_group, app.perf_shape, step);
  if (view.shapes.empty()) {
    ImGui::Text(app.perf_group == RunGroup::fp32     ? "This file holds no fp32 GEMM runs."
                : app.perf_group == RunGroup::tensor ? "This file holds no 16-bit tensor-core runs."
                                                     : "This file holds no FP8 runs.");
    return;
  }
  app.perf_shape = view.shape;
  std::vector<std::string> shape_names;
  for (const MeasuredShape& s : view.shapes) shape_names.push_back(shape_text(s));
  ImGui::SetNextItemWidth(ui(180));
  if (pick("bars at", shape_names, app.perf_shape)) view = performance_view(file, app.perf_group, app.perf_shape, step);
  // cuBLAS in TF32 (fp32 runs on sm_80+) is a reference, not the yardstick, and several times the
  // fp32 peak: named above the charts rather than drawn, so that it does not flatten the fp32 bars.
  app.shown["tf32_reference_gflops"] = view.tf32;
  if (view.tf32 > 0) {
    ImGui::PushStyleColor(ImGuiCol_Text, palette.tf32);
    ImGui::TextWrapped("cuBLAS in TF32 on the tensor cores: %s (a reference, not fp32; off this scale)",
                       tflops_text(view.tf32).c_str());
    ImGui::PopStyleColor();
  }
  const ImVec2 avail = ImGui::GetContentRegionAvail();
  // Docs pictures are cropped to what was drawn: charts of a fixed height (scaled with the font).
  const float chart_h = app.docs ? ui(240) : std::max(120.0f, (avail.y - 90) / 2);
  const float label_up = app.docs ? ImGui::GetTextLineHeight() + 2 : 15;  // a line's label sits above it
  bars(app, view, avail.x, chart_h, label_up);
  lines(app, view, avail.x, chart_h);
  if (app.gpu_present) {
    if (ImGui::Button("Run the selected step here") && !app.run_future.valid()) run_selected_step(app);
  } else {
    ImGui::TextDisabled("no GPU here: \"Run\" needs one");
  }
}

}  // namespace gemm::viewer
