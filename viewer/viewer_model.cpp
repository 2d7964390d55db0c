#include "viewer_model.hpp"

#include <algorithm>
#include <iterator>
#include <cmath>
#include <cstdarg>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <set>
#include <thread>

#include <nlohmann/json.hpp>

namespace gemm::viewer {

namespace {
Rgba hsv(double hue, double saturation, double value) {
  const double h = std::fmod(hue, 1.0) * 6.0;
  const int sector = int(h);
  const double f = h - sector, p = value * (1 - saturation), q = value * (1 - saturation * f),
               t = value * (1 - saturation * (1 - f));
  double r = value, g = t, b = p;
  switch (sector) {
    case 1: r = q, g = value, b = p; break;
    case 2: r = p, g = value, b = t; break;
    case 3: r = p, g = q, b = value; break;
    case 4: r = t, g = p, b = value; break;
    case 5: r = value, g = p, b = q; break;
    default: break;
  }
  return rgba(int(std::lround(r * 255)), int(std::lround(g * 255)), int(std::lround(b * 255)));
}
}  // namespace

std::string format(const char* pattern, ...) {
  char buffer[1024];
  va_list args;
  va_start(args, pattern);
  std::vsnprintf(buffer, sizeof(buffer), pattern, args);
  va_end(args);
  return buffer;
}

Rgba lane_colour(int lane) {
  // Neighbouring lanes get hues a quarter turn apart plus a small step, so that adjacent cells are
  // easy to tell apart; every lane has its own hue; two brightness levels double the distinctness.
  const double hue = std::fmod(lane * (0.25 + 1.0 / 32.0), 1.0);
  return hsv(hue, 0.75, lane % 2 ? 0.80 : 0.98);
}

Rgba index_colour(std::uint32_t index) {
  const double golden = 0.6180339887498949;
  return hsv(std::fmod(0.07 + index * golden, 1.0), 0.55 + 0.3 * ((index / 7) % 2), 0.70 + 0.25 * ((index / 3) % 2));
}

Rgba hue_colour(double hue, double saturation, double value) { return hsv(hue, saturation, value); }

int red(Rgba c) { return int(c & 0xff); }
int green(Rgba c) { return int((c >> 8) & 0xff); }
int blue(Rgba c) { return int((c >> 16) & 0xff); }

TraceProblem with_defaults(const TracedProgram& program, const TraceProblem& problem) {
  TraceProblem full = problem;
  full.params = run_params(program, problem);
  if (!program.variant.empty()) full.variant = program.variant;
  return full;
}

std::string program_label(const TracedProgram& program) {
  return program.variant.empty() ? program.step : program.step + " / " + program.variant;
}

std::string shape_text(const GemmShape& shape) {
  return std::to_string(shape.m) + "x" + std::to_string(shape.n) + "x" + std::to_string(shape.k);
}

GemmShape rounded_up_to_8(const GemmShape& shape) {
  const auto up = [](int v) { return (v + 7) / 8 * 8; };
  return {up(shape.m), up(shape.n), up(shape.k)};
}

std::string params_text(const std::map<std::string, int>& params) {
  std::string text;
  for (const auto& [key, value] : params) text += key + "=" + std::to_string(value) + " ";
  return text;
}

std::string problem_text(const TracedProgram& program, const TraceProblem& problem) {
  std::string params;
  for (const auto& [key, value] : problem.params) params += (params.empty() ? "; " : " ") + key + "=" + std::to_string(value);
  return program_label(program) + ", " + std::to_string(problem.shape.m) + " x " + std::to_string(problem.shape.n) +
         " x " + std::to_string(problem.shape.k) + (program.tensor_core ? std::string(", ") + to_string(problem.layout) : "") +
         params;
}

// ---- Thread map ---------------------------------------------------------------------------------

const char* to_string(ColourBy by) {
  switch (by) {
    case ColourBy::block: return "block";
    case ColourBy::warp: return "warp";
    case ColourBy::thread: return "thread";
    case ColourBy::warpgroup: return "warpgroup";
    case ColourBy::reg: return "register";
  }
  return "thread";
}

ColourBy colour_by_named(const std::string& name) {
  for (ColourBy by : {ColourBy::block, ColourBy::warp, ColourBy::warpgroup, ColourBy::reg})
    if (name == to_string(by)) return by;
  return ColourBy::thread;
}

bool is_colour_by_name(const std::string& name) {
  return name == "lane" || to_string(colour_by_named(name)) == name;
}

// Neighbouring warps, warpgroups and fragments get distinct colours: the lanes' 32 hues, stepped
// so that the next index is far round the wheel, or golden-ratio steps of index_colour.
Rgba warp_colour(int block, int warp) { return lane_colour((block * 7 + warp * 5) % kWarpSize); }
// A block's warpgroups: the block's colour, the second consumer (warpgroup 2) darker, so that a
// tile's two halves read as one block's.
Rgba warpgroup_colour(int block, int warpgroup) {
  const Rgba c = index_colour(std::uint32_t(block));
  const double f = warpgroup == 2 ? 0.6 : 1.0;
  return rgba(int(std::lround(red(c) * f)), int(std::lround(green(c) * f)), int(std::lround(blue(c) * f)));
}
// A warp's fragments: the warp's hue, three shades by fragment (acc[i][j] counted i * J + j), so
// that neighbouring fragments differ across and down (J, the fragments a row, is 1, 2 or 4).
Rgba fragment_colour(int block, int warp, int fragment) {
  const int hue_lane = (block * 7 + warp * 5) % kWarpSize;
  return hsv(std::fmod(hue_lane * (0.25 + 1.0 / 32.0), 1.0), 0.75, 0.98 - 0.2 * (fragment % 3));
}
Rgba register_colour(int reg) { return index_colour(std::uint32_t(reg)); }

std::uint32_t Owner::key() const { return std::uint32_t(block) << 10 | std::uint32_t(thread); }

bool Owner::in_warp(const Dim3& b, int w) const {
  return block >= 0 && warp == w && block_coord.x == b.x && block_coord.y == b.y && block_coord.z == b.z;
}

Owner OwnerMap::at(int row, int col) const {
  Owner owner;
  if (row < 0 || col < 0 || row >= rows || col >= cols) return owner;
  const size_t index = size_t(row) * size_t(cols) + size_t(col);
  const std::uint32_t value = packed[index];
  if (value == kNone) return owner;
  owner.block = int(value >> 10);
  owner.thread = int(value & 1023u);
  owner.warp = owner.thread / kWarpSize;
  owner.lane = lanes_known ? owner.thread % kWarpSize : -1;
  owner.warpgroup = owner.thread / kWarpgroupThreads;
  if (held) owner.reg = regs[index];
  const int gx = launch.grid.x, gy = launch.grid.y;
  owner.block_coord = {owner.block % gx, (owner.block / gx) % gy, owner.block / (gx * gy)};
  return owner;
}

Rgba OwnerMap::colour(int row, int col, ColourBy by) const {
  const Owner owner = at(row, col);
  if (owner.block < 0) return kNoOwner;
  switch (by) {
    case ColourBy::block: return index_colour(std::uint32_t(owner.block));
    case ColourBy::warp: return warp_colour(owner.block, owner.warp);
    case ColourBy::warpgroup: return warpgroup_colour(owner.block, owner.warpgroup);
    case ColourBy::reg:
      if (held) return register_colour(owner.reg);  // WMMA: the fragment acc[i][j], alike in every warp
      [[fallthrough]];  // a map of stores has no registers: by lane
    case ColourBy::thread:
      return lanes_known ? lane_colour(owner.lane) : fragment_colour(owner.block, owner.warp, owner.reg);
  }
  return kNoOwner;
}

namespace {
bool writes_result(const TraceInstruction& i) {
  return i.access.space == Space::global && i.access.access == Access::store &&
         (i.operand == Operand::C || i.operand == Operand::out);
}
}  // namespace

bool OwnerMap::any_owned() const {
  return std::any_of(packed.begin(), packed.end(), [](std::uint32_t p) { return p != kNone; });
}

std::vector<Rgba> OwnerMap::pixels(ColourBy by) const {
  std::vector<Rgba> out(size_t(rows) * size_t(cols));
  for (int r = 0; r < rows; ++r)
    for (int c = 0; c < cols; ++c) out[size_t(r) * size_t(cols) + size_t(c)] = colour(r, c, by);
  return out;
}

std::uint64_t OwnerMap::digest() const {
  std::uint64_t hash = 1469598103934665603ull;
  for (const std::uint32_t key : packed) hash = (hash ^ key) * 1099511628211ull;
  for (const std::uint16_t reg : regs) hash = (hash ^ reg) * 1099511628211ull;  // held maps: the registers too
  return hash;
}

std::string thread_map_title(const TracedProgram& program, const OwnerMap& map) {
  return std::string("Thread map: ") + (program.takes_shape ? "C" : "the output") + " of " + program_label(program) +
         ", " + std::to_string(map.rows) + " x " + std::to_string(map.cols) +
         (map.held ? ", by who holds it when the k-loop ends" : "");
}

std::string launch_text(const LaunchShape& l) {
  return format("grid %d x %d x %d blocks of %d x %d x %d threads", l.grid.x, l.grid.y, l.grid.z, l.block.x, l.block.y,
                l.block.z);
}

std::string no_owner_text(const TracedProgram& program) {
  return "No thread stores an element here" + (program.c_writer.empty() ? "" : ": " + program.c_writer) + ".";
}

MapWindow map_window(const OwnerMap& map, float area_w, float area_h, float zoom, float& pan_row, float& pan_col) {
  MapWindow window;
  window.cell = zoom;
  if (window.cell <= 0) {
    const float fit = std::min(area_w / float(map.cols), area_h / float(map.rows));
    window.cell = fit >= 1 ? std::floor(fit) : fit;
  }
  window.cols = std::min(map.cols, int(area_w / window.cell));
  window.rows = std::min(map.rows, int(area_h / window.cell));
  pan_col = std::clamp(pan_col, 0.0f, float(map.cols - window.cols));
  pan_row = std::clamp(pan_row, 0.0f, float(map.rows - window.rows));
  window.col0 = int(pan_col), window.row0 = int(pan_row);
  return window;
}

ThreadElements elements_of(const OwnerMap& map, std::uint32_t key, size_t most) {
  ThreadElements out;
  for (int r = 0; r < map.rows; ++r)
    for (int c = 0; c < map.cols; ++c)
      if (map.packed[size_t(r) * size_t(map.cols) + size_t(c)] == key) {
        if (out.first.size() < most) out.first.push_back({r, c});
        ++out.count;
      }
  return out;
}

std::string owned_text(const ThreadElements& elements, bool held) {
  std::string text = (held ? "holds " : "owns ") + std::to_string(elements.count) + (elements.count == 1 ? " element:" : " elements:");
  for (const auto& [r, c] : elements.first) text += " (" + std::to_string(r) + "," + std::to_string(c) + ")";
  return text + (elements.count > (long long)elements.first.size() ? " ..." : "");
}

int first_traced_warp(const TracedProgram& program, const TraceProblem& given, const Dim3& block) {
  const TraceProblem problem = with_defaults(program, given);
  const int warps = warps_per_block(program.launch(problem).block);
  for (int warp = 0; warp < warps; ++warp) {
    bool issues = false;
    program.trace(problem, block, warp, [&](const TraceInstruction&) { issues = true; });
    if (issues) return warp;
  }
  return 0;
}

OwnerMap owner_map(const TracedProgram& program, const TraceProblem& given) {
  TraceProblem problem = with_defaults(program, given);
  OwnerMap map;
  map.launch = program.launch(problem);
  if (program.takes_shape) {
    map.rows = problem.shape.m;
    map.cols = problem.shape.n;
    // Which lane stores an element does not depend on K; a short K with the same residue mod 16
    // keeps every 16-byte-path decision and makes the map cheap to trace.
    const int k = problem.shape.k;
    problem.shape.k = k % 16 == 0 ? std::min(k, 16) : k % 16;
  } else {
    // A demo's output: block b writes rows b*H .. b*H + H - 1 of a W-wide array; the first 8 blocks.
    map.cols = map.launch.block.x;
    map.rows = std::min(map.launch.grid.x, 8) * map.launch.block.y;
  }
  map.rows = std::min(map.rows, kMaxMapSide);
  map.cols = std::min(map.cols, kMaxMapSide);
  map.packed.assign(size_t(map.rows) * size_t(map.cols), OwnerMap::kNone);
  const LaunchShape launch = program.launch(problem);
  const int warps = warps_per_block(launch.block);
  const long long blocks = (long long)launch.grid.x * launch.grid.y * launch.grid.z;
  const long long traced_blocks = program.takes_shape ? blocks : std::min<long long>(blocks, 8);
  auto work = [&](long long first, long long step) {
    for (long long b = first; b < traced_blocks; b += step) {
      const Dim3 block{int(b % launch.grid.x), int((b / launch.grid.x) % launch.grid.y),
                       int(b / ((long long)launch.grid.x * launch.grid.y))};
      for (int warp = 0; warp < warps; ++warp)
        program.trace(problem, block, warp, [&](const TraceInstruction& i) {
          if (!writes_result(i)) return;
          const int per_lane = i.access.width / i.element_bytes;
          for (int lane = 0; lane < kWarpSize; ++lane) {
            if (!i.access.lane_active(lane)) continue;
            const int thread = warp * kWarpSize + lane;
            for (int e = 0; e < per_lane; ++e) {
              const long long element = i.access.address[size_t(lane)] / i.element_bytes + e;
              const long long row = element / (program.takes_shape ? problem.shape.n : map.cols);
              const long long col = element % (program.takes_shape ? problem.shape.n : map.cols);
              if (row < map.rows && col < map.cols)
                map.packed[size_t(row) * size_t(map.cols) + size_t(col)] = std::uint32_t(b) << 10 | std::uint32_t(thread);
            }
          }
        });
    }
  };
  const unsigned workers = std::max(1u, std::min(16u, std::thread::hardware_concurrency()));
  if (traced_blocks < 64 || workers == 1) {
    work(0, 1);
  } else {
    std::vector<std::thread> pool;
    for (unsigned w = 0; w < workers; ++w) pool.emplace_back(work, (long long)w, (long long)workers);
    for (auto& t : pool) t.join();
  }
  return map;
}

// ---- Warp access --------------------------------------------------------------------------------

std::vector<int> WarpTrace::at_iteration(int iteration) const {
  std::vector<int> out;
  for (size_t i = 0; i < instructions.size(); ++i)
    if (instructions[i].iteration == iteration) out.push_back(int(i));
  return out;
}

WarpTrace warp_trace(const TracedProgram& program, const TraceProblem& given, const Dim3& block, int warp) {
  const TraceProblem problem = with_defaults(program, given);
  WarpTrace trace;
  trace.block = block;
  trace.warp = warp;
  program.trace(problem, block, warp, [&](const TraceInstruction& i) { trace.instructions.push_back(i); });
  std::set<int> iterations;
  for (const auto& i : trace.instructions) iterations.insert(i.iteration);
  trace.iterations.assign(iterations.begin(), iterations.end());
  return trace;
}

OperandGrid operand_grid(Operand operand, const TracedProgram& program, const TraceProblem& given,
                         const WarpTrace& trace) {
  const TraceProblem problem = with_defaults(program, given);
  OperandGrid grid;
  grid.operand = operand;
  const GemmShape& s = problem.shape;
  switch (operand) {
    // As stored: T is the operand stored transposed (A as K x M in TN, B as N x K in NT).
    case Operand::A:
      if (problem.layout == Layout::tn) grid.rows = s.k, grid.cols = s.m;
      else grid.rows = s.m, grid.cols = s.k;
      break;
    case Operand::B:
      if (problem.layout == Layout::nt) grid.rows = s.n, grid.cols = s.k;
      else grid.rows = s.k, grid.cols = s.n;
      break;
    case Operand::C: grid.rows = s.m, grid.cols = s.n; break;
    case Operand::out: {
      const LaunchShape launch = program.launch(problem);
      grid.cols = launch.block.x;
      grid.rows = launch.grid.x * launch.block.y;
      break;
    }
    case Operand::scales: grid.rows = 1, grid.cols = 2; break;  // A's, B's
    case Operand::smem_A:
    case Operand::smem_B:
    case Operand::tile: {
      // As many 32-word rows as the trace reaches, whichever shared operand it is (step 11 keeps A
      // and B in one buffer), so that banks line up in columns.
      long long words = 1;
      for (const auto& i : trace.instructions)
        if (i.access.space == Space::shared)
          for (int lane = 0; lane < kWarpSize; ++lane)
            if (i.access.lane_active(lane))
              words = std::max<long long>(words, (i.access.address[size_t(lane)] + i.access.width) / kBankBytes);
      grid.banked = true;
      grid.cols = kSharedBanks;
      grid.rows = int((words + kSharedBanks - 1) / kSharedBanks);
      break;
    }
  }
  return grid;
}

std::vector<Touch> touches(const TraceInstruction& instruction, const OperandGrid& grid) {
  std::vector<Touch> out;
  if (grid.cols <= 0) return out;
  const int unit = grid.banked ? kBankBytes : instruction.element_bytes;
  const int per_lane = std::max(1, instruction.access.width / unit);
  for (int lane = 0; lane < kWarpSize; ++lane) {
    if (!instruction.access.lane_active(lane)) continue;
    for (int e = 0; e < per_lane; ++e) {
      const long long index = instruction.access.address[size_t(lane)] / unit + e;
      out.push_back({int(index / grid.cols), int(index % grid.cols), lane});
    }
  }
  return out;
}

std::vector<BankPhase> bank_phases(const WarpAccess& access) {
  std::vector<BankPhase> phases;
  const int lanes = shared_phase_lanes(access.width);
  for (int first = 0; first < kWarpSize; first += lanes) {
    BankPhase phase;
    std::array<std::set<long long>, kSharedBanks> words;
    for (int lane = first; lane < first + lanes; ++lane) {
      if (!access.lane_active(lane)) continue;
      // The words the lane's bytes fall in (a 1- or 2-byte access touches part of one word).
      const long long first_word = access.address[size_t(lane)] / kBankBytes;
      const long long last_word = (access.address[size_t(lane)] + access.width - 1) / kBankBytes;
      for (long long word = first_word; word <= last_word; ++word) {
        const int bank = int(word % kSharedBanks);
        if (phase.lanes[size_t(bank)].empty() || phase.lanes[size_t(bank)].back() != lane)
          phase.lanes[size_t(bank)].push_back(lane);
        words[size_t(bank)].insert(word);
      }
    }
    for (int bank = 0; bank < kSharedBanks; ++bank) phase.distinct_words[size_t(bank)] = int(words[size_t(bank)].size());
    phases.push_back(phase);
  }
  return phases;
}

InstructionCost instruction_cost(const TraceInstruction& instruction) {
  InstructionCost cost;
  cost.shared = instruction.access.space == Space::shared;
  if (cost.shared)
    cost.shared_cost = shared_cost(instruction.access);
  else
    cost.global = global_cost(instruction.access);
  return cost;
}

AccessTotals launch_totals(const TracedProgram& program, const TraceProblem& problem) {
  return predict(program, problem);
}

// ---- What the access panel writes ---------------------------------------------------------------

std::string iteration_text(const TracedProgram& program, int iteration) {
  return program.iteration_unit + " " + std::to_string(iteration);
}

std::string instruction_text(const TraceInstruction& instruction) {
  return std::string(instruction.label) + ", " + std::to_string(instruction.access.width) + " B";
}

std::string instruction_row_text(const TracedProgram& program, int iteration, const TraceInstruction& instruction) {
  const InstructionCost cost = instruction_cost(instruction);
  return iteration_text(program, iteration) + ": " + instruction_text(instruction) + "   " +
         (cost.shared ? std::to_string(cost.shared_cost.wavefronts) + " wavefronts (ideal " +
                            std::to_string(cost.shared_cost.ideal_wavefronts) + ")"
                      : std::to_string(cost.global.sectors) + " sectors (ideal " + std::to_string(cost.global.ideal_sectors) + ")");
}

std::string cost_text(const InstructionCost& cost) {
  if (cost.shared)
    return format("this instruction: %d wavefronts, ideal %d, worst conflict %d-way", cost.shared_cost.wavefronts,
                  cost.shared_cost.ideal_wavefronts, cost.shared_cost.max_conflict);
  return format("this instruction: %d request, %d sectors (ideal %d), %d lines", cost.global.requests, cost.global.sectors,
                cost.global.ideal_sectors, cost.global.lines);
}

std::string cp_async_note(const TraceInstruction& instruction) {
  if (!instruction.access.async_copy) return "";
  const bool shared = instruction.access.space == Space::shared;
  if (shared && !instruction.access.bypasses_l1)
    return "cp.async through the L1: conflicts among the sources' L1 banks add to the wavefronts the writes below need "
           "(docs/access-model.md, \"cp.async\")";
  if (!shared && instruction.access.bypasses_l1)
    return "cp.async around the L1: the profiler counts its sectors by pairs of neighbouring lanes, the lines each "
           "pair reads (docs/access-model.md, \"cp.async\")";
  return "";
}

std::vector<std::string> totals_text(const AccessTotals& t) {
  return {"whole launch (the model; Nsight Compute's counters):",
          format("  global: %lld load sectors, %lld store sectors", t.global_load_sectors, t.global_store_sectors),
          format("  shared: %lld load wavefronts, %lld store wavefronts", t.shared_load_wavefronts, t.shared_store_wavefronts),
          format("  shared instructions: %lld loads, %lld stores", t.shared_load_requests, t.shared_store_requests)};
}

std::string quiet_warp_text(const TracedProgram& program) {
  return "This warp issues no memory instructions: it lies past the edge of the problem, or its work is another unit's" +
         (program.quiet_warps.empty() ? "" : " (" + program.quiet_warps + ")") + ". Pick another in the thread map.";
}

OperandWindow operand_window(const OperandGrid& grid, const std::vector<Touch>& touched) {
  int r0 = grid.rows, r1 = -1, c0 = grid.cols, c1 = -1;
  for (const Touch& t : touched) r0 = std::min(r0, t.row), r1 = std::max(r1, t.row), c0 = std::min(c0, t.col), c1 = std::max(c1, t.col);
  if (r1 < 0) r0 = c0 = 0, r1 = c1 = 0;
  constexpr int kWindow = 64;
  const int rows = std::min(grid.rows, std::max(r1 - r0 + 1, std::min(grid.rows, 8)));
  const int cols = std::min(grid.cols, std::max(c1 - c0 + 1, std::min(grid.cols, 32)));
  OperandWindow window;
  window.rows = std::min(rows, kWindow), window.cols = std::min(cols, kWindow);
  window.row0 = std::clamp(r0 - (window.rows - std::min(window.rows, r1 - r0 + 1)) / 2, 0, grid.rows - window.rows);
  window.col0 = grid.banked ? 0 : std::clamp(c0 - (window.cols - std::min(window.cols, c1 - c0 + 1)) / 2, 0, grid.cols - window.cols);
  return window;
}

std::vector<Rgba> OperandWindow::pixels(const std::vector<Touch>& touched) const {
  std::vector<Rgba> out(size_t(rows) * size_t(cols), kUntouched);
  for (const Touch& t : touched)
    if (t.row >= row0 && t.row < row0 + rows && t.col >= col0 && t.col < col0 + cols)
      out[size_t(t.row - row0) * size_t(cols) + size_t(t.col - col0)] = lane_colour(t.lane);
  return out;
}

std::string operand_caption(const TraceInstruction& instruction, const OperandGrid& grid, const OperandWindow& window) {
  return format("%s%s (%d x %d%s), rows %d-%d, columns %d-%d", instruction.access.space == Space::shared ? "" : "global ",
                to_string(instruction.operand), grid.rows, grid.cols, grid.banked ? ", one column per bank" : "",
                window.row0, window.row0 + window.rows - 1, window.col0, window.col0 + window.cols - 1);
}

Boundary boundary_at(long long index, int element_bytes) {
  const long long byte = index * element_bytes;
  return byte % kLineBytes == 0 ? Boundary::line : byte % kSectorBytes == 0 ? Boundary::sector : Boundary::none;
}

// ---- Results files ------------------------------------------------------------------------------

std::string ResultRun::types_label() const {
  if (!tensor_core()) return "";
  std::string upper = layout;
  for (char& ch : upper) ch = char(ch - 'a' + 'A');
  return upper + " " + dtype + "->" + out;
}

std::string ResultRun::label() const {
  // A variant is a run of the step apart (bench_all's "no-promotion" of step 19: --param PROMOTE=0).
  const std::string name = variant.empty() ? step : step + " / " + variant;
  return tensor_core() ? name + " " + types_label() : name;
}

double ResultsFile::fp32_peak_gflops() const {
  // FP32 lanes per SM by compute capability (the programming guide's throughput table), as in
  // tools/render_docs.py.
  const int lanes = (compute_capability == "7.5" || compute_capability == "8.0") ? 64 : 128;
  return double(sms) * lanes * 2 * clock_mhz / 1000.0;
}

ResultsFile load_results(const std::string& path) {
  ResultsFile file;
  file.path = path;
  std::ifstream in(path);
  if (!in) {
    file.error = "cannot open " + path;
    return file;
  }
  try {
    const nlohmann::json document = nlohmann::json::parse(in);
    if (!document.is_object() || !document.contains("device") || !document.contains("runs"))
      throw std::runtime_error("not a GEMM Steps results file (no \"device\" and \"runs\")");
    const auto& device = document.at("device");
    file.gpu = device.at("name").get<std::string>();
    file.compute_capability = device.at("compute_capability").get<std::string>();
    file.sms = device.at("sms").get<int>();
    file.clock_mhz = device.at("clock_mhz").get<int>();
    for (const auto& run : document.at("runs")) {
      if (!run.contains("shapes")) continue;  // a bank demo: no GEMM shapes
      ResultRun out;
      out.step = run.at("step").get<std::string>();
      out.variant = run.value("variant", "");
      out.commit = run.value("commit", "");
      out.date = run.value("date", "");
      out.dtype = run.value("dtype", "f32");
      out.layout = run.value("layout", "nn");
      out.out = run.value("out", "f32");
      for (const auto& shape : run.at("shapes")) {
        if (!shape.contains("time") || shape.at("time").is_null()) continue;
        ResultPoint p;
        p.m = shape.at("m").get<int>();
        p.n = shape.at("n").get<int>();
        p.k = shape.at("k").get<int>();
        p.gflops = shape.at("time").at("gflops").get<double>();
        p.median_ms = shape.at("time").at("median_ms").get<double>();
        if (shape.contains("cublas") && !shape.at("cublas").is_null())
          p.cublas_gflops = shape.at("cublas").at("gflops").get<double>();
        if (shape.contains("cublas_tf32") && !shape.at("cublas_tf32").is_null())
          p.tf32_gflops = shape.at("cublas_tf32").at("gflops").get<double>();
        p.verdict = shape.value("verdict", "");
        out.points.push_back(p);
      }
      if (!out.points.empty()) file.runs.push_back(out);
    }
    std::sort(file.runs.begin(), file.runs.end(), [](const ResultRun& a, const ResultRun& b) { return a.label() < b.label(); });
  } catch (const std::exception& e) {
    file.runs.clear();
    file.error = path + ": " + e.what();
  }
  return file;
}

std::vector<std::string> results_files_in(const std::string& folder) {
  std::vector<std::string> out;
  std::error_code ec;
  for (const auto& entry : std::filesystem::directory_iterator(folder, ec)) {
    const std::string name = entry.path().filename().string();
    if (entry.path().extension() != ".json") continue;
    // The other files of docs/results (tools/results_lib.py's OTHER_FILES): sweeps, profiles, the
    // FP8 accuracy, the instruction ceilings, the viewer's own frame times.
    static const char* const kOtherFiles[] = {"sweep-", "model-vs-ncu-", "fp8-accuracy-", "ceilings-",
                                              "viewer-frame-times"};
    if (std::any_of(std::begin(kOtherFiles), std::end(kOtherFiles),
                    [&](const char* prefix) { return name.rfind(prefix, 0) == 0; }))
      continue;
    out.push_back(entry.path().string());
  }
  std::sort(out.begin(), out.end());
  return out;
}

std::string results_name(const ResultsFile& file) {
  const std::string name = std::filesystem::path(file.path).filename().string();
  return file.ok() ? file.gpu + "  (" + name + ")" : name + " (unusable)";
}

// ---- What the performance panel plots -------------------------------------------------------------

std::string tflops_text(double gflops) { return format("%.1f TFLOPS", gflops / 1000.0); }

std::string shape_text(const MeasuredShape& shape) {
  return std::to_string(shape[0]) + "x" + std::to_string(shape[1]) + "x" + std::to_string(shape[2]);
}

namespace {
bool measured_at(const ResultPoint& p, const MeasuredShape& shape) {
  return p.m == shape[0] && p.n == shape[1] && p.k == shape[2];
}
bool square(const MeasuredShape& s) { return s[0] == s[1] && s[1] == s[2]; }
}  // namespace

std::optional<RunGroup> group_of_step(const ResultsFile& file, const std::string& step) {
  for (const auto& run : file.runs)
    if (run.step == step) return run.group();
  return std::nullopt;
}

PerformanceView performance_view(const ResultsFile& file, RunGroup group, int shape, const std::string& highlight) {
  PerformanceView view;
  for (const auto& run : file.runs)
    if (run.group() == group) view.runs.push_back(&run);
  for (const ResultRun* run : view.runs)
    for (const auto& p : run->points)
      if (std::find(view.shapes.begin(), view.shapes.end(), MeasuredShape{p.m, p.n, p.k}) == view.shapes.end())
        view.shapes.push_back({p.m, p.n, p.k});
  std::sort(view.shapes.begin(), view.shapes.end(), [](const MeasuredShape& a, const MeasuredShape& b) {
    return square(a) != square(b) ? square(a) : a < b;
  });
  if (view.shapes.empty()) return view;
  view.shape = shape;
  if (shape < 0 || shape >= int(view.shapes.size())) {
    view.shape = 0;
    for (size_t i = 0; i < view.shapes.size(); ++i)
      if (view.shapes[i] == MeasuredShape{4096, 4096, 4096}) view.shape = int(i);
  }
  view.peak = group == RunGroup::fp32 ? file.fp32_peak_gflops() : 0.0;
  const MeasuredShape& at = view.shapes[size_t(view.shape)];
  for (size_t r = 0; r < view.runs.size(); ++r)
    for (const auto& p : view.runs[r]->points)
      if (measured_at(p, at)) {
        view.tf32 = std::max(view.tf32, p.tf32_gflops);
        view.bars.push_back({r, &p, !highlight.empty() && view.runs[r]->step == highlight});
        view.bar_cublas = std::max(view.bar_cublas, p.cublas_gflops);
      }
  view.bar_top = std::max({view.peak, view.bar_cublas, 1.0}) * 1.05;
  for (const auto& s : view.shapes)
    if (square(s)) view.sizes.push_back(s[0]);
  std::sort(view.sizes.begin(), view.sizes.end());
  view.line_top = std::max(view.peak, 1.0);
  for (const ResultRun* run : view.runs)
    for (const auto& p : run->points) view.line_top = std::max({view.line_top, p.gflops, p.cublas_gflops});
  view.line_top *= 1.05;
  for (const ResultRun* run : view.runs) {
    view.lines.emplace_back();
    for (size_t i = 0; i < view.sizes.size(); ++i)
      for (const auto& p : run->points)
        if (measured_at(p, {view.sizes[i], view.sizes[i], view.sizes[i]})) view.lines.back().push_back({i, &p});
  }
  return view;
}

std::string short_name(const ResultRun& run) { return run.step.substr(0, 2); }

std::string legend_text(const ResultRun& run) {
  return short_name(run) + (run.variant.empty() ? "" : " " + run.variant) + " " + run.types_label();
}

std::vector<std::string> bar_tooltip(const ResultRun& run, const ResultPoint& point, const MeasuredShape& shape) {
  std::vector<std::string> lines = {
      run.label() + " at " + shape_text(shape),
      format("%.1f GFLOPS (%.3f ms), cuBLAS %.1f GFLOPS: %.1f%%", point.gflops, point.median_ms, point.cublas_gflops,
             100 * point.gflops / std::max(1.0, point.cublas_gflops))};
  if (point.tf32_gflops > 0)
    lines.push_back(format("cuBLAS in TF32 on the tensor cores (a reference, not fp32): %.1f GFLOPS", point.tf32_gflops));
  lines.push_back("commit " + run.commit.substr(0, 10) + ", " + run.date);
  return lines;
}

std::string line_point_text(const ResultRun& run, int size, const ResultPoint& point) {
  return run.label() + " at " + std::to_string(size) + "^3: " + std::to_string(int(point.gflops)) + " GFLOPS, cuBLAS " +
         std::to_string(int(point.cublas_gflops));
}

}  // namespace gemm::viewer
