// Step 00: the CPU reference. The textbook triple loop, then a cache-blocked loop on the CPU's
// hardware threads, in double precision on fp32 inputs. The blocked loop is the fp64 reference the
// GPU steps check against (problems up to 2.2 GFLOP). See docs/00-cpu-reference.md.
#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <thread>
#include <vector>

#include "cpu_gemm.hpp"
#include "exit_codes.hpp"
#include "options.hpp"
#include "random.hpp"
#include "results.hpp"

namespace {

constexpr const char* kName = "00_cpu_reference";
constexpr const char* kTitle = "CPU triple loop and cache-blocked loop in fp64 (the reference)";
constexpr int kDefaultSize = 384;  // the single-threaded triple loop takes a fraction of a second
constexpr int kDefaultReps = 3;
constexpr double kAgreement = 1e-12;  // the relative difference the two loops may show (see below)

template <typename F>
gemm::TimingStats time_host(F&& work, int reps) {
  std::vector<double> samples;
  for (int rep = 0; rep < reps; ++rep) {
    const auto start = std::chrono::steady_clock::now();
    work();
    samples.push_back(std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start).count());
  }
  return gemm::summarize(samples);
}

int run(int argc, char** argv) {
  gemm::OptionSet set;
  set.cpu = true;
  set.default_shapes = std::to_string(kDefaultSize) + " square";
  set.default_reps = std::to_string(kDefaultReps) + ", each loop";
  const gemm::Options options = gemm::parse_options(argc, argv, {}, set);
  if (options.help) {
    std::printf("%s", gemm::usage_text(kName, kTitle, {}, set).c_str());
    std::printf("This step runs on the CPU: --device, --warmup and --no-check are accepted and have no effect.\n");
    return gemm::kExitOk;
  }
  const std::vector<gemm::GemmShape> shapes =
      options.shapes.empty() ? std::vector<gemm::GemmShape>{{kDefaultSize, kDefaultSize, kDefaultSize}} : options.shapes;
  // --check-only: each loop runs once, untimed.
  const int reps = options.check_only ? 1 : options.reps ? options.reps : kDefaultReps;
  const unsigned threads = std::max(1u, std::thread::hardware_concurrency());

  std::printf("%s: %s\nCPU: %u hardware threads | C = %g*A*B + %g*C, fp64, seed %llu\n", kName, kTitle, threads,
              double(options.alpha), double(options.beta), (unsigned long long)options.seed);
  std::printf("%7s %7s %7s | %12s %9s | %12s %9s | %10s | %s\n", "M", "N", "K", "triple ms", "GFLOPS", "blocked ms",
              "GFLOPS", "rel. diff", "verdict");

  gemm::StepRun naive_run, blocked_run;
  naive_run.step = blocked_run.step = kName;
  naive_run.variant = "triple_loop";
  blocked_run.variant = "blocked";
  naive_run.description = "textbook triple loop, one thread, fp64";
  blocked_run.description = "cache-blocked loop, tasks of rows of C on up to " + std::to_string(threads) +
                            " hardware threads, fp64";
  naive_run.dtype = blocked_run.dtype = "f64";
  naive_run.out = blocked_run.out = "f64";
  naive_run.seed = blocked_run.seed = options.seed;

  bool all_passed = true;
  for (const gemm::GemmShape& s : shapes) {
    std::vector<float> a(size_t(s.m) * s.k), b(size_t(s.k) * s.n), c(size_t(s.m) * s.n);
    gemm::fill_uniform(a, options.seed, 0);
    gemm::fill_uniform(b, options.seed, 1);
    gemm::fill_uniform(c, options.seed, 2);
    std::vector<double> naive(c.size()), blocked(c.size());
    const gemm::TimingStats naive_time = time_host(
        [&] { gemm::cpu_gemm_naive(s.m, s.n, s.k, options.alpha, a.data(), b.data(), options.beta, c.data(), naive.data()); },
        reps);
    const gemm::TimingStats blocked_time = time_host(
        [&] {
          gemm::cpu_gemm_blocked(s.m, s.n, s.k, options.alpha, a.data(), b.data(), options.beta, c.data(),
                                 blocked.data());
        },
        reps);
    // Both loops add the products of an element of C in the same order (k = 0, 1, ...), and a
    // product of two floats is exact in double, so they agree exactly; the check still allows
    // kAgreement relative (of the largest element), in case a compiler reorders one sum.
    double max_diff = 0, max_value = 0;
    for (size_t i = 0; i < c.size(); ++i) {
      max_diff = std::max(max_diff, std::fabs(naive[i] - blocked[i]));
      max_value = std::max(max_value, std::fabs(naive[i]));
    }
    const double relative = max_value > 0 ? max_diff / max_value : max_diff;
    const bool passed = std::isfinite(relative) && relative <= kAgreement;
    all_passed = all_passed && passed;
    if (options.check_only)
      std::printf("%7d %7d %7d | %12s %9s | %12s %9s | %10.2e | %s\n", s.m, s.n, s.k, "-", "-", "-", "-", relative,
                  passed ? "PASS" : "FAIL");
    else
      std::printf("%7d %7d %7d | %12.2f %9.2f | %12.2f %9.2f | %10.2e | %s\n", s.m, s.n, s.k, naive_time.median_ms,
                  gemm::gemm_gflops(s.m, s.n, s.k, naive_time.median_ms), blocked_time.median_ms,
                  gemm::gemm_gflops(s.m, s.n, s.k, blocked_time.median_ms), relative, passed ? "PASS" : "FAIL");

    gemm::ShapeResult row;
    row.m = s.m;
    row.n = s.n;
    row.k = s.k;
    row.alpha = options.alpha;
    row.beta = options.beta;
    row.timed = !options.check_only;
    row.ours = naive_time;
    row.verdict = passed ? gemm::Verdict::pass : gemm::Verdict::fail;
    naive_run.shapes.push_back(row);
    row.ours = blocked_time;
    blocked_run.shapes.push_back(row);
  }
  if (!options.json_path.empty()) {
    gemm::DeviceInfo cpu;
    cpu.name = "CPU (" + std::to_string(threads) + " hardware threads)";
    try {
      gemm::write_results_file(options.json_path,
                               gemm::results_document(cpu, {naive_run, blocked_run}, gemm::utc_now()));
    } catch (const std::runtime_error& error) {
      throw gemm::UsageError(error.what());
    }
  }
  return all_passed ? gemm::kExitOk : gemm::kExitWrongResult;
}

}  // namespace

int main(int argc, char** argv) {
  try {
    return run(argc, argv);
  } catch (const gemm::UsageError& error) {
    std::fprintf(stderr, "%s: %s\n", kName, error.what());
    return gemm::kExitUsage;
  }
}
