#!/bin/bash
# Experiments: tiles by shape for steps 26 and 24 at #53's short shapes (each run against cuBLAS in the same process).
B=build/bin
run() { echo "### $*"; timeout 60 "$@" 2>&1 | grep -E "^ +[0-9]+ +[0-9]+ +[0-9]+ \||runs |error|Error" ; }
for lay in nn nt tn; do
  for o in f32 f16; do
    [ $lay != nn ] && [ $o = f16 ] && continue
    run $B/26_fitted_tile --shapes 2048,1024x1024x8192,1536 --layout $lay --dtype f16 --out $o --reps 30
    run $B/26_fitted_tile --shapes 2048 --layout $lay --dtype f16 --out $o --reps 30 --defaults
    run $B/26_fitted_tile --shapes 1024x1024x8192 --layout $lay --dtype f16 --out $o --reps 30 --param BN=128 --param STAGES=6 --param GROUP_M=8 --param CLUSTER=1
    run $B/26_fitted_tile --shapes 1536 --layout $lay --dtype f16 --out $o --reps 30 --param BN=192
  done
done
P24="--dtype e4m3 --out bf16 --reps 30"
run $B/24_overlapped_promotion --shapes 2048,512x4096x4096 $P24
run $B/24_overlapped_promotion --shapes 2048,512x4096x4096 $P24 --defaults
run $B/24_overlapped_promotion --shapes 2048,512x4096x4096 $P24 --param BN=128 --param STAGES=6
run $B/24_overlapped_promotion --shapes 2048,512x4096x4096 $P24 --param BN=176 --param STAGES=5
run $B/24_overlapped_promotion --shapes 2048,512x4096x4096 $P24 --param BM=64 --param BN=128 --param STAGES=8 --param CLUSTER=1
run $B/24_overlapped_promotion --shapes 2048,512x4096x4096 --dtype e4m3 --out f32 --reps 30
run $B/24_overlapped_promotion --shapes 2048,512x4096x4096 --dtype e4m3 --out f32 --reps 30 --defaults
run $B/24_overlapped_promotion --shapes 2048,512x4096x4096 --dtype e4m3 --out f32 --reps 30 --param BN=176 --param STAGES=5
