#include "compiled_code.hpp"

namespace gemm {

namespace {
std::string capability(int cc) { return std::to_string(cc / 10) + "." + std::to_string(cc % 10); }
std::string rebuild_hint(int device_cc) {
  return "rebuild for this GPU: cmake -S . -B build -DCMAKE_CUDA_ARCHITECTURES=" + std::to_string(device_cc) +
         " && cmake --build build (docs/your-gpu.md)";
}
}  // namespace

std::string compiled_code_rule(const std::string& step, const CompiledCode& code, int needed_cc, const std::string& why,
                               int device_cc) {
  if (code.ptx_version == 0 || code.ptx_version >= needed_cc) return "";
  const bool from_ptx = code.binary_version != code.ptx_version;
  return step + ": this build has no code for this run: its kernel was compiled for compute capability " +
         capability(code.ptx_version) +
         (from_ptx ? " (PTX that the driver compiles for this " + capability(device_cc) + " GPU)" : "") + ", and " +
         why + " need " + capability(needed_cc) +
         " or newer; " + rebuild_hint(device_cc);
}

std::string no_code_for_gpu(const std::string& step, int device_cc) {
  return step + ": this build has no code for this GPU (compute capability " + capability(device_cc) +
         "): it was built for other architectures; " + rebuild_hint(device_cc);
}

}  // namespace gemm
