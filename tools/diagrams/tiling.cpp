// Tiling: a block's tile cut into warp tiles and thread tiles (step 09).
#include <algorithm>
#include <string>
#include <vector>

#include "09_warptiling/mapping.hpp"
#include "diagrams.hpp"
#include "svg.hpp"

namespace diagrams {
namespace {

// ---- Step 09: block -> warp -> thread tiling ----------------------------------------------------

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

const Registration tiling_09_registered("diagram-09-tiling.svg", tiling_09);

}  // namespace
}  // namespace diagrams
