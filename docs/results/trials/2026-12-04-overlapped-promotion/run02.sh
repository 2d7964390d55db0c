#!/bin/bash
# Session 8, call 2: step 23 with a 64 x 128 FP8 tile, one consumer, promotion every k-tile
# overlapped with the next k-tile's products (two interval sums: .dev/t23-ov.diff) against main's
# choice by shape (75e76d0, .dev/main1823-v13.tar). Correctness (check-only, sanitizer), then two rounds.
mkdir -p t head && tar xf .dev/t23-ov.tar -C t && tar xf .dev/main1823-v13.tar -C head
H23=head/bin/23_stream_k; T23=t/bin/23_stream_k
P="--param BM=64 --param BN=128 --param STAGES=8 --param CLUSTER=1 --param PROMOTE=1"
nvidia-smi --query-gpu=name,clocks.sm,clocks.max.sm,power.draw,temperature.gpu --format=csv,noheader > $OUT/gpu.txt
{
echo "== correctness, overlapped promotion"
for d in "e4m3 bf16 0" "e4m3 f32 0.5" "e5m2 f16 0" "e4m3 f32 0" "e4m3 bf16 0.5"; do set -- $d
  timeout 120 $T23 --check-only $P --dtype $1 --shapes 104x296x16,264x520x144,1000x1000x1008,4088x4104x128,264x400x8192,1024x1024x8192,200x136x256,64x128x128,64x128x256,1024x1024x1024 --out $2 --beta $3 | grep -E "FAIL|^ +[0-9]"; echo "rc=${PIPESTATUS[0]}"
done
echo "== sanitizer"
timeout 200 compute-sanitizer --tool memcheck $T23 --check-only $P --shapes 264x520x384,200x136x256 --out bf16 2>&1 | tail -3
timeout 200 compute-sanitizer --tool racecheck $T23 --check-only $P --shapes 264x520x384 --out f32 2>&1 | tail -3
} > $OUT/check.log 2>&1
{
S=1024x1024x8192,1024x1024x16384,768x768x8192,512x1024x16384,1024,1000x1000x1008,512x4096x4096,2048
for round in 1 2; do
  for out in bf16 f32 f16; do
    echo "== round $round MAIN by shape, e4m3 nt $out"; timeout 90 $H23 --shapes $S --out $out --reps 30 --warmup 5 | grep -E "^ +[0-9]|runs"
    echo "== round $round TRIAL 64x128 overlapped, e4m3 nt $out"; timeout 90 $T23 $P --shapes $S --out $out --reps 30 --warmup 5 | grep -E "^ +[0-9]"
  done
done
} > $OUT/bench.log 2>&1
