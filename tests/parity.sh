#!/bin/sh
# make parity: runs the reference's visible suite (every stage: sweeps, energy,
# carbon, SLO) with the given binary and compares the results cell by cell with
# the reference tree: first the LLM-inference sweep results, then everything.
# ONLY=GLOB restricts the second comparison. Needs ../shared (the reference
# data); says so and succeeds when it is absent.
NPUSIM=${1:-build/npusim}
shared=${SHARED:-../shared}
if [ ! -x "$shared/tools/run-suite" ]; then
    echo "parity: $shared/tools/run-suite not found; skipped (the reference data lives outside the repo)"
    exit 0
fi
out=$(mktemp -d)
trap 'rm -rf "$out" "$out.log"' EXIT
KEEP_GOING=1 NPUSIM=$NPUSIM "$shared/tools/run-suite" "$shared/reference/neusim/visible.suite" "$out" 2>"$out.log" ||
    { echo "parity: run-suite reported failures:"; grep 'failed' "$out.log"; }
printf 'LLM inference (raw/llama*/inference-*): '
"$shared/tools/compare-trees" "$shared/reference/neusim/visible" "$out" --only 'raw/llama*/inference-*' | tail -n 1
printf 'every stage (%s): ' "${ONLY:-*}"
"$shared/tools/compare-trees" "$shared/reference/neusim/visible" "$out" --only "${ONLY:-*}"
