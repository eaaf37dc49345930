# carbon / slo CLI tests (sourced by tests/cli/run.sh: uses NPUSIM, T, check,
# expect_fail, no_files). tests/golden/carbon holds a gzip subset of the
# reference: energy stats (raw_None), NeuSim's carbon outputs for them
# (carbon_NoPG, two carbon_Full files) and the SLO analysis of that subset
# (whose scale-1 entries equal NeuSim's full-tree ones). Each expected file
# must be reproduced byte for byte; SLO stats-file paths are compared from
# the tree's top folder on (NeuSim writes them absolute).
CG=tests/golden/carbon
CT="$T/ctree"
NPA=$(cd "$(dirname "$NPUSIM")" && pwd)/$(basename "$NPUSIM")   # for runs inside $CT
(cd "$CG" && find raw_None -name '*.gz') | while read -r f; do
    mkdir -p "$CT/$(dirname "$f")" && gzip -dc "$CG/$f" >"$CT/${f%.gz}"
done
CARGS="--configs configs --models llama3-8b,dit-xl --versions 4,5p --workload inference --ci 0.0624 --util 0.6 --lifetime 1"
check "carbon --help" sh -c "$NPUSIM carbon --profile neusim --help | grep -q 'usage: npusim carbon'"
check "slo --help" sh -c "$NPUSIM slo --profile neusim --help | grep -q 'usage: npusim slo'"
check "carbon NoPG over the golden subset" $NPUSIM carbon --profile neusim --results "$CT/raw_None" $CARGS --pg NoPG --dvfs None
check "carbon Full over the golden subset" $NPUSIM carbon --profile neusim --results "$CT/raw_None" $CARGS --pg Full --dvfs None
check "slo over the golden carbon tree" sh -c "cd '$CT' && $NPA slo --profile neusim --configs configs \
  --results carbon_NoPG/dvfs_None/CI0.0624/UTIL0.6 --out slo_NoPG_None --models llama3-8b --versions 4,5p 2>/dev/null"
CTP=$(cd "$CT" && pwd -P)
for ref in $(cd "$CG" && find carbon_* slo_* -name '*.gz' | sort); do
    rel=${ref%.gz}
    if [ ! -f "$CT/$rel" ]; then no "golden carbon $rel: not produced"; continue; fi
    sed "s|\"$CTP/|\"|" "$CT/$rel" >"$CT/$rel.norm"
    if gzip -dc "$CG/$ref" | cmp -s - "$CT/$rel.norm"; then ok "golden carbon $rel"
    else no "golden carbon $rel differs"; fi
done
# Several intensities and lifetimes: one tree per CI, keys per lifetime.
check "carbon: two intensities, lifetimes 1,3 (3 years has 3x the energy)" sh -c "
  $NPUSIM carbon --profile neusim --results '$CT/raw_None' --models dit-xl --versions 5p --pg NoPG --ci 0.1,0.2 --util 1 --lifetime 1,3 2>/dev/null &&
  f=dit-xl/dp1-tp1-pp1-dpdcn1-tpdcn1-ppdcn1-bs1/inference-v5p.json &&
  test -s '$CT/carbon_NoPG/dvfs_None/CI0.1/UTIL1.0/'\$f && test -s '$CT/carbon_NoPG/dvfs_None/CI0.2/UTIL1.0/'\$f &&
  python3 -c \"import json,sys; d=json.load(open(sys.argv[1]))['carbon_and_energy_stats']; \
a=d['1']['avg_total_energy_consumption_kWh']; b=d['3']['avg_total_energy_consumption_kWh']; assert abs(b-3*a)<1e-9*b, (a,b)\" \
  '$CT/carbon_NoPG/dvfs_None/CI0.2/UTIL1.0/'\$f"
check "slo: unknown model class and a model without results are skipped with a warning" sh -c "
  cd '$CT' && $NPA slo --profile neusim --results carbon_NoPG/dvfs_None/CI0.0624/UTIL0.6 --out slo_skip --models resnet,gligen,llama3-8b --versions 5p 2>err &&
  grep -q 'resnet: unknown model class' err && grep -q 'gligen' err && test -s slo_skip/llama3-8b/inference-decode.json && test ! -e slo_skip/gligen"

# Files are analysed on threads; the tree is the same bytes for every -j.
check "carbon: -j 1 and -j 2 write identical trees" sh -c "
  mkdir -p '$T/cj1' '$T/cj2' && cp -R '$CT/raw_None' '$T/cj1/' && cp -R '$CT/raw_None' '$T/cj2/' &&
  $NPUSIM carbon --profile neusim -j 1 --results '$T/cj1/raw_None' $CARGS --pg NoPG 2>/dev/null &&
  $NPUSIM carbon --profile neusim -j 2 --results '$T/cj2/raw_None' $CARGS --pg NoPG 2>/dev/null &&
  test -n \"\$(find '$T/cj1/carbon_NoPG' -name '*.json')\" && diff -r '$T/cj1/carbon_NoPG' '$T/cj2/carbon_NoPG'"
# Results are staged in a private folder: nothing of it stays after a run.
check "carbon: no staging folder left after a run" sh -c "! { ls -A '$T/cj1'; ls -A '$T/cj2'; } | grep '[.]tmp[.]'"
# A new carbon_<PG>/dvfs_<D> is the staging folder renamed: its folders must
# have mkdir's modes (0777 less the umask), not a private temporary's 0700.
check "carbon: a new dvfs folder is published whole, with the umask's modes" sh -c "
  umask 027 && mkdir -p '$T/cj3' && cp -R '$CT/raw_None' '$T/cj3/' &&
  $NPUSIM carbon --profile neusim --results '$T/cj3/raw_None' $CARGS --pg NoPG 2>/dev/null &&
  for d in carbon_NoPG carbon_NoPG/dvfs_None carbon_NoPG/dvfs_None/CI0.0624 carbon_NoPG/dvfs_None/CI0.0624/UTIL0.6/llama3-8b; do
    test \"\$(stat -c %a '$T/cj3/'\$d)\" = 750 || { echo \"\$d: \$(stat -c %a '$T/cj3/'\$d)\"; exit 1; }; done &&
  diff -r '$T/cj1/carbon_NoPG' '$T/cj3/carbon_NoPG'"
# Into an existing dvfs folder the files are moved one by one: the new
# intensity's files equal a fresh run's, the earlier ones stay.
check "carbon: a second intensity into an existing dvfs folder" sh -c "
  $NPUSIM carbon --profile neusim --results '$T/cj3/raw_None' $(echo "$CARGS" | sed 's/--ci 0.0624/--ci 0.1/') --pg NoPG 2>/dev/null &&
  mkdir -p '$T/cj4' && cp -R '$CT/raw_None' '$T/cj4/' &&
  $NPUSIM carbon --profile neusim --results '$T/cj4/raw_None' $(echo "$CARGS" | sed 's/--ci 0.0624/--ci 0.1/') --pg NoPG 2>/dev/null &&
  diff -r '$T/cj4/carbon_NoPG/dvfs_None/CI0.1' '$T/cj3/carbon_NoPG/dvfs_None/CI0.1' &&
  diff -r '$T/cj1/carbon_NoPG/dvfs_None/CI0.0624' '$T/cj3/carbon_NoPG/dvfs_None/CI0.0624' &&
  ! ls -A '$T/cj3' | grep '[.]tmp[.]'"
# Files are listed one (model, version, phase) at a time while the first
# ones are analysed: a model without results, put between the others, is
# skipped with a warning and changes nothing else.
check "carbon: a model without results is skipped with a warning, the rest as without it" sh -c "
  mkdir -p '$T/cj6' && cp -R '$CT/raw_None' '$T/cj6/' &&
  $NPUSIM carbon --profile neusim -j 2 --results '$T/cj6/raw_None' --models llama3-8b,nosuch,dit-xl --versions 4,5p --workload inference \
    --ci 0.0624 --util 0.6 --lifetime 1 --pg NoPG 2>'$T/cj6/err' &&
  test \"\$(grep -c 'nosuch: cannot read the results folder.*model nosuch skipped' '$T/cj6/err')\" = 1 &&
  diff -r '$T/cj1/carbon_NoPG' '$T/cj6/carbon_NoPG'"
check "carbon: training covers LLMs only: other models are skipped with a warning" sh -c "
  $NPUSIM carbon --profile neusim --results '$T/cj6/raw_None' --models dit-xl,llama3-8b --versions 5p --workload training \
    --pg NoPG 2>&1 | grep -q 'dit-xl: training carbon analysis covers LLMs only; skipped'"
# Repeated names and intensities would name the same files twice.
check "carbon: repeated models, versions and intensities are written once" sh -c "
  mkdir -p '$T/cj5' && cp -R '$CT/raw_None' '$T/cj5/' &&
  $NPUSIM carbon --profile neusim --results '$T/cj5/raw_None' --models llama3-8b,dit-xl,llama3-8b --versions 5p,4,5p --ci 0.0624,0.06240 \
    --util 0.6 --lifetime 1 --pg NoPG 2>'$T/cj5/err' &&
  n=\$(find '$T/cj1/carbon_NoPG' -name '*.json' | wc -l) && grep -q \": \$n files written\" '$T/cj5/err' &&
  diff -r '$T/cj1/carbon_NoPG' '$T/cj5/carbon_NoPG'"

# --- bad inputs: exit 2, a clear message, nothing written ---
expect_fail "carbon: bad -j" '-j "0"' $NPUSIM carbon --profile neusim -j 0 --results "$CT/raw_None" $CARGS --pg NoPG
expect_fail "carbon: negative carbon intensity" '--ci "-0.1"' $NPUSIM carbon --profile neusim --results "$CT/raw_None" $CARGS --pg NoPG --ci -0.1
expect_fail "carbon: utilisation above 1" '--util "1.5"' $NPUSIM carbon --profile neusim --results "$CT/raw_None" $CARGS --pg NoPG --util 1.5
expect_fail "carbon: zero duty cycle" 'does no work' $NPUSIM carbon --profile neusim --results "$CT/raw_None" $CARGS --pg NoPG --util 0
expect_fail "carbon: zero lifetime" '--lifetime "0"' $NPUSIM carbon --profile neusim --results "$CT/raw_None" $CARGS --pg NoPG --lifetime 0
expect_fail "carbon: fractional lifetime" '--lifetime "1.5"' $NPUSIM carbon --profile neusim --results "$CT/raw_None" $CARGS --pg NoPG --lifetime 1.5
expect_fail "carbon: missing results folder" 'no such folder' $NPUSIM carbon --profile neusim --results "$T/nope/raw_None" $CARGS --pg NoPG
expect_fail "carbon: --pg is required" 'required' $NPUSIM carbon --profile neusim --results "$CT/raw_None" $CARGS
expect_fail "slo: missing results folder" 'no such folder' $NPUSIM slo --profile neusim --results "$T/nope" --out "$T/so" --models llama3-8b --versions 5p
no_files "slo: missing results folder leaves no output" "$T/so"
CB="$T/cbad"
mkdir -p "$CB" && cp -R "$CT/raw_None" "$CB/"
expect_fail "carbon: unknown strategy names the file" 'has no strategy "Turbo"' \
  $NPUSIM carbon --profile neusim --results "$CB/raw_None" $CARGS --pg Turbo
no_files "carbon: unknown strategy leaves no output" "$CB/carbon_Turbo"
bad=$CB/raw_None/llama3-8b/dp1-tp4-pp1-dpdcn1-tpdcn1-ppdcn1-bs1/inference-v5p_decode.json
sed -i 's/"total_energy_J"/"total_energy_X"/' "$bad"
expect_fail "carbon: missing field names file and field" 'inference-v5p_decode.json: field "energy_stats.NoPG.total_energy_J" is missing' \
  $NPUSIM carbon --profile neusim --results "$CB/raw_None" $CARGS --pg NoPG
no_files "carbon: a bad file leaves no output at all" "$CB/carbon_NoPG"
sed -i 's/"total_energy_X"/"total_energy_J"/; 0,/"peak_power_W": [0-9.e+-]*/s//"peak_power_W": "high"/' "$bad"
expect_fail "carbon: a non-number names its whole path" 'inference-v5p_decode.json: field "energy_stats.NoPG.peak_power_W": expected a number' \
  $NPUSIM carbon --profile neusim --results "$CB/raw_None" $CARGS --pg NoPG
sed -i 's/"peak_power_W": "high"/"peak_power_W": 1.5/; s/"throughput_tokens_per_sec": [0-9.e+-]*/"throughput_tokens_per_sec": null/' "$bad"
expect_fail "carbon: a top-level non-number names its key" 'inference-v5p_decode.json: field "throughput_tokens_per_sec": expected a number' \
  $NPUSIM carbon --profile neusim --results "$CB/raw_None" $CARGS --pg NoPG
printf '{ "sim_config": \n' >"$bad"
expect_fail "carbon: invalid JSON names the file" 'inference-v5p_decode.json:2: invalid JSON' \
  $NPUSIM carbon --profile neusim --results "$CB/raw_None" $CARGS --pg NoPG
no_files "carbon: invalid JSON leaves no output" "$CB/carbon_NoPG"
check "carbon: failures leave no staging folder" sh -c "! ls -A '$CB' | grep '[.]tmp[.]'"

# --- one set of defaults: without --ci/--util/--lifetime, the system config's (as sweep and fleet) ---
check "carbon: defaults from the system config (0.5 kgCO2e/kWh, duty cycle 0.6, 4 years), said on stderr" sh -c "
  mkdir -p '$T/cd1' && cp -R '$CT/raw_None' '$T/cd1/' &&
  $NPUSIM carbon --configs configs --results '$T/cd1/raw_None' --models llama3-8b --versions 5p --pg NoPG 2>'$T/cd1/err' &&
  grep -qx 'npusim carbon: carbon defaults from configs/systems/system_config.json: 0.5 kgCO2e/kWh, 4 years, duty cycle 0.6' '$T/cd1/err' &&
  f=\$(find '$T/cd1/carbon_NoPG/dvfs_None/CI0.5/UTIL0.6' -name '*_decode.json' | head -n 1) && test -n \"\$f\" &&
  python3 -c \"import json, sys; d = json.load(open(sys.argv[1]))['carbon_and_energy_stats']; assert list(d) == ['4'], list(d)\" \"\$f\""
check "carbon: the neusim profile keeps the reference script's 0.1352, 0.6 and 1 year, and says so" sh -c "
  $NPUSIM carbon --profile neusim --configs configs --results '$T/cd1/raw_None' --models llama3-8b --versions 5p --pg NoPG 2>'$T/cd1/err2' &&
  grep -qx \"npusim carbon: carbon defaults from the reference's carbon script (--profile neusim): 0.1352 kgCO2e/kWh, 1 year, duty cycle 0.6\" '$T/cd1/err2' &&
  test -n \"\$(find '$T/cd1/carbon_NoPG/dvfs_None/CI0.1352/UTIL0.6' -name '*_decode.json')\""
mkdir -p "$T/ccfg/systems" "$T/ccfg2/systems"
printf '{"PUE": 1.2, "carbon_intensity_kgCO2_per_kWh": 0.3, "lifetime_years": 3, "duty_cycle": 0.5}\n' >"$T/ccfg/systems/system_config.json"
check "carbon: a system config of its own sets the defaults; an option wins and is named" sh -c "
  $NPUSIM carbon --configs '$T/ccfg' --results '$T/cd1/raw_None' --models llama3-8b --versions 5p --pg NoPG --lifetime 2 2>'$T/cd1/err3' &&
  grep -qx 'npusim carbon: carbon defaults from $T/ccfg/systems/system_config.json: 0.3 kgCO2e/kWh, 2 years (--lifetime), duty cycle 0.5' '$T/cd1/err3' &&
  test -n \"\$(find '$T/cd1/carbon_NoPG/dvfs_None/CI0.3/UTIL0.5' -name '*_decode.json')\""
printf '{"PUE": 1.2, "carbon_intensity_kgCO2_per_kWh": 0.3, "lifetime_years": 2.5}\n' >"$T/ccfg2/systems/system_config.json"
expect_fail "carbon: a system lifetime that is not whole years names the file and field" \
  'ccfg2/systems/system_config.json: field "lifetime_years" 2.5: carbon needs whole years; give --lifetime' \
  $NPUSIM carbon --configs "$T/ccfg2" --results "$CT/raw_None" --models llama3-8b --versions 5p --pg NoPG
no_files "carbon: ... and writes nothing" "$CT/carbon_NoPG/dvfs_None/CI0.3"

# --- slo: what cannot be analysed ends with exit 2 and a message, nothing written ---
expect_fail "slo: a version no model named has results for is an error" '--versions "6e": no inference results for version 6e of any model named' \
  sh -c "cd '$CT' && exec $NPA slo --results carbon_NoPG/dvfs_None/CI0.0624/UTIL0.6 --out slo_v6e --models llama3-8b --versions 5p,6e"
no_files "slo: ... and writes nothing" "$CT/slo_v6e"
# The reference's scripts skip what has no results, and a suite run call by call (run-suite) goes on:
# --profile neusim keeps that (switch stage_without_results_warns).
check "slo --profile neusim: a version without results is a warning, exit 0, as the reference's script" sh -c "
  cd '$CT' && $NPA slo --profile neusim --results carbon_NoPG/dvfs_None/CI0.0624/UTIL0.6 --out slo_v6e_ref --models llama3-8b --versions 5p,6e 2>'$CT/v6e.err' &&
  grep -q 'warning: no inference results for version 6e of any model named' '$CT/v6e.err'"
mkdir -p "$CT/noresults/llama3-8b"
check "energy --profile neusim: models without results are a warning, exit 0, as the reference's script" sh -c "
  $NPA energy --profile neusim --results '$CT/noresults' --models llama3-8b --versions 5p --workload training --pg NoPG 2>'$CT/etr.err' &&
  grep -q 'warning: no training results for any requested model and version' '$CT/etr.err'"
expect_fail "energy: models without results are an error under the default profile" 'no training results for any model and version named' \
  $NPA energy --results "$CT/noresults" --models llama3-8b --versions 5p --workload training --pg NoPG
SB="$T/sbad"
mkdir -p "$SB" && cp -R "$CT/carbon_NoPG" "$SB/"
sbad=$(find "$SB/carbon_NoPG/dvfs_None/CI0.0624/UTIL0.6/llama3-8b" -name 'inference-v4_decode.json' | head -n 1)
printf '{ "sim_config": {' >"$sbad"
expect_fail "slo: a corrupt statistics file is an error naming it" 'inference-v4_decode.json:1: invalid JSON' \
  $NPUSIM slo --profile neusim --results "$SB/carbon_NoPG/dvfs_None/CI0.0624/UTIL0.6" --out "$SB/slo" --models llama3-8b --versions 4,5p
no_files "slo: ... and writes nothing" "$SB/slo"
# npusim carbon's default lifetime is the system config's (4 years): the SLO
# stage's power efficiency, the same for every lifetime, comes from the first
# one a file has when it has no "1", and the choices are those of lifetime 1.
check "slo: a carbon tree without lifetime 1 gives the choices of one with it" sh -c "
  mkdir -p '$T/cd2' && cp -R '$CT/raw_None' '$T/cd2/' &&
  $NPUSIM carbon --configs configs --results '$T/cd2/raw_None' --models llama3-8b --versions 4,5p --pg NoPG --ci 0.5 --util 0.6 --lifetime 1 2>/dev/null &&
  $NPUSIM carbon --configs configs --results '$T/cd1/raw_None' --models llama3-8b --versions 4,5p --pg NoPG 2>/dev/null &&
  $NPUSIM slo --results '$T/cd1/carbon_NoPG/dvfs_None/CI0.5/UTIL0.6' --out '$T/cd1/slo' --models llama3-8b --versions 4,5p 2>'$T/cd1/slo.err' &&
  $NPUSIM slo --results '$T/cd2/carbon_NoPG/dvfs_None/CI0.5/UTIL0.6' --out '$T/cd2/slo' --models llama3-8b --versions 4,5p 2>/dev/null &&
  ! grep -q warning '$T/cd1/slo.err' && test -s '$T/cd1/slo/llama3-8b/inference-decode.json' && diff -r '$T/cd1/slo' '$T/cd2/slo'"
