// The exit codes every step program uses (docs/design.md, "The step program contract").
#pragma once

namespace gemm {

enum ExitCode : int {
  kExitOk = 0,           // every shape verified (or ran without a check when asked)
  kExitWrongResult = 1,  // a result failed verification
  kExitUsage = 2,        // bad usage or an unsupported shape; the message names the rule
  kExitCudaError = 3,    // a CUDA or cuBLAS call failed; the message names the call
  kExitNoGpu = 77,       // no suitable GPU; CTest reports the test as skipped
};

}  // namespace gemm
