#!/bin/bash
# GPU call 1: build, time benchmarks of two steps, step 13's copies .cg vs .ca under ncu, steps 14/15 L2 and DRAM at 8192^3.
export PATH=/usr/local/cuda/bin:$PATH PYTHONUNBUFFERED=1
export GEMM_COMMIT=$(cat .scratch/commit)
T0=$(date +%s); t() { echo "[$(( $(date +%s) - T0 )) s] $*"; }
nvidia-smi > $OUT/nvidia-smi.txt 2>&1
nvidia-smi --query-gpu=name,clocks.sm,clocks.max.sm,power.draw,power.limit,temperature.gpu --format=csv >> $OUT/nvidia-smi.txt
t configure; cmake -S . -B build -DCMAKE_BUILD_TYPE=Release > $OUT/build.log 2>&1
t build; cmake --build build -j16 >> $OUT/build.log 2>&1 || { t BUILD FAILED; tail -50 $OUT/build.log; exit 1; }
t built
{
t "bench step 18"; python3 tools/bench_all.py --steps 18 --out $OUT/bench 2>&1 | tail -80
t "bench step 22"; python3 tools/bench_all.py --steps 22 --out $OUT/bench 2>&1 | tail -60
t "bench step 11"; python3 tools/bench_all.py --steps 11 --out $OUT/bench 2>&1 | tail -20
t done-bench
} > $OUT/bench.log 2>&1
M=lts__t_sector_hit_rate.pct,dram__bytes_read.sum,dram__bytes_write.sum,lts__t_sectors_srcunit_tex_op_read.sum,gpu__time_duration.sum,sm__pipe_tensor_op_hmma_cycles_active.avg.pct_of_peak_sustained_active
{
for size in 4096 8192; do
 for prog in 14_mma_ldmatrix:mma_pipeline_gemm 15_tma_wgmma:hopper_gemm; do
  p=${prog%%:*}; k=${prog##*:}
  t "ncu $p $size"
  ncu --clock-control none --kernel-name regex:"$k" --launch-count 1 --metrics $M --csv build/bin/$p --size $size --dtype bf16 --layout nn --out f32 --reps 1 --warmup 0 --no-check 2>&1 | grep -v "^==PROF==" | tail -12
 done
done
} > $OUT/ncu-14-15.log 2>&1
t "ncu step 13 .cg"; python3 tools/check_model_ncu.py --build build --out $OUT/m13cg --steps 13 > $OUT/m13.log 2>&1
sed -i 's/cp.async.cg.shared.global/cp.async.ca.shared.global/' steps/13_wmma_pipeline/kernel.cuh
sed -i '/static_assert(kCopyBypassesL1/d' steps/13_wmma_pipeline/kernel.cuh
sed -i 's/constexpr bool kCopyBypassesL1 = true;/constexpr bool kCopyBypassesL1 = false;/' steps/13_wmma_pipeline/mapping.hpp
git diff --stat 2>/dev/null; grep -n "cp.async.ca\|kCopyBypassesL1 =" steps/13_wmma_pipeline/*.hpp steps/13_wmma_pipeline/*.cuh >> $OUT/m13.log
t "rebuild 13 .ca"; cmake --build build --target 13_wmma_pipeline model_predict -j16 >> $OUT/build.log 2>&1
t "ncu step 13 .ca"; python3 tools/check_model_ncu.py --build build --out $OUT/m13ca --steps 13 >> $OUT/m13.log 2>&1
t end
cat $OUT/m13.log | cut -c1-400; cat $OUT/ncu-14-15.log | cut -c1-300; grep -E "^\s+[0-9]+ .*\|" $OUT/bench.log | tail -5; grep "^\[" $OUT/bench.log
