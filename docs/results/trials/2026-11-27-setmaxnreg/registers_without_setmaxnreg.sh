#!/bin/bash
# ptxas's report (-Xptxas -v) of step $1's kernels compiled as the build compiles them (a configured
# build/, CUDA architectures 90), with its two setmaxnreg instructions disabled (`if (false)`):
# what each kernel needs within the launch bound's 168 registers, and what it spills.
# Restores the step's kernel.cuh after. Usage: registers_without_setmaxnreg.sh 16_warp_specialized
S=$1
ROOT=$(git rev-parse --show-toplevel)
cd "$ROOT"
git diff --quiet HEAD -- steps/$S/kernel.cuh || { echo "registers_without_setmaxnreg.sh: steps/$S/kernel.cuh has uncommitted changes, which this script would overwrite; commit or stash them first" >&2; exit 2; }
sed -i 's/^\(\s*\)asm volatile("setmaxnreg/\1if (false) asm volatile("setmaxnreg/' steps/$S/kernel.cuh
cd build/steps/$S && /usr/local/cuda/bin/nvcc -forward-unknown-to-host-compiler --options-file CMakeFiles/$S.dir/includes_CUDA.rsp \
  -O3 -DNDEBUG --generate-code=arch=compute_90a,code=sm_90a -std=c++17 -x cu -c "$ROOT/steps/$S/main.cu" -o /tmp/$S.o -Xptxas -v 2>&1 |
  grep -E "Compiling entry|Used|spill|C7511" | sed 's/v14CUtensorMap_st[A-Za-z0-9_]*//' | cut -c1-160
cd "$ROOT" && git checkout -q steps/$S/kernel.cuh
