#!/bin/bash
# runD.sh HASH BUDGET_S "bench steps" "test steps" "targets" [ncu steps] [experiment script]
# Configure, build the targets, benchmark each bench step (results merged into the shipped files
# copied to $OUT/results), then run the GPU tests of the test steps with the time left.
set -uo pipefail
T0=$(date +%s); HASH=$1; BUDGET=$2; BENCH=$3; TESTS=$4; TARGETS=$5; NCU=${6:-}; EXP=${7:-}
export GEMM_COMMIT=$HASH PYTHONUNBUFFERED=1
left() { echo $(( BUDGET - ($(date +%s) - T0) )); }
LOG=$OUT/log.txt
{
nvidia-smi --query-gpu=name,clocks.sm,clocks.max.sm,power.draw,power.limit,temperature.gpu --format=csv
mkdir -p $OUT/results
cp docs/results/nvidia-h100-80gb-hbm3.json docs/results/nvidia-h200.json docs/results/model-vs-ncu-*.json $OUT/results/
cmake -S . -B build -DCMAKE_BUILD_TYPE=Release -DCMAKE_CUDA_ARCHITECTURES=90 > $OUT/build.log 2>&1 || { tail -30 $OUT/build.log; exit 1; }
echo "configured at $(( $(date +%s) - T0 )) s"
# Programs built on the CPU machine (same toolkit, sm_90/90a) travel in .dev/bin: no build here.
if [ -d .dev/steps ]; then cp -rp .dev/steps/. build/steps/; fi
if [ -d .dev/tests ]; then cp -rp .dev/tests/. build/tests/; fi
BINDIR=${BINDIR:-.dev/bin}; if [ -d $BINDIR ]; then mkdir -p build/bin && cp -p $BINDIR/* build/bin/ && ls build/bin; fi
[ -n "$TARGETS" ] && { cmake --build build -j16 --target $TARGETS >> $OUT/build.log 2>&1 || { grep -B2 -A10 "error" $OUT/build.log | head -60; exit 1; }; }
echo "built at $(( $(date +%s) - T0 )) s"
if [ -n "$EXP" ]; then echo "=== experiments $EXP at $(( $(date +%s) - T0 )) s"; timeout 200 bash $EXP > $OUT/exp.log 2>&1; echo "exp status $?"; fi
for s in $BENCH; do
  t=$(( $(left) - 150 )); [ $t -lt 30 ] && { echo "no time for bench $s"; break; }
  echo "=== bench $s (limit $t s) at $(( $(date +%s) - T0 )) s"
  timeout $t python3 tools/bench_all.py --build build --steps $s --out $OUT/results 2>&1 | grep -v "^\$ " 
  echo "bench $s status ${PIPESTATUS[0]}"
done
regex="^($(echo $TESTS | sed 's/ /|/g'))_[a-z0-9_]*\.gpu\."
if [ -n "$NCU" ]; then
  t=$(( $(left) - 200 ))
  echo "=== ncu $NCU (limit $t s) at $(( $(date +%s) - T0 )) s"
  [ $t -gt 30 ] && timeout $t python3 tools/check_model_ncu.py --build build --out $OUT/results --steps $NCU > $OUT/ncu.log 2>&1
  echo "ncu status $?"; tail -25 $OUT/ncu.log
fi
t=$(( $(left) - 10 ))
echo "=== tests $regex (limit $t s) at $(( $(date +%s) - T0 )) s"
timeout $t ctest --test-dir build -R "$regex" -j3 --timeout 240 --output-on-failure > $OUT/tests.log 2>&1
echo "tests status $?"
grep -E "tests passed|tests failed|\*\*\*|Failed|Not Run|Timeout|Skipped" $OUT/tests.log | head -60
echo "done at $(( $(date +%s) - T0 )) s"
} 2>&1 | tee $LOG
