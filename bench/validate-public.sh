#!/bin/sh
# validate-public.sh — reproduces the published measurements of bench/public/measurements.tsv
# with npusim under both profiles and prints docs/validation.md's table (markdown) with the
# error of each row and the mean absolute percentage error (MAPE) per kind of row.
#
#   sh bench/validate-public.sh [NPUSIM] [--write]
#
# --write replaces the table between the markers in docs/validation.md. `make validate-public`
# runs it with build/npusim. Model TFLOP/s per chip use one formula for measured and
# predicted alike (the publisher's TFLOP/s fixes the measured step time): per token
# 6 x (layer weights + LM head) + 6 x layers x seq x heads x d_head (causal attention,
# forward and backward).
set -u
NPUSIM=${1:-build/npusim}
WRITE=${2:-}
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/.." && pwd)
T=$(mktemp -d)
trap 'rm -rf "$T"' EXIT

num() { sed -n "s/.*\"$1\": *\([-0-9.e+]*\).*/\1/p" "$2" | head -n 1; }

# predict ROW-FIELDS... PROFILE -> "tflops power" (or "error")
predict() {
    id=$1 chip=$2 model=$3 chips=$4 dp=$5 tp=$6 dpax=$7 tpax=$8 pcb=$9 seq=${10} prof=${11} sets=${12}
    gb=$((pcb * chips))
    extra=""
    if [ "$prof" != neusim ] && [ "$sets" != - ]; then
        for kv in $(echo "$sets" | tr ',' ' '); do extra="$extra --set $kv"; done
    fi
    out="$T/$id-$prof"
    "$NPUSIM" run --profile "$prof" --configs "$root/configs" -w training -m "$here/public/models/$model.json" \
        -c "$chip" --set num_chips="$chips" --set data_parallelism_degree="$dp" \
        --set tensor_parallelism_degree="$tp" --set num_data_parallel_axes="$dpax" \
        --set num_tensor_parallel_axes="$tpax" --set global_batch_size="$gb" \
        --set microbatch_size_ici="$gb" --set input_seqlen="$seq" $extra -o "$out" >/dev/null 2>"$out.err" ||
        { echo "error"; return; }
    js=$(ls "$out"/*.json | head -n 1)
    step=$(num total_execution_time_ns "$js")
    energy=$(num total_energy_J "$js")
    mf="$here/public/models/$model.json"
    awk -v D="$(num d_model "$mf")" -v H="$(num num_heads "$mf")" -v KV="$(num num_kv_heads "$mf")" \
        -v dh="$(num d_head "$mf")" -v F="$(num d_ff "$mf")" -v L="$(num num_layers "$mf")" \
        -v V="$(num vocab_size "$mf")" -v s="$seq" -v gb="$gb" -v n="$chips" -v step="$step" -v e="$energy" '
        BEGIN {
            w = L * (2 * D * H * dh + 2 * D * KV * dh + 3 * D * F) + D * V
            f = 6 * w + 6 * L * s * H * dh
            t = step / 1e9
            printf "%.1f %.1f %.1f\n", f * gb * s / t / n / 1e12, e / t, gb * s / t / n
        }'
}

grep -v '^#' "$here/public/measurements.tsv" | while IFS='	' read -r id metric meas chip model chips dp tp dpax tpax pcb seq sets src cond; do
    [ -n "$id" ] || continue
    case $metric in
        train_tflops_per_chip) unit="TFLOP/s";;
        train_power_W) unit="W";;
        train_tokens_per_chip) unit="tokens/s";;
        *) echo "bench/public/measurements.tsv: row $id: unknown metric \"$metric\"" >&2; exit 2;;
    esac
    line="| $id | $src | $cond ($chip) | $meas $unit"
    for prof in physical neusim; do
        r=$(predict "$id" "$chip" "$model" "$chips" "$dp" "$tp" "$dpax" "$tpax" "$pcb" "$seq" "$prof" "$sets")
        if [ "$r" = error ]; then line="$line | error | "; continue; fi
        case $metric in
            train_tflops_per_chip) p=$(echo "$r" | cut -d' ' -f1);;
            train_power_W) p=$(echo "$r" | cut -d' ' -f2);;
            *) p=$(echo "$r" | cut -d' ' -f3);;
        esac
        err=$(awk -v p="$p" -v m="$meas" 'BEGIN { printf "%+.1f", 100 * (p - m) / m }')
        line="$line | $p | $err%"
        echo "$metric $prof $err" >>"$T/errs"
    done
    echo "$line |" >>"$T/rows"
done
{
    printf '| id | source | conditions | measured | physical | error | neusim | error |\n'
    printf '|---|---|---|---|---|---|---|---|\n'
    cat "$T/rows"
    echo
    for kind in train_tflops_per_chip train_tokens_per_chip train_power_W; do
        for prof in physical neusim; do
            awk -v k="$kind" -v p="$prof" '$1 == k && $2 == p { a = $3 + 0; if (a < 0) a = -a; s += a; n++; if (a > mx) mx = a }
                END { if (n) printf "* %s, %s profile: MAPE %.1f%% over %d rows (largest %.1f%%)\n", k, p, s / n, n, mx }' "$T/errs"
        done
    done
    for prof in physical neusim; do
        awk -v p="$prof" '$2 == p && $1 != "train_power_W" { a = $3 + 0; if (a < 0) a = -a; s += a; n++; if (a > mx) mx = a }
            END { if (n) printf "* every timing row, %s profile: MAPE %.1f%% over %d rows (largest %.1f%%)\n", p, s / n, n, mx }' "$T/errs"
    done
} >"$T/table"
cat "$T/table"
if [ "$WRITE" = --write ]; then
    doc="$root/docs/validation.md"
    awk -v tf="$T/table" '
        /^<!-- validate-public: begin -->/ { print; while ((getline l < tf) > 0) print l; skip = 1; next }
        /^<!-- validate-public: end -->/ { skip = 0 }
        !skip' "$doc" >"$T/doc" && cat "$T/doc" >"$doc"
fi
