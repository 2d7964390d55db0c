#!/bin/bash
# Trial: step 18 with a 64 x 128 tile (one consumer warpgroup, wgmma n = 128), clusters of 1 and 2, at the deep and small shapes.
mkdir -p t head && tar xf .dev/t18.tar -C t && tar xf .dev/main1823.tar -C head
T=t/bin/18_tma_store_epilogue; H=head/bin/18_tma_store_epilogue
P="--param BM=64 --param BN=128 --param BK=64 --param STAGES=8 --param GROUP_M=8"
nvidia-smi --query-gpu=name,clocks.sm,clocks.max.sm,power.draw,temperature.gpu --format=csv,noheader > $OUT/gpu.txt
{
echo "== correctness, 64 x 128"
for c in 1 2; do for lo in "nn f16 0" "nt f32 0.5" "tn f32 0.5" "nn f32 0.5"; do set -- $lo
  timeout 100 $T --check-only $P --param CLUSTER=$c --shapes 104x296x8,264x520x136,1000x1000x1000,4088x4104x64,130x200x64,1024x1024x8192 --dtype f16 --layout $1 --out $2 --beta $3 | grep -E "FAIL|^ +[0-9]"; echo "rc=${PIPESTATUS[0]}"
done; done
} > $OUT/check.log 2>&1
S=1024x1024x8192,1024x1024x16384,768x768x8192,1024,512x4096x4096,2048
{
for round in 1 2; do
  for d in "bf16 nn bf16" "bf16 nt f32"; do set -- $d
    echo "== round $round MAIN by shape, $1 $2 $3"; timeout 60 $H --shapes $S --dtype $1 --layout $2 --out $3 --reps 30 --warmup 5 | grep -E "^ +[0-9]"
    for c in 1 2; do
      echo "== round $round TRIAL 64x128 CLUSTER=$c, $1 $2 $3"; timeout 60 $T $P --param CLUSTER=$c --shapes $S --dtype $1 --layout $2 --out $3 --reps 30 --warmup 5 | grep -E "^ +[0-9]"
    done
  done
done
} > $OUT/bench.log 2>&1
