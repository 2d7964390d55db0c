#!/bin/bash
# Trial: the 128 x 176 tile (5 stages; 16-bit: copy-engine-only kernel under the next tile with uniform addresses;
# f32: both paths with uniform addresses) against step 21 as committed, at 4096^3 (and 6144^3, 8192^3 once).
B=.dev/bin
P="--param BN=176 --param STAGES=5"
nvidia-smi --query-gpu=name,clocks.sm,clocks.max.sm,temperature.gpu,power.draw --format=csv > $OUT/gpu.txt
{
$B/22_t --check-only --shapes 4096,4088x4104x4096,129x127x160,1000x1000x1008,136x520x272,200x152x4096,64x64x128 $P || echo "CHECK FAILED: $?"
$B/22_t --check-only --shapes 4096,4095x4097x4093,136x520x272 --out f32 $P || echo "CHECK FAILED: $?"
$B/22_t --check-only --shapes 4096,264x408x640,4095x4097x4093 --out bf16 --beta 0.5 $P || echo "CHECK FAILED: $?"
$B/22_t --check-only --shapes 4096,136x520x272 --out f16 --dtype e5m2 $P || echo "CHECK FAILED: $?"
$B/22_t --check-only --shapes 4096,264x408x640 --out f32 --beta 0.5 $P || echo "CHECK FAILED: $?"
compute-sanitizer --tool racecheck $B/22_t --check-only --shapes 264x360x640 --reps 1 --warmup 0 $P 2>&1 | tail -1
compute-sanitizer --tool memcheck $B/22_t --check-only --shapes 264x360x640,136x520x272 --out f32 --reps 1 --warmup 0 $P 2>&1 | tail -1
} > $OUT/check.log 2>&1
{
for r in 1 2 3; do
for o in bf16 f16 f32; do
echo "== base $o"; $B/21_base --shapes 4096 --out $o
echo "== t176 $o"; $B/22_t --shapes 4096 --out $o $P
done
echo "== base e5m2"; $B/21_base --shapes 4096 --out bf16 --dtype e5m2
echo "== t176 e5m2"; $B/22_t --shapes 4096 --out bf16 --dtype e5m2 $P
done
for o in bf16 f32; do
echo "== base $o"; $B/21_base --shapes 6144,8192,2048 --out $o
echo "== t176 $o"; $B/22_t --shapes 6144,8192,2048 --out $o $P
done
} > $OUT/perf.log 2>&1
awk '/^==/{h=$2" "$3; next} /^ +[0-9]+ +[0-9]+ +[0-9]+ \|/{print h, $1"x"$2, $6, $8, $9}' $OUT/perf.log | sort -k3,3 -k2,2 -k1,1
grep -c PASS $OUT/check.log; grep -E "CHECK|FAIL|ERROR|hazard|error" $OUT/check.log | head
