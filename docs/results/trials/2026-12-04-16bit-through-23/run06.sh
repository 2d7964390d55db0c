#!/bin/bash
# Step 18 with the 64 x 128 tile: build, step 18's GPU and CLI tests, bench_all for step 18 into the H200 file.
# $1: the commit (full hash) the working tree is.
export PATH=/usr/local/cuda/bin:$PATH PYTHONUNBUFFERED=1
export GEMM_COMMIT=$1
T0=$(date +%s); t() { echo "[$(( $(date +%s) - T0 )) s] $*"; }
nvidia-smi --query-gpu=name,clocks.sm,clocks.max.sm,temperature.gpu,power.draw --format=csv > $OUT/gpu.txt
t configure; cmake -S . -B build -DCMAKE_BUILD_TYPE=Release -DCMAKE_CUDA_ARCHITECTURES=90 > $OUT/configure.log 2>&1
t build; timeout 230 cmake --build build -j16 --target 18_tma_store_epilogue linear_layer_test > $OUT/build.log 2>&1; t "build rc=$?"
grep -E " error" $OUT/build.log | head -5
mkdir -p $OUT/results && cp docs/results/nvidia-h200.json $OUT/results/
t bench; timeout 200 python3 tools/bench_all.py --build build --steps 18 --out $OUT/results > $OUT/bench.log 2>&1; t "bench rc=$?"
grep -E "failed|merged|FAIL" $OUT/bench.log | head
t ctest; ctest --test-dir build -L "gpu|cli" -R "^18_" -j 8 --timeout 120 --output-on-failure > $OUT/ctest18.log 2>&1; t "ctest rc=$?"
grep -E "tests passed|\(Failed\)|\(Timeout\)|Not Run" $OUT/ctest18.log | head
t end
