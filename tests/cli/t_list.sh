# Sourced by tests/cli/run.sh: a CLI that helps. --version and -V on npusim
# and on every command; `npusim list` of every kind, one line per config
# file with the figures that tell them apart (H100: 989.4 dense bf16
# TFLOP/s, 80 GB at 3350 GB/s, as configs/chips/h100.json derives them);
# "did you mean" on a misspelt config name and list kind; the in-tree binary
# finding its configs from any folder.
LS="$T/list"
mkdir -p "$LS"
check "version: npusim -V, --version, version, and -V/--version after any command" sh -c "
  for a in '-V' '--version' 'version' 'run -V' 'sweep --version' 'report -V' 'serve -V' 'list --version'; do
    [ \"\$($NPUSIM \$a)\" = 'npusim 0.2.0' ] || { echo \"\$a\"; exit 1; }
  done"
check "list chips: a line per chip file, the H100's peak and memory" sh -c "
  $NPUSIM list chips --configs $CONFIGS >'$LS/chips.txt' &&
  for f in $CONFIGS/chips/*.json; do n=\$(basename \"\$f\" .json); grep -q \"^\$n \" '$LS/chips.txt' || exit 1; done &&
  grep -q '^h100 .*bf16   989.4 TFLOP/s, HBM   80.0 GB at  3350.0 GB/s' '$LS/chips.txt'"
check "list models: a line per model file, family and size" sh -c "
  $NPUSIM list models --configs $CONFIGS >'$LS/models.txt' &&
  [ \$(wc -l <'$LS/models.txt') -ge \$(ls $CONFIGS/models/*.json | wc -l) ] &&
  grep -q '^llama3-8b  *llm  *32 layers, d_model 4096\$' '$LS/models.txt' && grep -q '^dlrm-s  *dlrm\$' '$LS/models.txt'"
check "list systems and strategies: PUE and carbon; what each strategy gates" sh -c "
  $NPUSIM list systems --configs $CONFIGS | grep -q '^system_config  *PUE 1.1, 0.5 kgCO2e/kWh, 4 years, duty cycle 0.6\$' &&
  $NPUSIM list strategies >'$LS/pg.txt' && grep -q '^NoPG  *nothing gated\$' '$LS/pg.txt' &&
  grep -q '^Full  *gates SA HW fine, VU SW component' '$LS/pg.txt' && grep -q '^Ideal .*no delays\$' '$LS/pg.txt'"
check "list fields: every field of npusim fields, with its table, type, unit and meaning" sh -c "
  $NPUSIM list fields >'$LS/fields.txt' && grep -q '^hbm_bw_GBps  *chip  *number  *GB/s  *HBM (main memory) bandwidth per chip.\$' '$LS/fields.txt' &&
  grep -q '^num_layers  *model  *integer  *-  *Transformer layers.\$' '$LS/fields.txt' &&
  grep -q '^vu_pg_delay_cycles  *strategy  *number  *cycles  *Wake-up delay of a vector unit.\$' '$LS/fields.txt' &&
  [ \$(wc -l <'$LS/fields.txt') -eq \$($NPUSIM fields | grep -c '^| \`') ]"
check "did you mean: a misspelt strategy or DVFS policy names the closest" sh -c "
  $NPUSIM run --configs $CONFIGS --pg Ful -o '$LS/dm1' 2>&1 | grep -q 'strategy \"Ful\" (did you mean \"Full\"?): unknown' &&
  $NPUSIM run --configs $CONFIGS --dvfs Idael -o '$LS/dm2' 2>&1 | grep -q 'DVFS policy \"Idael\" (did you mean \"Ideal\"?): unknown'"
expect_fail "did you mean: a field's misspelt choice names the closest" 'field "ICI_topology": expected one of TORUS_2D|TORUS_3D, got "TORUS3D" (did you mean "TORUS_3D"?)' \
    $NPUSIM run --configs $CONFIGS --set ICI_topology=TORUS3D -o "$LS/dm3"
expect_fail "did you mean: a misspelt ffn_type names the closest" 'got "lama" (did you mean "llama"?)' \
    $NPUSIM run --configs $CONFIGS --set ffn_type=lama -o "$LS/dm4"
expect_fail "list: a misspelt kind gets a suggestion" '"field" (did you mean "fields"?)' $NPUSIM list field
expect_fail "list: two kinds" 'expected at most one of models, chips' $NPUSIM list models chips
expect_fail "run: a misspelt chip gets a suggestion" 'unknown chip "tpuv5q" (did you mean "tpuv5e"?)' \
    $NPUSIM run --configs $CONFIGS -c tpuv5q -o "$LS/x"
expect_fail "run: a misspelt model gets a suggestion" 'unknown model "lama3-8b" (did you mean "llama3-8b"?)' \
    $NPUSIM run --configs $CONFIGS -m lama3-8b -o "$LS/x"
NP_ABS=$(cd "$(dirname "$NPUSIM")" && pwd)/$(basename "$NPUSIM")
check "the in-tree binary finds its configs from another folder (no --configs, no NPUSIM_CONFIGS)" sh -c "
  cd '$LS' && env -u NPUSIM_CONFIGS '$NP_ABS' run -c h100 -o out >run.txt && grep -q 'llama3-8b on h100' run.txt"
# The same short options in every command: -m models, -c chips, -b batches,
# -o the output, -j jobs; a sweep given them writes what its long options write.
CFG_ABS=$(cd "$CONFIGS" && pwd)
mkdir -p "$LS/s" "$LS/l"
check "short options: sweep -m -c -b -o -j writes the tree its long options write; energy, carbon, slo, fleet take them" sh -c "
  (cd '$LS/s' && '$NP_ABS' sweep --configs '$CFG_ABS' -m llama3-8b -c 5p --num-chips 1 -b 1,4 -o tree -j 1 2>/dev/null) &&
  (cd '$LS/l' && '$NP_ABS' sweep --configs '$CFG_ABS' --models llama3-8b --versions 5p --num-chips 1 --batch-sizes 1,4 --out tree 2>/dev/null) &&
  diff -r '$LS/s/tree' '$LS/l/tree' && mv '$LS/s/tree' '$LS/short' &&
  $NPUSIM energy --configs $CONFIGS --results '$LS/short' -m llama3-8b -c 5p --pg NoPG -j 1 >/dev/null 2>&1 &&
  test -d '$LS/short_None' &&
  $NPUSIM carbon --configs $CONFIGS --results '$LS/short_None' -m llama3-8b -c 5p --pg NoPG -j 1 >/dev/null 2>&1 &&
  $NPUSIM fleet --configs $CONFIGS -o '$LS/fleet' examples/fleet.json >/dev/null 2>&1 && test -s '$LS/fleet/fleet.json'"
# Progress on stderr for long commands: drawn on a terminal (script(1) gives
# one), never into a pipe or a file, and not with --quiet.
if command -v script >/dev/null 2>&1; then
    check "progress: sweep and energy draw a line on a terminal, none into a pipe or with --quiet" sh -c "
      script -qc \"'$NP_ABS' sweep --configs '$CFG_ABS' -m llama3-8b -c 5p,6e,4 --num-chips 1,2,4,8,16 -b 1,2,4,8,16,32,64 -o '$LS/p' -j 1\" /dev/null >'$LS/tty.txt' &&
      tr '\\r' '\\n' <'$LS/tty.txt' | grep -aq '^npusim sweep: [0-9]*/315 (' &&
      '$NP_ABS' sweep --configs '$CFG_ABS' -m llama3-8b -c 5p,6e,4 --num-chips 1,2,4,8,16 -b 1,2,4,8,16,32,64 -o '$LS/p2' -j 1 2>'$LS/pipe.txt' &&
      ! grep -aq '/315 (' '$LS/pipe.txt' &&
      script -qc \"'$NP_ABS' sweep -q --configs '$CFG_ABS' -m llama3-8b -c 5p,6e,4 --num-chips 1,2,4,8,16 -b 1,2,4,8,16,32,64 -o '$LS/p3' -j 1\" /dev/null >'$LS/quiet.txt' &&
      ! tr '\\r' '\\n' <'$LS/quiet.txt' | grep -aq '/315 (' &&
      script -qc \"'$NP_ABS' energy --configs '$CFG_ABS' --results '$LS/p' -m llama3-8b -c 5p,6e,4 -j 1\" /dev/null >'$LS/etty.txt' &&
      tr '\\r' '\\n' <'$LS/etty.txt' | grep -aq '^npusim energy: [0-9]*  [0-9.]*/s'"
    check "progress: fleet counts its deployments on a terminal; not with -q, and the table is the same" sh -c "
      cd '$(pwd)' && script -qc \"'$NP_ABS' fleet --configs '$CFG_ABS' -o '$LS/ft' examples/fleet.json\" /dev/null >'$LS/ftty.txt' &&
      tr '\\r' '\\n' <'$LS/ftty.txt' | grep -aq '^npusim fleet: [0-3]/4 (' &&
      script -qc \"'$NP_ABS' fleet -q --configs '$CFG_ABS' -o '$LS/fq' examples/fleet.json\" /dev/null >'$LS/fq.txt' &&
      ! tr '\\r' '\\n' <'$LS/fq.txt' | grep -aq '^npusim fleet: [0-9]*/4 (' && cmp '$LS/ft/fleet.csv' '$LS/fq/fleet.csv'"
else
    echo "ok - progress on a terminal: skipped, no script(1) here"
fi
# A configuration that does not fit says what would: the smallest tensor
# parallelism whose per-chip footprint fits (here 2 chips for Llama 3 70B on
# a 95 GiB TPU v5p), and running with those options fits with exactly the
# footprint it predicted.
check "out of memory: the summary says which --set options fit, and they do" sh -c "
  $NPUSIM run --configs $CONFIGS -m llama3-70b -c tpuv5p -o '$LS/o1' >'$LS/oom.txt' &&
  grep -q '(out of memory)' '$LS/oom.txt' &&
  grep -q '^  to fit        --set num_chips=2 --set tensor_parallelism_degree=2 (prefill 66.64 GiB, decode 66.41 GiB per chip)\$' '$LS/oom.txt' &&
  $NPUSIM run --configs $CONFIGS -m llama3-70b -c tpuv5p --set num_chips=2 --set tensor_parallelism_degree=2 -o '$LS/o2' >'$LS/fit.txt' &&
  grep -q '^  memory        prefill 66.64 GiB, decode 66.41 GiB of 95 GiB HBM\$' '$LS/fit.txt' && ! grep -q 'to fit' '$LS/fit.txt'"
# Training tries its own levers first (ZeRO, then full rematerialisation, on
# the same chips), DiT more tensor parallelism; each printed option set gives
# the footprint printed.
check "out of memory: training says which ZeRO stage or remat fits, and it does" sh -c "
  $NPUSIM run --configs $CONFIGS -m llama3-70b -c tpuv5p --workload training --batch 8 --set num_chips=64 --set data_parallelism_degree=8 --set tensor_parallelism_degree=8 -o '$LS/t1' >'$LS/t1.txt' &&
  grep -q '^  to fit        --set zero_stage=1 (55.80 GiB per chip)\$' '$LS/t1.txt' &&
  $NPUSIM run --configs $CONFIGS -m llama3-70b -c tpuv5p --workload training --batch 8 --set num_chips=64 --set data_parallelism_degree=8 --set tensor_parallelism_degree=8 --set zero_stage=1 -o '$LS/t2' >'$LS/t2.txt' &&
  grep -q '^  memory        55.7986 GiB per chip of 95 GiB HBM\$' '$LS/t2.txt' &&
  $NPUSIM run --configs $CONFIGS -m llama3-8b -c tpuv5p --workload training --batch 32 --set num_chips=4 --set data_parallelism_degree=2 --set tensor_parallelism_degree=2 -o '$LS/t3' >'$LS/t3.txt' &&
  grep -q '^  to fit        --set remat=full (72.08 GiB per chip)\$' '$LS/t3.txt'"
check "out of memory: DiT says which tensor parallelism fits, and it does" sh -c "
  $NPUSIM run --configs $CONFIGS -m dit-xl -c tpuv5e --set num_chips=2 --set pipeline_parallelism_degree=2 --batch 8 -o '$LS/d1' >'$LS/d1.txt' &&
  grep -q '^  to fit        --set num_chips=4 --set tensor_parallelism_degree=2 (10.05 GiB per chip)\$' '$LS/d1.txt' &&
  $NPUSIM run --configs $CONFIGS -m dit-xl -c tpuv5e --set num_chips=4 --set pipeline_parallelism_degree=2 --set tensor_parallelism_degree=2 --batch 8 -o '$LS/d2' >'$LS/d2.txt' &&
  grep -q '^  memory        10.05 GiB per chip of 16 GiB HBM\$' '$LS/d2.txt'"
expect_fail "flags: a misspelt option gets the closest one" 'unknown option "--svgdir" (did you mean "--svg-dir"?)' \
    $NPUSIM report --svgdir x
expect_fail "flags: an option without its value says so, with both its names" 'option -o/--out needs a value' $NPUSIM run --out
# make install: the binary, its configs (found beside it from any folder),
# the manual page listing every command the binary has, and bash and zsh
# completion that complete commands, options and config names.
BUILD_DIR=$(dirname "$NP_ABS")
check "install: binary, configs, man page and completion under PREFIX; the installed binary finds its configs" sh -c "
  make -s --no-print-directory -o '$NP_ABS' install BUILD='$BUILD_DIR' PREFIX='$LS/inst' >/dev/null &&
  for f in bin/npusim share/npusim/configs/chips/h100.json share/man/man1/npusim.1 \
           share/bash-completion/completions/npusim share/zsh/site-functions/_npusim; do test -s '$LS/inst/'\$f || exit 1; done &&
  cd / && env -u NPUSIM_CONFIGS '$LS/inst/bin/npusim' list chips | grep -q '^h100 '"
check "man page: every command of npusim --help has its entry" sh -c "
  for c in \$($NPUSIM --help | awk '/^  [a-z]/ { print \$1 }'); do grep -qx \".B \$c\" docs/npusim.1 || { echo \$c; exit 1; }; done"
if command -v bash >/dev/null 2>&1; then
    check "bash completion: commands, config names after -c and --pg, a command's options" bash -c "
      . '$LS/inst/share/bash-completion/completions/npusim' &&
      COMP_WORDS=('$LS/inst/bin/npusim' ru); COMP_CWORD=1; _npusim; [ \"\${COMPREPLY[*]}\" = run ] &&
      COMP_WORDS=('$LS/inst/bin/npusim' run -c h1); COMP_CWORD=3; _npusim; [ \"\${COMPREPLY[*]}\" = h100 ] &&
      COMP_WORDS=('$LS/inst/bin/npusim' run --pg Fu); COMP_CWORD=3; _npusim; [ \"\${COMPREPLY[*]}\" = Full ] &&
      COMP_WORDS=('$LS/inst/bin/npusim' report --svg); COMP_CWORD=2; _npusim; [ \"\${COMPREPLY[*]}\" = --svg-dir ]"
fi
