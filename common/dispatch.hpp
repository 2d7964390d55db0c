// Turning a run-time index into a compile-time one: kernels whose tile sizes are template
// parameters are compiled for a fixed list of configurations, and --param picks one at run time.
#pragma once

#include <type_traits>
#include <utility>

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

}  // namespace gemm
