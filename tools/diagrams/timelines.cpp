// Timelines: a block's stages over time, as a pipeline hands them over (step 10's cp.async pipeline,
// step 16's producer and consumers) and as a tile's epilogue goes under the next tile's products (step 20).
#include <algorithm>
#include <string>
#include <vector>

#include "10_cp_async_pipeline/mapping.hpp"
#include "16_warp_specialized/mapping.hpp"
#include "20_overlapped_epilogue/mapping.hpp"
#include "diagrams.hpp"
#include "svg.hpp"

namespace diagrams {
namespace {

// ---- Step 10: the cp.async pipeline over time ---------------------------------------------------

std::string pipeline_10() {
  using namespace step10;
  const Config c = kConfigs[0];
  const int stages = c.stages, k_tiles = 2 * stages;
  // Times in loop slots: slot 0 the prologue, slot kt + 1 iteration kt (kernel.cuh, multiply): the
  // prologue issues k-tiles 0..STAGES-2 and waits for tile 0; iteration kt computes tile kt from
  // stage kt % STAGES, then waits for tile kt + 1 (cp.async.wait_group STAGES-3 and __syncthreads)
  // and issues tile kt + STAGES - 1 into the stage tile kt - 1 used.
  struct Bar { int stage; double from, to; std::string label, fill; };
  std::vector<Bar> bars;
  std::vector<double> waits;
  auto issue_time = [&](int tile) { return tile < stages - 1 ? 0.12 + 0.1 * tile : (tile - stages + 1) + 1 + 0.84; };
  auto needed_time = [&](int tile) { return tile == 0 ? 0.8 : tile + 0.8; };  // the wait that needs it
  waits.push_back(0.8);
  for (int tile = 0; tile < k_tiles + stages - 1; ++tile) {
    const bool past_end = tile >= k_tiles;
    const double from = issue_time(tile);
    if (from > k_tiles + 1) break;
    const double to = past_end ? std::min(from + 0.9, double(k_tiles + 1)) : needed_time(tile);
    if (to - from < 0.5) continue;  // issued at the very end: off the picture
    bars.push_back({stage_of(tile, c), from, to,
                    past_end ? "k-tile " + std::to_string(tile) + ": past the end" : "cp.async k-tile " + std::to_string(tile),
                    past_end ? "#e0e0e0" : "#9ecae1"});
    if (!past_end) {
      bars.push_back({stage_of(tile, c), to, tile + 1.05, "", "#deebf7"});  // landed, not yet read
      bars.push_back({stage_of(tile, c), tile + 1.05, tile + 1.78, "compute k-tile " + std::to_string(tile), "#a1d99b"});
      waits.push_back(tile + 1.8);
    }
  }
  const double x0 = 150, slot = 190, y0 = 120, row = 56;
  Svg svg(x0 + slot * (k_tiles + 1) + 30, y0 + row * stages + 170);
  svg.text(30, 30, "Step 10: the cp.async pipeline, " + std::to_string(stages) + " stages (STAGES of the default configuration)",
           20, "start", "#1a1a1a", true);
  svg.text(30, 56, "Each row is one shared-memory stage; time runs to the right in loop iterations. Order of the kernel's loop "
                   "(step10 kernel.cuh), stage of k-tile kt = step10::stage_of(kt) = kt % " + std::to_string(stages) + ".", 14);
  const int in_flight = stages - 2;  // k-tiles kt + 1 .. kt + STAGES - 2; kt + STAGES - 1 goes out after the barrier
  svg.text(30, 76, "While the warps compute on one stage, the copies of the next " + std::to_string(in_flight) +
           (in_flight == 1 ? " k-tile are" : " k-tiles are") +
           " in flight into another; the last step's barrier sends the one after out.", 14);
  for (int s = 0; s <= k_tiles; ++s) {
    const double x = x0 + slot * s;
    svg.rect(x, y0 - 18, slot, row * stages + 18, s % 2 ? "#fafafa" : "#f2f2f2");
    svg.text(x + slot / 2, y0 - 4, s == 0 ? "prologue" : "iteration kt = " + std::to_string(s - 1), 13, "middle");
  }
  for (int s = 0; s < stages; ++s) svg.text(x0 - 12, y0 + row * s + row / 2 + 5, "stage " + std::to_string(s), 14, "end");
  for (const Bar& b : bars) {
    const double x = x0 + slot * b.from, w = slot * (b.to - b.from), y = y0 + row * b.stage + 8;
    svg.rect(x, y, w, row - 16, b.fill, b.label.empty() ? "none" : "#555555", 0.8);
    if (!b.label.empty()) svg.text(x + 6, y + (row - 16) / 2 + 5, b.label, 13);
  }
  for (double t : waits) svg.line(x0 + slot * t, y0 - 2, x0 + slot * t, y0 + row * stages, "#c0392b", 2);
  // Legend.
  const double ly = y0 + row * stages + 40;
  const std::vector<std::pair<std::string, std::string>> legend = {
      {"#9ecae1", "cp.async in flight (issued by every thread, one commit group per k-tile)"},
      {"#deebf7", "landed, waiting to be read"},
      {"#a1d99b", "compute: the k-tile's BK steps of ld.shared and FMAs"},
      {"#e0e0e0", "the last iterations still issue copies (past the end of K: they write zeros, cheaper than a branch)"}};
  for (size_t i = 0; i < legend.size(); ++i) {
    svg.rect(30, ly + 24 * double(i), 28, 16, legend[i].first, "#555555", 0.8);
    svg.text(68, ly + 24 * double(i) + 13, legend[i].second, 13);
  }
  svg.line(30, ly + 24 * 4 + 8, 58, ly + 24 * 4 + 8, "#c0392b", 2);
  svg.text(68, ly + 24 * 4 + 13, "cp.async.wait_group " + std::to_string(stages - 2) + " in the prologue, " +
           std::to_string(stages - 3) + " in the loop, then __syncthreads: the next k-tile has landed for everyone; only then "
           "is the stage read in the last iteration refilled", 13);
  return svg.str();
}

// ---- Step 16: producer and consumers hand stages over through mbarriers -------------------------

std::string handoff_16() {
  using namespace step16;
  const Config c = kConfigs[0];
  const int stages = c.stages, k_tiles = 2 * stages + 2, consumer_groups = consumers(c);
  const int consumer_warps = consumer_groups * 4;
  // The kernel's counters (PipelineState, advanced once a k-tile by the producer's and the
  // consumers' loops alike: kernel.cuh).
  std::vector<int> stage_of(static_cast<size_t>(k_tiles)), phase_of(static_cast<size_t>(k_tiles));
  PipelineState state;
  for (int kt = 0; kt < k_tiles; ++kt, state.advance(c))
    stage_of[size_t(kt)] = state.stage, phase_of[size_t(kt)] = int(state.phase);
  // A schematic clock (unit: one k-tile of wgmma): a copy lands 1.5 after its issue; the consumers
  // take a k-tile when it has landed and the previous one is issued; a stage is released when the
  // next k-tile's wgmma is issued and this one's are done (wgmma.wait_group 1); the producer
  // refills a stage when it is released.
  const size_t n_tiles = static_cast<size_t>(k_tiles);
  std::vector<double> issue(n_tiles), land(n_tiles), start(n_tiles), release(n_tiles);
  for (int kt = 0; kt < k_tiles; ++kt) {
    issue[size_t(kt)] = kt == 0 ? 0 : issue[size_t(kt - 1)] + 0.35;
    if (kt >= stages) issue[size_t(kt)] = std::max(issue[size_t(kt)], release[size_t(kt - stages)]);
    land[size_t(kt)] = issue[size_t(kt)] + 1.5;
    start[size_t(kt)] = kt == 0 ? land[0] : std::max(land[size_t(kt)], start[size_t(kt - 1)] + 1);
    if (kt > 0) release[size_t(kt - 1)] = std::max(start[size_t(kt)], start[size_t(kt - 1)] + 1) + 0.1;
    if (kt >= stages) issue[size_t(kt)] = std::max(issue[size_t(kt)], release[size_t(kt - stages)]);
  }
  release[size_t(k_tiles - 1)] = start[size_t(k_tiles - 1)] + 1.1;
  // One row per stage: the producer's copies into it and the consumers' multiplies from it, in turn.
  const double unit = 100, x0 = 110, y0 = 150, row = 78, box_h = 46;
  const double end = release[size_t(k_tiles - 1)] + 0.4;
  Svg svg(x0 + unit * end + 30, y0 + row * stages + 140);
  svg.text(30, 30, "Step 16: producer and consumers hand the stages over through full and empty mbarriers", 20, "start",
           "#1a1a1a", true);
  svg.text(30, 56, "Default configuration: " + std::to_string(stages) + " stages, " + std::to_string(consumer_groups) +
           " consumer warpgroups (" + std::to_string(c.bm / consumer_groups) + " rows of the " + std::to_string(c.bm) + " x " +
           std::to_string(c.bn) + " tile each); " + std::to_string(k_tiles) +
           " k-tiles drawn. One row per stage; time runs to the right.", 14);
  svg.text(30, 76, "Stage and phase of each k-tile as the kernel counts them (++stage; at STAGES back to 0, phase ^= 1). "
                   "Times are schematic; the order is the kernel's.", 14);
  svg.text(30, 96, "The producer (one thread) waits on empty[s] with parity phase ^ 1, the consumers on full[s] with parity "
                   "phase: the first lap finds every stage empty at once.", 14);
  for (int s = 0; s < stages; ++s) {
    svg.rect(x0, y0 + row * s, unit * end, row, s % 2 ? "#fafafa" : "#f2f2f2");
    svg.text(x0 - 12, y0 + row * s + row / 2 + 5, "stage " + std::to_string(s), 14, "end");
  }
  for (int kt = 0; kt < k_tiles; ++kt) {
    const double y = y0 + row * stage_of[size_t(kt)] + (row - box_h) / 2 + 6;
    const std::string phase = "phase " + std::to_string(phase_of[size_t(kt)]);
    // Producer: wait empty[s], arm full[s] with the stage's bytes, issue the TMA boxes; they land.
    const double px = x0 + unit * issue[size_t(kt)], pw = unit * (land[size_t(kt)] - issue[size_t(kt)]);
    svg.rect(px, y, pw - 3, box_h, "#9ecae1", "#555555", 0.8);
    svg.text(px + 6, y + 19, "TMA k-tile " + std::to_string(kt), 13);
    svg.text(px + 6, y + 37, phase, 13);
    // full[s] completes its phase: the consumers' wait returns.
    const double fx = x0 + unit * land[size_t(kt)];
    svg.line(fx, y - 8, fx, y + box_h + 2, "#1f5fbf", 2.5);
    svg.text(fx, y - 11, "full", 12, "middle", "#1f5fbf", true);
    // Consumers: wgmma on the stage; it is released once the next k-tile's wgmma are issued and these done.
    const double cx = x0 + unit * start[size_t(kt)];
    svg.rect(cx + 3, y, unit - 6, box_h, "#a1d99b", "#555555", 0.8);
    svg.text(cx + 9, y + 19, "wgmma kt " + std::to_string(kt), 13);
    svg.text(cx + 9, y + 37, phase, 13);
    // The last k-tile's stage is never released (kernel.cuh: the producer has nothing left to put there).
    if (kt == k_tiles - 1) continue;
    const double ex = x0 + unit * release[size_t(kt)];
    svg.line(ex, y - 8, ex, y + box_h + 2, "#c85a00", 2.5);
    svg.text(ex + 2, y - 11, "empty", 12, "start", "#c85a00", true);
    if (kt + stages < k_tiles) svg.arrow(ex + 2, y + box_h / 2, x0 + unit * issue[size_t(kt + stages)] - 1, y + box_h / 2,
                                         "#c85a00", "arrow-orange");
  }
  const double ly = y0 + row * stages + 36;
  svg.rect(30, ly - 12, 28, 16, "#9ecae1", "#555555", 0.8);
  svg.text(68, ly + 1, "the producer's copies (TMA, one thread of the producer warpgroup), from issue to landing", 13);
  svg.rect(30, ly + 14, 28, 16, "#a1d99b", "#555555", 0.8);
  svg.text(68, ly + 27, "the " + std::to_string(consumer_groups) + " consumer warpgroups' wgmma on the stage", 13);
  svg.line(44, ly + 38, 44, ly + 58, "#1f5fbf", 2.5);
  svg.text(68, ly + 53, "full[s]: armed by the producer with the stage's bytes (" +
           std::to_string((a_tile_bytes(c) + b_tile_bytes(c)) / 1024) + " KB, mbarrier.arrive.expect_tx); the copies' bytes "
           "complete its phase", 13);
  svg.line(44, ly + 64, 44, ly + 84, "#c85a00", 2.5);
  svg.text(68, ly + 79, "empty[s]: " + std::to_string(consumer_warps) + " arrivals (one per consumer warp) complete its "
           "phase; the producer's wait on it returns and it refills the stage", 13);
  return svg.str();
}

// ---- Step 20: the epilogue under the next tile's first products ------------------------------

// One block's last k-tiles of a tile and the next tile's first, as step 19 and step 20 order them:
// the tile the program takes at 4096^3 (step20::config_for_shape), 16-bit output, which
// step20::epilogue_under_next_tile puts under the next tile. The slices are the kernel's (BN over
// slice_cols of 2-byte output); the times are schematic, the order is the kernels'.
std::string overlap_20() {
  using namespace step20;
  const GemmShape shape{4096, 4096, 4096};
  const Config c = config_for_shape(shape, kDiagramSms);
  constexpr int kOutBytes = 2;  // bf16 or f16
  const int slices = c.bn / slice_cols(kOutBytes), k_count = k_tiles(shape, c);
  const bool under = epilogue_under_next_tile(c, kOutBytes, launches_tma_only_kernel(c, shape, 0.0f, kOutBytes));
  const std::string kIdle = "#f0f0f0";
  const double unit = 140, x0 = 150, lane_h = 46, slice_w = 0.4, promote_w = 0.25, zero_w = 0.12;
  const double epilogue_w = slices * slice_w;
  Svg svg(x0 + unit * 7.6 + 40, 630);
  svg.text(30, 30, "Step 20: the last tile's epilogue under the next tile's first products", 20, "start", "#1a1a1a", true);
  svg.text(30, 56, "The " + std::to_string(c.bm) + " × " + std::to_string(c.bn) + " tile the program takes at " +
                       std::to_string(shape.m) + "³ (" + std::to_string(k_count) + " k-tiles a tile), 16-bit output: each "
                       "consumer warpgroup stores its 64 × " + std::to_string(c.bn) + " results as " + std::to_string(slices) +
                       " slices of " + std::to_string(slice_cols(kOutBytes)) + " columns.", 14);
  svg.text(30, 76, "Both consumers drawn in step, one lane for both (where they are out of step, one's products fill the "
                   "other's waits). Times are schematic; the order is the kernels'.", 14);
  svg.text(30, 96, std::string("epilogue_under_next_tile(this tile, 16-bit output) = ") + (under ? "true" : "false") +
                       ": with promotion the tensor cores add into interval_sum, not into acc,", 14);
  svg.text(30, 116, "so acc keeps tile t's results while tile t+1's first k-tile runs, until that k-tile's sum is added in.",
           14);
  struct Box {
    double start, width;
    std::string label, fill;
  };
  auto draw_panel = [&](double top, const std::string& title, bool overlapped) {
    svg.text(30, top, title, 16, "start", "#1a1a1a", true);
    const double consumer_y = top + 18, tensor_y = consumer_y + lane_h + 14;
    svg.text(x0 - 12, consumer_y + lane_h / 2 + 5, "consumers", 14, "end");
    svg.text(x0 - 12, tensor_y + lane_h / 2 + 5, "tensor cores", 14, "end");
    std::vector<Box> consumer, tensor, idle;
    // Each k-tile as the kernel runs it with PROMOTE = 1: its wgmma issued, (under them, in step 20's
    // first k-tile of a tile, the last tile's epilogue), the wait for the products, their sum added
    // into acc, and only then the next k-tile's wgmma, which write interval_sum again.
    double t = 0;
    auto k_tile = [&](const std::string& label, const std::string& fill, double busy_until) {
      tensor.push_back({t, 1, label, fill});
      const double add_at = std::max(t + 1, busy_until);
      consumer.push_back({add_at, promote_w, "add", "#fdd0a2"});
      idle.push_back({t + 1, add_at + promote_w - (t + 1), "", ""});
      t = add_at + promote_w;
    };
    for (int kt = k_count - 2; kt < k_count; ++kt) k_tile("tile t, k-tile " + std::to_string(kt), "#a1d99b", 0);
    if (!overlapped) {
      for (int s = 0; s < slices; ++s) consumer.push_back({t + s * slice_w, slice_w, "slice " + std::to_string(s), "#9ecae1"});
      consumer.push_back({t + epilogue_w, zero_w, "0", "#d9d9d9"});  // acc = 0 before the next tile
      idle.push_back({t, epilogue_w + zero_w, "waiting", ""});
      t += epilogue_w + zero_w;
    }
    const double next = t;  // when the next tile's first k-tile is issued
    double epilogue_end = 0;
    if (overlapped) {
      for (int s = 0; s < slices; ++s)
        consumer.push_back({next + 0.05 + s * slice_w, slice_w, "slice " + std::to_string(s), "#9ecae1"});
      consumer.push_back({next + 0.05 + epilogue_w, zero_w, "0", "#d9d9d9"});  // acc = 0
      epilogue_end = next + 0.05 + epilogue_w + zero_w;
    }
    for (int kt = 0; kt < 3; ++kt) k_tile("tile t+1, k-tile " + std::to_string(kt), "#c7e9c0", kt == 0 ? epilogue_end : 0);
    for (const Box& b : idle) {
      svg.rect(x0 + unit * b.start + 1, tensor_y, unit * b.width - 2, lane_h, kIdle, "#bbbbbb", 0.8);
      if (!b.label.empty())
        svg.text(x0 + unit * (b.start + b.width / 2), tensor_y + lane_h / 2 + 5, b.label, 13, "middle", "#777777");
    }
    for (const Box& b : tensor) {
      svg.rect(x0 + unit * b.start + 1, tensor_y, unit * b.width - 2, lane_h, b.fill, "#555555", 0.8);
      svg.text(x0 + unit * (b.start + b.width / 2), tensor_y + lane_h / 2 + 5, b.label, 13, "middle");
    }
    for (const Box& b : consumer) {
      svg.rect(x0 + unit * b.start + 1, consumer_y, unit * b.width - 2, lane_h, b.fill, "#555555", 0.8);
      if (!b.label.empty()) svg.text(x0 + unit * (b.start + b.width / 2), consumer_y + lane_h / 2 + 5, b.label, 12, "middle");
    }
    // The moment the next tile's first wgmma are issued.
    const double ix = x0 + unit * next;
    svg.line(ix, consumer_y - 6, ix, tensor_y + lane_h + 6, "#1f5fbf", 2.5);
    svg.text(ix + 4, tensor_y + lane_h + 20, "tile t+1's first wgmma issued", 12, "start", "#1f5fbf", true);
  };
  draw_panel(160, "Step 19: tile t's epilogue after the tile (the tensor cores wait for it)", false);
  draw_panel(350, "Step 20: tile t's epilogue under tile t+1's first k-tile", true);
  const double ly = 550;
  const Box legend[] = {{0, 0, "products of a k-tile (wgmma, both consumers)", "#a1d99b"},
                        {0, 0, "promotion: the interval's sum added into acc", "#fdd0a2"},
                        {0, 0, "epilogue slice of tile t: acc (times alpha) to staging, TMA stores it", "#9ecae1"},
                        {0, 0, "0: acc = 0 for the new tile", "#d9d9d9"},
                        {0, 0, "the tensor cores have nothing to do", kIdle}};
  for (int i = 0; i < 5; ++i) {
    const double lx = 30 + (i % 2) * 600, y = ly + (i / 2) * 24;
    svg.rect(lx, y - 12, 28, 16, legend[i].fill, "#555555", 0.8);
    svg.text(lx + 38, y + 1, legend[i].label, 13);
  }
  return svg.str();
}

const Registration pipeline_10_registered("diagram-10-pipeline.svg", pipeline_10);
const Registration handoff_16_registered("diagram-16-handoff.svg", handoff_16);
const Registration overlap_20_registered("diagram-20-overlap.svg", overlap_20);

}  // namespace
}  // namespace diagrams
