#!/bin/bash
# #53 experiment: step 26's 128 x 144 tile with an N-major B, three ways: the shipped tail (16
# columns, 32-byte swizzle, a second wgmma of n = 16), v1 (a whole third box, 128-byte swizzle, 48
# columns unused, one wgmma n = 144, 4 stages), v2 (all of B in boxes of 16 columns with the 32-byte
# swizzle, one wgmma n = 144, 5 stages). Correctness first, then timing at 1536^3 against cuBLAS.
B=${B:-.dev/c4/bin}
T0=$(date +%s)
nvidia-smi --query-gpu=name,clocks.sm,clocks.max.sm,power.draw --format=csv
run() { echo "### $*"; timeout 90 "$@" 2>&1 | grep -E "^ +[0-9]+ +[0-9]+ +[0-9]+ \||FAIL|rror|usage" ; echo "rc ${PIPESTATUS[0]}"; }
for v in 26v1 26v2; do
  st=5; [ $v = 26v1 ] && st=4
  P="--param BM=128 --param BN=144 --param BK=64 --param STAGES=$st --param GROUP_M=16 --param CLUSTER=2"
  for lay in nn tn nt; do
    run $B/$v --check-only --shapes 104x296x8,136x1520x200,264x1576x136,392x2888x72,3072x3072x64,1536 --beta 0.5 --layout $lay $P
    run $B/$v --check-only --shapes 104x296x8,136x1520x200,392x2888x72,3000x3016x64 --alpha 0.5 --layout $lay --out f16 --dtype f16 $P
  done
done
echo "checks done at $(( $(date +%s) - T0 )) s"
for rep in 1 2; do
for cfg in "nn f16 f32" "tn f16 f32" "nn bf16 bf16" "tn bf16 f32" "nt f16 f32"; do
  set -- $cfg
  for v in 26_fitted_tile 26v1 26v2; do run $B/$v --size 1536 --layout $1 --dtype $2 --out $3 --reps 30; done
done
done
echo "timing done at $(( $(date +%s) - T0 )) s"
timeout 120 compute-sanitizer --tool memcheck $B/26v2 --check-only --shapes 264x1576x520 --beta 0.5 --layout nn --param BN=144 --param STAGES=5 2>&1 | tail -4
echo "all done at $(( $(date +%s) - T0 )) s"
