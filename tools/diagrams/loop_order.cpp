// The CPU reference's two loop orders: which elements of B the inner loop reads (step 00).
#include <algorithm>
#include <functional>
#include <map>
#include <set>
#include <string>

#include "cpu_gemm.hpp"
#include "diagrams.hpp"
#include "svg.hpp"

namespace diagrams {
namespace {

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

const Registration loop_order_00_registered("diagram-00-loop-order.svg", loop_order_00);

}  // namespace
}  // namespace diagrams
