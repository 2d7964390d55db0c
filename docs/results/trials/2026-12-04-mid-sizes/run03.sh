#!/bin/bash
# Trial: step 18 with narrow units dealt in pairs (WALK) against main at 3ce467a (HEAD).
mkdir -p walk head && tar xf .dev/walk.tar -C walk && tar xf .dev/head18.tar -C head
W=walk/bin/18_tma_store_epilogue; H=head/bin/18_tma_store_epilogue
nvidia-smi --query-gpu=name,clocks.sm,clocks.max.sm,power.draw,temperature.gpu --format=csv,noheader > $OUT/gpu.txt
{
echo "== correctness of WALK"
for l in nn nt tn; do
  timeout 120 $W --check-only --shapes 4088x4104x512,4095x4097x256,264x520x64,1000x4104x256,130x200x64 --layout $l --out f32 --beta 0.5; echo "rc=$?"
  timeout 120 $W --check-only --shapes 4088x4104x512,264x520x64,1000x4104x256 --layout $l --out bf16; echo "rc=$?"
done
} > $OUT/check.log 2>&1
{
for round in 1 2; do
  for cols in "bf16 nn bf16" "bf16 nn f32" "bf16 nt f32" "bf16 tn f32" "f16 nn f16" "f16 nn f32" "f16 nt f32" "f16 tn f32"; do
    set -- $cols
    for b in H W; do
      bin=${!b}
      echo "== round $round $b dtype $1 layout $2 out $3"
      timeout 60 $bin --shapes 4088x4104x4096,4095x4097x4093,4096 --dtype $1 --layout $2 --out $3 --reps 30 --warmup 5 | grep -E "^ +[0-9]|runs"
    done
  done
done
} > $OUT/bench.log 2>&1
