// Tile order: which tiles of C a persistent grid's clusters take in each round (step 17).
#include <set>
#include <string>
#include <vector>

#include "17_persistent_clusters/mapping.hpp"
#include "diagrams.hpp"
#include "svg.hpp"

namespace diagrams {
namespace {

// ---- Step 17: the persistent grid's tile order -----------------------------------------------

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

const Registration tile_order_17_registered("diagram-17-tile-order.svg", tile_order_17);

}  // namespace
}  // namespace diagrams
