# t_deepseek.sh — CLI tests of DeepSeek inference (sourced by tests/cli/run.sh:
# uses NPUSIM, CONFIGS, T, check, expect_fail, no_files).
DS="$NPUSIM run --profile neusim --configs $CONFIGS -m deepseekv2-236b -c tpuv5p"
DS16="--set num_chips=16 --set tensor_parallelism_degree=4 --set expert_parallelism_degree=4 --batch 8"

check "deepseek: run writes the four LLM files" sh -c "$DS --out '$T/ds1' >'$T/ds1.txt' &&
  for f in prefill.csv decode.csv prefill.json decode.json; do test -s '$T/ds1/deepseekv2-236b_tpuv5p_'\$f || exit 1; done"
check "deepseek: 1 chip is 48 + 48 ops" sh -c "test \$(grep -c . '$T/ds1/deepseekv2-236b_tpuv5p_prefill.csv') -eq 49 &&
  test \$(grep -c . '$T/ds1/deepseekv2-236b_tpuv5p_decode.csv') -eq 49"
check "deepseek: summary names ep and flags 250 GiB out of memory" sh -c "grep -q 'ep 1' '$T/ds1.txt' &&
  grep -q 'prefill 250.05 GiB.*out of memory' '$T/ds1.txt'"
check "deepseek: footprint uses the DeepSeek formula (250.0496826171875 GiB)" \
  grep -q '"mem_footprint_GB": 250.0496826171875' "$T/ds1/deepseekv2-236b_tpuv5p_prefill.json"
# tp4 ep4 batch 8 on 16 chips: the reference sweep's statistics (visible/raw/deepseekv2-236b).
check "deepseek: tp4 ep4 bs8 matches the reference TTFT and footprint" sh -c "$DS $DS16 --out '$T/ds16' >/dev/null &&
  grep -q '\"TTFT_sec\": 4.95374388,' '$T/ds16/deepseekv2-236b_tpuv5p_prefill.json' &&
  grep -q '\"mem_footprint_GB\": 88.8572998046875,' '$T/ds16/deepseekv2-236b_tpuv5p_prefill.json'"
check "deepseek: expert parallelism adds the token all-to-alls" \
  grep -q 'MoEDispatchAllToAll' "$T/ds16/deepseekv2-236b_tpuv5p_decode.csv"
check "deepseek: v3-671b runs" sh -c "$NPUSIM run --profile neusim --configs $CONFIGS -m deepseekv3-671b -c tpuv5p --out '$T/ds3' >/dev/null &&
  test \$(grep -c . '$T/ds3/deepseekv3-671b_tpuv5p_prefill.csv') -eq 57"
check "deepseek: sweep names runs with ep" sh -c "$NPUSIM sweep --profile neusim --configs $CONFIGS --out '$T/dssw' --models deepseekv2-236b --versions 5p --num-chips 16 --batch-sizes 8 2>/dev/null &&
  test -s '$T/dssw/deepseekv2-236b/dp1-tp4-pp1-ep4-dpdcn1-tpdcn1-ppdcn1-epdcn1-bs8/inference-v5p_decode.json' &&
  test \$(ls '$T/dssw/deepseekv2-236b' | wc -l) -eq 7"

# The experts in their own format (expert_weight_dtype, as an NVFP4 checkpoint ships them): DeepSeek-V3
# on 8 B200 (TP 8, EP 8) with fp8 weights and fp4 experts; the run names it, and its decode footprint is
# below the all-fp8 run's.
DSX="$NPUSIM run --configs $CONFIGS -m deepseekv3-671b -c b200 --set num_chips=8 --set tensor_parallelism_degree=8 --set expert_parallelism_degree=8 --set weight_dtype=fp8 --no-energy"
check "deepseek: experts in their own format (fp4 beside fp8): named in the run, a smaller footprint" sh -c "
  $DSX --set expert_weight_dtype=fp4 -o '$T/dsx4' >'$T/dsx4.txt' 2>&1 && $DSX -o '$T/dsx8' >/dev/null 2>&1 &&
  grep -q 'weights fp8 (experts fp4)' '$T/dsx4.txt' &&
  python3 -c 'import glob, json, sys
m = [json.load(open(glob.glob(d + \"/*_decode.json\")[0]))[\"mem_footprint_GB\"] for d in sys.argv[1:]]
sys.exit(not (0 < m[0] < m[1]))' '$T/dsx4' '$T/dsx8'"
expect_fail "deepseek: flash attention rejected" '"use_flash_attention": expected false' \
  $DS --set use_flash_attention=true --out "$T/dsbad"
expect_fail "deepseek: ep > dp*tp rejected" '"expert_parallelism_degree": expected at most dp\*tp = 4' \
  $DS --set num_chips=32 --set tensor_parallelism_degree=4 --set expert_parallelism_degree=8 --out "$T/dsbad"
expect_fail "deepseek: more expert shards than experts rejected" 'exceeds num_routed_experts 2' \
  $DS $DS16 --set num_routed_experts=2 --set num_activated_routed_experts_per_token=2 --out "$T/dsbad"
expect_fail "deepseek: expert parallelism over DCN rejected" '"expert_parallel_degree_dcn": expected 1' \
  $DS --set expert_parallel_degree_dcn=2 --out "$T/dsbad"
mkdir -p "$T/dsb/models"
sed '/"kv_lora_rank"/d' $CONFIGS/models/deepseekv2-236b.json >"$T/dsb/models/nokvrank.json"
expect_fail "deepseek: missing MLA rank names the field" '"kv_lora_rank" is missing' \
  $NPUSIM run --profile neusim --configs "$T/dsb" -m nokvrank -c tpuv5p --out "$T/dsbad"
no_files "deepseek: rejected configs leave no output" "$T/dsbad"
