# run --pg / --dvfs CLI tests (sourced by tests/cli/run.sh: uses check, expect_fail, no_files,
# $NPUSIM, $CONFIGS, $T). The golden files are the reference's per-op energy CSVs of
# llama3-8b on one TPUv5p (raw_None ... _prefill_HW, raw_Ideal ... _decode_Full).
check "run --pg HW equals the reference's HW energy CSV" sh -c "
  $NPUSIM run --profile neusim --configs $CONFIGS --pg HW --out '$T/pw1' >/dev/null &&
  gzip -dc tests/golden/power/inference-v5p_prefill_HW_None.csv.gz | cmp - '$T/pw1/llama3-8b_tpuv5p_prefill.csv'"
check "run --pg Full --dvfs Ideal equals the reference's DVFS-Ideal CSV" sh -c "
  $NPUSIM run --profile neusim --configs $CONFIGS --pg Full --dvfs Ideal --out '$T/pw2' >/dev/null &&
  gzip -dc tests/golden/power/inference-v5p_decode_Full_Ideal.csv.gz | cmp - '$T/pw2/llama3-8b_tpuv5p_decode.csv'"
check "pipe with power --pg equals run --pg" sh -c "
  $NPUSIM opsgen --profile neusim --configs $CONFIGS | $NPUSIM chipsim --profile neusim --configs $CONFIGS |
  $NPUSIM power --profile neusim --configs $CONFIGS --pg HW --out-dir '$T/pw3' >/dev/null &&
  cmp '$T/pw1/llama3-8b_tpuv5p_prefill.csv' '$T/pw3/llama3-8b_tpuv5p_prefill.csv'"
printf '{"name": "mine", "SA_PG_enabled": true, "sa_power_level_factors": [1.0, 0.02]}' >"$T/mypg.json"
check "a user strategy file changes the energy" sh -c "
  $NPUSIM run --profile neusim --configs $CONFIGS --pg '$T/mypg.json' --out '$T/pw4' >/dev/null &&
  ! cmp -s '$T/pw1/llama3-8b_tpuv5p_prefill.csv' '$T/pw4/llama3-8b_tpuv5p_prefill.csv'"
check "shipped strategy files load by path" sh -c "
  $NPUSIM run --profile neusim --configs $CONFIGS --pg configs/pg/HW.json --out '$T/pw5' >/dev/null &&
  cmp '$T/pw1/llama3-8b_tpuv5p_prefill.csv' '$T/pw5/llama3-8b_tpuv5p_prefill.csv'"
expect_fail "unknown strategy name" 'strategy "Turbo": unknown' $NPUSIM run --profile neusim --configs $CONFIGS --pg Turbo --out "$T/pwbad"
printf '{"SA_PG_enabled": "maybe"}' >"$T/badpg.json"
expect_fail "malformed strategy file names file and field" 'badpg.json: field "SA_PG_enabled"' \
    $NPUSIM run --profile neusim --configs $CONFIGS --pg "$T/badpg.json" --out "$T/pwbad"
printf '{"SA_PG_enabled": true,' >"$T/brokenpg.json"
expect_fail "strategy file with invalid JSON" 'brokenpg.json' $NPUSIM run --profile neusim --configs $CONFIGS --pg "$T/brokenpg.json" --out "$T/pwbad"
expect_fail "unknown DVFS policy" 'DVFS policy' $NPUSIM run --profile neusim --configs $CONFIGS --dvfs Turbo --out "$T/pwbad"
no_files "bad strategies leave no output" "$T/pwbad"
