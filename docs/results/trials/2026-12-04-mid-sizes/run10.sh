#!/bin/bash
# Trial: step 18, 128 x 144 and 128 x 160 tiles with 4 and 5 stages (NT, beta = 0) at 1536^3.
mkdir -p t head && tar xf .dev/t144.tar -C t && tar xf .dev/head18.tar -C head
T=t/bin/18_tma_store_epilogue; H=head/bin/18_tma_store_epilogue
P="--param BM=128 --param BK=64 --param GROUP_M=16 --param CLUSTER=2"
nvidia-smi --query-gpu=name,clocks.sm,clocks.max.sm,power.draw,temperature.gpu --format=csv,noheader > $OUT/gpu.txt
{
echo "== correctness (NT, beta 0), 5 stages"
for bn in 144 160; do timeout 100 $T --check-only $P --param STAGES=5 --param BN=$bn --shapes 1536,1000x1000x1000,264x520x64,1536x1600x512 --dtype bf16 --layout nt --out bf16; echo "rc=$?"; done
} > $OUT/check.log 2>&1
{
for round in 1 2; do
  for d in "bf16 bf16" "bf16 f32" "f16 f16" "f16 f32"; do set -- $d
    echo "== round $round HEAD by shape, $1 nt $2"; timeout 60 $H --shapes 1536 --dtype $1 --layout nt --out $2 --reps 30 --warmup 5 | grep -E "^ +[0-9]"
    for v in "144 4" "144 5" "160 5"; do set -- $d $v; echo "== round $round TRIAL BN=$3 STAGES=$4, $1 nt $2"; timeout 60 $T $P --param BN=$3 --param STAGES=$4 --shapes 1536 --dtype $1 --layout nt --out $2 --reps 30 --warmup 5 | grep -E "^ +[0-9]"; done
  done
done
} > $OUT/bench.log 2>&1
