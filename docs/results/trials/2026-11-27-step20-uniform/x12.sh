#!/bin/bash
# Trial: 20_ud2 (uniform consumer index + descriptors from stage 0's + two interval sums in turn for the 128-column tiles)
# against 20_ud and 20_base at the shapes that take the 128 x 128 tile.
B=.dev/bin
{
$B/20_ud2 --check-only --shapes 4088x4104x4096,4096,136x520x272,64x64x128,200x152x4096,1000x1000x1008,4095x4097x4093 || echo "CHECK FAILED: $?"
$B/20_ud2 --check-only --shapes 4096,136x520x272,200x152x384 --out f16 --dtype e5m2 || echo "CHECK FAILED: $?"
$B/20_ud2 --check-only --shapes 4096,136x520x272 --out f32 || echo "CHECK FAILED: $?"
$B/20_ud2 --check-only --shapes 4096,264x408x640 --out bf16 --beta 0.5 || echo "CHECK FAILED: $?"
compute-sanitizer --tool racecheck $B/20_ud2 --check-only --shapes 264x264x640 --reps 1 --warmup 0 2>&1 | tail -1
} > $OUT/check.log 2>&1
{
for r in 1 2 3; do
for b in base ud ud2; do
for o in bf16 f16 f32; do echo "== $b $o"; $B/20_$b --shapes 4096,4088x4104x4096 --out $o; done
done; done
for b in base ud2; do echo "== $b bf16"; $B/20_$b --shapes 2048 --out bf16; done
} > $OUT/perf.log 2>&1
awk '/^==/{h=$2" "$3; next} /^ +[0-9]+ +[0-9]+ +[0-9]+ \|/{print h, $1"x"$2, $6, $8, $9}' $OUT/perf.log | sort -k3,3 -k2,2 -k1,1 | paste - - -
grep -c PASS $OUT/check.log; grep -E "CHECK|FAIL|ERROR|hazard" $OUT/check.log | head
