// What the viewer's timeline draws of a step's pipeline, from the step's own mapping functions: how
// one block moves its k-tiles through its shared-memory stages (the stage each takes, the barrier
// phase each wait names, the k-tile each iteration copies, the cp.async waits' counts) and, for the
// persistent steps, how the grid deals the tiles to the blocks, round by round. Every number below
// is a call to the step's mapping (steps/NN_name/mapping.hpp), the functions its kernel and trace
// call; the order of the kernel's events (which wait precedes which copy) is the viewer's model's
// (viewer/timeline_model.cpp), one walk per kind of pipeline. Host-only (plain C++).
#pragma once

#include <algorithm>
#include <vector>

#include "trace.hpp"

namespace gemm {

// How a block moves k-tiles through its stages (the kernels' loops; viewer/timeline_model.cpp walks each).
enum class PipelineKind {
  // Every thread copies with cp.async, one commit group per k-tile; the loop computes k-tile kt, then
  // waits for k-tile kt + 1, passes a barrier and copies the next k-tile into the stage kt - 1 used
  // (steps 10, 11 and 14).
  cp_async_wait_after_compute,
  // The same copies, but the loop first waits for k-tile kt, passes a barrier, copies the next
  // k-tile, then computes kt (step 13).
  cp_async_wait_before_compute,
  // One warpgroup: one thread asks TMA for a k-tile's boxes, which complete the stage's full
  // mbarrier; every warp waits on it, multiplies (wgmma) and waits for its products; after a barrier
  // the stage is refilled (step 15).
  tma_one_warpgroup,
  // A producer warpgroup (one thread, TMA) and consumer warpgroups hand the stages over through a
  // full and an empty mbarrier per stage (steps 16-22; persistent blocks from step 17 on).
  warp_specialized,
};
const char* to_string(PipelineKind kind);

// A tile of C a block computes, in the order it takes them (one tile where a block has one).
struct BlockTile {
  // The persistent grid's unit of work (-1: one tile per block) and its place in the block's order:
  // the round the block takes it in, or where a block takes two narrow units in one place (step 25)
  // or pieces of units (step 23), the how-manyth tile of the block it is.
  int unit = -1, round = 0;
  int m = -1, n = -1;        // tile row and column (-1: any block, every block alike)
  bool narrow = false;       // a narrow last tile: B's first box only, wgmma n = 64 (narrow_tile)
  bool outside = false;      // below C (a cluster's second tile where the tile rows do not divide): computed, not stored
  // A piece of a unit cut along k (stream-K, step 23): its k-tiles kt_begin .. kt_end - 1 (kt_end -1:
  // a whole unit), and whether this block stores the tile (the traces' sharer: stores_in_trace).
  int kt_begin = 0, kt_end = -1;
  bool stores = true;
};
// The k-tiles a block multiplies for tile t: a piece's, else the whole tile's k_tiles.
inline int k_tiles_of(const BlockTile& t, int k_tiles) { return t.kt_end >= 0 ? t.kt_end - t.kt_begin : k_tiles; }
// The block's k-tiles over `tiles`, each multiplying k_tiles_of.
inline int block_k_tiles(const std::vector<BlockTile>& tiles, int k_tiles) {
  int count = 0;
  for (const BlockTile& t : tiles) count += k_tiles_of(t, k_tiles);
  return count;
}

// One block's pipeline, from the step's functions. j counts the block's k-tiles from its first, over
// all its tiles (tile t's k-tile kt is j = t * k_tiles + kt, or, where pieces of split units have
// fewer, the k-tiles of the tiles before plus kt - kt_begin); the per-j vectors cover every k-tile the
// kernel counts (the cp.async steps: the copies past the last one too; the warp-specialized steps:
// STAGES more, for the producer's last waits).
struct PipelineSpec {
  PipelineKind kind = PipelineKind::cp_async_wait_after_compute;
  int stages = 0;
  int k_tiles = 0;  // per tile
  std::vector<BlockTile> tiles;
  std::vector<int> stage;  // stage_of(j)
  // cp.async: the prologue copies the k-tiles below copied_in[0]; iteration kt copies copied_in[kt]
  // (k_tile_copied_in). The waits leave groups_in_flight groups in flight, the prologue's
  // groups_in_flight_after_prologue (-1: the prologue does not wait). copies_past_end: the loop
  // still copies k-tiles past the last (they read nothing and write zeros).
  std::vector<int> copied_in;
  int groups_in_flight = 0, groups_in_flight_after_prologue = -1;
  bool copies_past_end = false;
  // TMA and mbarriers: the parity the consumers wait on full[stage] for, and the producer on
  // empty[stage] (full_parity, empty_parity); step 15: the k-tile copied after k-tile kt
  // (k_tile_refilled_after), the first STAGES in the prologue.
  std::vector<int> full_parity, empty_parity, refilled_after;
  int stage_bytes = 0;  // what the producer's expect_tx arms full[stage] with (a whole stage)
  int consumers = 0, consumer_warps = 0;  // consumer warpgroups and their warps (the tma_one_warpgroup kind: its warps)
  int cluster = 1, empty_arrivals = 0;    // blocks per cluster; arrivals that complete a phase of empty[stage]
  std::vector<bool> promotion_ends;       // per k-tile of a tile (FP8 steps; empty: no promotion)
  // Each k-tile's sum added while the next k-tile's products run, into a second interval sum (step
  // 24's overlapped_promotion); else after the k-tile's own products, the tensor cores waiting.
  bool promotion_under_next_k_tile = false;
  bool can_store_under_next_tile = false;  // the step stores a tile under the next one's first products where it can
  bool epilogue_under_next_tile = false;    // and does so for this problem and output (stores_under_next_tile)
  int out_bytes = 4;                        // the output that decision is for
};

// How a persistent grid deals its tiles, from the step's functions.
struct PersistentPlan {
  int sms = 0;  // the SMs planned for
  int blocks = 0, cluster = 1, clusters = 0;
  int units = 0, unit_rows = 0, tiles_m = 0, tiles_n = 0, group_m = 0, narrow_units = 0;
  int rounds = 0;             // units dealt to each cluster in turn: ceil(units / clusters); stream-K and places: the most tiles a block takes
  int split_units = 0;        // stream-K: the units cut along k, whose pieces follow the whole units
  int paired_units = 0;       // narrow units dealt two to a place (step 25's places); 0: a unit a place
  int places = 0;             // what the clusters are dealt in turn: units, or whole units and pairs
  int grid_time = 0;          // the step's grid_time (steps without narrow tiles: rounds)
  int time_per_round = 1;     // grid_time of one round of whole units (a narrow unit counts less)
  long long counted_time = -1;  // what config_for_shape compares (counted_time; -1: the step has none)
  std::vector<std::vector<BlockTile>> block_tiles;  // per block, in the order it takes them
};

inline const char* to_string(PipelineKind kind) {
  switch (kind) {
    case PipelineKind::cp_async_wait_after_compute: return "cp.async, wait after compute";
    case PipelineKind::cp_async_wait_before_compute: return "cp.async, wait before compute";
    case PipelineKind::tma_one_warpgroup: return "TMA, one warpgroup";
    case PipelineKind::warp_specialized: return "TMA, producer and consumers";
  }
  return "";
}

// The builders, one per kind. The calls to a step's functions name no namespace: argument-dependent
// lookup finds each in the step's own namespace through its Config (stepNN::Config), so one template
// serves every step that has the function; the registry (traced_steps.hpp) says which to use.
namespace pipelines {

// The per-j vectors of `spec` for j < count: the stages, and the full barriers' parities where the
// step has them (kParities).
template <bool kParities, typename Config>
void stages_and_parities(PipelineSpec& spec, const Config& c, int count) {
  for (int j = 0; j < count; ++j) {
    spec.stage.push_back(stage_of(j, c));
    if constexpr (kParities) spec.full_parity.push_back(full_parity(j, c));
  }
}

// Steps 10, 11, 13, 14: the prologue's wait only where the step has one (kPrologueWait).
template <bool kPrologueWait, typename Config>
PipelineSpec cp_async(PipelineKind kind, const GemmShape& s, const Config& c, bool copies_past_end) {
  PipelineSpec spec;
  spec.kind = kind;
  spec.stages = c.stages;
  spec.k_tiles = k_tiles(s, c);
  spec.tiles = {BlockTile{}};
  for (int kt = 0; kt < spec.k_tiles; ++kt) spec.copied_in.push_back(k_tile_copied_in(kt, c));
  const int copied = spec.k_tiles == 0 ? 0 : k_tile_copied_in(spec.k_tiles - 1, c) + 1;
  stages_and_parities<false>(spec, c, copied > spec.k_tiles ? copied : spec.k_tiles);
  spec.groups_in_flight = groups_in_flight(c);
  if constexpr (kPrologueWait) spec.groups_in_flight_after_prologue = groups_in_flight_after_prologue(c);
  spec.copies_past_end = copies_past_end;
  return spec;
}

// Step 15: the block's one tile.
template <typename Config>
PipelineSpec tma_one_warpgroup(const GemmShape& s, const Config& c, const BlockTile& tile) {
  PipelineSpec spec;
  spec.kind = PipelineKind::tma_one_warpgroup;
  spec.stages = c.stages;
  spec.k_tiles = k_tiles(s, c);
  spec.tiles = {tile};
  stages_and_parities<true>(spec, c, spec.k_tiles);
  for (int kt = 0; kt < spec.k_tiles; ++kt) spec.refilled_after.push_back(k_tile_refilled_after(kt, c));
  spec.stage_bytes = stage_bytes(c);
  spec.consumers = 1;
  spec.consumer_warps = threads(c) / 32;
  return spec;
}

// The warp-specialized steps' barriers, for the block's tiles already in spec.tiles.
template <typename Config>
void warp_specialized_barriers(PipelineSpec& spec, const GemmShape& s, const Config& c) {
  spec.kind = PipelineKind::warp_specialized;
  spec.stages = c.stages;
  spec.k_tiles = k_tiles(s, c);
  // The k-tiles the block multiplies, and STAGES more: the producer's last waits (the persistent
  // steps' clusters) go on with its counters.
  const int count = block_k_tiles(spec.tiles, spec.k_tiles) + c.stages;
  stages_and_parities<true>(spec, c, count);
  for (int j = 0; j < count; ++j) spec.empty_parity.push_back(empty_parity(j, c));
  spec.stage_bytes = stage_bytes(c);
  spec.consumers = consumers(c);
  spec.consumer_warps = empty_arrivals(c) / spec.cluster;
  spec.empty_arrivals = empty_arrivals(c);
}

// Step 16: the block's one tile.
template <typename Config>
PipelineSpec warp_specialized(const GemmShape& s, const Config& c, const BlockTile& tile) {
  PipelineSpec spec;
  spec.tiles = {tile};
  warp_specialized_barriers(spec, s, c);
  return spec;
}

// What the persistent steps have beyond step 17's: flags of a template argument (a step has these
// functions or not).
constexpr int kNarrowTiles = 1;    // narrow_tile, narrow_units, grid_time (from step 18 on)
constexpr int kCountedTime = 2;    // counted_time, which config_for_shape compares (from step 18 on)
constexpr int kPromotion = 4;      // promotion_ends (the FP8 steps)
constexpr int kUnderNextTile = 8;  // stores_under_next_tile (from step 20 on)
constexpr int kStreamK = 16;       // schedule_of, cluster_work: the last round's k-tiles shared out (step 23)
constexpr int kOverlappedPromotion = 32;  // overlapped_promotion: a k-tile promoted under the next one's products (step 24)
constexpr int kNarrowPairs = 64;  // single_units, places, first_unit, next_unit: narrow units dealt in pairs (step 25)

// The persistent steps: the grid, planned for p.sms SMs (else `trace_sms`, as the traces plan it), each
// block's tiles (unit_of, rank_of, tile_at).
template <int kHas, typename Config>
PersistentPlan persistent_plan(const TraceProblem& p, const Config& c, int trace_sms, int narrow_units_per_whole = 1) {
  const GemmShape& s = p.shape;
  PersistentPlan plan;
  plan.sms = p.sms > 0 ? p.sms : trace_sms;
  plan.blocks = trace_launch_shape(p, c).grid.x;
  plan.cluster = c.cluster;
  plan.clusters = plan.blocks / c.cluster;
  plan.units = units(s, c);
  plan.unit_rows = unit_rows(s, c);
  plan.tiles_m = tiles_m(s, c);
  plan.tiles_n = tiles_n(s, c);
  plan.group_m = c.group_m;
  plan.rounds = plan.clusters > 0 ? (plan.units + plan.clusters - 1) / plan.clusters : 0;
  plan.grid_time = plan.rounds;
  if constexpr ((kHas & kNarrowTiles) != 0) {
    plan.narrow_units = narrow_units(s, c);
    plan.grid_time = grid_time(s, c, plan.sms);
    plan.time_per_round = narrow_units_per_whole;
  }
  if constexpr ((kHas & kCountedTime) != 0) plan.counted_time = counted_time(s, c, plan.sms);
  plan.places = plan.units;
  if constexpr ((kHas & kStreamK) != 0) {  // each block's work as the kernel walks it (cluster_work)
    const auto schedule = schedule_of(s, c, plan.sms);
    plan.split_units = schedule.split_units;
    plan.rounds = 0;
    for (int block = 0; block < plan.blocks; ++block) {
      std::vector<BlockTile> taken;
      const int rank = rank_of(block, c), q = cluster_of(block, c);
      for (const auto& work : cluster_work(schedule, q)) {
        const auto at = tile_at(work.unit, rank, s, c);
        BlockTile t{work.unit, work.item, at.m, at.n};
        t.narrow = narrow_tile(at.n, s, c);
        t.outside = at.m >= plan.tiles_m;
        if (work.piece >= 0) t.kt_begin = work.kt_begin, t.kt_end = work.kt_end;
        t.stores = stores_in_trace(schedule, q, work);
        taken.push_back(t);
      }
      plan.rounds = std::max(plan.rounds, int(taken.size()));
      plan.block_tiles.push_back(std::move(taken));
    }
    return plan;
  }
  if constexpr ((kHas & kNarrowPairs) != 0) {  // the walk over places: the units a block takes, in turn
    const int single = single_units(s, c, plan.clusters);
    plan.paired_units = plan.units - single;
    plan.places = places(s, c, plan.clusters);
  }
  // The block's i-th unit, as the kernel's loop takes it.
  auto unit = [&](int block, int i) {
    if constexpr ((kHas & kNarrowPairs) != 0) return unit_of(block, i, plan.clusters, plan.units - plan.paired_units, c);
    else return unit_of(block, i, plan.clusters, c);
  };
  for (int block = 0; block < plan.blocks; ++block) {
    std::vector<BlockTile> taken;
    const int rank = rank_of(block, c);
    for (int round = 0; unit(block, round) < plan.units; ++round) {
      const int u = unit(block, round);
      const auto at = tile_at(u, rank, s, c);
      BlockTile t{u, round, at.m, at.n};
      if constexpr ((kHas & kNarrowTiles) != 0) t.narrow = narrow_tile(at.n, s, c);
      t.outside = at.m >= plan.tiles_m;
      taken.push_back(t);
    }
    plan.rounds = std::max(plan.rounds, int(taken.size()));  // a cluster with a pair takes a tile more than the rounds
    plan.block_tiles.push_back(std::move(taken));
  }
  return plan;
}

// The persistent steps: block `block`'s pipeline over its tiles, for output of `out_bytes` bytes.
template <int kHas, typename Config>
PipelineSpec persistent_pipeline(const TraceProblem& p, const Config& c, int block, int out_bytes, int trace_sms) {
  const PersistentPlan plan = persistent_plan<kHas>(p, c, trace_sms);
  PipelineSpec spec;
  spec.cluster = c.cluster;
  if (block >= 0 && block < plan.blocks) spec.tiles = plan.block_tiles[size_t(block)];
  warp_specialized_barriers(spec, p.shape, c);
  spec.out_bytes = out_bytes;
  if constexpr ((kHas & kPromotion) != 0) {
    for (int kt = 0, in_interval = 0; kt < spec.k_tiles; ++kt) {  // the kernel's count, afresh where an interval ends
      const bool ends = c.promote > 0 && promotion_ends(in_interval, kt, spec.k_tiles, c);
      if (ends) in_interval = 0;
      spec.promotion_ends.push_back(ends);
    }
  }
  if constexpr ((kHas & kOverlappedPromotion) != 0) spec.promotion_under_next_k_tile = overlapped_promotion(c);
  if constexpr ((kHas & kUnderNextTile) != 0) {
    spec.can_store_under_next_tile = true;
    spec.epilogue_under_next_tile = stores_under_next_tile(c, p.shape, p.beta, out_bytes);
  }
  return spec;
}

}  // namespace pipelines
}  // namespace gemm
