// Step 23's split tiles, added up the same to the bit launch after launch (stream_k_repeatable.hpp).
// The shapes: those its CMakeLists.txt checks split (on 132 SMs).
#include "23_stream_k/kernel.cuh"
#include "stream_k_repeatable.hpp"

namespace {

struct Step23 {
  static constexpr const char* kName = "stream_k_repeatable (step 23)";
  static gemm::Params params(const gemm::GemmShape& shape, int sms) {
    return step23::to_params(step23::config_for_shape(shape, sms));
  }
  static bool splits(const gemm::GemmShape& shape, int sms) {
    return step23::schedule_of(shape, step23::config_for_shape(shape, sms), sms).split_units > 0;
  }
  static void launch(const gemm::TcProblem& problem, const gemm::Params& params, cudaStream_t stream) {
    step23::launch(problem, params, stream);
  }
};

int run() {
  return gemm::stream_k_testing::run<Step23>({gemm::GemmShape{264, 400, 8192}, gemm::GemmShape{512, 1536, 16384}, gemm::GemmShape{512, 1024, 16384}});
}

}  // namespace

int main(int argc, char**) { return gemm::repeatable_main("stream_k_repeatable", argc, run); }
