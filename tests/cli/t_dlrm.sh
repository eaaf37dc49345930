# DLRM CLI tests (sourced by tests/cli/run.sh: uses NPUSIM, CONFIGS, T, check,
# expect_fail, no_files). Per-chip files, straggler, pipe = run, sweep tree,
# and bad model files: exit 2, message naming file and field, no output.
D4="--set num_chips=4 --set data_parallelism_degree=4 --set tensor_parallelism_degree=4 --batch 64"

check "dlrm: run dlrm-s writes the per-chip and straggler files" sh -c "
  $NPUSIM run --profile neusim --configs $CONFIGS -m dlrm-s -c tpuv5p --out '$T/dl1' >/dev/null &&
  for f in .csv .json _config_stats.json _chip0.csv _chip0.json; do test -s '$T/dl1/dlrm-s_tpuv5p'\$f || exit 1; done &&
  test ! -e '$T/dl1/dlrm-s_tpuv5p_chip1.csv'"
check "dlrm: 4 chips, summary names the straggler" sh -c "
  $NPUSIM run --profile neusim --configs $CONFIGS -m dlrm-s -c tpuv5p $D4 --out '$T/dl4' | grep -q 'straggler     chip 0' &&
  test -s '$T/dl4/dlrm-s_tpuv5p_chip3.json' && grep -q '\"out_of_memory\": true' '$T/dl4/dlrm-s_tpuv5p.json'"
check "dlrm: the straggler CSV is chip 0's (ties go to the first chip)" \
  cmp "$T/dl4/dlrm-s_tpuv5p.csv" "$T/dl4/dlrm-s_tpuv5p_chip0.csv"
check "dlrm: opsgen writes one Group per chip" sh -c "
  $NPUSIM opsgen --profile neusim --configs $CONFIGS -m dlrm-s -c tpuv5p $D4 -o '$T/dlops.csv' &&
  head -n 1 '$T/dlops.csv' | grep -q 'Phase,Group' &&
  test \$(tr -d '\\r' <'$T/dlops.csv' | grep -c ',3\$') -eq 11"
# chipsim alone sees no model, so the DLRM chip default (no VPU path for small
# matmuls) is passed explicitly.
check "dlrm: pipe opsgen|chipsim|power equals run" sh -c "
  $NPUSIM opsgen --profile neusim --configs $CONFIGS -m dlrm-s -c tpuv4 $D4 |
  $NPUSIM chipsim --profile neusim --configs $CONFIGS -c tpuv4 --set use_vu_for_small_matmul=false |
  $NPUSIM power --profile neusim --configs $CONFIGS -m dlrm-s -c tpuv4 $D4 --out-dir '$T/dlpipe' >/dev/null &&
  $NPUSIM run --profile neusim --configs $CONFIGS -m dlrm-s -c tpuv4 $D4 --out '$T/dldirect' >/dev/null &&
  for f in .csv .json _config_stats.json _chip0.csv _chip3.json; do cmp '$T/dlpipe/dlrm-s_tpuv4'\$f '$T/dldirect/dlrm-s_tpuv4'\$f || exit 1; done"
check "dlrm: sweep writes the reference results tree" sh -c "
  $NPUSIM sweep --profile neusim --configs $CONFIGS --out '$T/dlsw' --models dlrm-s --versions 5p --num-chips 4 --batch-sizes 64 2>/dev/null &&
  for f in .csv .json _config_stats.json _chip0.csv _chip3.json; do test -s '$T/dlsw/dlrm-s/dp4-tp4-pp1-dpdcn1-tpdcn1-ppdcn1-bs64/inference-v5p'\$f || exit 1; done"

mkdir -p "$T/dlbad/models"
DS=$CONFIGS/models/dlrm-s.json
sed '/"embedding_table_sizes"/,/\]/c\    "embedding_table_sizes": [],' "$DS" >"$T/dlbad/models/notables.json"
expect_fail "dlrm: empty embedding_table_sizes" 'notables.json: model field "embedding_table_sizes"' \
  $NPUSIM run --profile neusim --configs "$T/dlbad" -m notables -c tpuv5p --out "$T/dlo1"
no_files "dlrm: empty table list leaves no output" "$T/dlo1"
sed 's/^        100, 100, 100, 100, 100, 100, 100, 100$/        100, 100, 100/' "$DS" >"$T/dlbad/models/mismatch.json"
expect_fail "dlrm: table sizes / lookups length mismatch" 'mismatch.json: model field "num_indices_per_lookup"' \
  $NPUSIM run --profile neusim --configs "$T/dlbad" -m mismatch -c tpuv5p --out "$T/dlo2"
no_files "dlrm: length mismatch leaves no output" "$T/dlo2"
sed '0,/"out_features": 256/s//"out_features": 0/' "$DS" >"$T/dlbad/models/zeroout.json"
expect_fail "dlrm: a layer with out_features 0" 'zeroout.json: model field "bottom_mlp_config"' \
  $NPUSIM run --profile neusim --configs "$T/dlbad" -m zeroout -c tpuv5p --out "$T/dlo3"
no_files "dlrm: zero out_features leaves no output" "$T/dlo3"
sed 's/"pipeline_parallelism_degree": 1/"pipeline_parallelism_degree": 2/' "$DS" >"$T/dlbad/models/pp2.json"
expect_fail "dlrm: pp > 1" 'pp2.json: model field "pipeline_parallelism_degree"' \
  $NPUSIM run --profile neusim --configs "$T/dlbad" -m pp2 -c tpuv5p --out "$T/dlo4"
no_files "dlrm: pp > 1 leaves no output" "$T/dlo4"
expect_fail "dlrm: pp > 1 via --set names --set" '\-\-set: model field "pipeline_parallelism_degree"' \
  $NPUSIM run --profile neusim --configs $CONFIGS -m dlrm-s --set pipeline_parallelism_degree=2 --out "$T/dlo5"
no_files "dlrm: --set pp > 1 leaves no output" "$T/dlo5"
# A 4-chip trace read back against a 1-chip model config: refused, nothing written.
$NPUSIM opsgen --profile neusim --configs $CONFIGS -m dlrm-s $D4 2>/dev/null |
  $NPUSIM chipsim --profile neusim --configs $CONFIGS -o "$T/dl4ops.csv" >/dev/null 2>&1
expect_fail "dlrm: trace chips beyond num_chips" 'model field "num_chips" is 1' \
  $NPUSIM power --profile neusim --configs $CONFIGS -m dlrm-s -i "$T/dl4ops.csv" --out-dir "$T/dlo6"
no_files "dlrm: chip-count mismatch leaves no output" "$T/dlo6"
