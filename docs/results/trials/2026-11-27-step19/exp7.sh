#!/bin/bash
B=.dev/bin
{
for b in e1 e2; do
$B/19_$b --check-only --shapes 129x127x160,1000x1000x1008,4088x4104x4096,136x520x272,4096
$B/19_$b --check-only --shapes 129x127x160,1000x1000x1008 --out f32 --beta 0.5
$B/19_$b --check-only --shapes 1000x1000x1008,136x520x272 --param PROMOTE=4 --param BN=192 --param STAGES=4
$B/19_$b --check-only --shapes 1000x1000x1008,136x520x272 --param PROMOTE=0 --param BN=192 --param STAGES=4
done
} > $OUT/check.log 2>&1
echo "check exit $?" >> $OUT/check.log
{
for r in 1 2; do
for b in base e1 e2; do
echo "== $b bf16"; $B/19_$b --shapes 4096,8192
done; done
for b in base e1 e2; do echo "== $b f32"; $B/19_$b --shapes 4096,8192 --out f32; done
for b in base e1; do echo "== $b P0"; $B/19_$b --shapes 4096,8192 --defaults --param PROMOTE=0; done
} > $OUT/perf.log 2>&1
grep -E "^ +[0-9]+ +[0-9]+ +[0-9]+ \||^==" $OUT/perf.log
