# Sourced by tests/cli/run.sh: every chip preset (configs/chips, docs/hardware.md)
# runs, decode at batch 1 reads the weights at the chip's HBM bandwidth, and a
# number format speeds a compute-bound phase up only where the chip has it.
CH="$T/chips"
mkdir -p "$CH"
# chrun NAME CHIP ARGS...: llama3-8b at batch 1 on CHIP into $CH/NAME
chrun() { cn=$1; cc=$2; shift 2; $NPUSIM run --configs $CONFIGS -c "$cc" -b 1 -o "$CH/$cn" "$@" >"$CH/$cn.log" 2>&1; }
chnum() { sed -n "s/.*\"$2\": *\([-0-9.e+]*\).*/\1/p" "$(ls "$CH/$1"/*_"$3".json)" | head -n 1; }

for c in $(ls "$CONFIGS/chips" | sed 's/\.json$//'); do
    check "chips: llama3-8b runs on the $c preset" chrun "$c" "$c"
done
# llama3-8b reads 7.50e9 bf16 weights per decode step (the embedding table
# only for its rows) plus 0.6 GB of KV cache at 4608 tokens: 15.0 to 15.7 GB.
for c in a100 h100 h200 b200 gb10 mi300x tpuv5p tpuv7; do
    bw=$(sed -n 's/.*"hbm_bw_GBps": *\([0-9.]*\).*/\1/p' "$CONFIGS/chips/$c.json")
    gb=$(awk -v t="$(chnum "$c" TPOT_ms_request decode)" -v b="$bw" 'BEGIN { printf "%.2f", t * b / 1000 }')
    check "chips: $c decode at batch 1 moves $gb GB per token at $bw GB/s (weights and KV cache 15.0 to 15.7, plus per-op latency floors: at most 17.0)" \
        awk -v g="$gb" 'BEGIN { exit !(g >= 15.0 && g <= 17.0) }'
done
# fp8 halves a compute-bound prefill where the matrix units have it (h100),
# and does not where they lack it (a100: fp8 runs as bf16, and says so).
for c in h100 a100; do
    chrun "${c}_fp8" "$c" --set weight_dtype=fp8 --set activation_dtype=fp8
done
t16=$(chnum h100 TTFT_sec prefill) t8=$(chnum h100_fp8 TTFT_sec prefill)
check "chips: fp8 prefill on h100 at most 0.6 x bf16's ($t8 vs $t16 s)" awk -v a="$t8" -v b="$t16" 'BEGIN { exit !(a <= 0.6 * b) }'
t16=$(chnum a100 TTFT_sec prefill) t8=$(chnum a100_fp8 TTFT_sec prefill)
check "chips: fp8 prefill on a100 at least 0.9 x bf16's ($t8 vs $t16 s)" awk -v a="$t8" -v b="$t16" 'BEGIN { exit !(a >= 0.9 * b) }'
check "chips: a100 says fp8 ran as bf16" grep -q "in fp8_e4m3 ran as bf16 on the matrix units" "$CH/a100_fp8.log"
check "chips: h100 runs fp8 on its matrix units without a fallback" sh -c "! grep -q 'ran as bf16 on the matrix' '$CH/h100_fp8.log'"
# weight-only int4 on bf16 compute: decode reads a quarter of the weights
chrun h100_int4 h100 --set weight_dtype=int4
t16=$(chnum h100 TPOT_ms_request decode) t4=$(chnum h100_int4 TPOT_ms_request decode)
check "chips: int4 weights decode at 0.25 to 0.35 x bf16's TPOT on h100 ($t4 vs $t16 ms)" \
    awk -v a="$t4" -v b="$t16" 'BEGIN { exit !(a >= 0.25 * b && a <= 0.35 * b) }'
# a bad format is named
expect_fail "chips: an unknown weight format is refused" "weight_dtype" \
    $NPUSIM run --configs $CONFIGS -c h100 -o "$CH/bad" --set weight_dtype=fp7
