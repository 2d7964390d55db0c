// The thread map of the tensor-core steps: who holds each element of C in its accumulators when the
// k-loop ends, from each step's own warp_accumulators (viewer_model.hpp, "Thread map of the
// tensor-core steps"), and what the panel writes about it.
#include <algorithm>
#include <cstdarg>
#include <cstdio>
#include <thread>

#include "viewer_model.hpp"

namespace gemm::viewer {

namespace {


Dim3 block_at(const LaunchShape& launch, long long b) {
  return {int(b % launch.grid.x), int((b / launch.grid.x) % launch.grid.y),
          int(b / ((long long)launch.grid.x * launch.grid.y))};
}

// The accumulators of every warp of blocks first, first + stride, ...: each element a thread's
// register holds inside the map, its owner and register written once (each element is held once).
void hold_blocks(const TracedProgram& program, const TraceProblem& problem, OwnerMap& map, long long first,
                 long long stride) {
  const long long blocks = (long long)map.launch.grid.x * map.launch.grid.y * map.launch.grid.z;
  const int warps = warps_per_block(map.launch.block);
  for (long long b = first; b < blocks; b += stride)
    for (int warp = 0; warp < warps; ++warp)
      program.accumulators(problem, block_at(map.launch, b), warp, [&](const HeldElement& held) {
        if (held.row < 0 || held.col < 0 || held.row >= map.rows || held.col >= map.cols) return;  // past C's edge
        const size_t index = size_t(held.row) * size_t(map.cols) + size_t(held.col);
        map.packed[index] = std::uint32_t(b) << 10 | std::uint32_t(warp * kWarpSize + std::max(held.lane, 0));
        map.regs[index] = std::uint16_t(held.reg);
      });
}

}  // namespace

OwnerMap held_map(const TracedProgram& program, const TraceProblem& given) {
  const TraceProblem problem = with_defaults(program, given);
  OwnerMap map;
  map.held = true;
  map.launch = program.launch(problem);
  map.rows = std::min(problem.shape.m, kMaxMapSide);
  map.cols = std::min(problem.shape.n, kMaxMapSide);
  map.packed.assign(size_t(map.rows) * size_t(map.cols), OwnerMap::kNone);
  map.regs.assign(map.packed.size(), 0);
  // The instruction, and whether its lanes are known (not WMMA's): from the first warp that holds any.
  bool found = false;
  for (int warp = 0; warp < warps_per_block(map.launch.block) && !found; ++warp)
    program.accumulators(problem, {0, 0, 0}, warp, [&](const HeldElement& held) {
      if (found) return;
      found = true;
      map.mma = held.mma.kind;
      map.lanes_known = held.lane >= 0;
    });
  const long long blocks = (long long)map.launch.grid.x * map.launch.grid.y * map.launch.grid.z;
  const unsigned workers = std::max(1u, std::min(16u, std::thread::hardware_concurrency()));
  if (blocks < 16 || workers == 1) {
    hold_blocks(program, problem, map, 0, 1);
  } else {
    std::vector<std::thread> pool;
    for (unsigned w = 0; w < workers; ++w)
      pool.emplace_back([&, w] { hold_blocks(program, problem, map, w, workers); });
    for (auto& t : pool) t.join();
  }
  // How C leaves: the traced stores against the holders, element by element.
  const OwnerMap stores = owner_map(program, problem);
  for (size_t i = 0; i < map.packed.size(); ++i) {
    if (map.packed[i] == OwnerMap::kNone) continue;
    ++map.stores.elements;
    if (stores.packed[i] == OwnerMap::kNone) continue;
    ++map.stores.stored;
    const std::uint32_t holder = map.packed[i], storer = stores.packed[i];
    if (map.lanes_known && holder == storer) ++map.stores.by_holding_thread;
    if (holder >> 10 == storer >> 10 && (holder & 1023u) / kWarpSize == (storer & 1023u) / kWarpSize)
      ++map.stores.by_holding_warp;
  }
  return map;
}

OwnerMap thread_map(const TracedProgram& program, const TraceProblem& problem) {
  return program.accumulators ? held_map(program, problem) : owner_map(program, problem);
}

std::optional<HeldElement> held_element(const TracedProgram& program, const TraceProblem& given, const OwnerMap& map,
                                        int row, int col) {
  const Owner owner = map.at(row, col);
  if (!map.held || owner.block < 0 || !program.accumulators) return std::nullopt;
  std::optional<HeldElement> found;
  program.accumulators(with_defaults(program, given), owner.block_coord, owner.warp, [&](const HeldElement& held) {
    if (held.row == row && held.col == col) found = held;
  });
  return found;
}

std::string instruction_name(const MmaShape& mma) {
  switch (mma.kind) {
    case MmaKind::wmma: return format("wmma::mma_sync m%dn%dk%d", mma.m, mma.n, mma.k);
    case MmaKind::mma_sync: return format("mma.sync.m%dn%dk%d", mma.m, mma.n, mma.k);
    case MmaKind::wgmma: return format("wgmma.m%dn%dk%d", mma.m, mma.n, mma.k);
  }
  return "";
}

std::vector<std::string> held_text(const HeldElement& held, const Owner& owner, const LaunchShape& launch) {
  std::vector<std::string> lines;
  const std::string instruction = instruction_name(held.mma);
  switch (held.mma.kind) {
    case MmaKind::wgmma:
      lines.push_back(format("%s: thread %d (warpgroup %d, warp %d, lane %d), accumulator register %d", instruction.c_str(),
                             owner.thread, owner.warpgroup, owner.warp, held.lane, held.reg));
      break;
    case MmaKind::mma_sync: {
      const int per_fragment = held.mma.m * held.mma.n / kWarpSize;
      lines.push_back(format("%s: thread %d (warp %d, lane %d), accumulator register %d = acc[%d][%d][%d]",
                             instruction.c_str(), owner.thread, owner.warp, held.lane, held.reg, held.frag_i, held.frag_j,
                             held.reg % per_fragment));
      break;
    }
    case MmaKind::wmma:
      lines.push_back(format("%s: warp %d, fragment acc[%d][%d] (which lane holds it, the WMMA API leaves to the compiler)",
                             instruction.c_str(), owner.warp, held.frag_i, held.frag_j));
      break;
  }
  const std::string block = launch.grid.y > 1 || launch.grid.z > 1
                                ? format("block (%d, %d)", owner.block_coord.x, owner.block_coord.y)
                                : format("block %d", owner.block);
  std::string tile = format("tile (%d, %d) of C, computed by %s", held.tile_m, held.tile_n, block.c_str());
  if (held.tile > 0) {  // "the 2nd it takes", "the 11th", "the 21st"
    const int n = held.tile + 1;
    const char* suffix = n % 100 / 10 == 1 ? "th" : n % 10 == 1 ? "st" : n % 10 == 2 ? "nd" : n % 10 == 3 ? "rd" : "th";
    tile += format(", the %d%s it takes", n, suffix);
  }
  lines.push_back(tile);
  if (held.promote > 0)
    lines.push_back(format("promotion: wgmma sums every %d k-tile%s into registers of its own, which the thread adds in "
                           "f32 into this one",
                           held.promote, held.promote == 1 ? "" : "s"));
  return lines;
}

std::string c_store_text(const TracedProgram& program, const OwnerMap& map) {
  if (!map.held) return "";
  const StoreSummary& s = map.stores;
  const std::string how = "How C is stored (f32 output, as traced): ";
  if (s.stored == 0) return how + "no thread stores it here" + (program.c_writer.empty() ? "" : ": " + program.c_writer) + ".";
  if (s.stored == s.elements && map.lanes_known && s.by_holding_thread == s.elements)
    return how + "each thread stores the elements it holds, straight from its accumulator registers.";
  if (s.stored == s.elements && !map.lanes_known && s.by_holding_warp == s.elements)
    return how + "each warp writes a fragment into a staging tile in shared memory (store_matrix_sync); its lanes "
                 "then store C along rows.";
  if (s.stored == s.elements)
    return how + format("the threads stage their accumulators in shared memory, then store C along rows: %lld of %lld "
                        "elements are stored by another thread than the one that holds them%s",
                        s.stored - s.by_holding_thread, s.elements,
                        program.c_writer.empty() ? "." : ("; " + program.c_writer + ".").c_str());
  return how + format("threads store %lld of the %lld elements", s.stored, s.elements) +
         (program.c_writer.empty() ? "." : "; " + program.c_writer + ".");
}

std::string colour_note(const OwnerMap& map, ColourBy by) {
  if (map.held && !map.lanes_known)
    return by == ColourBy::reg ? "The WMMA API leaves unspecified which lane holds which element of a fragment: coloured by "
                                 "the fragment acc[i][j], alike in every warp."
                               : "The WMMA API leaves unspecified which lane holds which element of a fragment: the map "
                                 "shows each warp's fragments, not lanes (thread: coloured by warp and fragment).";
  if (!map.held && by == ColourBy::reg) return "No registers here: this map is of the threads' stores; coloured by lane.";
  if (map.held && by == ColourBy::warpgroup && map.mma != MmaKind::wgmma)
    return "Warpgroups (4 warps) issue one wgmma together from step 15 on; here each warp multiplies on its own.";
  return "";
}

std::vector<ColourBy> colourings(const OwnerMap& map) {
  if (!map.held) return {ColourBy::block, ColourBy::warp, ColourBy::thread};
  if (map.mma != MmaKind::wgmma) return {ColourBy::block, ColourBy::warp, ColourBy::thread, ColourBy::reg};
  return {ColourBy::block, ColourBy::warpgroup, ColourBy::warp, ColourBy::thread, ColourBy::reg};
}

std::string colour_label(const OwnerMap& map, ColourBy by) {
  switch (by) {
    case ColourBy::block: return "colour by block";
    case ColourBy::warpgroup: return "colour by warpgroup";
    case ColourBy::warp: return "colour by warp";
    case ColourBy::thread: return map.held && !map.lanes_known ? "colour by warp and fragment" : "colour by thread (lane)";
    case ColourBy::reg:
      return !map.held ? "colour by thread (lane)" : map.lanes_known ? "colour by accumulator register" : "colour by fragment";
  }
  return "";
}

}  // namespace gemm::viewer
