#!/bin/bash
# Trial: the 192-column tile's epilogue under the next tile, 16-bit output compiled with the copy engine's
# store path only (beta = 0, aligned rows; 20_u192), against step 20 as committed (20_base).
B=.dev/bin
nvidia-smi --query-gpu=name,clocks.sm,clocks.max.sm,temperature.gpu,power.draw --format=csv > $OUT/gpu.txt
{
$B/20_u192 --check-only --shapes 4088x4104x4096,8192,6144,136x520x272,64x64x128,200x152x4096 --param BN=192 --param STAGES=4 || echo "CHECK FAILED: $?"
$B/20_u192 --check-only --shapes 4088x4104x4096,8192,136x520x272 --out f16 --dtype e5m2 --param BN=192 --param STAGES=4 || echo "CHECK FAILED: $?"
$B/20_u192 --check-only --shapes 8192,1000x1000x1008 --out f32 || echo "CHECK FAILED: $?"
} > $OUT/check.log 2>&1
{
for r in 1 2 3; do
for o in bf16 f16; do
for b in base u192; do
echo "== $b $o"; $B/20_$b --shapes 6144,8192 --out $o
done; done; done
} > $OUT/perf.log 2>&1
awk '/^==/{h=$2" "$3; next} /^ +[0-9]+ +[0-9]+ +[0-9]+ \|/{print h, $1, $(NF-4)}' $OUT/perf.log | paste - - - -
grep -c PASS $OUT/check.log; grep -E "CHECK|FAIL" $OUT/check.log
