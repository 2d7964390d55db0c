// Stream-K: the persistent grid's last round, whole units or shared out along k (step 23).
#include <string>

#include "23_stream_k/mapping.hpp"
#include "diagrams.hpp"
#include "svg.hpp"

namespace diagrams {
namespace {

// ---- Step 23: the last round's k-tiles shared out over every cluster ----------------------------

// Each row is a cluster of the persistent grid, time runs to the right in k-tiles. Top: step 22's
// schedule for the same tile (every unit whole, the fewest clusters for its rounds; step 22 itself
// takes the 128 x 64 tile at this shape, 64 blocks); bottom: step 23's (schedule_of, cluster_work:
// the kernel's own loop), the split units' pieces in a colour per unit.
std::string stream_k_23() {
  using namespace step23;
  const GemmShape shape{512, 1024, 16384};
  const Config c = config_for_shape(shape, kDiagramSms);
  const Schedule split = schedule_of(shape, c, kDiagramSms);
  const int count = units(shape, c), kt = split.k_tiles;
  const Schedule whole{persistent_clusters(shape, c, kDiagramSms), count, 0, kt};
  const int rows = kDiagramSms / c.cluster;  // the clusters the GPU holds
  const double x0 = 150, row_h = 5, panel_h = row_h * rows, panel_gap = 80, y_top = 150;
  const int longest = (count + whole.clusters - 1) / whole.clusters * kt;
  const double kt_w = 700.0 / longest;
  Svg svg(x0 + 700 + 60, y_top + 2 * panel_h + panel_gap + 170);
  svg.text(30, 30, "Step 23: the last round shared out along k", 20, "start", "#1a1a1a", true);
  svg.text(30, 56, std::to_string(shape.m) + " × " + std::to_string(shape.n) + " × " + std::to_string(shape.k) + ", " +
                       std::to_string(c.bm) + " × " + std::to_string(c.bn) + " tiles: " + std::to_string(count) +
                       " units (a pair of tiles, one per block of a cluster) of " + std::to_string(kt) + " k-tiles each,",
           14);
  svg.text(30, 76, "for the " + std::to_string(rows) + " clusters of 2 blocks that " + std::to_string(kDiagramSms) +
                       " SMs hold. Drawn from step23::schedule_of and cluster_work, the kernel's own loop.", 14);
  svg.text(30, 96, "Each row is one cluster; time runs to the right in k-tiles.", 14);
  auto panel = [&](double y, const std::string& title, const Schedule& s) {
    svg.text(30, y - 12, title, 15, "start", "#1a1a1a", true);
    svg.rect(x0, y, kt_w * longest, panel_h, "#f7f7f7", "#bbbbbb", 0.8);
    for (int t = 0; t <= longest; t += kt) {
      svg.line(x0 + kt_w * t, y, x0 + kt_w * t, y + panel_h, "#cccccc", 0.8);
      svg.text(x0 + kt_w * t, y + panel_h + 16, std::to_string(t), 12, "middle");
    }
    svg.text(x0 - 10, y + 10, "cluster 0", 12, "end");
    svg.text(x0 - 10, y + panel_h, "cluster " + std::to_string(rows - 1), 12, "end");
    for (int q = 0; q < s.clusters; ++q) {
      double t = 0;
      for (const Work& w : cluster_work(s, q)) {
        const int length = w.kt_end - w.kt_begin;
        svg.rect(x0 + kt_w * t, y + row_h * q, kt_w * length - (w.piece < 0 ? 1 : 0), row_h - 0.5,
                 w.piece < 0 ? "#9ecae1" : fill_of((w.unit - s.whole_units) % 7 + 1), "#ffffff", 0.3);
        t += length;
      }
    }
  };
  panel(y_top, "Step 22's grid for these tiles: every unit whole, " + std::to_string(whole.clusters) + " clusters, " +
                   std::to_string(rows - whole.clusters) + " idle",
        whole);
  panel(y_top + panel_h + panel_gap, "Step 23: the " + std::to_string(split.split_units) + " units' " +
                                         std::to_string(split.split_units * kt) + " k-tiles in equal runs over all " +
                                         std::to_string(split.clusters) + " clusters",
        split);
  const double ly = y_top + 2 * panel_h + panel_gap + 40;
  svg.rect(30, ly, 28, 16, "#9ecae1", "#555555", 0.8);
  svg.text(68, ly + 13, "a whole unit: its blocks multiply all its k-tiles and store the tiles", 13);
  svg.rect(30, ly + 24, 28, 16, fill_of(2), "#555555", 0.8);
  svg.text(68, ly + 37, "a piece of a split unit (a colour per unit, seven in turn): a run of its k-tiles, a partial sum; a "
                        "run may end in the next unit", 13);
  svg.text(68, ly + 55, "the last of a unit's sharers to finish adds the others' partial sums to its own, in the sharers' "
                        "order, and stores the tiles", 13);
  svg.text(30, ly + 84, "Counted, not measured: the measured times are on the step's page.", 13, "start", "#555555");
  return svg.str();
}

const Registration stream_k_23_registered("diagram-23-stream-k.svg", stream_k_23);

}  // namespace
}  // namespace diagrams
