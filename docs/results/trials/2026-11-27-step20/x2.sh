#!/bin/bash
# Trial: 16-bit output of the 192-column kernels compiled with the copy engine's store path only
# (20_trial; beta = 0 and aligned rows only, so only those shapes here) against step 20 as committed.
B=.dev/bin
{
$B/20_trial --check-only --shapes 8192,6144,4088x4104x4096,129x136x160 --param BN=192 --param STAGES=4
$B/20_trial --check-only --shapes 8192,4096 --out f16
} > $OUT/check.log 2>&1
echo "check exit $?" >> $OUT/check.log
{
for r in 1 2 3; do
for b in base trial; do
echo "== $b bf16"; $B/20_$b --shapes 6144,8192
done; done
for b in base trial; do echo "== $b f16"; $B/20_$b --shapes 8192 --out f16; done
} > $OUT/perf.log 2>&1
grep -E "^ +[0-9]+ +[0-9]+ +[0-9]+ \||^==|check exit|kernel:" $OUT/perf.log $OUT/check.log | grep -v "kernel:" 
grep -m2 "kernel:" $OUT/perf.log
