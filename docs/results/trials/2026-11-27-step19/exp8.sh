#!/bin/bash
B=.dev/bin
{
$B/19_e3 --check-only --shapes 129x127x160,1000x1000x1008,4088x4104x4096,136x520x272,4096,64x64x128
$B/19_e3 --check-only --shapes 129x127x160,1000x1000x1008 --out f32 --beta 0.5
$B/19_e3 --check-only --shapes 1000x1000x1008,136x520x272 --param PROMOTE=4 --param BN=192 --param STAGES=4
$B/19_e3 --check-only --shapes 1000x1000x1008,136x520x272 --param PROMOTE=0 --param BN=192 --param STAGES=4
} > $OUT/check.log 2>&1
echo "check exit $?" >> $OUT/check.log
{
for r in 1 2; do
for b in base e3; do
echo "== $b bf16"; $B/19_$b --shapes 4096,8192
done; done
for b in base e3; do echo "== $b f32"; $B/19_$b --shapes 4096,8192 --out f32; done
} > $OUT/perf.log 2>&1
grep -E "^ +[0-9]+ +[0-9]+ +[0-9]+ \||^==" $OUT/perf.log
cuobjdump -sass -fun _ZN6step198fp8_gemmI13__nv_fp8_e4m3S1_13__nv_bfloat16Li0EEEv14CUtensorMap_stS3_S3_N4gemm9GemmShapeEfPKfS7_fPT1_ $B/19_e3 | gzip > $OUT/e3_cfg0.sass.gz
