#!/bin/bash
# Trial: step 22 with narrow units dealt in pairs (WALK) against main at 3ce467a (HEAD).
mkdir -p walk head && tar xf .dev/walk22.tar -C walk && tar xf .dev/head22.tar -C head
W=walk/bin/22_tile_width; H=head/bin/22_tile_width
nvidia-smi --query-gpu=name,clocks.sm,clocks.max.sm,power.draw,temperature.gpu --format=csv,noheader > $OUT/gpu.txt
{
echo "== correctness of WALK"
timeout 120 $W --check-only --shapes 4088x4104x512,4095x4097x256,4096x4096x256,264x520x128,1000x4104x256,130x200x128 --out f32 --beta 0.5; echo "rc=$?"
timeout 120 $W --check-only --shapes 4088x4104x512,4096x4096x256,264x520x128,1000x4104x256 --out bf16; echo "rc=$?"
timeout 120 $W --check-only --shapes 4088x4104x512,4096x4096x256 --dtype e5m2 --out bf16; echo "rc=$?"
} > $OUT/check.log 2>&1
{
for round in 1 2; do
  for cols in "e4m3 bf16" "e4m3 f16" "e4m3 f32" "e5m2 bf16"; do
    set -- $cols
    for b in H W; do
      bin=${!b}
      echo "== round $round $b dtype $1 out $2"
      timeout 60 $bin --shapes 4088x4104x4096,4096,8192 --dtype $1 --out $2 --reps 30 --warmup 5 | grep -E "^ +[0-9]|runs"
    done
  done
done
} > $OUT/bench.log 2>&1
