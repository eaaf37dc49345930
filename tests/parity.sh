#!/bin/sh
# make parity: runs the visible reference suite's sweeps with the given binary
# and compares the LLM-inference results cell by cell with the reference tree.
# Needs ../shared (the reference data); says so and succeeds when it is absent.
NPUSIM=${1:-build/npusim}
shared=${SHARED:-../shared}
if [ ! -x "$shared/tools/run-suite" ]; then
    echo "parity: $shared/tools/run-suite not found; skipped (the reference data lives outside the repo)"
    exit 0
fi
out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT
STAGES=sweep KEEP_GOING=1 NPUSIM=$NPUSIM "$shared/tools/run-suite" "$shared/reference/neusim/visible.suite" "$out" 2>"$out.log" || true
"$shared/tools/compare-trees" "$shared/reference/neusim/visible" "$out" --only "${ONLY:-raw/llama*/inference-*}"
