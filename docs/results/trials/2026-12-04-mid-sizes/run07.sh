#!/bin/bash
# Trial: the pairing in the numbering (dealt_unit), steps 18 and 22, against main at 3ce467a.
mkdir -p num head && tar xf .dev/num.tar -C num && tar xf .dev/head18.tar -C head && tar xf .dev/head22.tar -C head
nvidia-smi --query-gpu=name,clocks.sm,clocks.max.sm,power.draw,temperature.gpu --format=csv,noheader > $OUT/gpu.txt
{
echo "== correctness, step 18"
for l in nn nt tn; do timeout 100 num/bin/18_tma_store_epilogue --check-only --shapes 4088x4104x512,4095x4097x256,264x520x64,1000x4104x256,3000x4104x512 --dtype bf16 --layout $l --out bf16; echo "rc=$?"; done
timeout 100 num/bin/18_tma_store_epilogue --check-only --shapes 4088x4104x512,264x520x64,3000x4104x512 --layout nn --out f32 --beta 0.5; echo "rc=$?"
echo "== correctness, step 22"
timeout 100 num/bin/22_tile_width --check-only --shapes 4088x4104x512,4096x4096x256,264x520x128,1000x4104x256,3000x4104x512 --out bf16; echo "rc=$?"
timeout 100 num/bin/22_tile_width --check-only --shapes 4088x4104x512,264x520x128,3000x4104x512 --out f32 --beta 0.5; echo "rc=$?"
} > $OUT/check.log 2>&1
{
for round in 1 2; do
  for cols in "bf16 nn bf16" "bf16 nt f32" "f16 tn f32"; do
    set -- $cols
    for b in head num; do echo "== round $round $b step 18 dtype $1 layout $2 out $3"; timeout 60 $b/bin/18_tma_store_epilogue --shapes 4088x4104x4096,4096 --dtype $1 --layout $2 --out $3 --reps 30 --warmup 5 | grep -E "^ +[0-9]"; done
  done
  for cols in "e4m3 bf16" "e4m3 f32"; do
    set -- $cols
    for b in head num; do echo "== round $round $b step 22 dtype $1 out $2"; timeout 60 $b/bin/22_tile_width --shapes 4088x4104x4096,4096,8192,2048 --dtype $1 --out $2 --reps 30 --warmup 5 | grep -E "^ +[0-9]|runs"; done
  done
done
} > $OUT/bench.log 2>&1
