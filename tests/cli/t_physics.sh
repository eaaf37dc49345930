# Sourced by tests/cli/run.sh: physical invariants of the default profile
# (docs/physics.md). Each check runs npusim under --profile physical and
# compares numbers across runs; a failing monotonicity or bound names both.
PH="$T/physics"
mkdir -p "$PH"
PH_NP=$(cd "$(dirname "$NPUSIM")" && pwd)/$(basename "$NPUSIM")   # for runs inside $PH
PH_CF=$(cd "$CONFIGS" && pwd)
# jnum FILE KEY: the first number of "KEY": in FILE
jnum() { sed -n "s/.*\"$2\": *\([-0-9.e+]*\).*/\1/p" "$1" | head -n 1; }
# prun NAME ARGS...: a physical run of llama3-8b on v5p into $PH/NAME
prun() { pn=$1; shift; $NPUSIM run --profile physical --configs $CONFIGS -o "$PH/$pn" "$@" >"$PH/$pn.log" 2>&1; }
tpot() { jnum "$(ls "$PH/$1"/*_decode.json)" TPOT_ms_request; }
ttft() { jnum "$(ls "$PH/$1"/*_prefill.json)" TTFT_sec; }
# le A B: A <= B as numbers
le() { awk -v a="$1" -v b="$2" 'BEGIN { exit !(a <= b) }'; }
lt() { awk -v a="$1" -v b="$2" 'BEGIN { exit !(a < b) }'; }

# GQA: fewer K/V heads decode faster and keep fewer bytes (kv 1 < 8 < 32 at batch 32).
for kv in 1 8 32; do prun kv$kv --batch 32 --set num_kv_heads=$kv; done
check "physical: TPOT grows with num_kv_heads (kv 1: $(tpot kv1), 8: $(tpot kv8), 32: $(tpot kv32) ms)" \
    sh -c "awk 'BEGIN { exit !($(tpot kv1) < $(tpot kv8) && $(tpot kv8) < $(tpot kv32)) }'"
m8=$(jnum "$PH/kv8/llama3-8b_tpuv5p_decode.json" mem_footprint_GB); m32=$(jnum "$PH/kv32/llama3-8b_tpuv5p_decode.json" mem_footprint_GB)
check "physical: the decode footprint grows with num_kv_heads ($m8 < $m32 GiB)" lt "$m8" "$m32"
check "neusim: num_kv_heads has no effect on TPOT (quirk kv_heads_ignored)" sh -c "
  $NPUSIM run --profile neusim --configs $CONFIGS -o '$PH/n8' --batch 32 --set num_kv_heads=8 >/dev/null &&
  $NPUSIM run --profile neusim --configs $CONFIGS -o '$PH/n32' --batch 32 --set num_kv_heads=32 >/dev/null &&
  test \"\$(grep TPOT '$PH/n8/llama3-8b_tpuv5p_decode.json')\" = \"\$(grep TPOT '$PH/n32/llama3-8b_tpuv5p_decode.json')\""

# TPOT is non-decreasing in the output length (the KV cache grows token by token) and in the batch.
for so in 128 512 2048; do prun so$so --set output_seqlen=$so; done
check "physical: TPOT non-decreasing in output length ($(tpot so128) <= $(tpot so512) <= $(tpot so2048) ms)" \
    sh -c "awk 'BEGIN { exit !($(tpot so128) <= $(tpot so512) && $(tpot so512) <= $(tpot so2048)) }'"
for b in 1 8 64; do prun b$b --batch $b; done
check "physical: TPOT non-decreasing in batch ($(tpot b1) <= $(tpot b8) <= $(tpot b64) ms)" \
    sh -c "awk 'BEGIN { exit !($(tpot b1) <= $(tpot b8) && $(tpot b8) <= $(tpot b64)) }'"
# ... non-increasing in HBM bandwidth and in chips (tensor parallelism).
for bw in 1000 2765 8000; do prun bw$bw --batch 8 --set hbm_bw_GBps=$bw; done
check "physical: TPOT non-increasing in HBM bandwidth ($(tpot bw1000) >= $(tpot bw2765) >= $(tpot bw8000) ms)" \
    sh -c "awk 'BEGIN { exit !($(tpot bw1000) >= $(tpot bw2765) && $(tpot bw2765) >= $(tpot bw8000)) }'"
for tpn in 1 2 4; do prun tp$tpn --batch 8 --set num_chips=$tpn --set tensor_parallelism_degree=$tpn; done
check "physical: TPOT non-increasing in TP chips ($(tpot tp1) >= $(tpot tp2) >= $(tpot tp4) ms)" \
    sh -c "awk 'BEGIN { exit !($(tpot tp1) >= $(tpot tp2) && $(tpot tp2) >= $(tpot tp4)) }'"

# The summary's energy per token counts every chip (the JSON's energy_per_token_J is one chip's
# share, the reference's): tp 2 prints twice the JSON's, labelled, and no less than tp 1 (the same
# work on more chips, plus the collectives).
etok() { sed -n 's/.*energy\/token  prefill \([0-9.e+-]*\) J, decode \([0-9.e+-]*\) J.*/\2/p' "$PH/$1.log"; }
check "physical: energy/token counts all chips (tp 2: $(etok tp2) J = 2 x the JSON's one-chip share; tp 1: $(etok tp1) J)" sh -c "
  grep -q 'energy/token  prefill [0-9.e+-]* J, decode [0-9.e+-]* J (all 2 chips)' '$PH/tp2.log' &&
  awk -v p=\"$(etok tp2)\" -v j=\"$(jnum "$PH/tp2/llama3-8b_tpuv5p_decode.json" energy_per_token_J)\" -v one=\"$(etok tp1)\" \
    'BEGIN { exit !((p - 2 * j) * (p - 2 * j) < 1e-10 * p * p && p >= one) }'"

# Times never depend on whether the energy pass runs.
prun noen --no-energy --batch 8
check "physical: TTFT and TPOT equal with and without the energy pass" \
    sh -c "test '$(ttft b8) $(tpot b8)' = '$(ttft noen) $(tpot noen)'"

# Power per chip between the static (idle) power and the cap; the cap throttles and says so.
for c in tpuv3 tpuv4 tpuv5e tpuv5p tpuv6e; do
    prun pw$c -c $c --batch 32 --set num_chips=8 --set tensor_parallelism_degree=8
    for ph in prefill decode; do
        js="$PH/pw$c/llama3-8b_${c}_$ph.json"
        w=$(jnum "$js" avg_power_W); cap=$(jnum "$js" power_cap_W)
        check "physical: $c $ph power per chip $w W within (0, cap $cap W]" \
            awk "BEGIN { exit !(0 < ${w:-0} && ${w:-0} <= ${cap:-0} * 1.000001) }"
    done
done
check "physical: a throttled run says so (v5p prefill)" grep -q 'power cap     throttled' "$PH/pwtpuv5p.log"
check "physical: throttled ops are Bounded-by Power in the CSV" grep -q ',Power,' "$PH/pwtpuv5p/llama3-8b_tpuv5p_prefill.csv"
prun nocap --set TDP_W=100000 --batch 8
check "physical: without a binding cap nothing is throttled" sh -c "! grep -q ',Power,' '$PH/nocap/llama3-8b_tpuv5p_prefill.csv'"
expect_fail "physical: a cap below the static power is an error naming the field" 'power_cap_W' \
    $NPUSIM run --configs $CONFIGS -o "$PH/lowcap" --set power_cap_W=10
no_files "physical: a failed run leaves no output" "$PH/lowcap"
# The running power, hand-derived: dynamic_power_other_W = 100 W adds 100 W x the chip's execution time,
# exactly; dynamic_power_scale = 2 doubles the units' dynamic energy and leaves static and "other" alone.
for v in "0 1" "100 1" "0 2"; do
    prun "run-${v% *}-${v#* }" -c h100 --batch 1 --set dynamic_power_other_W=${v% *} --set dynamic_power_scale=${v#* }
done
check "physical: dynamic_power_other_W adds its watts over the execution time; dynamic_power_scale scales the units" python3 -c '
import csv, glob, json, sys
d = sys.argv[1]
def js(n):
    return json.load(open(glob.glob(d + "/" + n + "/*_prefill.json")[0]))
def parts(n):
    rows = list(csv.DictReader(open(glob.glob(d + "/" + n + "/*_prefill.csv")[0])))
    f = lambda k: sum(float(r[k]) * int(r["Count"] or 1) for r in rows)
    return (sum(f("dynamic_energy_%s_J" % u) for u in ("sa", "vu", "sram", "hbm", "ici")),
            f("static_energy_J"), f("dynamic_energy_other_J"))
a, b = js("run-0-1"), js("run-100-1")
t = a["total_execution_time_chip_ns"] / 1e9
p0, p2 = parts("run-0-1"), parts("run-0-2")
sys.exit(not (abs(b["total_energy_J"] - a["total_energy_J"] - 100 * t) < 1e-9 * b["total_energy_J"]
              and abs(p2[0] - 2 * p0[0]) < 1e-9 * p2[0] and p2[1] == p0[1] and p0[2] == p2[2] == 0))' "$PH"
# the GPU presets fitted to measured serving power keep a full-load pass at its TDP split:
# dynamic_power_scale = 1 - dynamic_power_other_W / (TDP - idle) (docs/hardware.md)
check "physical: the fitted GPU presets tie dynamic_power_scale to their running power" python3 -c '
import json, sys
for c in ("h100", "h200", "b200"):
    d = json.load(open("configs/chips/%s.json" % c))
    if abs(d["dynamic_power_scale"] - (1 - d["dynamic_power_other_W"] / (d["TDP_W"] - d["idle_power_W"]))) > 1e-4:
        sys.exit(c)'
# "other" draws whatever the clock: static plus it above the cap cannot be throttled under it
expect_fail "physical: static plus dynamic_power_other_W above the cap is an error naming both" \
    'static power 128.602 W plus "dynamic_power_other_W" 900 W' \
    $NPUSIM run --configs $CONFIGS -c b200 -o "$PH/othercap" --set dynamic_power_other_W=900
no_files "physical: that failed run leaves no output" "$PH/othercap"

# The vocabulary: embedding and LM-head ops; vocab_size 0 removes them.
check "physical: the decode trace has TokenEmbedding and LMHead ops" \
    sh -c "grep -q '^[0-9]*,TokenEmbedding,' '$PH/b8/llama3-8b_tpuv5p_decode.csv' && grep -q '^[0-9]*,LMHead,' '$PH/b8/llama3-8b_tpuv5p_decode.csv'"
prun novocab --batch 8 --set vocab_size=0
check "physical: vocab_size 0 leaves no vocabulary ops and a shorter TPOT" \
    sh -c "! grep -q 'LMHead' '$PH/novocab/llama3-8b_tpuv5p_decode.csv' && awk 'BEGIN { exit !($(tpot novocab) < $(tpot b8)) }'"

# Shards and threads do not change a sweep under the physical profile.
(cd "$PH" && "$PH_NP" sweep --configs "$PH_CF" --models llama3-8b --versions 5p,4 --num-chips 1,4 --batch-sizes 1,16 --summary one.csv -j 1 2>/dev/null &&
 "$PH_NP" sweep --configs "$PH_CF" --models llama3-8b --versions 5p,4 --num-chips 1,4 --batch-sizes 1,16 --summary a.csv --shard 1/2 -j 2 2>/dev/null &&
 "$PH_NP" sweep --configs "$PH_CF" --models llama3-8b --versions 5p,4 --num-chips 1,4 --batch-sizes 1,16 --summary b.csv --shard 2/2 -j 3 2>/dev/null &&
 "$PH_NP" merge m.csv a.csv b.csv >/dev/null 2>&1)
check "physical: sweep shards (-j 2, -j 3) merged == one run (-j 1), byte for byte" cmp "$PH/m.csv" "$PH/one.csv"

# Invariants over every shipped LLM model x chip, several batches, chip counts and lengths: the
# physical profile never trips a check of power/invariants.c (power within the cap and above idle,
# matmuls within the peak, no 1.7 GHz rescale); each violation would be a "warning:" line.
grid_ok() {
    for m in llama3-8b llama2-13b llama3-70b llama3_1-405b gpt-j-6b gemma-2b gemma-7b deepseekv2-236b deepseekv3-671b; do
        for c in v2 v3 v4 v5e v5p v6e v6p; do
            for g in "-b 1" "-b 64 --set input_seqlen=1024 --set output_seqlen=128" \
                     "-b 16 --set num_chips=8 --set tensor_parallelism_degree=8"; do
                # shellcheck disable=SC2086
                $NPUSIM run --configs $CONFIGS -m $m -c $c $g -o "$PH/grid" >/dev/null 2>"$PH/grid.err" ||
                    { echo "$m $c $g: failed"; cat "$PH/grid.err"; return 1; }
                if grep -q 'warning:' "$PH/grid.err"; then echo "$m $c $g:"; cat "$PH/grid.err"; return 1; fi
            done
        done
    done
    for m in dlrm-s dlrm-m dlrm-l dit-xl gligen; do
        for c in v2 v3 v4 v5e v5p v6e v6p; do
            $NPUSIM run --configs $CONFIGS -m $m -c $c -o "$PH/grid" >/dev/null 2>"$PH/grid.err" ||
                { echo "$m $c: failed"; cat "$PH/grid.err"; return 1; }
            if grep -q 'warning:' "$PH/grid.err"; then echo "$m $c:"; cat "$PH/grid.err"; return 1; fi
        done
    done
    for c in v3 v4 v5e v5p; do
        $NPUSIM run --configs $CONFIGS -w training -b 64 -c $c --set num_chips=8 --set data_parallelism_degree=8 \
            --set zero_stage=3 --set remat=full -o "$PH/grid" >/dev/null 2>"$PH/grid.err" ||
            { echo "training $c: failed"; cat "$PH/grid.err"; return 1; }
        if grep -q 'warning:' "$PH/grid.err"; then echo "training $c:"; cat "$PH/grid.err"; return 1; fi
    done
    return 0
}
check "physical: no invariant warning over 9 LLMs x 7 chips x 3 shapes, DLRM/DiT/GLIGEN x 7 chips, training on 4 chips" grid_ok

# Under neusim the same checks warn on stderr and in the JSON, never in silence.
check "neusim: power above the cap is a warning on stderr and in the JSON's warnings" sh -c "
  $NPUSIM run --profile neusim --configs $CONFIGS -o '$PH/nw' >/dev/null 2>'$PH/nw.err' &&
  grep -q 'warning: prefill: average power 2041.1 W per chip exceeds' '$PH/nw.err' &&
  grep -q '\"warnings\"' '$PH/nw/llama3-8b_tpuv5p_prefill.json'"
check "neusim: the 1.7 GHz rescale is a warning on v4" sh -c "
  $NPUSIM run --profile neusim --configs $CONFIGS -c v4 -o '$PH/nw4' 2>&1 >/dev/null | grep -q 'rescaled every time from the chip.s 1.05 GHz to 1.7 GHz'"
check "neusim: a DiT run warns (matmuls above the peak FLOP rate)" sh -c "
  $NPUSIM run --profile neusim --configs $CONFIGS -m dit-xl -c v4 -o '$PH/nwd' 2>&1 >/dev/null | grep -q 'warning: trace: op .* computes at'"
check "physical: the run's JSON has no warnings" sh -c "! grep -q warnings '$PH/b8/llama3-8b_tpuv5p_prefill.json'"
check "neusim: a summary sweep counts the points that violate an invariant" sh -c "
  $NPUSIM sweep --profile neusim --configs $CONFIGS --models llama3-8b --versions 5p,4 --num-chips 1,4 --batch-sizes 1,16 \
    --summary '$PH/sw-n.csv' 2>&1 >/dev/null | grep -q 'warning: 10 of 10 simulated points violate a physical invariant; first: llama3-8b on tpuv5p'"
check "physical: the same sweep has no violation" sh -c "
  ! $NPUSIM sweep --configs $CONFIGS --models llama3-8b --versions 5p,4 --num-chips 1,4 --batch-sizes 1,16 \
    --summary '$PH/sw-p.csv' 2>&1 >/dev/null | grep -q 'violate'"
e2e=$(jnum "$PH/b8/llama3-8b_tpuv5p_decode.json" e2e_throughput_tokens_per_sec)
check "physical: end-to-end throughput $e2e = batch x output / (TTFT + output x TPOT)" \
    awk -v e="$e2e" -v t="$(ttft b8)" -v p="$(tpot b8)" \
        'BEGIN { w = 8 * 512 / (t + 512 * p / 1e3); exit !(e > 0 && (e - w) * (e - w) < 1e-6 * w * w) }'
# With pipeline parallelism the throughputs count the global batch (every microbatch in the
# pipeline): the summary says which batch, decode tokens/s x TPOT gives that batch, and the
# end-to-end figure is that batch's prefill then decode at those rates (before: one microbatch's;
# then TTFT + output x TPOT, which add the transfers between stages that the steady state overlaps,
# so it differed from a sweep's and the fleet's throughput).
$NPUSIM run --profile physical --configs $CONFIGS -m llama3-70b --set num_chips=4 --set pipeline_parallelism_degree=2 \
    --set tensor_parallelism_degree=2 -b 8 -o "$PH/pp2" >"$PH/pp2.txt" 2>&1
check "physical: pp 2 run's summary names the batch its throughputs count" \
    grep -q 'decode [0-9.]* tokens/s (batch 8: 2 microbatches of 4 in the pipeline)' "$PH/pp2.txt"
check "physical: pp 2 decode tokens/s x TPOT = the batch" \
    awk '/^  TPOT/ { p = $2 } /^  throughput/ { d = $6; b = $9 + 0 }
         END { x = d * p / 1e3; exit !(b == 8 && (x - b) * (x - b) < 1e-4 * b * b) }' "$PH/pp2.txt"
check "physical: pp 2 end to end = output / (input / prefill tokens/s + output / decode tokens/s), not over TTFT + output x TPOT" \
    awk -v e="$(jnum "$PH/pp2/llama3-70b_tpuv5p_decode.json" e2e_throughput_tokens_per_sec)" \
        -v f="$(jnum "$PH/pp2/llama3-70b_tpuv5p_prefill.json" throughput_tokens_per_sec)" \
        -v d="$(jnum "$PH/pp2/llama3-70b_tpuv5p_decode.json" throughput_tokens_per_sec)" \
        -v t="$(jnum "$PH/pp2/llama3-70b_tpuv5p_prefill.json" TTFT_sec)" \
        -v p="$(jnum "$PH/pp2/llama3-70b_tpuv5p_decode.json" TPOT_ms_request)" \
        'BEGIN { w = 512 / (4096 / f + 512 / d); l = 8 * 512 / (t + 512 * p / 1e3)
                 exit !(e > 0 && (e - w) * (e - w) < 1e-12 * w * w && (e - l) * (e - l) > 1e-8 * l * l) }'
# The framework's host time per forward pass (chip step_overhead_ns and
# layer_overhead_ns): llama3-8b has 32 layers, so 2 ms + 32 x 10 us = 2.32 ms
# more on TTFT (one prefill) and on TPOT (one per decode step), named in the
# statistics; the kernels' own times do not move. Not under neusim.
$NPUSIM run --configs $CONFIGS -m llama3-8b -c h100 $ROOFLINE -b 1 --no-energy -o "$PH/ov0" >/dev/null
$NPUSIM run --configs $CONFIGS -m llama3-8b -c h100 $ROOFLINE -b 1 --no-energy --set step_overhead_ns=2000000 \
    --set layer_overhead_ns=10000 -o "$PH/ov1" >/dev/null
OV0=$PH/ov0/llama3-8b_h100 OV1=$PH/ov1/llama3-8b_h100
check "physical: step and layer overheads add 2.32 ms to TTFT and to TPOT of llama3-8b, and the JSON names them" \
    awk -v t0="$(jnum "${OV0}_prefill.json" TTFT_sec)" -v t1="$(jnum "${OV1}_prefill.json" TTFT_sec)" \
        -v p0="$(jnum "${OV0}_decode.json" TPOT_ms_request)" -v p1="$(jnum "${OV1}_decode.json" TPOT_ms_request)" \
        -v c0="$(jnum "${OV0}_decode.json" total_execution_time_chip_ns)" \
        -v c1="$(jnum "${OV1}_decode.json" total_execution_time_chip_ns)" \
        -v n1="$(jnum "${OV1}_decode.json" framework_overhead_ns_per_pass)" \
        -v n0="$(grep -c framework_overhead "${OV0}_decode.json")" \
        'BEGIN { exit !(t0 > 0 && (t1 - t0 - 0.00232) ^ 2 < 1e-18 && (p1 - p0 - 2.32) ^ 2 < 1e-12 && c0 == c1 &&
                         n1 == 2320000 && n0 == 0) }'
# request_overhead_ns per sequence of a pass: batch 4 x 50 us = 0.2 ms more on TTFT and TPOT.
$NPUSIM run --configs $CONFIGS -m llama3-8b -c h100 $ROOFLINE -b 4 --no-energy -o "$PH/ov4" >/dev/null
$NPUSIM run --configs $CONFIGS -m llama3-8b -c h100 $ROOFLINE -b 4 --no-energy --set request_overhead_ns=50000 \
    -o "$PH/ov5" >/dev/null
OV4=$PH/ov4/llama3-8b_h100 OV5=$PH/ov5/llama3-8b_h100
check "physical: request_overhead_ns adds 4 x 50 us to TTFT and TPOT at batch 4" \
    awk -v t0="$(jnum "${OV4}_prefill.json" TTFT_sec)" -v t1="$(jnum "${OV5}_prefill.json" TTFT_sec)" \
        -v p0="$(jnum "${OV4}_decode.json" TPOT_ms_request)" -v p1="$(jnum "${OV5}_decode.json" TPOT_ms_request)" \
        'BEGIN { exit !(t0 > 0 && (t1 - t0 - 0.0002) ^ 2 < 1e-18 && (p1 - p0 - 0.2) ^ 2 < 1e-12) }'
$NPUSIM run --profile neusim --configs $CONFIGS -m llama3-8b -c tpuv5p -b 1 -o "$PH/ov2" >/dev/null 2>&1
$NPUSIM run --profile neusim --configs $CONFIGS -m llama3-8b -c tpuv5p -b 1 --set step_overhead_ns=2000000 \
    -o "$PH/ov3" >/dev/null 2>&1
check "physical: the neusim profile applies no framework overhead" \
    cmp "$PH/ov2/llama3-8b_tpuv5p_prefill.json" "$PH/ov3/llama3-8b_tpuv5p_prefill.json"
# Wave quantisation (chip gemm_tile_m x gemm_tile_n): on h100's 132 SMs with
# 128 x 128 tiles (64 x 64 array blocks: 4 a tile per 64 of k) a 4096^3 GEMM
# has 1024 tiles, 8 waves of 132 = 1056 tile slots: 1056 / 1024 = 1.03125 of
# its time without waves. 1024 x 1024 x 4096 has 64 tiles, too few to fill
# the SMs, so k splits in two (split-K, floor(132 / 64)): 128 half-tiles in
# one wave of 132, 1.03125 again (2.0625 without the split). A decode GEMM
# (8 x 8192 x 8192) takes 64-row tiles and stays memory-bound: no change.
# At the roofline ($ROOFLINE: no launch gap); not under neusim.
gemm_us() { m=$1 n=$2 k=$3; shift 3
    $NPUSIM op gemm -m "$m" -n "$n" -k "$k" -c h100 --configs "$CONFIGS" --json $ROOFLINE "$@" 2>/dev/null |
    sed -n 's/.*"time_us": *\([0-9.e+-]*\).*/\1/p'; }
W="--set gemm_tile_m=128 --set gemm_tile_n=128"
W0="--set gemm_tile_m=0 --set gemm_tile_n=0"
check "physical: GEMMs run in whole waves of SMs, split-K filling them (4096^3 and 1024x1024x4096: 1056/1024 of the time)" \
    awk -v a="$(gemm_us 4096 4096 4096 $W0)" -v b="$(gemm_us 4096 4096 4096 $W)" \
        -v c="$(gemm_us 1024 1024 4096 $W0)" -v d="$(gemm_us 1024 1024 4096 $W)" \
        -v e="$(gemm_us 8 8192 8192 $W0)" -v f="$(gemm_us 8 8192 8192 $W)" \
        'BEGIN { exit !(a > 0 && (b / a - 1.03125) ^ 2 < 1e-8 && (d / c - 1.03125) ^ 2 < 1e-5 && e > 0 && e == f) }'
# A library that splits k into few pieces (gemm_split_k_max; mi300x's preset
# 2): the 64 tiles of 1024 x 1024 x 4096 run whole in one wave of 132 SMs
# at 1 (132 / 64 = 2.0625 of the time without waves) and in two halves at 2
# (1.03125, as uncapped); a GEMM of at most 16 rows (a matrix-vector
# kernel: 8 x 8192 x 8192) is never capped, so it does not move.
check "physical: gemm_split_k_max=1 runs one tile per SM (1024x1024x4096: 2.0625 of the time), 2 halves, matrix-vector kernels uncapped" \
    awk -v c="$(gemm_us 1024 1024 4096 $W0)" -v d="$(gemm_us 1024 1024 4096 $W --set gemm_split_k_max=1)" \
        -v g="$(gemm_us 1024 1024 4096 $W --set gemm_split_k_max=2)" \
        -v e="$(gemm_us 8 8192 8192 $W)" -v f="$(gemm_us 8 8192 8192 $W --set gemm_split_k_max=1)" \
        'BEGIN { exit !(c > 0 && (d / c - 2.0625) ^ 2 < 1e-5 && (g / c - 1.03125) ^ 2 < 1e-5 && e > 0 && e == f) }'
expect_fail "physical: gemm_split_k_max takes a count from 0" '"gemm_split_k_max"' \
    $NPUSIM op gemm -m 64 -n 64 -k 64 -c h100 --configs "$CONFIGS" --set gemm_split_k_max=-1
# Ragged tiles (physical, chips with memory levels): a GEMM of 8053 rows (a
# prime: a serving pass's tokens) tiles as one of 8052 does, not in one-row
# tiles that re-read its weights through shared memory 8053 times (5x the
# time before the search padded its sizes to whole 64-wide arrays).
check "physical: a prime row count tiles as its neighbour (8053 x 14336 x 4096 on h100: 8052's time, not 5x)" \
    awk -v a="$(gemm_us 8052 14336 4096)" -v b="$(gemm_us 8053 14336 4096)" \
        'BEGIN { exit !(a > 0 && (b / a - 1) ^ 2 < 1e-6) }'
check "physical: the neusim profile runs no waves" \
    test "$(gemm_us 1024 1024 4096 --profile neusim)" = "$(gemm_us 1024 1024 4096 --profile neusim $W)"
# A ring collective's time is alpha x steps + bytes / beta (physical): an
# all-reduce over 8 chips in a ring (collective_algorithm ring) takes 2 x 7
# steps, so ici_latency_ns 3330 adds 46.62 us to the transfer whatever its
# size (the reference took the larger of the two: a 16M-element
# all-reduce's 149 us would hide it). Through a switch (collective_algorithm
# direct) each of its two phases is one hop: 6.66 us.
ar_us() { $NPUSIM op all-reduce -m 16777216 -c h100 --configs "$CONFIGS" --json "$@" 2>/dev/null |
    sed -n 's/.*"time_us": *\([0-9.e+-]*\).*/\1/p'; }
R="--set collective_algorithm=ring"
check "physical: an all-reduce over 8 chips in a ring adds 14 steps of ici_latency_ns to its transfer (46.62 us at 3330 ns)" \
    awk -v a="$(ar_us $R --set ici_latency_ns=0)" -v b="$(ar_us $R --set ici_latency_ns=3330)" \
        -v n="$(ar_us --profile neusim --set ici_latency_ns=3330)" -v m="$(ar_us --profile neusim --set ici_latency_ns=0)" \
        'BEGIN { exit !(a > 100 && (b - a - 46.62) ^ 2 < 1e-4 && n == m) }'
# kernel_efficiency.collective.e_max is the links' achieved fraction (NCCL's
# bus bandwidth): it divides the transfer, not the latency steps, which stay
# 46.62 us at half the bandwidth.
E="--set kernel_efficiency.collective.e_max=0.5"
check "physical: a collective efficiency of 0.5 doubles the all-reduce's transfer, not its 14 latency steps" \
    awk -v a="$(ar_us $R --set ici_latency_ns=0 --set kernel_efficiency.collective.e_max=1)" \
        -v h="$(ar_us $R $E --set ici_latency_ns=0)" -v b="$(ar_us $R $E --set ici_latency_ns=3330)" \
        'BEGIN { exit !(a > 100 && (h - 2 * a) ^ 2 < 1e-4 && (b - h - 46.62) ^ 2 < 1e-4) }'
D="--set collective_algorithm=direct"
check "physical: through a switch (collective_algorithm direct) the all-reduce's two phases add 2 steps (6.66 us)" \
    awk -v a="$(ar_us $D --set ici_latency_ns=0)" -v b="$(ar_us $D --set ici_latency_ns=3330)" \
        'BEGIN { exit !(a > 100 && (b - a - 6.66) ^ 2 < 1e-4) }'
# A tree (NCCL's) takes ceil(log2 p) steps a phase: over 8 chips an
# all-reduce's 2 x 3 = 6 steps, 19.98 us at 3330 ns, against the ring's 14.
TR="--set collective_algorithm=tree"
check "physical: a tree all-reduce over 8 chips adds 6 latency steps (19.98 us)" \
    awk -v a="$(ar_us $TR --set ici_latency_ns=0)" -v b="$(ar_us $TR --set ici_latency_ns=3330)" \
        'BEGIN { exit !(a > 100 && (b - a - 19.98) ^ 2 < 1e-4) }'
# collective_base_ns is paid once a phase whatever the group size (NCCL's
# base latency): 2 x 3000 ns on an all-reduce, ring or direct; none under
# the reference's pricing.
check "physical: collective_base_ns 3000 adds 6 us to an all-reduce (two phases), ring or direct; not under neusim" \
    awk -v a="$(ar_us $R)" -v b="$(ar_us $R --set collective_base_ns=3000)" \
        -v c="$(ar_us $D)" -v d="$(ar_us $D --set collective_base_ns=3000)" \
        -v n="$(ar_us --profile neusim)" -v m="$(ar_us --profile neusim --set collective_base_ns=3000)" \
        'BEGIN { exit !(a > 100 && (b - a - 6) ^ 2 < 1e-4 && (d - c - 6) ^ 2 < 1e-4 && n == m) }'
# In a run the direct steps apply inside the link domain only: tensor
# parallelism 8 on h100 (one 8-GPU NVLink domain) gets faster, 16 (two
# domains, the scale-out network's ring) does not move.
ca_tpot() { rm -rf "$PH/ca"
    $NPUSIM run --configs "$CONFIGS" -m llama3-70b -c h100 -b 8 --set num_chips=$1 --set tensor_parallelism_degree=$1 \
        --set collective_algorithm=$2 --set collective_direct_max_bytes=${3:-0} --no-energy -o "$PH/ca" >/dev/null 2>&1 &&
        jnum "$(ls "$PH"/ca/*_decode.json)" TPOT_ms_request; }
check "physical: direct collectives speed tensor parallelism inside the NVLink domain (TP 8), not across it (TP 16)" \
    awk -v a="$(ca_tpot 8 ring)" -v b="$(ca_tpot 8 direct)" -v c="$(ca_tpot 16 ring)" -v d="$(ca_tpot 16 direct)" \
        'BEGIN { exit !(b > 0 && b < 0.9 * a && c > 0 && c == d) }'
# The engines' custom all-reduce (collective_direct_max_bytes, the presets'
# 8 MiB): a decode step's all-reduces of 8 x 8192 bf16 (128 KiB) take the
# switch's steps under a ring, as collective_algorithm direct gives them, inside
# the domain only; a bound below the tensor (64 KiB) leaves them to the ring.
check "physical: collective_direct_max_bytes gives small collectives the switch's steps inside the NVLink domain" \
    awk -v r="$(ca_tpot 8 ring)" -v d="$(ca_tpot 8 direct)" -v s="$(ca_tpot 8 ring 8388608)" -v b="$(ca_tpot 8 ring 65536)" \
        -v c="$(ca_tpot 16 ring)" -v x="$(ca_tpot 16 ring 8388608)" \
        'BEGIN { exit !(s > 0 && s == d && b == r && s < 0.9 * r && c == x) }'
# A tree's log2 p steps apply on the scale-out network too (TP 16 across two domains).
check "physical: tree collectives speed tensor parallelism across NVLink domains too (TP 16)" \
    awk -v c="$(ca_tpot 16 ring)" -v t="$(ca_tpot 16 tree)" 'BEGIN { exit !(t > 0 && t < c) }'
# The run summary names the latency its collectives pay; a run on one chip
# has none to name.
co_line() { n=$1; shift
    $NPUSIM run --configs "$CONFIGS" -m llama3-8b -c h100 -b 1 --set num_chips=$n --set tensor_parallelism_degree=$n \
    --set ici_latency_ns=4000 --set collective_base_ns=2500 "$@" --no-energy -o "$PH/co" 2>/dev/null | grep '^  collectives'; }
check "physical: the run summary names the collectives' step and phase latency (TP 8; none on one chip)" \
    sh -c '[ "$1" = "  collectives   ring: 4000 ns a latency step + 2500 ns a phase (ici_latency_ns, collective_base_ns)" ] && [ -z "$2" ]' _ \
    "$(co_line 8 --set collective_direct_max_bytes=0)" "$(co_line 1)"
# The GPU presets carry the engines' custom all-reduce limit (vLLM's 8 MiB).
check "physical: the run summary names the size below which collectives go direct (h100's preset: 8 MiB)" \
    sh -c '[ "$1" = "  collectives   ring: 4000 ns a latency step + 2500 ns a phase (ici_latency_ns, collective_base_ns); direct up to 8388608 bytes (collective_direct_max_bytes)" ] &&
           [ "$2" = "  collectives   ring: 4000 ns a latency step + 2500 ns a phase (ici_latency_ns, collective_base_ns); direct up to 4096 bytes (collective_direct_max_bytes)" ]' _ \
    "$(co_line 8)" "$(co_line 8 --set collective_direct_max_bytes=4096)"
expect_fail "physical: collective_algorithm takes ring, direct or tree" '"collective_algorithm"' \
    $NPUSIM op all-reduce -m 1024 -c h100 --configs "$CONFIGS" --set collective_algorithm=star
expect_fail "physical: a negative collective_direct_max_bytes is refused, naming it" '"collective_direct_max_bytes"' \
    $NPUSIM op all-reduce -m 1024 -c h100 --configs "$CONFIGS" --set collective_direct_max_bytes=-1
# Grouped-query attention in decode (model field decode_kv_shared): a kernel
# that reads the K/V cache once per query head (false) reads llama3-8b's 8
# K/V heads 4 times over. At the roofline, batch 16, 2048 + 64 tokens: the
# cache is 32 layers x 8 heads x 128 x 2 (K, V) x 2 bytes = 131072 bytes a
# token, 2080.5 tokens a step on average, so each step reads 3 x 16 x 131072
# x 2080.5 bytes more: 3.907 ms at 3350 GB/s (within 1%: the decode steps'
# lengths are grouped). MHA (gpt-j-6b) and the neusim profile do not move.
kv_tpot() { m=$1; shift; rm -rf "$PH/kv"
    $NPUSIM run --configs "$CONFIGS" -m "$m" -c h100 -b 16 --set input_seqlen=2048 --set output_seqlen=64 \
        --no-energy -o "$PH/kv" "$@" >/dev/null 2>&1 && jnum "$(ls "$PH"/kv/*_decode.json)" TPOT_ms_request; }
check "physical: decode_kv_shared=false reads a GQA cache once per query head (llama3-8b: +3.907 ms a step), not MHA's" \
    awk -v a="$(kv_tpot llama3-8b $ROOFLINE)" -v b="$(kv_tpot llama3-8b $ROOFLINE --set decode_kv_shared=false)" \
        -v c="$(kv_tpot gpt-j-6b)" -v d="$(kv_tpot gpt-j-6b --set decode_kv_shared=false)" \
        -v e="$(kv_tpot llama3-8b --profile neusim)" -v f="$(kv_tpot llama3-8b --profile neusim --set decode_kv_shared=false)" \
        'BEGIN { x = b - a - 3.9073; exit !(a > 0 && x * x < (0.01 * 3.9073) ^ 2 && c > 0 && c == d && e > 0 && e == f) }'
expect_fail "physical: decode_kv_shared takes true or false" '"decode_kv_shared"' \
    $NPUSIM run --configs "$CONFIGS" -m llama3-8b -c h100 --set decode_kv_shared=maybe -o "$PH/kvbad"
no_files "physical: nothing written for a bad decode_kv_shared" "$PH/kvbad"
# A prefix cache's hit (model field cached_prompt_tokens): prefill computes
# the prompt's uncached tokens, which attend to the whole prompt, and decode
# is unchanged. llama3-8b on h100, batch 16, 2048 + 64 tokens, 2032 cached:
# the first token costs more than a 16-token prompt's (its queries see 2048
# keys, not 16) and far less than the whole prompt's; TPOT is the same.
cp_run() { _cpn=$1; shift; prun "$_cpn" -m llama3-8b -c h100 -b 16 --set output_seqlen=64 --no-energy "$@"; }
cp_run cp_full --set input_seqlen=2048
cp_run cp_hit --set input_seqlen=2048 --set cached_prompt_tokens=2032
cp_run cp_short --set input_seqlen=16
check "physical: cached_prompt_tokens 2032 of 2048: TTFT $(ttft cp_hit) s between a 16-token prompt's ($(ttft cp_short)) and a tenth of the whole one's ($(ttft cp_full)); TPOT unchanged" \
    awk -v h="$(ttft cp_hit)" -v s="$(ttft cp_short)" -v f="$(ttft cp_full)" -v a="$(tpot cp_hit)" -v b="$(tpot cp_full)" \
        'BEGIN { exit !(s > 0 && s < h && h < f / 10 && a > 0 && a == b) }'
check "physical: the run says how much of each prompt was cached" grep -q '2032 of each prompt cached, prefill computes 16' "$PH/cp_hit.log"
expect_fail "physical: cached_prompt_tokens must leave prefill a token" '"cached_prompt_tokens": expected fewer than input_seqlen 2048' \
    $NPUSIM run --configs "$CONFIGS" -m llama3-8b -c h100 --set input_seqlen=2048 --set cached_prompt_tokens=2048 -o "$PH/cpbad"
no_files "physical: nothing written for a whole prompt cached" "$PH/cpbad"
expect_fail "physical: training has no prefix cache" '"cached_prompt_tokens": 8, but LLM training has no prefix cache' \
    $NPUSIM run --configs "$CONFIGS" -m llama3-8b -c h100 -w training --set cached_prompt_tokens=8 -o "$PH/cpbad"
expect_fail "physical: the serving engine has no prefix cache" '"cached_prompt_tokens" 8: the serving engine has no prefix cache' \
    $NPUSIM serving --configs "$CONFIGS" -m llama3-8b -c h100 --rate 1 --requests 4 --set cached_prompt_tokens=8 -o "$PH/cpbad"
no_files "physical: nothing written by the refused training and serving runs" "$PH/cpbad"
