#!/bin/bash
# Trial: the second consumer starts N ns after the first (__nanosleep at the start, 20_sN), so that the two
# consumers' epilogues fall at different times; against step 20 as committed (20_base).
B=.dev/bin
nvidia-smi --query-gpu=name,clocks.sm,clocks.max.sm,temperature.gpu,power.draw --format=csv > $OUT/gpu.txt
{
for b in s300 s700 s1500; do
$B/20_$b --check-only --shapes 129x127x160,1000x1000x1008,4088x4104x4096,8192 || echo "CHECK FAILED: $?"
$B/20_$b --check-only --shapes 129x127x160,1000x1000x1008 --out f32 --beta 0.5 || echo "CHECK FAILED: $?"
done
} > $OUT/check.log 2>&1
{
for r in 1 2; do
for o in bf16 f16 f32; do
for b in base s300 s700 s1500; do
echo "== $b $o"; $B/20_$b --shapes 8192 --out $o
done; done
for b in base s300 s700 s1500; do echo "== $b bf16"; $B/20_$b --shapes 4096; done
done
} > $OUT/perf.log 2>&1
grep -E "^ +[0-9]+ +[0-9]+ +[0-9]+ \||^==|CHECK|FAIL" $OUT/perf.log $OUT/check.log | grep -v "check.log.*PASS" | sed 's/\/root\/out\///' | awk '/^perf.log:==/{h=$0; next} {print h " " $0}' | sed 's/perf.log:== //; s/perf.log://' | awk '{print $1,$2,$3"x"$4"x"$5,$(NF-3),$(NF)}'
grep -c PASS $OUT/check.log
