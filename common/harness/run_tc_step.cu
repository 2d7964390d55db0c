#include "run_tc_step.cuh"

#include <cuda_bf16.h>
#include <cuda_fp16.h>

#include <algorithm>
#include <cstdio>
#include <cstring>
#include <stdexcept>

#include "device_buffer.cuh"
#include "program.cuh"
#include "step_runner.cuh"

namespace gemm {

namespace {

using runner::elements;
using runner::StepInputs;

// f32 output: the products of 16-bit inputs are exact in f32, so the error is f32 accumulation, as
// in the fp32 steps. f16 output adds one rounding to 11 significant bits per element (2^-11
// relative), bf16 output one to 8 bits (2^-8): the same margin over each.
constexpr Tolerance kF32OutTolerance = kFp32Tolerance;
constexpr Tolerance kF16OutTolerance{2e-3, 1e-2};
constexpr Tolerance kBf16OutTolerance{1.6e-2, 8e-2};

std::size_t in_bytes() { return 2; }
std::size_t out_bytes(OutputType out) { return out == OutputType::f32 ? 4 : 2; }
// A 16-bit output type as the 16-bit input type of the same format (for to_16bit, from_16bit).
InputType as_16bit(OutputType out) { return out == OutputType::bf16 ? InputType::bf16 : InputType::f16; }

// Rounds a rows x cols row-major matrix to `type` in place and keeps its bits in `stored`, as they
// are or transposed (cols x rows).
void round_and_store(std::vector<float>& logical, std::vector<std::uint16_t>& stored, int rows, int cols,
                     bool transposed, InputType type) {
  stored.resize(logical.size());
  for (int r = 0; r < rows; ++r)
    for (int c = 0; c < cols; ++c) {
      const std::size_t at = elements(r, cols) + std::size_t(c);
      const std::uint16_t bits = to_16bit(logical[at], type);
      logical[at] = from_16bit(bits, type);
      stored[transposed ? elements(c, rows) + std::size_t(r) : at] = bits;
    }
}

// One shape's inputs: seeded as the fp32 steps', rounded to the input type (A, B) and the output
// type (C); A and B stored for the layout (A is stored K x M in TN, B N x K in NT), C in the output
// type.
StepInputs make_tc_inputs(const GemmShape& s, const Options& o) {
  StepInputs in = runner::seeded_inputs(s, o.seed);
  round_and_store(in.a, in.a_stored, s.m, s.k, o.layout == Layout::tn, o.dtype);
  round_and_store(in.b, in.b_stored, s.k, s.n, o.layout == Layout::nt, o.dtype);
  in.c_stored.resize(in.c.size() * out_bytes(o.out));
  for (std::size_t i = 0; i < in.c.size(); ++i) {
    if (o.out != OutputType::f32) {
      const std::uint16_t bits = to_16bit(in.c[i], as_16bit(o.out));
      in.c[i] = from_16bit(bits, as_16bit(o.out));
      std::memcpy(&in.c_stored[2 * i], &bits, 2);
    } else {
      std::memcpy(&in.c_stored[4 * i], &in.c[i], 4);
    }
  }
  return in;
}

std::string cublas_label(const Options& o) {
  return std::string("cublasGemmEx (") + to_string(o.dtype) + " in, f32 compute, " + to_string(o.out) + " out, " +
         to_string(o.layout) + ")";
}

// What a tensor-core step is to the runner (step_runner.cuh): f16/bf16 inputs in a layout, f32
// output or 16-bit output of the inputs' type, cublasGemmEx with the same types and layout as the yardstick, and a reference on the
// same rounded inputs.
class TcKind {
 public:
  using Description = TcStepDescription;
  using Problem = TcProblem;

  TcKind(const TcStepDescription& step, const Options& options) : step_(step), o_(options) {}

  static OptionSet option_set() {
    OptionSet set;
    set.tensor_core = true;
    return set;
  }
  // Every shape M, N, K >= 1 runs (shapes the kernels do not take: the general path below).
  void check_usage(const std::vector<GemmShape>&) const {
    if (o_.dtype == InputType::bf16 && o_.out == OutputType::f16)
      throw UsageError("--dtype bf16 with --out f16: cuBLAS has no bf16-in, f16-out GEMM to compare with; use --out f32 or --out bf16");
    if (o_.dtype == InputType::f16 && o_.out == OutputType::bf16)
      throw UsageError("--dtype f16 with --out bf16: cuBLAS has no f16-in, bf16-out GEMM to compare with; use --out f32 or --out f16");
  }
  // A shape the step's kernels do not take (shape_rule) runs the general path (remembered for the
  // last shape asked about: launch asks at every launch).
  bool staged(const GemmShape& s) const {
    if (s.m != asked_.m || s.n != asked_.n || s.k != asked_.k) {
      asked_ = s;
      asked_staged_ = !(step_.shape_rule ? step_.shape_rule(s, o_.layout) : tc_shape_rule(s, o_.layout)).empty();
    }
    return asked_staged_;
  }
  std::string path_of(const GemmShape& s) const {
    if (!staged(s)) return "";
    return "general path, as this step's kernels need: " +
           (step_.shape_rule ? step_.shape_rule(s, o_.layout) : tc_shape_rule(s, o_.layout)) + ". A, B" +
           (o_.beta != 0.0f ? ", C" : "") + " are copied into zero-padded buffers of " + shape_text(padded(s)) +
           " and C back, and the copies are timed with the step";
  }
  // bf16 tensor-core instructions need compute capability 8.0.
  int min_cc() const { return o_.dtype == InputType::bf16 ? std::max(step_.min_cc, 80) : step_.min_cc; }
  int only_cc() const { return step_.only_cc; }
  bool choose_params_for_gpu(Options& options, const cudaDeviceProp& prop) const {
    if (options.params_given || !step_.params_for_gpu) return false;
    const Params chosen = step_.params_for_gpu(options.params, int(prop.sharedMemPerBlockOptin));
    if (step_.check_params && !step_.check_params(chosen).empty())
      throw std::logic_error(step_.name + " chose tunables it cannot run for this GPU");
    const bool changed = chosen != options.params;
    options.params = chosen;
    return changed;
  }
  ParamsForShape params_for_shape() const {
    if (!step_.params_for_shape) return {};
    return [this](const GemmShape& shape, const Params& defaults, int sms) {
      return step_.params_for_shape(shape, o_.layout, defaults, sms);
    };
  }
  void check_fits(const GemmShape& s, std::size_t free_bytes, long long flush_bytes) const {
    const GemmShape p = staged(s) ? padded(s) : GemmShape{0, 0, 0};
    const std::size_t needed = in_bytes() * (elements(s.m, s.k) + elements(s.k, s.n)) +
                               (out_bytes(o_.out) * 2 + 4) * elements(s.m, s.n) + std::size_t(flush_bytes) +
                               in_bytes() * (elements(p.m, p.k) + elements(p.k, p.n)) + out_bytes(o_.out) * elements(p.m, p.n);
    if (needed > free_bytes)
      throw UsageError("shape " + shape_text(s) + " needs " + std::to_string(needed / 1000000) + " MB of device memory; " +
                       std::to_string(free_bytes / 1000000) + " MB are free: use smaller sizes");
  }

  std::string types_text() const {
    return std::string(to_string(o_.dtype)) + " in, f32 accumulate, " + to_string(o_.out) + " out, layout " +
           to_string(o_.layout);
  }
  std::function<const void*(const GemmShape&, const Params&)> kernel_of() const {
    if (!step_.kernel) return {};
    return [this](const GemmShape& s, const Params& params) {
      return step_.kernel(s, params, o_.layout, o_.dtype, o_.out);
    };
  }
  void on_device(const DeviceInfo&) {}
  void describe(StepRun& run) const {
    run.dtype = to_string(o_.dtype);
    run.layout = to_string(o_.layout);
    run.out = to_string(o_.out);
    run.cublas_label = cublas_label(o_);
  }
  const std::string& name() const { return step_.name; }

  StepInputs make_inputs(const GemmShape& s) const { return make_tc_inputs(s, o_); }
  Problem problem(const GemmShape& s, const unsigned char* a, const unsigned char* b, unsigned char* c) const {
    return {s, o_.alpha, o_.beta, o_.layout, o_.dtype, o_.out, a, b, c};
  }
  void launch(const Problem& problem, const Params& params, cudaStream_t stream) const {
    if (staged(problem.shape)) launch_staged(problem, params, stream);
    else step_.launch(problem, params, stream);
  }
  void cublas(cublasHandle_t handle, const Problem& theirs) const { cublas_gemm_ex(handle, theirs, theirs.out, theirs.c); }
  // cuBLAS on the same device inputs, f32 output; its C starts as the (rounded) input C.
  std::vector<float> gpu_reference(cublasHandle_t handle, const Problem& ours, const Problem&, const StepInputs& in,
                                   cudaStream_t stream) const {
    const std::size_t count = in.c.size();
    DeviceBuffer<float> reference_c(count);
    reference_c.upload(in.c);
    cublas_gemm_ex(handle, ours, OutputType::f32, reference_c.data());
    CUDA_CHECK(cudaStreamSynchronize(stream));
    std::vector<float> reference(count);
    reference_c.download(reference.data(), count, 0);
    return reference;
  }
  std::vector<float> as_floats(const unsigned char* bytes, std::size_t count) const {
    std::vector<float> values(count);
    for (std::size_t i = 0; i < count; ++i) {
      if (o_.out != OutputType::f32) {
        std::uint16_t bits;
        std::memcpy(&bits, &bytes[2 * i], 2);
        values[i] = from_16bit(bits, as_16bit(o_.out));
      } else {
        std::memcpy(&values[i], &bytes[4 * i], 4);
      }
    }
    return values;
  }
  void time_references(ShapeResult&, LaunchTimer&, int, cublasHandle_t, const Problem&) const {}

  Tolerance tolerance() const {
    return o_.out == OutputType::f16 ? kF16OutTolerance : o_.out == OutputType::bf16 ? kBf16OutTolerance : kF32OutTolerance;
  }
  static constexpr std::uint32_t guard_word = 0xa5a5a5a5;
  static constexpr const char* cpu_reference = "cpu-fp64 on the rounded inputs";
  static constexpr const char* gpu_reference_label = "cublas-gemmex-f32-out";

 private:
  // The general path. Every extent is rounded up to a multiple of 8, which every tensor-core
  // step's kernels take in every layout (K for the k-steps, the stored rows for 16-byte copies and
  // tensor maps). A and B are copied into zeroed buffers of the padded extents as they are stored
  // (the zeros add nothing to the products), and C into its own where it is read (beta != 0); the
  // step computes the padded problem, and C's M x N corner is copied back. The copies are strided
  // (cudaMemcpy2DAsync) and run in the same stream, inside what is timed.
  static int round_up_8(int x) { return (x + 7) / 8 * 8; }
  static GemmShape padded(const GemmShape& s) { return {round_up_8(s.m), round_up_8(s.n), round_up_8(s.k)}; }
  struct Staging {
    GemmShape shape{0, 0, 0};
    DeviceBuffer<unsigned char> a, b, c;
  };
  // A rows x cols matrix of `bytes`-byte elements into the top left of a rows_to x cols_to one.
  static void copy_2d(void* to, int cols_to, const void* from, int cols_from, int cols, int rows, std::size_t bytes,
                      cudaStream_t stream) {
    CUDA_CHECK(cudaMemcpy2DAsync(to, std::size_t(cols_to) * bytes, from, std::size_t(cols_from) * bytes,
                                 std::size_t(cols) * bytes, std::size_t(rows), cudaMemcpyDeviceToDevice, stream));
  }
  void launch_staged(const Problem& problem, const Params& params, cudaStream_t stream) const {
    const GemmShape& s = problem.shape;
    const GemmShape p = padded(s);
    const std::size_t out = out_bytes(o_.out), in = in_bytes();
    if (staging_.shape.m != p.m || staging_.shape.n != p.n || staging_.shape.k != p.k) {  // new buffers, zeroed once: the copies write only their inside
      staging_.shape = p;
      staging_.a = DeviceBuffer<unsigned char>(in * elements(p.m, p.k));
      staging_.b = DeviceBuffer<unsigned char>(in * elements(p.k, p.n));
      staging_.c = DeviceBuffer<unsigned char>(out * elements(p.m, p.n));
      CUDA_CHECK(cudaMemset(staging_.a.data(), 0, staging_.a.bytes()));
      CUDA_CHECK(cudaMemset(staging_.b.data(), 0, staging_.b.bytes()));
      CUDA_CHECK(cudaMemset(staging_.c.data(), 0, staging_.c.bytes()));
    }
    // A is stored M x K (K x M in TN), B K x N (N x K in NT).
    if (problem.layout == Layout::tn) copy_2d(staging_.a.data(), p.m, problem.a, s.m, s.m, s.k, in, stream);
    else copy_2d(staging_.a.data(), p.k, problem.a, s.k, s.k, s.m, in, stream);
    if (problem.layout == Layout::nt) copy_2d(staging_.b.data(), p.k, problem.b, s.k, s.k, s.n, in, stream);
    else copy_2d(staging_.b.data(), p.n, problem.b, s.n, s.n, s.k, in, stream);
    if (problem.beta != 0.0f) copy_2d(staging_.c.data(), p.n, problem.c, s.n, s.n, s.m, out, stream);
    Problem inner = problem;
    inner.shape = p;
    inner.a = staging_.a.data();
    inner.b = staging_.b.data();
    inner.c = staging_.c.data();
    step_.launch(inner, params, stream);
    copy_2d(problem.c, s.n, staging_.c.data(), p.n, s.n, s.m, out, stream);
  }

  const TcStepDescription& step_;
  const Options& o_;
  mutable Staging staging_;
  mutable GemmShape asked_{0, 0, 0};
  mutable bool asked_staged_ = false;
};

}  // namespace

std::uint16_t to_16bit(float value, InputType type) {
  return type == InputType::bf16 ? __bfloat16_as_ushort(__float2bfloat16_rn(value)) : __half_as_ushort(__float2half_rn(value));
}
float from_16bit(std::uint16_t bits, InputType type) {
  return type == InputType::bf16 ? __bfloat162float(__ushort_as_bfloat16(bits)) : __half2float(__ushort_as_half(bits));
}

int run_tc_step(int argc, char** argv, const TcStepDescription& step) {
  return run_program(step.name, [&] { return runner::run<TcKind>(argc, argv, step); });
}

}  // namespace gemm
