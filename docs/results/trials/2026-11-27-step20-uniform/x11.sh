#!/bin/bash
# Nsight Compute at 4096^3 bf16 (the 128 x 128 tile, epilogue under the next tile): 20_base against 20_ud.
B=.dev/bin
for b in base ud; do
ncu -k regex:fp8_gemm -c 1 --section SpeedOfLight --section WarpStateStats --section SourceCounters --section ComputeWorkloadAnalysis \
    --metrics sm__pipe_tensor_op_hmma_cycles_active.avg.pct_of_peak_sustained_active,smsp__inst_executed.sum \
    -o /tmp/p_$b $B/20_$b --size 4096 --out bf16 --reps 1 --warmup 0 --no-check > $OUT/ncu_$b.log 2>&1
ncu -i /tmp/p_$b.ncu-rep --page source --print-source sass --csv 2>/dev/null | gzip -c > $OUT/sass_$b.csv.gz
ncu -i /tmp/p_$b.ncu-rep --page details > $OUT/details_$b.txt 2>&1
done
grep -E "Duration|tensor_op|inst_executed|Issue Slots|SM Frequency" $OUT/details_*.txt
