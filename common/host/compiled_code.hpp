// Whether the code a step would run was compiled for what the run needs. A kernel whose body needs
// a newer architecture (bf16 tensor-core instructions, cp.async, mma.sync: compute capability 8.0)
// is compiled empty below it; the driver still runs it, from PTX it compiles for a newer GPU, and
// its output is garbage. So before any launch the harness compares the architecture the kernel's
// code was compiled for with the one the run needs (docs/your-gpu.md).
#pragma once

#include <string>

namespace gemm {

// What the CUDA runtime says of the kernel a run will launch (cudaFuncAttributes):
// ptx_version is the virtual architecture its code was compiled from (10 * major + minor), which is
// what __CUDA_ARCH__ was while compiling it, whether the GPU then runs the matching machine code or
// the driver compiles that PTX for itself; binary_version the machine code's architecture.
struct CompiledCode {
  int ptx_version = 0;
  int binary_version = 0;
};

// "" when the code may run, else the one-line refusal: which architecture the code was compiled
// for, what the run needs (`needed_cc`, and `why` names the reason, e.g. "bf16 inputs") and how to
// rebuild. `device_cc`: the GPU's compute capability. A version of 0 (not reported) passes.
std::string compiled_code_rule(const std::string& step, const CompiledCode& code, int needed_cc, const std::string& why,
                               int device_cc);

// The refusal where the build holds no code this GPU can run at all (neither its machine code nor
// PTX the driver could compile for it).
std::string no_code_for_gpu(const std::string& step, int device_cc);

}  // namespace gemm
