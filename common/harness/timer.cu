#include "timer.cuh"

namespace gemm {

LaunchTimer::LaunchTimer(cudaStream_t stream, long long l2_bytes)
    : stream_(stream), flush_buffer_(std::size_t(2 * (l2_bytes > 0 ? l2_bytes : (64ll << 20)))) {}

LaunchTimer::~LaunchTimer() {
  for (cudaEvent_t event : starts_) cudaEventDestroy(event);
  for (cudaEvent_t event : stops_) cudaEventDestroy(event);
}

void LaunchTimer::flush_l2(int rep) {
  CUDA_CHECK(cudaMemsetAsync(flush_buffer_.data(), rep & 0xff, flush_buffer_.bytes(), stream_));
}

double LaunchTimer::time_once(const std::function<void()>& launch) {
  return time(launch, 1).median_ms;
}

TimingStats LaunchTimer::time(const std::function<void()>& launch, int reps) { return time_in_turn({launch}, reps)[0]; }

std::vector<TimingStats> LaunchTimer::time_in_turn(const std::vector<std::function<void()>>& launches, int reps) {
  const int count = int(launches.size()), timed = count * reps;
  while (int(starts_.size()) < timed) {
    cudaEvent_t start = nullptr, stop = nullptr;
    CUDA_CHECK(cudaEventCreate(&start));
    CUDA_CHECK(cudaEventCreate(&stop));
    starts_.push_back(start);
    stops_.push_back(stop);
  }
  for (int rep = 0; rep < reps; ++rep)
    for (int which = 0; which < count; ++which) {
      const int event = rep * count + which;
      flush_l2(event);
      CUDA_CHECK(cudaEventRecord(starts_[event], stream_));
      launches[size_t(which)]();
      CUDA_CHECK(cudaEventRecord(stops_[event], stream_));
    }
  CUDA_CHECK(cudaStreamSynchronize(stream_));
  std::vector<TimingStats> stats;
  for (int which = 0; which < count; ++which) {
    std::vector<double> samples(reps);
    for (int rep = 0; rep < reps; ++rep) {
      float ms = 0;
      CUDA_CHECK(cudaEventElapsedTime(&ms, starts_[rep * count + which], stops_[rep * count + which]));
      samples[rep] = ms;
    }
    stats.push_back(summarize(samples));
  }
  return stats;
}

}  // namespace gemm
