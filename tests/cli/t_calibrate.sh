# Sourced by tests/cli/run.sh: `npusim calibrate`. Synthetic measurements
# made from npusim's own roofline times at known factors, t = t0 + t / e:
# gemm bf16 at e 0.8 and t0 5 us, gemv bf16 at e 0.9 and t0 3 us must come
# back within 1%; with +-4% noise, within the noise; and the calibrated chip
# then validates its rows within 1% (MAPE) where the roofline misses by 30%.
CA="$T/calibrate"
mkdir -p "$CA"
roof() { $NPUSIM op --configs $CONFIGS --json "$@" -c h100 $ROOFLINE | sed -n 's/.*"time_us":\([^,]*\),.*/\1/p'; }
{
    echo "op,dtype,m,n,k,time_us"
    i=0
    for s in "512 512 512" "1024 1024 1024" "2048 2048 2048" "4096 4096 4096" "8192 8192 8192" "1024 4096 4096" \
             "4096 1024 8192"; do
        set -- $s
        echo "gemm,bf16,$1,$2,$3,$(awk -v t="$(roof gemm --m $1 --n $2 --k $3)" 'BEGIN { printf "%.6f", 5 + t / 0.8 }')"
    done
    for s in "4096 4096" "8192 8192" "16384 4096" "4096 14336"; do
        set -- $s
        echo "gemv,bf16,,$1,$2,$(awk -v t="$(roof gemv --n $1 --k $2)" 'BEGIN { printf "%.6f", 3 + t / 0.9 }')"
    done
} >"$CA/syn.csv"
# the same with a deterministic +-4% pattern
awk -F, 'NR == 1 { print; next } { f = (NR % 2 ? 1.04 : 0.96); $6 = sprintf("%.6f", $6 * f); print }' OFS=, \
    "$CA/syn.csv" >"$CA/noisy.csv"
fit() { awk -v c="$2" '$1 == c { print $4, $5 }' "$1"; }
check "calibrate: recovers gemm e 0.8 and t0 5 us, gemv e 0.9 and t0 3 us within 1%" sh -c "
  $NPUSIM calibrate --configs $CONFIGS -c h100 $ROOFLINE '$CA/syn.csv' -o '$CA/cal.json' --report '$CA/cal.md' >'$CA/fit' &&
  awk '\$1 == \"gemm\" && !sg++ { g = (\$4 > 0.792 && \$4 < 0.808 && \$5 > 4.95 && \$5 < 5.05) }
       \$1 == \"gemv\" && !sv++ { v = (\$4 > 0.891 && \$4 < 0.909 && \$5 > 2.97 && \$5 < 3.03) } END { exit !(g && v) }' '$CA/fit'"
check "calibrate: the calibrated chip validates its rows within 1% (the roofline: over 30%)" sh -c "
  $NPUSIM validate --configs $CONFIGS -c '$CA/cal.json' '$CA/syn.csv' --json '$CA/after.json' >/dev/null &&
  $NPUSIM validate --configs $CONFIGS -c h100 $ROOFLINE '$CA/syn.csv' --json '$CA/before.json' >/dev/null &&
  a=\$(tr -d ' \t\n' <'$CA/after.json' | sed -n 's/.*\"overall\":{\"count\":[^,]*,\"mape_pct\":\([^,]*\),.*/\1/p') &&
  b=\$(tr -d ' \t\n' <'$CA/before.json' | sed -n 's/.*\"overall\":{\"count\":[^,]*,\"mape_pct\":\([^,]*\),.*/\1/p') &&
  awk -v a=\"\$a\" -v b=\"\$b\" 'BEGIN { exit !(a < 1 && b > 30) }'"
check "calibrate: noisy (+-4%) measurements give e within 5% of 0.8 and 0.9 (the fit sees 7 and 4 rows)" sh -c "
  $NPUSIM calibrate --configs $CONFIGS -c h100 $ROOFLINE '$CA/noisy.csv' -o '$CA/noisy.json' >'$CA/nfit' &&
  awk '\$1 == \"gemm\" && !sg++ { g = (\$4 > 0.76 && \$4 < 0.84) } \$1 == \"gemv\" && !sv++ { v = (\$4 > 0.855 && \$4 < 0.945) }
       END { exit !(g && v) }' '$CA/nfit'"
check "calibrate: held out (10 x 5-fold, seeded), exact rows within 2% (a fold may leave gemv 2 rows: e alone), noisy ones below a third of the roofline's error" sh -c "
  grep -q '^held out (10 x 5-fold cross-validation, seed' '$CA/fit' &&
  awk '\$1 == \"overall\" { sub(/%/, \"\", \$6); exit !(\$6 + 0 < 2) }' '$CA/fit' &&
  awk '\$1 == \"overall\" { sub(/%/, \"\", \$4); sub(/%/, \"\", \$6); exit !(\$6 + 0 < \$4 / 3) }' '$CA/nfit'"
check "calibrate: says what it wrote and how to use it" sh -c "
  grep -qx 'npusim calibrate: wrote $CA/cal.json and $CA/cal.md' '$CA/fit' && grep -q '^use it with: npusim run -c $CA/cal.json' '$CA/fit'"
check "calibrate: the calibrated chip runs a model" $NPUSIM run --configs $CONFIGS -c "$CA/cal.json" -o "$CA/run"
check "calibrate: the report names the sources and the fits" sh -c "
  grep -q 'syn.csv' '$CA/cal.md' && grep -q '^| gemm | bf16 | 7 | 0.8000 | 5.000 |' '$CA/cal.md'"
check "calibrate --help" sh -c "$NPUSIM calibrate --help | grep -q 'usage: npusim calibrate'"
expect_fail "calibrate: -o is required" 'expected -o CALIBRATED.json' $NPUSIM calibrate --configs $CONFIGS -c h100 $ROOFLINE "$CA/syn.csv"
expect_fail "calibrate: not under the reference's profile" 'has no kernel efficiencies' \
    $NPUSIM calibrate --configs $CONFIGS --profile neusim -c h100 $ROOFLINE "$CA/syn.csv" -o "$CA/x.json"
printf 'op,dtype,m,n,k\ngemm,bf16,64,64,64\n' >"$CA/notime.csv"
expect_fail "calibrate: a row without a time names its line" 'notime.csv: line 2: column "time_us"' \
    $NPUSIM calibrate --configs $CONFIGS -c h100 $ROOFLINE "$CA/notime.csv" -o "$CA/y.json"
check "calibrate: nothing written on a bad row" test ! -e "$CA/y.json"
# The saturating curve: gemm bf16 at e 0.7, n_half 2e8 multiply-accumulates
# and t0 4 us (t = 4 + x / (0.7 n / (n + 2e8))): it fits better than the
# line, so it is chosen, and its three figures come back within 1%; the
# chip then holds kernel_efficiency.gemm.n_half.
{
    echo "op,dtype,m,n,k,time_us"
    for s in "256 256 256" "512 512 512" "1024 1024 1024" "2048 2048 2048" "4096 4096 4096" "512 512 4096" \
             "1024 4096 4096" "8192 8192 8192" "256 1024 512"; do
        set -- $s
        echo "gemm,bf16,$1,$2,$3,$(awk -v t="$(roof gemm --m $1 --n $2 --k $3)" -v n="$(($1 * $2 * $3))" \
            'BEGIN { printf "%.6f", 4 + t / (0.7 * n / (n + 2e8)) }')"
    done
} >"$CA/sat.csv"
check "calibrate: the saturating curve recovered (e 0.7, n_half 2e8, t0 4 us within 1%) where it fits better" sh -c "
  $NPUSIM calibrate --configs $CONFIGS -c h100 $ROOFLINE '$CA/sat.csv' -o '$CA/sat.json' >'$CA/sfit' &&
  awk '\$1 == \"gemm\" && !sg++ { ok = (\$7 == \"saturating\" && \$4 > 0.693 && \$4 < 0.707 && \$5 > 3.96 && \$5 < 4.04 &&
                              \$6 > 1.98e8 && \$6 < 2.02e8) } END { exit !ok }' '$CA/sfit' &&
  grep -q '\"n_half\":.*2' '$CA/sat.json'"
# Published per-operator measurements (bench/public/ops_a100_llmcompass.csv:
# LLMCompass's real A100 GEMM, softmax, layernorm and GeLU, fp16): calibrated
# on alternate rows, validated on the others, both ways, under 10% MAPE on
# the rows the fit never saw (the roofline alone: over 60%).
PUB=bench/public/ops_a100_llmcompass.csv
{ head -1 $PUB; tail -n +2 $PUB | awk 'NR % 2 == 1'; } >"$CA/pub_a.csv"
{ head -1 $PUB; tail -n +2 $PUB | awk 'NR % 2 == 0'; } >"$CA/pub_b.csv"
check "calibrate: published A100 operators, calibrated on half, validate the other half under 10% (both ways)" sh -c "
  $NPUSIM calibrate --configs $CONFIGS -c a100 $ROOFLINE '$CA/pub_a.csv' -o '$CA/pub_cal_a.json' >/dev/null &&
  $NPUSIM calibrate --configs $CONFIGS -c a100 $ROOFLINE '$CA/pub_b.csv' -o '$CA/pub_cal_b.json' >/dev/null &&
  $NPUSIM validate --configs $CONFIGS -c '$CA/pub_cal_a.json' '$CA/pub_b.csv' --json '$CA/pub_vb.json' >/dev/null &&
  $NPUSIM validate --configs $CONFIGS -c '$CA/pub_cal_b.json' '$CA/pub_a.csv' --json '$CA/pub_va.json' >/dev/null &&
  $NPUSIM validate --configs $CONFIGS -c a100 $ROOFLINE '$PUB' --json '$CA/pub_v0.json' >/dev/null &&
  a=\$(tr -d ' \t\n' <'$CA/pub_va.json' | sed -n 's/.*\"overall\":{\"count\":[^,]*,\"mape_pct\":\([^,]*\),.*/\1/p') &&
  b=\$(tr -d ' \t\n' <'$CA/pub_vb.json' | sed -n 's/.*\"overall\":{\"count\":[^,]*,\"mape_pct\":\([^,]*\),.*/\1/p') &&
  r=\$(tr -d ' \t\n' <'$CA/pub_v0.json' | sed -n 's/.*\"overall\":{\"count\":[^,]*,\"mape_pct\":\([^,]*\),.*/\1/p') &&
  awk -v a=\"\$a\" -v b=\"\$b\" -v r=\"\$r\" 'BEGIN { exit !(a < 10 && b < 10 && r > 60) }'"
