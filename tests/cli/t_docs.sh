# Sourced by tests/cli/run.sh: what the docs and --help say is what the
# binary does (issue 38, "answers a person can act on").
#  - Every shared option (the names the issue asks be the same everywhere,
#    and the stages' table) is either listed in a command's --help or refused
#    by it ("unknown option", "does not apply to npusim CMD"): never taken
#    and ignored.
#  - The runnable ```sh blocks of docs/commands.md, the man page's EXAMPLES
#    and the commands of the README's family table run as shown (the README's
#    tour: t_tour.sh), in a scratch folder with the shipped configs.
#  - Links between the docs and the files they name exist.
DOC="$T/docs"
mkdir -p "$DOC/w" "$DOC/bin"
NP_DOC=$(cd "$(dirname "$NPUSIM")" && pwd)/$(basename "$NPUSIM")
ln -sf "$NP_DOC" "$DOC/bin/npusim"
mkdir -p "$DOC/w/build" && ln -sf "$NP_DOC" "$DOC/w/build/npusim"   # the examples' build/npusim

cat >"$DOC/probe.sh" <<'EOF'
# probe.sh NPUSIM DIR: "CMD OPT: what it said" for each option a command takes
# without listing it in its --help (run in DIR, where a taken option may write)
N=$1
refused='unknown option|does not apply|unexpected argument|needs no model'
for c in $($N --help | awk '/^  [a-z]/ { print $1 }'); do
  case $c in fields|merge) continue;; esac   # no options: arguments are refused as such
  $N $c --help >"$2/h.txt"
  for o in --model --chip --system --set --batch --workload --tp --dp --pp --ep --seqlen --out --configs --profile \
           --jobs --quiet --in --out-dir --name --no-energy --pg --dvfs --timeline --timeline-detail --force \
           -m -c -s -b -w -o -j -q -i -d; do
    case $o in --*) grep -q -- "$o" "$2/h.txt" && continue;; *) grep -qE -- "(^|[ [])$o[ ,]" "$2/h.txt" && continue;; esac
    e=$(cd "$2" && timeout 10 $N $c $o 1 2>&1 >/dev/null)
    printf '%s' "$e" | grep -q 'expected inference or training' && e=$(cd "$2" && timeout 10 $N $c $o inference 2>&1 >/dev/null)
    printf '%s' "$e" | grep -qE "$refused" || echo "$c $o: $(printf '%s' "$e" | head -n 1)"
  done
done
EOF
check "every shared option is in a command's --help or refused by it, never taken and ignored" sh -c "
  out=\$(sh '$DOC/probe.sh' '$NP_DOC' '$DOC/w'); [ -z \"\$out\" ] || { echo \"\$out\"; exit 1; }"
expect_fail "chipsim --tp: the trace fixes the parallelism, so it does not apply" \
    '\-\-tp does not apply to npusim chipsim (the trace fixes the parallelism: give it to opsgen, and to power' \
    $NPUSIM chipsim --tp 2 -i /dev/null
check "the pipe with --tp 2 --seqlen 1024_128 given to opsgen and power writes run's files, statistics too" sh -c "
  $NPUSIM opsgen --configs $CONFIGS --tp 2 --seqlen 1024_128 -b 4 | $NPUSIM chipsim --configs $CONFIGS |
    $NPUSIM power --configs $CONFIGS -m llama3-8b --tp 2 --seqlen 1024_128 -b 4 --out-dir '$DOC/pipe' >/dev/null &&
  $NPUSIM run --configs $CONFIGS --tp 2 --seqlen 1024_128 -b 4 -o '$DOC/piperun' >/dev/null &&
  for f in prefill.csv decode.csv prefill.json decode.json; do cmp '$DOC/pipe/llama3-8b_tpuv5p_'\$f '$DOC/piperun/llama3-8b_tpuv5p_'\$f || exit 1; done"
expect_fail "run --out-dir: a stage's option run does not take is refused, not ignored" \
    '\-d/\-\-out-dir does not apply to npusim run' $NPUSIM run --configs $CONFIGS --out-dir "$DOC/od" -o "$DOC/od"
no_files "  ... and run writes nothing" "$DOC/od"
expect_fail "validate -w: the measurement files hold the operators" \
    '\-w/\-\-workload does not apply to npusim validate' $NPUSIM validate -w training -c h100 /dev/null
expect_fail "op -s: an operator has no system" '\-s/\-\-system does not apply to npusim op' \
    $NPUSIM op gemm -m 8 -n 8 -k 8 -s system_config
check "the same names on every command: energy, carbon, slo -w; suite --jobs; measure -q" sh -c "
  for c in energy carbon slo; do $NPUSIM \$c -w 2>&1 | grep -q 'option -w/--workload needs a value' || { echo \$c; exit 1; }; done &&
  $NPUSIM suite --jobs 2>&1 | grep -q 'option --jobs needs a value' && $NPUSIM measure -q --check -o /dev/null 2>&1 | grep -q 'check times nothing'"

# A measurement file whose times are the predictions (+5%), so that the
# examples' --max-mape 15 passes as the docs show.
printf 'op,dtype,m,n,k,time_us\ngemm,bf16,4096,4096,4096,100\ngemm,bf16,1024,1024,1024,10\ngemm,fp16,2048,2048,2048,40\nadd,bf16,1048576,,,20\nsoftmax,bf16,4096,4096,,30\n' >"$DOC/rough.csv"
$NPUSIM validate -c h100 "$DOC/rough.csv" --csv "$DOC/merged.csv" >/dev/null 2>&1
awk -F, -v OFS=, 'NR == 1 { for (i = 1; i <= NF; i++) c[$i] = i; print "op,dtype,m,n,k,time_us"; next }
     { print $c["op"], $c["dtype"], $c["m"], $c["n"], $c["k"], $c["predicted_us"] * 1.05 }' "$DOC/merged.csv" >"$DOC/w/measured.csv"
# The ```sh blocks of docs/commands.md that are commands (not a synopsis with
# [OPTIONS] or ..., not output) and need nothing outside: serve runs until
# stopped, measure is the tour's, import and suite read files not shipped.
awk '/^```sh/ { on = 1; b = ""; next } on && /^```/ { on = 0; print b "#END"; next } on { b = b $0 "\n" }' docs/commands.md |
    awk -v dir="$DOC/w" 'BEGIN { RS = "#END\n" } NF && /^(build\/)?npusim |^for / && !/\[-|\.\.\.|\n[a-z0-9]+   / &&
         !/npusim (serve|measure|import|suite)|mpirun/ { n++; f = dir "/block" n ".sh"; printf "%s", $0 >f; close(f) } END { print n >(dir "/blocks") }'
ln -sf "$PWD/examples" "$DOC/w/examples"
check "docs/commands.md: its runnable examples run as shown (op, report, sweep, energy, carbon, slo, validate, calibrate, roofline, pipes, fleet, the chip loop)" sh -c "
  test \$(cat '$DOC/w/blocks') -ge 11 && cd '$DOC/w' &&
  for f in block*.sh; do PATH='$DOC/bin':\$PATH sh -e \$f >\$f.log 2>&1 || { echo \"\$f:\"; cat \$f; tail -n 3 \$f.log; exit 1; }; done"
sed -n '/^\.SH EXAMPLES/,/^\.fi/p' docs/npusim.1 | grep '^npusim' | grep -v 'npusim serve' | sed 's/\\-/-/g' >"$DOC/man.sh"
check "man page: its EXAMPLES run as shown" sh -c "
  test \$(wc -l <'$DOC/man.sh') -ge 6 && mkdir -p '$DOC/man' && cd '$DOC/man' && PATH='$DOC/bin':\$PATH sh -e '$DOC/man.sh' >log 2>&1"
grep -oE '`npusim (run|sweep|list) [^`]*`' README.md | tr -d '`' >"$DOC/readme.sh"
check "README: the commands of its family table and sweep examples run as shown" sh -c "
  test \$(grep -c '^npusim run' '$DOC/readme.sh') -ge 6 && mkdir -p '$DOC/readme' && cd '$DOC/readme' &&
  PATH='$DOC/bin':\$PATH sh -e '$DOC/readme.sh' >log 2>&1"
check "docs: every link between README.md and docs/*.md and every file they name exists" sh -c "
  for f in README.md docs/*.md; do
    for l in \$(grep -oE '\]\([^)#[:space:]]+' \"\$f\" | sed 's/^](//' | grep -v '^[a-z]*:'); do
      test -e \"\$(dirname \"\$f\")/\$l\" || { echo \"\$f: \$l\"; exit 1; }
    done
  done &&
  for p in \$(grep -ohE '(^|[^a-zA-Z0-9_/.~-])(docs|examples|deps|python|web|bench|configs)/[A-Za-z0-9_./-]+\.(md|json|sh|py|txt|toml|html)' README.md docs/*.md docs/npusim.1 |
              sed -E 's#^[^a-z]##' | grep -vE '[A-Z]{3,}'); do   # not a placeholder (configs/models/NAME.json)
    test -e \"\$p\" || { echo \"names \$p\"; exit 1; }
  done"

# `npusim serve` without --configs, from a folder with no configs/, finds the
# configs shipped with the binary (and only those: t_serve_strict.sh), and
# docs/api.md's curl examples answer 200 from a server started as its first
# block shows.
if command -v curl >/dev/null 2>&1; then
    serve_start $((20000 + ($$ + 7919) % 30000)) "$DOC/w" "$DOC/serve.log"   # not t_serve.sh's port
    DPORT=$SERVE_PORT DSV=$SERVE_PID
    check "serve without --configs, from a folder with no configs/, finds the configs shipped with the binary" sh -c "
      curl -sf 'http://127.0.0.1:$DPORT/api/chips' | grep -q '\"tpuv5p\"' &&
      grep -q 'names resolve in /.*/configs alone' '$DOC/serve.log'"
    awk '/^```sh/ { on = 1; b = ""; next } on && /^```/ { on = 0; print b "#END"; next } on { b = b $0 "\n" }' docs/api.md |
        awk 'BEGIN { RS = "#END\n" } /^curl/ && !/\.\.\./' |
        sed -e "s#127.0.0.1:8080#127.0.0.1:$DPORT#g" -e "s#curl -s #curl -s -o /dev/null -w '%{http_code}\\\\n' #" >"$DOC/api.sh"
    check "docs/api.md: its curl examples answer 200 (chips, op, simulate, validate as CSV and as records, sweep, fleet)" sh -c "
      test \$(grep -c '^curl' '$DOC/api.sh') -ge 7 && sh '$DOC/api.sh' >'$DOC/api.out' &&
      test \$(grep -c . '$DOC/api.out') -ge 7 && test -z \"\$(grep -v '^200\$' '$DOC/api.out')\""
    kill "$DSV" 2>/dev/null
    wait "$DSV" 2>/dev/null
else
    ok "serve and docs/api.md examples: skipped, no curl (apt-get install curl)"
fi
check "docs: every \`make TARGET\` the README and docs name is a target of the Makefile" sh -c "
  for t in \$(grep -ohE '\`make [a-z][a-z-]*' README.md docs/*.md | sed 's/^.make //' | sort -u); do
    grep -qE \"^\$t( [^=]*)?:\" Makefile || grep -qE \"^[^=#]* \$t( [^=]*)?:\" Makefile || { echo \"make \$t\"; exit 1; }
  done"
