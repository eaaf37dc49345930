#!/bin/sh
# CLI tests: every subcommand, pipe-equals-run, and bad inputs (exit 2, a
# message naming the file and field, no output file left behind).
# Prints one "ok N - ..." / "not ok N - ..." line per check.
NPUSIM=${NPUSIM:-build/npusim}
T=$(mktemp -d)
trap '[ -n "${KEEP_T:-}" ] || rm -rf "$T"' EXIT
# The user's configs folder (where npusim measure puts the host chip) in the
# scratch folder: no test reads or writes the real one.
export XDG_DATA_HOME="$T/xdg-data"
# The shipped configs with the reference's TPU chips over the presets
# (tests/golden/configs/README.md): the tests compare --profile neusim runs
# with the reference's outputs. The new presets (GPUs, tpuv7) stay.
if [ -z "$CONFIGS" ]; then
    cp -R configs "$T/configs" && cp tests/golden/configs/chips/*.json "$T/configs/chips/"
    CONFIGS=$T/configs
fi
# The GPU presets carry efficiencies and host times fitted to published runs
# (docs/validation.md, Inference) and compute GEMMs in waves of tiles. A test
# of roofline arithmetic adds these overrides: every kernel at its roofline,
# no host time, no waves (the presets before issue 41).
ROOFLINE="--set kernel_efficiency.gemm.e_max=1 --set kernel_efficiency.gemm.bf16=0 --set kernel_efficiency.gemm.fp16=0"
ROOFLINE="$ROOFLINE --set kernel_efficiency.gemm.fp8_e4m3=0"
for c in gemv attention elementwise activation reduction softmax collective; do
    ROOFLINE="$ROOFLINE --set kernel_efficiency.$c.e_max=1"
done
ROOFLINE="$ROOFLINE --set step_overhead_ns=0 --set layer_overhead_ns=0 --set kernel_launch_ns=0 --set request_overhead_ns=0"
ROOFLINE="$ROOFLINE --set gemm_tile_m=0 --set gemm_tile_n=0 --set ici_latency_ns=3330 --set collective_direct_max_bytes=0"
n=0
ok() { n=$((n + 1)); echo "ok $n - $1"; }
no() { n=$((n + 1)); echo "not ok $n - $1"; [ -n "$2" ] && sed 's/^/    /' "$2" | head -n 5; }
check() { desc=$1; shift; if "$@" >"$T/log" 2>&1; then ok "$desc"; else no "$desc" "$T/log"; fi; }

# expect_fail DESC PATTERN CMD...: exit status 2 and stderr matching PATTERN.
expect_fail() {
    desc=$1 pat=$2; shift 2
    "$@" >"$T/out" 2>"$T/err"; rc=$?
    if [ "$rc" -eq 2 ] && grep -q -- "$pat" "$T/err"; then ok "$desc"; else
        echo "exit $rc" >>"$T/err"; no "$desc (want exit 2 and /$pat/)" "$T/err"; fi
}
no_files() { # DESC DIR: DIR is absent or empty
    if [ ! -d "$2" ] || [ -z "$(ls -A "$2")" ]; then ok "$1"; else ls -A "$2" >"$T/ls"; no "$1" "$T/ls"; fi
}

# serve_start PORT CWD LOG ARGS...: `npusim serve --port P ARGS` run from CWD (with the
# environment's additions in SERVE_ENV, VAR=VALUE words) on the first port from PORT it can bind,
# waiting until it answers; sets SERVE_PORT and SERVE_PID (SERVE_PID empty when no server came
# up). A port nobody answers on may still be taken (a client's socket): serve then exits 2 at
# once and the port 7 on is tried, 10 at most. A server up but slow to answer is kept.
SERVE_NP=$(cd "$(dirname "$NPUSIM")" && pwd)/$(basename "$NPUSIM")
serve_start() {
    _p=$1 _cwd=$2 _log=$3
    shift 3
    for _try in 1 2 3 4 5 6 7 8 9 10; do
        while curl -s -o /dev/null "http://127.0.0.1:$_p/"; do _p=$((_p + 7)); done
        # shellcheck disable=SC2086
        ( cd "$_cwd" && exec env $SERVE_ENV "$SERVE_NP" serve --port "$_p" "$@" ) 2>"$_log" &
        SERVE_PID=$! SERVE_PORT=$_p
        for _i in $(seq 1 50); do
            curl -s -o /dev/null "http://127.0.0.1:$_p/api/strategies" && return 0
            kill -0 "$SERVE_PID" 2>/dev/null || break
            sleep 0.1
        done
        kill -0 "$SERVE_PID" 2>/dev/null && return 0
        wait "$SERVE_PID" 2>/dev/null
        _p=$((_p + 7))
    done
    SERVE_PID=
    return 1
}

# CLI_ONLY=WORD: only the tests/cli/t_*WORD*.sh files (a quick loop while developing; make test runs all).
if [ -n "$CLI_ONLY" ]; then
    for f in tests/cli/t_*$CLI_ONLY*.sh; do [ -f "$f" ] && . "$f"; done
    echo "# cli tests ran to the end"; exit 0
fi

# --- help on every subcommand ---
check "npusim --help" sh -c "$NPUSIM --help | grep -q 'usage: npusim'"
for c in run sweep opsgen chipsim power op validate calibrate roofline import export measure report serve energy carbon slo suite fleet fields merge; do
    check "npusim $c --help" sh -c "$NPUSIM $c --help | grep -q 'usage: npusim $c'"
done
expect_fail "unknown command" 'unknown command' $NPUSIM frobnicate
expect_fail "unknown option" 'unknown option' $NPUSIM run --profile neusim --frobnicate

# --- run ---
check "run llama3-8b on tpuv5p" $NPUSIM run --profile neusim --configs $CONFIGS -m llama3-8b -c tpuv5p --out "$T/run"
for f in prefill.csv decode.csv prefill.json decode.json; do
    check "run wrote llama3-8b_tpuv5p_$f" test -s "$T/run/llama3-8b_tpuv5p_$f"
done
check "run summary shows TTFT and TPOT" sh -c "$NPUSIM run --profile neusim --configs $CONFIGS --out '$T/run2' | grep -q 'TTFT' && $NPUSIM run --profile neusim --configs $CONFIGS --out '$T/run2' | grep -q TPOT"
check "run is deterministic" cmp "$T/run/llama3-8b_tpuv5p_decode.csv" "$T/run2/llama3-8b_tpuv5p_decode.csv"
check "run applies the energy pass (DVFS 1.7 GHz column)" grep -q ',None,0.7,1.7,' "$T/run/llama3-8b_tpuv5p_prefill.csv"
check "run --set changes the batch" sh -c "$NPUSIM run --profile neusim --configs $CONFIGS --set microbatch_size_ici=4 --out '$T/run4' >/dev/null && ! cmp -s '$T/run/llama3-8b_tpuv5p_prefill.csv' '$T/run4/llama3-8b_tpuv5p_prefill.csv'"

# --- stages, pipes ---
check "opsgen writes a trace" sh -c "$NPUSIM opsgen --profile neusim --configs $CONFIGS -m llama3-8b -c tpuv4 -o '$T/ops.csv' && grep -q Phase '$T/ops.csv'"
check "opsgen .csv.gz output is gzip" sh -c "$NPUSIM opsgen --profile neusim --configs $CONFIGS -o '$T/ops.csv.gz' && gzip -t '$T/ops.csv.gz'"
check "chipsim reads .csv.gz" sh -c "$NPUSIM chipsim --profile neusim --configs $CONFIGS -c tpuv4 -i '$T/ops.csv.gz' -o '$T/timed.csv'"
check "pipe opsgen|chipsim|power equals run" sh -c "
  $NPUSIM opsgen --profile neusim --configs $CONFIGS -m llama3-70b -c tpuv4 --set num_chips=8 --set tensor_parallelism_degree=4 --set num_tensor_parallel_axes=2 --set pipeline_parallelism_degree=2 --set num_pipeline_parallel_axes=1 --set microbatch_size_ici=4 |
  $NPUSIM chipsim --profile neusim --configs $CONFIGS -c tpuv4 |
  $NPUSIM power --profile neusim --configs $CONFIGS -m llama3-70b -c tpuv4 --set num_chips=8 --set tensor_parallelism_degree=4 --set num_tensor_parallel_axes=2 --set pipeline_parallelism_degree=2 --set num_pipeline_parallel_axes=1 --set microbatch_size_ici=4 --out-dir '$T/pipe' >/dev/null &&
  $NPUSIM run --profile neusim --configs $CONFIGS -m llama3-70b -c tpuv4 --set num_chips=8 --set tensor_parallelism_degree=4 --set num_tensor_parallel_axes=2 --set pipeline_parallelism_degree=2 --set num_pipeline_parallel_axes=1 --set microbatch_size_ici=4 --out '$T/direct' >/dev/null &&
  for f in prefill.csv decode.csv prefill.json decode.json; do cmp '$T/pipe/llama3-70b_tpuv4_'\$f '$T/direct/llama3-70b_tpuv4_'\$f || exit 1; done"
check "power to stdout keeps the Phase column" sh -c "$NPUSIM power --profile neusim --configs $CONFIGS -i '$T/timed.csv' | head -n 1 | grep -q 'Phase'"

# --- sweep ---
check "sweep writes the results tree" sh -c "$NPUSIM sweep --profile neusim --configs $CONFIGS --out '$T/sw' --models llama3-8b --versions 5p --num-chips 1 --batch-sizes 1 2>/dev/null &&
  for f in .csv _prefill.csv _decode.csv _prefill.json _decode.json; do test -s '$T/sw/llama3-8b/dp1-tp1-pp1-dpdcn1-tpdcn1-ppdcn1-bs1/inference-v5p'\$f || exit 1; done"
check "sweep --seqlen writes under model_IN_OUT" sh -c "$NPUSIM sweep --profile neusim --configs $CONFIGS --out '$T/sq' --models llama3-8b --versions 5p --num-chips 1 --batch-sizes 1 --seqlen 1024_128 2>/dev/null && test -s '$T/sq/llama3-8b_1024_128/dp1-tp1-pp1-dpdcn1-tpdcn1-ppdcn1-bs1/inference-v5p.csv'"
expect_fail "sweep without lists" 'required' $NPUSIM sweep --profile neusim --models llama3-8b
expect_fail "sweep bad chip count" 'num-chips' $NPUSIM sweep --profile neusim --configs $CONFIGS --models llama3-8b --versions 5p --num-chips x --batch-sizes 1

# --- bad inputs: exit 2, message names file and field, nothing written ---
mkdir -p "$T/bad/models"
expect_fail "missing model file" "$T/nope.json" $NPUSIM run --profile neusim -m "$T/nope.json" --out "$T/o1"
no_files "missing model file leaves no output" "$T/o1"
printf '{ "model_type": "llm", "d_model": 4096,\n  "num_heads": }\n' >"$T/bad/models/broken.json"
expect_fail "invalid JSON names file and line" 'broken.json:2: invalid JSON' $NPUSIM run --profile neusim --configs "$T/bad" -m broken --out "$T/o2"
no_files "invalid JSON leaves no output" "$T/o2"
sed '/"d_model"/d' $CONFIGS/models/llama3-8b.json >"$T/bad/models/nodmodel.json"
expect_fail "missing field d_model" '"d_model" is missing' $NPUSIM run --profile neusim --configs "$T/bad" -m nodmodel --out "$T/o3"
no_files "missing field leaves no output" "$T/o3"
expect_fail "negative field" '"d_model": expected a positive value' $NPUSIM run --profile neusim --configs $CONFIGS --set d_model=-4096 --out "$T/o4"
expect_fail "zero field" '"num_layers": expected a positive value' $NPUSIM run --profile neusim --configs $CONFIGS --set num_layers=0 --out "$T/o4"
expect_fail "non-integer field" '"num_heads": expected an integer' $NPUSIM run --profile neusim --configs $CONFIGS --set num_heads=2.5 --out "$T/o4"
expect_fail "negative chip field" '"hbm_bw_GBps": expected a positive value' $NPUSIM run --profile neusim --configs $CONFIGS --set hbm_bw_GBps=-1 --out "$T/o4"
expect_fail "parallelism that does not divide" 'tensor_parallelism_degree' $NPUSIM run --profile neusim --configs $CONFIGS --set num_chips=3 --set tensor_parallelism_degree=3 --set num_tensor_parallel_axes=1 --out "$T/o4"
no_files "bad fields leave no output" "$T/o4"
expect_fail "unknown model name" 'unknown model "llama9"' $NPUSIM run --profile neusim --configs $CONFIGS -m llama9 --out "$T/o5"
expect_fail "unknown chip name" 'unknown chip "tpuv9"' $NPUSIM run --profile neusim --configs $CONFIGS -c tpuv9 --out "$T/o5"
expect_fail "unknown profile" 'profile' $NPUSIM run --configs $CONFIGS --profile nope --out "$T/o5"
no_files "unknown names leave no output" "$T/o5"
expect_fail "an unknown --set field is an error" '--set "frobs": unknown field' $NPUSIM run --profile neusim --configs $CONFIGS --set frobs=3 --out "$T/o6"
printf 'Fusion index,Description\r\n1,x\r\n' >"$T/short.csv"
expect_fail "chipsim: trace missing columns" 'short.csv' $NPUSIM chipsim --profile neusim --configs $CONFIGS -i "$T/short.csv" -o "$T/o7/x.csv"
expect_fail "chipsim: missing trace file" 'missing.csv' $NPUSIM chipsim --profile neusim --configs $CONFIGS -i "$T/missing.csv" -o "$T/o7/x.csv"
no_files "bad traces leave no output" "$T/o7"

# --- per-family CLI tests (tests/cli/t_*.sh, sourced: they use ok/no/check/expect_fail) ---
for f in tests/cli/t_*.sh; do
    [ -f "$f" ] && . "$f"
done

# --- golden: byte-identical to the reference outputs kept in tests/golden ---
sh tests/cli/golden.sh
check "sweep --dry-run writes nothing" sh -c "$NPUSIM sweep --profile neusim --configs $CONFIGS --out '$T/dry' --models llama3-8b --versions 5p --num-chips 1,4 --batch-sizes 1 --dry-run 2>&1 | grep -q 'simulated' && test ! -e '$T/dry'"
expect_fail "bad --batch" '--batch "0": expected a positive integer' $NPUSIM run --profile neusim --configs $CONFIGS --batch 0
check "run --batch sets the microbatch" sh -c "$NPUSIM run --profile neusim --configs $CONFIGS --batch 4 --out '$T/b4' | grep -q 'microbatch 4'"
check "run maps tensor parallelism to torus axes when the config has none" sh -c "$NPUSIM run --profile neusim --configs $CONFIGS -m llama3-70b --set num_chips=8 --set tensor_parallelism_degree=8 --out '$T/tp8' >/dev/null && grep -q AllGather '$T/tp8/llama3-70b_tpuv5p_prefill.csv'"

# The last line: tests/run-tests.sh counts a run without it (a sourced
# t_*.sh that does not parse stops the shell there) as a failure.
echo "# cli tests ran to the end"
