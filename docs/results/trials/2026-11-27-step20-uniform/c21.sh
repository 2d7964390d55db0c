#!/bin/bash
# Step 21: fresh copy, full build, step 21's GPU and CLI tests, bench_all for steps 20 and 21 (one results file),
# and the k-loop counts of both steps' SASS. $1: the commit (full hash) the working tree is.
export PATH=/usr/local/cuda/bin:$PATH
export GEMM_COMMIT=$1
T0=$(date +%s)
G=/tmp/gf
rm -rf $G; mkdir -p $G && cp -a . $G/ && cd $G
cmake -S . -B build -DCMAKE_BUILD_TYPE=Release -DCMAKE_CUDA_ARCHITECTURES=90 > $OUT/configure.log 2>&1
cmake --build build -j16 --target 20_overlapped_epilogue 21_uniform_datapath > $OUT/build.log 2>&1; echo "build rc=$? $(( $(date +%s) - T0 )) s"
grep -E "error" $OUT/build.log | head -5
ctest --test-dir build -L "gpu|cli" -R "^21_" -j 8 --timeout 300 --output-on-failure > $OUT/ctest21.log 2>&1; echo "ctest21 rc=$? $(( $(date +%s) - T0 )) s"
grep -E "tests passed|\(Failed\)|\(Timeout\)" $OUT/ctest21.log
nvidia-smi --query-gpu=name,clocks.sm,clocks.max.sm,temperature.gpu,power.draw --format=csv > $OUT/gpu.txt
mkdir -p $OUT/results && cp docs/results/nvidia-h100-80gb-hbm3.json $OUT/results/
timeout 240 python3 tools/bench_all.py --steps 20,21 --out $OUT/results > $OUT/bench.log 2>&1; echo "bench rc=$? $(( $(date +%s) - T0 )) s"
grep -E "failed|merged" $OUT/bench.log
for s in 20_overlapped_epilogue 21_uniform_datapath; do cuobjdump -sass build/bin/$s > /tmp/$s.sass 2>/dev/null; echo "## $s"; python3 docs/results/trials/2026-11-27-step20-uniform/kloop_count.py /tmp/$s.sass e4m3S1_13__nv_bfloat16Li3ELb0 e4m3S1_13__nv_bfloat16Li0ELb1 e4m3S1_fLi3ELb0 e4m3S1_fLi0ELb0; done > $OUT/kloop_count.txt 2>&1
grep -v "^_Z" $OUT/kloop_count.txt
