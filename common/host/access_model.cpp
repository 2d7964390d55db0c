#include "access_model.hpp"

#include <algorithm>
#include <cstdlib>
#include <stdexcept>

namespace gemm {

namespace {

void check_width(int width) {
  if (width != 1 && width != 2 && width != 4 && width != 8 && width != 16)
    throw std::invalid_argument("access width must be 1, 2, 4, 8 or 16 bytes");
}

// Floor division for possibly negative byte addresses (relative addresses in traces are >= 0, but
// the model does not rely on it).
std::int64_t floor_div(std::int64_t a, std::int64_t b) { return a >= 0 ? a / b : -((-a + b - 1) / b); }

// A small fixed-capacity list (a warp touches at most 32 lanes x 2 sectors/lines/words per phase).
struct SmallSet {
  std::array<std::int64_t, 4 * kWarpSize> values;  // not initialised: only [0, size) is read
  int size = 0;
  void push_back(std::int64_t value) { values[size_t(size++)] = value; }
};

int count_distinct(SmallSet& set) {
  std::sort(set.values.begin(), set.values.begin() + set.size);
  return int(std::unique(set.values.begin(), set.values.begin() + set.size) - set.values.begin());
}

// The global read of a cp.async around the L1 (.cg), measured on an H100 (tools/experiments/
// ldgsts_counts.cu, docs/access-model.md, "cp.async"): the counter goes by neighbouring pairs of
// lanes (2p, 2p + 1). A pair whose two destinations lie in the same 16 bytes of banks (its write
// conflicts) counts each reading lane's sectors on its own; any other pair counts the distinct
// 128-byte lines its reading lanes touch. Lanes that read nothing count nothing.
int bypassing_copy_sectors(const WarpAccess& access) {
  constexpr std::int64_t kBankGroupBytes = 16;  // a 16-byte write spans 4 banks
  int sectors = 0;
  for (int lane = 0; lane < kWarpSize; lane += 2) {
    const bool writes_both = ((access.counterpart_active >> lane) & 3u) == 3u;
    const auto bank_group = [&](int l) {  // which 16 bytes of a 128-byte row of banks
      const std::int64_t to = access.counterpart[size_t(l)];
      return (to - floor_div(to, kLineBytes) * kLineBytes) / kBankGroupBytes;
    };
    const bool conflicting_pair = writes_both && bank_group(lane) == bank_group(lane + 1);
    SmallSet pair;
    for (int l = lane; l < lane + 2; ++l) {
      if (!access.lane_active(l)) continue;
      const std::int64_t first = access.address[size_t(l)], last = first + access.width - 1;
      if (conflicting_pair)
        sectors += int(floor_div(last, kSectorBytes) - floor_div(first, kSectorBytes) + 1);
      else
        for (std::int64_t line = floor_div(first, kLineBytes); line <= floor_div(last, kLineBytes); ++line)
          pair.push_back(line);
    }
    if (!conflicting_pair) sectors += count_distinct(pair);
  }
  return sectors;
}

}  // namespace

GlobalCost global_cost(const WarpAccess& access) {
  check_width(access.width);
  GlobalCost cost;
  SmallSet sectors, lines, bytes;
  for (int lane = 0; lane < kWarpSize; ++lane) {
    if (!access.lane_active(lane)) continue;
    const std::int64_t first = access.address[lane];
    const std::int64_t last = first + access.width - 1;
    for (std::int64_t s = floor_div(first, kSectorBytes); s <= floor_div(last, kSectorBytes); ++s) sectors.push_back(s);
    for (std::int64_t l = floor_div(first, kLineBytes); l <= floor_div(last, kLineBytes); ++l) lines.push_back(l);
    // Distinct bytes, in units of the access width (lanes reading the same element count once).
    bytes.push_back(first);
  }
  if (sectors.size == 0) return cost;
  cost.requests = 1;
  cost.sectors = access.async_copy && access.bypasses_l1 ? bypassing_copy_sectors(access) : count_distinct(sectors);
  cost.lines = count_distinct(lines);
  const int distinct_elements = count_distinct(bytes);
  cost.ideal_sectors = (distinct_elements * access.width + kSectorBytes - 1) / kSectorBytes;
  return cost;
}

int shared_phase_lanes(int width) {
  check_width(width);
  return width <= 4 ? 32 : kWarpSize * kBankBytes / width;  // 8 bytes: 16 lanes, 16 bytes: 8 lanes
}

std::array<int, kSharedBanks> bank_load(const WarpAccess& access, int phase) {
  // The distinct words the phase touches (each lane 1 to 4 words), then how many fall in each bank.
  std::array<int, kSharedBanks> load{};
  SmallSet words;
  const int lanes = shared_phase_lanes(access.width);
  for (int lane = phase * lanes; lane < (phase + 1) * lanes && lane < kWarpSize; ++lane) {
    if (!access.lane_active(lane)) continue;
    const std::int64_t first_word = floor_div(access.address[size_t(lane)], kBankBytes);
    const std::int64_t last_word = floor_div(access.address[size_t(lane)] + access.width - 1, kBankBytes);
    for (std::int64_t word = first_word; word <= last_word; ++word) words.push_back(word);
  }
  const int distinct = count_distinct(words);
  for (int i = 0; i < distinct; ++i)
    ++load[size_t(((words.values[size_t(i)] % kSharedBanks) + kSharedBanks) % kSharedBanks)];
  return load;
}

namespace {

// The words the active lanes of `lanes` [first, first + count) touch, with their multiplicity per
// lane group (for the pairing rule below).
struct PhaseWords {
  SmallSet words;   // distinct words
  bool single_address = true;
  std::int64_t address = -1;
};

PhaseWords phase_words(const WarpAccess& access, int first, int count) {
  PhaseWords phase;
  for (int lane = first; lane < first + count && lane < kWarpSize; ++lane) {
    if (!access.lane_active(lane)) continue;
    const std::int64_t address = access.address[size_t(lane)];
    if (phase.address >= 0 && address != phase.address) phase.single_address = false;
    phase.address = address;
    for (std::int64_t word = floor_div(address, kBankBytes); word <= floor_div(address + access.width - 1, kBankBytes);
         ++word)
      phase.words.push_back(word);
  }
  phase.words.size = count_distinct(phase.words);
  return phase;
}

int bank_of(std::int64_t word) { return int(((word % kSharedBanks) + kSharedBanks) % kSharedBanks); }

// The shared write of a cp.async (LDGSTS), measured on an H100 (tools/experiments/ldgsts_counts.cu,
// docs/access-model.md, "cp.async"). Per phase (32, 16 or 8 lanes, as for a store of the same
// width; phases never pair): D, the destinations' conflict degree as for a store. A copy around the
// L1 (.cg) takes D wavefronts. A copy through it (.ca) reads its data out of the L1's banks: R is
// the most words the phase's reading lanes take from one bank (the global address modulo 128
// bytes, in 4-byte banks), a word counted once per lane that reads it (the copy does not
// broadcast), and the phase takes R + D - 1 wavefronts (the sources are read before the last of
// them is written), never more than one per lane; D where no lane reads.
SharedCost async_copy_cost(const WarpAccess& access) {
  SharedCost cost;
  const int lanes = shared_phase_lanes(access.width);
  for (int first = 0; first < kWarpSize; first += lanes) {
    const auto load = bank_load(access, first / lanes);
    const int written = *std::max_element(load.begin(), load.end());
    if (written == 0) continue;
    std::array<int, kSharedBanks> read{};
    for (int lane = first; lane < first + lanes; ++lane) {
      if (!((access.counterpart_active >> lane) & 1u)) continue;
      const std::int64_t word = floor_div(access.counterpart[size_t(lane)], kBankBytes);
      for (int w = 0; w < std::max(1, access.width / kBankBytes); ++w) ++read[size_t(bank_of(word + w))];
    }
    const int read_conflict = access.bypasses_l1 ? 0 : *std::max_element(read.begin(), read.end());
    const int wavefronts = read_conflict == 0 ? written : std::min(lanes, read_conflict + written - 1);
    cost.wavefronts += wavefronts;
    cost.ideal_wavefronts += 1;
    cost.max_conflict = std::max(cost.max_conflict, written);  // the destinations' conflicts, as for a store
  }
  return cost;
}

}  // namespace

SharedCost shared_cost(const WarpAccess& access) {
  if (access.async_copy) return async_copy_cost(access);
  SharedCost cost;
  const int lanes = shared_phase_lanes(access.width);
  const int phases = kWarpSize / lanes;
  std::array<int, 4> phase_cost{};
  for (int phase = 0; phase < phases; ++phase) {
    const auto load = bank_load(access, phase);
    phase_cost[size_t(phase)] = *std::max_element(load.begin(), load.end());
  }
  // 8- and 16-byte accesses (measured on an H100, tools/experiments/lds_phases.cu): phases come in
  // pairs (the two half-warps of an 8-byte access; quarters 0+1 and 2+3 of a 16-byte access), and a
  // pair is served in ONE wavefront when both phases are conflict-free and, together, every bank
  // holds at most one word and no word is read by both phases, or when the whole pair reads a
  // single address (a broadcast).
  int phase = 0;
  while (phase < phases) {
    const bool pairable = access.width > 4 && phase + 1 < phases && (phase % 2 == 0);
    if (pairable && phase_cost[size_t(phase)] == 1 && phase_cost[size_t(phase) + 1] == 1) {
      const PhaseWords first = phase_words(access, phase * lanes, lanes);
      const PhaseWords second = phase_words(access, (phase + 1) * lanes, lanes);
      bool merge = first.single_address && second.single_address && first.address == second.address;
      if (!merge) {
        std::array<int, kSharedBanks> used{};
        merge = true;
        for (int i = 0; i < first.words.size; ++i) ++used[size_t(bank_of(first.words.values[size_t(i)]))];
        for (int i = 0; i < second.words.size; ++i) ++used[size_t(bank_of(second.words.values[size_t(i)]))];
        for (int bank = 0; bank < kSharedBanks; ++bank) merge = merge && used[size_t(bank)] <= 1;
      }
      if (merge) {
        cost.wavefronts += 1;
        cost.ideal_wavefronts += 1;
        cost.max_conflict = std::max(cost.max_conflict, 1);
        phase += 2;
        continue;
      }
    }
    if (phase_cost[size_t(phase)] > 0) {
      cost.wavefronts += phase_cost[size_t(phase)];
      cost.ideal_wavefronts += 1;
      cost.max_conflict = std::max(cost.max_conflict, phase_cost[size_t(phase)]);
    }
    ++phase;
  }
  return cost;
}

void AccessTotals::add(const WarpAccess& access) {
  if (access.space == Space::global) {
    const GlobalCost cost = global_cost(access);
    if (access.access == Access::load) {
      global_load_sectors += cost.sectors;
      global_load_requests += cost.requests;
    } else {
      global_store_sectors += cost.sectors;
      global_store_requests += cost.requests;
    }
  } else {
    const SharedCost cost = shared_cost(access);
    (access.access == Access::load ? shared_load_wavefronts : shared_store_wavefronts) += cost.wavefronts;
    if (cost.ideal_wavefronts > 0) ++(access.access == Access::load ? shared_load_requests : shared_store_requests);
  }
}

AccessTotals& AccessTotals::operator+=(const AccessTotals& other) {
  global_load_sectors += other.global_load_sectors;
  global_store_sectors += other.global_store_sectors;
  global_load_requests += other.global_load_requests;
  global_store_requests += other.global_store_requests;
  shared_load_wavefronts += other.shared_load_wavefronts;
  shared_store_wavefronts += other.shared_store_wavefronts;
  shared_load_requests += other.shared_load_requests;
  shared_store_requests += other.shared_store_requests;
  return *this;
}

}  // namespace gemm
