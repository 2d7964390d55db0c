// The stages of shared memory of the steps that stage tiles, each filled from the step's own mapping
// functions (common/host/shared_stage.hpp says what a SharedStage holds): the tiles' layouts (the
// padded rows of steps 12 and 13, step 14's XOR of 16-byte chunks, the Hopper steps' tile_byte),
// and for the Hopper steps the TMA boxes of a k-tile (tma_box, box_bytes) and the wgmma
// descriptors of each k-step, built as each kernel builds them (wgmma_descriptor, descriptor_strides,
// operand_offset; steps 21 and 22: stage 0's descriptors moved by descriptor_offset).
// Host-only; steps/traced_steps.hpp registers them (TracedProgram::shared_stage).
#pragma once

#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include "12_wmma/mapping.hpp"
#include "13_wmma_pipeline/mapping.hpp"
#include "14_mma_ldmatrix/mapping.hpp"
#include "15_tma_wgmma/mapping.hpp"
#include "16_warp_specialized/mapping.hpp"
#include "17_persistent_clusters/mapping.hpp"
#include "18_tma_store_epilogue/mapping.hpp"
#include "19_fp8/mapping.hpp"
#include "20_overlapped_epilogue/mapping.hpp"
#include "21_uniform_datapath/mapping.hpp"
#include "22_tile_width/mapping.hpp"
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

constexpr int kSixteenBitBytes = 2;  // f16 and bf16

// Step 12: one stage, a_tile[BM][BK + 8] and b_tile[BK][BN + 8] whatever the layout (the copies
// transpose A in TN and B in NT).
inline SharedStage step12_stage(const TraceProblem& p, const Dim3&, int k_tile) {
  const step12::Config c = step12::config_from(p.params);
  const long long a_bytes = (long long)c.bm * step12::a_stride(c) * kSixteenBitBytes;
  const long long b_bytes = (long long)c.bk * step12::b_stride(c) * kSixteenBitBytes;
  SharedStage s = stage_frame(1, a_bytes + b_bytes, step12::k_tiles(p.shape, c), k_tile);
  const std::string padded = "rows padded by " + std::to_string(step12::kPad) + " elements";
  s.tiles.push_back(staged_tile(Operand::A, c.bm, c.bk, kSixteenBitBytes, true, 0, a_bytes, "a_tile[m][k], " + padded,
                                [&](int m, int k) {
                                  step12::Chunk at;
                                  at.tile_row = m, at.tile_col = k;
                                  return step12::a_tile_index(at, c, 0) * kSixteenBitBytes;
                                }));
  s.tiles.push_back(staged_tile(Operand::B, c.bn, c.bk, kSixteenBitBytes, false, a_bytes, b_bytes,
                                "b_tile[k][n], " + padded, [&](int n, int k) {
                                  step12::Chunk at;
                                  at.tile_row = k, at.tile_col = n;
                                  return step12::b_tile_index(at, c, 0) * kSixteenBitBytes;
                                }));
  return s;
}

// Step 13: STAGES stages, each operand's tile as it is stored, rows padded by 8 elements.
inline SharedStage step13_stage(const TraceProblem& p, const Dim3&, int k_tile) {
  const step13::Config c = step13::config_from(p.params);
  const step13::OperandTile ta = step13::a_tile(p.layout, c), tb = step13::b_tile(p.layout, c);
  SharedStage s = stage_frame(c.stages, (long long)step13::stage_elements(p.layout, c) * step13::kElementBytes, step13::k_tiles(p.shape, c), k_tile);
  const auto tile = [&](Operand operand, const step13::OperandTile& t, int mn, long long offset) {
    return staged_tile(operand, mn, c.bk, step13::kElementBytes, t.k_major, offset, (long long)step13::tile_elements(t) * step13::kElementBytes,
                       std::string(t.k_major ? "rows along k" : "rows along m or n") + ", padded by " +
                           std::to_string(step13::kPad) + " elements",
                       [&](int row, int k) { return step13::fragment_offset(t, row, k) * step13::kElementBytes; });
  };
  s.tiles.push_back(tile(Operand::A, ta, c.bm, 0));
  s.tiles.push_back(tile(Operand::B, tb, c.bn, (long long)step13::tile_elements(ta) * step13::kElementBytes));
  return s;
}

// Step 14: STAGES stages, each operand's tile as it is stored, 16-byte chunk c of row r at c ^ (r % 8).
inline SharedStage step14_stage(const TraceProblem& p, const Dim3&, int k_tile) {
  const step14::Config c = step14::config_from(p.params);
  const step14::OperandTile ta = step14::a_tile(p.layout, c), tb = step14::b_tile(p.layout, c);
  SharedStage s = stage_frame(c.stages, (long long)step14::stage_elements(p.layout, c) * step14::kElementBytes, step14::k_tiles(p.shape, c), k_tile);
  const auto tile = [&](Operand operand, const step14::OperandTile& t, int mn, long long offset) {
    // A k-major tile's row is an m or n, its chunks run along k; otherwise a row is a k.
    return staged_tile(operand, mn, c.bk, step14::kElementBytes, t.k_major, offset, (long long)step14::tile_elements(t) * step14::kElementBytes,
                       std::string(t.k_major ? "rows along k" : "rows along m or n") +
                           ", 16-byte chunk c of row r at c ^ (r % 8)",
                       [&](int m, int k) {
                         const int row = t.k_major ? m : k, along = t.k_major ? k : m;
                         return (step14::tile_offset(t, row, along / step14::kChunk) + along % step14::kChunk) * step14::kElementBytes;
                       });
  };
  s.tiles.push_back(tile(Operand::A, ta, c.bm, 0));
  s.tiles.push_back(tile(Operand::B, tb, c.bn, (long long)step14::tile_elements(ta) * step14::kElementBytes));
  return s;
}

// --- The Hopper steps: TMA boxes in, wgmma descriptors out ----------------------------------------
//
// One builder over every Hopper step. The functions every one of them has with the same arguments
// are found by argument-dependent lookup in the step's namespace, through its Config and TmaOperand:
// stage_bytes, a_tile_bytes, b_tile_bytes, k_tiles, tma_box, box_bytes. What differs between steps
// is named by a struct per step (Step15 ... Step22 below): Config and Op (its TmaOperand); config,
// a, b (the operands of a problem); k_major; tile_byte; b_boxes (a narrow tile copies one box of
// B); consumers; cluster; tile (the block's first tile); a_descriptor and b_descriptor (built as the
// kernel builds them, for a stage, consumer and k-step); kElementBytes, kBoxInner, kWgmmaM,
// kWgmmaK, kNarrowCols (the n of a narrow tile's wgmma; 0 where there are none); kDescriptors (how
// the kernel forms its descriptors, for the panel).

struct FirstTile {
  bool any = false;  // a persistent block past the last unit takes none
  int m = 0, n = 0, rank = 0;
  bool narrow = false;
  bool below = false;  // the tile lies below C (its unit's lower tile, where the tile rows are odd)
};

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
  s.tiles.push_back(staged_tile(Operand::B, c.bn, c.bk, Step::kElementBytes, Step::k_major(b), a_tile_bytes(c),
                                b_tile_bytes(c), std::string(Step::k_major(b) ? "K-major, " : "N-major, ") + swizzled,
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
  const auto read = [&](Operand operand, bool k_major, int consumer, int kk, std::uint64_t descriptor, int mn0, int rows) {
    WgmmaRead r;
    r.operand = operand;
    r.consumer = consumer, r.k_step = kk;
    r.descriptor = descriptor;
    r.k_major = k_major;
    r.mn0 = mn0, r.rows = rows;
    r.k0 = kk * Step::kWgmmaK, r.k = Step::kWgmmaK;
    r.how = Step::kDescriptors;
    s.reads.push_back(r);
  };
  for (int consumer = 0; consumer < Step::consumers(c); ++consumer)
    for (int kk = 0; kk < c.bk / Step::kWgmmaK; ++kk)
      read(Operand::A, Step::k_major(a), consumer, kk, Step::a_descriptor(a, c, s.stage, consumer, kk),
           consumer * Step::kWgmmaM, Step::kWgmmaM);
  for (int kk = 0; kk < c.bk / Step::kWgmmaK; ++kk)
    read(Operand::B, Step::k_major(b), 0, kk, Step::b_descriptor(b, c, s.stage, kk), 0,
         tile.narrow ? Step::kNarrowCols : c.bn);
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

// One warpgroup, one tile per block, each layout.
struct Step15 {
  using Config = step15::Config;
  using Op = step15::TmaOperand;
  static constexpr int kElementBytes = step15::kElementBytes, kBoxInner = step15::kBoxInner,
                       kWgmmaM = step15::kWgmmaM, kWgmmaK = step15::kWgmmaK;
  static constexpr const char* kDescriptors =
      "wgmma_descriptor(tile + operand_offset(op, k-step), descriptor_strides(op))";
  static Config config(const TraceProblem& p) { return step15::config_from(p.params); }
  static Op a(const TraceProblem& p, const Config& c) { return step15::a_operand(p.shape, p.layout, c); }
  static Op b(const TraceProblem& p, const Config& c) { return step15::b_operand(p.shape, p.layout, c); }
  static bool k_major(const Op& op) { return op.k_major; }
  static int tile_byte(const Op& op, int mn, int k) { return step15::tile_byte(op, mn, k); }
  static int b_boxes(const Op& op, bool) { return op.boxes; }
  static int consumers(const Config&) { return 1; }
  static int cluster(const Config&) { return 1; }
  static constexpr int kNarrowCols = 0;  // no narrow tiles
  static FirstTile tile(const TraceProblem&, const Dim3& block, const Config&) {
    const step15::TileCoord t = step15::tile_of(block);
    return {true, t.m, t.n, 0, false, false};
  }
  static std::uint64_t a_descriptor(const Op& op, const Config& c, int stage, int, int kk) {
    return step15::wgmma_descriptor(a_tile_at(c, stage) + unsigned(step15::operand_offset(op, kk)),
                                    step15::descriptor_strides(op));
  }
  static std::uint64_t b_descriptor(const Op& op, const Config& c, int stage, int kk) {
    return step15::wgmma_descriptor(b_tile_at(c, stage) + unsigned(step15::operand_offset(op, kk)),
                                    step15::descriptor_strides(op));
  }
};

// Consumer warpgroups of 64 rows each, A's tile cut for them by operand_offset.
struct Step16 {
  using Config = step16::Config;
  using Op = step16::TmaOperand;
  static constexpr int kElementBytes = step16::kElementBytes, kBoxInner = step16::kBoxInner,
                       kWgmmaM = step16::kWgmmaM, kWgmmaK = step16::kWgmmaK;
  static constexpr const char* kDescriptors =
      "wgmma_descriptor(tile + operand_offset(op, consumer, k-step), descriptor_strides(op))";
  static Config config(const TraceProblem& p) { return step16::config_from(p.params); }
  static Op a(const TraceProblem& p, const Config& c) { return step16::a_operand(p.shape, p.layout, c); }
  static Op b(const TraceProblem& p, const Config& c) { return step16::b_operand(p.shape, p.layout, c); }
  static bool k_major(const Op& op) { return op.k_major; }
  static int tile_byte(const Op& op, int mn, int k) { return step16::tile_byte(op, mn, k); }
  static int b_boxes(const Op& op, bool) { return op.boxes; }
  static int consumers(const Config& c) { return step16::consumers(c); }
  static int cluster(const Config&) { return 1; }
  static constexpr int kNarrowCols = 0;
  static FirstTile tile(const TraceProblem&, const Dim3& block, const Config&) {
    const step16::TileCoord t = step16::tile_of(block);
    return {true, t.m, t.n, 0, false, false};
  }
  static std::uint64_t a_descriptor(const Op& op, const Config& c, int stage, int consumer, int kk) {
    return step16::wgmma_descriptor(a_tile_at(c, stage) + unsigned(step16::operand_offset(op, consumer, kk)),
                                    step16::descriptor_strides(op));
  }
  static std::uint64_t b_descriptor(const Op& op, const Config& c, int stage, int kk) {
    return step16::wgmma_descriptor(b_tile_at(c, stage) + unsigned(step16::operand_offset(op, 0, kk)),
                                    step16::descriptor_strides(op));
  }
};

// Persistent blocks in clusters sharing B's boxes (multicast).
struct Step17 {
  using Config = step17::Config;
  using Op = step17::TmaOperand;
  static constexpr int kElementBytes = step17::kElementBytes, kBoxInner = step17::kBoxInner,
                       kWgmmaM = step17::kWgmmaM, kWgmmaK = step17::kWgmmaK;
  static constexpr const char* kDescriptors = Step16::kDescriptors;
  static Config config(const TraceProblem& p) { return step17::config_from(p.params); }
  static Op a(const TraceProblem& p, const Config& c) { return step17::a_operand(p.shape, p.layout, c); }
  static Op b(const TraceProblem& p, const Config& c) { return step17::b_operand(p.shape, p.layout, c); }
  static bool k_major(const Op& op) { return op.k_major; }
  static int tile_byte(const Op& op, int mn, int k) { return step17::tile_byte(op, mn, k); }
  static int b_boxes(const Op& op, bool) { return op.boxes; }
  static int consumers(const Config& c) { return step17::consumers(c); }
  static int cluster(const Config& c) { return c.cluster; }
  static constexpr int kNarrowCols = 0;
  static FirstTile tile(const TraceProblem& p, const Dim3& block, const Config& c) {
    return persistent_first_tile(p, block, c, step17::trace_launch_shape, step17::units, step17::tile_at,
                                 step17::tiles_m, [](int, const GemmShape&, const Config&) { return false; });
  }
  static std::uint64_t a_descriptor(const Op& op, const Config& c, int stage, int consumer, int kk) {
    return step17::wgmma_descriptor(a_tile_at(c, stage) + unsigned(step17::operand_offset(op, consumer, kk)),
                                    step17::descriptor_strides(op));
  }
  static std::uint64_t b_descriptor(const Op& op, const Config& c, int stage, int kk) {
    return step17::wgmma_descriptor(b_tile_at(c, stage) + unsigned(step17::operand_offset(op, 0, kk)),
                                    step17::descriptor_strides(op));
  }
};

// Narrow tiles (a tile with at most 64 columns inside C copies one box of B and multiplies n = 64).
struct Step18 {
  using Config = step18::Config;
  using Op = step18::TmaOperand;
  static constexpr int kElementBytes = step18::kElementBytes, kBoxInner = step18::kBoxInner,
                       kWgmmaM = step18::kWgmmaM, kWgmmaK = step18::kWgmmaK, kNarrowCols = step18::kNarrowCols;
  static constexpr const char* kDescriptors = Step16::kDescriptors;
  static Config config(const TraceProblem& p) { return step18::config_from(p.params); }
  static Op a(const TraceProblem& p, const Config& c) { return step18::a_operand(p.shape, p.layout, c); }
  static Op b(const TraceProblem& p, const Config& c) { return step18::b_operand(p.shape, p.layout, c); }
  static bool k_major(const Op& op) { return op.k_major; }
  static int tile_byte(const Op& op, int mn, int k) { return step18::tile_byte(op, mn, k); }
  static int b_boxes(const Op& op, bool narrow) { return step18::b_boxes_copied(op, narrow); }
  static int consumers(const Config& c) { return step18::consumers(c); }
  static int cluster(const Config& c) { return c.cluster; }
  static FirstTile tile(const TraceProblem& p, const Dim3& block, const Config& c) {
    return persistent_first_tile(p, block, c, step18::trace_launch_shape, step18::units, step18::tile_at,
                                 step18::tiles_m, step18::narrow_tile);
  }
  static std::uint64_t a_descriptor(const Op& op, const Config& c, int stage, int consumer, int kk) {
    return step18::wgmma_descriptor(a_tile_at(c, stage) + unsigned(step18::operand_offset(op, consumer, kk)),
                                    step18::descriptor_strides(op));
  }
  static std::uint64_t b_descriptor(const Op& op, const Config& c, int stage, int kk) {
    return step18::wgmma_descriptor(b_tile_at(c, stage) + unsigned(step18::operand_offset(op, 0, kk)),
                                    step18::descriptor_strides(op));
  }
};

// The FP8 steps: 1-byte elements, both operands K-major (layout NT), 128 k's to a swizzled row, a
// wgmma k-step of 32. Steps 19 and 20 build each k-step's descriptors from its address; 21 and 22
// move stage 0's by descriptor_offset (the kernels that hold uniform_addresses; the others build
// them as step 20 does, the same values: test_mapping_21.cpp).
struct Step19 {
  using Config = step19::Config;
  using Op = step19::TmaOperand;
  static constexpr int kElementBytes = step19::kElementBytes, kBoxInner = step19::kBoxInner,
                       kWgmmaM = step19::kWgmmaM, kWgmmaK = step19::kWgmmaK, kNarrowCols = step19::kNarrowCols;
  static constexpr const char* kDescriptors =
      "wgmma_descriptor(tile + operand_offset(consumer, k-step), descriptor_strides())";
  static Config config(const TraceProblem& p) { return step19::config_from(p.params); }
  static Op a(const TraceProblem& p, const Config& c) { return step19::a_operand(p.shape, c); }
  static Op b(const TraceProblem& p, const Config& c) { return step19::b_operand(p.shape, c); }
  static bool k_major(const Op&) { return true; }
  static int tile_byte(const Op&, int mn, int k) { return step19::tile_byte(mn, k); }
  static int b_boxes(const Op& op, bool narrow) { return step19::b_boxes_copied(op, narrow); }
  static int consumers(const Config& c) { return step19::consumers(c); }
  static int cluster(const Config& c) { return c.cluster; }
  static FirstTile tile(const TraceProblem& p, const Dim3& block, const Config& c) {
    return persistent_first_tile(p, block, c, step19::trace_launch_shape, step19::units, step19::tile_at,
                                 step19::tiles_m, step19::narrow_tile);
  }
  static std::uint64_t a_descriptor(const Op&, const Config& c, int stage, int consumer, int kk) {
    return step19::wgmma_descriptor(a_tile_at(c, stage) + unsigned(step19::operand_offset(consumer, kk)),
                                    step19::descriptor_strides());
  }
  static std::uint64_t b_descriptor(const Op&, const Config& c, int stage, int kk) {
    return step19::wgmma_descriptor(b_tile_at(c, stage) + unsigned(step19::operand_offset(0, kk)),
                                    step19::descriptor_strides());
  }
};

struct Step20 {
  using Config = step20::Config;
  using Op = step20::TmaOperand;
  static constexpr int kElementBytes = step20::kElementBytes, kBoxInner = step20::kBoxInner,
                       kWgmmaM = step20::kWgmmaM, kWgmmaK = step20::kWgmmaK, kNarrowCols = step20::kNarrowCols;
  static constexpr const char* kDescriptors = Step19::kDescriptors;
  static Config config(const TraceProblem& p) { return step20::config_from(p.params); }
  static Op a(const TraceProblem& p, const Config& c) { return step20::a_operand(p.shape, c); }
  static Op b(const TraceProblem& p, const Config& c) { return step20::b_operand(p.shape, c); }
  static bool k_major(const Op&) { return true; }
  static int tile_byte(const Op&, int mn, int k) { return step20::tile_byte(mn, k); }
  static int b_boxes(const Op& op, bool narrow) { return step20::b_boxes_copied(op, narrow); }
  static int consumers(const Config& c) { return step20::consumers(c); }
  static int cluster(const Config& c) { return c.cluster; }
  static FirstTile tile(const TraceProblem& p, const Dim3& block, const Config& c) {
    return persistent_first_tile(p, block, c, step20::trace_launch_shape, step20::units, step20::tile_at,
                                 step20::tiles_m, step20::narrow_tile);
  }
  static std::uint64_t a_descriptor(const Op&, const Config& c, int stage, int consumer, int kk) {
    return step20::wgmma_descriptor(a_tile_at(c, stage) + unsigned(step20::operand_offset(consumer, kk)),
                                    step20::descriptor_strides());
  }
  static std::uint64_t b_descriptor(const Op&, const Config& c, int stage, int kk) {
    return step20::wgmma_descriptor(b_tile_at(c, stage) + unsigned(step20::operand_offset(0, kk)),
                                    step20::descriptor_strides());
  }
};

struct Step21 {
  using Config = step21::Config;
  using Op = step21::TmaOperand;
  static constexpr int kElementBytes = step21::kElementBytes, kBoxInner = step21::kBoxInner,
                       kWgmmaM = step21::kWgmmaM, kWgmmaK = step21::kWgmmaK, kNarrowCols = step21::kNarrowCols;
  static constexpr const char* kDescriptors =
      "stage 0's descriptor, wgmma_descriptor(operand_offset(consumer, 0), descriptor_strides()), plus "
      "descriptor_offset(stage_bytes, stage, k-step)";
  static Config config(const TraceProblem& p) { return step21::config_from(p.params); }
  static Op a(const TraceProblem& p, const Config& c) { return step21::a_operand(p.shape, c); }
  static Op b(const TraceProblem& p, const Config& c) { return step21::b_operand(p.shape, c); }
  static bool k_major(const Op&) { return true; }
  static int tile_byte(const Op&, int mn, int k) { return step21::tile_byte(mn, k); }
  static int b_boxes(const Op& op, bool narrow) { return step21::b_boxes_copied(op, narrow); }
  static int consumers(const Config& c) { return step21::consumers(c); }
  static int cluster(const Config& c) { return c.cluster; }
  static FirstTile tile(const TraceProblem& p, const Dim3& block, const Config& c) {
    return persistent_first_tile(p, block, c, step21::trace_launch_shape, step21::units, step21::tile_at,
                                 step21::tiles_m, step21::narrow_tile);
  }
  static std::uint64_t a_descriptor(const Op&, const Config& c, int stage, int consumer, int kk) {
    return step21::wgmma_descriptor(a_tile_at(c, 0) + unsigned(step21::operand_offset(consumer, 0)),
                                    step21::descriptor_strides()) +
           step21::descriptor_offset(step21::stage_bytes(c), stage, kk);
  }
  static std::uint64_t b_descriptor(const Op&, const Config& c, int stage, int kk) {
    return step21::wgmma_descriptor(b_tile_at(c, 0), step21::descriptor_strides()) +
           step21::descriptor_offset(step21::stage_bytes(c), stage, kk);
  }
};

struct Step22 {
  using Config = step22::Config;
  using Op = step22::TmaOperand;
  static constexpr int kElementBytes = step22::kElementBytes, kBoxInner = step22::kBoxInner,
                       kWgmmaM = step22::kWgmmaM, kWgmmaK = step22::kWgmmaK, kNarrowCols = step22::kNarrowCols;
  static constexpr const char* kDescriptors = Step21::kDescriptors;
  static Config config(const TraceProblem& p) { return step22::config_from(p.params); }
  static Op a(const TraceProblem& p, const Config& c) { return step22::a_operand(p.shape, c); }
  static Op b(const TraceProblem& p, const Config& c) { return step22::b_operand(p.shape, c); }
  static bool k_major(const Op&) { return true; }
  static int tile_byte(const Op&, int mn, int k) { return step22::tile_byte(mn, k); }
  static int b_boxes(const Op& op, bool narrow) { return step22::b_boxes_copied(op, narrow); }
  static int consumers(const Config& c) { return step22::consumers(c); }
  static int cluster(const Config& c) { return c.cluster; }
  static FirstTile tile(const TraceProblem& p, const Dim3& block, const Config& c) {
    return persistent_first_tile(p, block, c, step22::trace_launch_shape, step22::units, step22::tile_at,
                                 step22::tiles_m, step22::narrow_tile);
  }
  static std::uint64_t a_descriptor(const Op&, const Config& c, int stage, int consumer, int kk) {
    return step22::wgmma_descriptor(a_tile_at(c, 0) + unsigned(step22::operand_offset(consumer, 0)),
                                    step22::descriptor_strides()) +
           step22::descriptor_offset(step22::stage_bytes(c), stage, kk);
  }
  static std::uint64_t b_descriptor(const Op&, const Config& c, int stage, int kk) {
    return step22::wgmma_descriptor(b_tile_at(c, 0), step22::descriptor_strides()) +
           step22::descriptor_offset(step22::stage_bytes(c), stage, kk);
  }
};

// Each program's stage, by step folder (the programs that stage no tiles of A and B in shared
// memory, or whose layout the viewer does not draw yet, have none).
template <typename Program>
void add_shared_stages(std::vector<Program>& programs) {
  for (Program& p : programs) {
    if (p.step == "12_wmma") p.shared_stage = step12_stage;
    else if (p.step == "13_wmma_pipeline") p.shared_stage = step13_stage;
    else if (p.step == "14_mma_ldmatrix") p.shared_stage = step14_stage;
    else if (p.step == "15_tma_wgmma") p.shared_stage = hopper_stage<Step15>;
    else if (p.step == "16_warp_specialized") p.shared_stage = hopper_stage<Step16>;
    else if (p.step == "17_persistent_clusters") p.shared_stage = hopper_stage<Step17>;
    else if (p.step == "18_tma_store_epilogue") p.shared_stage = hopper_stage<Step18>;
    else if (p.step == "19_fp8") p.shared_stage = hopper_stage<Step19>;
    else if (p.step == "20_overlapped_epilogue") p.shared_stage = hopper_stage<Step20>;
    else if (p.step == "21_uniform_datapath") p.shared_stage = hopper_stage<Step21>;
    else if (p.step == "22_tile_width") p.shared_stage = hopper_stage<Step22>;
  }
}

}  // namespace gemm::shared_stages
