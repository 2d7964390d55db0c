// Pairs: the persistent grid's clusters over time at 4088 x 4104, step 18's dealing against step
// 25's (narrow units in pairs).
#include <algorithm>
#include <string>
#include <vector>

#include "18_tma_store_epilogue/mapping.hpp"
#include "25_narrow_pairs/mapping.hpp"
#include "diagrams.hpp"
#include "svg.hpp"

namespace diagrams {
namespace {

// What one cluster takes, in order: for each unit whether it is narrow.
using ClusterLoad = std::vector<bool>;

// Step 18: cluster q takes units q, q + clusters, ... (next_unit).
std::vector<ClusterLoad> dealt_18(const gemm::GemmShape& s, const step18::Config& c, int clusters) {
  std::vector<ClusterLoad> loads(static_cast<size_t>(clusters));
  for (int q = 0; q < clusters; ++q)
    for (int u = q; u < step18::units(s, c); u = step18::next_unit(u, clusters))
      loads[size_t(q)].push_back(step18::narrow_tile(step18::tile_at(u, 0, s, c).n, s, c));
  return loads;
}

// Step 25: cluster q takes the units of places q, q + clusters, ... (first_unit, next_unit).
std::vector<ClusterLoad> dealt_25(const gemm::GemmShape& s, const step25::Config& c, int clusters) {
  std::vector<ClusterLoad> loads(static_cast<size_t>(clusters));
  const int single = step25::single_units(s, c, clusters);
  for (int q = 0; q < clusters; ++q)
    for (int u = step25::first_unit(q, single); u < step25::units(s, c); u = step25::next_unit(u, clusters, single))
      loads[size_t(q)].push_back(step25::narrow_tile(step25::tile_at(u, 0, s, c).n, s, c));
  return loads;
}

// One panel: a row per cluster of the SMs (pairs of SMs: CLUSTER = 2), its units one after the other,
// a whole unit kNarrowUnitsPerWhole long, a narrow one 1 (as grid_time counts them); rows past the
// grid's clusters are SMs idle from the start.
double panel(Svg& svg, double top, const std::string& title, const std::vector<ClusterLoad>& loads, int rows,
             int grid_time, double left, double unit_w) {
  constexpr double kRowH = 5.0;
  svg.text(left, top, title, 15, "start", "#1a1a1a", true);
  const double y0 = top + 12;
  for (int q = 0; q < rows; ++q) {
    const double y = y0 + q * kRowH;
    if (q >= int(loads.size())) {
      svg.rect(left, y, 10 * unit_w, kRowH - 1, "#f0f0f0", "none");
      continue;
    }
    double x = left;
    int whole_seen = 0;
    for (const bool narrow : loads[size_t(q)]) {
      const double w = (narrow ? 1 : step25::kNarrowUnitsPerWhole) * unit_w;
      svg.rect(x, y, w, kRowH - 1, narrow ? "#fd8d3c" : (whole_seen % 2 ? "#9ecae1" : "#c6dbef"), "#ffffff", 0.4);
      whole_seen += !narrow;
      x += w;
    }
  }
  const double end_x = left + grid_time * unit_w, bottom = y0 + rows * kRowH;
  svg.line(end_x, y0 - 4, end_x, bottom + 4, "#d62728", 1.5);
  svg.text(end_x + 6, bottom, "the grid ends: " + std::to_string(grid_time) + " half-units", 13, "start", "#d62728");
  return bottom;
}

std::string pairs_25() {
  const gemm::GemmShape shape{4088, 4104, 4096};
  const step18::Config c18 = step18::kConfigs[0];
  const step25::Config c25 = step25::kConfigs[0];
  const int fit = kDiagramSms / c25.cluster;
  const int clusters_18 = step18::persistent_clusters(shape, c18, kDiagramSms);
  const int clusters_25 = step25::persistent_clusters(shape, c25, kDiagramSms);
  const int narrow = step25::narrow_units(shape, c25), whole = step25::units(shape, c25) - narrow;
  const double left = 30, unit_w = 60;
  Svg svg(left + 10 * unit_w + 260, 112 + 2 * (12 + fit * 5.0) + 40 + 90);
  svg.text(left, 30, "Narrow units in pairs: the persistent grid at 4088 × 4104 on " + std::to_string(kDiagramSms) + " SMs",
           20, "start", "#1a1a1a", true);
  svg.text(left, 56, "A row per cluster (two SMs, one tile each of a unit), time to the right: a whole unit of two "
                     "128 × 256 tiles (blue),", 14);
  svg.text(left, 76, "a narrow unit (orange: the last tile column, 8 columns inside C) counted as half of one. " +
                         std::to_string(whole) + " whole units, " + std::to_string(narrow) + " narrow.", 14);
  double y = 112;
  y = panel(svg, y,
            "Step 18: units dealt in turn, the narrow ones last: " + std::to_string(clusters_18) + " clusters, then a short round",
            dealt_18(shape, c18, clusters_18), fit, step18::grid_time(shape, c18, kDiagramSms), left, unit_w);
  y = panel(svg, y + 40,
            "Step 25: places dealt in turn (a whole unit, or two narrow units): " + std::to_string(clusters_25) +
                " clusters, " + std::to_string(step25::places(shape, c25, clusters_25)) + " places",
            dealt_25(shape, c25, clusters_25), fit, step25::grid_time(shape, c25, kDiagramSms), left, unit_w);
  svg.text(left, y + 34, "Grey: SMs idle from the start. Counted, not measured: a narrow unit measured about two thirds of a",
           13, "start", "#555555");
  svg.text(left, y + 52, "whole one (the performance log, step 18). Drawn from step18:: and step25::persistent_clusters, grid_time,",
           13, "start", "#555555");
  svg.text(left, y + 70, "tile_at, narrow_tile and the kernels' walks (next_unit; first_unit, next_unit).", 13, "start", "#555555");
  return svg.str();
}

const Registration pairs_25_registered("diagram-25-pairs.svg", pairs_25);

}  // namespace
}  // namespace diagrams
