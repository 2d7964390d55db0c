#!/bin/bash
# Profile (#53): step 26 at 1536^3, NN vs NT vs TN (f16 -> f32), one launch each after warmup; step 25 NN.
B=${B:-.dev/c4/bin}
nvidia-smi --query-gpu=name,clocks.sm,clocks.max.sm,power.draw --format=csv
M="sm__pipe_tensor_op_hmma_cycles_active.avg.pct_of_peak_sustained_active,sm__cycles_elapsed.max,gpu__time_duration.sum,l1tex__data_pipe_lsu_wavefronts_mem_shared.sum,lts__t_bytes.sum,dram__bytes_read.sum,smsp__inst_executed.sum,sm__warps_active.avg.pct_of_peak_sustained_active"
S="--section SpeedOfLight --section WarpStateStats "
run() { name=$1; shift; echo "### $name"; timeout 120 ncu $S --metrics $M -k regex:hopper_gemm --launch-skip 2 --launch-count 1 "$@" --no-check --reps 1 --warmup 2 > $OUT/ncu-$name.txt 2>&1; echo "rc $?"; grep -E "hmma|Duration|sm__cycles|wavefronts|lts__t_bytes|dram__bytes|inst_executed.sum|Stall|Warp Cycles Per Issued|Issue Slots Busy|Memory Throughput|L2 Hit|Compute \(SM\)" $OUT/ncu-$name.txt | head -30; }
for lay in nn nt tn; do run 26-$lay $B/26_fitted_tile --size 1536 --layout $lay --dtype f16 --out f32; done
run 25-nn $B/25_narrow_pairs --size 1536 --layout nn --dtype f16 --out f32
# Plain timing of each, and of the 144 tile by name against 128 x 192 (cuBLAS in the same process).
for lay in nn nt tn; do $B/26_fitted_tile --size 1536 --layout $lay --dtype f16 --out f32 --reps 30 2>&1 | tail -3; done
# SASS of the NN 144 kernels for the consumers' loop.
cuobjdump -sass $B/26_fitted_tile > $OUT/26.sass 2>&1; echo "sass rc $?"; gzip -9 $OUT/26.sass; ls -la $OUT
