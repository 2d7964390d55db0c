#!/bin/bash
# #53 experiment 4: step 26 with one staging slice a consumer (not two), which leaves room for a
# sixth stage of the 128 x 144 tile (v4), against the shipped step (5 stages, two slices).
B=${B:-.dev/c4/bin}
T0=$(date +%s)
nvidia-smi --query-gpu=name,clocks.sm,clocks.max.sm,power.draw --format=csv
run() { echo "### $*"; timeout 90 "$@" 2>&1 | grep -E "^ +[0-9]+ +[0-9]+ +[0-9]+ \||FAIL|rror|usage" ; echo "rc ${PIPESTATUS[0]}"; }
P="--param BM=128 --param BN=144 --param BK=64 --param STAGES=6 --param GROUP_M=16 --param CLUSTER=2"
for lay in nn tn nt; do
  run $B/26v4 --check-only --shapes 104x296x8,136x1520x200,264x1576x136,392x2888x72,3072x3072x64,1536 --beta 0.5 --layout $lay $P
  run $B/26v4 --check-only --shapes 104x296x8,136x1520x200,392x2888x72,3000x3016x64 --alpha 0.5 --layout $lay --out f16 --dtype f16 $P
  run $B/26v4 --check-only --shapes 136x1520x200,264x1576x72,392x2888x72 --alpha 0.5 --layout $lay --dtype bf16 $P
  run $B/26v4 --check-only --shapes 1000,1024,2056x4104x64,4088x4104x256 --beta 0.5 --layout $lay
done
echo "checks done at $(( $(date +%s) - T0 )) s"
for rep in 1 2 3; do
for cfg in "nn f16 f32" "tn f16 f32" "nn bf16 bf16" "tn bf16 f32" "nt f16 f32" "nn f16 f16"; do
  set -- $cfg
  for v in 26_fitted_tile 26v4; do run $B/$v --size 1536 --layout $1 --dtype $2 --out $3 --reps 30; done
done
done
for rep in 1 2; do for s in 3072 4096 4088x4104x4096; do for v in 26_fitted_tile 26v4; do run $B/$v --shapes $s --layout nn --dtype f16 --out f32 --reps 20; done; done; done
echo "timing done at $(( $(date +%s) - T0 )) s"
timeout 100 compute-sanitizer --tool racecheck $B/26v4 --check-only --shapes 264x1576x520 --beta 0.5 --layout nn $P 2>&1 | tail -2
echo "all done at $(( $(date +%s) - T0 )) s"
