# Sourced by tests/cli/run.sh: options that mean the same everywhere
# (issue 38, items 8-10). The parallelism degrees alone set num_chips (the
# shipped model files say 1 chip; --set tensor_parallelism_degree=2 runs on
# 2), a num_chips given with --set that is too small is refused naming both;
# --tp/--dp/--pp/--ep/--seqlen are --set of their fields on run and filters
# on sweep; config names match in any case; a field cut short or in another
# case gets its name; op's -m -n -k are the GEMM's sizes; an option without
# its value says so with both its names; `npusim list` alone lists every kind.
OPT="$T/options"
mkdir -p "$OPT"
RUN="$NPUSIM run --configs $CONFIGS"
check "num_chips follows from --set tensor_parallelism_degree=2 (the model file says 1 chip), and the summary says so" sh -c "
  $RUN --set tensor_parallelism_degree=2 -o '$OPT/tp2' >'$OPT/tp2.txt' &&
  grep -q '^llama3-8b on tpuv5p (2 chips, num_chips from the degrees: dp 1, tp 2, pp 1;' '$OPT/tp2.txt' &&
  grep -q '\"num_chips\": 2,' '$OPT/tp2/llama3-8b_tpuv5p_decode.json'"
check "--tp 2 --dp 2 is --set of both with num_chips=4; the outputs are the same" sh -c "
  $RUN --tp 2 --dp 2 -o '$OPT/short' >'$OPT/short.txt' &&
  $RUN --set num_chips=4 --set tensor_parallelism_degree=2 --set data_parallelism_degree=2 -o '$OPT/long' >/dev/null &&
  grep -q '(4 chips, num_chips from the degrees: dp 2, tp 2, pp 1;' '$OPT/short.txt' &&
  for f in prefill.csv decode.csv prefill.json decode.json; do cmp '$OPT/short/llama3-8b_tpuv5p_'\$f '$OPT/long/llama3-8b_tpuv5p_'\$f || exit 1; done"
check "--ep multiplies the chips as the sweep counts them (DeepSeek: tp 4, ep 4 on 16 chips, the sweep's point)" sh -c "
  $RUN -m deepseekv2-236b --tp 4 --ep 4 -b 8 -o '$OPT/ds' | grep -q '(16 chips, num_chips from the degrees: dp 1, tp 4, pp 1, ep 4;' &&
  $NPUSIM sweep --configs $CONFIGS --models deepseekv2-236b --versions 5p --num-chips 16 --batch-sizes 8 --tp 4 --ep 4 --dry-run 2>&1 |
    grep -q ' 1 configurations simulated'"
expect_fail "an explicit num_chips too small for the degrees is refused, naming both" \
    '"num_chips=1": fewer chips than the parallelism degrees need (dp 1 x tp 2 x pp 1: at least 2)' \
    $RUN --set num_chips=1 --tp 2 -o "$OPT/bad1"
no_files "  ... and writes nothing" "$OPT/bad1"
expect_fail "--tp takes a positive integer" '\-\-tp "0": expected a positive integer' $RUN --tp 0 -o "$OPT/bad2"
expect_fail "--seqlen takes IN_OUT" '\-\-seqlen "12": expected IN_OUT' $RUN --seqlen 12 -o "$OPT/bad3"
no_files "  ... and --tp 0 writes nothing" "$OPT/bad2"
no_files "  ... nor --seqlen 12" "$OPT/bad3"
check "run --seqlen 1024_128 sets input and output lengths as in sweep" sh -c "
  $RUN --seqlen 1024_128 -o '$OPT/seq' | grep -q '; 1024 in / 128 out)\$' &&
  $RUN --set input_seqlen=1024 --set output_seqlen=128 -o '$OPT/seq2' >/dev/null &&
  cmp '$OPT/seq/llama3-8b_tpuv5p_decode.csv' '$OPT/seq2/llama3-8b_tpuv5p_decode.csv'"
check "sweep --tp 2,8 keeps only those points of the enumeration" sh -c "
  $NPUSIM sweep --configs $CONFIGS -m llama3-8b -c 5p --num-chips 8 -b 8 --tp 2,8 --summary '$OPT/tp.csv' -j 1 2>/dev/null &&
  [ \"\$(cut -d, -f1,7,8 '$OPT/tp.csv' | tail -n +2 | tr '\n' ' ')\" = '0,2,4 1,8,1 ' ]"
expect_fail "sweep --tp 0 is refused" '\-\-tp "0": expected a comma-separated list' \
    $NPUSIM sweep --configs $CONFIGS -m llama3-8b -c 5p --num-chips 8 -b 8 --tp 0 --summary "$OPT/no.csv"
check "names match without regard to case: -c H100 -m Llama3-8B is h100 and llama3-8b" sh -c "
  $RUN -c H100 -m Llama3-8B -o '$OPT/case' | grep -q '^llama3-8b on h100 ' &&
  $RUN -c h100 -m llama3-8b -o '$OPT/lower' >/dev/null &&
  cmp '$OPT/case/llama3-8b_h100_decode.csv' '$OPT/lower/llama3-8b_h100_decode.csv' &&
  $RUN -c V5P -o '$OPT/v5p' | grep -q '^llama3-8b on tpuv5p ' &&
  $NPUSIM sweep --configs $CONFIGS -m LLAMA3-8B -c H100,5P --num-chips 1 -b 1 --summary '$OPT/case.csv' 2>/dev/null &&
  cut -d, -f2,4 '$OPT/case.csv' | grep -q '^llama3-8b,h100\$' && cut -d, -f2,4 '$OPT/case.csv' | grep -q '^llama3-8b,tpuv5p\$'"
expect_fail "did you mean: a field without its unit gets the full name" \
    '"hbm_bw": unknown field (did you mean "hbm_bw_GBps"?)' $RUN --set hbm_bw=3000 -o "$OPT/bad4"
expect_fail "did you mean: a field in another case gets its name" \
    '"HBM_BW_GBPS": unknown field (did you mean "hbm_bw_GBps"?)' $RUN --set HBM_BW_GBPS=3000 -o "$OPT/bad5"
expect_fail "did you mean: a sweep spec's field cut short too" 'did you mean "hbm_bw_GBps"' \
    $NPUSIM sweep --configs $CONFIGS --spec "$(printf '{"models": ["llama3-8b"], "chips": ["h100"], "num_chips": [1], "batch_sizes": [1], "fields": {"hbm_bw": [1000]}}' >"$OPT/spec.json"; echo "$OPT/spec.json")" --summary "$OPT/no2.csv"
check "op gemm -m -n -k are the sizes, as --m --n --k" sh -c "
  [ \"\$($NPUSIM op --configs $CONFIGS gemm -m 8192 -n 8192 -k 8192 -c h100)\" = \"\$($NPUSIM op --configs $CONFIGS gemm --m 8192 --n 8192 --k 8192 -c h100)\" ] &&
  $NPUSIM op --configs $CONFIGS gemm -m 8192 -n 8192 -k 8192 | grep -q '^gemm m=8192 n=8192 k=8192 '"
expect_fail "op: -n without its value says so" 'option -n/--n needs a value' $NPUSIM op gemm -m 4 -n
expect_fail "op: --model is refused (-m is M)" '\-\-model: an operator needs no model' $NPUSIM op gemm --model llama3-8b
expect_fail "run -m without its value says the value is missing" 'option -m/--model needs a value' $NPUSIM run -m
expect_fail "sweep -c without its value says so" 'option -c/--chips needs a value' $NPUSIM sweep -m llama3-8b -c
expect_fail "run --tp without its value says so" 'option --tp needs a value' $NPUSIM run --tp
check "list with no kind: every kind under its heading, each as list KIND prints it" sh -c "
  $NPUSIM list --configs $CONFIGS >'$OPT/all.txt' &&
  [ \"\$(grep '^[a-z]*:\$' '$OPT/all.txt' | tr '\n' ' ')\" = 'models: chips: systems: strategies: fields: ' ] &&
  for k in models chips systems strategies fields; do
    $NPUSIM list \$k --configs $CONFIGS >'$OPT/k.txt' &&
    awk -v k=\"\$k:\" '\$0 == k { on = 1; next } /^[a-z]*:\$/ { on = 0 } on && NF' '$OPT/all.txt' | cmp - '$OPT/k.txt' || exit 1
  done"
check "a num_chips given with --set is the user's: no note" sh -c "
  $RUN --set num_chips=2 --tp 2 -o '$OPT/explicit' | grep -q '^llama3-8b on tpuv5p (2 chips: dp 1, tp 2, pp 1;'"
check "the other families say it too (DiT --pp 2, training --tp 2)" sh -c "
  $RUN -m dit-xl --pp 2 -o '$OPT/dit' | grep -q '^dit-xl on tpuv5p (2 chips, num_chips from the degrees: dp 1, tp 1, pp 2;' &&
  $RUN -w training --tp 2 -b 8 -o '$OPT/train' | grep -q '^llama3-8b training on tpuv5p (2 chips, num_chips from the degrees: dp 1, tp 2,'"
# The docs say what the binary does (issue 38, item 14).
check "man page: every docs/ file it names exists (SEE ALSO: docs/configs.md)" sh -c "
  grep -q 'docs/configs.md' docs/npusim.1 &&
  for f in \$(grep -o 'docs/[a-z-]*\.md' docs/npusim.1 | sort -u); do test -f \"\$f\" || { echo \"\$f\"; exit 1; }; done"
check "sweep --help names every family, not only llama" sh -c "
  $NPUSIM sweep --help >'$OPT/sweep-help.txt' && ! grep -q 'llama family' '$OPT/sweep-help.txt' &&
  grep -q 'every family' '$OPT/sweep-help.txt'"
check "docs/commands.md: every option of a command line it shows is in that command's --help" sh -c "
  grep -E '^(build/)?npusim [a-z]+' docs/commands.md | sed 's/|.*//; s/#.*//' | while read -r _ cmd rest; do
    $NPUSIM \$cmd --help >'$OPT/h.txt' 2>/dev/null || continue
    for f in \$(printf '%s\n' \"\$rest\" | grep -oE '(^|[[ ])--?[a-z][a-z0-9-]*' | tr -d '[ '); do
      grep -q -- \"\$f\" '$OPT/h.txt' || { echo \"\$cmd \$f\"; exit 1; }
    done
  done"
if command -v bash >/dev/null 2>&1; then
    check "bash completion: --set completes field names, op's -m is no model, --tp is an option of run" bash -c "
      . cli/completion/npusim.bash &&
      COMP_WORDS=('$NPUSIM' run --set hbm_bw); COMP_CWORD=3; _npusim; [ \"\${COMPREPLY[*]}\" = hbm_bw_GBps= ] &&
      COMP_WORDS=('$NPUSIM' op -m llama); COMP_CWORD=3; _npusim; [ -z \"\${COMPREPLY[*]}\" ] &&
      COMP_WORDS=('$NPUSIM' run --tp); COMP_CWORD=2; _npusim; [ \"\${COMPREPLY[*]}\" = --tp ]"
fi
check "every command's short option without its value says so with both names" sh -c "
  for c in 'run -m:-m/--model' 'sweep -b:-b/--batch-sizes' 'energy -m:-m/--models' 'carbon -c:-c/--chips' \
           'slo -c:-c/--chips' 'fleet -o:-o/--out' 'op -k:-k/--k' 'report -c:-c/--chip'; do
    $NPUSIM \${c%%:*} 2>&1 >/dev/null | grep -q \"option \${c#*:} needs a value\" || { echo \"\$c\"; exit 1; }
  done"
check "no command says a short option it does not take needs a value (-x alone 'needs a value', so -x V --help is taken)" sh -c "
  for c in \$($NPUSIM --help | awk '/^  [a-z]/ { print \$1 }'); do
    h=\$($NPUSIM \$c --help)
    for l in a b c d e f g i j k l m n o p q r s t u v w x y z; do
      # a letter its --help lists is one it takes (measure -q alone would run the benchmarks)
      printf '%s' \"\$h\" | grep -qE -- \"(^|[ [])-\$l[ ,]\" && continue
      $NPUSIM \$c -\$l 2>&1 >/dev/null | grep -q 'needs a value' || continue
      $NPUSIM \$c -\$l 1 --help >/dev/null 2>&1 || $NPUSIM \$c -\$l inference --help >/dev/null 2>&1 ||
        { echo \"\$c -\$l\"; exit 1; }
    done
  done"
check "sweep --tp: shards of a filtered sweep merge into the one run's summary" sh -c "
  S='$NPUSIM sweep --configs $CONFIGS -m llama3-8b -c 5p,6e --num-chips 8,16 -b 1,8 --tp 2,8 -j 2' &&
  \$S --summary '$OPT/one.csv' 2>/dev/null && \$S --summary '$OPT/s1.csv' --shard 1/2 2>/dev/null &&
  \$S --summary '$OPT/s2.csv' --shard 2/2 2>/dev/null && $NPUSIM merge '$OPT/m.csv' '$OPT/s1.csv' '$OPT/s2.csv' >/dev/null &&
  cmp '$OPT/m.csv' '$OPT/one.csv' && [ \$(cut -d, -f7 '$OPT/one.csv' | grep -cvx '2\|8') -eq 1 ]"
check "report takes --tp as run does (its summary says the chips derived)" sh -c "
  $NPUSIM report --configs $CONFIGS --tp 2 --pg none -o '$OPT/r.html' >/dev/null &&
  grep -q '2 chips, num_chips from the degrees: dp 1, tp 2' '$OPT/r.html'"
