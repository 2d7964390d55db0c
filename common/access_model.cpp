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
  cost.sectors = count_distinct(sectors);
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

SharedCost shared_cost(const WarpAccess& access) {
  SharedCost cost;
  const int phases = kWarpSize / shared_phase_lanes(access.width);
  for (int phase = 0; phase < phases; ++phase) {
    const auto load = bank_load(access, phase);
    const int worst = *std::max_element(load.begin(), load.end());
    if (worst == 0) continue;  // no active lane in this phase
    cost.wavefronts += worst;
    cost.ideal_wavefronts += 1;
    cost.max_conflict = std::max(cost.max_conflict, worst);
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
