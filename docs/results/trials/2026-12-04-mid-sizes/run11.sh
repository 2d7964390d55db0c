#!/bin/bash
# Trial: step 18's 128 x 64 tile in clusters of two side by side sharing A (K-major A: NN, NT) at the deep and small shapes.
mkdir -p t head && tar xf .dev/tA.tar -C t && tar xf .dev/head18.tar -C head
T=t/bin/18_tma_store_epilogue; H=head/bin/18_tma_store_epilogue
P="--param BM=128 --param BN=64 --param BK=64 --param STAGES=8 --param GROUP_M=8"
nvidia-smi --query-gpu=name,clocks.sm,clocks.max.sm,power.draw,temperature.gpu --format=csv,noheader > $OUT/gpu.txt
{
echo "== correctness of CLUSTER=2 side by side"
for lo in "nn bf16" "nt f32"; do set -- $lo
  timeout 100 $T --check-only $P --param CLUSTER=2 --shapes 1024x1024x8192,1000x960x1000,264x400x512,130x200x64 --dtype bf16 --layout $1 --out $2; echo "rc=$?"
  timeout 100 $T --check-only $P --param CLUSTER=2 --shapes 1000x960x1000,264x400x512 --dtype bf16 --layout $1 --out $2 --beta 0.5; echo "rc=$?"
done
} > $OUT/check.log 2>&1
{
for round in 1 2; do
  for d in "bf16 nn bf16" "bf16 nt f32" "f16 nn f16" "f16 nt f32"; do set -- $d
    echo "== round $round HEAD by shape, $1 $2 $3"; timeout 60 $H --shapes 1024x1024x8192,1024x1024x16384,1024 --dtype $1 --layout $2 --out $3 --reps 30 --warmup 5 | grep -E "^ +[0-9]"
    echo "== round $round TRIAL CLUSTER=2 side by side, $1 $2 $3"; timeout 60 $T $P --param CLUSTER=2 --shapes 1024x1024x8192,1024x1024x16384,1024 --dtype $1 --layout $2 --out $3 --reps 30 --warmup 5 | grep -E "^ +[0-9]"
  done
done
} > $OUT/bench.log 2>&1
