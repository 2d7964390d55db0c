// The timeline's model: the kernels' loops walked with the steps' numbers (PipelineSpec), what their
// waits guarantee simulated (cp.async commit groups; mbarrier phases and the parities the waits
// name), and the persistent grid's rounds (PersistentPlan).
#include "timeline_model.hpp"

#include <algorithm>
#include <cmath>
#include <cstdarg>
#include <cstdio>
#include <map>
#include <utility>

namespace gemm::viewer {

namespace {


// Logical durations: a k-tile's products take one unit; a promotion and an epilogue what the
// header says (schematic, not measured).
constexpr double kProducts = 1.0, kPromotion = 0.25, kEpilogue = 1.0;

// The chart being written: bars open on a row until the next event on that row closes them.
struct Chart {
  Timeline& t;
  std::vector<TimelineBar> open;  // per row; kind products and to < from: none open
  std::vector<bool> is_open;
  std::map<std::pair<int, long long>, int> marks_at;
  explicit Chart(Timeline& timeline) : t(timeline), open(timeline.rows.size()), is_open(timeline.rows.size(), false) {}
  void close(int row, double at) {
    if (!is_open[size_t(row)]) return;
    TimelineBar bar = open[size_t(row)];
    bar.to = at;
    if (bar.to - bar.from > 1e-9) t.bars.push_back(bar);
    is_open[size_t(row)] = false;
  }
  TimelineBar& begin(int row, double at, BarKind kind, int tile, int k_tile, int j, std::string label, std::string hover) {
    close(row, at);
    TimelineBar& bar = open[size_t(row)];
    bar = TimelineBar{row, at, at, kind, tile, k_tile, j, std::move(label), std::move(hover)};
    is_open[size_t(row)] = true;
    return bar;
  }
  TimelineBar* current(int row) { return is_open[size_t(row)] ? &open[size_t(row)] : nullptr; }
  void bar(int row, double from, double to, BarKind kind, int tile, int k_tile, int j, std::string label,
           std::string hover) {
    t.bars.push_back({row, from, to, kind, tile, k_tile, j, std::move(label), std::move(hover)});
  }
  void mark(int row, double at, MarkKind kind, std::string hover) {
    const int order = marks_at[{row, std::llround(at * 1e6)}]++;
    t.marks.push_back({row, at, order, kind, std::move(hover)});
  }
  void close_all(double at) {
    for (size_t row = 0; row < open.size(); ++row) close(int(row), at);
  }
};

// The tile of the block's k-tile j, and its k-tile within the tile's unit (a piece's start on).
// Past the last tile (copies past the end, the producer's last waits) the count runs on as if
// every tile were whole.
int tile_of(const Timeline& t, int j) {
  if (t.first_j.size() < 2 || j >= t.first_j.back()) return t.k_tiles > 0 ? j / t.k_tiles : 0;
  return int(std::upper_bound(t.first_j.begin(), t.first_j.end(), j) - t.first_j.begin()) - 1;
}
int k_tile_of(const Timeline& t, int j) {
  if (t.first_j.size() < 2 || j >= t.first_j.back()) return t.k_tiles > 0 ? j % t.k_tiles : j;
  const int tile = tile_of(t, j);
  return t.tiles[size_t(tile)].kt_begin + j - t.first_j[size_t(tile)];
}
// "k-tile 5" or, where the block takes several tiles, "tile 1, k-tile 5".
std::string k_tile_name(const Timeline& t, int j) {
  if (j < 0) return "none";
  const int tile = tile_of(t, j), kt = k_tile_of(t, j);
  if (t.tiles.size() > 1 || (!t.tiles.empty() && t.tiles[0].unit >= 0)) return format("tile %d, k-tile %d", tile, kt);
  return format("k-tile %d", kt);
}
// A bar's label: the k-tile within its tile.
std::string short_name(const Timeline& t, int j) { return format("%d", k_tile_of(t, j)); }

// ---- cp.async pipelines (steps 10, 11, 13, 14) ------------------------------------------------------

void walk_cp_async(const PipelineSpec& s, Timeline& t, double latency) {
  const int stages = s.stages, k_tiles = s.k_tiles, threads = stages;
  const bool after = s.kind == PipelineKind::cp_async_wait_after_compute;
  t.rows.push_back("threads");
  Chart chart(t);
  struct Stage {
    int k_tile = -1;
    double lands_at = 0;
    bool landed = false, visible = false, read = false, free = true;
  };
  std::vector<Stage> stage(static_cast<size_t>(stages));
  std::vector<std::vector<int>> groups;  // the k-tiles of each committed group
  std::vector<int> open_group;
  int completed = 0, in_flight = 0;
  double now = 0;

  auto copy = [&](int x) {
    const int s_of = s.stage[size_t(x)];
    Stage& st = stage[size_t(s_of)];
    if (st.k_tile >= 0 && !st.free)
      t.hazards.push_back(format("k-tile %d is copied into stage %d while k-tile %d may still be read there (no barrier "
                                 "since it was)", x, s_of, st.k_tile));
    st = Stage{x, now + latency, false, false, false, false};
    open_group.push_back(x);
    const bool past_end = x >= k_tiles;
    const std::string group = format("commit group %d", int(groups.size()));
    chart.begin(s_of, now, past_end ? BarKind::zeros : BarKind::copying, 0, x, x, format("%d", x),
                past_end ? format("stage %d <- k-tile %d, past the last k-tile: the loop still issues its copies (cheaper "
                                  "than a branch); they read nothing and write zeros no one reads (%s)",
                                  s_of, x, group.c_str())
                         : format("stage %d <- k-tile %d (stage_of(%d) = %d): cp.async copies issued by every thread, "
                                  "its share of the A and B tiles, in %s; in flight until they land",
                                  s_of, x, x, s_of, group.c_str()));
    chart.mark(threads, now, MarkKind::copy_issued,
               format("every thread issues its cp.async copies of k-tile %d into stage %d%s", x, s_of,
                      past_end ? ": past the last k-tile, zeros" : ""));
    if (!past_end) t.max_in_flight = std::max(t.max_in_flight, ++in_flight);
  };
  auto commit = [&] {
    std::string what;
    for (int x : open_group) what += format("%s%d", what.empty() ? "k-tile " : ", ", x);
    chart.mark(threads, now, MarkKind::commit,
               format("cp.async.commit_group: group %d closes (%s)", int(groups.size()),
                      what.empty() ? "empty: no copy, but the count stays one group per k-tile" : what.c_str()));
    groups.push_back(open_group);
    open_group.clear();
  };
  auto wait = [&](int pending) {
    const int upto = int(groups.size()) - pending;
    double ready = now;
    for (int g = completed; g < upto; ++g)
      for (int x : groups[size_t(g)]) ready = std::max(ready, stage[size_t(s.stage[size_t(x)])].lands_at);
    std::string landed;
    for (int g = completed; g < upto; ++g)
      for (int x : groups[size_t(g)]) {
        Stage& st = stage[size_t(s.stage[size_t(x)])];
        if (st.k_tile != x || x >= k_tiles) continue;
        st.landed = true;
        chart.begin(s.stage[size_t(x)], st.lands_at, BarKind::loaded, 0, x, x, format("%d", x),
                    format("stage %d: k-tile %d has landed; this thread knows it after cp.async.wait_group %d, every "
                           "thread after the barrier that follows; read next", s.stage[size_t(x)], x, pending));
        landed += format("%s%d", landed.empty() ? "" : ", ", x);
      }
    if (ready > now) {
      chart.bar(threads, now, ready, BarKind::waiting, 0, -1, -1, "wait",
                landed.empty() ? format("the threads wait in cp.async.wait_group %d for the copies past the last k-tile "
                                        "to land: no copy may still write shared memory when the block ends", pending)
                               : format("the threads wait in cp.async.wait_group %d for their copies of k-tile %s to land",
                                        pending, landed.c_str()));
      now = ready;
    }
    completed = std::max(completed, upto);
    chart.mark(threads, now, MarkKind::wait_groups,
               format("cp.async.wait_group %d: at most %d of this thread's %d groups still in flight, so groups 0-%d "
                      "are complete%s", pending, pending, int(groups.size()), upto - 1,
                      landed.empty() ? "" : (": k-tile " + landed + " has landed").c_str()));
  };
  auto barrier = [&] {
    for (Stage& st : stage) {
      if (st.landed) st.visible = true;
      if (st.read) st.free = true;
    }
    chart.mark(threads, now, MarkKind::barrier,
               "__syncthreads: every thread's landed copies are visible to all, and every warp is done with the "
               "stages read before it (they may be refilled)");
  };
  auto compute = [&](int kt) {
    const int s_of = s.stage[size_t(kt)];
    Stage& st = stage[size_t(s_of)];
    if (st.k_tile != kt)
      t.hazards.push_back(format("k-tile %d is computed from stage %d, which holds k-tile %d", kt, s_of, st.k_tile));
    else if (!st.landed)
      t.hazards.push_back(format("k-tile %d is read from stage %d before a wait_group completed its copies", kt, s_of));
    else if (!st.visible)
      t.hazards.push_back(format("k-tile %d is read from stage %d before a barrier made every thread's copies visible",
                                 kt, s_of));
    chart.close(s_of, now);
    chart.bar(s_of, now, now + kProducts, BarKind::reading, 0, kt, kt, format("%d", kt),
              format("stage %d: k-tile %d read by every warp (its BK steps of shared loads and multiply-adds); the "
                     "stage may be refilled once every warp has passed a barrier after this", s_of, kt));
    chart.bar(threads, now, now + kProducts, BarKind::products, 0, kt, kt, format("kt %d", kt),
              format("iteration %d: the warps compute k-tile %d from stage %d", kt, kt, s_of));
    t.columns.push_back({now, 0, kt, kt});
    t.multiplied.push_back(kt);
    t.read_from_stage.push_back(s_of);
    now += kProducts;
    st.read = true;
    --in_flight;
  };

  // The prologue: the k-tiles below copied_in[0], a commit group each (empty past the last).
  const int prologue = k_tiles > 0 ? s.copied_in[0] : 0;
  for (int x = 0; x < prologue; ++x) {
    if (x < k_tiles) copy(x);
    commit();
  }
  if (after && s.groups_in_flight_after_prologue >= 0) {
    wait(s.groups_in_flight_after_prologue);
    barrier();
  }
  for (int kt = 0; kt < k_tiles; ++kt) {
    const int x = s.copied_in[size_t(kt)];
    if (after) {
      compute(kt);
      wait(s.groups_in_flight);
      barrier();
      if (x < k_tiles || s.copies_past_end) copy(x);
      commit();
    } else {
      wait(s.groups_in_flight);
      barrier();
      if (x < k_tiles) copy(x);
      commit();
      compute(kt);
    }
  }
  wait(0);  // no copy may still target shared memory when the block ends
  chart.close_all(now);
  t.end = now;
}

// ---- mbarriers (the Hopper steps) --------------------------------------------------------------------

// A phase completes each time the barrier's arrivals (and, for a full barrier, the bytes it was
// armed with) are all in. A wait names a phase by its parity and returns once the barrier's current
// phase has the other parity (try_wait.parity): before the first phase completes, waiting on parity
// 1 returns at once.
struct MBarrier {
  std::vector<double> completed_at;
  std::vector<int> completed_by;  // the k-tile (j) whose fill or release completed each phase
  int phases() const { return int(completed_at.size()); }
  bool passes(int parity) const { return (phases() & 1) != parity; }
  double since() const { return completed_at.empty() ? 0.0 : completed_at.back(); }
  int by() const { return completed_by.empty() ? -1 : completed_by.back(); }
  void complete(double at, int j) {
    completed_at.push_back(at);
    completed_by.push_back(j);
  }
};

struct Op {
  enum Kind { wait_empty, fill, drain_wait, wait_full, multiply, products_wait, release, promote, epilogue, barrier } kind;
  int j = -1;     // the block's k-tile (the epilogue: the tile)
  int count = 0;  // products_wait: groups left in flight; promote: 1 where it runs under the next k-tile's products
};

void walk_mbarriers(const PipelineSpec& s, Timeline& t, double latency) {
  const bool specialized = s.kind == PipelineKind::warp_specialized;
  const int stages = s.stages, k_tiles = s.k_tiles, tiles = int(s.tiles.size()), count = t.first_j.back();
  const int producer_row = stages;
  if (specialized) t.rows.insert(t.rows.end(), {"producer", "consumers", "tensor cores"});
  else t.rows.insert(t.rows.end(), {"warpgroup", "tensor cores"});
  const int consumer_row = specialized ? stages + 1 : stages, tensor_row = consumer_row + 1;
  Chart chart(t);
  std::vector<MBarrier> full(static_cast<size_t>(stages)), empty(static_cast<size_t>(stages));
  struct Stage {
    int k_tile = -1;         // the last k-tile put into it (j)
    int fills = 0, releases = 0;
    bool read = false, free_after_barrier = true;  // step 15
  };
  std::vector<Stage> stage(static_cast<size_t>(stages));
  std::vector<int> last_full_wait_by(static_cast<size_t>(stages), -1);  // whose bytes completed the phase the last wait on full[s] saw
  int last_multiplied_stage = -1;  // step 15: the stage whose products wgmma.wait_group 0 completes
  double producer_time = 0, consumer_time = 0, tensor_free = 0;
  std::vector<double> groups;  // completion times of the consumers' wgmma groups still in flight
  std::vector<int> group_k_tiles;  // and the k-tile (j) of each
  int in_stages = 0;
  const std::string consumers = specialized ? format("the %d consumer warpgroup%s", s.consumers, s.consumers > 1 ? "s" : "")
                                            : std::string("the warpgroup");
  const std::string full_bytes = format("%d KB", s.stage_bytes / 1024);

  // The programs, in the kernels' order.
  std::vector<Op> producer, consumer;
  if (specialized) {
    for (int j = 0; j < count; ++j) producer.push_back({Op::wait_empty, j}), producer.push_back({Op::fill, j});
    if (s.cluster > 1)  // the other blocks' consumers arrive on this block's barriers until their last k-tile
      for (int i = 0; i < stages; ++i) producer.push_back({Op::drain_wait, count + i});
    int pending = -1;  // a tile stored under the next one's first products, not yet stored
    for (int tile = 0; tile < tiles; ++tile) {
      int previous = -1;
      const int first = t.first_j[size_t(tile)], multiplied = t.first_j[size_t(tile) + 1] - first;
      for (int kt = 0; kt < multiplied; ++kt) {  // kt: of the k-tiles this tile multiplies (a piece's from 0)
        const int j = first + kt;
        consumer.push_back({Op::wait_full, j});
        consumer.push_back({Op::multiply, j});
        if (s.epilogue_under_next_tile && kt == 0 && pending >= 0) consumer.push_back({Op::epilogue, pending}), pending = -1;
        if (s.promotion_under_next_k_tile) {
          // Step 24 (multiply_tile_overlapped, promote_previous): with k-tile j's products issued, the
          // wait for the k-tile before (one group left in flight), its stage handed back, its sum added.
          if (previous >= 0) {
            consumer.push_back({Op::products_wait, -1, 1});
            consumer.push_back({Op::release, previous});
            consumer.push_back({Op::promote, previous, 1});
          }
          previous = j;
          continue;
        }
        // The kernel's promotion_ends with the piece's count: a piece's last k-tile ends an interval
        // as a whole tile's last does.
        const bool ends = !s.promotion_ends.empty() &&
                          (s.promotion_ends[size_t(kt)] ||
                           (kt == multiplied - 1 && s.promotion_ends[size_t(s.k_tiles - 1)]));
        if (ends) {
          consumer.push_back({Op::products_wait, -1, 0});
          if (previous >= 0) consumer.push_back({Op::release, previous});
          consumer.push_back({Op::release, j});
          consumer.push_back({Op::promote, j});
          previous = -1;
        } else {
          consumer.push_back({Op::products_wait, -1, 1});
          if (previous >= 0) consumer.push_back({Op::release, previous});
          previous = j;
        }
      }
      consumer.push_back({Op::products_wait, -1, 0});
      if (s.promotion_under_next_k_tile && previous >= 0) consumer.push_back({Op::promote, previous});  // the last k-tile's
      if (previous >= 0) consumer.push_back({Op::release, previous});
      if (s.tiles[size_t(tile)].outside) continue;  // below C: nothing to store
      if (s.epilogue_under_next_tile) pending = tile;
      else consumer.push_back({Op::epilogue, tile});
    }
    if (pending >= 0) consumer.push_back({Op::epilogue, pending});
  } else {
    // Step 15: one thread asks for the first STAGES k-tiles; then per k-tile: wait, multiply, wait for
    // the products, a barrier, and the stage refilled.
    for (int kt = 0; kt < std::min(stages, k_tiles); ++kt) consumer.push_back({Op::fill, kt});
    for (int kt = 0; kt < k_tiles; ++kt) {
      consumer.push_back({Op::wait_full, kt});
      consumer.push_back({Op::multiply, kt});
      consumer.push_back({Op::products_wait, -1, 0});
      consumer.push_back({Op::barrier, kt});
      if (s.refilled_after[size_t(kt)] < k_tiles) consumer.push_back({Op::fill, s.refilled_after[size_t(kt)]});
    }
  }

  auto fill = [&](int j, double& now, int row) {
    const int st = s.stage[size_t(j)];
    Stage& g = stage[size_t(st)];
    if (specialized && g.releases < g.fills)
      t.hazards.push_back(format("%s is put into stage %d before the consumers handed %s back", k_tile_name(t, j).c_str(),
                                 st, k_tile_name(t, g.k_tile).c_str()));
    if (!specialized && g.k_tile >= 0 && !(g.read && g.free_after_barrier))
      t.hazards.push_back(format("%s is put into stage %d while %s may still be read there", k_tile_name(t, j).c_str(), st,
                                 k_tile_name(t, g.k_tile).c_str()));
    g.k_tile = j;
    ++g.fills;
    g.read = false, g.free_after_barrier = false;
    t.max_in_flight = std::max(t.max_in_flight, ++in_stages);
    const int phase = full[size_t(st)].phases();
    const std::string who = specialized ? "the producer (one thread)" : "thread 0";
    chart.begin(st, now, BarKind::copying, tile_of(t, j), k_tile_of(t, j), j,
                short_name(t, j) + format(" p%d", s.full_parity[size_t(j)]),  // and the parity its waits name
                format("%s -> stage %d (stage_of(%d) = %d): %s armed full[%d] with the stage's %s (expect_tx) and "
                       "issued its TMA boxes; their bytes complete phase %d of full[%d] (parity %d) when they land. %s "
                       "wait on full[%d] for parity %d (full_parity(%d))",
                       k_tile_name(t, j).c_str(), st, j, st, who.c_str(), st, full_bytes.c_str(), phase, st, phase % 2,
                       specialized ? "The consumer warpgroups" : "The warps", st, s.full_parity[size_t(j)], j));
    chart.mark(row, now, MarkKind::copy_issued,
               format("%s: mbarrier.arrive.expect_tx on full[%d] (%s), TMA boxes of %s into stage %d%s", who.c_str(), st,
                      full_bytes.c_str(), k_tile_name(t, j).c_str(), st,
                      s.cluster > 1 ? " (B's boxes shared out by rank, multicast into both blocks of the cluster)" : ""));
    full[size_t(st)].complete(now + latency, j);  // the bytes land `latency` after they are asked for
  };
  auto release = [&](int j) {
    const int st = s.stage[size_t(j)];
    Stage& g = stage[size_t(st)];
    if (g.k_tile != j)
      t.hazards.push_back(format("%s is handed back from stage %d, which holds %s", k_tile_name(t, j).c_str(), st,
                                 k_tile_name(t, g.k_tile).c_str()));
    if (std::find(group_k_tiles.begin(), group_k_tiles.end(), j) != group_k_tiles.end())
      t.hazards.push_back(format("%s's stage %d is handed back while its wgmma may still read it (no wgmma.wait_group "
                                 "has completed its group)", k_tile_name(t, j).c_str(), st));
    ++g.releases;
    --in_stages;
    const int phase = empty[size_t(st)].phases();
    empty[size_t(st)].complete(consumer_time, j);
    if (TimelineBar* bar = chart.current(st))
      bar->hover += format("; handed back: each consumer warp arrives on empty[%d] (%d arrivals%s complete its phase %d)",
                           st, s.empty_arrivals,
                           s.cluster > 1 ? format(": %d from this block's warps and as many from the other block's of "
                                                  "the cluster", s.consumer_warps).c_str() : "", phase);
    chart.close(st, consumer_time);
    chart.mark(consumer_row, consumer_time, MarkKind::release,
               format("%s hand stage %d back (%s): each consumer warp arrives on empty[%d]%s; phase %d of empty[%d] "
                      "completes with its %d arrivals", consumers.c_str(), st, k_tile_name(t, j).c_str(), st,
                      s.cluster > 1 ? " here and on the other block's empty barrier (each read what both producers wrote)" : "",
                      phase, st, s.empty_arrivals));
  };
  auto run_producer = [&](const Op& op) {
    const int st = s.stage[size_t(op.j)];
    if (op.kind == Op::fill) {
      fill(op.j, producer_time, producer_row);
      return true;
    }
    // wait_empty, drain_wait
    const int parity = s.empty_parity[size_t(op.j)];
    MBarrier& b = empty[size_t(st)];
    if (!b.passes(parity)) return false;
    if (b.since() > producer_time)
      chart.bar(producer_row, producer_time, b.since(), BarKind::waiting, tile_of(t, op.j), k_tile_of(t, op.j), op.j, "wait",
                format("the producer waits on empty[%d] for parity %d: stage %d is still read", st, parity, st));
    producer_time = std::max(producer_time, b.since());
    chart.mark(producer_row, producer_time, MarkKind::wait_empty,
               format("producer: waits on empty[%d] for parity %d (empty_parity(%d))%s%s", st, parity, op.j,
                      b.phases() == 0 ? ": no phase has completed yet, and waiting on parity 1 returns at once (the first "
                                        "pass over the stages finds them empty)"
                                      : format(": phase %d has completed (%s handed back)", b.phases() - 1,
                                               k_tile_name(t, b.by()).c_str()).c_str(),
                      op.kind == Op::drain_wait ? "; after its last tile, so that the other block's consumers have "
                                                  "arrived here before the block ends" : ""));
    return true;
  };
  auto run_consumer = [&](const Op& op) {
    switch (op.kind) {
      case Op::fill:
        fill(op.j, consumer_time, consumer_row);
        return true;
      case Op::wait_full: {
        const int st = s.stage[size_t(op.j)], parity = s.full_parity[size_t(op.j)];
        MBarrier& b = full[size_t(st)];
        if (!b.passes(parity)) return false;
        if (b.since() > consumer_time)
          chart.bar(consumer_row, consumer_time, b.since(), BarKind::waiting, tile_of(t, op.j), k_tile_of(t, op.j), op.j,
                    "wait", format("%s wait on full[%d] for parity %d: the bytes of %s have not landed", consumers.c_str(),
                                   st, parity, k_tile_name(t, op.j).c_str()));
        consumer_time = std::max(consumer_time, b.since());
        last_full_wait_by[size_t(st)] = b.by();
        if (stage[size_t(st)].k_tile == b.by() && b.by() >= 0)
          chart.begin(st, b.since(), BarKind::loaded, tile_of(t, b.by()), k_tile_of(t, b.by()), b.by(), short_name(t, b.by()),
                      format("stage %d: %s has landed (phase %d of full[%d] complete); the consumers' wait for parity %d "
                             "returns", st, k_tile_name(t, b.by()).c_str(), b.phases() - 1, st, parity));
        chart.mark(consumer_row, consumer_time, MarkKind::wait_full,
                   format("%s wait on full[%d] for parity %d (full_parity(%d)): phase %d completed with the bytes of %s",
                          consumers.c_str(), st, parity, op.j, b.phases() - 1, k_tile_name(t, b.by()).c_str()));
        return true;
      }
      case Op::multiply: {
        const int st = s.stage[size_t(op.j)];
        if (stage[size_t(st)].k_tile != op.j || last_full_wait_by[size_t(st)] != op.j)
          t.hazards.push_back(format("%s is multiplied from stage %d, but the consumers' wait on full[%d] returned for %s",
                                     k_tile_name(t, op.j).c_str(), st, st, k_tile_name(t, last_full_wait_by[size_t(st)]).c_str()));
        const double issue = std::max(consumer_time, tensor_free);
        tensor_free = issue + kProducts;
        groups.push_back(tensor_free);
        group_k_tiles.push_back(op.j);
        consumer_time = issue;
        const int tile = tile_of(t, op.j), kt = k_tile_of(t, op.j);
        chart.begin(st, issue, BarKind::reading, tile, kt, op.j, short_name(t, op.j),
                    format("stage %d: %s read by %s' wgmma (issued, then run by the tensor cores)", st,
                           k_tile_name(t, op.j).c_str(), consumers.c_str()));
        const BlockTile& bt = s.tiles[size_t(tile)];
        chart.bar(tensor_row, issue, issue + kProducts, BarKind::products, tile, kt, op.j, short_name(t, op.j),
                  format("the products of %s (tile (%d, %d)%s)", k_tile_name(t, op.j).c_str(), bt.m, bt.n,
                         bt.narrow ? ", narrow: wgmma n = 64" : bt.outside ? ", below C: computed, not stored" : ""));
        if (op.j == t.first_j[size_t(tile)]) t.tile_starts.push_back(issue);
        t.columns.push_back({issue, tile, kt, op.j});
        t.multiplied.push_back(op.j);
        t.read_from_stage.push_back(st);
        last_multiplied_stage = st;
        return true;
      }
      case Op::products_wait: {
        const size_t done = groups.size() > size_t(op.count) ? groups.size() - size_t(op.count) : 0;
        for (size_t i = 0; i < done; ++i) consumer_time = std::max(consumer_time, groups[i]);
        groups.erase(groups.begin(), groups.begin() + long(done));
        group_k_tiles.erase(group_k_tiles.begin(), group_k_tiles.begin() + long(done));
        chart.mark(consumer_row, consumer_time, MarkKind::products_wait,
                   op.count == 0 ? std::string("wgmma.wait_group 0: every product issued is done")
                                 : format("wgmma.wait_group %d: the newest k-tile's products may still run, the one "
                                          "before is done (its stage can be handed back)", op.count));
        if (!specialized && op.count == 0 && last_multiplied_stage >= 0) stage[size_t(last_multiplied_stage)].read = true;
        return true;
      }
      case Op::barrier:
        for (Stage& g : stage)
          if (g.read) g.free_after_barrier = true;
        if (TimelineBar* bar = chart.current(s.stage[size_t(op.j)])) bar->hover += "; every warp is past the barrier after its products";
        chart.close(s.stage[size_t(op.j)], consumer_time);
        --in_stages;
        chart.mark(consumer_row, consumer_time, MarkKind::barrier,
                   "__syncthreads: every warp's products of the stage are done; thread 0 may refill it");
        return true;
      case Op::release:
        release(op.j);
        return true;
      case Op::promote:
        chart.bar(consumer_row, consumer_time, consumer_time + kPromotion, BarKind::promotion, tile_of(t, op.j),
                  k_tile_of(t, op.j), op.j, "+",
                  op.count == 1
                      ? format("promotion of %s under the next k-tile's products (overlapped_promotion): its interval "
                               "sum added into the f32 accumulators while the tensor cores fill the other sum",
                               k_tile_name(t, op.j).c_str())
                      : format("promotion after %s (promotion_ends): the tensor cores' interval sum added into the f32 "
                               "accumulators; the next wgmma waits for it", k_tile_name(t, op.j).c_str()));
        consumer_time += kPromotion;
        return true;
      case Op::epilogue: {
        const BlockTile& bt = s.tiles[size_t(op.j)];
        const bool under = s.epilogue_under_next_tile && consumer_time < tensor_free;
        chart.bar(consumer_row, consumer_time, consumer_time + kEpilogue, BarKind::epilogue, op.j, -1, -1,
                  format("C %d", op.j),
                  format("the epilogue of tile %d (%d, %d): the consumers store its results%s", op.j, bt.m, bt.n,
                         under ? ", under the next tile's first products (stores_under_next_tile)"
                               : s.epilogue_under_next_tile ? ", after the block's last tile"
                                                            : ": the tensor cores wait (the step stores after the tile)"));
        consumer_time += kEpilogue;
        return true;
      }
      default:
        return false;
    }
  };

  size_t pc_producer = 0, pc_consumer = 0;
  while (pc_producer < producer.size() || pc_consumer < consumer.size()) {
    bool progressed = false;
    while (pc_producer < producer.size() && run_producer(producer[pc_producer])) ++pc_producer, progressed = true;
    while (pc_consumer < consumer.size() && run_consumer(consumer[pc_consumer])) ++pc_consumer, progressed = true;
    if (!progressed) {
      auto blocked = [&](const std::vector<Op>& ops, size_t pc, const char* who_waits) {
        if (pc >= ops.size()) return std::string();
        const Op& op = ops[pc];
        const bool on_full = op.kind == Op::wait_full;
        const int st = s.stage[size_t(op.j)];
        const int parity = on_full ? s.full_parity[size_t(op.j)] : s.empty_parity[size_t(op.j)];
        return format("%s forever on %s[%d] for parity %d (%s); ", who_waits, on_full ? "full" : "empty", st, parity,
                      k_tile_name(t, op.j).c_str());
      };
      t.hazards.push_back("deadlock: " + blocked(producer, pc_producer, "the producer waits") +
                          blocked(consumer, pc_consumer, specialized ? "the consumers wait" : "the warpgroup waits"));
      break;
    }
  }
  t.end = std::max({producer_time, consumer_time, tensor_free});
  chart.close_all(t.end);
}

}  // namespace

const char* to_string(BarKind kind) {
  switch (kind) {
    case BarKind::copying: return "copying";
    case BarKind::loaded: return "loaded";
    case BarKind::reading: return "reading";
    case BarKind::zeros: return "zeros";
    case BarKind::products: return "products";
    case BarKind::promotion: return "promotion";
    case BarKind::epilogue: return "epilogue";
    case BarKind::waiting: return "waiting";
  }
  return "";
}

Rgba bar_colour(BarKind kind) {
  switch (kind) {
    case BarKind::copying: return rgba(110, 170, 225);
    case BarKind::loaded: return rgba(170, 210, 240);
    case BarKind::reading: return rgba(120, 200, 120);
    case BarKind::zeros: return rgba(150, 150, 150);
    case BarKind::products: return rgba(70, 150, 80);
    case BarKind::promotion: return rgba(245, 170, 90);
    case BarKind::epilogue: return rgba(190, 140, 220);
    case BarKind::waiting: return rgba(215, 120, 120);
  }
  return kUntouched;
}

const char* to_string(MarkKind kind) {
  switch (kind) {
    case MarkKind::copy_issued: return "copies issued";
    case MarkKind::commit: return "commit group";
    case MarkKind::wait_groups: return "cp.async.wait_group";
    case MarkKind::barrier: return "__syncthreads";
    case MarkKind::wait_full: return "wait on full";
    case MarkKind::wait_empty: return "wait on empty";
    case MarkKind::release: return "arrive on empty";
    case MarkKind::products_wait: return "wgmma.wait_group";
  }
  return "";
}

Rgba mark_colour(MarkKind kind) {
  switch (kind) {
    case MarkKind::copy_issued: return rgba(40, 110, 200);
    case MarkKind::commit: return rgba(120, 120, 130);
    case MarkKind::wait_groups: return rgba(200, 50, 50);
    case MarkKind::barrier: return rgba(120, 60, 160);
    case MarkKind::wait_full: return rgba(30, 90, 200);
    case MarkKind::wait_empty: return rgba(210, 110, 0);
    case MarkKind::release: return rgba(210, 110, 0);
    case MarkKind::products_wait: return rgba(40, 140, 60);
  }
  return kUntouched;
}

int Timeline::role_row(const std::string& name) const {
  for (size_t i = 0; i < rows.size(); ++i)
    if (rows[i] == name) return int(i);
  return -1;
}

namespace {
// Whether the spec has a stage (and, for the mbarrier kinds, parities) for every k-tile the walk
// touches; else the reason, as a hazard (a registry entry that gives too few).
std::string incomplete(const PipelineSpec& s) {
  const bool cp_async = s.kind == PipelineKind::cp_async_wait_after_compute ||
                        s.kind == PipelineKind::cp_async_wait_before_compute;
  int needed = block_k_tiles(s.tiles, s.k_tiles);
  if (cp_async) {
    if (int(s.copied_in.size()) < s.k_tiles) return "the spec lacks the k-tile each iteration copies";
    for (int x : s.copied_in) needed = std::max(needed, x + 1);
  } else if (s.kind == PipelineKind::warp_specialized) {
    needed += s.cluster > 1 ? s.stages : 0;
  } else if (int(s.refilled_after.size()) < s.k_tiles) {
    return "the spec lacks the k-tile copied after each";
  }
  if (int(s.stage.size()) < needed) return format("the spec has no stage for k-tile %d", int(s.stage.size()));
  for (int stage : s.stage)
    if (stage < 0 || stage >= s.stages) return format("the spec puts a k-tile in stage %d of %d", stage, s.stages);
  if (!cp_async && int(s.full_parity.size()) < needed) return "the spec lacks full barrier parities";
  if (s.kind == PipelineKind::warp_specialized && int(s.empty_parity.size()) < needed)
    return "the spec lacks empty barrier parities";
  return "";
}
}  // namespace

Timeline timeline(const PipelineSpec& spec, double copy_latency) {
  Timeline t;
  t.kind = spec.kind;
  t.stages = spec.stages;
  t.k_tiles = spec.k_tiles;
  t.tiles = spec.tiles;
  t.first_j = {0};
  for (const BlockTile& tile : spec.tiles) t.first_j.push_back(t.first_j.back() + k_tiles_of(tile, spec.k_tiles));
  for (int s = 0; s < spec.stages; ++s) t.rows.push_back(format("stage %d", s));
  if (spec.stages <= 0 || spec.k_tiles <= 0 || spec.tiles.empty()) return t;
  if (const std::string why = incomplete(spec); !why.empty()) {
    t.hazards.push_back(why);
    return t;
  }
  if (spec.kind == PipelineKind::cp_async_wait_after_compute || spec.kind == PipelineKind::cp_async_wait_before_compute)
    walk_cp_async(spec, t, copy_latency);
  else
    walk_mbarriers(spec, t, copy_latency);
  return t;
}

// ---- The persistent grid ---------------------------------------------------------------------------

std::vector<RoundCell> round_cells(const PersistentPlan& plan) {
  std::vector<RoundCell> cells(size_t(plan.blocks) * size_t(std::max(plan.rounds, 0)));
  for (int block = 0; block < plan.blocks; ++block)
    for (const BlockTile& tile : plan.block_tiles[size_t(block)])
      if (tile.round >= 0 && tile.round < plan.rounds) cells[size_t(block) * size_t(plan.rounds) + size_t(tile.round)] = {true, tile};
  return cells;
}

Rgba round_cell_colour(const RoundCell& cell) {
  if (!cell.taken) return kNoUnit;
  if (cell.tile.outside) return kOutsideTile;
  if (cell.tile.narrow) return kNarrowTile;
  return index_colour(std::uint32_t(cell.tile.n));
}

std::vector<TileRound> tile_rounds(const PersistentPlan& plan) {
  std::vector<TileRound> out(size_t(plan.tiles_m) * size_t(plan.tiles_n));
  for (int block = 0; block < plan.blocks; ++block)
    for (const BlockTile& tile : plan.block_tiles[size_t(block)])
      if (!tile.outside && tile.stores && tile.m >= 0 && tile.m < plan.tiles_m && tile.n >= 0 && tile.n < plan.tiles_n)
        out[size_t(tile.m) * size_t(plan.tiles_n) + size_t(tile.n)] = {tile.round, block};
  return out;
}

Rgba round_colour(int round) {
  static const Rgba kRounds[] = {rgba(120, 180, 230), rgba(250, 170, 100), rgba(130, 200, 130), rgba(190, 170, 225),
                                 rgba(240, 200, 90),  rgba(230, 130, 150), rgba(110, 200, 200), rgba(200, 200, 200)};
  return round < 0 ? kNoUnit : kRounds[round % 8];
}

// The rounds of what the clusters are dealt in turn: units, or places (step 25: a whole unit or two
// narrow ones).
namespace {
int place_rounds(const PersistentPlan& p) { return p.clusters > 0 ? (p.places + p.clusters - 1) / p.clusters : 0; }
}  // namespace

int last_round_clusters(const PersistentPlan& plan) {
  if (plan.clusters <= 0 || plan.units <= 0) return 0;
  const int rest = plan.places % plan.clusters;  // places: units, or whole units and pairs of narrow ones (step 25)
  return rest == 0 ? plan.clusters : rest;
}

std::vector<std::string> plan_text(const PersistentPlan& plan) {
  std::vector<std::string> lines;
  const bool pairs = plan.cluster > 1;
  lines.push_back(format("C in %d x %d tiles: %d units of work%s", plan.tiles_m, plan.tiles_n, plan.units,
                         pairs ? format(" (a column of %d tiles each, one per block of a cluster)", plan.cluster).c_str()
                               : " (a tile each)"));
  lines.push_back(format("planned for %d SMs: %d cluster%s of %d, %d blocks%s", plan.sms, plan.clusters,
                         plan.clusters == 1 ? "" : "s", plan.cluster, plan.blocks,
                         plan.blocks < plan.sms ? format(" (%d SMs idle from the start: the fewest clusters that take "
                                                         "as many rounds)", plan.sms - plan.blocks).c_str() : ""));
  const int last = last_round_clusters(plan);
  if (plan.paired_units > 0) {
    const int rounds = place_rounds(plan);
    lines.push_back(format("%d places in %d round%s (persistent_clusters: cluster q takes places q, q + %d, ...; a place is a "
                           "whole unit or two narrow ones, taken one after the other); the last round: %d of %d clusters "
                           "busy%s", plan.places, rounds, rounds == 1 ? "" : "s", plan.clusters, last,
                           plan.clusters, last < plan.clusters ? " (a partial round)" : " (full)"));
  } else {
    lines.push_back(format("%d round%s (persistent_clusters: cluster q takes units q, q + %d, ...); the last round: %d of %d "
                           "clusters busy%s", plan.rounds, plan.rounds == 1 ? "" : "s", plan.clusters, last, plan.clusters,
                           last < plan.clusters ? " (a partial round)" : " (full)"));
  }
  if (plan.narrow_units > 0) {
    const double rounds = double(plan.grid_time) / plan.time_per_round;
    lines.push_back(format("%d narrow unit%s (the last tile column, 64 columns or fewer inside C), dealt last%s and counted "
                           "as 1/%d of a whole one: grid_time %d = %.4g rounds", plan.narrow_units,
                           plan.narrow_units == 1 ? "" : "s", plan.paired_units > 0 ? " in pairs" : "",
                           plan.time_per_round, plan.grid_time, rounds));
  }
  lines.push_back(format("tile order (tile_at): GROUP_M = %d tile rows walked together, down a group's rows first, then "
                         "across its columns", plan.group_m));
  if (plan.split_units > 0)
    lines.push_back(format("stream-K (schedule_of): the last %d units are cut along k, their k-tiles shared out in equal "
                           "runs over all %d clusters after the whole rounds; a run is a piece of one or two units, and "
                           "the last of a unit's sharers to finish adds the partial sums up and stores the tile",
                           plan.split_units, plan.clusters));
  return lines;
}

std::string round_cell_text(const PersistentPlan& plan, int block, const RoundCell& cell) {
  const int cluster = plan.cluster > 0 ? block / plan.cluster : block, rank = plan.cluster > 0 ? block % plan.cluster : 0;
  std::string who = format("block %d (cluster %d, rank %d)", block, cluster, rank);
  if (!cell.taken) return who + ": nothing in this round (its cluster's units are used up)";
  const BlockTile& t = cell.tile;
  std::string out = format("%s, round %d: unit %d -> tile (%d, %d)", who.c_str(), t.round, t.unit, t.m, t.n);
  if (t.kt_end >= 0)
    out += format(": its k-tiles %d .. %d, a partial sum%s", t.kt_begin, t.kt_end - 1,
                  t.stores ? " (this cluster, the first sharer, adds the partials up and stores the tile, as drawn)"
                           : " (written to the workspace; another sharer stores the tile)");
  if (t.outside) out += ": below C, computed (its block copies its share of B for the other) and not stored";
  else if (t.narrow) out += ": narrow (B's first box only, wgmma n = 64)";
  if (plan.cluster > 1) out += format("; B's tile column %d shared with the other block of the cluster by TMA multicast", t.n);
  return out;
}

std::vector<PlanChoice> plan_choices(const TracedProgram& program, const TraceProblem& problem) {
  std::vector<PlanChoice> out;
  if (!program.persistent) return out;
  std::map<std::string, int> chosen;
  if (program.params_for_shape && problem.sms > 0) {
    TraceProblem unset = problem;
    unset.params.clear();
    chosen = run_params(program, unset);
  }
  for (const auto& config : program.configs) {
    TraceProblem p = problem;
    p.params = config;
    PlanChoice c;
    c.params = config;
    c.plan = program.persistent(p);
    c.chosen = !chosen.empty() && chosen == config;
    c.shown = config == problem.params;
    out.push_back(std::move(c));
  }
  return out;
}

std::string plan_choice_text(const PlanChoice& choice, const std::vector<PlanChoice>& among) {
  std::map<std::string, int> differing;
  for (const auto& [key, value] : choice.params)
    for (const PlanChoice& other : among)
      if (among.size() < 2 || other.params.count(key) == 0 || other.params.at(key) != value) differing[key] = value;
  std::string tunables = params_text(differing);
  if (!tunables.empty()) tunables.pop_back();  // params_text ends each with a space
  const PersistentPlan& p = choice.plan;
  std::string out;
  if (p.paired_units > 0) {  // step 25: places (a unit, or two narrow ones) dealt in turn
    const int rounds = place_rounds(p);
    out = format("%s: %d units, %d places on %d clusters, %d round%s", tunables.c_str(), p.units, p.places, p.clusters,
                 rounds, rounds == 1 ? "" : "s");
  } else {
    out = format("%s: %d units on %d clusters, %d round%s", tunables.c_str(), p.units, p.clusters, p.rounds,
                 p.rounds == 1 ? "" : "s");
  }
  if (p.time_per_round > 1) out += format(", grid_time %d (%.4g rounds)", p.grid_time, double(p.grid_time) / p.time_per_round);
  if (p.counted_time >= 0) out += format(", counted_time %lld", p.counted_time);
  return out;
}

// ---- The view ------------------------------------------------------------------------------------

std::string timeline_steps_text(const std::vector<TracedProgram>& programs) {
  std::string out;
  for (const TracedProgram& p : programs)
    if (p.pipeline) out += (out.empty() ? "" : ", ") + p.step.substr(0, 2);
  return out;
}

TimelineView timeline_view(const TracedProgram& program, const TraceProblem& problem, int block, int out_bytes,
                           double copy_latency) {
  TimelineView v;
  v.out_bytes = out_bytes;
  v.copy_latency = copy_latency;
  if (!program.pipeline) {
    v.why_not = program.step + " moves no k-tiles through a pipeline of shared-memory stages: the timeline draws the "
                "pipelined and persistent steps (" + timeline_steps_text(traced_programs()) + ").";
    return v;
  }
  v.pipelined = true;
  Dim3 at{0, 0, 0};
  if (program.persistent) {
    v.persistent = true;
    v.plan = program.persistent(problem);
    v.choices = plan_choices(program, problem);
    v.cells = round_cells(v.plan);
    v.by_tile = tile_rounds(v.plan);
    v.plan_lines = plan_text(v.plan);
    for (const PlanChoice& choice : v.choices)
      v.choice_lines.push_back(plan_choice_text(choice, v.choices) + (choice.chosen ? "  <- chosen by shape" : "") +
                               (choice.shown ? "  (shown)" : ""));
    v.block = std::clamp(block, 0, std::max(v.plan.blocks - 1, 0));
    at = {v.block, 0, 0};
  } else {
    const LaunchShape launch = program.launch(problem);
    const int blocks = std::max(launch.grid.x * launch.grid.y, 1);
    v.block = std::clamp(block, 0, blocks - 1);
    at = {v.block % std::max(launch.grid.x, 1), v.block / std::max(launch.grid.x, 1), 0};
  }
  v.spec = program.pipeline(problem, at, out_bytes);
  // A persistent block may take thousands of tiles (a large shape on few SMs): the walk covers its
  // first tiles, up to kMostKTiles k-tiles (the counters run on from tile to tile either way).
  const size_t all_tiles = v.spec.tiles.size();
  if (v.spec.k_tiles > 0 && all_tiles * size_t(v.spec.k_tiles) > size_t(kMostKTiles))
    v.spec.tiles.resize(std::max<size_t>(1, size_t(kMostKTiles / v.spec.k_tiles)));  // (a piece counted whole)
  v.timeline = timeline(v.spec, copy_latency);
  const PipelineSpec& s = v.spec;
  v.header.push_back(format("%s: %s, %d stages, %d k-tile%s a tile", program.step.c_str(), to_string(s.kind), s.stages,
                            s.k_tiles, s.k_tiles == 1 ? "" : "s"));
  if (v.persistent)
    v.header.push_back(format("block %d of %d takes %d tile%s%s", v.block, v.plan.blocks, int(all_tiles),
                              all_tiles == 1 ? "" : "s",
                              all_tiles > s.tiles.size() ? format(" (the first %d drawn)", int(s.tiles.size())).c_str() : ""));
  else if (!s.tiles.empty() && s.tiles[0].m >= 0)
    v.header.push_back(format("block %d: tile (%d, %d); every block's pipeline is the same", v.block, s.tiles[0].m, s.tiles[0].n));
  else
    v.header.push_back("every block's pipeline is the same");
  if (s.kind == PipelineKind::warp_specialized) {
    std::string line = format("a producer warpgroup (one thread issues TMA) and %d consumer warpgroup%s; full[s] and "
                              "empty[s] per stage, empty[s] completing a phase with %d arrivals", s.consumers,
                              s.consumers == 1 ? "" : "s", s.empty_arrivals);
    if (s.cluster > 1) line += format(" (the consumer warps of both blocks of a cluster of %d)", s.cluster);
    v.header.push_back(line);
  }
  if (!s.promotion_ends.empty()) {
    int intervals = 0;
    for (bool end : s.promotion_ends) intervals += end;
    if (s.promotion_under_next_k_tile)
      v.header.push_back(format("promotion: %d interval%s a tile, each k-tile's sum added in f32 under the next k-tile's "
                                "products, into two interval sums in turn (overlapped_promotion; wgmma.wait_group 1)",
                                intervals, intervals == 1 ? "" : "s"));
    else
      v.header.push_back(format("promotion: %d interval%s a tile (promotion_ends), each closed by wgmma.wait_group 0 "
                                "and the sum added in f32", intervals, intervals == 1 ? "" : "s"));
  }
  if (s.can_store_under_next_tile)
    v.header.push_back(format("%s output: %s", out_bytes == 2 ? "16-bit" : "f32",
                              s.epilogue_under_next_tile ? "each tile's epilogue runs under the next tile's first products "
                                                           "(stores_under_next_tile)"
                                                         : "each tile's epilogue runs after the tile (stores_under_next_tile "
                                                           "is false for this kernel, output or beta)"));
  return v;
}

std::string timeline_key(const TracedProgram& program, const TraceProblem& problem, int block, int out_bytes,
                         double copy_latency) {
  return format("%s|%s|%s|%d|%s|%g|%d|%d|%g", program.step.c_str(), shape_text(problem.shape).c_str(),
                params_text(problem.params).c_str(), problem.sms, to_string(problem.layout), double(problem.beta), block,
                out_bytes, copy_latency);
}

int first_column_of_tile(const Timeline& t, int tile) {
  for (size_t i = 0; i < t.columns.size(); ++i)
    if (t.columns[i].tile == tile) return std::max(int(i) - 2, 0);
  return 0;
}

}  // namespace gemm::viewer
