#!/bin/sh
# make bench: runs the LLM-inference sweeps of bench/perf-llm.suite with the
# given binary and prints configurations per second and ms per configuration,
# next to the reference's ~88 ms per configuration on this machine kind.
NPUSIM=${1:-build/npusim}
out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT
total=0
start=$(date +%s.%N)
grep '^sweep' "$(dirname "$0")/perf-llm.suite" | while read -r _ model workload versions chips batches; do
    "$NPUSIM" sweep --configs configs --out "$out" --models "$model" --workload "$workload" \
        --versions "$versions" --num-chips "$chips" --batch-sizes "$batches" 2>>"$out/log" >/dev/null || exit 1
done || { cat "$out/log"; exit 1; }
end=$(date +%s.%N)
total=$(sed -n 's/.*: \([0-9]*\) configurations simulated.*/\1/p' "$out/log" | awk '{s+=$1} END {print s}')
awk -v t0="$start" -v t1="$end" -v n="$total" 'BEGIN {
    s = t1 - t0; ms = 1000 * s / n;
    printf "bench: %d LLM-inference configurations in %.3f s (sequential, incl. CSV/JSON writing)\n", n, s;
    printf "bench: %.1f configurations/s, %.3f ms per configuration; reference ~88 ms -> %.0fx faster\n", n / s, ms, 88 / ms }'
