#!/bin/bash
# Trial: 20_ud (uniform consumer index, descriptors from stage 0's) against 20_base: the 192-column tile at 4096^3,
# and 6144^3 / 2048^3 / 4088x4104x4096 as the program chooses.
B=.dev/bin
{
for r in 1 2; do
for b in base ud; do
for o in bf16 f16 f32; do echo "== $b ${o}_192"; $B/20_$b --shapes 4096 --out $o --param BN=192 --param STAGES=4; done
for o in bf16 f16 f32; do echo "== $b $o"; $B/20_$b --shapes 6144,2048,4088x4104x4096 --out $o; done
done; done
} > $OUT/perf.log 2>&1
awk '/^==/{h=$2" "$3; next} /^ +[0-9]+ +[0-9]+ +[0-9]+ \|/{print h, $1"x"$2, $6, $8, $9}' $OUT/perf.log | sort -k2,2 -k3,3 -k1,1 | paste - -
