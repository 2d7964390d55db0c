#!/bin/bash
# Baseline (HEAD 3ce467a) against the trial binary, interleaved, same machine.
mkdir -p build-h200 base && tar xf .dev/build.tar -C build-h200 && tar xf .dev/base.tar -C base
T=build-h200/bin/23_stream_k; H=base/bin/23_stream_k
P="--param BM=128 --param BN=64 --param BK=128 --param STAGES=8 --param GROUP_M=16 --param PROMOTE=1"
SH=1024,1024x1024x8192,768x768x8192,1024x1024x16384,2048,512x4096x4096
{
for round in 1 2; do
for out in bf16 f32; do
  echo "== round $round out $out HEAD default"; timeout 100 $H --shapes $SH --out $out --reps 30 --warmup 5 | grep -E "^ +[0-9]"
  echo "== round $round out $out TRIAL default"; timeout 100 $T --shapes $SH --out $out --reps 30 --warmup 5 | grep -E "^ +[0-9]"
  echo "== round $round out $out TRIAL CLUSTER=2"; timeout 100 $T --shapes $SH $P --param CLUSTER=2 --out $out --reps 30 --warmup 5 | grep -E "^ +[0-9]"
done
echo "== round $round bf16 beta 0.5 HEAD"; timeout 100 $H --shapes 1024x1024x8192,1024x1024x16384 --out bf16 --beta 0.5 --reps 30 --warmup 5 | grep -E "^ +[0-9]"
echo "== round $round f16 HEAD"; timeout 100 $H --shapes 1024x1024x8192,1024x1024x16384 --out f16 --reps 30 --warmup 5 | grep -E "^ +[0-9]"
done
} > $OUT/bench2.log 2>&1
for b in $T $H; do /usr/local/cuda/bin/cuobjdump -sass $b > /tmp/$(basename $(dirname $(dirname $b))).sass 2>&1; done
python3 - <<'PY' > $OUT/sass_k5.txt
import re
for name in ['build-h200','base']:
    txt=open(f'/tmp/{name}.sass').read()
    funcs=re.split(r'\n\s*Function : ', txt)
    for f in funcs:
        head=f.split('\n',1)[0]
        if 'Li5ELb0ELb0E' in head and ('bfloat16Li5' in head or 'fLi5' in head) and 'e4m3S1' in head:
            print('#####', name, head, len(f.splitlines()))
            print(f)
PY
gzip -9 $OUT/sass_k5.txt
