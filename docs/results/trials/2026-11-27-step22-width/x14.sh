#!/bin/bash
# Trial: the 128 x 176 tile with 16-bit output at 4096^3: v1 (copy-engine-only kernel, uniform addresses, epilogue
# after the tile, as f32's), v2 (copy-engine-only, under the next tile, step 20's descriptors), against step 21.
B=.dev/bin
P="--param BN=176 --param STAGES=5"
nvidia-smi --query-gpu=name,clocks.sm,clocks.max.sm,temperature.gpu,power.draw --format=csv > $OUT/gpu.txt
{
for v in v1 v2; do
$B/22_$v --check-only --shapes 4096,4088x4104x4096,1000x1000x1008,136x520x272,200x152x4096,64x64x128 $P || echo "CHECK FAILED: $?"
$B/22_$v --check-only --shapes 4096,136x520x272 --out f16 --dtype e5m2 $P || echo "CHECK FAILED: $?"
done
compute-sanitizer --tool racecheck $B/22_v1 --check-only --shapes 264x360x640 --reps 1 --warmup 0 $P 2>&1 | tail -1
} > $OUT/check.log 2>&1
{
for r in 1 2 3; do
for o in bf16 f16; do
echo "== base $o"; $B/21_base --shapes 4096 --out $o
echo "== v1 $o"; $B/22_v1 --shapes 4096 --out $o $P
echo "== v2 $o"; $B/22_v2 --shapes 4096 --out $o $P
done
echo "== base e5m2"; $B/21_base --shapes 4096 --out bf16 --dtype e5m2
echo "== v1 e5m2"; $B/22_v1 --shapes 4096 --out bf16 --dtype e5m2 $P
done
echo "== base bf16"; $B/21_base --shapes 6144,8192 --out bf16
echo "== v1 bf16"; $B/22_v1 --shapes 6144,8192 --out bf16 $P
} > $OUT/perf.log 2>&1
awk '/^==/{h=$2" "$3; next} /^ +[0-9]+ +[0-9]+ +[0-9]+ \|/{print h, $1"x"$2, $6, $8, $9}' $OUT/perf.log | sort -k3,3 -k2,2 -k1,1
grep -c PASS $OUT/check.log; grep -E "CHECK|FAIL|ERROR|hazard|error" $OUT/check.log | grep -v yardstick | head
