#!/bin/bash
# Trial: step 18 with a 128 x 160 tile (K-major B, f32 out) at 1536^3, against its 128 x 192 choice and main's binary.
mkdir -p t head && tar xf .dev/t160.tar -C t && tar xf .dev/head18.tar -C head
T=t/bin/18_tma_store_epilogue; H=head/bin/18_tma_store_epilogue
P="--param BM=128 --param BN=160 --param BK=64 --param STAGES=4 --param GROUP_M=16 --param CLUSTER=2"
nvidia-smi --query-gpu=name,clocks.sm,clocks.max.sm,power.draw,temperature.gpu --format=csv,noheader > $OUT/gpu.txt
{
echo "== correctness of BN=160 (NT, f32 out)"
for d in bf16 f16; do timeout 100 $T --check-only $P --shapes 1536,1000x1000x1000,264x520x64,1536x1600x512 --dtype $d --layout nt --out f32 --beta 0.5; echo "rc=$?"; timeout 100 $T --check-only $P --shapes 1536,1000x1000x1000 --dtype $d --layout nt --out f32; echo "rc=$?"; done
} > $OUT/check.log 2>&1
{
for round in 1 2; do
  for d in bf16 f16; do
    echo "== round $round HEAD by shape, $d nt f32"; timeout 60 $H --shapes 1536,1280,1792 --dtype $d --layout nt --out f32 --reps 30 --warmup 5 | grep -E "^ +[0-9]|runs"
    echo "== round $round TRIAL BN=160, $d nt f32"; timeout 60 $T $P --shapes 1536,1280,1792 --dtype $d --layout nt --out f32 --reps 30 --warmup 5 | grep -E "^ +[0-9]"
  done
done
} > $OUT/bench.log 2>&1
