#!/bin/bash
# Trial: the consumer's index made uniform (REDUX) and the wgmma descriptors moved from stage 0's by the stage's offset (20_ud),
# against step 20 as committed (20_base).
B=.dev/bin
nvidia-smi --query-gpu=name,clocks.sm,clocks.max.sm,temperature.gpu,power.draw --format=csv > $OUT/gpu.txt
{
$B/20_ud --check-only --shapes 4088x4104x4096,4096,8192,136x520x272,64x64x128,200x152x4096,1000x1000x1008,4095x4097x4093 || echo "CHECK FAILED: $?"
$B/20_ud --check-only --shapes 4096,8192,136x520x272 --out f16 --dtype e5m2 || echo "CHECK FAILED: $?"
$B/20_ud --check-only --shapes 4096,8192,200x152x384 --out f32 || echo "CHECK FAILED: $?"
$B/20_ud --check-only --shapes 4096,264x408x640 --out bf16 --beta 0.5 || echo "CHECK FAILED: $?"
compute-sanitizer --tool racecheck $B/20_ud --check-only --shapes 264x408x640 --param BN=192 --param STAGES=4 --reps 1 --warmup 0 2>&1 | tail -2
compute-sanitizer --tool memcheck $B/20_ud --check-only --shapes 264x408x640 --reps 1 --warmup 0 2>&1 | tail -2
} > $OUT/check.log 2>&1
{
for r in 1 2 3; do
for b in base ud; do
for o in bf16 f16; do echo "== $b $o"; $B/20_$b --shapes 4096,8192 --out $o; done
echo "== $b f32"; $B/20_$b --shapes 4096 --out f32
done; done
for b in base ud; do echo "== $b f32_8192"; $B/20_$b --shapes 8192 --out f32; done
} > $OUT/perf.log 2>&1
for b in base ud; do cuobjdump -sass $B/20_$b | gzip -c > $OUT/$b.sass.gz; done
awk '/^==/{h=$2" "$3; next} /^ +[0-9]+ +[0-9]+ +[0-9]+ \|/{print h, $1, $(NF-4)}' $OUT/perf.log | paste - - - - - - -
grep -c PASS $OUT/check.log; grep -E "CHECK|FAIL|ERROR|hazard" $OUT/check.log | head
