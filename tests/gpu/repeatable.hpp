// What the split steps' repeatability tests share (split_repeatable.cu for step 11,
// stream_k_repeatable.hpp for the stream-K steps): a split tile is added up by whichever sharer finishes last,
// so each test launches its step many times on the same inputs and requires every C to be the same
// to the bit as the first launch's, at the shapes the step splits on this GPU.
#pragma once

#include <cstdio>
#include <cstring>
#include <initializer_list>
#include <string>
#include <vector>

#include "cuda_check.cuh"
#include "exit_codes.hpp"
#include "hd.hpp"
#include "options.hpp"
#include "program.cuh"

namespace gemm {

// `launches` launches, each after restore() (C as it was before the first: beta * C is read), then
// launch() and a wait for `stream`; download(into) copies C's `bytes` to the host. Returns how many
// launches left a C that differs from the first's, which `first` receives.
template <typename Restore, typename Launch, typename Download>
int launches_differing(int launches, size_t bytes, cudaStream_t stream, Restore&& restore, Launch&& launch,
                       Download&& download, std::vector<unsigned char>& first) {
  std::vector<unsigned char> again(bytes);
  first.resize(bytes);
  int differing = 0;
  for (int i = 0; i < launches; ++i) {
    restore();
    launch();
    CUDA_CHECK(cudaStreamSynchronize(stream));
    download(i == 0 ? first.data() : again.data());
    if (i > 0 && std::memcmp(first.data(), again.data(), bytes) != 0) ++differing;
  }
  return differing;
}

// check(shape) at every shape the step splits on this GPU (split(shape)), the others named as
// skipped; the exit code: 0 all repeatable, 1 one was not, 77 nothing split here.
template <typename Split, typename Check>
int at_split_shapes(const char* name, std::initializer_list<GemmShape> shapes, Split&& split, Check&& check) {
  bool ok = true;
  int split_shapes = 0;
  for (const GemmShape& shape : shapes) {
    if (!split(shape)) {
      std::printf("%5d x %5d x %5d: nothing split on this GPU, skipped\n", shape.m, shape.n, shape.k);
      continue;
    }
    ++split_shapes;
    ok &= check(shape);
  }
  if (split_shapes == 0) {
    std::printf("%s: no shape is split on this GPU: skipped\n", name);
    return kExitNoGpu;
  }
  return ok ? kExitOk : kExitWrongResult;
}

// The tests' main: no arguments (exit 2 with the usage otherwise), run() under run_program.
template <typename Run>
int repeatable_main(const char* name, int argc, Run&& run) {
  return run_program(name, [&] {
    if (argc != 1) throw UsageError(std::string("usage: ") + name + "_test (no arguments)");
    return run();
  });
}

}  // namespace gemm
