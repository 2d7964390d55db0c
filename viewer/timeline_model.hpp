// The timeline of the pipelined and persistent steps, computed without any graphics: how one
// block moves its k-tiles through its shared-memory stages (who fills a stage, who drains it, which
// mbarrier phase each wait names), and how a persistent grid deals its tiles to the blocks, round by
// round. Every number comes from the step's own mapping functions, through the registry's pipeline
// and persistent callbacks (steps/pipeline_schedules.hpp); this file walks the kernels' loops in
// their program order and simulates what their waits guarantee (cp.async groups, mbarrier phases).
//
// A logical schedule, not a measurement: a k-tile's products take one unit of time, a copy lands a
// chosen latency after it is issued (one unit unless asked), a promotion takes a quarter, an
// epilogue one unit, everything else a thread does none. The order and the dependencies are the
// kernels'; the widths are not times.
#pragma once

#include <string>
#include <vector>

#include "viewer_model.hpp"

namespace gemm::viewer {

// ---- One block's pipeline over time ----------------------------------------------------------------

enum class BarKind {
  copying,    // cp.async copies issued, their group not yet waited for
  loaded,     // TMA issued onto the stage's full barrier (its phase completes when the bytes land), not yet read
  reading,    // the k-tile's products are computed from the stage (until the stage is handed back)
  zeros,      // a copy past the last k-tile: zeros no one reads (step 10's loop)
  products,   // the tensor cores (or the threads' FMAs) on a k-tile
  promotion,  // FP8: the interval's sum added into the f32 accumulators
  epilogue,   // the tile's results stored (under the next tile's first products where the step does that)
  waiting,    // threads blocked in a wait (cp.async.wait_group, an mbarrier) until what it names is there
};
const char* to_string(BarKind kind);
Rgba bar_colour(BarKind kind);

enum class MarkKind {
  copy_issued,     // cp.async of a k-tile (every thread), or the producer's TMA boxes (one thread)
  commit,          // cp.async.commit_group
  wait_groups,     // cp.async.wait_group N
  barrier,         // __syncthreads
  wait_full,       // consumers wait on full[s] with a parity
  wait_empty,      // the producer waits on empty[s] with a parity
  release,         // consumer warps arrive on empty[s]
  products_wait,   // wgmma.wait_group N
};
const char* to_string(MarkKind kind);
Rgba mark_colour(MarkKind kind);

// Something that fills a row of the chart between two moments.
struct TimelineBar {
  int row = 0;  // the stages first (row s = stage s), then the roles' rows
  double from = 0, to = 0;
  BarKind kind = BarKind::reading;
  int tile = 0;     // the tile's place in the block's sequence
  int k_tile = -1;  // within that tile (-1: none)
  int j = -1;       // the block's k-tile count: tile * k_tiles + k_tile (Timeline::first_j)
  std::string label, hover;
};
// Something that happens at one moment (a wait, a barrier, an arrival, a copy issued).
struct TimelineMark {
  int row = 0;
  double at = 0;
  int order = 0;  // among the marks of its row at the same moment, in program order
  MarkKind kind = MarkKind::barrier;
  std::string hover;
};
struct TimelineColumn {
  double at = 0;  // when the k-tile's products start
  int tile = 0, k_tile = 0, j = 0;
};

struct Timeline {
  PipelineKind kind = PipelineKind::cp_async_wait_after_compute;
  int stages = 0, k_tiles = 0;
  std::vector<BlockTile> tiles;
  // The block's count j at each tile's first k-tile, and one past the last: tile t's k-tiles are
  // first_j[t] .. first_j[t + 1] - 1 (fewer than k_tiles for a piece of a split unit, step 23).
  std::vector<int> first_j;
  std::vector<std::string> rows;  // "stage 0", ..., then the roles
  std::vector<TimelineBar> bars;
  std::vector<TimelineMark> marks;
  std::vector<TimelineColumn> columns;  // one per k-tile multiplied, in order
  std::vector<double> tile_starts;      // when each tile's first products start
  double end = 0;
  int max_in_flight = 0;  // the most k-tiles in the stages at once (copied and not yet handed back)
  // Each k-tile multiplied (the block's count j), in order; and the stage it was read from.
  std::vector<int> multiplied, read_from_stage;
  // What the walk found inconsistent: a k-tile read before its wait guaranteed it, a stage
  // refilled before it was handed back, a wait that can never return. Empty for every step.
  std::vector<std::string> hazards;
  int role_row(const std::string& name) const;  // -1 if none
};
// The kernel's loop for this kind of pipeline, walked with the step's numbers; a copy lands
// `copy_latency` units (a k-tile's products) after it is issued.
constexpr double kDefaultCopyLatency = 1.0;
Timeline timeline(const PipelineSpec& spec, double copy_latency = kDefaultCopyLatency);

// ---- The persistent grid ---------------------------------------------------------------------------

// A block's tile in one round: the round grid's cell.
struct RoundCell {
  bool taken = false;  // the block's cluster has a unit in this round
  BlockTile tile;
};
// Cells of blocks x rounds, row by row.
std::vector<RoundCell> round_cells(const PersistentPlan& plan);
// A cell's colour: by the tile's column (the blocks of a cluster share it: B's tile, by multicast);
// a narrow tile, a tile below C and an empty place in their own colours.
Rgba round_cell_colour(const RoundCell& cell);
constexpr Rgba kNarrowTile = rgba(250, 150, 60);
constexpr Rgba kOutsideTile = rgba(95, 95, 105);
constexpr Rgba kNoUnit = rgba(40, 40, 46);
// The round in which each tile of C is taken (tiles_m x tiles_n, row by row; -1: none) and the block.
struct TileRound {
  int round = -1, block = -1;
};
std::vector<TileRound> tile_rounds(const PersistentPlan& plan);
Rgba round_colour(int round);
// How many clusters have a unit in the last round.
int last_round_clusters(const PersistentPlan& plan);
// Lines that say what the grid does: units, clusters, rounds, the last round's fill, narrow units.
std::vector<std::string> plan_text(const PersistentPlan& plan);
std::string round_cell_text(const PersistentPlan& plan, int block, const RoundCell& cell);

// The compiled configurations of a persistent step at this shape, as config_for_shape sees them.
struct PlanChoice {
  std::map<std::string, int> params;
  PersistentPlan plan;
  bool chosen = false;  // what the program runs without --param (its choice by shape)
  bool shown = false;   // the configuration on screen
};
std::vector<PlanChoice> plan_choices(const TracedProgram& program, const TraceProblem& problem);
// "BN=176 STAGES=5: 384 units on 64 clusters, 6 rounds, ...", naming the tunables that differ
// between the choices (all of them where there is one).
std::string plan_choice_text(const PlanChoice& choice, const std::vector<PlanChoice>& among);

// ---- What the timeline panel shows, computed once per selection ------------------------------------

struct TimelineView {
  bool pipelined = false;  // the step has a pipeline of stages (else: why_not)
  std::string why_not;
  int block = 0, out_bytes = 4;
  double copy_latency = kDefaultCopyLatency;
  PipelineSpec spec;
  Timeline timeline;
  bool persistent = false;
  PersistentPlan plan;
  std::vector<PlanChoice> choices;
  std::vector<RoundCell> cells;        // round_cells(plan)
  std::vector<TileRound> by_tile;      // tile_rounds(plan)
  std::vector<std::string> plan_lines, choice_lines;  // plan_text(plan); each choice's text, chosen and shown said
  std::vector<std::string> header;     // what the chart shows, a line each
};
// The most k-tiles of a block the timeline walks (a persistent block's first tiles, where it has more).
constexpr int kMostKTiles = 1024;
// `problem` with its run parameters resolved (with_defaults); `block`: the block's linear index
// (clamped to the grid); `out_bytes`: the output element's size (the FP8 steps' epilogue decision).
TimelineView timeline_view(const TracedProgram& program, const TraceProblem& problem, int block, int out_bytes,
                           double copy_latency = kDefaultCopyLatency);
// Which programs have a timeline ("10_cp_async_pipeline ...").
std::string timeline_steps_text(const std::vector<TracedProgram>& programs);

// The columns (k-tiles multiplied) drawn: a window of at most `most` from `first`, clamped; and the
// default first column for a tile of the block (a little before its first k-tile).
int first_column_of_tile(const Timeline& t, int tile);

// What the timeline panel keeps between frames (the App's): its choices, and the view computed for
// them, recomputed only when the selection changes (key).
struct TimelineState {
  TimelineView view;
  std::string key;
  int tile = 0;              // a persistent block's tile the chart starts at (its place in the block's sequence)
  int out_bytes = 2;         // the output the FP8 steps' epilogue is decided for (bf16, their default, or f32)
  float copy_latency = float(kDefaultCopyLatency);
  int first_column = -1;     // the first k-tile column drawn (-1: from the tile's)
};
// The key of a selection: the view is recomputed when it changes.
std::string timeline_key(const TracedProgram& program, const TraceProblem& problem, int block, int out_bytes,
                         double copy_latency);

}  // namespace gemm::viewer
