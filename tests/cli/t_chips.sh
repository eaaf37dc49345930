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
# only for its rows) plus 0.6 GB of KV cache at 4608 tokens: 15.0 to 15.7 GB,
# at the roofline ($ROOFLINE: the GPU presets' fitted efficiencies and host
# times off).
for c in a100 h100 h200 gh200 b200 gb200 b300 gb300 gb10 mi300x mi325x mi350x mi355x tpuv5p tpuv7; do
    chrun "${c}_roof" "$c" $ROOFLINE
    bw=$(chnum "${c}_roof" hbm_bw_GBps decode)   # the run's own config: a preset may take it from its base
    gb=$(awk -v t="$(chnum "${c}_roof" TPOT_ms_request decode)" -v b="$bw" 'BEGIN { printf "%.2f", t * b / 1000 }')
    check "chips: $c decode at batch 1 moves $gb GB per token at $bw GB/s (weights and KV cache 15.0 to 15.7, plus per-op latency floors: at most 17.0)" \
        awk -v g="$gb" 'BEGIN { exit !(g >= 15.0 && g <= 17.0) }'
done
# A preset on another's die starts from it ("base", docs/configs.md): mi325x from
# mi300x (the inference fit's efficiencies and host terms), gb200 from b200 (its
# priors and host terms), gh200 from h200 (the fit's); each file gives only what
# differs, its memory, power, clock, peaks, host link and link domain. The runs'
# own configs show what was inherited.
chrun gb200_cfg gb200 && chrun b200_cfg b200 && chrun mi325x_cfg mi325x && chrun mi300x_cfg mi300x
chrun gh200_cfg gh200 && chrun h200_cfg h200
check "chips: mi325x, gb200 and gh200 start from mi300x, b200 and h200, carry their efficiencies and host terms, and override memory and the link domain" python3 - "$CONFIGS/chips" "$CH" <<'PY'
import glob, json, sys
d, ch = sys.argv[1], sys.argv[2]
raw = {n: json.load(open("%s/%s.json" % (d, n))) for n in ("mi300x", "mi325x", "b200", "gb200", "h200", "gh200")}
assert raw["mi325x"]["base"] == "mi300x" and raw["gb200"]["base"] == "b200" and raw["gh200"]["base"] == "h200"
assert all("kernel_efficiency" not in raw[n] for n in ("mi325x", "gb200", "gh200"))
run = {n: json.load(open(glob.glob("%s/%s_cfg/*_decode.json" % (ch, n))[0]))["sim_config"] for n in raw}
for a, b in (("mi300x", "mi325x"), ("b200", "gb200"), ("h200", "gh200")):
    assert run[a]["kernel_efficiency"] == run[b]["kernel_efficiency"], (a, b)
    for k in ("step_overhead_ns", "layer_overhead_ns", "kernel_launch_ns", "request_overhead_ns", "ici_latency_ns",
              "num_sa", "gemm_tile_m", "gemm_tile_n", "matrix_accumulates"):
        assert run[a].get(k) == run[b].get(k), (a, b, k)
assert run["mi325x"]["matrix_tflops"] == run["mi300x"]["matrix_tflops"] and run["mi325x"]["hbm_bw_GBps"] == 6000
assert run["mi325x"]["hbm_size_GB"] == 256 and run["mi300x"]["hbm_size_GB"] == 192
assert run["gb200"]["link_domain_chips"] == 72 and run["b200"]["link_domain_chips"] == 8
assert run["gb200"]["TDP_W"] == 1200 and run["b200"]["TDP_W"] == 1000
assert run["gh200"]["hbm_size_GB"] == 144 and run["gh200"]["hbm_bw_GBps"] == 4900 and run["gh200"]["pcie_bw_GBps"] == 450
assert run["gh200"]["link_domain_chips"] == 1 and run["h200"]["link_domain_chips"] == 8
assert run["gh200"]["matrix_tflops"] == run["h200"]["matrix_tflops"] and run["gh200"]["TDP_W"] == run["h200"]["TDP_W"]
PY
# Blackwell Ultra and CDNA 4: b300 from b200 (288 GB, fp4 13500), gb300 from b300 (the rack's 72-GPU
# domain, 15000 fp4, 1400 W), mi355x from mi300x (256 CUs at 2.4 GHz, 288 GB at 8 TB/s, no tf32: it
# runs as fp32), mi350x from mi355x (2.2 GHz, 1000 W); each carries its base's efficiencies and host terms.
for c in b300 gb300 mi355x mi350x; do chrun "${c}_cfg" "$c"; done
check "chips: b300, gb300, mi355x and mi350x start from b200, b300, mi300x and mi355x with their own peaks, memory and power" python3 - "$CH" <<'PY'
import glob, json, sys
ch = sys.argv[1]
run = {n: json.load(open(glob.glob("%s/%s_cfg/*_decode.json" % (ch, n))[0]))["sim_config"]
       for n in ("b200", "b300", "gb300", "mi300x", "mi355x", "mi350x")}
for a, b in (("b200", "b300"), ("b300", "gb300"), ("mi300x", "mi355x"), ("mi355x", "mi350x")):
    assert run[a]["kernel_efficiency"] == run[b]["kernel_efficiency"], (a, b)
    for k in ("step_overhead_ns", "layer_overhead_ns", "request_overhead_ns", "ici_latency_ns"):
        assert run[a].get(k) == run[b].get(k), (a, b, k)
m = {n: run[n]["matrix_tflops"] for n in run}
assert m["b300"]["fp4"] == 13500 and m["gb300"]["fp4"] == 15000 and m["b300"]["bf16"] == 2250 and m["gb300"]["bf16"] == 2500
assert run["b300"]["hbm_size_GB"] == run["gb300"]["hbm_size_GB"] == 288 and run["gb300"]["link_domain_chips"] == 72
assert run["b300"]["TDP_W"] == 1100 and run["gb300"]["TDP_W"] == 1400
assert m["mi355x"]["fp8_e4m3"] == 5033.2 and m["mi355x"]["fp4"] == 10066.3 and m["mi355x"].get("tf32", 0) == 0
assert run["mi355x"]["num_sa"] == 256 and run["mi355x"]["hbm_bw_GBps"] == 8000 and run["mi355x"]["TDP_W"] == 1400
assert m["mi350x"]["fp8_e4m3"] == 4613.7 and run["mi350x"]["TDP_W"] == 1000 and run["mi350x"]["freq_GHz"] == 2.2
PY
check "chips: a tf32 GEMM on mi355x runs as fp32 (CDNA 4 has no tf32 matrix rate)" sh -c "
  $NPUSIM op gemm -m 4096 -n 4096 -k 4096 --dtype tf32 -c mi355x --configs $CONFIGS --json | grep -q '\"ran_as\":\"fp32\"'"
# GB200 NVL72: one NVLink domain of 72 GPUs. TP over 64 stays on NVLink; over
# 128 (llama3_1-405b's 128 heads) it crosses racks and the run says so.
chrun gb200_tp64 gb200 -m llama3-70b --set num_chips=64 --set tensor_parallelism_degree=64
chrun gb200_tp128 gb200 -m llama3_1-405b --set num_chips=128 --set tensor_parallelism_degree=128
check "chips: gb200 keeps TP64 on its 72-GPU NVLink domain" sh -c "! grep -q 'spans NVLink domains' '$CH/gb200_tp64.log'"
check "chips: gb200 prices TP128 on the scale-out network and says so" \
    grep -q "tensor parallelism over 128 GPUs spans NVLink domains of 72" "$CH/gb200_tp128.log"
# fp8 halves a compute-bound prefill where the matrix units have it (h100),
# and does not where they lack it (a100: fp8 runs as bf16, and says so).
for c in h100 a100; do
    chrun "${c}_fp8" "$c" --set weight_dtype=fp8 --set activation_dtype=fp8
    chrun "${c}_fp8_roof" "$c" $ROOFLINE --set weight_dtype=fp8 --set activation_dtype=fp8
done
t16=$(chnum h100_roof TTFT_sec prefill) t8=$(chnum h100_fp8_roof TTFT_sec prefill)
check "chips: fp8 prefill on h100 at its roofline at most 0.6 x bf16's ($t8 vs $t16 s)" awk -v a="$t8" -v b="$t16" 'BEGIN { exit !(a <= 0.6 * b) }'
# As shipped, fp8 GEMMs reach 0.5968 of their peak and bf16 ones 0.7749 (fitted, docs/validation.md): a
# GEMM-bound prefill takes 0.7749 / (2 x 0.5968) = 0.65 of bf16's, as fp8 engines measure 1.3 to 1.6 x.
t16=$(chnum h100 TTFT_sec prefill) t8=$(chnum h100_fp8 TTFT_sec prefill)
check "chips: fp8 prefill on the shipped h100 at 0.6 to 0.8 x bf16's ($t8 vs $t16 s)" \
    awk -v a="$t8" -v b="$t16" 'BEGIN { exit !(a >= 0.6 * b && a <= 0.8 * b) }'
t16=$(chnum a100 TTFT_sec prefill) t8=$(chnum a100_fp8 TTFT_sec prefill)
check "chips: fp8 prefill on a100 at least 0.9 x bf16's ($t8 vs $t16 s)" awk -v a="$t8" -v b="$t16" 'BEGIN { exit !(a >= 0.9 * b) }'
check "chips: a100 says fp8 ran as bf16" grep -q "in fp8_e4m3 ran as bf16 on the matrix units" "$CH/a100_fp8.log"
check "chips: h100 runs fp8 on its matrix units without a fallback" sh -c "! grep -q 'ran as bf16 on the matrix' '$CH/h100_fp8.log'"
# weight-only int4 on bf16 compute: decode reads a quarter of the weights
chrun h100_int4 h100 $ROOFLINE --set weight_dtype=int4
t16=$(chnum h100_roof TPOT_ms_request decode) t4=$(chnum h100_int4 TPOT_ms_request decode)
check "chips: int4 weights decode at 0.25 to 0.35 x bf16's TPOT on h100 ($t4 vs $t16 ms)" \
    awk -v a="$t4" -v b="$t16" 'BEGIN { exit !(a >= 0.25 * b && a <= 0.35 * b) }'
# a bad format is named
expect_fail "chips: an unknown weight format is refused" "weight_dtype" \
    $NPUSIM run --configs $CONFIGS -c h100 -o "$CH/bad" --set weight_dtype=fp7
# The study stages on GPU presets: sweep, energy, carbon, slo (with the
# chip's own $/chip-hour) and a fleet of h100 deployments.
ST="$CH/study"
check "chips: sweep, energy, carbon and slo run on h100 and mi300x beside 5p" sh -c "
  $NPUSIM sweep --configs $CONFIGS --models llama3-8b --versions h100,5p,mi300x --num-chips 1,8 --batch-sizes 1 --out '$ST/raw' &&
  $NPUSIM energy --configs $CONFIGS --results '$ST/raw' --models llama3-8b --versions h100,5p,mi300x --pg NoPG &&
  $NPUSIM carbon --configs $CONFIGS --results '$ST/raw_None' --models llama3-8b --versions h100,5p,mi300x --pg NoPG \
    --ci 0.0624 --util 0.6 --lifetime 1 &&
  $NPUSIM slo --configs $CONFIGS --results '$ST/carbon_NoPG/dvfs_None/CI0.0624/UTIL0.6' --out '$ST/slo' \
    --models llama3-8b --versions 5p,h100,mi300x 2>'$ST/slo.err' &&
  grep -A1 '\"h100\": {' '$ST/slo/llama3-8b/inference-decode.json' | grep -q '\"min_num_chips\": 1' &&
  grep -A1 '\"mi300x\": {' '$ST/slo/llama3-8b/inference-decode.json' | grep -q '\"min_num_chips\": 1'"
check "chips: the sweep names GPU results inference-v<name>" test -f "$ST/raw/llama3-8b/dp1-tp1-pp1-dpdcn1-tpdcn1-ppdcn1-bs1/inference-vh100_decode.json"
cat >"$CH/fleet.json" <<'JSON'
{"deployments": [{"name": "chat", "model": "llama3-8b", "chip": "h100", "num_chips": 1, "batch_size": 8,
                  "replicas": 10, "load": {"tokens_per_sec": 5000}},
                 {"name": "chat-b200", "model": "llama3-8b", "chip": "b200", "num_chips": 1, "batch_size": 8,
                  "replicas": 10, "load": {"tokens_per_sec": 5000}}]}
JSON
check "chips: a fleet of h100 and b200 deployments" sh -c "$NPUSIM fleet --configs $CONFIGS '$CH/fleet.json' | grep -q '^chat-b200 *b200'"
# Block scales: group-wise int4 (128 along K per column, fp16 scales) reads
# the scales too, so decodes a little slower than bare int4; DeepSeek-V3's
# fp8 blocks (1 x 128 activations, 128 x 128 weights) leave an h100 prefill
# compute-bound on its tensor cores (the rescaling runs beside them).
chrun h100_int4g h100 $ROOFLINE --set weight_dtype=int4 --set scale_block=128 --set weight_scale_block_n=1 --set scale_dtype=fp16
check "chips: int4 group scales are printed on the matmuls" \
    grep -q 'block_scales=128x1:DT_FLOAT16' "$CH/h100_int4g/llama3-8b_h100_decode.csv"
t4=$(chnum h100_int4 TPOT_ms_request decode) tg=$(chnum h100_int4g TPOT_ms_request decode)
check "chips: int4 with group scales decodes slower than bare int4, by under 5% ($tg vs $t4 ms)" \
    awk -v a="$tg" -v b="$t4" 'BEGIN { exit !(a > b && a < 1.05 * b) }'
chrun h100_fp8b h100 --set weight_dtype=fp8 --set activation_dtype=fp8 --set scale_block=128
t8=$(chnum h100_fp8 TTFT_sec prefill) tb=$(chnum h100_fp8b TTFT_sec prefill)
check "chips: fp8 with 128 x 128 block scales keeps h100's fp8 prefill within 2% ($tb vs $t8 s)" \
    awk -v a="$tb" -v b="$t8" 'BEGIN { exit !(a >= b && a <= 1.02 * b) }'
Q="--configs $CONFIGS -c h100 -b 1 --set weight_dtype=int4 --set activation_dtype=fp8 --set scale_block=128 --set weight_scale_block_n=1"
check "chips: a block-scaled, mixed-format trace piped through the stages equals run" sh -c "
  $NPUSIM opsgen $Q | $NPUSIM chipsim $Q | $NPUSIM power $Q --out-dir '$CH/pipe' >/dev/null &&
  $NPUSIM run $Q --out '$CH/direct' >/dev/null &&
  grep -q 'block_scales=128x1:DT_FLOAT' '$CH/direct/llama3-8b_h100_decode.csv' &&
  for f in prefill.csv decode.csv prefill.json decode.json; do cmp '$CH/pipe/llama3-8b_h100_'\$f '$CH/direct/llama3-8b_h100_'\$f || exit 1; done"
# memory levels: checked as every field
expect_fail "chips: memory levels must grow outward" 'memory_levels": level 1 (b): expected a capacity above the level inside it' \
    $NPUSIM run --configs $CONFIGS -c h100 -o "$CH/bad" \
    --set 'memory_levels=[{"name": "a", "capacity_KiB": 10, "fill_GBps": 5}, {"name": "b", "capacity_KiB": 5, "fill_GBps": 5}]'
expect_fail "chips: a memory level's unknown key is named" 'unknown key "latency_ns"' \
    $NPUSIM run --configs $CONFIGS -c h100 -o "$CH/bad" \
    --set 'memory_levels=[{"name": "a", "capacity_KiB": 10, "fill_GBps": 5, "latency_ns": 1}]'
expect_fail "chips: a memory level's name is [a-z0-9_]" 'expected a "name" of 1 to 15 characters' \
    $NPUSIM run --configs $CONFIGS -c h100 -o "$CH/bad" --set 'memory_levels=[{"name": "L2", "capacity_KiB": 10, "fill_GBps": 5}]'
check "chips: a slow inner memory level makes a large gemm vmem-bound on h100" sh -c "
  $NPUSIM op --configs $CONFIGS --json gemm --m 4096 --n 4096 --k 4096 -c h100 \
    --set 'memory_levels=[{\"name\": \"sm\", \"capacity_KiB\": 228, \"fill_GBps\": 2000}, {\"name\": \"l2\", \"capacity_KiB\": 51200, \"fill_GBps\": 3350}]' |
  grep -q '\"bound\":\"vmem\"'"
# Training takes the formats too: fp8 speeds h100's step up, not a100's.
for c in h100 a100; do
    for d in bf16 fp8; do
        $NPUSIM run --configs $CONFIGS -c $c -w training -b 8 --set num_chips=8 --set weight_dtype=$d \
            --set activation_dtype=$d -o "$CH/train_${c}_$d" >/dev/null 2>&1
    done
done
ts() { sed -n 's/.*"total_execution_time_chip_ns": *\([-0-9.e+]*\).*/\1/p' "$CH/train_$1"/*.json | head -n 1; }
check "chips: fp8 training on h100 at most 0.75 x bf16's step ($(ts h100_fp8) vs $(ts h100_bf16) ns)" \
    awk -v a="$(ts h100_fp8)" -v b="$(ts h100_bf16)" 'BEGIN { exit !(a > 0 && a <= 0.75 * b) }'
check "chips: fp8 training on a100 at least 0.9 x bf16's step ($(ts a100_fp8) vs $(ts a100_bf16) ns)" \
    awk -v a="$(ts a100_fp8)" -v b="$(ts a100_bf16)" 'BEGIN { exit !(a >= 0.9 * b) }'
# A chip of one's own that starts from a preset ("base", docs/configs.md): h100
# with 160 GB runs exactly as h100 with --set hbm_size_GB=160 (same CSV, same
# statistics but for the chip's name), through a chain of two bases too, and a
# field given replaces the base's whole: its kernel_efficiency is all there is.
printf '{"base": "h100", "hbm_size_GB": 160}\n' >"$CH/h160.json"
printf '{"base": "%s", "hbm_bw_GBps": 4000}\n' "$CH/h160.json" >"$CH/h160fast.json"
printf '{"base": "h100", "kernel_efficiency": {"gemm": {"e_max": 1}}}\n' >"$CH/h100roof.json"
check "chips: a chip file with a base runs as the base with its fields set, through a chain, each field replacing the base's" sh -c "
  $NPUSIM run --configs $CONFIGS -c h100 --set hbm_size_GB=160 -b 4 --no-energy -o '$CH/bset' >/dev/null 2>&1 &&
  $NPUSIM run --configs $CONFIGS -c '$CH/h160.json' -b 4 --no-energy -o '$CH/bbase' >/dev/null 2>&1 &&
  cmp '$CH/bset/llama3-8b_h100_decode.csv' '$CH/bbase/llama3-8b_h160_decode.csv' &&
  $NPUSIM run --configs $CONFIGS -c h100 --set hbm_size_GB=160 --set hbm_bw_GBps=4000 -b 4 --no-energy -o '$CH/bset2' >/dev/null 2>&1 &&
  $NPUSIM run --configs $CONFIGS -c '$CH/h160fast.json' -b 4 --no-energy -o '$CH/bbase2' >/dev/null 2>&1 &&
  cmp '$CH/bset2/llama3-8b_h100_decode.csv' '$CH/bbase2/llama3-8b_h160fast_decode.csv' &&
  ! cmp -s '$CH/bset/llama3-8b_h100_decode.csv' '$CH/bset2/llama3-8b_h100_decode.csv' &&
  $NPUSIM run --configs $CONFIGS -c '$CH/h100roof.json' -b 4 --no-energy -o '$CH/broof' >/dev/null 2>&1 &&
  python3 -c 'import json,sys; k = json.load(open(sys.argv[1]))[\"sim_config\"][\"kernel_efficiency\"]
sys.exit(not (k[\"softmax\"][\"e_max\"] == 1 and k[\"gemm\"][\"fp8_e4m3\"] == 0 and k[\"gemm\"][\"e_max\"] == 1))' \
    '$CH/broof/llama3-8b_h100roof_decode.json'"
