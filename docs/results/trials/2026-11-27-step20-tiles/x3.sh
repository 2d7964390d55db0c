#!/bin/bash
# Trial: the 128 x 144 tile (5 stages) with the epilogue under the next tile, against step 20 as committed.
B=.dev/bin
P="--param BN=144 --param STAGES=5"
nvidia-smi --query-gpu=name,clocks.sm,clocks.max.sm,temperature.gpu,power.draw --format=csv > $OUT/gpu.txt
{
$B/20_t144 --check-only --shapes 129x127x160,1000x1000x1008,4088x4104x4096,136x520x272,8192,64x64x128,200x150x4096 $P || echo "CHECK FAILED: $?"
$B/20_t144 --check-only --shapes 129x127x160,1000x1000x1008,136x520x272 --out f32 --beta 0.5 $P || echo "CHECK FAILED: $?"
$B/20_t144 --check-only --shapes 129x127x160,1000x1000x1008,136x520x272 --out bf16 --beta 0.5 $P || echo "CHECK FAILED: $?"
$B/20_t144 --check-only --shapes 129x127x160,1000x1000x1008,4096 --out f16 --dtype e5m2 $P || echo "CHECK FAILED: $?"
$B/20_t144 --check-only --shapes 129x127x160,1000x1000x1008,4096 --out f32 $P || echo "CHECK FAILED: $?"
$B/20_t144 --check-only --shapes 129x127x160,1000x1000x1008,4096 || echo "CHECK FAILED: $?"
} > $OUT/check.log 2>&1
echo "check exit $?" >> $OUT/check.log
{
for r in 1 2; do
for o in bf16 f16 f32; do
echo "== base $o"; $B/20_base --shapes 4096,6144,8192 --out $o
echo "== t144 $o"; $B/20_t144 --shapes 4096,6144,8192 --out $o $P
done; done
} > $OUT/perf.log 2>&1
grep -E "^ +[0-9]+ +[0-9]+ +[0-9]+ \||^==|check exit|FAIL" $OUT/perf.log $OUT/check.log | head -80
