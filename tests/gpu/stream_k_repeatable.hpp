// What the stream-K steps' repeatability tests share (stream_k_repeatable_NN.cu, one per step): a
// split tile is added up by whichever of its sharers finishes last, a different cluster from one
// launch to the next, and on one of two paths (kernel.cuh, add_up_split_unit: the first sharer may
// keep its partial sums in registers). The result must not depend on either: the last sharer adds
// the partial sums up in the sharers' order, from zero. The test launches its step many times on the
// same inputs, at shapes it splits on this GPU, with each output type, and requires every C to be
// the same to the bit as the first launch's. (That the first is right, the step's own checks show:
// its tests run it at these shapes against the CPU.)
// Exit codes: 0 repeatable, 1 a launch differed, 2 usage (it takes no arguments), 3 CUDA error,
// 77 no suitable GPU (or nothing split on it).
#pragma once

#include <cstdint>
#include <cstdio>
#include <initializer_list>
#include <random>
#include <vector>

#include "device_buffer.cuh"
#include "gpu.cuh"
#include "repeatable.hpp"

namespace gemm::stream_k_testing {

constexpr int kLaunches = 30;

// Random e4m3 bytes, NaN (S.1111.111) excluded.
inline std::vector<std::uint8_t> random_e4m3(size_t count, unsigned seed) {
  std::mt19937 generator(seed);
  std::uniform_int_distribution<int> byte(0, 255);
  std::vector<std::uint8_t> values(count);
  for (std::uint8_t& v : values) {
    v = std::uint8_t(byte(generator));
    if ((v & 0x7f) == 0x7f) v = 0;
  }
  return values;
}

// Step: the step's functions (stream_k_repeatable_NN.cu): kName, params(shape, sms) (its tile by
// shape), splits(shape, sms) and launch(problem, params, stream).
// Returns whether all launches agreed with the first.
template <typename Step>
bool repeatable(const GemmShape& shape, OutputType out, float beta, cudaStream_t stream) {
  const size_t a_count = size_t(shape.m) * size_t(shape.k), b_count = size_t(shape.k) * size_t(shape.n);
  const size_t c_bytes = size_t(shape.m) * size_t(shape.n) * size_t(output_bytes(out));
  DeviceBuffer<std::uint8_t> a(a_count), b(b_count), c(c_bytes);
  a.upload(random_e4m3(a_count, 1));
  b.upload(random_e4m3(b_count, 2));
  const std::vector<std::uint8_t> c_before = random_e4m3(c_bytes, 3);  // any bits: beta * C is finite for these
  TcProblem problem;
  problem.shape = shape, problem.alpha = 0.5f, problem.beta = beta, problem.dtype = InputType::e4m3;
  problem.out = out, problem.a = a.data(), problem.b = b.data(), problem.c = c.data();
  const Params params = Step::params(shape, current_gpu().sms);

  std::vector<unsigned char> first;
  const int differing = launches_differing(
      kLaunches, c_bytes, stream, [&] { c.upload(c_before); }, [&] { Step::launch(problem, params, stream); },
      [&](unsigned char* into) { c.download(into, c_bytes); }, first);
  std::printf("%5d x %5d x %5d, %s, beta %g: %d launches, %d differ from the first  %s\n", shape.m, shape.n,
              shape.k, to_string(out), beta, kLaunches, differing, differing == 0 ? "PASS" : "FAIL");
  return differing == 0;
}

// The test of Step at `shapes` (those it splits on this GPU), each with f32 output reading C and
// bf16 output stored by TMA.
template <typename Step>
int run(std::initializer_list<GemmShape> shapes) {
  const DeviceInfo device = select_device(0, 90, Step::kName, 90);
  const int sms = current_gpu().sms;
  std::printf("%s, split units added up in the sharers' order, on %s (%d SMs)\n", Step::kName, device.name.c_str(), sms);
  const CudaStream stream;
  return at_split_shapes("stream_k_repeatable", shapes, [&](const GemmShape& shape) { return Step::splits(shape, sms); },
                         [&](const GemmShape& shape) {
                           const bool f32 = repeatable<Step>(shape, OutputType::f32, -0.75f, stream.get());
                           return repeatable<Step>(shape, OutputType::bf16, 0.0f, stream.get()) && f32;
                         });
}

}  // namespace gemm::stream_k_testing
