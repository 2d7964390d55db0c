#!/bin/bash
B=.dev/bin
{
$B/19_exp --check-only --shapes 128x128x128,129x127x160,1000x1000x1008,4088x4104x4096,4096,136x520x272,2048x2048x256,64x64x128,100x40x300
$B/19_exp --check-only --shapes 129x127x160,1000x1000x1008,136x520x272,2048 --beta 0.5
$B/19_exp --check-only --shapes 129x127x160,1000x1000x1008,136x520x272,2048,4096 --out f32
$B/19_exp --check-only --shapes 129x127x160,1000x1000x1008,136x520x272 --out f16 --dtype e5m2
for bn in 128 192; do st=$([ $bn = 128 ] && echo 6 || echo 4)
$B/19_exp --check-only --shapes 1000x1000x1008,136x520x272,2048,100x40x300 --param PROMOTE=1 --param BN=$bn --param STAGES=$st
$B/19_exp --check-only --shapes 1000x1000x1008,136x520x272 --param PROMOTE=1 --param BN=$bn --param STAGES=$st --out f32 --beta 0.5
done
$B/19_exp --check-only --shapes 1000x1000x1008,136x520x272,2048 --param PROMOTE=4 --param BN=192 --param STAGES=4
$B/19_exp --check-only --shapes 1000x1000x1008,2048 --param PROMOTE=0 --param BN=192 --param STAGES=4
$B/19_exp --check-only --out f32 --shapes 256x256x256,256x256x4096,256x256x16384
} > $OUT/check.log 2>&1
echo "check exit $?" >> $OUT/check.log
{
for r in 1 2; do
echo "== base"; $B/19_fp8 --shapes 4096,8192
echo "== exp"; $B/19_exp --shapes 4096,8192
done
echo "== base f32"; $B/19_fp8 --shapes 4096,8192 --out f32
echo "== exp f32"; $B/19_exp --shapes 4096,8192 --out f32
echo "== exp 6144 ragged"; $B/19_exp --shapes 6144,4088x4104x4096,1000x1000x1008
echo "== base 6144 ragged"; $B/19_fp8 --shapes 6144,4088x4104x4096,1000x1000x1008
echo "== exp 8192 BN128"; $B/19_exp --shapes 8192 --param BN=128 --param STAGES=6
} > $OUT/perf.log 2>&1
grep -E "^ +[0-9]+ +[0-9]+ +[0-9]+ \||^==" $OUT/perf.log
