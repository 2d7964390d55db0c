// The exit-code contract of every GPU program, in one place: runs `body` and turns what it throws
// into a one-line message on stderr and the documented exit code (docs/design.md,
// "The step program contract").
#pragma once

#include <functional>
#include <string>

namespace gemm {

int run_program(const std::string& name, const std::function<int()>& body);

}  // namespace gemm
