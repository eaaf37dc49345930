# `npusim suite` CLI tests (sourced by tests/cli/run.sh: uses NPUSIM, CONFIGS, T,
# check, expect_fail, no_files). A small study through every kind of line; the
# calls it echoes, replayed one by one, write the same tree; --stages;
# malformed files (exit 2, nothing run); failing calls, with and without
# --keep-going.
SU_NPUSIM=$(cd "$(dirname "$NPUSIM")" && pwd)/$(basename "$NPUSIM")
SU_CONFIGS=$(cd "$CONFIGS" && pwd)
SU=$T/su
mkdir -p "$SU/a" "$SU/b" "$SU/c" "$SU/d"
cat >"$SU/study.suite" <<'EOF'
# a small study: two inference models, one training run

sweep llama3-8b inference 5p 1,2 1
sweep dlrm-s	inference 4 1 64
sweep llama3-8b training 5p 4 32
energy NoPG,Full None
carbon NoPG None 0.0624 0.6 1
slo None NoPG 0.0624 0.6
EOF
check "suite --help" sh -c "$NPUSIM suite --profile neusim --help | grep -q 'usage: npusim suite SUITE OUT'"
check "suite runs a study into one tree" sh -c "
  cd '$SU/a' && '$SU_NPUSIM' suite --configs '$SU_CONFIGS' '$SU/study.suite' out 2>'$SU/a.log' &&
  for d in raw/llama3-8b raw/dlrm-s raw_None/llama3-8b carbon_NoPG/dvfs_None slo_NoPG_None; do test -d out/\$d || exit 1; done &&
  test -s out/raw_None/llama3-8b/dp1-tp1-pp1-dpdcn1-tpdcn1-ppdcn1-bs1/inference-v5p_decode_Full.csv"
# 3 sweeps, then energy, carbon and slo once per workload (inference, training).
check "suite echoes each call, later stages once per workload" sh -c "
  test \$(grep -c '^+ npusim ' '$SU/a.log') -eq 9 &&
  grep -q '^+ npusim energy --configs .* --models dlrm-s,llama3-8b --versions 4,5p --workload inference --pg NoPG,Full --dvfs None\$' '$SU/a.log' &&
  grep -q '^+ npusim slo --configs .* --results out/carbon_NoPG/dvfs_None/CI0.0624/UTIL0.6 --out out/slo_NoPG_None --models llama3-8b --versions 5p --workload training\$' '$SU/a.log'"
# The echoed calls, run one by one elsewhere, write the same bytes (the SLO
# files hold absolute paths: compared with their folder's name taken out).
sed -n "s|^+ npusim |'$SU_NPUSIM' |p" "$SU/a.log" >"$SU/replay.sh"
check "suite: its echoed calls, replayed by hand, write the same tree" sh -c "
  cd '$SU/b' && { sh '$SU/replay.sh' >/dev/null 2>'$SU/replay.err'; true; } &&
  diff -r -x 'slo_*' '$SU/a/out' '$SU/b/out' &&
  for f in \$(cd '$SU/a/out' && find slo_NoPG_None -type f); do
    sed 's|$SU/a/||g' '$SU/a/out/'\$f >'$SU/fa' && sed 's|$SU/b/||g' '$SU/b/out/'\$f >'$SU/fb' && cmp '$SU/fa' '$SU/fb' || exit 1
  done && test -n \"\$(ls '$SU/b/out/slo_NoPG_None')\""
# The training sweep finds no configuration that fits: in the suite its energy
# and slo lines warn (the sweep said so); the same calls alone exit 2 naming it.
check "suite: a workload whose sweeps found nothing warns in the suite; its calls alone exit 2" sh -c "
  grep -q '^npusim energy: warning: no training results for any requested model and version' '$SU/a.log' &&
  grep -q '^npusim slo: warning: no training results for version 5p of any model named' '$SU/a.log' &&
  grep -q '^npusim energy: no training results for any model and version named under out/raw' '$SU/replay.err' &&
  grep -q '^npusim slo: --versions \"5p\": no training results for version 5p of any model named' '$SU/replay.err'"
# Every per-op trace the energy lines read, and every statistics file the
# energy and carbon lines edit, comes from memory (the files are the suite's
# own, unchanged): the last line says so, counts equal.
check "suite: the later stages take every trace and statistics file from memory" \
  grep -Eq '^npusim suite: from memory: ([1-9][0-9]*) of \1 sweep results taken by the energy lines, ([1-9][0-9]*) of \2 energy results by the carbon lines$' "$SU/a.log"
# Every family's statistics, training's too, and two energy lines reading
# the same sweeps (each kept result serves both: a copy, then the result): all
# from memory, and the tree the same bytes as parsing every file again.
mkdir -p "$SU/m1" "$SU/m2"
cat >"$SU/memo.suite" <<'EOF2'
sweep llama3-8b inference 5p 1,2 1
sweep dlrm-s inference 4 1 64
sweep dit-xl inference 5p 1 1
sweep gligen inference 4 1 1
sweep llama3-8b training 5p 8 1
energy NoPG,Full None
energy NoPG Ideal
carbon NoPG None 0.0624 0.6 1
EOF2
check "suite: every family and two energy lines take every file from memory, the same tree as without" sh -c "
  cd '$SU/m1' && '$SU_NPUSIM' suite --configs '$SU_CONFIGS' '$SU/memo.suite' out 2>'$SU/m1.log' &&
  grep -Eq '^npusim suite: from memory: ([1-9][0-9]*) of \\1 sweep results taken by the energy lines, ([1-9][0-9]*) of \\2 energy results by the carbon lines\$' '$SU/m1.log' &&
  test -s out/raw_Ideal/llama3-8b/dp1-tp1-pp1-dpdcn1-tpdcn1-ppdcn1-bs1/inference-v5p_decode_NoPG.csv &&
  test -n \"\$(find out/raw_None -name 'training-v5p_Full.csv')\" &&
  cd '$SU/m2' && '$SU_NPUSIM' suite --hold-MB 0 --configs '$SU_CONFIGS' '$SU/memo.suite' out 2>/dev/null &&
  diff -r '$SU/m1/out' '$SU/m2/out'"
check "suite -j 1 writes the same tree" sh -c "
  cd '$SU/c' && '$SU_NPUSIM' suite -j 1 --configs '$SU_CONFIGS' '$SU/study.suite' out 2>/dev/null &&
  diff -r -x 'slo_*' '$SU/a/out' '$SU/c/out'"
# The energy lines take the sweeps' results from memory (--hold-MB): the same
# bytes as reading the files (the replay above, in separate processes, reads
# every file; --hold-MB 0 reads them in this one).
check "suite --hold-MB 0 (no traces held) writes the same tree" sh -c "
  cd '$SU/c' && rm -rf out && '$SU_NPUSIM' suite --hold-MB 0 --configs '$SU_CONFIGS' '$SU/study.suite' out 2>/dev/null &&
  diff -r -x 'slo_*' '$SU/a/out' '$SU/c/out'"
# A budget too small for every result keeps some and reads the rest from the
# files: the same tree, and the last line says not everything came from memory.
check "suite --hold-MB 1 (some results over the budget) writes the same tree" sh -c "
  mkdir -p '$SU/c2' && cd '$SU/c2' && '$SU_NPUSIM' suite --hold-MB 1 --configs '$SU_CONFIGS' '$SU/memo.suite' out 2>'$SU/c1.log' &&
  diff -r '$SU/m1/out' '$SU/c2/out' &&
  grep -Eq '^npusim suite: from memory: ([0-9]+) of ([0-9]+) sweep results' '$SU/c1.log' &&
  ! grep -Eq '^npusim suite: from memory: ([0-9]+) of \\1 sweep results' '$SU/c1.log'"
for bad in -1 x 1.5 1048577; do
  expect_fail "suite --hold-MB $bad is refused" "--hold-MB: expected a whole number of MB from 0 to 1048576, got \"$bad\"" \
    $NPUSIM suite --profile neusim --hold-MB "$bad" --configs "$CONFIGS" "$SU/study.suite" "$SU/o0"
done
no_files "suite: a refused --hold-MB writes nothing" "$SU/o0"
check "suite --stages energy reruns only the energy lines" sh -c "
  cd '$SU/c' && rm -rf out/raw_None && '$SU_NPUSIM' suite --stages energy --configs '$SU_CONFIGS' '$SU/study.suite' out 2>'$SU/c.log' &&
  test \$(grep -c '^+ npusim ' '$SU/c.log') -eq 2 && test \$(grep -c '^+ npusim energy ' '$SU/c.log') -eq 2 &&
  grep -Eq '^npusim suite: from memory: 0 of [1-9][0-9]* sweep results taken' '$SU/c.log' &&
  diff -r '$SU/a/out/raw_None' '$SU/c/out/raw_None'"
check "suite reads the file from standard input" sh -c "
  cd '$SU/d' && grep dlrm '$SU/study.suite' | '$SU_NPUSIM' suite --configs '$SU_CONFIGS' - out 2>/dev/null &&
  diff -r '$SU/a/out/raw/dlrm-s' out/raw/dlrm-s"

# --- malformed suites: exit 2 naming the line, nothing runs or is written ---
printf 'sweep llama3-8b inference 5p 1 1\nenergy NoPG None\nrun llama3-8b\n' >"$SU/kind.suite"
expect_fail "suite: unknown line kind names file and line" 'kind.suite:3: unknown line kind "run"; expected sweep, energy, carbon or slo' \
  $NPUSIM suite --profile neusim --configs "$CONFIGS" "$SU/kind.suite" "$SU/o1"
no_files "suite: a malformed line runs nothing" "$SU/o1"
printf 'sweep llama3-8b inference 5p 1 1\ncarbon NoPG None 0.0624 0.6\n' >"$SU/few.suite"
expect_fail "suite: too few fields" 'few.suite:2: carbon line with too few fields; expected: carbon PG DVFS CI UTIL LIFETIMES' \
  $NPUSIM suite --profile neusim --configs "$CONFIGS" "$SU/few.suite" "$SU/o2"
printf 'energy NoPG None extra\n' >"$SU/many.suite"
expect_fail "suite: too many fields" 'many.suite:1: energy line with too many fields' \
  $NPUSIM suite --profile neusim --configs "$CONFIGS" "$SU/many.suite" "$SU/o2"
no_files "suite: wrong field counts run nothing" "$SU/o2"
expect_fail "suite: missing suite file" 'nope.suite: cannot open' $NPUSIM suite --profile neusim "$SU/nope.suite" "$SU/o3"
printf 'sweep llama3-8b inference 5p 1 1\0\n' >"$SU/nul.suite"
expect_fail "suite: a NUL byte" 'nul.suite: a NUL byte' $NPUSIM suite --profile neusim "$SU/nul.suite" "$SU/o3"
expect_fail "suite: unknown stage" 'unknown stage "power"' $NPUSIM suite --profile neusim --stages sweep,power "$SU/study.suite" "$SU/o3"
expect_fail "suite: unknown profile" '--profile "nope": unknown profile' $NPUSIM suite --profile nope "$SU/study.suite" "$SU/o3"
expect_fail "suite: OUT missing" 'expected SUITE and OUT, got 1 argument' $NPUSIM suite --profile neusim "$SU/study.suite"
no_files "suite: bad options write nothing" "$SU/o3"
printf 'sweep llama3-8b inference 5p 1 1\nenergy NoPG None\ncarbon NoPG None 0.1 0.6 1\nslo None NoPG 0.1 0\n' >"$SU/late.suite"
expect_fail "suite: a bad value on the last line stops it before the first runs" 'late.suite:4: UTIL "0"' \
  $NPUSIM suite --profile neusim --configs "$CONFIGS" "$SU/late.suite" "$SU/o3b"
no_files "suite: ... and nothing was written" "$SU/o3b"
# An energy line with no sweep line before it has no models: it would run nothing and say nothing.
printf '# no sweep\nenergy NoPG None\nsweep llama3-8b inference 5p 1 1\n' >"$SU/nosweep.suite"
expect_fail "suite: an energy line with no sweep before it is an error naming the line" \
  'nosweep.suite:2: energy line with no sweep line before it' \
  $NPUSIM suite --profile neusim --configs "$CONFIGS" "$SU/nosweep.suite" "$SU/o3c"
no_files "suite: ... and nothing ran" "$SU/o3c"

# --- a failing call stops the suite, unless --keep-going ---
# (A model file that exists, so that the check of every line before the run passes, but does not parse.)
printf '{"model_type": "llm",' >"$SU/broken.json"
printf 'sweep %s inference 5p 1 1\nsweep llama3-8b inference 5p 1 1\nenergy NoPG None\n' "$SU/broken.json" >"$SU/fail.suite"
expect_fail "suite: a failing call stops it and is named" 'fail.suite:1: npusim sweep failed (exit status 2)' \
  $NPUSIM suite --profile neusim --configs "$CONFIGS" "$SU/fail.suite" "$SU/o4"
check "suite: a failing call removes the tree the suite created (all or nothing)" test ! -e "$SU/o4"
mkdir -p "$SU/o4b/keep" && echo x >"$SU/o4b/keep/f"
expect_fail "suite into an existing folder, a failing call" 'npusim sweep failed' \
  $NPUSIM suite --profile neusim --configs "$CONFIGS" "$SU/fail.suite" "$SU/o4b"
check "suite: ... leaves an existing folder's files" test -s "$SU/o4b/keep/f"
expect_fail "suite --keep-going: runs the rest, exits with the failure's status" 'fail.suite:1: npusim sweep failed' \
  $NPUSIM suite --profile neusim --keep-going --configs "$CONFIGS" "$SU/fail.suite" "$SU/o5"
check "suite --keep-going: the later lines ran" test -s "$SU/o5/raw_None/llama3-8b/dp1-tp1-pp1-dpdcn1-tpdcn1-ppdcn1-bs1/inference-v5p_decode.json"
