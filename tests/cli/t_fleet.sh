# Fleet CLI tests (sourced by tests/cli/run.sh: uses check, expect_fail, no_files, $NPUSIM, $CONFIGS, $T).
check "fleet: example fleet writes csv, json and a table" sh -c "
  $NPUSIM fleet --profile neusim --configs $CONFIGS --out '$T/fl' examples/fleet.json >'$T/fl.txt' &&
  test -s '$T/fl/fleet.csv' && test -s '$T/fl/fleet.json' && grep -q '^total' '$T/fl.txt' &&
  grep -q 'chat-llama3-8b' '$T/fl/fleet.csv'"
check "fleet: deterministic" sh -c "
  $NPUSIM fleet --profile neusim --configs $CONFIGS --out '$T/fl2' examples/fleet.json >/dev/null && cmp '$T/fl/fleet.json' '$T/fl2/fleet.json'"
mkfleet() { printf '{"deployments": [%s]}\n' "$2" >"$T/$1.json"; }
mkfleet badchip '{"model": "llama3-8b", "chip": "tpuv99", "num_chips": 1}'
expect_fail "fleet: unknown chip" 'deployments\[0\].*unknown chip "tpuv99"' $NPUSIM fleet --profile neusim --configs $CONFIGS --out "$T/fo1" "$T/badchip.json"
no_files "fleet: unknown chip leaves no output" "$T/fo1"
mkfleet negci '{"model": "llama3-8b", "chip": "tpuv5p", "carbon_intensity_kgCO2_per_kWh": -1}'
expect_fail "fleet: negative carbon intensity" 'field "carbon_intensity_kgCO2_per_kWh' $NPUSIM fleet --profile neusim --configs $CONFIGS --out "$T/fo2" "$T/negci.json"
mkfleet lowpue '{"model": "llama3-8b", "chip": "tpuv5p", "pue": 0.5}'
expect_fail "fleet: PUE below 1" 'field "pue' $NPUSIM fleet --profile neusim --configs $CONFIGS --out "$T/fo2" "$T/lowpue.json"
mkfleet twoloads '{"model": "llama3-8b", "chip": "tpuv5p", "load": {"tokens_per_sec": 5, "duty_cycle": 0.5}}'
expect_fail "fleet: two loads" 'field "load"' $NPUSIM fleet --profile neusim --configs $CONFIGS --out "$T/fo2" "$T/twoloads.json"
mkfleet badunit '{"model": "dlrm-s", "chip": "tpuv5p", "num_chips": 4, "batch_size": 64, "load": {"tokens_per_sec": 5}}'
expect_fail "fleet: tokens for a DLRM" 'measured in requests' $NPUSIM fleet --profile neusim --configs $CONFIGS --out "$T/fo2" "$T/badunit.json"
printf '{"deployments": [' >"$T/broken.json"
expect_fail "fleet: malformed fleet file" 'broken.json:1: invalid JSON' $NPUSIM fleet --profile neusim --configs $CONFIGS --out "$T/fo2" "$T/broken.json"
printf '{"deployments": []}' >"$T/empty.json"
expect_fail "fleet: no deployments" 'non-empty list' $NPUSIM fleet --profile neusim --configs $CONFIGS --out "$T/fo2" "$T/empty.json"
no_files "fleet: bad fleets leave no output" "$T/fo2"
# "best" parallelism picks among the configurations that fit in memory: on
# 2 x H100, llama3-70b at batch 64 needs 125.7 GiB per chip at tp 2 (its
# fastest layout) and 105.7 at pp 2, so nothing fits and the fleet says so;
# at batch 8 it picks a layout that fits (73.2 GiB at tp 2).
mkfleet oombest '{"model": "llama3-70b", "chip": "h100", "num_chips": 2, "batch_size": 64}'
expect_fail "fleet: best parallelism never picks a configuration out of memory" \
    'no valid configuration of llama3-70b on 2 x h100 with batch 64: out of memory (1[02][0-9].[0-9] GiB per chip' \
    $NPUSIM fleet --configs $CONFIGS --out "$T/fo3" "$T/oombest.json"
no_files "fleet: nothing written when no configuration fits" "$T/fo3"
mkfleet fitbest '{"model": "llama3-70b", "chip": "h100", "num_chips": 2, "batch_size": 8}'
check "fleet: best parallelism picks a configuration that fits" sh -c "
  $NPUSIM fleet --configs $CONFIGS --out '$T/fo4' '$T/fitbest.json' >/dev/null &&
  grep -q ',dp1-tp2-pp1-dpdcn1-tpdcn1-ppdcn1-bs8,' '$T/fo4/fleet.csv'"
