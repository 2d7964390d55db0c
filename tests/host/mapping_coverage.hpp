// Checks a step's thread -> C mapping over a whole launch: every element of C is owned by exactly one
// thread, no valid thread lies outside C, and the index functions stay inside A, B and C.
// Generic over the step's functions, so each step's test is one line.
#pragma once

#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "hd.hpp"

namespace gemm::testing {

inline std::string shape_name(const GemmShape& s) {
  return std::to_string(s.m) + "x" + std::to_string(s.n) + "x" + std::to_string(s.k);
}

// The shapes every mapping is checked on: tiny, odd, off-by-one around tile sizes, non-square.
inline std::vector<GemmShape> coverage_shapes() {
  return {{1, 1, 1},   {17, 33, 65},  {1000, 999, 1001}, {32, 32, 32},   {31, 33, 1},
          {64, 65, 63}, {129, 127, 8}, {1, 300, 5},      {300, 1, 7},    {256, 256, 256}};
}

// For the one-element-per-thread mappings (steps 01 and 02): pass the step's own functions,
// e.g. check_one_element_per_thread(s, step01::launch_shape, step01::c_element, step01::a_index, ...).
template <typename LaunchFn, typename ElementFn, typename AFn, typename BFn, typename CFn>
void check_one_element_per_thread(const GemmShape& s, LaunchFn launch_shape, ElementFn c_element, AFn a_index,
                                  BFn b_index, CFn c_index) {
  const LaunchShape launch = launch_shape(s);
  std::vector<int> owners(size_t(s.m) * s.n, 0);
  const long long a_size = (long long)s.m * s.k, b_size = (long long)s.k * s.n, c_size = (long long)s.m * s.n;
  ThreadCoord t;
  for (t.block.z = 0; t.block.z < launch.grid.z; ++t.block.z)
    for (t.block.y = 0; t.block.y < launch.grid.y; ++t.block.y)
      for (t.block.x = 0; t.block.x < launch.grid.x; ++t.block.x)
        for (t.thread.z = 0; t.thread.z < launch.block.z; ++t.thread.z)
          for (t.thread.y = 0; t.thread.y < launch.block.y; ++t.thread.y)
            for (t.thread.x = 0; t.thread.x < launch.block.x; ++t.thread.x) {
              const CElement e = c_element(s, t);
              if (!e.valid) continue;
              ASSERT_TRUE(e.row >= 0 && e.row < s.m && e.col >= 0 && e.col < s.n)
                  << shape_name(s) << ": a valid thread lies outside C at (" << e.row << ", " << e.col << ")";
              ++owners[size_t(e.row) * s.n + e.col];
              const int c_at = c_index(s, e);
              ASSERT_EQ(c_at, e.row * s.n + e.col) << shape_name(s);
              ASSERT_TRUE(c_at >= 0 && c_at < c_size);
              for (int k : {0, s.k - 1}) {
                const long long a_at = a_index(s, e, k), b_at = b_index(s, e, k);
                ASSERT_TRUE(a_at >= 0 && a_at < a_size) << shape_name(s) << " A index " << a_at;
                ASSERT_TRUE(b_at >= 0 && b_at < b_size) << shape_name(s) << " B index " << b_at;
              }
            }
  for (int row = 0; row < s.m; ++row)
    for (int col = 0; col < s.n; ++col)
      ASSERT_EQ(owners[size_t(row) * s.n + col], 1)
          << shape_name(s) << ": C(" << row << ", " << col << ") is computed by " << owners[size_t(row) * s.n + col]
          << " threads";
}

}  // namespace gemm::testing
