#!/bin/bash
# On an H200: steps 18, 20, 19 benchmarked again (pages 20 and 25 compare them with steps 23-26 of
# the same GPU); on an H100: step 11 at the benchmark's mid and narrow sizes (not yet measured there).
GPU=$(nvidia-smi --query-gpu=name --format=csv,noheader)
case "$GPU" in *H200*) BENCH="18 20 19"; KEEP=nvidia-h200.json;; *) BENCH="11"; KEEP=nvidia-h100-80gb-hbm3.json;; esac
BINDIR=.dev/c7/bin bash .dev/runD.sh $1 540 "$BENCH" "" "" "" ""
# Only the results file of this GPU comes back (the run returns a few files at most).
cd $OUT/results && for f in *.json; do [ "$f" = "$KEEP" ] || rm -f "$f"; done; ls -la $OUT $OUT/results
