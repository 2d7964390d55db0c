#!/bin/bash
# Step 12, layout NT, bf16 -> f32: why 4095 x 4097 x 4096 runs faster than 4096^3 (Nsight Compute, full set, one launch each).
B=.dev/bin
for s in 4096x4096x4096 4095x4097x4096; do
  ncu -k regex:wmma_gemm -c 1 --set full -o /tmp/p12_$s $B/12_wmma --layout nt --dtype bf16 --out f32 --shapes $s --reps 1 --warmup 0 --no-check > $OUT/ncu_run_$s.log 2>&1
  ncu -i /tmp/p12_$s.ncu-rep --page details > $OUT/details_$s.txt 2>&1
  ncu -i /tmp/p12_$s.ncu-rep --page raw --csv > $OUT/raw_$s.csv 2>&1
done
for s in 4096 4095x4097x4096; do $B/12_wmma --layout nt --dtype bf16 --out f32 --shapes $s; done > $OUT/time.log 2>&1
grep -E "Duration|DRAM Throughput|L2 Hit Rate|L1/TEX Hit|Memory Throughput|Compute \(SM\)|Registers|Waves Per SM|Achieved Occupancy|Bank" $OUT/details_*.txt | head -60
grep -E "^ +[0-9]+ +[0-9]+ +[0-9]+ \|" $OUT/time.log
