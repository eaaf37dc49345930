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
# A site field that is out of range is named cleanly, with what it must hold (not the message text in quotes).
mkfleet zerolife '{"model": "llama3-8b", "chip": "tpuv5p", "lifetime_years": 0}'
expect_fail "fleet: lifetime_years 0 names the field" 'zerolife.json: deployments\[0\] field "lifetime_years": expected a positive number of years$' \
  $NPUSIM fleet --configs $CONFIGS --out "$T/fo3" "$T/zerolife.json"
printf '{"defaults": {"lifetime_years": 0}, "deployments": [{"model": "llama3-8b", "chip": "tpuv5p"}]}\n' >"$T/zerolifedef.json"
expect_fail "fleet: lifetime_years 0 in defaults names the field" 'zerolifedef.json: defaults field "lifetime_years": expected a positive number of years$' \
  $NPUSIM fleet --configs $CONFIGS --out "$T/fo3" "$T/zerolifedef.json"
no_files "fleet: a bad lifetime leaves no output" "$T/fo3"

# One set of carbon defaults: what the fleet file does not say comes from the
# system config (here one with its own values), and the command says so.
mkdir -p "$T/fcfg/systems"
printf '{"PUE": 1.2, "carbon_intensity_kgCO2_per_kWh": 0.2, "lifetime_years": 2, "duty_cycle": 0.5}\n' >"$T/fcfg/systems/system_config.json"
mkfleet dflt '{"name": "a", "model": "llama3-8b", "chip": "tpuv5p", "batch_size": 8, "parallelism": {"tp": 1}},
  {"name": "b", "model": "llama3-8b", "chip": "tpuv5p", "batch_size": 8, "parallelism": {"tp": 1}, "lifetime_years": 3, "load": {"duty_cycle": 1}}'
check "fleet: defaults from the system config, the fleet file's own values first; the command names both" sh -c "
  $NPUSIM fleet --configs '$T/fcfg' --out '$T/fd' '$T/dflt.json' >/dev/null 2>'$T/fd.err' &&
  grep -qx 'npusim fleet: carbon defaults from $T/fcfg/systems/system_config.json: 0.2 kgCO2e/kWh, 2 years, duty cycle 0.5, PUE 1.2; the fleet file.s own lifetime_years, load take precedence' '$T/fd.err' &&
  python3 -c \"import json, sys
j = json.load(open(sys.argv[1])); a, b = j['deployments']
assert (a['carbon_intensity_kgCO2_per_kWh'], a['lifetime_years'], a['utilisation'], a['pue']) == (0.2, 2, 0.5, 1.2), a
assert (b['lifetime_years'], b['utilisation'], b['pue']) == (3, 1, 1.2), b
assert j['carbon_defaults'] == {'system': 'system_config', 'carbon_intensity_kgCO2_per_kWh': 0.2, 'lifetime_years': 2, 'duty_cycle': 0.5, 'pue': 1.2}, j['carbon_defaults']
\" '$T/fd/fleet.json'"
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
# A deployment whose parallelism is given and does not fit is marked, never passed off as an answer.
mkfleet oomfixed '{"name": "big", "model": "llama3-70b", "chip": "h100", "num_chips": 2, "batch_size": 64, "parallelism": {"tp": 2}}'
check "fleet: a given configuration out of memory is marked in the table, csv, json and a warning" sh -c "
  $NPUSIM fleet --configs $CONFIGS --out '$T/foom' '$T/oomfixed.json' >'$T/foom.txt' 2>'$T/foom.err' &&
  grep -q '^big .*(does not fit in memory)' '$T/foom.txt' && grep -q 'warning: \"big\" does not fit in memory: 125.7 GiB' '$T/foom.err' &&
  head -n 1 '$T/foom/fleet.csv' | grep -q ',memory_GiB,out_of_memory' && sed -n 2p '$T/foom/fleet.csv' | grep -q ',125.707,true' &&
  grep -q '\"out_of_memory\": true' '$T/foom/fleet.json' && grep -q 'npusim fleet: wrote $T/foom/fleet.csv and $T/foom/fleet.json' '$T/foom.err'"
check "fleet: the example's deployments all fit (out_of_memory false)" sh -c "
  grep -q ',false.\$' '$T/fl/fleet.csv' && ! grep -q ',true.\$' '$T/fl/fleet.csv' && ! grep -q 'does not fit' '$T/fl.txt'"
