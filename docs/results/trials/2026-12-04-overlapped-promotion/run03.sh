#!/bin/bash
# Session 8, call 3: the 64 x 128 FP8 tile with overlapped promotion, three kernels for 16-bit output:
# A (.dev/t23-ov.tar): stored under the next tile, k-loop addresses rebuilt (call 2's binary);
# B: stored after the tile, uniform addresses (ptxas C7511 on the 16-bit kernels), never split;
# C (.dev/t23-ovC.diff): stored after the tile, addresses rebuilt, never split. Against main (75e76d0).
# Then step 18's GPU tests that the seventh session could not build in time (linear layer, tile by shape).
mkdir -p t head && tar xf .dev/t23-ov.tar -C t && tar xf .dev/main1823-v13.tar -C head && tar xf .dev/t23-ovBC.tar
P="--param BM=64 --param BN=128 --param STAGES=8 --param CLUSTER=1 --param PROMOTE=1"
nvidia-smi --query-gpu=name,clocks.sm,clocks.max.sm,power.draw,temperature.gpu --format=csv,noheader > $OUT/gpu.txt
{
for b in tB tC; do for d in "e4m3 bf16 0" "e5m2 f16 0.5" "e4m3 f32 0"; do set -- $d
  echo "== check $b $1 $2 beta $3"; timeout 120 $b/bin/23_stream_k --check-only $P --dtype $1 --shapes 104x296x16,264x520x144,1000x1000x1008,264x400x8192,768x768x8192,1024x1024x8192,200x136x256,1024x1024x1024 --out $2 --beta $3 | grep -E "FAIL|^ +[0-9]"; echo "rc=${PIPESTATUS[0]}"
done; done
} > $OUT/check.log 2>&1
{
S=1024x1024x8192,1024x1024x16384,768x768x8192,512x1024x16384,1024,1000x1000x1008
for round in 1 2; do
  for out in bf16 f16 f32; do
    echo "== round $round MAIN $out"; timeout 90 head/bin/23_stream_k --shapes $S --out $out --reps 30 --warmup 5 | grep -E "^ +[0-9]"
    for b in t tB tC; do
      echo "== round $round TRIAL $b $out"; timeout 90 $b/bin/23_stream_k $P --shapes $S --out $out --reps 30 --warmup 5 | grep -E "^ +[0-9]"
    done
  done
done
} > $OUT/bench.log 2>&1
{
cmake -S . -B build -DCMAKE_BUILD_TYPE=Release -DCMAKE_CUDA_ARCHITECTURES=90 > $OUT/configure.log 2>&1
time cmake --build build -j16 --target 18_tma_store_epilogue linear_layer_test model_predict > $OUT/build18.log 2>&1
echo "build rc=$?"
ctest --test-dir build -R "^18_tma_store_epilogue.gpu.(linear_layer|tile_by_shape)" --output-on-failure
} > $OUT/tests18.log 2>&1
