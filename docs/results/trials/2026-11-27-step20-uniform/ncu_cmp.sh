#!/bin/bash
# Nsight Compute: step 20 and cuBLASLt (fast accumulation off and on) in one process, bf16 output, 4096^3 and 8192^3.
B=/tmp/gf/build/bin
for s in 4096 8192; do
  ncu -k regex:"fp8_gemm|nvjet|gemm" -c 3 --section SpeedOfLight --section ComputeWorkloadAnalysis --section MemoryWorkloadAnalysis \
      --section WarpStateStats --section LaunchStats --section SchedulerStats --section Occupancy \
      --metrics sm__pipe_tensor_op_hmma_cycles_active.avg.pct_of_peak_sustained_active,smsp__inst_executed.sum,l1tex__data_pipe_lsu_wavefronts_mem_shared.sum,sm__cycles_active.avg,lts__t_sector_hit_rate.pct,dram__bytes_read.sum \
      $B/20_overlapped_epilogue --size $s --out bf16 --reps 1 --warmup 0 --no-check > $OUT/ncu_cmp_$s.txt 2>&1
done
grep -E "fp8_gemm|nvjet|Duration|SM Frequency|tensor_op_hmma|Issue Slots Busy|inst_executed.sum|Shared Memory|L2 Hit|hit_rate|Registers Per|Grid Size|Block Size|Cluster" $OUT/ncu_cmp_4096.txt | head -60
