# Sourced by tests/cli/run.sh: a run's summary says what ran (profile, power
# gating, DVFS, number formats, calibration) and what it assumed (GEMMs at
# the peak, tensor parallelism past the NVLink domain), in the chip's words:
# tensor cores and NVLink on a GPU, MXU and ICI on a TPU (study/run/run_notes.c,
# chip_vocab in chipsim/chip.c); the report page uses the same words.
RN="$T/run_notes"
mkdir -p "$RN"
check "run notes: the default run names its profile, strategy, policy, formats and calibration" sh -c "
  $NPUSIM run --configs $CONFIGS -o '$RN/d' >'$RN/d.txt' &&
  grep -qx '  ran with      profile physical; power gating NoPG, DVFS None; weights bf16, activations bf16, KV cache bf16' '$RN/d.txt' &&
  grep -q '^  calibration   fitted to MaxText v5p' '$RN/d.txt' && ! grep -q assumes '$RN/d.txt'"
check "run notes: --pg, --dvfs and the formats given are the ones named" sh -c "
  $NPUSIM run --configs $CONFIGS -o '$RN/p' --pg Full --dvfs Ideal --set weight_dtype=int8 --set kv_cache_dtype=fp8 |
  grep -qx '  ran with      profile physical; power gating Full, DVFS Ideal; weights int8, activations bf16, KV cache fp8'"
check "run notes: experts in their own format (gpt-oss's MXFP4) are named beside the weights" sh -c "
  $NPUSIM run --configs $CONFIGS -m gpt-oss-20b -c h100 -b 1 --set input_seqlen=64 --set output_seqlen=4 --no-energy -o '$RN/x' |
  grep -qx '  ran with      profile physical; no energy pass; weights bf16 (experts fp4), activations bf16, KV cache bf16' &&
  $NPUSIM run --configs $CONFIGS -m gpt-oss-20b -c h100 -b 1 --set input_seqlen=64 --set output_seqlen=4 --no-energy \
    --set expert_weight_dtype=same -o '$RN/x2' | grep -q '^  ran with      profile physical; no energy pass; weights bf16, activations'"
check "run notes: --no-energy says no energy pass ran" sh -c "
  $NPUSIM run --configs $CONFIGS -o '$RN/n' --no-energy | grep -q '^  ran with      profile physical; no energy pass; weights bf16'"
check "run notes: under neusim the chip's calibration is named as not applied, GEMMs at the MXU peak" sh -c "
  $NPUSIM run --profile neusim --configs $CONFIGS -o '$RN/r' 2>/dev/null >'$RN/r.txt' &&
  grep -q '^  ran with      profile neusim;' '$RN/r.txt' &&
  grep -q '^  assumes       GEMMs at 100% of the MXU peak (the neusim profile applies no efficiency)' '$RN/r.txt'"
check "run notes: an uncalibrated chip (gb10) says calibration none; a fitted one (h100) names its source" sh -c "
  $NPUSIM run --configs $CONFIGS -c gb10 -o '$RN/h' | grep -qx '  calibration   none' &&
  $NPUSIM run --configs $CONFIGS -c h100 -o '$RN/h1' | grep -q '^  calibration   npusim calibrate --runs bench/public/inference-runs.csv'"
check "run notes: h100 at tp 64 states GEMMs at the tensor-core peak and TP past the 8-GPU NVLink domain, no MXU or ICI" sh -c "
  $NPUSIM run --configs $CONFIGS -m llama3-70b -c h100 $ROOFLINE --set num_chips=64 --set tensor_parallelism_degree=64 -b 8 \
    -o '$RN/g' >'$RN/g.txt' &&
  grep -qx '  assumes       GEMMs at 100% of the tensor-core peak (kernel_efficiency not set)' '$RN/g.txt' &&
  grep -qx '  network       tensor parallelism over 64 GPUs spans NVLink domains of 8: its collectives run on the scale-out network (dcn_bw_GBps 50 GB/s, dcn_latency_ns 3700 per step)' '$RN/g.txt' &&
  ! grep -q 'MXU\|ICI' '$RN/g.txt'"
check "run notes: a gemm efficiency below 1 drops the GEMM assumption; link_domain_chips sets the domain" sh -c "
  $NPUSIM run --configs $CONFIGS -m llama3-70b -c h100 --set num_chips=8 --set tensor_parallelism_degree=8 -b 8 \
    --set kernel_efficiency.gemm.e_max=0.8 --set link_domain_chips=4 -o '$RN/e' >'$RN/e.txt' &&
  ! grep -q 'GEMMs at 100%' '$RN/e.txt' && grep -q 'over 8 GPUs spans NVLink domains of 4: its collectives run on the scale-out' '$RN/e.txt'"
check "run notes: expert parallelism over 16 H100s names the scale-out network (physical) or its optimism (neusim); ep 8 neither" sh -c "
  $NPUSIM run --configs $CONFIGS -m deepseekv2-236b -c h100 -b 16 --set num_chips=16 --set data_parallelism_degree=16 \
    --set expert_parallelism_degree=16 --no-energy -o '$RN/ep' >'$RN/ep.txt' &&
  grep -qx '  network       expert parallelism over 16 GPUs spans NVLink domains of 8: its collectives run on the scale-out network (dcn_bw_GBps 50 GB/s, dcn_latency_ns 3700 per step)' '$RN/ep.txt' &&
  $NPUSIM run --profile neusim --configs $CONFIGS -m deepseekv2-236b -c h100 -b 16 --set num_chips=16 --set data_parallelism_degree=16 \
    --set expert_parallelism_degree=16 --no-energy -o '$RN/epn' 2>/dev/null |
    grep -qx '  assumes       expert parallelism over 16 GPUs at NVLink speed; past the NVLink domain of 8 GPUs this is optimistic' &&
  $NPUSIM run --configs $CONFIGS -m deepseekv2-236b -c h100 -b 16 --set num_chips=8 --set data_parallelism_degree=8 \
    --set expert_parallelism_degree=8 --no-energy -o '$RN/ep8' >'$RN/ep8.txt' && grep -q '^  TTFT' '$RN/ep8.txt' &&
  ! grep -q 'spans NVLink' '$RN/ep8.txt'"
check "run notes: under neusim a TP group past the domain still runs at NVLink speed, and says so" sh -c "
  $NPUSIM run --profile neusim --configs $CONFIGS -m llama3-70b -c h100 --set num_chips=16 --set tensor_parallelism_degree=16 -b 8 \
    -o '$RN/nn' 2>/dev/null | grep -qx '  assumes       tensor parallelism over 16 GPUs at NVLink speed; past the NVLink domain of 8 GPUs this is optimistic'"
# A TP group past the NVLink domain is priced on the scale-out network: with
# that network made as fast as NVLink (bandwidth and step latency), tp 16
# times as it does inside a 16-GPU domain; as shipped (50 GB/s) it is slower.
check "physical: tp 16 on h100 crosses the network: priced at dcn_bw_GBps, equal to a 16-GPU domain when the network equals NVLink" sh -c "
  run() { $NPUSIM run --configs $CONFIGS -m llama3-70b -c h100 $ROOFLINE --tp 16 -b 8 --no-energy \"\$@\" | sed -n 's/^  TPOT *//p'; }
  a=\$(run -o '$RN/x1' --set dcn_bw_GBps=450 --set dcn_latency_ns=3330) && b=\$(run -o '$RN/x2' --set link_domain_chips=16) &&
  c=\$(run -o '$RN/x3') && test -n \"\$a\" && test \"\$a\" = \"\$b\" && test \"\$a\" != \"\$c\" &&
  awk -v a=\"\${a%% *}\" -v c=\"\${c%% *}\" 'BEGIN { exit !(c > a) }'"
check "run notes: tp 8 on h100 (its own domain) and tp 8 on tpuv5p assume nothing of the link" sh -c "
  $NPUSIM run --configs $CONFIGS -m llama3-70b -c h100 --set num_chips=8 --set tensor_parallelism_degree=8 -b 8 -o '$RN/h8' >'$RN/h8.txt' &&
  $NPUSIM run --configs $CONFIGS -m llama3-70b -c tpuv5p --set num_chips=8 --set tensor_parallelism_degree=8 -b 8 -o '$RN/t8' >'$RN/t8.txt' &&
  ! grep -q 'tensor parallelism over' '$RN/h8.txt' '$RN/t8.txt'"
check "run notes: mi300x speaks of matrix cores" sh -c "
  $NPUSIM run --configs $CONFIGS -c mi300x $ROOFLINE -o '$RN/m' | grep -q 'GEMMs at 100% of the matrix-core peak'"
check "report: a GPU page names tensor cores and NVLink (energy table, summary), never MXU or ICI; a TPU page MXU and ICI" sh -c "
  $NPUSIM report --configs $CONFIGS -m llama3-70b -c h100 --set num_chips=64 --set tensor_parallelism_degree=64 -b 8 \
    -o '$RN/g.html' >/dev/null &&
  grep -q '<tr><td>tensor cores</td>' '$RN/g.html' && grep -q '<tr><td>NVLink</td>' '$RN/g.html' &&
  grep -q 'network       tensor parallelism over 64 GPUs spans NVLink domains of 8' '$RN/g.html' &&
  ! grep -q 'MXU\|ICI' '$RN/g.html' &&
  $NPUSIM report --configs $CONFIGS -o '$RN/t.html' >/dev/null &&
  grep -q '<tr><td>MXU</td>' '$RN/t.html' && grep -q '<tr><td>ICI</td>' '$RN/t.html' && ! grep -q 'NVLink' '$RN/t.html'"
expect_fail "run notes: a chip kind outside the table is refused, naming the field" '"kind"' \
    $NPUSIM run --configs $CONFIGS -c h100 --set kind=gpu -o "$RN/bad"
no_files "run notes: nothing written for a bad kind" "$RN/bad"
# What the kernels ran at: the summary names each kernel class and format
# the run used with its efficiency, and the launch gaps and framework
# overheads when set; a chip calibrated kernel by kernel warns for the
# classes it has no calibration for (attention here), naming its calibration.
check "run notes: the kernels line names each class and format used with its efficiency; gaps and overheads when set" sh -c "
  $NPUSIM run --configs $CONFIGS -m llama3-8b -c h100 $ROOFLINE -b 1 --no-energy --set kernel_efficiency.gemm.e_max=0.7 \
    --set kernel_launch_ns=4000 --set step_overhead_ns=1000000 -o '$RN/k' 2>'$RN/k.err' >'$RN/k.txt' &&
  grep -q '^  kernels       gemm bf16 0.7, .*attention bf16 1.* of the roofline\$' '$RN/k.txt' &&
  grep -qx '  launches      at least 4000 ns a kernel, 0 in captured graphs (graph_capture decode)' '$RN/k.txt' &&
  grep -qx '  framework     1000000 ns per forward pass + 0 ns per layer + 0 ns per sequence' '$RN/k.txt' &&
  grep -q 'warning: h100 has no calibration for gemv bf16, attention bf16' '$RN/k.err' &&
  ! grep -q 'gemm bf16,' '$RN/k.err' &&
  $NPUSIM run --configs $CONFIGS -m llama3-8b -c h100 -b 1 --no-energy -o '$RN/k0' 2>'$RN/k0.err' >/dev/null &&
  ! grep -q 'no calibration for' '$RN/k0.err' &&
  ! $NPUSIM run --profile neusim --configs $CONFIGS -o '$RN/k1' 2>/dev/null | grep -q '^  kernels'"
