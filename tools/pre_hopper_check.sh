#!/usr/bin/env bash
# The pre-Hopper paths of the ladder, on the GPU at hand: the steps that run below sm_90 (those whose
# GPU tests match ^(0[1-9]|1[0-4])_) built as PTX alone, for compute_75 (what a T4 build runs) and
# for compute_80 (what an A100 or RTX 30 build runs), which the driver compiles for this GPU, each
# into a build folder of its own; then their GPU tests. Every test must pass, or be skipped (exit 77)
# where the step refuses what the build cannot run (bf16 from compute_75 code: "this build has no
# code for this run", docs/your-gpu.md); a failed test is a bug.
#
#   tools/pre_hopper_check.sh                  # both, in build-ptx75 and build-ptx80
#   tools/pre_hopper_check.sh 80               # one architecture
#   JOBS=8 BUILD_ROOT=/tmp tools/pre_hopper_check.sh
#   CTEST_ARGS="-LE sanitizer" tools/pre_hopper_check.sh 75   # without the compute-sanitizer runs
#
# Exit status: 0 when no test failed in any folder, 1 otherwise, 2 for bad usage.
set -euo pipefail

ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
JOBS="${JOBS:-$(nproc)}"
BUILD_ROOT="${BUILD_ROOT:-$ROOT}"
TESTS='^(0[1-9]|1[0-4])_'
ARCHS=("$@")
[ ${#ARCHS[@]} -eq 0 ] && ARCHS=(75 80)
for arch in "${ARCHS[@]}"; do
  case "$arch" in 75|80) ;; *) echo "pre_hopper_check: architecture $arch: use 75 or 80" >&2; exit 2 ;; esac
done

# The driver compiles each program's PTX at its first run and keeps the result: a cache large enough
# for every step's kernels, so that each is compiled once and not at every test.
export CUDA_CACHE_MAXSIZE="${CUDA_CACHE_MAXSIZE:-4294967296}"

status=0
summary=""
for arch in "${ARCHS[@]}"; do
  build="$BUILD_ROOT/build-ptx$arch"
  echo "== compute_$arch PTX only (CMAKE_CUDA_ARCHITECTURES=$arch-virtual) in $build"
  mkdir -p "$build"
  # GEMM_STEP_FILTER: only these steps' folders, so that the sm_90a steps (and their linear-layer
  # objects) are not compiled for a check that never runs them.
  cmake -S "$ROOT" -B "$build" -DCMAKE_BUILD_TYPE=Release "-DCMAKE_CUDA_ARCHITECTURES=$arch-virtual" \
    "-DGEMM_STEP_FILTER=$TESTS" \
    > "$build/pre_hopper_configure.log"
  # The programs the selected tests run: the steps' own and the test programs built from their kernels.
  targets=()
  for folder in "$ROOT"/steps/[0-9][0-9]_*/; do
    name="$(basename "$folder")"
    if [[ "$name" =~ $TESTS ]] && [ -f "$folder/main.cu" ]; then targets+=("$name"); fi
  done
  known="$(cmake --build "$build" --target help)"  # whole, so that grep -q ends no pipe early
  # model_predict: what the tile-by-shape tests compare a step's choice with (a host program).
  for program in split_repeatable_test linear_layer_test model_predict; do
    if grep -qw -- "$program" <<< "$known"; then targets+=("$program"); fi
  done
  # The libraries they share first, then the programs side by side: a Makefile build takes several
  # --target goals one after the other, and each step is one large translation unit.
  cmake --build "$build" -j "$JOBS" --target gemm_common gemm_host
  printf '%s\n' "${targets[@]}" | xargs -P "$JOBS" -I{} cmake --build "$build" --target {} > "$build/pre_hopper_build.log"
  log="$build/pre_hopper_ctest.log"
  # shellcheck disable=SC2086  # CTEST_ARGS: several arguments
  ctest --test-dir "$build" -L gpu -R "$TESTS" -j "$JOBS" --output-on-failure ${CTEST_ARGS:-} > "$log" 2>&1 || true
  passed=$(grep -cE "Test +#[0-9]+: .* Passed" "$log" || true)
  skipped=$(grep -cE "\*\*\*Skipped" "$log" || true)
  failed=$(grep -cE "\*\*\*(Failed|Not Run|Exception|Timeout)" "$log" || true)
  summary+="compute_$arch: $passed passed, $skipped skipped, $failed failed ($log)"$'\n'
  # Why the skipped ones were: each program's one line, as CTest kept their output.
  echo "skipped, and why (how many tests):"
  grep -hE "\(skipped\)$" "$build/Testing/Temporary/LastTest.log" | sed -E 's/^(linear_layer )?[0-9]+_[a-z0-9_]+: //' |
    sort | uniq -c | sort -rn || true
  if [ "$failed" -ne 0 ]; then
    grep -E "\*\*\*(Failed|Not Run|Exception|Timeout)" "$log"
    status=1
  fi
done
printf '%s' "$summary"
exit $status
