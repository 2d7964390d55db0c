#!/bin/bash
# ptxas report of step $1 (default 19_fp8), compiled as the build compiles it (needs a configured build/,
# CUDA architectures 90): the kernels that spill, with their bytes, and the C7511 warnings (wgmma serialised).
S=${1:-19_fp8}
ROOT=$(git rev-parse --show-toplevel)
cd $ROOT/build/steps/$S && /usr/local/cuda/bin/nvcc -forward-unknown-to-host-compiler --options-file CMakeFiles/$S.dir/includes_CUDA.rsp -O3 -DNDEBUG --generate-code=arch=compute_90a,code=sm_90a -std=c++17 -x cu -c $ROOT/steps/$S/main.cu -o /tmp/$S.o -Xptxas -v 2>&1 | python3 -c "
import sys,re
cur=None
for l in sys.stdin:
  m=re.search(r\"Compiling entry function '(\S+)'\",l)
  if m: cur=m.group(1); continue
  if 'error' in l: print(l.strip()[:200])
  if 'C7511' in l or 'C7510' in l: print('WARN',l.strip()[-90:])
  m=re.search(r'(\d+) bytes spill stores, (\d+) bytes spill loads',l)
  if m and cur and (m.group(1)!='0' or m.group(2)!='0'): print('SPILL',cur[-70:],m.group(0))
print('done')
"
