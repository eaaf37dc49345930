# CLI tests of the diffusion families (DiT, GLIGEN); sourced by tests/cli/run.sh
# (uses its helpers ok/no/check/expect_fail/no_files and $NPUSIM, $CONFIGS, $T).

# --- run: one CSV and one statistics JSON, a summary ---
check "run dit-xl on tpuv5p" sh -c "$NPUSIM run --profile neusim --configs $CONFIGS -m dit-xl -c tpuv5p --out '$T/dit' | grep -q 'per diffusion step'"
for f in csv json; do
    check "run wrote dit-xl_tpuv5p.$f" test -s "$T/dit/dit-xl_tpuv5p.$f"
done
check "dit at tp 2: the summary energy per request counts both chips, twice the JSON's one-chip share" sh -c "
  $NPUSIM run --configs $CONFIGS -m dit-xl -c tpuv5p --set num_chips=2 --set tensor_parallelism_degree=2 \
    --out '$T/dit2' >'$T/dit2.txt' &&
  python3 - '$T/dit2.txt' '$T/dit2/dit-xl_tpuv5p.json' <<'PY'
import json, re, sys
all_J, chip_J = (float(x) for x in re.search(r'energy +([0-9.e+-]+) J per request over all 2 chips \\(([0-9.e+-]+) J per trace per chip\\)', open(sys.argv[1]).read()).groups())
j = json.load(open(sys.argv[2]))
assert abs(all_J - 2 * j['energy_per_request_J']) <= 1e-5 * all_J and abs(chip_J - j['total_energy_J']) <= 1e-5 * chip_J
PY"
check "dit run JSON has the reference keys and energy" sh -c "grep -q '\"latency_step_sec\"' '$T/dit/dit-xl_tpuv5p.json' && grep -q '\"mem_footprint_GB\": 28.39306640625' '$T/dit/dit-xl_tpuv5p.json' && grep -q '\"total_energy_J\"' '$T/dit/dit-xl_tpuv5p.json'"
check "dit trace is 10 ops counted 28 x 20" sh -c "test \$(tail -n +2 '$T/dit/dit-xl_tpuv5p.csv' | wc -l) -eq 10 && test \$(grep -c ',[MV][XP]U,560,' '$T/dit/dit-xl_tpuv5p.csv') -eq 10"
check "run gligen on tpuv4" sh -c "$NPUSIM run --profile neusim --configs $CONFIGS -m gligen -c tpuv4 --out '$T/gl' >/dev/null && test \$(tail -n +2 '$T/gl/gligen_tpuv4.csv' | wc -l) -eq 634"
check "gligen sim_config keeps the nested sub-configs" sh -c "grep -q '\"spatial_condition_embedder_config\"' '$T/gl/gligen_tpuv4.json' && grep -q '\"num_freqs\": 64' '$T/gl/gligen_tpuv4.json'"
check "gligen tp2 dp2 emits 842 ops" sh -c "test \$($NPUSIM opsgen --profile neusim --configs $CONFIGS -m gligen -c tpuv4 --set num_chips=4 --set tensor_parallelism_degree=2 --set data_parallelism_degree=2 | tail -n +2 | wc -l) -eq 842"
check "pipe opsgen|chipsim|power equals run (dit, pp2)" sh -c "
  $NPUSIM opsgen --profile neusim --configs $CONFIGS -m dit-xl -c tpuv5e --set num_chips=2 --set pipeline_parallelism_degree=2 |
  $NPUSIM chipsim --profile neusim --configs $CONFIGS -c tpuv5e |
  $NPUSIM power --profile neusim --configs $CONFIGS -m dit-xl -c tpuv5e --set num_chips=2 --set pipeline_parallelism_degree=2 --out-dir '$T/dpipe' >/dev/null &&
  $NPUSIM run --profile neusim --configs $CONFIGS -m dit-xl -c tpuv5e --set num_chips=2 --set pipeline_parallelism_degree=2 --out '$T/ddirect' >/dev/null &&
  cmp '$T/dpipe/dit-xl_tpuv5e.csv' '$T/ddirect/dit-xl_tpuv5e.csv' && cmp '$T/dpipe/dit-xl_tpuv5e.json' '$T/ddirect/dit-xl_tpuv5e.json'"
check "sweep gligen enumerates pp 1 only" sh -c "$NPUSIM sweep --profile neusim --configs $CONFIGS --out '$T/gsw' --models gligen --versions 4 --num-chips 4 --batch-sizes 1 --dry-run 2>&1 | grep -q '3 configurations simulated'"
check "sweep dit enumerates every dp x tp x pp" sh -c "$NPUSIM sweep --profile neusim --configs $CONFIGS --out '$T/dsw' --models dit-xl --versions 5p --num-chips 8 --batch-sizes 1 --dry-run 2>&1 | grep -q '10 configurations simulated'"

# --- bad inputs: exit 2, the file and field named, nothing written ---
mkdir -p "$T/badd/models"
sed 's/"noisy_latent_resolution": \[64, 64\]/"noisy_latent_resolution": [60, 64]/' $CONFIGS/models/gligen.json >"$T/badd/models/gligen-odd.json"
expect_fail "gligen latent size three downsamplings cannot halve" 'gligen-odd.json: model field "unet_config.noisy_latent_resolution": expected sizes divisible by 8' \
    $NPUSIM run --profile neusim --configs "$T/badd" -m gligen-odd -c tpuv4 --out "$T/od1"
no_files "odd latent size leaves no output" "$T/od1"
expect_fail "gligen with pp > 1" '--set: model field "pipeline_parallelism_degree": GLIGEN supports only 1' \
    $NPUSIM run --profile neusim --configs $CONFIGS -m gligen -c tpuv4 --set num_chips=2 --set pipeline_parallelism_degree=2 --out "$T/od2"
no_files "gligen pp > 1 leaves no output" "$T/od2"
sed 's/"image_resolution": \[512, 512\]/"image_resolution": [512, 512, 3]/' $CONFIGS/models/gligen.json >"$T/badd/models/gligen-res3.json"
expect_fail "gligen image_resolution with 3 entries" 'gligen-res3.json: model field "image_resolution": expected 2 entries' \
    $NPUSIM run --profile neusim --configs "$T/badd" -m gligen-res3 -c tpuv4 --out "$T/od3"
no_files "bad image_resolution leaves no output" "$T/od3"
sed 's/"patch_size": 2/"patch_size": 3/' $CONFIGS/models/dit-xl.json >"$T/badd/models/dit-p3.json"
expect_fail "dit patch size that does not divide the width" 'dit-p3.json: model field "patch_size": expected a divisor of image_width 512, got 3' \
    $NPUSIM run --profile neusim --configs "$T/badd" -m dit-p3 -c tpuv5p --out "$T/od4"
no_files "bad patch size leaves no output" "$T/od4"
expect_fail "dit over DCN" '--set: model field "pipeline_parallel_degree_dcn"' \
    $NPUSIM run --profile neusim --configs $CONFIGS -m dit-xl -c tpuv5p --set num_chips=2 --set pipeline_parallel_degree_dcn=2 --out "$T/od5"
no_files "dit over DCN leaves no output" "$T/od5"
check "dit sweep simulates uneven-TP and deep-pipeline points as the reference does" sh -c "$NPUSIM sweep --profile neusim --configs $CONFIGS --out '$T/d64' --models dit-xl --versions 5p --num-chips 64 --batch-sizes 1 --dry-run 2>&1 | grep -q '28 configurations simulated, 0 invalid'"
check "gligen sweep on 3 chips (tp 3 rounds the shards up)" sh -c "$NPUSIM sweep --profile neusim --configs $CONFIGS --out '$T/g3' --models gligen --versions 4 --num-chips 3 --batch-sizes 3 --dry-run 2>&1 | grep -q '2 configurations simulated'"
expect_fail "gligen: nested --set reaches the UNet config" '--set: model field "unet_config.num_heads"' \
    $NPUSIM run --profile neusim --configs $CONFIGS -m gligen -c tpuv4 --set unet_config.num_heads=7 --out "$T/gnest"
no_files "gligen: nested --set error leaves no output" "$T/gnest"
