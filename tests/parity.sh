#!/bin/sh
# make parity: runs the reference's visible suite (every stage: sweeps, energy,
# carbon, SLO) with the given binary and compares the results cell by cell with
# the reference tree: first the LLM-inference sweep results, then everything.
# ONLY=GLOB restricts the second comparison. Last, `npusim suite` runs the same
# suite in one process and must write the same bytes as run-suite's calls.
# Needs ../shared (the reference data); says so and succeeds when it is absent.
NPUSIM=${1:-build/npusim}
shared=${SHARED:-../shared}
if [ ! -x "$shared/tools/run-suite" ]; then
    echo "parity: $shared/tools/run-suite not found; skipped (the reference data lives outside the repo)"
    exit 0
fi
abs() { (cd "$(dirname "$1")" && printf '%s/%s' "$(pwd)" "$(basename "$1")"); }
npusim=$(abs "$NPUSIM") tools=$(cd "$shared/tools" && pwd) ref=$(cd "$shared/reference/neusim" && pwd)
d=$(mktemp -d)
trap 'rm -rf "$d"' EXIT
mkdir "$d/run-suite" "$d/suite"
# Both trees are written as "out" from their own folder, so that the paths
# recorded inside the JSON files read the same.
(cd "$d/run-suite" && KEEP_GOING=1 NPUSIM=$npusim "$tools/run-suite" "$ref/visible.suite" out 2>"$d/log") ||
    { echo "parity: run-suite reported failures:"; grep 'failed' "$d/log"; }
out=$d/run-suite/out
printf 'LLM inference (raw/llama*/inference-*): '
"$tools/compare-trees" "$ref/visible" "$out" --only 'raw/llama*/inference-*' | tail -n 1
printf 'every stage (%s): ' "${ONLY:-*}"
"$tools/compare-trees" "$ref/visible" "$out" --only "${ONLY:-*}"
rc=$?
# The SLO files hold absolute paths: compared with their folder taken out.
(cd "$d/suite" && "$npusim" suite --profile neusim --configs "$ref/configs" --keep-going "$ref/visible.suite" out 2>"$d/log2")
same=yes
diff -r -x 'slo_*' "$out" "$d/suite/out" >"$d/diff" 2>&1 || same=no
for f in $(cd "$out" && find . -path './slo_*' -type f); do
    sed "s|$d/run-suite/||g" "$out/$f" >"$d/fa"; sed "s|$d/suite/||g" "$d/suite/out/$f" >"$d/fb" 2>/dev/null
    cmp -s "$d/fa" "$d/fb" || { same=no; echo "differs: $f" >>"$d/diff"; }
done
n=$(cd "$out" && find . -type f | wc -l)
if [ $same = yes ]; then
    echo "npusim suite: the same $n files as run-suite, byte for byte"
else
    echo "npusim suite: the tree differs from run-suite's:"; head -n 20 "$d/diff"; rc=1
fi
exit $rc
