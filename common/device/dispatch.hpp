// Turning a run-time index into a compile-time one: kernels whose tile sizes are template
// parameters are compiled for a fixed list of configurations, and --param picks one at run time.
#pragma once

#include <type_traits>
#include <utility>

#include "gpu_limits.hpp"

namespace gemm {

namespace detail {
template <typename F, int... I>
void dispatch_index(int index, F& f, std::integer_sequence<int, I...>) {
  ((index == I ? (f(std::integral_constant<int, I>{}), 0) : 0), ...);
}
}  // namespace detail

// Calls f(std::integral_constant<int, I>{}) for the I equal to `index` (0 <= index < N).
template <int N, typename F>
void dispatch_index(int index, F&& f) {
  detail::dispatch_index(index, f, std::make_integer_sequence<int, N>{});
}

// The most threads an SM holds on architecture `cc` (gpu_limits.hpp), and for the architecture being
// compiled: the device pass sees __CUDA_ARCH__; the host pass, where launch bounds mean nothing,
// gets the most of any architecture.
constexpr int max_threads_per_sm(int cc) { return architecture_limits(cc).threads_per_sm; }
constexpr int max_threads_per_sm() {
#if defined(__CUDA_ARCH__)
  return max_threads_per_sm(__CUDA_ARCH__ / 10);
#else
  return 2048;
#endif
}

// The blocks-per-SM argument of __launch_bounds__: the requested occupancy target (MINB, 0 = none),
// clamped to what an SM of the architecture can hold, so that one configuration list builds for
// every architecture (ptxas rejects an impossible target: "Value of threads per SM ... is out of
// range", an error under --Werror). `cc`: the architecture; by default the one being compiled.
constexpr int launch_min_blocks(int threads, int requested, int cc) {
  return requested < max_threads_per_sm(cc) / threads ? requested : max_threads_per_sm(cc) / threads;
}
constexpr int launch_min_blocks(int threads, int requested) {
  return requested < max_threads_per_sm() / threads ? requested : max_threads_per_sm() / threads;
}

// The position of `value` in a compiled list of configurations, or -1 (Config needs operator==).
template <typename Config, int N>
constexpr int index_of(const Config (&list)[N], const Config& value) {
  for (int i = 0; i < N; ++i)
    if (list[i] == value) return i;
  return -1;
}

}  // namespace gemm
