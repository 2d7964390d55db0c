#!/bin/bash
# The ptxas report of step 20 with patch $1 applied to the step as at b94f881 (or "none": the step as
# checked out), into $2.ptxas.txt (next to this script); $3, if given, a sed expression applied to
# mapping.hpp after the patch. Restores the step's files after.
HERE=$(cd "$(dirname "$0")" && pwd)
[ "$1" != none ] && PATCH=$(realpath "$1")
cd "$(git rev-parse --show-toplevel)"
FILES="steps/20_overlapped_epilogue common/device/wgmma.cuh tools/gen_wgmma.py"
git diff --quiet HEAD -- $FILES || { echo "ptxas_of_patch.sh: $FILES have uncommitted changes, which this script would overwrite; commit or stash them first" >&2; exit 2; }
git checkout -q HEAD -- $FILES
[ "$1" != none ] && git checkout -q b94f881 -- $FILES && git apply "$PATCH"
[ -n "$3" ] && sed -i "$3" steps/20_overlapped_epilogue/mapping.hpp
"$HERE"/ptxas_report.sh 20_overlapped_epilogue > "$HERE/$2".ptxas.txt 2>&1
git checkout -q HEAD -- $FILES
