// Timing with CUDA events: each repetition is bracketed by its own pair of events, after an L2 flush
// outside the bracket, so that every repetition starts with cold caches (A, B and C of a 1024^3
// problem fit in an H100's 50 MB L2; without the flush, repeated launches would time the cache).
#pragma once

#include <cuda_runtime.h>

#include <functional>
#include <vector>

#include "cuda_check.cuh"
#include "device_buffer.cuh"
#include "stats.hpp"

namespace gemm {

class LaunchTimer {
 public:
  // `l2_bytes`: the L2 size; the flush writes twice that.
  LaunchTimer(cudaStream_t stream, long long l2_bytes);
  ~LaunchTimer();
  LaunchTimer(const LaunchTimer&) = delete;
  LaunchTimer& operator=(const LaunchTimer&) = delete;

  // Milliseconds of one launch (no flush), e.g. to choose the repetition count.
  double time_once(const std::function<void()>& launch);
  // `reps` repetitions, each after an L2 flush; median, min and max.
  TimingStats time(const std::function<void()>& launch, int reps);
  // The same for several launches taken in turn (rep 0 of each, then rep 1 of each, ...), so that
  // each sees the same GPU: a long run heats the card and lowers its clocks under the power limit,
  // and timing one launch's reps after the other's would hand the later one a hotter card.
  std::vector<TimingStats> time_in_turn(const std::vector<std::function<void()>>& launches, int reps);

 private:
  void flush_l2(int rep);
  cudaStream_t stream_;
  DeviceBuffer<unsigned char> flush_buffer_;
  std::vector<cudaEvent_t> starts_, stops_;
};

}  // namespace gemm
