// Rounds: tile widths, their columns of tiles and the persistent grid's rounds (step 22).
#include <algorithm>
#include <sstream>
#include <string>

#include "22_tile_width/mapping.hpp"
#include "diagrams.hpp"
#include "svg.hpp"

namespace diagrams {
namespace {

// ---- Step 22: three tile widths at 4096^3, their tile columns and their rounds ----------------

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

const Registration rounds_22_registered("diagram-22-rounds.svg", rounds_22);

}  // namespace
}  // namespace diagrams
