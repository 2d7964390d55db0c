// The stages of shared memory of the steps that stage tiles, each filled from the step's own mapping
// functions (common/host/shared_stage.hpp says what a SharedStage holds): the tiles' layouts (the
// padded rows of steps 12 and 13, step 14's XOR of 16-byte chunks, the Hopper steps' tile_byte),
// and for the Hopper steps the TMA boxes of a k-tile (tma_box, box_bytes) and the wgmma
// descriptors of each k-step, built as each kernel builds them (wgmma_descriptor, descriptor_strides,
// operand_offset; the steps whose k-loop holds uniform_addresses: stage 0's descriptors moved by
// descriptor_offset). This file holds what those stages share; each step's own part (a stage
// function, or the struct hopper_stage reads) and its registration (TracedProgram::shared_stage) are
// in its folder, steps/NN_name/traced.hpp. Host-only.
#pragma once

#include <cstdint>
#include <string>
#include <type_traits>
#include <utility>
#include <vector>

#include "shared_stage.hpp"
#include "trace.hpp"

namespace gemm::shared_stages {

// A tile whose element (mn, k) lies at byte(mn, k) from its start.
template <typename ByteFn>
StagedTile staged_tile(Operand operand, int mn, int k, int element_bytes, bool k_major, long long offset, long long bytes,
                       std::string arrangement, ByteFn byte) {
  StagedTile t;
  t.operand = operand;
  t.mn = mn;
  t.k = k;
  t.element_bytes = element_bytes;
  t.k_major = k_major;
  t.offset = offset;
  t.bytes = bytes;
  t.arrangement = std::move(arrangement);
  t.byte_of.resize(size_t(mn) * size_t(k));
  for (int r = 0; r < mn; ++r)
    for (int c = 0; c < k; ++c) t.byte_of[size_t(r) * size_t(k) + size_t(c)] = byte(r, c);
  return t;
}

inline SharedStage stage_frame(int stages, long long stage_bytes, int k_tiles, int k_tile) {
  SharedStage s;
  s.stages = stages;
  s.stage_bytes = stage_bytes;
  s.k_tiles = k_tiles;
  s.stage = k_tile % stages;
  return s;
}

// --- The mma.sync and WMMA steps: tiles written by the threads (their traces hold the copies and the loads) -------
// Each has its own stage function (stepNN_stage, in steps/NN_name/traced.hpp).

constexpr int kSixteenBitBytes = 2;  // f16 and bf16

// --- The Hopper steps: TMA boxes in, wgmma descriptors out ----------------------------------------
//
// One builder over every Hopper step. The functions every one of them has with the same arguments
// are found by argument-dependent lookup in the step's namespace, through its Config and TmaOperand:
// stage_bytes, a_tile_bytes, b_tile_bytes, k_tiles, tma_box, box_bytes. What differs between steps
// is named by a struct per step (shared_stages::StepNN, in steps/NN_name/traced.hpp): Config and Op
// (its TmaOperand); config, a, b (the operands of a problem); k_major; tile_byte; b_boxes (a narrow
// tile copies one box of B); consumers; cluster; tile (the block's first tile); a_descriptor and
// b_descriptor (built as the kernel builds them, for a stage, consumer and k-step); kElementBytes,
// kBoxInner, kWgmmaM, kWgmmaK, kNarrowCols (the n of a narrow tile's wgmma; 0 where there are none);
// kDescriptors (how the kernel forms its descriptors, for the panel). A step whose B may end in a
// narrower box (step 26: an N-major B's last 16 columns, the 32-byte swizzle, a wgmma of their own)
// also names tail_cols, box_inner, box_bytes, b_tail_descriptor and kTailDescriptors (HasTail below).

struct FirstTile {
  bool any = false;  // a persistent block past the last unit takes none
  int m = 0, n = 0, rank = 0;
  bool narrow = false;
  bool below = false;  // the tile lies below C (its unit's lower tile, where the tile rows are odd)
};

// Whether a step's B may end in a tail box (Step::tail_cols).
template <typename Step, typename = void>
struct HasTail : std::false_type {};
template <typename Step>
struct HasTail<Step, std::void_t<decltype(Step::tail_cols(std::declval<const typename Step::Op&>()))>> : std::true_type {};
// The columns of the operand's tail box (0: none).
template <typename Step>
int tail_cols(const typename Step::Op& op) {
  if constexpr (HasTail<Step>::value) return Step::tail_cols(op);
  else return 0;
}

template <typename Step>
SharedStage hopper_stage(const TraceProblem& p, const Dim3& block, int k_tile) {
  using Config = typename Step::Config;
  const Config c = Step::config(p);
  const auto a = Step::a(p, c), b = Step::b(p, c);
  SharedStage s = stage_frame(c.stages, stage_bytes(c), k_tiles(p.shape, c), k_tile);
  const std::string swizzled = "rows of 128 bytes, 16-byte chunk c of row r at c ^ (r % 8) (the 128-byte swizzle)";
  s.tiles.push_back(staged_tile(Operand::A, c.bm, c.bk, Step::kElementBytes, Step::k_major(a), 0, a_tile_bytes(c),
                                std::string(Step::k_major(a) ? "K-major, " : "M-major, ") + swizzled,
                                [&](int m, int k) { return Step::tile_byte(a, m, k); }));
  const int b_tail = tail_cols<Step>(b);
  const std::string tail_text =
      b_tail ? "; its last " + std::to_string(b_tail) + " columns in rows of " + std::to_string(b_tail * Step::kElementBytes) +
                   " bytes, chunk c of row r at c ^ (r / 4 % 2) (the 32-byte swizzle)"
             : std::string();
  s.tiles.push_back(staged_tile(Operand::B, c.bn, c.bk, Step::kElementBytes, Step::k_major(b), a_tile_bytes(c),
                                b_tile_bytes(c), std::string(Step::k_major(b) ? "K-major, " : "N-major, ") + swizzled + tail_text,
                                [&](int n, int k) { return Step::tile_byte(b, n, k); }));
  const FirstTile tile = Step::tile(p, block, c);
  if (tile.any) {
    s.tile_text = "the block's first tile of C: (" + std::to_string(tile.m) + ", " + std::to_string(tile.n) + ")" +
                  (tile.narrow ? ", narrow" : "") + (tile.below ? ", below C (copied and multiplied, not stored)" : "");
    const auto copies = [&](Operand operand, const typename Step::Op& op, int mn0, int boxes, bool shared_by_cluster) {
      for (int box = 0; box < boxes; ++box) {
        const auto first = tma_box(op, mn0, k_tile, box, c);
        TmaBoxCopy copy;
        copy.operand = operand;
        copy.box = box;
        copy.inner0 = first.inner, copy.outer0 = first.outer;
        copy.inner = Step::kBoxInner;
        copy.outer = op.box_outer;
        copy.stored_inner = op.inner, copy.stored_outer = op.outer;
        copy.landing = (long long)box * box_bytes(op);
        copy.bytes = box_bytes(op);
        if constexpr (HasTail<Step>::value) {  // the tail: fewer columns, rows of fewer bytes, the same landing rule
          copy.inner = Step::box_inner(op, box);
          copy.bytes = Step::box_bytes(op, box);
          copy.swizzle_span = copy.inner * Step::kElementBytes;
        }
        copy.issuer = shared_by_cluster ? box % Step::cluster(c) : tile.rank;
        copy.multicast = shared_by_cluster ? Step::cluster(c) : 1;
        copy.mn0 = mn0, copy.k0 = k_tile * c.bk;
        copy.k_major = Step::k_major(op);
        s.boxes.push_back(copy);
      }
    };
    copies(Operand::A, a, tile.m * c.bm, a.boxes, false);
    copies(Operand::B, b, tile.n * c.bn, Step::b_boxes(b, tile.narrow), true);
  }
  const auto read = [&](Operand operand, bool k_major, int consumer, int kk, std::uint64_t descriptor, int mn0, int rows,
                        const char* how = Step::kDescriptors) {
    WgmmaRead r;
    r.operand = operand;
    r.consumer = consumer, r.k_step = kk;
    r.descriptor = descriptor;
    r.k_major = k_major;
    r.mn0 = mn0, r.rows = rows;
    r.k0 = kk * Step::kWgmmaK, r.k = Step::kWgmmaK;
    r.how = how;
    s.reads.push_back(r);
  };
  for (int consumer = 0; consumer < Step::consumers(c); ++consumer)
    for (int kk = 0; kk < c.bk / Step::kWgmmaK; ++kk)
      read(Operand::A, Step::k_major(a), consumer, kk, Step::a_descriptor(a, c, s.stage, consumer, kk),
           consumer * Step::kWgmmaM, Step::kWgmmaM);
  // B: one wgmma a k-step, or with a tail two: the whole boxes' columns, then the tail's.
  const bool tail_read = b_tail > 0 && !tile.narrow;
  for (int kk = 0; kk < c.bk / Step::kWgmmaK; ++kk) {
    read(Operand::B, Step::k_major(b), 0, kk, Step::b_descriptor(b, c, s.stage, kk), 0,
         tile.narrow ? Step::kNarrowCols : c.bn - (tail_read ? b_tail : 0));
    if constexpr (HasTail<Step>::value)
      if (tail_read)
        read(Operand::B, Step::k_major(b), 0, kk, Step::b_tail_descriptor(b, c, s.stage, kk), c.bn - b_tail, b_tail,
             Step::kTailDescriptors);
  }
  return s;
}

// The first tile of a persistent block: its cluster's first unit, its rank's tile of it.
template <typename Config, typename TraceLaunch, typename Units, typename TileAt, typename TilesM, typename Narrow>
FirstTile persistent_first_tile(const TraceProblem& p, const Dim3& block, const Config& c, TraceLaunch trace_launch,
                                Units units, TileAt tile_at, TilesM tiles_m, Narrow narrow) {
  FirstTile t;
  const int clusters = trace_launch(p, c).grid.x / c.cluster, cluster = block.x / c.cluster;
  t.rank = block.x % c.cluster;
  if (cluster >= clusters || cluster >= units(p.shape, c)) return t;
  const auto tile = tile_at(cluster, t.rank, p.shape, c);
  t.any = true;
  t.below = tile.m >= tiles_m(p.shape, c);  // a unit's lower tile may lie below C: copied and computed, not stored
  t.m = tile.m, t.n = tile.n;
  t.narrow = narrow(tile.n, p.shape, c);
  return t;
}

// The stage's tiles as each kernel addresses them: stage s at s * stage_bytes of the (aligned)
// buffer, A's tile first, then B's.
template <typename Config>
unsigned a_tile_at(const Config& c, int stage) {
  return unsigned(stage * stage_bytes(c));
}
template <typename Config>
unsigned b_tile_at(const Config& c, int stage) {
  return unsigned(stage * stage_bytes(c) + a_tile_bytes(c));
}

}  // namespace gemm::shared_stages
