// The wave split: the last wave of tiles, whole or split along k (step 11).
#include <string>

#include "11_split_k_tail/mapping.hpp"
#include "diagrams.hpp"
#include "svg.hpp"

namespace diagrams {
namespace {

// ---- Step 11: the last wave of tiles, whole or split along k -----------------------------------

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

const Registration wave_split_11_registered("diagram-11-wave-split.svg", wave_split_11);

}  // namespace
}  // namespace diagrams
