#!/bin/bash
# #53 experiment 5: step 11 (fp32) at 4088 x 4104 x 4096, where the rule picks the 256 x 128 tile
# (BK = 8) for its 4 waves: that tile against its BK = 16 twin and the default 128 x 256 (--defaults:
# 5 waves' tiles, the last 16 split along k); and the three at 4096^3, where all take 512 tiles.
B=${B:-.dev/c4/bin}
run() { echo "### $*"; timeout 90 "$@" 2>&1 | grep -E "^ +[0-9]+ +[0-9]+ +[0-9]+ \||FAIL|rror|usage|runs" ; echo "rc ${PIPESTATUS[0]}"; }
TALL16="--param BM=256 --param BN=128 --param BK=16 --param WM=64 --param WN=64 --param TM=16 --param TN=8 --param STAGES=3 --param MINB=1"
TALL8="--param BM=256 --param BN=128 --param BK=8 --param WM=64 --param WN=64 --param TM=16 --param TN=8 --param STAGES=3 --param MINB=1"
for rep in 1 2; do
  for s in 4088x4104x4096 4096; do
    run $B/11_split_k_tail --shapes $s --reps 20
    run $B/11_split_k_tail --shapes $s --reps 20 $TALL8
    run $B/11_split_k_tail --shapes $s --reps 20 $TALL16
    run $B/11_split_k_tail --shapes $s --reps 20 --defaults
  done
done
