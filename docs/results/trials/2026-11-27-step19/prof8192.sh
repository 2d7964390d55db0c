#!/bin/bash
B=.dev/bin
for p in 1 0; do
ncu -k regex:fp8_gemm -c 1 --section WarpStateStats --section SourceCounters --section ComputeWorkloadAnalysis --section MemoryWorkloadAnalysis -o /tmp/p$p $B/19_fp8 --size 8192 --reps 1 --warmup 0 --no-check --defaults --param PROMOTE=$p > $OUT/ncu_run$p.log 2>&1
ncu -i /tmp/p$p.ncu-rep --page source --print-source sass --csv 2>/dev/null | gzip -c > $OUT/sass_p$p.csv.gz
ncu -i /tmp/p$p.ncu-rep --page details > $OUT/details_p$p.txt 2>&1
done
