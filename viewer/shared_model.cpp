#include "shared_model.hpp"

#include <algorithm>
#include <cstdarg>
#include <cstdio>
#include <set>

namespace gemm::viewer {

namespace {

constexpr int kLineBytes = hopper::kSwizzleSpan;  // a grid row: 128 bytes, the 32 banks once


// Where the shown tile of the shown stage starts, in bytes of the buffer.
long long tile_base(const SharedStage& stage, const StagedTile& tile) { return stage.stage * stage.stage_bytes + tile.offset; }

std::string bytes_text(long long bytes) {
  return bytes % 1024 == 0 ? std::to_string(bytes / 1024) + " KB" : std::to_string(bytes) + " bytes";
}

const char* mn_name(Operand operand) { return operand == Operand::A ? "m" : "n"; }

std::string element_text(const StagedTile& tile, int element) {
  return format("%s (%s %d, k %d)", to_string(tile.operand), mn_name(tile.operand), element / tile.k, element % tile.k);
}

// The shared-memory operand of a trace's instructions on this tile.
Operand trace_operand(Operand operand) { return operand == Operand::A ? Operand::smem_A : Operand::smem_B; }

// Marks the bytes [byte, byte + count) of the buffer as touched by `group` (where the grid has them).
void touch_bytes(SharedView& view, std::vector<int>& detail, long long byte, int count, int group, int what,
                 std::set<long long>& seen) {
  for (long long b = byte; b < byte + count; ++b) {
    const long long at = b - view.first_byte;
    if (at < 0 || at >= (long long)view.lines * kLineBytes) continue;
    const size_t word = size_t(at / kBankBytes);
    if (view.touch[word] < 0) {
      view.touch[word] = group;
      detail[word] = what;
    }
    seen.insert(b);
  }
}

}  // namespace

const char* to_string(SharedColour colour) { return colour == SharedColour::mn ? "mn" : "k"; }
SharedColour shared_colour_named(const std::string& name) { return name == "mn" ? SharedColour::mn : SharedColour::k; }

int SharedView::element_of_word(int line, int bank) const {
  if (line < 0 || line >= lines || bank < 0 || bank >= kSharedBanks) return -1;
  const size_t first = size_t(line) * kLineBytes + size_t(bank) * kBankBytes;
  for (size_t b = first; b < first + kBankBytes; ++b)
    if (element_at[b] >= 0) return element_at[b];
  return -1;
}


SharedView shared_view(const TracedProgram& program, const TraceProblem& given, const Dim3& block, const WarpTrace& trace,
                       const SharedSelection& selection) {
  SharedView view;
  if (!program.shared_stage) {
    view.why_not = program_label(program) +
                   " has no stage of A and B tiles drawn here: the viewer lays out the stages of the tensor-core "
                   "steps (12 on); this step's shared-memory accesses are in the warp access panel.";
    return view;
  }
  const TraceProblem problem = with_defaults(program, given);
  view.stage = program.shared_stage(problem, block, 0);
  const int k_tile = std::clamp(selection.k_tile, 0, std::max(0, view.stage.k_tiles - 1));
  if (k_tile != 0) view.stage = program.shared_stage(problem, block, k_tile);
  view.tile = selection.operand == Operand::B ? 1 : 0;
  const StagedTile& tile = view.shown();
  const long long base = tile_base(view.stage, tile);
  view.first_byte = base / kLineBytes * kLineBytes;
  view.lines = int((base + tile.bytes - view.first_byte + kLineBytes - 1) / kLineBytes);
  view.element_at.assign(size_t(view.lines) * kLineBytes, -1);
  for (int mn = 0; mn < tile.mn; ++mn)
    for (int k = 0; k < tile.k; ++k)
      for (int e = 0; e < tile.element_bytes; ++e)
        view.element_at[size_t(base + tile.byte(mn, k) - view.first_byte + e)] = mn * tile.k + k;

  // The list: the stage alone; the TMA boxes and wgmma k-steps of the Hopper steps; the warp's own
  // instructions on this tile of this stage otherwise (copies of k-tile kt may be issued up to
  // STAGES - 1 iterations before kt's, and are listed under the iteration that issues them).
  view.items.push_back({SharedItemKind::stage, -1, "the stage alone, coloured by " + std::string(to_string(selection.colour))});
  for (size_t b = 0; b < view.stage.boxes.size(); ++b) {
    const TmaBoxCopy& box = view.stage.boxes[b];
    if (box.operand != tile.operand) continue;
    view.items.push_back({SharedItemKind::tma_box, int(b),
                          format("TMA box %d: stored rows %d-%d, columns %d-%d -> bytes %lld-%lld of the tile", box.box,
                                 box.outer0, box.outer0 + box.outer - 1, box.inner0, box.inner0 + box.inner - 1,
                                 box.landing, box.landing + box.bytes - 1)});
  }
  for (size_t r = 0; r < view.stage.reads.size(); ++r) {
    const WgmmaRead& read = view.stage.reads[r];
    if (read.operand != tile.operand) continue;
    // (B's part where a k-step is two wgmma: step 26's whole boxes, then its tail)
    const bool part = tile.operand == Operand::B && read.rows < tile.mn && !(read.mn0 == 0 && read.rows == 64);
    view.items.push_back({SharedItemKind::wgmma_read, int(r),
                          format("wgmma k-step %d%s: %s descriptor 0x%016llx", read.k_step,
                                 tile.operand == Operand::A ? format(", consumer %d", read.consumer).c_str()
                                 : part ? format(", n %d-%d", read.mn0, read.mn0 + read.rows - 1).c_str()
                                        : "",
                                 to_string(tile.operand), (unsigned long long)read.descriptor)});
  }
  for (size_t i = 0; i < trace.instructions.size(); ++i) {
    const TraceInstruction& ins = trace.instructions[i];
    if (ins.access.space != Space::shared || ins.operand != trace_operand(tile.operand)) continue;
    if (ins.iteration > k_tile || ins.iteration < k_tile - view.stage.stages + 1) continue;
    bool inside = false;
    for (int lane = 0; lane < kWarpSize && !inside; ++lane)
      inside = ins.access.lane_active(lane) && ins.access.address[size_t(lane)] >= base &&
               ins.access.address[size_t(lane)] < base + tile.bytes;
    if (!inside) continue;
    int first = 0;  // where its first lane's access starts: tells apart the instructions of one label
    while (!ins.access.lane_active(first)) ++first;
    const long long at = ins.access.address[size_t(first)];
    view.items.push_back({SharedItemKind::instruction, int(i),
                          iteration_text(program, ins.iteration) + ": " + instruction_text(ins) +
                              format(", lane %d at line %lld, bank %lld", first, at / kLineBytes,
                                     (at % kLineBytes) / kBankBytes)});
  }
  view.item = std::clamp(selection.item, 0, int(view.items.size()) - 1);

  // What the item touches.
  view.touch.assign(size_t(view.words()), -1);
  std::vector<int> detail(size_t(view.words()), -1);
  std::set<long long> seen;
  const SharedItem& item = view.items[size_t(view.item)];
  const int bytes = tile.element_bytes;
  switch (item.kind) {
    case SharedItemKind::stage: break;
    case SharedItemKind::instruction: {
      const TraceInstruction& ins = trace.instructions[size_t(item.index)];
      for (int lane = 0; lane < kWarpSize; ++lane)
        if (ins.access.lane_active(lane))
          touch_bytes(view, detail, ins.access.address[size_t(lane)], ins.access.width, lane, lane, seen);
      view.cost = shared_cost(ins.access);
      const std::vector<BankPhase> phases = bank_phases(ins.access);
      const int per_phase = shared_phase_lanes(ins.access.width);
      for (size_t p = 0; p < phases.size(); ++p) {
        SharedPhase phase;
        for (int lane = int(p) * per_phase; lane < int(p + 1) * per_phase; ++lane)
          if (ins.access.lane_active(lane)) {
            phase.lanes.push_back(lane);
            phase.bytes.push_back(ins.access.address[size_t(lane)]);
          }
        phase.distinct_words = phases[p].distinct_words;
        phase.wavefronts = *std::max_element(phase.distinct_words.begin(), phase.distinct_words.end());
        view.phases.push_back(phase);
      }
      view.notes.push_back(cost_text({true, {}, view.cost}));
      const std::string note = cp_async_note(ins);
      if (!note.empty()) view.notes.push_back(note);
      break;
    }
    case SharedItemKind::tma_box: {
      const TmaBoxCopy& box = view.stage.boxes[size_t(item.index)];
      const unsigned box_base = unsigned(base + box.landing);
      for (int o = 0; o < box.outer; ++o)
        for (int i = 0; i < box.inner; ++i) {
          const long long at = hopper::tma_landing_byte(box_base, i, o, bytes, box.swizzle_span);
          touch_bytes(view, detail, at, bytes, i * bytes / hopper::kCoreBytes, o * box.inner + i, seen);
        }
      const int outside_rows = std::max(0, box.outer0 + box.outer - box.stored_outer);
      const int outside_cols = std::max(0, box.inner0 + box.inner - box.stored_inner);
      view.notes.push_back(format("box %d of %s: %d rows of %d elements (%d bytes) from row %d, column %d of the stored "
                                  "%d x %d matrix; %s",
                                  box.box, to_string(tile.operand), box.outer, box.inner, box.inner * bytes, box.outer0,
                                  box.inner0, box.stored_outer, box.stored_inner, bytes_text(box.bytes).c_str()));
      view.notes.push_back(box.swizzle_span == hopper::kSwizzleSpan
                               ? format("lands at byte %lld of the %s tile: row o, byte b of the box at o x 128 + b, its "
                                        "16-byte chunk XOR (o %% 8) (the 128-byte swizzle)",
                                        box.landing, to_string(tile.operand))
                               : format("lands at byte %lld of the %s tile: row o, byte b of the box at o x %d + b, its "
                                        "16-byte chunk XOR (o / %d %% 2) (the %d-byte swizzle)",
                                        box.landing, to_string(tile.operand), box.swizzle_span,
                                        hopper::kSwizzleSpan / box.swizzle_span, box.swizzle_span));
      if (outside_rows || outside_cols)
        view.notes.push_back(format("%d rows and %d columns of it lie outside the matrix: the Tensor Memory Accelerator "
                                    "writes zeros there",
                                    outside_rows, outside_cols));
      view.notes.push_back(box.multicast > 1
                               ? format("issued by the block of cluster rank %d, written into the %d blocks of the "
                                        "cluster (multicast)",
                                        box.issuer, box.multicast)
                               : std::string("issued by one thread of the block"));
      break;
    }
    case SharedItemKind::wgmma_read: {
      const WgmmaRead& read = view.stage.reads[size_t(item.index)];
      const hopper::MatrixDescriptor d = hopper::decode_descriptor(read.descriptor);
      if (!hopper::decodable(d)) {
        view.notes.push_back("this descriptor has no swizzle or a base offset: not decoded");
        break;
      }
      for (int mn = 0; mn < read.rows; ++mn)
        for (int k = 0; k < read.k; ++k) {
          const hopper::CoreMatrix core = hopper::core_matrix(read.k_major, mn, k, bytes);
          touch_bytes(view, detail, hopper::descriptor_byte(d, read.k_major, mn, k, bytes), bytes,
                      core.strided * 64 + core.leading, (read.mn0 + mn) * tile.k + read.k0 + k, seen);
        }
      view.notes.push_back(format("descriptor 0x%016llx: start byte %u (byte %lld of the %s tile of stage %d), leading "
                                  "byte offset %u, stride byte offset %u, %d-byte swizzle",
                                  (unsigned long long)read.descriptor, d.start, (long long)d.start - base,
                                  to_string(tile.operand), view.stage.stage, d.leading, d.stride,
                                  hopper::swizzle_span(d.swizzle)));
      view.notes.push_back(format("reads %s %d-%d, k %d-%d: %d x %d bytes in core matrices of 8 rows x 16 bytes; the "
                                  "next 8 %s at +%u bytes (SBO)%s",
                                  read.k_major ? (tile.operand == Operand::A ? "rows" : "columns") : "m/n",
                                  read.mn0, read.mn0 + read.rows - 1, read.k0, read.k0 + read.k - 1, read.rows,
                                  read.k * bytes, read.k_major ? "rows" : "k's", d.stride,
                                  read.k_major ? ", its 32 bytes in one swizzled row (LBO unused)"
                                               : format(", the next %d m/n at +%u bytes (LBO)",
                                                        hopper::swizzle_span(d.swizzle) / bytes, d.leading).c_str()));
      view.notes.push_back("the kernel builds it as " + read.how);
      break;
    }
  }
  view.touched_bytes = (long long)seen.size();
  view.detail = std::move(detail);
  return view;
}

Rgba element_colour(const StagedTile& tile, int element, SharedColour colour) {
  // A hue along k (or m/n) over most of the wheel, so that the first and last are not alike.
  const double along = colour == SharedColour::k ? double(element % tile.k) / tile.k : double(element / tile.k) / tile.mn;
  return hue_colour(0.85 * along, 0.65, 0.95);
}

Rgba touch_colour(const SharedView& view, int group) {
  switch (view.items[size_t(view.item)].kind) {
    case SharedItemKind::instruction: return lane_colour(group);
    case SharedItemKind::tma_box: return lane_colour(4 * group);  // 8 chunks, hues an eighth of a turn apart
    case SharedItemKind::wgmma_read: return index_colour(std::uint32_t(group));
    case SharedItemKind::stage: break;
  }
  return kUntouched;
}

Rgba dimmed(Rgba c) { return rgba(40 + red(c) / 4, 40 + green(c) / 4, 44 + blue(c) / 4); }

Rgba word_colour(const SharedView& view, int line, int bank, SharedColour colour) {
  const int element = view.element_of_word(line, bank);
  const Rgba base = element < 0 ? kNoElement : element_colour(view.shown(), element, colour);
  if (view.items[size_t(view.item)].kind == SharedItemKind::stage) return base;
  const int group = view.touch[size_t(line) * kSharedBanks + size_t(bank)];
  return group >= 0 ? touch_colour(view, group) : dimmed(base);
}

std::vector<Rgba> shared_pixels(const SharedView& view, SharedColour colour) {
  std::vector<Rgba> out(size_t(view.words()));
  for (int line = 0; line < view.lines; ++line)
    for (int bank = 0; bank < kSharedBanks; ++bank)
      out[size_t(line) * kSharedBanks + size_t(bank)] = word_colour(view, line, bank, colour);
  return out;
}

SourceBox source_box(const SharedView& view) {
  SourceBox source;
  const SharedItem& item = view.items[size_t(view.item)];
  if (item.kind != SharedItemKind::tma_box) return source;
  const TmaBoxCopy& box = view.stage.boxes[size_t(item.index)];
  const int bytes = view.shown().element_bytes;
  source.rows = box.outer;
  source.pixels.resize(size_t(box.outer) * kSharedBanks);
  for (int o = 0; o < box.outer; ++o)
    for (int word = 0; word < kSharedBanks; ++word) {
      const int i = word * kBankBytes / bytes;
      // (a box's rows may be narrower than the grid's 128 bytes: step 26's tail, 32)
      const bool inside = i < box.inner && box.inner0 + i < box.stored_inner && box.outer0 + o < box.stored_outer;
      source.pixels[size_t(o) * kSharedBanks + size_t(word)] =
          inside ? touch_colour(view, word * kBankBytes / hopper::kCoreBytes) : kNoElement;
    }
  return source;
}

std::string shared_title(const TracedProgram& program, const SharedView& view) {
  if (!view.why_not.empty()) return "Shared memory: " + program_label(program);
  const StagedTile& tile = view.shown();
  return format("Shared memory: %s of %s, stage %d of %d (%d x %d, %d-byte elements, %s)", to_string(tile.operand),
                program_label(program).c_str(), view.stage.stage, view.stage.stages, tile.mn, tile.k, tile.element_bytes,
                bytes_text(tile.bytes).c_str());
}

std::string shared_caption(const SharedView& view) {
  const StagedTile& tile = view.shown();
  std::string text = tile.arrangement + ". A row is a 128-byte line, a column a bank (4 bytes)";
  if (!view.stage.tile_text.empty()) text += "; " + view.stage.tile_text;
  return text + ".";
}

std::vector<std::string> word_text(const SharedView& view, const WarpTrace& trace, int line, int bank) {
  std::vector<std::string> out;
  if (line < 0 || line >= view.lines || bank < 0 || bank >= kSharedBanks) return out;
  const StagedTile& tile = view.shown();
  const long long byte = view.first_byte + (long long)line * kLineBytes + bank * kBankBytes;
  out.push_back(format("line %lld, bank %d: bytes %lld-%lld of the buffer", byte / kLineBytes, bank, byte,
                       byte + kBankBytes - 1));
  std::string held;
  int last = -2;
  for (int b = 0; b < kBankBytes; ++b) {
    const int element = view.element_at[size_t(line) * kLineBytes + size_t(bank) * kBankBytes + size_t(b)];
    if (element == last) continue;
    last = element;
    held += (held.empty() ? "" : ", ") + (element < 0 ? std::string("(none)") : element_text(tile, element));
  }
  out.push_back("holds " + held);
  const size_t word = size_t(line) * kSharedBanks + size_t(bank);
  const int group = view.touch[word];
  if (group < 0) return out;
  const SharedItem& item = view.items[size_t(view.item)];
  const int what = view.detail[word];
  switch (item.kind) {
    case SharedItemKind::instruction: {
      const TraceInstruction& ins = trace.instructions[size_t(item.index)];
      out.push_back(format("lane %d: %d bytes from byte %lld", group, ins.access.width,
                           (long long)ins.access.address[size_t(group)]));
      break;
    }
    case SharedItemKind::tma_box: {
      const TmaBoxCopy& box = view.stage.boxes[size_t(item.index)];
      const int o = what / box.inner, i = what % box.inner;
      out.push_back(format("from the stored %s: row %d, column %d (box row %d, 16-byte chunk %d)", to_string(tile.operand),
                           box.outer0 + o, box.inner0 + i, o, group));
      break;
    }
    case SharedItemKind::wgmma_read: {
      const WgmmaRead& read = view.stage.reads[size_t(item.index)];
      out.push_back(format("read as %s by k-step %d: core matrix %d along %s, %d along %s", element_text(tile, what).c_str(),
                           read.k_step, group / 64, read.k_major ? mn_name(tile.operand) : "k", group % 64,
                           read.k_major ? "k" : mn_name(tile.operand)));
      break;
    }
    case SharedItemKind::stage: break;
  }
  return out;
}

}  // namespace gemm::viewer
