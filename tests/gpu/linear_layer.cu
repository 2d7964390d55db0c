// A linear layer's forward pass and both gradients with a tensor-core step's three layouts (the first
// argument: the step's number, one of those whose linear_layer_NN.cu is linked in), the job they are
// built for: Y = X W (NN), dX = dY W^T (NT: W read transposed), dW = X^T dY (TN: X read transposed).
// Each product is computed by the step on the same device buffers a training step would use (no
// copies, no explicit transposes) and compared with cublasGemmEx on the same buffers and with a CPU
// fp64 reference on the same rounded values.
// Exit codes: 0 all agree, 1 a product disagrees, 2 usage, 3 CUDA error, 77 no suitable GPU.
#include <algorithm>
#include <cstdio>
#include <functional>
#include <iterator>
#include <map>
#include <string>
#include <vector>

#include "cpu_gemm.hpp"
#include "cublas_ref.cuh"
#include "device_buffer.cuh"
#include "exit_codes.hpp"
#include "gpu.cuh"
#include "linear_layer_step.hpp"
#include "program.cuh"
#include "random.hpp"
#include "verify.hpp"

std::map<std::string, std::function<linear_layer::Step()>>& linear_layer::registered_steps() {
  static std::map<std::string, std::function<Step()>> steps;
  return steps;
}

namespace {

using gemm::InputType;
using gemm::Layout;
using gemm::OutputType;

// A row-major matrix, as 16-bit values on the device and as the same rounded values on the host.
struct Matrix {
  int rows, cols;
  std::vector<float> host;
  gemm::DeviceBuffer<std::uint16_t> device;
  Matrix(int r, int c, InputType type, std::uint64_t seed, std::uint64_t stream)
      : rows(r), cols(c), host(size_t(r) * size_t(c)), device(size_t(r) * size_t(c)) {
    gemm::fill_uniform(host, seed, stream);
    std::vector<std::uint16_t> bits(host.size());
    for (size_t i = 0; i < host.size(); ++i) {
      bits[i] = gemm::to_16bit(host[i], type);
      host[i] = gemm::from_16bit(bits[i], type);
    }
    device.upload(bits);
  }
  float at(int r, int c) const { return host[size_t(r) * size_t(cols) + size_t(c)]; }
};

std::vector<float> transpose(const Matrix& m) {
  std::vector<float> t(m.host.size());
  for (int r = 0; r < m.rows; ++r)
    for (int c = 0; c < m.cols; ++c) t[size_t(c) * size_t(m.rows) + size_t(r)] = m.at(r, c);
  return t;
}

using linear_layer::Step;

// "12, 13 or 14": the registered steps' numbers, in order.
std::string registered_numbers() {
  std::string named;
  const auto& steps = linear_layer::registered_steps();
  for (auto it = steps.begin(); it != steps.end(); ++it) {
    if (it != steps.begin()) named += std::next(it) == steps.end() ? " or " : ", ";
    named += it->first;
  }
  return named;
}

Step step_named(const std::string& name) {
  const auto& steps = linear_layer::registered_steps();
  const auto found = steps.find(name);
  if (found == steps.end())
    throw gemm::UsageError("unknown step '" + name + "': use " + registered_numbers() +
                           " (usage: linear_layer_test STEP f16|bf16)");
  return found->second();
}

// One product: ours and cuBLAS on the same device inputs, both against the CPU.
bool check(const char* what, const Step& step, const gemm::TcProblem& problem, const std::vector<float>& a_logical,
           const std::vector<float>& b_logical, cudaStream_t stream, cublasHandle_t cublas) {
  const gemm::GemmShape& s = problem.shape;
  const size_t count = size_t(s.m) * size_t(s.n);
  gemm::DeviceBuffer<float> ours(count), theirs(count);
  CUDA_CHECK(cudaMemset(ours.data(), 0xff, count * sizeof(float)));  // NaN: every element must be written
  gemm::TcProblem p = problem;
  p.c = ours.data();
  step.launch(p, stream);
  gemm::cublas_gemm_ex(cublas, problem, OutputType::f32, theirs.data());
  CUDA_CHECK(cudaStreamSynchronize(stream));
  std::vector<float> c_ours(count), c_theirs(count);
  ours.download(c_ours.data(), count, 0);
  theirs.download(c_theirs.data(), count, 0);
  std::vector<double> reference(count);
  const std::vector<float> zero(count, 0.0f);
  gemm::cpu_gemm_naive(s.m, s.n, s.k, 1.0, a_logical.data(), b_logical.data(), 0.0, zero.data(), reference.data());
  const gemm::ErrorReport vs_cpu = gemm::compare(c_ours.data(), reference.data(), count, gemm::kFp32Tolerance);
  const gemm::ErrorReport vs_cublas = gemm::compare(c_ours.data(), c_theirs.data(), count, gemm::kFp32Tolerance);
  const gemm::ErrorReport cublas_vs_cpu = gemm::compare(c_theirs.data(), reference.data(), count, gemm::kFp32Tolerance);
  std::printf("%-34s %4dx%4dx%4d %s: vs CPU %.1e, vs cuBLAS %.1e (cuBLAS vs CPU %.1e)  %s\n", what, s.m, s.n, s.k,
              gemm::to_string(problem.layout), vs_cpu.relative_frobenius, vs_cublas.relative_frobenius,
              cublas_vs_cpu.relative_frobenius, vs_cpu.passed && vs_cublas.passed ? "PASS" : "FAIL");
  return vs_cpu.passed && vs_cublas.passed;
}

int run(const Step& step, InputType type) {
  const int needed_cc = type == InputType::bf16 ? std::max(step.min_cc, gemm::kBf16MinCc) : step.min_cc;
  const bool bf16_needs_more = type == InputType::bf16 && step.min_cc < gemm::kBf16MinCc;
  const gemm::DeviceInfo device = gemm::select_device(0, needed_cc, "linear_layer " + step.name, step.only_cc);
  std::printf("linear layer with %s on %s, %s inputs, f32 accumulate and output\n", step.name.c_str(),
              device.name.c_str(), gemm::to_string(type));
  const int batch = 96, in_features = 200, out_features = 136;  // the K of each product is a multiple of 8
  const Matrix x(batch, in_features, type, 7, 1), w(in_features, out_features, type, 7, 2), dy(batch, out_features, type, 7, 3);
  const gemm::CudaStream owned;
  gemm::CublasHandle cublas(owned.get());
  gemm::TcProblem forward{{batch, out_features, in_features}, 1, 0, Layout::nn, type, OutputType::f32, x.device.data(),
                          w.device.data(), nullptr};
  // dX = dY W^T: W is the stored I x O matrix, read as the transposed (N x K) operand.
  gemm::TcProblem grad_x{{batch, in_features, out_features}, 1, 0, Layout::nt, type, OutputType::f32, dy.device.data(),
                         w.device.data(), nullptr};
  // dW = X^T dY: X is the stored B x I matrix, read as the transposed (K x M) operand.
  gemm::TcProblem grad_w{{in_features, out_features, batch}, 1, 0, Layout::tn, type, OutputType::f32, x.device.data(),
                         dy.device.data(), nullptr};
  if (step.kernel)  // before any launch, as the step's program does
    for (const gemm::TcProblem* problem : {&forward, &grad_x, &grad_w})
      gemm::check_compiled_code(step.kernel(*problem), needed_cc,
                                bf16_needs_more ? "bf16 tensor-core instructions" : "this step's instructions",
                                "linear_layer " + step.name);
  bool ok = true;
  ok &= check("forward  Y  = X  W", step, forward, x.host, w.host, owned.get(), cublas.get());
  ok &= check("backward dX = dY W^T", step, grad_x, dy.host, transpose(w), owned.get(), cublas.get());
  ok &= check("backward dW = X^T dY", step, grad_w, transpose(x), dy.host, owned.get(), cublas.get());
  return ok ? gemm::kExitOk : gemm::kExitWrongResult;
}

}  // namespace

int main(int argc, char** argv) {
  return gemm::run_program("linear_layer", [&] {
    if (argc != 3 || (std::string(argv[2]) != "f16" && std::string(argv[2]) != "bf16"))
      throw gemm::UsageError("usage: linear_layer_test STEP f16|bf16 (STEP: " + registered_numbers() + ")");
    return run(step_named(argv[1]), std::string(argv[2]) == "bf16" ? InputType::bf16 : InputType::f16);
  });
}
