#!/usr/bin/env bash
# expect_exit.sh CODE PATTERN COMMAND...: passes when COMMAND exits with CODE and its stderr is one
# line matching PATTERN (the contract: bad input gives a one-line message and the documented code).
set -u
expected=$1 pattern=$2
shift 2
stderr_file=$(mktemp)
"$@" >/dev/null 2>"$stderr_file"
code=$?
message=$(cat "$stderr_file")
rm -f "$stderr_file"
lines=$(printf '%s' "$message" | grep -c '')
echo "exit $code, stderr: $message"
if [ "$code" -ne "$expected" ]; then echo "FAIL: expected exit $expected"; exit 1; fi
if [ "$lines" -ne 1 ]; then echo "FAIL: expected a one-line message, got $lines lines"; exit 1; fi
if ! printf '%s' "$message" | grep -Eq -- "$pattern"; then echo "FAIL: message does not match '$pattern'"; exit 1; fi
exit 0
