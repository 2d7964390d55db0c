#!/bin/bash
# Trial: 128 x 64 tiles in clusters of two side by side sharing A (config 6) against clusters of one.
mkdir -p build-h200 && tar xf .dev/build.tar -C build-h200
B=build-h200/bin/23_stream_k
nvidia-smi --query-gpu=name,clocks.sm,clocks.max.sm,power.draw,temperature.gpu --format=csv > $OUT/gpu.txt
/usr/local/cuda/bin/cuobjdump --dump-resource-usage $B 2>&1 | grep -E "REG|Function" | paste - - | sed -E 's/.*Function ([^:]*):.*REG:([0-9]+) STACK:([0-9]+).*LOCAL:([0-9]+).*/REG \2 STACK \3 LOCAL \4 \1/' | cut -c1-120 > $OUT/resources.txt
P="--param BM=128 --param BN=64 --param BK=128 --param STAGES=8 --param GROUP_M=16 --param PROMOTE=1"
{
echo "== correctness, cluster 2 side by side"
for out in bf16 f32; do
  timeout 120 $B --check-only --shapes 1000x960x1000,264x400x8192,130x200x512,1024x1024x16384,512x1024x16384,2000x1000x3000 $P --param CLUSTER=2 --out $out --beta 0.5; echo "rc=$?"
done
timeout 120 $B --check-only --shapes 1000x960x1000,264x400x8192 $P --param CLUSTER=2 --dtype e5m2 --out bf16; echo "rc=$?"
} > $OUT/check.log 2>&1
SH=1024,1024x1024x8192,768x768x8192,1024x1024x16384,512x1024x16384,1000x1000x1008,2048,512x4096x4096
{
for round in 1 2; do
for out in bf16 f32; do
  for cl in 1 2; do echo "== round $round out $out CLUSTER=$cl"; timeout 150 $B --shapes $SH $P --param CLUSTER=$cl --out $out --reps 30 --warmup 5; done
done
done
echo "== default tile by shape"
timeout 150 $B --shapes $SH --out bf16 --reps 30 --warmup 5
} > $OUT/bench.log 2>&1
timeout 200 /usr/local/cuda/bin/compute-sanitizer --tool memcheck $B --check-only --shapes 1000x960x1000,264x400x8192 $P --param CLUSTER=2 --out bf16 > $OUT/memcheck.log 2>&1; echo "memcheck rc=$?" >> $OUT/memcheck.log
timeout 200 /usr/local/cuda/bin/compute-sanitizer --tool racecheck $B --check-only --shapes 1000x960x1000 $P --param CLUSTER=2 --out bf16 > $OUT/racecheck.log 2>&1; echo "racecheck rc=$?" >> $OUT/racecheck.log
