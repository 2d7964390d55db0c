// What the shared-memory panel shows (plain C++, no ImGui; the panel is shared_panel.cpp): one stage
// of A or B as it lies in shared memory, 128-byte lines by 32 banks of 4 bytes, each word naming the
// element (mn, k) of the operand it holds, from the step's own layout (TracedProgram::shared_stage);
// and what one thing touches in it: a warp's instruction from its trace (cp.async writes, ldmatrix
// or ld.shared reads, with the access model's phases and wavefronts), a TMA box landing (which bytes
// of the stored matrix reach which line and bank), or one wgmma k-step's reads through its
// descriptor, decoded (common/host/hopper_shared.hpp) into its core matrices.
#pragma once

#include <array>
#include <cstdint>
#include <string>
#include <vector>

#include "hopper_shared.hpp"
#include "viewer_model.hpp"

namespace gemm::viewer {

// How a stage's words are coloured: by the k of the element they hold (the swizzle's XOR shows as
// runs of k moved along the line), or by its m or n (its row of A, column of B).
enum class SharedColour { k, mn };
const char* to_string(SharedColour colour);              // "k", "mn"
SharedColour shared_colour_named(const std::string& name);  // the reverse (--shared-colour); else k

// What the panel is asked for: which operand, the k-tile (its stage is k-tile % STAGES), which item
// of its list (0: the stage alone), and the colouring.
struct SharedSelection {
  Operand operand = Operand::A;
  int k_tile = 0;
  int item = 0;
  SharedColour colour = SharedColour::k;
};

// An entry of the panel's list.
enum class SharedItemKind { stage, instruction, tma_box, wgmma_read };
struct SharedItem {
  SharedItemKind kind = SharedItemKind::stage;
  int index = -1;  // instruction: into WarpTrace::instructions; box: SharedStage::boxes; read: SharedStage::reads
  std::string label;
};

// One phase of a shared access (ldmatrix's 8 row addresses, a cp.async quarter-warp's chunks): its
// lanes, the word each addresses first (as line and bank of the grid) and the access model's load on
// each bank.
struct SharedPhase {
  std::vector<int> lanes;
  std::vector<long long> bytes;  // each lane's first byte, from the buffer's start
  std::array<int, kSharedBanks> distinct_words{};
  int wavefronts = 0;            // the worst bank's distinct words (1: conflict-free)
};

struct SharedView {
  std::string why_not;          // "" when the program lays out a stage; else why there is none
  SharedStage stage;
  int tile = 0;                 // stage.tiles[tile] is the operand shown
  long long first_byte = 0;     // the buffer byte of the grid's first word (a 128-byte line's start)
  int lines = 0;                // rows of the grid: 128-byte lines
  std::vector<int> element_at;  // per byte of the grid: mn * K + k of the element there, -1 none
  std::vector<SharedItem> items;  // items[0]: the stage alone
  int item = 0;                 // the selected one (the selection's, clamped)
  // What the selected item touches, per word of the grid: -1 nothing, else a group: the lane of an
  // instruction, the 16-byte chunk of the stored row a TMA box's bytes come from, the core matrix a
  // wgmma k-step reads (its index: strided * 64 + leading).
  std::vector<int> touch;
  // ... and what the tooltip names there: an instruction's lane, the element of a TMA box it holds
  // (box row * box columns + column), the element a k-step reads (mn * K + k).
  std::vector<int> detail;
  long long touched_bytes = 0;  // the bytes the item touches in the grid (a box's, a k-step's 32 per row)
  // An instruction's phases and the access model's cost.
  std::vector<SharedPhase> phases;
  SharedCost cost;
  // Lines of text about the item: a box's place in the stored matrix, a descriptor's fields, ...
  std::vector<std::string> notes;

  const StagedTile& shown() const { return stage.tiles[size_t(tile)]; }
  int words() const { return lines * kSharedBanks; }
  // The element at word (line, bank) (its first byte's), -1 none.
  int element_of_word(int line, int bank) const;
};

// The view of a program's stage for a problem, the selected block's tile and warp (its trace, for
// the instructions of steps whose threads write and read the stage themselves).
SharedView shared_view(const TracedProgram& program, const TraceProblem& problem, const Dim3& block,
                       const WarpTrace& trace, const SharedSelection& selection);

// Colours: an element's by its k or m/n (hue along the tile); a word the selected item touches in
// its group's colour, every other word its element's colour dimmed (or, with the stage alone, not).
Rgba element_colour(const StagedTile& tile, int element, SharedColour colour);
Rgba touch_colour(const SharedView& view, int group);
Rgba dimmed(Rgba c);
constexpr Rgba kNoElement = rgba(24, 24, 28);  // padding, or the other operand's bytes on a shared line
// The colour of word (line, bank) as the panel draws it.
Rgba word_colour(const SharedView& view, int line, int bank, SharedColour colour);
// One pixel per word, line by line.
std::vector<Rgba> shared_pixels(const SharedView& view, SharedColour colour);

// A TMA box as it lies in the stored matrix before the copy: its rows of 128 bytes, each word
// coloured by the 16-byte chunk of the row it is in (touch_colour of that chunk), words outside the
// matrix (which the copy writes as zeros) as kNoElement.
struct SourceBox {
  int rows = 0;  // the box's rows (outer)
  std::vector<Rgba> pixels;  // rows x 32 words
};
SourceBox source_box(const SharedView& view);

// Texts: the panel's title, the caption under it, the hover tooltip of a word.
std::string shared_title(const TracedProgram& program, const SharedView& view);
std::string shared_caption(const SharedView& view);
std::vector<std::string> word_text(const SharedView& view, const WarpTrace& trace, int line, int bank);

}  // namespace gemm::viewer
