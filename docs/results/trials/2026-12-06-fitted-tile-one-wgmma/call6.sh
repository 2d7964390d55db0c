#!/bin/bash
# On an H100: the fp32 ladder (steps 01-11) benchmarked in one run at main's commit, so that step
# 11's mid and narrow sizes come with the steps before it; then the profiler comparison of steps
# 13 and 23-26 again, with the commit named (GEMM_COMMIT).
HASH=$1
BINDIR=.dev/c8/bin bash .dev/runD.sh $HASH 330 "01 02 03 04 05 06 07 08 09 10 11" "" "" "" ""
export GEMM_COMMIT=$HASH
timeout 150 python3 tools/check_model_ncu.py --build build --out $OUT/results --steps 13,23,24,25,26 > $OUT/ncu.log 2>&1; echo "ncu status $?"; tail -2 $OUT/ncu.log
cd $OUT/results && rm -f nvidia-h200.json model-vs-ncu-nvidia-h200.json; rm -f $OUT/tests.log; ls -la $OUT $OUT/results
