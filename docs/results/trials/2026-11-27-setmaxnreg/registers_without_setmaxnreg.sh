#!/bin/bash
# ptxas's report (-Xptxas -v) of step $1's kernels compiled as the build compiles them (a configured
# build/, or the one $BUILD names; CUDA architectures 90), with its setmaxnreg instructions disabled
# (`if (false)`): what each kernel needs within the launch bound's 168 registers, and what it spills.
# The instructions are in common/device/hopper.cuh (gemm::setmaxnreg_dec/inc; in the steps' own
# kernel.cuh when this trial ran), which the script restores after.
# Usage: registers_without_setmaxnreg.sh 16_warp_specialized
S=$1
ROOT=$(git rev-parse --show-toplevel)
HEADER=common/device/hopper.cuh
cd "$ROOT"
[ -d "${BUILD:-build}/steps/$S" ] || { echo "registers_without_setmaxnreg.sh: no ${BUILD:-build}/steps/$S; configure a build first (cmake -B build) or name one with BUILD=" >&2; exit 2; }
git diff --quiet HEAD -- $HEADER || { echo "registers_without_setmaxnreg.sh: $HEADER has uncommitted changes, which this script would overwrite; commit or stash them first" >&2; exit 2; }
trap 'cd "$ROOT" && git checkout -q $HEADER' EXIT
sed -i 's/^\(\s*\)asm volatile("setmaxnreg/\1if (false) asm volatile("setmaxnreg/' $HEADER
cd "${BUILD:-build}/steps/$S" && /usr/local/cuda/bin/nvcc -forward-unknown-to-host-compiler --options-file CMakeFiles/$S.dir/includes_CUDA.rsp \
  -O3 -DNDEBUG --generate-code=arch=compute_90a,code=sm_90a -std=c++17 -x cu -c "$ROOT/steps/$S/main.cu" -o /tmp/$S.o -Xptxas -v 2>&1 |
  grep -E "Compiling entry|Used|spill|C7511" | sed 's/v14CUtensorMap_st[A-Za-z0-9_]*//' | cut -c1-160
