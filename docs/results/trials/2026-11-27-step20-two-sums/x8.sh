#!/bin/bash
# Trial: two interval sums in turn (tiles of <= 128 columns, PROMOTE = 1), f32 output (the 16-bit kernels got C7511).
B=.dev/bin
nvidia-smi --query-gpu=name,clocks.sm,clocks.max.sm,temperature.gpu,power.draw --format=csv > $OUT/gpu.txt
{
$B/20_pp --check-only --shapes 4088x4104x4096,4096,136x520x272,64x64x128,200x152x4096,1000x1000x1008,4095x4097x4093 --out f32 || echo "CHECK FAILED: $?"
$B/20_pp --check-only --shapes 8192,136x520x272,200x152x384 --out f32 --param BN=128 --param STAGES=6 || echo "CHECK FAILED: $?"
$B/20_pp --check-only --shapes 4096,136x520x272 --out bf16 || echo "CHECK FAILED: $?"
$B/20_pp --check-only --shapes 4096,136x520x272 --out f16 --dtype e5m2 || echo "CHECK FAILED: $?"
compute-sanitizer --tool racecheck $B/20_pp --check-only --shapes 264x264x640 --out f32 --reps 1 --warmup 0 2>&1 | tail -3
} > $OUT/check.log 2>&1
{
for r in 1 2 3; do
for b in base pp; do
echo "== $b f32"; $B/20_$b --shapes 4096,4088x4104x4096 --out f32
echo "== $b f32_8192_128"; $B/20_$b --shapes 8192 --out f32 --param BN=128 --param STAGES=6
done; done
for b in base pp; do echo "== $b bf16"; $B/20_$b --shapes 4096 --out bf16; done
} > $OUT/perf.log 2>&1
cuobjdump -sass $B/20_pp > /tmp/pp.sass 2>&1; cuobjdump -sass $B/20_base > /tmp/base.sass 2>&1
gzip -c /tmp/pp.sass > $OUT/pp.sass.gz; gzip -c /tmp/base.sass > $OUT/base.sass.gz
awk '/^==/{h=$2" "$3; next} /^ +[0-9]+ +[0-9]+ +[0-9]+ \|/{print h, $1, $(NF-4)}' $OUT/perf.log
grep -c PASS $OUT/check.log; grep -E "CHECK|FAIL|ERROR" $OUT/check.log | head
