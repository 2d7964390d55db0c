// Fitted tile: the persistent grid at 1536^3 with step 25's tile and step 26's 128 x 144 one, and
// the B tile of one stage that the 144 columns need when B is N-major (step 26).
#include <algorithm>
#include <string>
#include <vector>

#include "26_fitted_tile/mapping.hpp"
#include "diagrams.hpp"
#include "svg.hpp"

namespace diagrams {
namespace {

using namespace step26;

// Each cluster's time, in columns of C a tile row computes (a whole unit: BN; a narrow one half).
std::vector<double> cluster_columns(const GemmShape& shape, const Config& c, int clusters) {
  std::vector<double> time(size_t(clusters), 0.0);
  const int single = single_units(shape, c, clusters);
  for (int q = 0; q < clusters; ++q)
    for (int u = first_unit(q, single); u < units(shape, c); u = next_unit(u, clusters, single))
      time[size_t(q)] += narrow_tile(tile_at(u, 0, shape, c).n, shape, c) ? c.bn / 2.0 : c.bn;
  return time;
}

constexpr double kRowH = 3;  // a cluster's row

// One grid: a row per cluster the SMs hold, its units' time to the right; grey where no unit.
double grid_panel(Svg& svg, double y, const std::string& title, const GemmShape& shape, const Config& c, double left,
                  double scale) {
  const int fit = kDiagramSms / c.cluster, clusters = persistent_clusters(shape, c, kDiagramSms);
  const std::vector<double> time = cluster_columns(shape, c, clusters);
  const double longest = *std::max_element(time.begin(), time.end());
  svg.text(left, y, title, 15, "start", "#1a1a1a", true);
  y += 10;
  for (int q = 0; q < fit; ++q) {
    const double row_y = y + q * kRowH;
    if (q < clusters) svg.rect(left, row_y, time[size_t(q)] * scale, kRowH - 1, "#9ecae1", "none");
    else svg.rect(left, row_y, longest * scale, kRowH - 1, "#e0e0e0", "none");
  }
  svg.line(left + longest * scale, y - 4, left + longest * scale, y + fit * kRowH + 4, "#d62728", 2);
  svg.text(left + longest * scale + 8, y + fit * kRowH / 2,
           std::to_string(clusters) + " of " + std::to_string(fit) + " clusters busy, one round of " + std::to_string(c.bn) +
               " columns",
           13);
  return y + fit * kRowH;
}

std::string fitted_26() {
  const GemmShape shape{1536, 1536, 1536};
  const Config& before = kConfigs[kThreeQuarterTileConfig];
  const Config& fitted = kConfigs[kFittedTileConfig];
  const double left = 30, scale = 2.0;
  const double grid_h = 10 + (kDiagramSms / fitted.cluster) * kRowH;  // a grid panel's rows
  Svg svg(1000, 112 + 2 * grid_h + 36 + 56 + 16 + 88 + 20 + 36 + 12 + 8 * 20 + 34 + 24);
  svg.text(left, 30, "Step 26: a tile width that is not a multiple of the box: 144 columns", 20, "start", "#1a1a1a", true);
  svg.text(left, 56, "Above: the persistent grid at 1536³ on " + std::to_string(kDiagramSms) +
                         " SMs, a row per cluster of two SMs (grey: idle), each unit's time as its tile's columns",
           14);
  svg.text(left, 76, "(counted, not measured); the red line is where the grid ends.", 14);
  double y = 112;
  y = grid_panel(svg, y,
                 "128 × " + std::to_string(before.bn) + " (step 25's choice): " + std::to_string(units(shape, before)) +
                     " units of two tiles",
                 shape, before, left, scale);
  y = grid_panel(svg, y + 36,
                 "128 × " + std::to_string(fitted.bn) + " (step 26): " + std::to_string(tiles_n(shape, fitted)) +
                     " tile columns × " + std::to_string(unit_rows(shape, fitted)) + " unit rows = " +
                     std::to_string(units(shape, fitted)) + " units",
                 shape, fitted, left, scale);

  // An N-major B tile of one stage: the whole boxes and the tail, to scale in bytes.
  y += 56;
  const TmaOperand b = b_operand(shape, Layout::nn, fitted);
  svg.text(left, y, "Below: B's tile of one stage when B is N-major (NN, TN): 64 k-rows of 144 columns", 15, "start", "#1a1a1a",
           true);
  y += 16;
  const double byte_scale = 900.0 / (3 * box_bytes(b));
  double x = left;
  for (int box = 0; box < b.boxes; ++box) {
    const int bytes = box_bytes_of(b, box), cols = box_inner_of(b, box), first = box * kBoxInner;
    const bool is_tail = tail_box(b, box);
    svg.rect(x, y, bytes * byte_scale, 46, is_tail ? "#fdae6b" : "#c7e9c0", "#555555", 0.8);
    const std::string what = "n " + std::to_string(first) + "-" + std::to_string(first + cols - 1) + ": " +
                             std::to_string(b.box_outer) + " rows × " + std::to_string(cols * kElementBytes) + " B";
    const std::string size = std::to_string(bytes / 1024) + " KB, " + (is_tail ? "32" : "128") + "-byte swizzle";
    if (is_tail) {  // too narrow for its text: below it
      svg.text(x, y + 64, "tail, " + what + ", " + size, 12, "start", "#a63603");
    } else {
      svg.text(x + 6, y + 19, what, 12);
      svg.text(x + 6, y + 37, size, 12);
    }
    x += bytes * byte_scale;
  }
  const double whole_box_end = left + b.boxes * box_bytes(b) * byte_scale;
  svg.rect(x, y, whole_box_end - x, 46, "#f7f7f7", "#bbbbbb", 0.8);
  svg.text(x + 8, y + 19, "a third 64-column box would", 12, "start", "#777777");
  svg.text(x + 8, y + 37, "copy 48 columns for nothing", 12, "start", "#777777");
  y += 88;
  svg.text(left, y, "wgmma n = " + std::to_string(fitted.bn - b.tail) + " reads the two whole boxes (128-byte swizzle); "
                    "wgmma n = " + std::to_string(b.tail) + " reads the tail (its own descriptor, 32-byte swizzle).",
           13);
  y += 20;
  svg.text(left, y, "A K-major B (NT) needs no tail: 144 rows of 128 bytes in two boxes of 72, read by one wgmma n = 144.", 13);

  // The tail's swizzle: 16-byte chunk c of k-row r at c ^ (r / 4 % 2), 8 k-rows.
  y += 36;
  svg.text(left, y, "The tail's first 8 k-rows: which 16-byte chunk of n (0: n 128-135, 1: n 136-143) lies where", 14, "start",
           "#1a1a1a", true);
  y += 12;
  const double cell_w = 70, cell_h = 20;
  for (int k = 0; k < 8; ++k) {
    svg.text(left, y + k * cell_h + 15, "k " + std::to_string(k), 12, "start", "#555555");
    for (int place = 0; place < 2; ++place) {
      // The chunk at byte place * 16 of row k: the one tile_byte puts there.
      int chunk = 0;
      for (int c = 0; c < 2; ++c)
        if ((tile_byte(b, 128 + c * 8, k) - (b.boxes - 1) * box_bytes(b)) % kTailSwizzleBytes / 16 == place) chunk = c;
      svg.rect(left + 40 + place * cell_w, y + k * cell_h, cell_w, cell_h, chunk ? "#fdd0a2" : "#fff5eb", "#555555", 0.6);
      svg.text(left + 40 + place * cell_w + cell_w / 2, y + k * cell_h + 15, "chunk " + std::to_string(chunk), 12, "middle");
    }
  }
  // Shared memory: the stages and staging buffers, against the 227 KB a block may have.
  const double mem_x = left + 260;
  // In KB, to a tenth where not whole: the stages, the staging buffers, and the barriers and
  // alignment (shared_bytes).
  auto kb = [](int bytes) {
    if (bytes % 1024 == 0) return std::to_string(bytes / 1024);
    const int tenths = (bytes * 10 + 512) / 1024;
    return std::to_string(tenths / 10) + "." + std::to_string(tenths % 10);
  };
  const int stage = stage_bytes(fitted), staging = consumers(fitted) * kStagingBytes;
  const int whole_third = a_tile_bytes(fitted) + 3 * box_bytes(b);  // a stage with a third 64-column box
  const int rest = shared_bytes(fitted) - fitted.stages * stage - staging;
  svg.text(mem_x, y + 15, "Shared memory, of the " + kb(kMaxSharedBytes) + " KB a block may have (sums with about 1 KB", 13);
  svg.text(mem_x, y + 33, "of barriers and alignment):", 13);
  svg.text(mem_x, y + 58,
           "with the tail: " + std::to_string(fitted.stages) + " stages × " + kb(stage) + " KB + staging " + kb(staging) +
               " KB = " + kb(shared_bytes(fitted)) + " KB",
           13, "start", "#1a1a1a", true);
  svg.text(mem_x, y + 80,
           "with a third whole box: " + std::to_string(fitted.stages) + " × " + kb(whole_third) + " KB + " + kb(staging) +
               " KB = " + kb(fitted.stages * whole_third + staging + rest) + " KB: too much; 4 stages",
           13);
  svg.text(left, y + 8 * cell_h + 34, "Drawn from step 26's mapping (persistent_clusters, first_unit, next_unit, tile_at, "
                                      "b_operand, box_bytes_of, tile_byte, shared_bytes).",
           13, "start", "#555555");
  return svg.str();
}

const Registration fitted_26_registered("diagram-26-fitted.svg", fitted_26);

}  // namespace
}  // namespace diagrams
