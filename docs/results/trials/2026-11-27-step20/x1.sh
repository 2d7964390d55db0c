#!/bin/bash
# Trial: the epilogue under the next tile (19_ep) against the step (19_base), incl. the 128x128 tile at 8192.
B=.dev/bin
nvidia-smi --query-gpu=name,clocks.sm,clocks.max.sm,temperature.gpu,power.draw --format=csv > $OUT/gpu.txt
{
$B/19_ep --check-only --shapes 129x127x160,1000x1000x1008,4088x4104x4096,136x520x272,4096,64x64x128
$B/19_ep --check-only --shapes 129x127x160,1000x1000x1008 --out f32 --beta 0.5
$B/19_ep --check-only --shapes 129x127x160,1000x1000x1008,8192 --out f16
$B/19_ep --check-only --shapes 1000x1000x1008,136x520x272,8192 --param BN=128 --param STAGES=6
$B/19_ep --check-only --shapes 1000x1000x1008,136x520x272 --param PROMOTE=4 --param BN=192 --param STAGES=4
$B/19_ep --check-only --shapes 1000x1000x1008,136x520x272 --param PROMOTE=0 --param BN=192 --param STAGES=4
} > $OUT/check.log 2>&1
echo "check exit $?" >> $OUT/check.log
{
for r in 1 2; do
for b in base ep; do
echo "== $b bf16 default"; $B/19_$b --shapes 4096,8192
echo "== $b bf16 BN128"; $B/19_$b --shapes 6144,8192 --param BN=128 --param STAGES=6
done; done
for b in base ep; do echo "== $b f32"; $B/19_$b --shapes 4096,8192 --out f32; done
} > $OUT/perf.log 2>&1
grep -E "^ +[0-9]+ +[0-9]+ +[0-9]+ \||^==|check exit" $OUT/perf.log $OUT/check.log
