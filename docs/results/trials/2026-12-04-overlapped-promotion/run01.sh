#!/bin/bash
# Prepared 2026-12-04 (seventh session) for the next session's first device call. Binaries: main at
# 75e76d0 (.dev/main1823-v13.tar: step 18 with the 64 x 128 tile, step 23 as shipped) and the FP8
# trial (.dev/t23-64x128.tar, .dev/t23-64x128.diff: step 23 with a 64 x 128 tile, one consumer,
# PROMOTE 1 (ptxas serialised its non-split kernels, C7511: .dev/t23-64x128.ptxas.txt) and PROMOTE 4).
# A: step 18's 128 x 128 tile (config 4) at 4088 x 4104 x 4096: 1056 tiles = 8 full rounds of 132
#    (the default takes 4 rounds and a short one); by name against main's choice, four type pairs.
# B: step 23's 64 x 128 tile against main's by shape at the deep and narrow shapes, e4m3 -> bf16, f32.
# Rebuild the tars first if main moved past 75e76d0 in steps 18 or 23.
mkdir -p t head && tar xf .dev/t23-64x128.tar -C t && tar xf .dev/main1823-v13.tar -C head
H18=head/bin/18_tma_store_epilogue; H23=head/bin/23_stream_k; T23=t/bin/23_stream_k
nvidia-smi --query-gpu=name,clocks.sm,clocks.max.sm,power.draw,temperature.gpu --format=csv,noheader > $OUT/gpu.txt
{
echo "== correctness, trial 64 x 128 FP8"
for p in 1 4; do for d in "bf16 0" "f32 0.5"; do set -- $d
  timeout 120 $T23 --check-only --param BM=64 --param BN=128 --param STAGES=8 --param CLUSTER=1 --param PROMOTE=$p --shapes 104x296x16,264x520x144,1000x1000x1008,4088x4104x128,264x400x8192,1024x1024x8192 --out $1 --beta $2 | grep -E "FAIL|^ +[0-9]"; echo "rc=${PIPESTATUS[0]}"
done; done
} > $OUT/check.log 2>&1
{
for round in 1 2; do
  for d in "bf16 nn bf16" "bf16 nt f32" "f16 tn f32" "f16 nn f16"; do set -- $d
    echo "== round $round A step 18 MAIN by shape, $1 $2 $3"; timeout 60 $H18 --shapes 4088x4104x4096,4095x4097x4093,4096 --dtype $1 --layout $2 --out $3 --reps 30 --warmup 5 | grep -E "^ +[0-9]"
    echo "== round $round A step 18 128x128 c1, $1 $2 $3"; timeout 60 $H18 --param BM=128 --param BN=128 --param STAGES=6 --param GROUP_M=8 --param CLUSTER=1 --shapes 4088x4104x4096,4095x4097x4093,4096 --dtype $1 --layout $2 --out $3 --reps 30 --warmup 5 | grep -E "^ +[0-9]"
  done
  S=1024x1024x8192,512x4096x4096,1024,2048,768x768x8192,1024x1024x16384
  for out in bf16 f32; do
    echo "== round $round B step 23 MAIN by shape, e4m3 nt $out"; timeout 60 $H23 --shapes $S --out $out --reps 30 --warmup 5 | grep -E "^ +[0-9]"
    for p in 1 4; do
      echo "== round $round B step 23 TRIAL 64x128 PROMOTE=$p, e4m3 nt $out"; timeout 60 $T23 --param BM=64 --param BN=128 --param STAGES=8 --param CLUSTER=1 --param PROMOTE=$p --shapes $S --out $out --reps 30 --warmup 5 | grep -E "^ +[0-9]"
    done
  done
done
} > $OUT/bench.log 2>&1
