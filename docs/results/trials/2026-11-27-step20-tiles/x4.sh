#!/bin/bash
# Trial: the 128 x 128 tile's first promotion sets the accumulators and the tile's results are packed to 16 bits
# before the next tile (20_pack), against step 20 as committed (20_base).
B=.dev/bin
nvidia-smi --query-gpu=name,clocks.sm,clocks.max.sm,temperature.gpu,power.draw --format=csv > $OUT/gpu.txt
{
$B/20_pack --check-only --shapes 129x127x160,1000x1000x1008,4088x4104x4096,136x520x272,4096,64x64x128,200x150x4096,1000x1040x256 || echo "CHECK FAILED: $?"
$B/20_pack --check-only --shapes 129x127x160,1000x1000x1008,136x520x272,4096 --out f16 --dtype e5m2 || echo "CHECK FAILED: $?"
$B/20_pack --check-only --shapes 129x127x160,1000x1000x1008,136x520x272 --beta 0.5 || echo "CHECK FAILED: $?"
$B/20_pack --check-only --shapes 129x127x160,1000x1000x1008,4096 --out f32 || echo "CHECK FAILED: $?"
$B/20_pack --check-only --shapes 1000x1000x1008,4096 --param BN=128 --param STAGES=6 --param PROMOTE=1 --out bf16 || echo "CHECK FAILED: $?"
} > $OUT/check.log 2>&1
{
for r in 1 2 3; do
for b in base pack; do
echo "== $b bf16"; $B/20_$b --shapes 4096,4088x4104x4096
echo "== $b f16"; $B/20_$b --shapes 4096 --out f16
done; done
} > $OUT/perf.log 2>&1
grep -E "^ +[0-9]+ +[0-9]+ +[0-9]+ \||^==|CHECK|FAIL" $OUT/perf.log $OUT/check.log | head -80
