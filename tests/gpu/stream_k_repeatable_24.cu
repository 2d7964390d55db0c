// Step 24's split tiles, added up the same to the bit launch after launch (stream_k_repeatable.hpp).
// The shapes: those its CMakeLists.txt checks split (on 132 SMs).
#include "24_overlapped_promotion/kernel.cuh"
#include "stream_k_repeatable.hpp"

namespace {

struct Step24 {
  static constexpr const char* kName = "stream_k_repeatable (step 24)";
  static gemm::Params params(const gemm::GemmShape& shape, int sms) {
    return step24::to_params(step24::config_for_shape(shape, sms));
  }
  static bool splits(const gemm::GemmShape& shape, int sms) {
    return step24::schedule_of(shape, step24::config_for_shape(shape, sms), sms).split_units > 0;
  }
  static void launch(const gemm::TcProblem& problem, const gemm::Params& params, cudaStream_t stream) {
    step24::launch(problem, params, stream);
  }
};

int run() {
  return gemm::stream_k_testing::run<Step24>({gemm::GemmShape{136, 400, 8192}, gemm::GemmShape{264, 520, 16384}, gemm::GemmShape{512, 1024, 16384}});
}

}  // namespace

int main(int argc, char**) { return gemm::repeatable_main("stream_k_repeatable", argc, run); }
