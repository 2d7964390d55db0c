// The swizzle: a shared tile's 16-byte chunks before and after, and what ldmatrix reads (step 14).
#include <algorithm>
#include <functional>
#include <map>
#include <set>
#include <string>
#include <vector>

#include "14_mma_ldmatrix/mapping.hpp"
#include "diagrams.hpp"
#include "svg.hpp"

namespace diagrams {
namespace {

// ---- Step 14: the swizzle, before and after ------------------------------------------------------

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

const Registration swizzle_14_registered("diagram-14-swizzle.svg", swizzle_14);

}  // namespace
}  // namespace diagrams
