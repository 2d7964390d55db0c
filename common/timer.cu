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

TimingStats LaunchTimer::time(const std::function<void()>& launch, int reps) {
  while (int(starts_.size()) < reps) {
    cudaEvent_t start = nullptr, stop = nullptr;
    CUDA_CHECK(cudaEventCreate(&start));
    CUDA_CHECK(cudaEventCreate(&stop));
    starts_.push_back(start);
    stops_.push_back(stop);
  }
  for (int rep = 0; rep < reps; ++rep) {
    flush_l2(rep);
    CUDA_CHECK(cudaEventRecord(starts_[rep], stream_));
    launch();
    CUDA_CHECK(cudaEventRecord(stops_[rep], stream_));
  }
  CUDA_CHECK(cudaStreamSynchronize(stream_));
  std::vector<double> samples(reps);
  for (int rep = 0; rep < reps; ++rep) {
    float ms = 0;
    CUDA_CHECK(cudaEventElapsedTime(&ms, starts_[rep], stops_[rep]));
    samples[rep] = ms;
  }
  return summarize(samples);
}

}  // namespace gemm
