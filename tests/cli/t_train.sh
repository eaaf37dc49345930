# t_train.sh — CLI tests of LLM training (--workload training); sourced by
# tests/cli/run.sh, which provides NPUSIM, CONFIGS, T, check, expect_fail, no_files.
TR="--configs $CONFIGS -m llama3-8b -c tpuv5p --workload training --batch 32"
FIT="--set num_chips=64 --set data_parallelism_degree=8 --set tensor_parallelism_degree=8"

# run: one CSV of every op (forward, backward, weight update) and one statistics JSON
check "training: run writes <model>_<chip>.csv and .json" sh -c "
  $NPUSIM run --profile neusim $TR $FIT --out '$T/tr' >'$T/tr.txt' &&
  test -s '$T/tr/llama3-8b_tpuv5p.csv' && test -s '$T/tr/llama3-8b_tpuv5p.json' &&
  test \$(ls '$T/tr' | wc -l) -eq 2"
check "training: summary shows step time and memory" sh -c "grep -q 'step time' '$T/tr.txt' && grep -q '23.7500 GiB' '$T/tr.txt'"
check "training: JSON has the pod and multi-pod keys" sh -c "
  grep -q '\"total_execution_time_pod_ns\"' '$T/tr/llama3-8b_tpuv5p.json' &&
  grep -q '\"bounded_by_pp_dcn\": false' '$T/tr/llama3-8b_tpuv5p.json' &&
  grep -q '\"mem_footprint_GB\": 23.75,' '$T/tr/llama3-8b_tpuv5p.json' &&
  grep -q '\"use_flash_attention\": false' '$T/tr/llama3-8b_tpuv5p.json'"
# §15: tp2 dp2 on 4 chips: 54 ops, the weight-update all-reduce 133,621,205 ns, 170.9375 GiB
check "training: llama3-8b tp2 dp2 has 54 ops and the reference weight-update time" sh -c "
  $NPUSIM run --profile neusim $TR --set num_chips=4 --set data_parallelism_degree=2 --set tensor_parallelism_degree=2 --no-energy --out '$T/tr4' >/dev/null &&
  test \$(wc -l <'$T/tr4/llama3-8b_tpuv5p.csv') -eq 55 &&
  grep -q '^27,WeightUpdate,AllReduce(1x7516192768x1->1x7516192768x1),WeightUpdateAllReduce,VPU,1,ICI/NVLink,133621205,' '$T/tr4/llama3-8b_tpuv5p.csv' &&
  grep -q '\"mem_footprint_GB\": 170.9375,' '$T/tr4/llama3-8b_tpuv5p.json'"
check "training: run is deterministic" sh -c "
  $NPUSIM run --profile neusim $TR $FIT --out '$T/tr2' >/dev/null && cmp '$T/tr/llama3-8b_tpuv5p.csv' '$T/tr2/llama3-8b_tpuv5p.csv' &&
  cmp '$T/tr/llama3-8b_tpuv5p.json' '$T/tr2/llama3-8b_tpuv5p.json'"
check "training: opsgen | chipsim | power --out-dir equals run" sh -c "
  $NPUSIM opsgen --profile neusim $TR $FIT | $NPUSIM chipsim --profile neusim --configs $CONFIGS -c tpuv5p |
  $NPUSIM power --profile neusim $TR $FIT --out-dir '$T/trpipe' >/dev/null &&
  cmp '$T/tr/llama3-8b_tpuv5p.csv' '$T/trpipe/llama3-8b_tpuv5p.csv' &&
  cmp '$T/tr/llama3-8b_tpuv5p.json' '$T/trpipe/llama3-8b_tpuv5p.json'"

# sweep: the visible suite's line is out of memory everywhere -> no files, exit 0
check "training: sweep llama3-8b 5p 4 32 writes nothing and counts 6 invalid" sh -c "
  $NPUSIM sweep --profile neusim --configs $CONFIGS --out '$T/trsw' --models llama3-8b --workload training --versions 5p --num-chips 4 --batch-sizes 32 2>'$T/trsw.log' &&
  grep -q '0 configurations simulated, 6 invalid' '$T/trsw.log' && test ! -e '$T/trsw'"
check "training: sweep on 64 chips writes training-v5p.csv/.json" sh -c "
  $NPUSIM sweep --profile neusim --configs $CONFIGS --out '$T/trsw64' --models llama3-8b --workload training --versions 5p --num-chips 64 --batch-sizes 32 2>'$T/trsw64.log' &&
  grep -q '21 configurations simulated, 7 invalid' '$T/trsw64.log' &&
  test -s '$T/trsw64/llama3-8b/dp8-tp8-pp1-dpdcn1-tpdcn1-ppdcn1-bs32/training-v5p.csv' &&
  grep -q '\"layers_per_pp_stage\": 32' '$T/trsw64/llama3-8b/dp8-tp8-pp1-dpdcn1-tpdcn1-ppdcn1-bs32/training-v5p.json'"

# bad input: exit 2, the field named, nothing written
expect_fail "training: flash attention is refused" '"use_flash_attention"' \
    $NPUSIM run --profile neusim $TR $FIT --set use_flash_attention=true --out "$T/trbad"
expect_fail "training: an unknown ffn_type is refused" '"ffn_type": expected "llama", "swiglu", "geglu", "default", "gelu" or "relu", got "mlp"' \
    $NPUSIM run --profile neusim $TR $FIT --set ffn_type=mlp --out "$T/trbad"
expect_fail "training: tp must divide the heads" '"tensor_parallelism_degree": 3 does not divide num_heads 32' \
    $NPUSIM run --profile neusim $TR --set num_chips=3 --set tensor_parallelism_degree=3 --out "$T/trbad"
expect_fail "training: num_chips below dp*tp*pp" '"num_chips=4": fewer chips than the parallelism degrees need (dp 2 x tp 8 x pp 1: at least 16)' \
    $NPUSIM run --profile neusim $TR --set num_chips=4 --set data_parallelism_degree=2 --set tensor_parallelism_degree=8 --out "$T/trbad"
no_files "training: bad inputs leave no output" "$T/trbad"
