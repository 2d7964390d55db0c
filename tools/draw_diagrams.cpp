// draw_diagrams: the concept diagrams of the docs, as SVG, computed from the steps' own mapping
// functions and configurations (steps/*/mapping.hpp): nothing here is a second copy of a mapping.
//
//   draw_diagrams --out docs/images          writes every diagram
//   draw_diagrams --out DIR --list           names them
//
// tools/pictures.py runs it (with the viewer's pictures); the docs.pictures_current test reruns it
// into a temporary folder and compares the files byte for byte. The output is deterministic: fixed
// sizes, fixed number formatting, no dates.
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <functional>
#include <map>
#include <set>
#include <sstream>
#include <string>
#include <vector>

#include "16_warp_specialized/mapping.hpp"
#include "cpu_gemm.hpp"
#include "17_persistent_clusters/mapping.hpp"
#include "exit_codes.hpp"
#include "traced_steps.hpp"

namespace {

// ---- A small SVG writer ---------------------------------------------------------------------------

std::string num(double v) {
  char buffer[32];
  std::snprintf(buffer, sizeof(buffer), "%.1f", v);
  std::string s = buffer;
  if (s.size() > 2 && s.compare(s.size() - 2, 2, ".0") == 0) s.resize(s.size() - 2);
  return s;
}

std::string escape(const std::string& text) {
  std::string out;
  for (char ch : text) {
    if (ch == '&') out += "&amp;";
    else if (ch == '<') out += "&lt;";
    else if (ch == '>') out += "&gt;";
    else out += ch;
  }
  return out;
}

struct Svg {
  double width, height;
  std::ostringstream body;
  Svg(double w, double h) : width(w), height(h) {}
  void rect(double x, double y, double w, double h, const std::string& fill, const std::string& stroke = "none",
            double stroke_width = 1) {
    body << "<rect x=\"" << num(x) << "\" y=\"" << num(y) << "\" width=\"" << num(w) << "\" height=\"" << num(h)
         << "\" fill=\"" << fill << "\" stroke=\"" << stroke << "\" stroke-width=\"" << num(stroke_width) << "\"/>\n";
  }
  void line(double x1, double y1, double x2, double y2, const std::string& stroke, double stroke_width = 1,
            const std::string& extra = "") {
    body << "<line x1=\"" << num(x1) << "\" y1=\"" << num(y1) << "\" x2=\"" << num(x2) << "\" y2=\"" << num(y2)
         << "\" stroke=\"" << stroke << "\" stroke-width=\"" << num(stroke_width) << "\"" << extra << "/>\n";
  }
  void arrow(double x1, double y1, double x2, double y2, const std::string& colour, const std::string& marker) {
    line(x1, y1, x2, y2, colour, 1.5, " marker-end=\"url(#" + marker + ")\"");
  }
  // size in pixels (at least 12 everywhere: the docs are read in a browser)
  void text(double x, double y, const std::string& s, int size = 14, const std::string& anchor = "start",
            const std::string& fill = "#1a1a1a", bool bold = false) {
    body << "<text x=\"" << num(x) << "\" y=\"" << num(y) << "\" font-size=\"" << size << "\"";
    if (anchor != "start") body << " text-anchor=\"" << anchor << "\"";
    if (bold) body << " font-weight=\"bold\"";
    if (fill != "#1a1a1a") body << " fill=\"" << fill << "\"";
    body << ">" << escape(s) << "</text>\n";
  }
  std::string str() const {
    std::ostringstream out;
    out << "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"" << num(width) << "\" height=\"" << num(height)
        << "\" viewBox=\"0 0 " << num(width) << " " << num(height) << "\" font-family=\"DejaVu Sans, Arial, sans-serif\">\n"
        << "<defs>\n";
    for (const auto& [id, colour] : std::map<std::string, std::string>{{"arrow-blue", "#1f5fbf"}, {"arrow-orange", "#c85a00"}})
      out << "<marker id=\"" << id << "\" viewBox=\"0 0 10 10\" refX=\"9\" refY=\"5\" markerWidth=\"7\" markerHeight=\"7\" "
          << "orient=\"auto-start-reverse\"><path d=\"M0,0 L10,5 L0,10 z\" fill=\"" << colour << "\"/></marker>\n";
    out << "</defs>\n<rect width=\"100%\" height=\"100%\" fill=\"#ffffff\"/>\n" << body.str() << "</svg>\n";
    return out.str();
  }
};

// Eight light, distinguishable fills (warps, stages, phases), and 32 hues for lanes.
const char* const kFills[] = {"#9ecae1", "#fdae6b", "#a1d99b", "#fcbba1", "#bcbddc", "#fdd0a2", "#c7e9c0", "#d9d9d9"};
std::string fill_of(int index) { return kFills[index % 8]; }
std::string lane_fill(int lane) {
  // HSL(hue, 65%, 78%) around the wheel, as hex: light enough for black text.
  const double h = double(lane * 11 % 32) / 32.0 * 6.0, s = 0.65, l = 0.78;
  const double c = (1 - std::abs(2 * l - 1)) * s, x = c * (1 - std::abs(std::fmod(h, 2.0) - 1)), m = l - c / 2;
  double r = 0, g = 0, b = 0;
  if (h < 1) r = c, g = x;
  else if (h < 2) r = x, g = c;
  else if (h < 3) g = c, b = x;
  else if (h < 4) g = x, b = c;
  else if (h < 5) r = x, b = c;
  else r = c, b = x;
  char buffer[8];
  std::snprintf(buffer, sizeof(buffer), "#%02x%02x%02x", int((r + m) * 255 + 0.5), int((g + m) * 255 + 0.5),
                int((b + m) * 255 + 0.5));
  return buffer;
}

// ---- Step 00: the inner loop's reads of B in the two loop orders -----------------------------------

std::string loop_order_00() {
  constexpr int kCols = 16, kRows = 8, kSteps = 8;  // a corner of B (N = 16), the inner loop's first steps
  constexpr int kFloatBytes = 4, kCacheLineBytes = 64;  // a cache line of x86-64 and most Arm cores
  constexpr int kLines = kRows * kCols * kFloatBytes / kCacheLineBytes;
  const double cell = 24, panel_w = kCols * cell, gap = 90, x0 = 30, grid_y = 146;
  Svg svg(x0 * 2 + panel_w * 2 + gap, 488);
  svg.text(x0, 30, "Step 00: which elements of B the inner loop reads, in the two loop orders", 20, "start", "#1a1a1a",
           true);
  svg.text(x0, 56, "B is stored row by row (row-major), here N = " + std::to_string(kCols) + " columns; the first " +
           std::to_string(kSteps) + " steps of each inner loop, numbered.", 13);
  svg.text(x0, 74, "Drawn from naive_b_read and blocked_b_read (common/host/cpu_gemm.hpp), the offsets the two loops read.", 13);
  struct Panel {
    const char* title;
    const char* subtitle;
    std::function<size_t(int)> read;  // the offset in B of the inner loop's read at a step
  };
  const Panel panels[] = {
      {"Triple loop (row, col, k)", "C(0, 0): k = 0, 1, 2, ... walks down column 0",
       [](int step) { return gemm::naive_b_read(kCols, 0, step); }},
      {"Blocked loop (row, k, col)", "row 0 of C at k = 0: col = 0, 1, 2, ... walks along row 0",
       [](int step) { return gemm::blocked_b_read(kCols, 0, 0, step); }},
  };
  for (int p = 0; p < 2; ++p) {
    const Panel& panel = panels[p];
    const double px = x0 + p * (panel_w + gap);
    svg.text(px, 110, panel.title, 16, "start", "#1a1a1a", true);
    svg.text(px, 130, panel.subtitle, 13);
    std::map<size_t, int> step_at;  // offset -> step
    std::set<int> lines;
    for (int step = 0; step < kSteps; ++step) {
      const size_t at = panel.read(step);
      step_at[at] = step;
      lines.insert(int(at * kFloatBytes / kCacheLineBytes));
    }
    for (int r = 0; r < kRows; ++r)
      for (int c = 0; c < kCols; ++c) {
        const size_t at = size_t(r) * kCols + size_t(c);
        const auto found = step_at.find(at);
        const double x = px + c * cell, y = grid_y + r * cell;
        svg.rect(x, y, cell, cell, found != step_at.end() ? "#fdae6b" : "#f4f4f4", "#999999", 0.6);
        if (found != step_at.end()) svg.text(x + cell / 2, y + cell - 7, std::to_string(found->second + 1), 12, "middle");
      }
    svg.text(px - 6, grid_y + 16, "k 0", 12, "end");
    svg.text(px - 6, grid_y + kRows * cell - 8, std::to_string(kRows - 1), 12, "end");
    svg.text(px, grid_y + kRows * cell + 16, "col 0", 12);
    svg.text(px + panel_w, grid_y + kRows * cell + 16, "col " + std::to_string(kCols - 1), 12, "end");
    // B in memory: its first rows end to end, cut into cache lines; a mark where a read falls.
    const double my = grid_y + kRows * cell + 52, line_w = panel_w / kLines, floats_per_line = double(kCacheLineBytes) / kFloatBytes;
    svg.text(px, my - 8, "B in memory, in cache lines of " + std::to_string(kCacheLineBytes) + " bytes (" +
             std::to_string(int(floats_per_line)) + " floats)", 13);
    for (int line = 0; line < kLines; ++line)
      svg.rect(px + line * line_w, my, line_w, 26, lines.count(line) ? "#fdd0a2" : "#ffffff", "#555555", 0.8);
    for (const auto& [at, step] : step_at) {
      const double x = px + double(at) / floats_per_line * line_w;
      svg.rect(x, my + 4, std::max(1.5, line_w / floats_per_line), 18, "#c85a00");
    }
    svg.text(px, my + 50, std::to_string(kSteps) + " reads, " + std::to_string(int(panel.read(1) - panel.read(0)) * kFloatBytes) +
             " bytes apart: " + std::to_string(lines.size()) + (lines.size() == 1 ? " cache line" : " cache lines"), 14,
             "start", "#1a1a1a", true);
  }
  svg.text(x0, 470, "A cache line is fetched whole: the blocked loop uses every float of the lines it fetches, the "
                    "triple loop one float in " + std::to_string(kCacheLineBytes / kFloatBytes) + ".", 13);
  return svg.str();
}

// ---- (a) Step 09: block -> warp -> thread tiling ----------------------------------------------------

std::string tiling_09() {
  using namespace step09;
  const Config c = kConfigs[0];
  const gemm::GemmShape shape{c.bm, c.bn, c.bk};  // one block's tile
  // Owner of every element of block (0, 0)'s tile, from the step's own c_element.
  const size_t elements = static_cast<size_t>(c.bm * c.bn);
  std::vector<int> warp_of(elements, -1), lane_of(elements, -1);
  struct Patch { int row, col, lane; };
  std::vector<Patch> warp0_patches;  // the 4 x 4 groups of warp 0's lanes
  for (int thread = 0; thread < threads(c); ++thread) {
    gemm::ThreadCoord t;
    t.block = {0, 0, 0};
    t.thread = {thread, 0, 0};
    for (int i = 0; i < c.tm; ++i)
      for (int j = 0; j < c.tn; ++j) {
        const gemm::CElement e = c_element(shape, t, c, i, j);
        warp_of[size_t(e.row * c.bn + e.col)] = warp_id(t);
        lane_of[size_t(e.row * c.bn + e.col)] = lane_id(t);
        if (warp_id(t) == 0 && i % kChunk == 0 && j % kChunk == 0) warp0_patches.push_back({e.row, e.col, lane_id(t)});
      }
  }
  const double cell = 4, x0 = 30, y0 = 90;
  const double zoom = 8, zx0 = x0 + c.bn * cell + 90;
  Svg svg(zx0 + c.wn * zoom + 330, y0 + std::max(c.bm * cell, c.wm * zoom) + 30);
  svg.text(x0, 30, "Step 09: who computes which element of C (block tile -> warp tile -> thread tile)", 20, "start",
           "#1a1a1a", true);
  svg.text(x0, 56, "Default configuration BM x BN = " + std::to_string(c.bm) + " x " + std::to_string(c.bn) + ", WM x WN = " +
           std::to_string(c.wm) + " x " + std::to_string(c.wn) + ", TM x TN = " + std::to_string(c.tm) + " x " +
           std::to_string(c.tn) + ": " + std::to_string(warps(c)) + " warps, " + std::to_string(threads(c)) +
           " threads; drawn from step09::c_element", 14);
  svg.text(x0, y0 - 10, "one block's tile of C, coloured by warp", 14, "start", "#1a1a1a", true);
  // One rectangle per run of a row's cells of one fill.
  auto fill_at = [&](int r, int col) {
    const size_t at = size_t(r * c.bn + col);
    return warp_of[at] == 0 && lane_of[at] == 0 ? std::string("#1a1a1a") : fill_of(warp_of[at]);
  };
  for (int r = 0; r < c.bm; ++r)
    for (int col = 0; col < c.bn;) {
      int run = 1;
      while (col + run < c.bn && fill_at(r, col + run) == fill_at(r, col)) ++run;
      svg.rect(x0 + col * cell, y0 + r * cell, run * cell, cell, fill_at(r, col));
      col += run;
    }
  // Warp labels at the middle of each warp's elements.
  for (int w = 0; w < warps(c); ++w) {
    double sr = 0, sc = 0;
    int n = 0;
    for (int r = 0; r < c.bm; ++r)
      for (int col = 0; col < c.bn; ++col)
        if (warp_of[size_t(r * c.bn + col)] == w) sr += r, sc += col, ++n;
    svg.rect(x0 + (sc / n) * cell - 30, y0 + (sr / n) * cell - 12, 60, 22, "#ffffff", "#1a1a1a", 0.5);
    svg.text(x0 + (sc / n) * cell, y0 + (sr / n) * cell + 4, "warp " + std::to_string(w), 13, "middle");
  }
  svg.rect(x0, y0, c.bn * cell, c.bm * cell, "none", "#1a1a1a", 1.5);
  // Warp 0 enlarged: each lane's 4 x 4 groups, labelled with the lane.
  svg.text(zx0, y0 - 10, "warp 0's " + std::to_string(c.wm) + " x " + std::to_string(c.wn) + " tile: the lane of each 4 x 4 group",
           14, "start", "#1a1a1a", true);
  for (const Patch& p : warp0_patches) {
    const double x = zx0 + p.col * zoom, y = y0 + p.row * zoom;
    svg.rect(x, y, kChunk * zoom, kChunk * zoom, p.lane == 0 ? "#1a1a1a" : lane_fill(p.lane), "#ffffff", 1);
    svg.text(x + kChunk * zoom / 2, y + kChunk * zoom / 2 + 5, std::to_string(p.lane), 13, "middle",
             p.lane == 0 ? "#ffffff" : "#1a1a1a");
  }
  svg.line(x0 + c.wn * cell, y0, zx0, y0, "#777777", 1, " stroke-dasharray=\"4 3\"");
  svg.line(x0 + c.wn * cell, y0 + c.wm * cell, zx0, y0 + c.wm * zoom, "#777777", 1, " stroke-dasharray=\"4 3\"");
  svg.rect(x0, y0, c.wn * cell, c.wm * cell, "none", "#1a1a1a", 2.5);
  // Legend.
  const double lx = zx0 + c.wn * zoom + 30;
  svg.rect(lx, y0, 16, 16, "#1a1a1a");
  svg.text(lx + 24, y0 + 13, "thread 0 (warp 0, lane 0):", 13);
  svg.text(lx + 24, y0 + 31, std::to_string(c.tm) + " x " + std::to_string(c.tn) + " elements in " +
           std::to_string(c.tm / kChunk) + " x " + std::to_string(c.tn / kChunk) + " groups", 13);
  svg.text(lx + 24, y0 + 49, "of 4 x 4, " + std::to_string(lanes_m(c) * kChunk) + " rows and " +
           std::to_string(lanes_n(c) * kChunk) + " columns apart", 13);
  svg.text(lx, y0 + 85, "Each warp: " + std::to_string(lanes_m(c)) + " x " + std::to_string(lanes_n(c)) + " lanes;", 13);
  svg.text(lx, y0 + 103, "the lanes are not in row order:", 13);
  svg.text(lx, y0 + 121, "each quarter-warp takes a", 13);
  svg.text(lx, y0 + 139, "block of lane positions, so", 13);
  svg.text(lx, y0 + 157, "every 16-byte shared load", 13);
  svg.text(lx, y0 + 175, "costs 2 wavefronts (docs/09).", 13);
  return svg.str();
}

// ---- (b) Step 10: the cp.async pipeline over time ---------------------------------------------------

std::string pipeline_10() {
  using namespace step10;
  const Config c = kConfigs[0];
  const int stages = c.stages, k_tiles = 2 * stages;
  // Times in loop slots: slot 0 the prologue, slot kt + 1 iteration kt (kernel.cuh, main_loop): the
  // prologue issues k-tiles 0..STAGES-2 and waits for tile 0; iteration kt computes tile kt from
  // stage kt % STAGES, then waits for tile kt + 1 (cp.async.wait_group STAGES-3 and __syncthreads)
  // and issues tile kt + STAGES - 1 into the stage tile kt - 1 used.
  struct Bar { int stage; double from, to; std::string label, fill; };
  std::vector<Bar> bars;
  std::vector<double> waits;
  auto issue_time = [&](int tile) { return tile < stages - 1 ? 0.12 + 0.1 * tile : (tile - stages + 1) + 1 + 0.84; };
  auto needed_time = [&](int tile) { return tile == 0 ? 0.8 : tile + 0.8; };  // the wait that needs it
  waits.push_back(0.8);
  for (int tile = 0; tile < k_tiles + stages - 1; ++tile) {
    const bool past_end = tile >= k_tiles;
    const double from = issue_time(tile);
    if (from > k_tiles + 1) break;
    const double to = past_end ? std::min(from + 0.9, double(k_tiles + 1)) : needed_time(tile);
    if (to - from < 0.5) continue;  // issued at the very end: off the picture
    bars.push_back({stage_of(tile, c), from, to,
                    past_end ? "k-tile " + std::to_string(tile) + ": past the end" : "cp.async k-tile " + std::to_string(tile),
                    past_end ? "#e0e0e0" : "#9ecae1"});
    if (!past_end) {
      bars.push_back({stage_of(tile, c), to, tile + 1.05, "", "#deebf7"});  // landed, not yet read
      bars.push_back({stage_of(tile, c), tile + 1.05, tile + 1.78, "compute k-tile " + std::to_string(tile), "#a1d99b"});
      waits.push_back(tile + 1.8);
    }
  }
  const double x0 = 150, slot = 190, y0 = 120, row = 56;
  Svg svg(x0 + slot * (k_tiles + 1) + 30, y0 + row * stages + 170);
  svg.text(30, 30, "Step 10: the cp.async pipeline, " + std::to_string(stages) + " stages (STAGES of the default configuration)",
           20, "start", "#1a1a1a", true);
  svg.text(30, 56, "Each row is one shared-memory stage; time runs to the right in loop iterations. Order of the kernel's loop "
                   "(step10 kernel.cuh), stage of k-tile kt = step10::stage_of(kt) = kt % " + std::to_string(stages) + ".", 14);
  svg.text(30, 76, "While the warps compute on one stage, the copies of the next " + std::to_string(stages - 1) +
           " k-tiles are in flight into the others.", 14);
  for (int s = 0; s <= k_tiles; ++s) {
    const double x = x0 + slot * s;
    svg.rect(x, y0 - 18, slot, row * stages + 18, s % 2 ? "#fafafa" : "#f2f2f2");
    svg.text(x + slot / 2, y0 - 4, s == 0 ? "prologue" : "iteration kt = " + std::to_string(s - 1), 13, "middle");
  }
  for (int s = 0; s < stages; ++s) svg.text(x0 - 12, y0 + row * s + row / 2 + 5, "stage " + std::to_string(s), 14, "end");
  for (const Bar& b : bars) {
    const double x = x0 + slot * b.from, w = slot * (b.to - b.from), y = y0 + row * b.stage + 8;
    svg.rect(x, y, w, row - 16, b.fill, b.label.empty() ? "none" : "#555555", 0.8);
    if (!b.label.empty()) svg.text(x + 6, y + (row - 16) / 2 + 5, b.label, 13);
  }
  for (double t : waits) svg.line(x0 + slot * t, y0 - 2, x0 + slot * t, y0 + row * stages, "#c0392b", 2);
  // Legend.
  const double ly = y0 + row * stages + 40;
  const std::vector<std::pair<std::string, std::string>> legend = {
      {"#9ecae1", "cp.async in flight (issued by every thread, one commit group per k-tile)"},
      {"#deebf7", "landed, waiting to be read"},
      {"#a1d99b", "compute: the k-tile's BK steps of ld.shared and FMAs"},
      {"#e0e0e0", "the last iterations still issue copies (past the end of K: they write zeros, cheaper than a branch)"}};
  for (size_t i = 0; i < legend.size(); ++i) {
    svg.rect(30, ly + 24 * double(i), 28, 16, legend[i].first, "#555555", 0.8);
    svg.text(68, ly + 24 * double(i) + 13, legend[i].second, 13);
  }
  svg.line(30, ly + 24 * 4 + 8, 58, ly + 24 * 4 + 8, "#c0392b", 2);
  svg.text(68, ly + 24 * 4 + 13, "cp.async.wait_group " + std::to_string(stages - 2) + " in the prologue, " +
           std::to_string(stages - 3) + " in the loop, then __syncthreads: the next k-tile has landed for everyone; only then "
           "is the stage read in the last iteration refilled", 13);
  return svg.str();
}

// ---- (b') Step 11: the last wave of tiles, whole or split along k -----------------------------------

// The SMs of the GPU the shipped results come from (an H100 SXM): the schedule is cut for a GPU.
constexpr int kDiagramSms = 132;

std::string wave_split_11() {
  using namespace step11;
  const GemmShape shape{4096, 4096, 4096};
  const Config c = config_for_shape(shape, kDiagramSms);
  const Schedule split = schedule_of(shape, c, kDiagramSms);
  const int slots = kDiagramSms * blocks_per_sm(c), tiles = split.tiles, kt_count = split.k_tiles;
  const int whole_waves = tiles / slots, last_wave = tiles % slots;
  const double x0 = 150, tile_w = 220, y_top = 150, slot_h = 2.5, panel_gap = 70;
  const double panel_h = slot_h * slots, width = x0 + tile_w * (whole_waves + 1) + 60;
  Svg svg(width, y_top + 2 * panel_h + panel_gap + 200);
  svg.text(30, 30, "Step 11: the last wave of tiles, split along k (" + std::to_string(shape.m) + "³, " +
                       std::to_string(c.bm) + " × " + std::to_string(c.bn) + " tiles, " + std::to_string(kDiagramSms) + " SMs)",
           20, "start", "#1a1a1a", true);
  svg.text(30, 56, std::to_string(tiles) + " tiles of " + std::to_string(kt_count) + " k-tiles each, one block per SM at a time: " +
                       std::to_string(whole_waves) + " full waves of " + std::to_string(slots) + " and a last one of " +
                       std::to_string(last_wave) + ".", 14);
  svg.text(30, 76, "Drawn from step11::schedule_of and piece_of, the kernel's own schedule. Each row is one SM; time runs to "
                   "the right in units of one whole tile's time.", 14);
  auto panel = [&](double y, const std::string& title, bool with_split) {
    svg.text(30, y - 12, title, 15, "start", "#1a1a1a", true);
    svg.rect(x0, y, tile_w * (whole_waves + 1), panel_h, "#f7f7f7", "#bbbbbb", 0.8);
    for (int w = 0; w <= whole_waves + 1; ++w) {
      svg.line(x0 + tile_w * w, y, x0 + tile_w * w, y + panel_h, "#cccccc", 0.8);
      svg.text(x0 + tile_w * w, y + panel_h + 16, std::to_string(w), 12, "middle");
    }
    svg.text(x0 - 10, y + 12, "SM 0", 12, "end");
    svg.text(x0 - 10, y + panel_h, "SM " + std::to_string(slots - 1), 12, "end");
    for (int slot = 0; slot < slots; ++slot) {
      const double row_y = y + slot_h * slot;
      double t = 0;
      if (with_split && slot < split.split_blocks) {
        for (int index = 0; index < kMaxPieces; ++index) {
          const Piece piece = piece_of(split, slot, index);
          const int length = piece.kt_end - piece.kt_begin;
          if (length <= 0) continue;
          const double w = double(length) / kt_count;
          svg.rect(x0 + tile_w * t, row_y, tile_w * w, slot_h, fill_of(piece.tile % 7 + 1));
          t += w;
        }
      }
      const int first_whole = with_split ? split.split_tiles : 0;
      for (int tile = first_whole + slot; tile < tiles; tile += slots) {
        const bool last = !with_split && tile >= whole_waves * slots;
        svg.rect(x0 + tile_w * t, row_y, tile_w - 1, slot_h, last ? "#6baed6" : "#9ecae1");
        t += 1;
      }
    }
  };
  panel(y_top, "Step 10: every tile whole, one block per tile", false);
  panel(y_top + panel_h + panel_gap, "Step 11: the " + std::to_string(split.split_tiles) + " tiles of the last wave cut into " +
                                         std::to_string(split.split_blocks) + " runs of k-tiles, first; then the whole tiles",
        true);
  const double ly = y_top + 2 * panel_h + panel_gap + 40;
  svg.rect(30, ly, 28, 16, "#9ecae1", "#555555", 0.8);
  svg.text(68, ly + 13, "a whole tile (pipelined_sgemm)", 13);
  svg.rect(30, ly + 24, 28, 16, "#6baed6", "#555555", 0.8);
  svg.text(68, ly + 37, "a whole tile of the last wave: " + std::to_string(slots - last_wave) + " SMs have none and wait", 13);
  svg.rect(30, ly + 48, 28, 16, fill_of(2), "#555555", 0.8);
  svg.text(68, ly + 61, "a split block's run over the k-tiles of one or two split tiles (split_sgemm; a colour per tile);", 13);
  svg.text(68, ly + 79, "the last of a tile's sharers to finish adds their partial sums up and stores the tile", 13);
  svg.text(30, ly + 108, "With programmatic dependent launch the whole tiles' blocks take each SM as its split block leaves it.", 13);
  return svg.str();
}

// ---- (c) Step 14: the swizzle, before and after ------------------------------------------------------

std::string swizzle_14() {
  using namespace step14;
  const Config c = kConfigs[0];
  const OperandTile tile = b_tile(gemm::Layout::nn, c);  // NN: B's tile is transposed (rows are k)
  const int chunk_bytes = kChunk * kElementBytes, groups = 128 / chunk_bytes;  // 8 groups of 4 banks
  constexpr int kPhases = 4, kLanesPerPhase = 8;
  // ldmatrix.x4.trans of the first two B fragments (n0 = 0, k0 = 0): one row address per lane.
  std::vector<Spot> spots;
  for (int lane = 0; lane < kWarpSize; ++lane) spots.push_back(b_ldmatrix_spot(tile.k_major, 0, 0, lane));
  int shown_rows = 0;
  for (const Spot& s : spots) shown_rows = std::max(shown_rows, s.row + 1);
  // Byte offset of (row, chunk) in the tile: without the swizzle (chunk c of a row at position c), and
  // with it (step14::tile_offset).
  auto plain = [&](int row, int chunk) { return (row * tile.chunks + chunk) * chunk_bytes; };
  auto swizzled = [&](int row, int chunk) { return tile_offset(tile, row, chunk) * kElementBytes; };
  const double cw = 56, ch = 26, top = 180, left = 90, gap = 130;
  const double panel_w = cw * groups;
  Svg svg(left + 2 * panel_w + gap + 40, top + ch * shown_rows + 200);
  svg.text(30, 30, "Step 14: the 128-byte swizzle of a shared tile, and what one ldmatrix.x4.trans reads", 20, "start",
           "#1a1a1a", true);
  svg.text(30, 56, "B's tile in NN (default configuration): " + std::to_string(tile.rows) + " rows (k) of " +
           std::to_string(tile.chunks) + " chunks of 16 bytes (8 n's each). Shown: rows 0-" + std::to_string(shown_rows - 1) +
           ", the first 128 bytes of each row", 14);
  svg.text(30, 76, "(a column is a group of 4 banks). In each cell: the chunk of the row stored there. Coloured: the chunks "
                   "the instruction's 4 phases read,", 14);
  svg.text(30, 96, "8 lanes each (lane addresses from step14::b_ldmatrix_spot; the swizzle is step14::tile_offset).", 14);
  struct Panel { std::string title; std::function<int(int, int)> offset; };
  const Panel panels[2] = {{"without the swizzle: chunk c at position c", plain},
                           {"with it: chunk c at position c ^ (row % 8)", swizzled}};
  const std::string phase_fill[kPhases] = {"#fdae6b", "#9ecae1", "#a1d99b", "#bcbddc"};
  for (int p = 0; p < 2; ++p) {
    const double px = left + p * (panel_w + gap);
    svg.text(px, top - 36, panels[p].title, 15, "start", "#1a1a1a", true);
    if (p == 0) svg.text(left - 10, top - 8, "banks", 13, "end");
    for (int g = 0; g < groups; ++g)
      svg.text(px + cw * g + cw / 2, top - 8, std::to_string(4 * g) + "-" + std::to_string(4 * g + 3), 13, "middle");
    // Which phase reads (row, position) and the chunk stored at each position.
    std::map<std::pair<int, int>, int> phase_at;
    for (int lane = 0; lane < kWarpSize; ++lane) {
      const Spot& s = spots[size_t(lane)];
      const int position = panels[p].offset(s.row, s.chunk) / chunk_bytes % tile.chunks;
      phase_at[{s.row, position}] = lane / kLanesPerPhase;
    }
    for (int r = 0; r < shown_rows; ++r) {
      if (p == 0) svg.text(left - 10, top + ch * r + ch / 2 + 5, "row " + std::to_string(r), 13, "end");
      for (int g = 0; g < groups; ++g) {
        int chunk = -1;
        for (int k = 0; k < tile.chunks; ++k)
          if (panels[p].offset(r, k) == (r * tile.chunks + g) * chunk_bytes) chunk = k;
        const auto it = phase_at.find({r, g});
        svg.rect(px + cw * g, top + ch * r, cw, ch, it == phase_at.end() ? "#ffffff" : phase_fill[it->second], "#999999", 0.8);
        svg.text(px + cw * g + cw / 2, top + ch * r + ch / 2 + 5, "c" + std::to_string(chunk), 13, "middle");
      }
    }
    // Per phase: distinct 16-byte chunks in each bank group; more than one is a conflict.
    const double sy = top + ch * shown_rows + 30;
    svg.text(px, sy - 8, "per phase: chunks read in each bank group", 13, "start", "#1a1a1a", true);
    int wavefronts = 0;
    for (int phase = 0; phase < kPhases; ++phase) {
      std::vector<std::set<int>> in_group(static_cast<size_t>(groups));
      for (int lane = phase * kLanesPerPhase; lane < (phase + 1) * kLanesPerPhase; ++lane) {
        const int byte = panels[p].offset(spots[size_t(lane)].row, spots[size_t(lane)].chunk);
        in_group[size_t(byte / chunk_bytes % groups)].insert(byte);
      }
      int worst = 0;
      for (int g = 0; g < groups; ++g) {
        const int n = int(in_group[size_t(g)].size());
        worst = std::max(worst, n);
        svg.rect(px + cw * g, sy + 28 * phase, cw, 24, n == 0 ? "#ffffff" : n == 1 ? phase_fill[phase] : "#e74c3c", "#999999", 0.8);
        if (n > 0) svg.text(px + cw * g + cw / 2, sy + 28 * phase + 17, std::to_string(n), 13, "middle",
                            n > 1 ? "#ffffff" : "#1a1a1a", n > 1);
      }
      wavefronts += worst;
      if (p == 0) svg.text(left - 10, sy + 28 * phase + 17, "phase " + std::to_string(phase), 13, "end");
    }
    svg.text(px, sy + 28 * kPhases + 22,
             std::to_string(wavefronts) + " wavefronts (ideal " + std::to_string(kPhases) + ")" +
                 (wavefronts > kPhases ? ": " + std::to_string(wavefronts / kPhases) + "-way conflicts" : ": no conflict"),
             15, "start", wavefronts > kPhases ? "#c0392b" : "#1e7b34", true);
  }
  return svg.str();
}

// ---- (d) Step 16: producer and consumers hand stages over through mbarriers -------------------------

std::string handoff_16() {
  using namespace step16;
  const Config c = kConfigs[0];
  const int stages = c.stages, k_tiles = 2 * stages + 2, consumer_groups = consumers(c);
  const int consumer_warps = consumer_groups * 4;
  // The kernel's counters: after each k-tile, ++stage; at STAGES back to 0 and the phase flips
  // (kernel.cuh, the producer's and the consumers' loops alike).
  std::vector<int> stage_of(static_cast<size_t>(k_tiles)), phase_of(static_cast<size_t>(k_tiles));
  for (int kt = 0, stage = 0, phase = 0; kt < k_tiles; ++kt) {
    stage_of[size_t(kt)] = stage, phase_of[size_t(kt)] = phase;
    if (++stage == stages) stage = 0, phase ^= 1;
  }
  // A schematic clock (unit: one k-tile of wgmma): a copy lands 1.5 after its issue; the consumers
  // take a k-tile when it has landed and the previous one is issued; a stage is released when the
  // next k-tile's wgmma is issued and this one's are done (wgmma.wait_group 1); the producer
  // refills a stage when it is released.
  const size_t n_tiles = static_cast<size_t>(k_tiles);
  std::vector<double> issue(n_tiles), land(n_tiles), start(n_tiles), release(n_tiles);
  for (int kt = 0; kt < k_tiles; ++kt) {
    issue[size_t(kt)] = kt == 0 ? 0 : issue[size_t(kt - 1)] + 0.35;
    if (kt >= stages) issue[size_t(kt)] = std::max(issue[size_t(kt)], release[size_t(kt - stages)]);
    land[size_t(kt)] = issue[size_t(kt)] + 1.5;
    start[size_t(kt)] = kt == 0 ? land[0] : std::max(land[size_t(kt)], start[size_t(kt - 1)] + 1);
    if (kt > 0) release[size_t(kt - 1)] = std::max(start[size_t(kt)], start[size_t(kt - 1)] + 1) + 0.1;
    if (kt >= stages) issue[size_t(kt)] = std::max(issue[size_t(kt)], release[size_t(kt - stages)]);
  }
  release[size_t(k_tiles - 1)] = start[size_t(k_tiles - 1)] + 1.1;
  // One row per stage: the producer's copies into it and the consumers' multiplies from it, in turn.
  const double unit = 100, x0 = 110, y0 = 150, row = 78, box_h = 46;
  const double end = release[size_t(k_tiles - 1)] + 0.4;
  Svg svg(x0 + unit * end + 30, y0 + row * stages + 140);
  svg.text(30, 30, "Step 16: producer and consumers hand the stages over through full and empty mbarriers", 20, "start",
           "#1a1a1a", true);
  svg.text(30, 56, "Default configuration: " + std::to_string(stages) + " stages, " + std::to_string(consumer_groups) +
           " consumer warpgroups (" + std::to_string(c.bm / consumer_groups) + " rows of the " + std::to_string(c.bm) + " x " +
           std::to_string(c.bn) + " tile each); " + std::to_string(k_tiles) +
           " k-tiles drawn. One row per stage; time runs to the right.", 14);
  svg.text(30, 76, "Stage and phase of each k-tile as the kernel counts them (++stage; at STAGES back to 0, phase ^= 1). "
                   "Times are schematic; the order is the kernel's.", 14);
  svg.text(30, 96, "The producer (one thread) waits on empty[s] with parity phase ^ 1, the consumers on full[s] with parity "
                   "phase: the first lap finds every stage empty at once.", 14);
  for (int s = 0; s < stages; ++s) {
    svg.rect(x0, y0 + row * s, unit * end, row, s % 2 ? "#fafafa" : "#f2f2f2");
    svg.text(x0 - 12, y0 + row * s + row / 2 + 5, "stage " + std::to_string(s), 14, "end");
  }
  for (int kt = 0; kt < k_tiles; ++kt) {
    const double y = y0 + row * stage_of[size_t(kt)] + (row - box_h) / 2 + 6;
    const std::string phase = "phase " + std::to_string(phase_of[size_t(kt)]);
    // Producer: wait empty[s], arm full[s] with the stage's bytes, issue the TMA boxes; they land.
    const double px = x0 + unit * issue[size_t(kt)], pw = unit * (land[size_t(kt)] - issue[size_t(kt)]);
    svg.rect(px, y, pw - 3, box_h, "#9ecae1", "#555555", 0.8);
    svg.text(px + 6, y + 19, "TMA k-tile " + std::to_string(kt), 13);
    svg.text(px + 6, y + 37, phase, 13);
    // full[s] completes its phase: the consumers' wait returns.
    const double fx = x0 + unit * land[size_t(kt)];
    svg.line(fx, y - 8, fx, y + box_h + 2, "#1f5fbf", 2.5);
    svg.text(fx, y - 11, "full", 12, "middle", "#1f5fbf", true);
    // Consumers: wgmma on the stage; it is released once the next k-tile's wgmma are issued and these done.
    const double cx = x0 + unit * start[size_t(kt)];
    svg.rect(cx + 3, y, unit - 6, box_h, "#a1d99b", "#555555", 0.8);
    svg.text(cx + 9, y + 19, "wgmma kt " + std::to_string(kt), 13);
    svg.text(cx + 9, y + 37, phase, 13);
    // The last k-tile's stage is never released (kernel.cuh: the producer has nothing left to put there).
    if (kt == k_tiles - 1) continue;
    const double ex = x0 + unit * release[size_t(kt)];
    svg.line(ex, y - 8, ex, y + box_h + 2, "#c85a00", 2.5);
    svg.text(ex + 2, y - 11, "empty", 12, "start", "#c85a00", true);
    if (kt + stages < k_tiles) svg.arrow(ex + 2, y + box_h / 2, x0 + unit * issue[size_t(kt + stages)] - 1, y + box_h / 2,
                                         "#c85a00", "arrow-orange");
  }
  const double ly = y0 + row * stages + 36;
  svg.rect(30, ly - 12, 28, 16, "#9ecae1", "#555555", 0.8);
  svg.text(68, ly + 1, "the producer's copies (TMA, one thread of the producer warpgroup), from issue to landing", 13);
  svg.rect(30, ly + 14, 28, 16, "#a1d99b", "#555555", 0.8);
  svg.text(68, ly + 27, "the " + std::to_string(consumer_groups) + " consumer warpgroups' wgmma on the stage", 13);
  svg.line(44, ly + 38, 44, ly + 58, "#1f5fbf", 2.5);
  svg.text(68, ly + 53, "full[s]: armed by the producer with the stage's bytes (" +
           std::to_string((a_tile_bytes(c) + b_tile_bytes(c)) / 1024) + " KB, mbarrier.arrive.expect_tx); the copies' bytes "
           "complete its phase", 13);
  svg.line(44, ly + 64, 44, ly + 84, "#c85a00", 2.5);
  svg.text(68, ly + 79, "empty[s]: " + std::to_string(consumer_warps) + " arrivals (one per consumer warp) complete its "
           "phase; the producer's wait on it returns and it refills the stage", 13);
  return svg.str();
}

// ---- (e) Step 17: the persistent grid's tile order -----------------------------------------------

// Which tiles of C the persistent clusters take in each round at 4096³, from step17::tile_at and
// persistent_clusters: the default's GROUP_M beside the other compiled one.
std::string tile_order_17() {
  using namespace step17;
  const GemmShape shape{4096, 4096, 4096};
  const Config panels[2] = {kConfigs[0], kConfigs[1]};  // GROUP_M = 16 (the default), 8
  const Config& d = panels[0];
  const int rows = tiles_m(shape, d), cols = tiles_n(shape, d);
  const double cw = 34, ch = 17, top = 190, left = 80, gap = 90;
  const double panel_w = cw * cols, panel_h = ch * rows;
  Svg svg(left + 2 * panel_w + gap + 40, top + panel_h + 105);
  const int clusters = persistent_clusters(shape, d, kDiagramSms), rounds = ceil_div(units(shape, d), clusters);
  svg.text(30, 30, "Step 17: the order in which the persistent clusters take the tiles of C (" + std::to_string(shape.m) +
                       "³)", 20, "start", "#1a1a1a", true);
  svg.text(30, 56, "The default's " + std::to_string(d.bm) + " × " + std::to_string(d.bn) + " tiles: " +
                       std::to_string(rows) + " rows × " + std::to_string(cols) + " columns; a unit is a column of " +
                       std::to_string(d.cluster) + " tiles, one per block of a cluster; " + std::to_string(units(shape, d)) +
                       " units on " + std::to_string(clusters) + " clusters (" + std::to_string(kDiagramSms) + " SMs in pairs): " +
                       std::to_string(rounds) + " rounds.", 14);
  svg.text(30, 76, "Drawn from step17::tile_at and persistent_clusters. Colour: the round in which a tile is taken; number: "
                   "the cluster that takes it (cluster q takes units q, q + " + std::to_string(clusters) + ", ...).", 14);
  svg.text(30, 96, "A heavy outline: the tiles of round 0. What a round reads is the rows of A of its tile rows and the "
                   "columns of B of its tile columns.", 14);
  const std::string round_fill[4] = {"#9ecae1", "#fdae6b", "#a1d99b", "#bcbddc"};
  for (int p = 0; p < 2; ++p) {
    const Config& c = panels[p];
    const int n_clusters = persistent_clusters(shape, c, kDiagramSms);
    const double px = left + p * (panel_w + gap);
    // round and cluster of every tile; the tile rows and columns of round 0
    std::vector<int> round_of(size_t(rows * cols), -1), cluster_of(size_t(rows * cols), -1);
    std::set<int> rows0, cols0, rows1, cols1;
    for (int u = 0; u < units(shape, c); ++u)
      for (int rank = 0; rank < c.cluster; ++rank) {
        const TileCoord t = tile_at(u, rank, shape, c);
        if (t.m >= rows) continue;
        round_of[size_t(t.m * cols + t.n)] = u / n_clusters;
        cluster_of[size_t(t.m * cols + t.n)] = u % n_clusters;
        if (u < n_clusters) rows0.insert(t.m), cols0.insert(t.n);
        else if (u < 2 * n_clusters) rows1.insert(t.m), cols1.insert(t.n);
      }
    svg.text(px, top - 44, "GROUP_M = " + std::to_string(c.group_m) + (p == 0 ? " (the default)" : " (--param GROUP_M=8)"), 15,
             "start", "#1a1a1a", true);
    int shared_rows = 0;
    for (int m : rows1) shared_rows += int(rows0.count(m));
    svg.text(px, top - 24, "round 0: " + std::to_string(rows0.size()) + " tile rows × " + std::to_string(cols0.size()) +
                               " columns; round 1: " + std::to_string(rows1.size()) + " × " +
                               std::to_string(cols1.size()) + ", " + std::to_string(shared_rows) + " rows as in round 0",
             13);
    for (int m = 0; m < rows; ++m) {
      if (m % 4 == 0) svg.text(px - 8, top + ch * m + ch - 4, std::to_string(m), 12, "end");
      for (int n = 0; n < cols; ++n) {
        const int r = round_of[size_t(m * cols + n)];
        svg.rect(px + cw * n, top + ch * m, cw, ch, r < 0 ? "#ffffff" : round_fill[r % 4], "#ffffff", 0.6);
        svg.text(px + cw * n + cw / 2, top + ch * m + ch - 4, std::to_string(cluster_of[size_t(m * cols + n)]), 12, "middle");
      }
    }
    // round 0's tiles outlined, tile by tile on the edges of its area
    for (int m = 0; m < rows; ++m)
      for (int n = 0; n < cols; ++n) {
        if (round_of[size_t(m * cols + n)] != 0) continue;
        auto zero = [&](int mm, int nn) {
          return mm >= 0 && mm < rows && nn >= 0 && nn < cols && round_of[size_t(mm * cols + nn)] == 0;
        };
        const double x = px + cw * n, y = top + ch * m;
        if (!zero(m - 1, n)) svg.line(x, y, x + cw, y, "#1a1a1a", 2.5);
        if (!zero(m + 1, n)) svg.line(x, y + ch, x + cw, y + ch, "#1a1a1a", 2.5);
        if (!zero(m, n - 1)) svg.line(x, y, x, y + ch, "#1a1a1a", 2.5);
        if (!zero(m, n + 1)) svg.line(x + cw, y, x + cw, y + ch, "#1a1a1a", 2.5);
      }
  }
  svg.text(left - 8, top - 6, "tile row", 12, "end");
  const double ly = top + panel_h + 36;
  for (int r = 0; r < rounds; ++r) {
    svg.rect(30 + 150 * r, ly, 28, 16, round_fill[r % 4], "#555555", 0.8);
    svg.text(68 + 150 * r, ly + 13, "round " + std::to_string(r), 13);
  }
  svg.text(30, ly + 44, "A round that covers fewer tile columns reads less of B; a round on the rows of the round before "
                        "finds them in L2 if they are still there.", 13);
  return svg.str();
}

// ---- (f) Step 20: the epilogue under the next tile's first products ------------------------------

// One block's last k-tiles of a tile and the next tile's first, as step 19 and step 20 order them:
// the tile the program takes at 4096^3 (step20::config_for_shape), 16-bit output, which
// step20::epilogue_under_next_tile puts under the next tile. The slices are the kernel's (BN over
// slice_cols of 2-byte output); the times are schematic, the order is the kernels'.
std::string overlap_20() {
  using namespace step20;
  const GemmShape shape{4096, 4096, 4096};
  const Config c = config_for_shape(shape, kDiagramSms);
  constexpr int kOutBytes = 2;  // bf16 or f16
  const int slices = c.bn / slice_cols(kOutBytes), k_count = k_tiles(shape, c);
  const bool under = epilogue_under_next_tile(c, kOutBytes, launches_tma_only_kernel(c, shape, 0.0f, kOutBytes));
  const std::string kIdle = "#f0f0f0";
  const double unit = 140, x0 = 150, lane_h = 46, slice_w = 0.4, promote_w = 0.25, zero_w = 0.12;
  const double epilogue_w = slices * slice_w;
  Svg svg(x0 + unit * 7.6 + 40, 630);
  svg.text(30, 30, "Step 20: the last tile's epilogue under the next tile's first products", 20, "start", "#1a1a1a", true);
  svg.text(30, 56, "The " + std::to_string(c.bm) + " × " + std::to_string(c.bn) + " tile the program takes at " +
                       std::to_string(shape.m) + "³ (" + std::to_string(k_count) + " k-tiles a tile), 16-bit output: each "
                       "consumer warpgroup stores its 64 × " + std::to_string(c.bn) + " results as " + std::to_string(slices) +
                       " slices of " + std::to_string(slice_cols(kOutBytes)) + " columns.", 14);
  svg.text(30, 76, "Both consumers drawn in step, one lane for both (where they are out of step, one's products fill the "
                   "other's waits). Times are schematic; the order is the kernels'.", 14);
  svg.text(30, 96, std::string("epilogue_under_next_tile(this tile, 16-bit output) = ") + (under ? "true" : "false") +
                       ": with promotion the tensor cores add into interval_sum, not into acc,", 14);
  svg.text(30, 116, "so acc keeps tile t's results while tile t+1's first k-tile runs, until that k-tile's sum is added in.",
           14);
  struct Box {
    double start, width;
    std::string label, fill;
  };
  auto draw_panel = [&](double top, const std::string& title, bool overlapped) {
    svg.text(30, top, title, 16, "start", "#1a1a1a", true);
    const double consumer_y = top + 18, tensor_y = consumer_y + lane_h + 14;
    svg.text(x0 - 12, consumer_y + lane_h / 2 + 5, "consumers", 14, "end");
    svg.text(x0 - 12, tensor_y + lane_h / 2 + 5, "tensor cores", 14, "end");
    std::vector<Box> consumer, tensor, idle;
    // Each k-tile as the kernel runs it with PROMOTE = 1: its wgmma issued, (under them, in step 20's
    // first k-tile of a tile, the last tile's epilogue), the wait for the products, their sum added
    // into acc, and only then the next k-tile's wgmma, which write interval_sum again.
    double t = 0;
    auto k_tile = [&](const std::string& label, const std::string& fill, double busy_until) {
      tensor.push_back({t, 1, label, fill});
      const double add_at = std::max(t + 1, busy_until);
      consumer.push_back({add_at, promote_w, "add", "#fdd0a2"});
      idle.push_back({t + 1, add_at + promote_w - (t + 1), "", ""});
      t = add_at + promote_w;
    };
    for (int kt = k_count - 2; kt < k_count; ++kt) k_tile("tile t, k-tile " + std::to_string(kt), "#a1d99b", 0);
    if (!overlapped) {
      for (int s = 0; s < slices; ++s) consumer.push_back({t + s * slice_w, slice_w, "slice " + std::to_string(s), "#9ecae1"});
      consumer.push_back({t + epilogue_w, zero_w, "0", "#d9d9d9"});  // acc = 0 before the next tile
      idle.push_back({t, epilogue_w + zero_w, "waiting", ""});
      t += epilogue_w + zero_w;
    }
    const double next = t;  // when the next tile's first k-tile is issued
    double epilogue_end = 0;
    if (overlapped) {
      for (int s = 0; s < slices; ++s)
        consumer.push_back({next + 0.05 + s * slice_w, slice_w, "slice " + std::to_string(s), "#9ecae1"});
      consumer.push_back({next + 0.05 + epilogue_w, zero_w, "0", "#d9d9d9"});  // acc = 0
      epilogue_end = next + 0.05 + epilogue_w + zero_w;
    }
    for (int kt = 0; kt < 3; ++kt) k_tile("tile t+1, k-tile " + std::to_string(kt), "#c7e9c0", kt == 0 ? epilogue_end : 0);
    for (const Box& b : idle) {
      svg.rect(x0 + unit * b.start + 1, tensor_y, unit * b.width - 2, lane_h, kIdle, "#bbbbbb", 0.8);
      if (!b.label.empty())
        svg.text(x0 + unit * (b.start + b.width / 2), tensor_y + lane_h / 2 + 5, b.label, 13, "middle", "#777777");
    }
    for (const Box& b : tensor) {
      svg.rect(x0 + unit * b.start + 1, tensor_y, unit * b.width - 2, lane_h, b.fill, "#555555", 0.8);
      svg.text(x0 + unit * (b.start + b.width / 2), tensor_y + lane_h / 2 + 5, b.label, 13, "middle");
    }
    for (const Box& b : consumer) {
      svg.rect(x0 + unit * b.start + 1, consumer_y, unit * b.width - 2, lane_h, b.fill, "#555555", 0.8);
      if (!b.label.empty()) svg.text(x0 + unit * (b.start + b.width / 2), consumer_y + lane_h / 2 + 5, b.label, 12, "middle");
    }
    // The moment the next tile's first wgmma are issued.
    const double ix = x0 + unit * next;
    svg.line(ix, consumer_y - 6, ix, tensor_y + lane_h + 6, "#1f5fbf", 2.5);
    svg.text(ix + 4, tensor_y + lane_h + 20, "tile t+1's first wgmma issued", 12, "start", "#1f5fbf", true);
  };
  draw_panel(160, "Step 19: tile t's epilogue after the tile (the tensor cores wait for it)", false);
  draw_panel(350, "Step 20: tile t's epilogue under tile t+1's first k-tile", true);
  const double ly = 550;
  const Box legend[] = {{0, 0, "products of a k-tile (wgmma, both consumers)", "#a1d99b"},
                        {0, 0, "promotion: the interval's sum added into acc", "#fdd0a2"},
                        {0, 0, "epilogue slice of tile t: acc (times alpha) to staging, the copy engine stores it", "#9ecae1"},
                        {0, 0, "0: acc = 0 for the new tile", "#d9d9d9"},
                        {0, 0, "the tensor cores have nothing to do", kIdle}};
  for (int i = 0; i < 5; ++i) {
    const double lx = 30 + (i % 2) * 600, y = ly + (i / 2) * 24;
    svg.rect(lx, y - 12, 28, 16, legend[i].fill, "#555555", 0.8);
    svg.text(lx + 38, y + 1, legend[i].label, 13);
  }
  return svg.str();
}

// ---- (g) Step 21: a descriptor moved by an offset -------------------------------------------------

// The A descriptors of one consumer's k-steps in every stage, for the tile the program takes at
// 8192^3 (step21::config_for_shape): each built from its address by step21::wgmma_descriptor, as
// step 20 builds them at every k-step, and shown as stage 0's plus the offset >> 4, as step 21 adds
// them (the kernel's stage 0 is wherever the block's shared memory starts, aligned to 1024 bytes:
// here 1024).
std::string descriptors_21() {
  using namespace step21;
  const GemmShape shape{8192, 8192, 8192};
  const Config c = config_for_shape(shape, kDiagramSms);
  const Descriptor strides = descriptor_strides();
  const std::uint32_t stage0 = kSwizzleAtomBytes;  // an example start of the stages
  const int consumer = 1, k_steps = c.bk / kWgmmaK;
  const std::uint64_t a_stage0 = wgmma_descriptor(stage0 + operand_offset(consumer, 0), strides);
  auto hex = [](std::uint64_t v, int digits) {
    char buffer[24];
    std::snprintf(buffer, sizeof(buffer), "0x%0*llx", digits, static_cast<unsigned long long>(v));
    return std::string(buffer);
  };
  const double x0 = 250, col_w = 250, row_h = 58, top = 270;
  Svg svg(x0 + col_w * k_steps + 30, top + row_h * c.stages + 120);
  svg.text(30, 30, "Step 21: the wgmma descriptors of the k-loop, stage 0's moved by offsets", 20, "start", "#1a1a1a", true);
  svg.text(30, 56, "The " + std::to_string(c.bm) + " × " + std::to_string(c.bn) + " tile the program takes at " +
                       std::to_string(shape.m) + "³: " + std::to_string(c.stages) + " stages of " +
                       std::to_string(stage_bytes(c)) + " bytes, " + std::to_string(k_steps) +
                       " k-steps of 32 bytes a k-tile.", 14);
  svg.text(30, 76, "A's descriptors of consumer " + std::to_string(consumer) + " (its 64 rows start " +
                       std::to_string(operand_offset(consumer, 0)) + " bytes into the stage); the stages start at " +
                       std::to_string(stage0) + " here.", 14);
  // The descriptor's fields (PTX ISA, matrix descriptor): only the start address changes.
  const double fy = 96, fw = 230;
  const char* fields[] = {"bits 62-63: swizzle (1 = 128 B)", "bits 32-45: stride >> 4", "bits 16-29: leading >> 4",
                          "bits 0-13: start address >> 4"};
  const std::uint64_t values[] = {a_stage0 >> 62, (a_stage0 >> 32) & 0x3fff, (a_stage0 >> 16) & 0x3fff, a_stage0 & 0x3fff};
  for (int f = 0; f < 4; ++f) {
    const bool moves = f == 3;
    svg.rect(30 + f * (fw + 10), fy, fw, 52, moves ? "#fdd0a2" : "#e6e6e6", "#555555", 0.8);
    svg.text(30 + f * (fw + 10) + fw / 2, fy + 20, fields[f], 12, "middle");
    svg.text(30 + f * (fw + 10) + fw / 2, fy + 40, (moves ? "stage 0: " : "") + hex(values[f], 1), 13, "middle", "#1a1a1a", true);
  }
  svg.text(30, fy + 78, "Shared memory is under 228 KB, so start >> 4 stays below 2^14: adding an offset >> 4 to the "
                        "64-bit descriptor", 14);
  svg.text(30, fy + 96, "changes the start field alone, without a carry into the others. Step 20 rebuilds each descriptor "
                        "from the stage's address,", 14);
  svg.text(30, fy + 114, "per thread (ptxas cannot tell that the consumer's index is the same in every lane); step 21 adds "
                         "to stage 0's, in uniform registers.", 14);
  // The grid: stage by k-step.
  svg.text(x0 - 12, top - 14, "stage  (+ stage × " + std::to_string(stage_bytes(c) >> 4) + ")", 13, "end", "#1a1a1a", true);
  for (int kk = 0; kk < k_steps; ++kk)
    svg.text(x0 + col_w * (kk + 0.5), top - 14, "k-step " + std::to_string(kk) + "  (+ " +
                                                    std::to_string(descriptor_offset(stage_bytes(c), 0, kk)) + ")", 13, "middle",
                                                    "#1a1a1a", true);
  for (int stage = 0; stage < c.stages; ++stage) {
    const double y = top + stage * row_h;
    svg.text(x0 - 12, y + row_h / 2 + 5, std::to_string(stage), 14, "end");
    for (int kk = 0; kk < k_steps; ++kk) {
      const std::uint32_t address = stage0 + std::uint32_t(stage * stage_bytes(c)) + std::uint32_t(operand_offset(consumer, kk));
      const std::uint64_t built = wgmma_descriptor(address, strides);
      const std::uint64_t offset = descriptor_offset(stage_bytes(c), stage, kk);
      const bool same = built == a_stage0 + offset;
      svg.rect(x0 + col_w * kk + 2, y + 2, col_w - 4, row_h - 4, same ? "#c7e9c0" : "#fcbba1", "#555555", 0.8);
      svg.text(x0 + col_w * (kk + 0.5), y + 22, "address " + std::to_string(address) + " → start " + hex(built & 0x3fff, 1), 12,
               "middle");
      svg.text(x0 + col_w * (kk + 0.5), y + 42, "stage 0's + " + std::to_string(offset) + (same ? " (equal)" : " (DIFFERENT)"),
               12, "middle", "#1a1a1a", !same);
    }
  }
  svg.text(30, top + row_h * c.stages + 40, "Each cell: the descriptor step 20 builds from the address (wgmma_descriptor), "
                                            "and the one step 21 adds up; green where they are equal.", 14);
  return svg.str();
}

// ---- (h) Step 22: three tile widths at 4096^3, their tile columns and their rounds ----------------

// For each promoted tile step 22 chooses among (step22::config_for_shape): how C's 4096 columns cut
// into tile columns (the last one narrow where 64 columns or fewer of it lie inside C), and the
// grid's time as config_for_shape counts it, rounds (step22::grid_time) of the tile's columns plus
// step22::kKTileOverheadCols each.
std::string rounds_22() {
  using namespace step22;
  const GemmShape shape{4096, 4096, 4096};
  const Config chosen = config_for_shape(shape, kDiagramSms);
  const int order[] = {kSquareTileConfig, 0, kFittedTileConfig};
  const double left = 30, strip_w = 560, gap = 40, time_x = left + strip_w + gap, col_scale = strip_w / shape.n;
  // counted_time is in half-rounds (grid_time) times BM x (BN + overhead): per round and row of C, columns.
  auto round_columns = [&](const Config& c) {
    return double(counted_time(shape, c, kDiagramSms)) / (c.bm * kNarrowUnitsPerWhole);
  };
  double longest = 0;
  for (int index : order) longest = std::max(longest, round_columns(kConfigs[index]));
  const double time_w = 560, time_scale = time_w / longest;
  const double top = 120, row_h = 118;
  Svg svg(time_x + time_w + 40, top + row_h * 3 + 70);
  svg.text(left, 30, "Step 22: three tile widths at 4096³, their tile columns and their rounds", 20, "start", "#1a1a1a", true);
  svg.text(left, 56, "Left: C's " + std::to_string(shape.n) + " columns cut into tile columns (orange: a narrow last "
                     "column, 64 columns or fewer inside C, multiplied with n = 64).", 14);
  svg.text(left, 76, "Right: the grid's rounds on " + std::to_string(kDiagramSms) + " SMs, each as long as the tile's "
                     "columns (blue) plus " + std::to_string(kKTileOverheadCols) + " for what a k-tile costs besides its "
                     "products (grey).", 14);
  svg.text(left, 96, "config_for_shape takes the shortest. The 64 makes the 128 × 128 and 128 × 192 tiles tie, as they "
                     "measured (the page).", 14);
  for (int row = 0; row < 3; ++row) {
    const Config& c = kConfigs[order[row]];
    const double y = top + row * row_h;
    const int columns = tiles_n(shape, c), narrow = narrow_units(shape, c);
    const double rounds = double(grid_time(shape, c, kDiagramSms)) / kNarrowUnitsPerWhole;
    const bool is_chosen = c == chosen;
    std::ostringstream rounds_text;
    rounds_text << rounds;
    svg.text(left, y, std::to_string(c.bm) + " × " + std::to_string(c.bn) + ": " + std::to_string(columns) +
                          " tile columns, " + std::to_string(units(shape, c)) + " units" +
                          (narrow ? " (" + std::to_string(narrow) + " narrow)" : "") + ", " + rounds_text.str() +
                          " rounds of " + std::to_string(persistent_clusters(shape, c, kDiagramSms)) + " clusters" +
                          (is_chosen ? "   (chosen)" : ""),
             15, "start", "#1a1a1a", is_chosen);
    for (int t = 0; t < columns; ++t) {
      const int first = t * c.bn, width = std::min(c.bn, shape.n - first);
      const bool is_narrow = narrow_tile(t, shape, c);
      svg.rect(left + first * col_scale, y + 14, width * col_scale, 40, is_narrow ? "#fdae6b" : (t % 2 ? "#c7e9c0" : "#e5f5e0"),
               "#555555", 0.6);
    }
    svg.text(left, y + 74, "columns 0 .. " + std::to_string(shape.n) + ", one box per tile column", 12, "start", "#555555");
    const int whole_rounds = int(rounds);
    double x = time_x;
    for (int r = 0; r < whole_rounds; ++r) {
      svg.rect(x, y + 14, c.bn * time_scale, 40, "#9ecae1", "#555555", 0.6);
      svg.rect(x + c.bn * time_scale, y + 14, kKTileOverheadCols * time_scale, 40, "#d9d9d9", "#555555", 0.6);
      x += (c.bn + kKTileOverheadCols) * time_scale;
    }
    if (rounds > whole_rounds) {  // a short round of narrow units: counted as half a whole one
      const double part = rounds - whole_rounds;
      svg.rect(x, y + 14, part * (c.bn + kKTileOverheadCols) * time_scale, 40, "#fdae6b", "#555555", 0.6);
      x += part * (c.bn + kKTileOverheadCols) * time_scale;
    }
    svg.text(time_x, y + 74,
             rounds_text.str() + " × (" + std::to_string(c.bn) + " + " + std::to_string(kKTileOverheadCols) + ") = " +
                 std::to_string(static_cast<long long>(round_columns(c))),
             13, "start", "#1a1a1a", is_chosen);
  }
  svg.text(left, top + row_h * 3 + 20, "Counted, not measured: the measured times are on the step's page. Drawn from step 22's "
                                       "mapping (tiles_n, narrow_tile, units, grid_time, counted_time).", 13, "start", "#555555");
  return svg.str();
}

struct Diagram {
  const char* file;
  std::string (*draw)();
};
const Diagram kDiagrams[] = {
    {"diagram-00-loop-order.svg", loop_order_00},
    {"diagram-09-tiling.svg", tiling_09},
    {"diagram-10-pipeline.svg", pipeline_10},
    {"diagram-11-wave-split.svg", wave_split_11},
    {"diagram-14-swizzle.svg", swizzle_14},
    {"diagram-16-handoff.svg", handoff_16},
    {"diagram-17-tile-order.svg", tile_order_17},
    {"diagram-20-overlap.svg", overlap_20},
    {"diagram-21-descriptors.svg", descriptors_21},
    {"diagram-22-rounds.svg", rounds_22},
};

}  // namespace

int main(int argc, char** argv) {
  std::string out;
  bool list = false;
  for (int i = 1; i < argc; ++i) {
    const std::string arg = argv[i];
    if (arg == "--out" && i + 1 < argc) out = argv[++i];
    else if (arg == "--list") list = true;
    else if (arg == "--help" || arg == "-h") {
      std::printf("usage: draw_diagrams --out DIR [--list]\n  writes the docs' concept diagrams (SVG) into DIR\n");
      return 0;
    } else {
      std::fprintf(stderr, "draw_diagrams: unknown argument '%s' (usage: draw_diagrams --out DIR [--list])\n", arg.c_str());
      return gemm::kExitUsage;
    }
  }
  if (list) {
    for (const Diagram& d : kDiagrams) std::printf("%s\n", d.file);
    return 0;
  }
  if (out.empty()) {
    std::fprintf(stderr, "draw_diagrams: --out DIR is required (e.g. --out docs/images)\n");
    return gemm::kExitUsage;
  }
  std::filesystem::create_directories(out);
  for (const Diagram& d : kDiagrams) {
    const std::filesystem::path path = std::filesystem::path(out) / d.file;
    std::ofstream file(path, std::ios::binary);
    file << d.draw();
    if (!file) {
      std::fprintf(stderr, "draw_diagrams: cannot write %s\n", path.string().c_str());
      return 1;
    }
    std::printf("wrote %s\n", path.string().c_str());
  }
  return 0;
}
