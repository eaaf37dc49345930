#!/bin/sh
# run-fuzz.sh — runs the libFuzzer harnesses built by `make fuzz` (tests/fuzz/README.md).
#   run-fuzz.sh DIR replay        every seed and regression input once, under the sanitizers
#   run-fuzz.sh DIR fuzz SECONDS  replay, then fuzz each harness for SECONDS
# DIR holds the harness binaries (fuzz_<name>). Each harness's inputs: tests/fuzz/corpus/<name>/,
# tests/fuzz/regress/<name>/ (inputs that once failed), and the shipped data named below. New
# inputs found while fuzzing go to DIR/corpus/<name>/, failures to DIR/crashes/. Prints one
# "ok"/"not ok" line per harness and step; exit status 0 only if all passed.
DIR=$1 MODE=$2 SECONDS=${3:-60}
export NPUSIM_CONFIGS=${NPUSIM_CONFIGS:-$PWD/configs}
# Shipped folders that are also seeds (read-only: libFuzzer writes new inputs to the first folder
# only; folders, not files, since a file among the arguments makes libFuzzer run just the files).
extra() {
    case $1 in
        config) echo configs/models tests/samples/hf ;;
        pg) echo configs/pg ;;
        suite) echo tests/golden bench ;;
        trace_gz) echo tests/golden/traces tests/golden/power ;;
    esac
}
status=0
for bin in "$DIR"/fuzz_*; do
    [ -x "$bin" ] || continue
    name=${bin##*/fuzz_}
    seeds="tests/fuzz/corpus/$name tests/fuzz/regress/$name $(extra "$name")"
    existing=
    for s in $seeds; do [ -e "$s" ] && existing="$existing $s"; done
    # Replay: each input once; a crash, leak or sanitizer report fails it.
    if "$bin" -runs=0 $existing >"$DIR/$name.replay.log" 2>&1; then
        echo "ok - fuzz $name: replayed $(grep -o 'INITED.*' "$DIR/$name.replay.log" | head -n 1)"
    else
        echo "not ok - fuzz $name: replay failed (see $DIR/$name.replay.log)"
        tail -n 20 "$DIR/$name.replay.log" | sed 's/^/    /'
        status=1
    fi
    [ "$MODE" = fuzz ] || continue
    mkdir -p "$DIR/corpus/$name" "$DIR/crashes"
    if "$bin" "$DIR/corpus/$name" $existing -max_total_time="$SECONDS" -timeout=20 -rss_limit_mb=4096 \
        -max_len=65536 -print_final_stats=1 -artifact_prefix="$DIR/crashes/$name-" >"$DIR/$name.fuzz.log" 2>&1; then
        execs=$(sed -n 's/^stat::number_of_executed_units: *//p' "$DIR/$name.fuzz.log")
        cov=$(grep -o 'cov: [0-9]*' "$DIR/$name.fuzz.log" | tail -n 1)
        echo "ok - fuzz $name: ${SECONDS}s, $execs executions, $cov, no failure"
    else
        echo "not ok - fuzz $name: failed (see $DIR/$name.fuzz.log and $DIR/crashes/)"
        grep -m 1 -A 12 'ERROR\|runtime error\|deadly signal\|timeout' "$DIR/$name.fuzz.log" | sed 's/^/    /'
        status=1
    fi
done
exit $status
