#!/bin/bash
# Trial: 16-bit inputs through step 23's kernel with one "promotion" at the end of each tile or piece (wgmma into registers of their own, added once; the
# split kernels without it were serialised, C7515), NT, against main's step 18; each tile by name.
mkdir -p t head && tar xf .dev/t16.tar -C t && tar xf .dev/main1823.tar -C head
T=t/bin/23_stream_k; H=head/bin/18_tma_store_epilogue
export GEMM_TRIAL_16BIT=1
nvidia-smi --query-gpu=name,clocks.sm,clocks.max.sm,power.draw,temperature.gpu --format=csv,noheader > $OUT/gpu.txt
{
echo "== correctness, by shape (promoted)"
for d in "bf16 bf16 0" "bf16 f32 0.5" "f16 f16 0" "f16 f32 0.5" "bf16 bf16 0.5"; do set -- $d
  timeout 120 $T --check-only --shapes 104x296x8,264x520x136,1000x1000x1000,4088x4104x64,264x400x8192,512x1024x16384,1024x1024x8192,1536,130x200x64 --dtype $1 --layout nt --out $2 --beta $3 | grep -E "FAIL|^ +[0-9]"; echo "rc=$?"
done
} > $OUT/check.log 2>&1
S=1024,1536,2048,3072,4088x4104x4096,512x4096x4096,1024x1024x8192,4096,8192
{
for round in 1 2; do
  for d in "bf16 bf16" "bf16 f32" "f16 f16" "f16 f32"; do set -- $d
    echo "== round $round MAIN step 18 by shape, $1 nt $2"; timeout 120 $H --shapes $S --dtype $1 --layout nt --out $2 --reps 30 --warmup 5 | grep -E "^ +[0-9]"
    echo "== round $round TRIAL by shape, $1 nt $2"; timeout 120 $T --shapes $S --dtype $1 --layout nt --out $2 --reps 30 --warmup 5 | grep -E "^ +[0-9]"
  done
  for d in "bf16 f32"; do set -- $d
    for p in "BN=192" "BN=176 --param STAGES=5" "BN=128 --param STAGES=6" "BN=64 --param STAGES=8 --param CLUSTER=1"; do
      echo "== round $round TRIAL $p, $1 nt $2"; timeout 120 $T --param $p --shapes $S --dtype $1 --layout nt --out $2 --reps 30 --warmup 5 | grep -E "^ +[0-9]"
    done
  done
done
} > $OUT/bench.log 2>&1
