#!/bin/sh
# make bench: runs the LLM-inference sweeps of bench/perf-llm.suite with the
# given binary and prints configurations per second and ms per configuration,
# next to the reference's ~88 ms per configuration on this machine kind.
# Each configuration writes five files (three CSVs, two JSONs), so the figure
# depends on the filesystem: the suite runs once into a RAM-backed folder
# (/dev/shm, when there is one) and once into $TMPDIR on disk; a first run
# with --dry-run measures the simulation alone (opsgen, chipsim, statistics).
NPUSIM=${1:-build/npusim}
suite=$(dirname "$0")/perf-llm.suite

run_suite() { # OUTDIR LABEL [EXTRA-FLAG]
    out=$1 extra=${3:-}
    start=$(date +%s.%N)
    grep '^sweep' "$suite" | while read -r _ model workload versions chips batches; do
        "$NPUSIM" sweep --configs configs --out "$out/tree" --models "$model" --workload "$workload" \
            --versions "$versions" --num-chips "$chips" --batch-sizes "$batches" $extra 2>>"$out/log" >/dev/null || exit 1
    done || { cat "$out/log"; exit 1; }
    end=$(date +%s.%N)
    n=$(sed -n 's/.*: \([0-9]*\) configurations simulated.*/\1/p' "$out/log" | awk '{s+=$1} END {print s}')
    awk -v t0="$start" -v t1="$end" -v n="$n" -v label="$2" 'BEGIN {
        s = t1 - t0; ms = 1000 * s / n;
        printf "bench: %-22s %d configurations in %.3f s: %.1f configurations/s, %.3f ms each, %.0fx the reference (~88 ms)\n",
               label, n, s, n / s, ms, 88 / ms }'
}

d=$(mktemp -d)
run_suite "$d" "simulation only:" --dry-run
rm -rf "$d"
if [ -d /dev/shm ] && [ -w /dev/shm ]; then
    d=$(mktemp -d /dev/shm/npusim-bench.XXXXXX)
    run_suite "$d" "sweep to /dev/shm:"
    rm -rf "$d"
fi
d=$(mktemp -d)
run_suite "$d" "sweep to disk ($(df -T "$d" | awk 'NR==2 {print $2}')):"
rm -rf "$d"
