// Step 23 shares the k-tiles of a partial last round among clusters (stream-K), and a split tile is
// added up by whichever of its sharers finishes last: a different cluster from one launch to the
// next, and on one of two paths (kernel.cuh, add_up_split_unit: the first sharer may keep its
// partial sums in registers). The result must not depend on either: the last sharer adds the
// partial sums up in the sharers' order, from zero. This test launches step 23 many times on the
// same inputs, at shapes it splits on this GPU, with each output type, and requires every C to be
// the same to the bit as the first launch's. (That the first is right, the step's own checks show:
// its tests run it at these shapes against the CPU.)
// Exit codes: 0 repeatable, 1 a launch differed, 2 usage (it takes no arguments), 3 CUDA error,
// 77 no suitable GPU (or nothing split on it).
#include <cstdint>
#include <cstdio>
#include <random>
#include <vector>

#include "23_stream_k/kernel.cuh"
#include "device_buffer.cuh"
#include "gpu.cuh"
#include "repeatable.hpp"

namespace {

constexpr int kLaunches = 30;

// Random e4m3 bytes, NaN (S.1111.111) excluded.
std::vector<std::uint8_t> random_e4m3(size_t count, unsigned seed) {
  std::mt19937 generator(seed);
  std::uniform_int_distribution<int> byte(0, 255);
  std::vector<std::uint8_t> values(count);
  for (std::uint8_t& v : values) {
    v = std::uint8_t(byte(generator));
    if ((v & 0x7f) == 0x7f) v = 0;
  }
  return values;
}

// Returns whether all launches agreed with the first.
bool repeatable(const gemm::GemmShape& shape, gemm::OutputType out, float beta, cudaStream_t stream) {
  const size_t a_count = size_t(shape.m) * size_t(shape.k), b_count = size_t(shape.k) * size_t(shape.n);
  const size_t c_bytes = size_t(shape.m) * size_t(shape.n) * size_t(gemm::output_bytes(out));
  gemm::DeviceBuffer<std::uint8_t> a(a_count), b(b_count), c(c_bytes);
  a.upload(random_e4m3(a_count, 1));
  b.upload(random_e4m3(b_count, 2));
  const std::vector<std::uint8_t> c_before = random_e4m3(c_bytes, 3);  // any bits: beta * C is finite for these
  gemm::TcProblem problem;
  problem.shape = shape, problem.alpha = 0.5f, problem.beta = beta, problem.dtype = gemm::InputType::e4m3;
  problem.out = out, problem.a = a.data(), problem.b = b.data(), problem.c = c.data();
  const gemm::Params params = step23::to_params(step23::config_for_shape(shape, gemm::current_gpu().sms));

  std::vector<unsigned char> first;
  const int differing = gemm::launches_differing(
      kLaunches, c_bytes, stream, [&] { c.upload(c_before); }, [&] { step23::launch(problem, params, stream); },
      [&](unsigned char* into) { c.download(into, c_bytes); }, first);
  std::printf("%5d x %5d x %5d, %s, beta %g: %d launches, %d differ from the first  %s\n", shape.m, shape.n,
              shape.k, gemm::to_string(out), beta, kLaunches, differing, differing == 0 ? "PASS" : "FAIL");
  return differing == 0;
}

int run() {
  const gemm::DeviceInfo device = gemm::select_device(0, 90, "stream_k_repeatable (step 23)", 90);
  const int sms = gemm::current_gpu().sms;
  std::printf("step 23, split units added up in the sharers' order, on %s (%d SMs)\n", device.name.c_str(), sms);
  const gemm::CudaStream stream;
  return gemm::at_split_shapes(
      "stream_k_repeatable",
      {gemm::GemmShape{264, 400, 8192}, gemm::GemmShape{512, 1536, 16384}, gemm::GemmShape{512, 1024, 16384}},
      [&](const gemm::GemmShape& shape) {
        return step23::schedule_of(shape, step23::config_for_shape(shape, sms), sms).split_units > 0;
      },
      [&](const gemm::GemmShape& shape) {
        const bool f32 = repeatable(shape, gemm::OutputType::f32, -0.75f, stream.get());
        return repeatable(shape, gemm::OutputType::bf16, 0.0f, stream.get()) && f32;
      });
}

}  // namespace

int main(int argc, char**) { return gemm::repeatable_main("stream_k_repeatable", argc, run); }
