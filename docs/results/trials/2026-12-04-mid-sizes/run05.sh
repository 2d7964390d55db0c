#!/bin/bash
# Step 18 (main at 3ce467a): every compiled tile at 1536^3 and 1024 x 1024 x 8192 (NN and NT, bf16 in, bf16 and f32 out).
mkdir -p head && tar xf .dev/head18.tar -C head
H=head/bin/18_tma_store_epilogue
nvidia-smi --query-gpu=name,clocks.sm,clocks.max.sm,power.draw,temperature.gpu --format=csv,noheader > $OUT/gpu.txt
{
for cfg in "256 64 4 16 2" "256 64 4 16 1" "128 64 6 8 1" "64 64 8 8 1" "192 64 4 16 2"; do
  set -- $cfg
  for lo in "nn bf16" "nt f32"; do
    set -- $cfg $lo
    echo "== BN=$1 BK=$2 STAGES=$3 GROUP_M=$4 CLUSTER=$5 layout $6 out $7"
    timeout 60 $H --shapes 1536,1024x1024x8192 --dtype bf16 --layout $6 --out $7 --param BM=128 --param BN=$1 --param BK=$2 --param STAGES=$3 --param GROUP_M=$4 --param CLUSTER=$5 --reps 30 --warmup 5 | grep -E "^ +[0-9]|error|not"
  done
done
echo "== by shape"
for lo in "nn bf16" "nt f32"; do set -- $lo; timeout 60 $H --shapes 1536,1024x1024x8192 --dtype bf16 --layout $1 --out $2 --reps 30 --warmup 5 | grep -E "^ +[0-9]|runs"; done
} > $OUT/configs.log 2>&1
