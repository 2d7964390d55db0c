#!/usr/bin/env bash
# gpu_test.sh COMMAND...: runs COMMAND when an NVIDIA GPU answers, else exits 77 (CTest: skipped).
# Used for wrappers such as compute-sanitizer, which cannot report "no GPU" with the step's own 77.
if ! nvidia-smi -L >/dev/null 2>&1; then
  echo "no NVIDIA GPU answers nvidia-smi: skipped"
  exit 77
fi
exec "$@"
