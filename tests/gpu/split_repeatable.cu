// Step 11 cuts the tiles of a partial last wave along k, and a split tile is summed by whichever of
// its sharers finishes last: a different block from one launch to the next, and on one of two
// paths (kernel.cuh, add_up_split_tile: the first sharer may keep its partial sums in registers).
// The result must not depend on either: the last block adds the partial sums up in block order.
// This test launches step 11 many times on the same inputs, at shapes whose tiles it splits on this
// GPU, and requires every C to be the same to the bit as the first launch's, and the first to agree
// with a CPU reference where the shape is small enough to compute one.
// Exit codes: 0 repeatable, 1 a launch differed or was wrong, 2 usage (it takes no arguments),
// 3 CUDA error, 77 no suitable GPU (or nothing split on it).
#include <cstdio>
#include <cstring>
#include <vector>

#include "11_split_k_tail/kernel.cuh"
#include "cpu_gemm.hpp"
#include "device_buffer.cuh"
#include "gpu.cuh"
#include "random.hpp"
#include "repeatable.hpp"
#include "verify.hpp"

namespace {

constexpr int kLaunches = 40;
constexpr long long kCpuReferenceLimit = 1LL << 28;  // multiply-adds: the CPU reference of larger shapes is skipped

// Returns whether all launches agreed (and the first with the CPU, where computed).
bool repeatable(const gemm::GemmShape& shape, const gemm::Params& params, cudaStream_t stream) {
  const size_t a_count = size_t(shape.m) * size_t(shape.k), b_count = size_t(shape.k) * size_t(shape.n);
  const size_t c_count = size_t(shape.m) * size_t(shape.n);
  std::vector<float> a(a_count), b(b_count), c_before(c_count);
  gemm::fill_uniform(a, 10, 1);
  gemm::fill_uniform(b, 10, 2);
  gemm::fill_uniform(c_before, 10, 3);
  gemm::DeviceBuffer<float> a_device(a_count), b_device(b_count), c_device(c_count);
  a_device.upload(a);
  b_device.upload(b);
  const float alpha = 1.5f, beta = -0.75f;  // beta != 0: C is read, so it is uploaded afresh each launch
  const gemm::Fp32Problem problem{shape, alpha, beta, a_device.data(), b_device.data(), c_device.data()};

  std::vector<unsigned char> first_bytes;
  const int differing = gemm::launches_differing(
      kLaunches, c_count * sizeof(float), stream, [&] { c_device.upload(c_before); },
      [&] { step11::launch(problem, params, stream); },
      [&](unsigned char* into) { c_device.download(reinterpret_cast<float*>(into), c_count); }, first_bytes);
  std::vector<float> first(c_count);
  std::memcpy(first.data(), first_bytes.data(), c_count * sizeof(float));

  bool correct = true;
  const char* checked = "not checked against the CPU (large)";
  if ((long long)shape.m * shape.n * shape.k <= kCpuReferenceLimit) {
    std::vector<double> reference(c_count);
    gemm::cpu_gemm_naive(shape.m, shape.n, shape.k, alpha, a.data(), b.data(), beta, c_before.data(), reference.data());
    correct = gemm::compare(first.data(), reference.data(), c_count, gemm::kFp32Tolerance).passed;
    checked = correct ? "agrees with the CPU" : "DISAGREES with the CPU";
  }
  std::printf("%5d x %5d x %5d: %d launches, %d differ from the first; first %s  %s\n", shape.m, shape.n, shape.k,
              kLaunches, differing, checked, differing == 0 && correct ? "PASS" : "FAIL");
  return differing == 0 && correct;
}

int run() {
  const gemm::DeviceInfo device = gemm::select_device(0, 80, "split_repeatable (step 11)");
  gemm::Params params = step11::to_params(step11::kConfigs[0]);
  params["SPLIT"] = 1;
  const step11::Config cfg = step11::config_from(params);
  const int sms = gemm::current_gpu().sms;
  std::printf("step 11, split tiles summed in block order, on %s (%d SMs)\n", device.name.c_str(), sms);
  const gemm::CudaStream stream;
  return gemm::at_split_shapes(
      "split_repeatable",
      {gemm::GemmShape{130, 260, 33}, gemm::GemmShape{520, 1000, 100}, gemm::GemmShape{1024, 1024, 1024},
       gemm::GemmShape{4096, 4096, 512}},
      [&](const gemm::GemmShape& shape) { return step11::schedule_of(shape, cfg, sms).split_tiles > 0; },
      [&](const gemm::GemmShape& shape) { return repeatable(shape, params, stream.get()); });
}

}  // namespace

int main(int argc, char**) { return gemm::repeatable_main("split_repeatable", argc, run); }
