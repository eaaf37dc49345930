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

# --- sweeps at scale (issue 5) ---------------------------------------------
# Thread speed-ups need idle cores: say how loaded the machine is.
echo "bench: load average before the parallel runs: $(cut -d' ' -f1-3 /proc/loadavg 2>/dev/null) on $(nproc) cores"
# Shared virtual machines lose CPU time to their neighbours ("steal" in
# /proc/stat); a figure measured while much was stolen is slow for reasons
# outside npusim, so each timed run below says how much was stolen.
cpu_mark() { awk '/^cpu / { t = 0; for (i = 2; i <= 9; i++) t += $i; print $9, t }' /proc/stat 2>/dev/null; }
steal_since() { # MARK -> "N% CPU steal"
    cpu_mark | awk -v m="$1" '{ split(m, a, " "); d = $2 - a[2];
        printf "%.0f%% CPU steal", (d > 0 ? 100 * ($1 - a[1]) / d : 0) }'
}

# 1. The reference's speed suite end to end (sweep, energy, carbon) through
#    run-suite and through `npusim suite`, both passing no -j: the default,
#    every core. Once into a
#    RAM-backed folder and once on disk: the suite writes 2,262 files
#    (39 MB), and on a virtual disk creating them alone can take longer than
#    the whole budget of the 100x target (0.152 s).
shared=${SHARED:-../shared}
if [ -x "$shared/tools/run-suite" ] && [ -f "$shared/reference/neusim/perf.suite" ]; then
    # Five runs each, alternated: through run-suite (a bash script: one
    # npusim process per line, plus its own tr/sort/paste work), through
    # `npusim suite` (the same calls, the same tree, in one process, the
    # energy and carbon lines taking the sweeps' outputs from memory), and
    # through `npusim suite --hold-MB 0` (one process, every file parsed
    # again). The best is the figure, the median how typical it is.
    times=${TMPDIR:-/tmp}/npusim-perf-times.$$
    suite=$shared/reference/neusim/perf.suite
    for where in shm disk; do
        if [ $where = shm ]; then
            [ -d /dev/shm ] && [ -w /dev/shm ] || continue
        fi
        mark=$(cpu_mark)
        : >"$times.run-suite"; : >"$times.suite"; : >"$times.nohold"
        for rep in 1 2 3 4 5; do
            for how in run-suite suite nohold; do
                if [ $where = shm ]; then d=$(mktemp -d /dev/shm/npusim-perf.XXXXXX); else d=$(mktemp -d); fi
                start=$(date +%s.%N)
                if [ $how = run-suite ]; then
                    NPUSIM=$NPUSIM "$shared/tools/run-suite" "$suite" "$d/out" >/dev/null 2>"$d.log"
                else
                    hold=256; [ $how = nohold ] && hold=0
                    "$NPUSIM" suite --hold-MB $hold --profile neusim --configs "$shared/reference/neusim/configs" "$suite" "$d/out" 2>"$d.log"
                fi || { cat "$d.log"; exit 1; }
                end=$(date +%s.%N)
                fs=$(df -T "$d" | awk 'NR==2 {print $2}')
                awk -v t0="$start" -v t1="$end" 'BEGIN { printf "%.6f\n", t1 - t0 }' >>"$times.$how"
                rm -rf "$d" "$d.log"
            done
        done
        st=$(steal_since "$mark")
        for how in run-suite suite nohold; do
            label="run-suite"; [ $how = suite ] && label="npusim suite"; [ $how = nohold ] && label="npusim suite --hold-MB 0"
            sort -n "$times.$how" | awk -v c="$(nproc)" -v fs="$fs" -v st="$st" -v how="$label" '
                { t[NR] = $1 } END { s = t[1];
                printf "bench: perf.suite full pipeline to %s (%s, -j default = %d cores): best of 5 %.3f s (median %.3f s) vs the reference 15.2 s: %.0fx (target 100x; %s)\n", fs, how, c, s, t[3], 15.2 / s, st }'
        done
        rm -f "$times.run-suite" "$times.suite" "$times.nohold"
    done
else
    echo "bench: perf.suite full pipeline: skipped ($shared/tools/run-suite not found)"
fi

# 2. Summary mode (energy pass + one row per point, no per-op files):
#    configurations per second per core on an LLM-inference spec sweep,
#    with -j 1 and -j 2.
d=$(mktemp -d)
cat >"$d/spec.json" <<'SPEC'
{"models": ["llama3-8b", "llama3-70b"], "chips": ["tpuv4", "tpuv5p", "tpuv6e"],
 "num_chips": [1, 2, 4, 8, 16, 32, 64], "batch_sizes": [1, 4, 16, 64, 256],
 "fields": {"hbm_bw_GBps": {"from": 1000, "to": 4000, "step": 1000}}}
SPEC
# Each is timed 5 times: the best run is the figure (the least disturbed by
# the neighbours), the median says how typical it is.
for j in 1 2; do
    mark=$(cpu_mark)
    : >"$d/times$j"
    for rep in 1 2 3 4 5; do
        start=$(date +%s.%N)
        "$NPUSIM" sweep --configs configs --spec "$d/spec.json" --summary "$d/s$j.csv" -j "$j" 2>"$d/log$j" || { cat "$d/log$j"; exit 1; }
        end=$(date +%s.%N)
        awk -v t0="$start" -v t1="$end" 'BEGIN { printf "%.6f\n", t1 - t0 }' >>"$d/times$j"
    done
    n=$(($(wc -l <"$d/s$j.csv") - 1))
    ok=$(sed -n 's/.*: \([0-9]*\) configurations simulated.*/\1/p' "$d/log$j")
    sort -n "$d/times$j" >"$d/t$j"
    best=$(sed -n 1p "$d/t$j") median=$(sed -n 3p "$d/t$j")
    awk -v s="$best" -v m="$median" -v n="$n" -v ok="$ok" -v j="$j" -v st="$(steal_since "$mark")" 'BEGIN {
        printf "bench: summary sweep -j %d: %d points (%d simulated, the rest invalid), best of 5 %.3f s (median %.3f s): %.0f points/s, %.0f points/s/core, %.0f simulated/s/core (median %.0f / %.0f; target 20000/s/core; %s)\n",
               j, n, ok, s, m, n / s, n / s / j, ok / s / j, n / m / j, ok / m / j, st }'
done
cmp -s "$d/s1.csv" "$d/s2.csv" && echo "bench: summary -j 1 == -j 2 (byte for byte)" || echo "bench: summary -j 1 != -j 2 (BUG)"
awk -v a="$(sed -n 1p "$d/t1")" -v b="$(sed -n 1p "$d/t2")" 'BEGIN {
    printf "bench: -j 2 speed-up (best runs): %.2fx\n", a / b }'

# 3. Peak RSS: a one-million-point summary sweep must stay flat. Simulating
#    1M points takes minutes, so most of these points are invalid by design
#    (the batch sizes exceed HBM), which exercises the enumerator, the reorder
#    window and the writer at full rate; the 100k row shows memory is flat.
cat >"$d/m.json" <<'SPEC'
{"models": ["llama3-70b"], "chips": ["tpuv5p"], "num_chips": [1],
 "batch_sizes": {"from": 4096, "to": 4195, "step": 1},
 "fields": {"hbm_bw_GBps": {"from": 1, "to": 10000, "step": 1}}}
SPEC
sed 's/"to": 10000/"to": 1000/' "$d/m.json" >"$d/m100k.json"
for s in m100k m; do
    if [ -x /usr/bin/time ]; then
        /usr/bin/time -f '%M' -o "$d/rss" "$NPUSIM" sweep --configs configs --spec "$d/$s.json" --summary "$d/$s.csv" 2>"$d/log" >/dev/null
        kb=$(tail -n 1 "$d/rss")
    else
        "$NPUSIM" sweep --configs configs --spec "$d/$s.json" --summary "$d/$s.csv" --stats 2>"$d/log"
        kb=$(sed -n 's/.*peak RSS \([0-9]*\) KiB.*/\1/p' "$d/log")
    fi
    n=$(($(wc -l <"$d/$s.csv") - 1))
    awk -v kb="$kb" -v n="$n" 'BEGIN { printf "bench: summary sweep of %d points: peak RSS %.1f MB (target < 50 MB for 1M)\n", n, kb / 1024 }'
    rm -f "$d/$s.csv"
done
rm -rf "$d"
# --- the serving engine (issue 42) ------------------------------------------
# Llama-3-70B on 8 H100 (TP 8) at 5.3 requests/s, about 80% of the 6.6 it
# serves flat out with chat-like lengths under the default chunked scheduler, 10,000 requests, one core (the
# engine is one thread); and the same on TP 4 x PP 2, two passes in flight (the
# pipelined path: its stages shared first in, first out). Goal: at least 1,000x
# faster than real time.
serving_case() {
    label=$1; shift
    d=$(mktemp -d)
    if "$NPUSIM" serving --configs configs -m llama3-70b -c h100 "$@" --rate 5.3 --requests 10000 --lengths chat \
            --json >"$d/s.json" 2>"$d/log"; then
        python3 - "$d/s.json" "$label" <<'PY' || awk -F'[:,]' '/"duration_s"|"sim_wall_s"/ {print "bench: serving", $1, $2}' "$d/s.json"
import json, sys
s = json.load(open(sys.argv[1]))
x = s["duration_s"] / s["sim_wall_s"]
print("bench: serving 70B/%s 10k chat requests: %.1f simulated s in %.3f wall s: %.0fx real time, "
      "%.0f requests per wall second (goal: 1000x)%s" % (sys.argv[2], s["duration_s"], s["sim_wall_s"], x,
      s["requests"] / s["sim_wall_s"], "" if x >= 1000 else " BELOW GOAL"))
PY
    else
        cat "$d/log"
    fi
    rm -rf "$d"
}
serving_case 8xH100 --tp 8
serving_case "8xH100 TP4xPP2" --tp 4 --pp 2
# --find-rate on the same case (issue 43): the highest rate whose TTFT p99
# stays within 3 s and TPOT p99 within 100 ms, to 1%. Goal: under 30 s.
d=$(mktemp -d)
t0=$(date +%s.%N)
if "$NPUSIM" serving --configs configs -m llama3-70b -c h100 --tp 8 --requests 10000 --lengths chat \
        --find-rate --slo ttft_p99_ms=3000,tpot_p99_ms=100 --json >"$d/f.json" 2>"$d/log"; then
    t1=$(date +%s.%N)
    python3 - "$d/f.json" "$t0" "$t1" <<'PY'
import json, sys
f = json.load(open(sys.argv[1]))["find_rate"]
w = float(sys.argv[3]) - float(sys.argv[2])
print("bench: serving --find-rate 70B/8xH100 10k chat: max_rate_rps %.3f in %d runs, %.2f wall s (goal: under 30 s)%s"
      % (f["max_rate_rps"], len(f["trials"]), w, "" if w < 30 else " ABOVE GOAL"))
PY
else
    cat "$d/log"
fi
rm -rf "$d"
