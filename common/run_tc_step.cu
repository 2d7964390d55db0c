#include "run_tc_step.cuh"

#include <cuda_bf16.h>
#include <cuda_fp16.h>

#include <cstdio>
#include <cstring>
#include <stdexcept>

#include "cpu_gemm.hpp"
#include "cublas_ref.cuh"
#include "cuda_check.cuh"
#include "device_buffer.cuh"
#include "exit_codes.hpp"
#include "gpu.cuh"
#include "harness.cuh"
#include "program.cuh"
#include "random.hpp"
#include "report.hpp"
#include "timer.cuh"
#include "verify.hpp"

namespace gemm {

namespace {

constexpr double kCpuReferenceMaxFlops = 2.2e9;
constexpr std::size_t kGuardBytes = 256;  // each side of C; keeps C 256-byte aligned
constexpr unsigned char kGuardByte = 0xa5;
// f32 output: the products of 16-bit inputs are exact in f32, so the error is f32 accumulation, as
// in the fp32 steps. f16 output adds one rounding to 11 bits per element (2^-11 relative).
constexpr Tolerance kF32OutTolerance = kFp32Tolerance;
constexpr Tolerance kF16OutTolerance{2e-3, 1e-2};

std::size_t elements(int rows, int cols) { return std::size_t(rows) * std::size_t(cols); }
std::size_t in_bytes() { return 2; }
std::size_t out_bytes(OutputType out) { return out == OutputType::f16 ? 2 : 4; }

// One shape's inputs: logical A (M x K), B (K x N) and C as floats holding the rounded values, and
// the 16-bit A and B as stored for the layout.
struct TcInputs {
  std::vector<float> a, b, c;               // logical, rounded to what the GPU sees
  std::vector<std::uint16_t> a_stored, b_stored;
  std::vector<unsigned char> c_stored;       // C in the output type
};

TcInputs make_tc_inputs(const GemmShape& s, const Options& o) {
  TcInputs in;
  in.a.resize(elements(s.m, s.k));
  in.b.resize(elements(s.k, s.n));
  in.c.resize(elements(s.m, s.n));
  const std::uint64_t stream = (std::uint64_t(s.m) * 1000003u + std::uint64_t(s.n)) * 1000003u + std::uint64_t(s.k);
  fill_uniform(in.a, o.seed, 3 * stream);
  fill_uniform(in.b, o.seed, 3 * stream + 1);
  fill_uniform(in.c, o.seed, 3 * stream + 2);
  in.a_stored.resize(in.a.size());
  in.b_stored.resize(in.b.size());
  for (int m = 0; m < s.m; ++m)
    for (int k = 0; k < s.k; ++k) {
      const std::uint16_t bits = to_16bit(in.a[elements(m, s.k) + std::size_t(k)], o.dtype);
      in.a[elements(m, s.k) + std::size_t(k)] = from_16bit(bits, o.dtype);
      const std::size_t at = o.layout == Layout::tn ? elements(k, s.m) + std::size_t(m) : elements(m, s.k) + std::size_t(k);
      in.a_stored[at] = bits;
    }
  for (int k = 0; k < s.k; ++k)
    for (int n = 0; n < s.n; ++n) {
      const std::uint16_t bits = to_16bit(in.b[elements(k, s.n) + std::size_t(n)], o.dtype);
      in.b[elements(k, s.n) + std::size_t(n)] = from_16bit(bits, o.dtype);
      const std::size_t at = o.layout == Layout::nt ? elements(n, s.k) + std::size_t(k) : elements(k, s.n) + std::size_t(n);
      in.b_stored[at] = bits;
    }
  in.c_stored.resize(in.c.size() * out_bytes(o.out));
  for (std::size_t i = 0; i < in.c.size(); ++i) {
    if (o.out == OutputType::f16) {
      const std::uint16_t bits = to_16bit(in.c[i], InputType::f16);
      in.c[i] = from_16bit(bits, InputType::f16);
      std::memcpy(&in.c_stored[2 * i], &bits, 2);
    } else {
      std::memcpy(&in.c_stored[4 * i], &in.c[i], 4);
    }
  }
  return in;
}

std::vector<float> c_as_float(const std::vector<unsigned char>& bytes, OutputType out) {
  std::vector<float> values(bytes.size() / out_bytes(out));
  for (std::size_t i = 0; i < values.size(); ++i) {
    if (out == OutputType::f16) {
      std::uint16_t bits;
      std::memcpy(&bits, &bytes[2 * i], 2);
      values[i] = from_16bit(bits, InputType::f16);
    } else {
      std::memcpy(&values[i], &bytes[4 * i], 4);
    }
  }
  return values;
}

std::string cublas_label(const Options& o) {
  return std::string("cublasGemmEx (") + to_string(o.dtype) + " in, f32 compute, " + to_string(o.out) + " out, " +
         to_string(o.layout) + ")";
}

class TcShapeRunner {
 public:
  TcShapeRunner(const TcStepDescription& step, const Options& options, cudaStream_t stream, cublasHandle_t cublas,
                LaunchTimer& timer)
      : step_(step), o_(options), stream_(stream), cublas_(cublas), timer_(timer) {}

  ShapeResult run(const GemmShape& s, const Params& params) {
    ShapeResult result;
    result.m = s.m, result.n = s.n, result.k = s.k;
    result.alpha = o_.alpha, result.beta = o_.beta;
    const TcInputs in = make_tc_inputs(s, o_);
    DeviceBuffer<std::uint16_t> a(in.a_stored.size()), b(in.b_stored.size());
    a.upload(in.a_stored);
    b.upload(in.b_stored);
    const std::size_t c_bytes = in.c_stored.size();
    DeviceBuffer<unsigned char> c(c_bytes + 2 * kGuardBytes), c_cublas(c_bytes);
    TcProblem ours{s, o_.alpha, o_.beta, o_.layout, o_.dtype, o_.out, a.data(), b.data(), c.data() + kGuardBytes};
    TcProblem theirs = ours;
    theirs.c = c_cublas.data();
    if (o_.check) check(result, in, c, ours, params);
    if (!o_.check_only) time(result, ours, theirs, params);
    return result;
  }

 private:
  void check(ShapeResult& result, const TcInputs& in, DeviceBuffer<unsigned char>& c, const TcProblem& ours,
             const Params& params) {
    const GemmShape& s = ours.shape;
    const std::size_t count = in.c.size(), bytes = in.c_stored.size();
    const std::vector<unsigned char> guard(kGuardBytes, kGuardByte);
    c.upload(guard, 0);
    c.upload(guard, kGuardBytes + bytes);
    if (o_.beta == 0.0f)
      CUDA_CHECK(cudaMemset(c.data() + kGuardBytes, 0xff, bytes));  // all-ones bits: NaN in f32 and f16
    else
      c.upload(in.c_stored, kGuardBytes);
    step_.launch(ours, params, stream_);
    CUDA_CHECK(cudaStreamSynchronize(stream_));
    std::vector<unsigned char> all(bytes + 2 * kGuardBytes);
    c.download(all.data(), all.size(), 0);
    bool guards_intact = true;
    for (std::size_t i = 0; i < kGuardBytes; ++i)
      guards_intact = guards_intact && all[i] == kGuardByte && all[kGuardBytes + bytes + i] == kGuardByte;
    const std::vector<float> computed =
        c_as_float(std::vector<unsigned char>(all.begin() + kGuardBytes, all.begin() + std::ptrdiff_t(kGuardBytes + bytes)), o_.out);
    const Tolerance tolerance = o_.out == OutputType::f16 ? kF16OutTolerance : kF32OutTolerance;
    const double flops = 2.0 * double(s.m) * double(s.n) * double(s.k);
    if (flops <= kCpuReferenceMaxFlops) {
      std::vector<double> reference(count);
      cpu_gemm_blocked(s.m, s.n, s.k, o_.alpha, in.a.data(), in.b.data(), o_.beta, in.c.data(), reference.data());
      result.reference = "cpu-fp64 on the rounded inputs";
      result.error = compare(computed.data(), reference.data(), count, tolerance);
    } else {
      // cuBLAS on the same device inputs, f32 output; its C starts as the (rounded) input C.
      DeviceBuffer<float> reference_c(count);
      reference_c.upload(in.c);
      cublas_gemm_ex(cublas_, ours, OutputType::f32, reference_c.data());
      CUDA_CHECK(cudaStreamSynchronize(stream_));
      std::vector<float> reference(count);
      reference_c.download(reference.data(), count, 0);
      result.reference = "cublas-gemmex-f32-out";
      result.error = compare(computed.data(), reference.data(), count, tolerance);
    }
    finish_check(result, guards_intact, computed, s, step_.name);
  }

  void time(ShapeResult& result, const TcProblem& ours, const TcProblem& theirs, const Params& params) {
    time_against_cublas(
        timer_, o_.warmup, o_.reps, [&] { step_.launch(ours, params, stream_); },
        [&] { cublas_gemm_ex(cublas_, theirs, theirs.out, theirs.c); }, result);
  }

  const TcStepDescription& step_;
  const Options& o_;
  cudaStream_t stream_;
  cublasHandle_t cublas_;
  LaunchTimer& timer_;
};

int run(int argc, char** argv, const TcStepDescription& step) {
  OptionSet set;
  set.tensor_core = true;
  Options options = parse_options(argc, argv, step.params, set);
  if (options.help) {
    std::printf("%s", usage_text(step.name, step.title, step.params, set).c_str());
    return kExitOk;
  }
  if (step.check_params) {
    const std::string rule = step.check_params(options.params);
    if (!rule.empty()) throw UsageError("--param values rejected: " + rule);
  }
  if (options.dtype == InputType::bf16 && options.out == OutputType::f16)
    throw UsageError("--dtype bf16 with --out f16: cuBLAS has no bf16-in, f16-out GEMM to compare with; use --out f32");
  const std::vector<GemmShape> shapes = options.shapes.empty() ? default_shapes() : options.shapes;
  for (const GemmShape& s : shapes) {
    const std::string rule = step.shape_rule ? step.shape_rule(s, options.layout) : tc_shape_rule(s, options.layout);
    if (!rule.empty()) throw UsageError("shape " + shape_text(s) + " (layout " + to_string(options.layout) + "): " + rule);
  }
  // bf16 tensor-core instructions need compute capability 8.0.
  const int min_cc = options.dtype == InputType::bf16 ? std::max(step.min_cc, 80) : step.min_cc;
  const DeviceInfo device = select_device(options.device, min_cc, step.name, step.only_cc);
  cudaDeviceProp prop{};
  CUDA_CHECK(cudaGetDeviceProperties(&prop, options.device));
  bool params_for_gpu = false;  // the defaults did not fit this GPU; the step chose others
  if (!options.params_given && step.params_for_gpu) {
    const Params chosen = step.params_for_gpu(options.params, int(prop.sharedMemPerBlockOptin));
    if (step.check_params && !step.check_params(chosen).empty())
      throw std::logic_error(step.name + " chose tunables it cannot run for this GPU");
    params_for_gpu = chosen != options.params;
    options.params = chosen;
  }
  const auto params_of = [&](const GemmShape& s) {
    ParamsForShape choose;
    if (step.params_for_shape)
      choose = [&](const GemmShape& shape, const Params& defaults, int sms) {
        return step.params_for_shape(shape, options.layout, defaults, sms);
      };
    return params_for(s, options, choose, device.sms, step.check_params, step.name);
  };
  std::size_t free_bytes = 0, total_bytes = 0;
  CUDA_CHECK(cudaMemGetInfo(&free_bytes, &total_bytes));
  for (const GemmShape& s : shapes) {
    const std::size_t needed = in_bytes() * (elements(s.m, s.k) + elements(s.k, s.n)) +
                               (out_bytes(options.out) * 2 + 4) * elements(s.m, s.n) +
                               (options.check_only ? 0 : std::size_t(2 * device.l2_bytes));
    if (needed > free_bytes)
      throw UsageError("shape " + shape_text(s) + " needs " + std::to_string(needed / 1000000) + " MB of device memory; " +
                       std::to_string(free_bytes / 1000000) + " MB are free: use smaller sizes");
    check_launch_limits(s, step.launch_shape(s, params_of(s)), prop);
  }

  std::printf("%s: %s\n%s\n", step.name.c_str(), step.title.c_str(), device_header(device).c_str());
  std::printf("C = %g*A*B + %g*C, %s in, f32 accumulate, %s out, layout %s, seed %llu", double(options.alpha),
              double(options.beta), to_string(options.dtype), to_string(options.out), to_string(options.layout),
              (unsigned long long)options.seed);
  for (const auto& [key, value] : options.params) std::printf(", %s=%d", key.c_str(), value);
  std::printf("\n");
  if (params_for_gpu)
    std::printf("(the default tunables need more shared memory per block than this GPU's %zu bytes; chosen instead: "
                "the ones above)\n", std::size_t(prop.sharedMemPerBlockOptin));
  // The header's resource report: the kernel the run's tunables launch for the first shape. A shape
  // that launches another one reports its own above its row (run_with_params).
  const void* run_kernel =
      step.kernel ? step.kernel(shapes.front(), options.params, options.layout, options.dtype, options.out) : nullptr;
  KernelReport kernel;
  if (run_kernel) kernel = kernel_report(run_kernel, step.launch_shape(shapes.front(), options.params), prop);
  std::printf("%s\n", table_header().c_str());
  std::fflush(stdout);

  const CudaStream owned_stream;
  const cudaStream_t stream = owned_stream.get();
  CublasHandle cublas(stream);
  LaunchTimer timer(stream, options.check_only ? 0 : device.l2_bytes);
  TcShapeRunner runner(step, options, stream, cublas.get(), timer);
  StepRun run;
  run.step = step.name;
  run.description = step.title;
  run.params = options.params;
  run.dtype = to_string(options.dtype);
  run.layout = to_string(options.layout);
  run.out = to_string(options.out);
  run.cublas_label = cublas_label(options);
  run.seed = options.seed;
  run.kernel = kernel;
  return run_shapes(options, device, shapes, run, [&](const GemmShape& s) {
    std::function<const void*(const Params&)> kernel_of;
    if (step.kernel)
      kernel_of = [&](const Params& params) { return step.kernel(s, params, options.layout, options.dtype, options.out); };
    return run_with_params(
        s, params_of(s), options.params, run_kernel, [&](const Params& params) { return runner.run(s, params); },
        kernel_of,
        [&](const void* function, const Params& params) { return kernel_report(function, step.launch_shape(s, params), prop); });
  });
}

}  // namespace

std::uint16_t to_16bit(float value, InputType type) {
  return type == InputType::bf16 ? __bfloat16_as_ushort(__float2bfloat16_rn(value)) : __half_as_ushort(__float2half_rn(value));
}
float from_16bit(std::uint16_t bits, InputType type) {
  return type == InputType::bf16 ? __bfloat162float(__ushort_as_bfloat16(bits)) : __half2float(__ushort_as_half(bits));
}

int run_tc_step(int argc, char** argv, const TcStepDescription& step) {
  return run_program(step.name, [&] { return run(argc, argv, step); });
}

}  // namespace gemm
