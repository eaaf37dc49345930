# t_sweep.sh — sweep at scale: -j, --summary, --spec, --shard, npusim merge.
# Sourced by tests/cli/run.sh (uses ok/no/check/expect_fail, $T, $NPUSIM, $CONFIGS).
SW="$T/sweep"
mkdir -p "$SW/j1" "$SW/j2" "$SW/sh"
NP=$(cd "$(dirname "$NPUSIM")" && pwd)/$(basename "$NPUSIM")
CF=$(cd "$CONFIGS" && pwd)
cat >"$SW/spec.json" <<'SPEC'
{"models": ["llama3-8b"], "chips": ["tpuv5p", "6e"], "num_chips": [1, 4], "batch_sizes": [1, 16],
 "fields": {"hbm_bw_GBps": {"from": 1000, "to": 3000, "step": 2000}, "num_sa": [4, 0]}}
SPEC

# --- -j: the same results tree and summary for 1 and 2 threads (same relative paths) ---
(cd "$SW/j1" && "$NP" sweep --profile neusim --configs "$CF" --spec ../spec.json --out tree --summary s.csv -j 1 2>err)
(cd "$SW/j2" && "$NP" sweep --profile neusim --configs "$CF" --spec ../spec.json --out tree --summary s.csv -j 2 2>err)
check "sweep -j 1 and -j 2 write identical results trees and summaries" diff -r "$SW/j1" "$SW/j2"
check "sweep --spec: 2 chips x 4 field combinations x 8 points = 64 rows + header" \
    test "$(wc -l <"$SW/j1/s.csv")" -eq 65
check "sweep --spec: swept fields are columns" sh -c "head -n 1 '$SW/j1/s.csv' | grep -q ',out_of_memory,hbm_bw_GBps,num_sa\$'"
check "sweep --spec: the range gives 1000 and 3000" sh -c "cut -d, -f1 --complement '$SW/j1/s.csv' | grep -q ',3000,4\$' && ! grep -q ',5000,' '$SW/j1/s.csv'"
check "sweep --spec: a field value that fails validation is an invalid row, not fatal" \
    grep -q '^8,llama3-8b,inference,tpuv5p,1,.*"invalid: ../spec.json: chip field ""num_sa"": expected a positive value' "$SW/j1/s.csv"
check "sweep --spec: field combinations get their own results-tree folders" \
    test -s "$SW/j1/tree/llama3-8b+hbm_bw_GBps=3000+num_sa=4/dp1-tp4-pp1-dpdcn1-tpdcn1-ppdcn1-bs16/inference-v6e_decode.json"
check "sweep: stderr not a terminal: no progress, only the counts line, what it wrote, the summary's carbon inputs and (neusim) the invariants warning" \
    sh -c "test \"\$(head -n 1 '$SW/j1/err')\" = 'npusim sweep: 20 configurations simulated, 44 invalid, 0 already present' &&
           test \"\$(wc -l <'$SW/j1/err')\" -eq 4 &&
           sed -n 2p '$SW/j1/err' | grep -qx 'npusim sweep: wrote tree/ and s.csv' &&
           grep -q '^npusim sweep: summary carbon columns: carbon defaults from .*systems/system_config.json: 0.5 kgCO2e/kWh, 1 year (the reference.s carbon script (--profile neusim)), duty cycle 0.6 (the reference.s carbon script (--profile neusim)), PUE 1.1\$' '$SW/j1/err' &&
           grep -q '^npusim sweep: warning: 20 of 20 simulated points violate a physical invariant; first: llama3-8b on tpuv5p llama3-8b+hbm_bw_GBps=1000+num_sa=4/dp1-tp1-pp1-dpdcn1-tpdcn1-ppdcn1-bs1: ' '$SW/j1/err'"

# --- bundles: consecutive field combinations that leave the generators'
# inputs alone share one generated trace, timed on each combination's chip
# (sweep_points.h); every row must equal a sweep of its combination alone.
# ici_bw_GBps is a generator input (a new value starts a new bundle); num_sa
# 0 is an invalid value between two bundled ones. Shards cut across bundles. ---
cat >"$SW/bundle.json" <<'SPEC'
{"models": ["llama3-8b"], "chips": ["tpuv5p"], "num_chips": [1, 4], "batch_sizes": [1, 16],
 "fields": {"ici_bw_GBps": [50, 100], "num_sa": [4, 8, 0, 2]}}
SPEC
(cd "$SW/sh" && "$NP" sweep --configs "$CF" --spec ../bundle.json --summary bundle.csv -j 2 2>/dev/null)
: >"$SW/sh/alone.txt"
mkdir -p "$SW/one/x"   # ../bundle.json again, as invalid rows name the spec file
for ici in 50 100; do
    for sa in 4 8 0 2; do
        sed "s/\[50, 100\]/[$ici]/; s/\[4, 8, 0, 2\]/[$sa]/" "$SW/bundle.json" >"$SW/one/bundle.json"
        (cd "$SW/one/x" && "$NP" sweep --configs "$CF" --spec ../bundle.json --summary one.csv 2>/dev/null)
        tail -n +2 "$SW/one/x/one.csv" | cut -d, -f2- >>"$SW/sh/alone.txt"
    done
done
rm -rf "$SW/one"
check "bundled sweep: 8 combinations x 8 points, indices 0..63 in order" \
    sh -c "test \"\$(cut -d, -f1 '$SW/sh/bundle.csv' | paste -sd' ')\" = \"index \$(seq -s' ' 0 63)\""
check "bundled sweep: every row equals its combination swept alone (ok and invalid rows)" \
    sh -c "tail -n +2 '$SW/sh/bundle.csv' | cut -d, -f2- | cmp -s - '$SW/sh/alone.txt' &&
           grep -q ',ok,.*,50,8\$' '$SW/sh/bundle.csv' && grep -q ',\"invalid: .*,100,0\$' '$SW/sh/bundle.csv'"
(cd "$SW/sh" && for k in 1 2 3; do "$NP" sweep --configs "$CF" --spec ../bundle.json --summary "b$k.csv" --shard $k/3 -j 2 2>/dev/null; done)
check "bundled sweep: shards 1/3, 2/3, 3/3 merged == one run" \
    sh -c "'$NPUSIM' merge '$SW/sh/bm.csv' '$SW/sh/b1.csv' '$SW/sh/b2.csv' '$SW/sh/b3.csv' && cmp '$SW/sh/bm.csv' '$SW/sh/bundle.csv'"
rm -f "$SW/sh/bundle.csv" "$SW/sh/alone.txt" "$SW/sh/b1.csv" "$SW/sh/b2.csv" "$SW/sh/b3.csv" "$SW/sh/bm.csv"

# Every family: two chip fields swept (one bundle of 4 chips per point,
# DLRM's traces holding one timing group per chip) give the rows of the
# combinations swept one by one.
mkdir -p "$SW/fam/x"
for case in "llama3-8b training 8 8" "deepseekv2-236b inference 16 8" "dlrm-s inference 4 64" \
            "dit-xl inference 8 1" "gligen inference 4 1"; do
    set -- $case
    fam_spec() { # HBM FREQ DIR
        printf '{"models": ["%s"], "workload": "%s", "chips": ["tpuv5p"], "num_chips": [%s], "batch_sizes": [%s], "fields": {"hbm_bw_GBps": %s, "freq_GHz": %s}}\n' \
            "$1" "$2" "$3" "$4" "$5" "$6" >"$7/spec.json"
    }
    fam_spec "$1" "$2" "$3" "$4" "[1000, 3000]" "[1.0, 1.5]" "$SW/fam"
    (cd "$SW/fam" && "$NP" sweep --configs "$CF" --spec spec.json --summary all.csv -j 2 2>/dev/null)
    : >"$SW/fam/alone.txt"
    for h in 1000 3000; do
        for f in 1.0 1.5; do
            fam_spec "$1" "$2" "$3" "$4" "[$h]" "[$f]" "$SW/fam/x"
            (cd "$SW/fam/x" && "$NP" sweep --configs "$CF" --spec spec.json --summary one.csv 2>/dev/null)
            tail -n +2 "$SW/fam/x/one.csv" | cut -d, -f2- >>"$SW/fam/alone.txt"
        done
    done
    check "bundled sweep of $1 $2 (hbm_bw_GBps x freq_GHz): rows equal the combinations swept alone" \
        sh -c "tail -n +2 '$SW/fam/all.csv' | cut -d, -f2- | cmp -s - '$SW/fam/alone.txt' && grep -q ',ok,' '$SW/fam/all.csv'"
done
rm -rf "$SW/fam"

# --- lean traces: a summary-only sweep skips the per-op text (tile shapes,
# shape strings); its rows must equal those of a sweep that writes the tree,
# for every family ---
for case in "llama3-8b inference 5p 1,4 1,16" "llama3-8b training 5p 8 8" "deepseekv2-236b inference 5p 16 8" \
            "dlrm-s inference 5p 4 64" "dit-xl inference 5p 8 1" "gligen inference 4 4 1"; do
    set -- $case
    (cd "$SW/sh" && "$NP" sweep --configs "$CF" --models "$1" --workload "$2" --versions "$3" --num-chips "$4" \
        --batch-sizes "$5" --out "lean_tree_$1_$2" --summary "full_$1_$2.csv" 2>/dev/null &&
     "$NP" sweep --configs "$CF" --models "$1" --workload "$2" --versions "$3" --num-chips "$4" \
        --batch-sizes "$5" --summary "lean_$1_$2.csv" 2>/dev/null)
    check "summary-only sweep of $1 $2 equals the rows written next to the tree (and simulates some)" \
        sh -c "cmp -s '$SW/sh/full_$1_$2.csv' '$SW/sh/lean_$1_$2.csv' && grep -q ',ok,' '$SW/sh/lean_$1_$2.csv'"
    # every family fills the memory columns on each row that ran, with a
    # footprint its statistics JSONs hold (LLM inference: the larger phase's)
    check "sweep summary of $1 $2: memory_GiB and out_of_memory filled, as the statistics JSONs say" \
        python3 - "$SW/sh/full_$1_$2.csv" "$SW/sh/lean_tree_$1_$2" <<'PY'
import csv, glob, json, sys
mem = set()
for f in glob.glob(sys.argv[2] + '/**/*.json', recursive=True):
    j = json.load(open(f))
    if 'mem_footprint_GB' in j:
        mem.add((j['mem_footprint_GB'], j['out_of_memory']))
ok = [r for r in csv.DictReader(open(sys.argv[1])) if r['status'] == 'ok']
assert ok and mem, (len(ok), len(mem))
for r in ok:
    got = (float(r['memory_GiB']), {'True': True, 'False': False}[r['out_of_memory']])
    assert any(abs(got[0] - m) <= 1e-9 * m and got[1] == o for m, o in mem), (r['model'], got, sorted(mem)[:4])
PY
    rm -rf "$SW/sh/lean_tree_$1_$2" "$SW/sh/full_$1_$2.csv" "$SW/sh/lean_$1_$2.csv"
done

# --- summary: rows in order, one row checked against npusim run ---
(cd "$SW/sh" && "$NP" sweep --profile neusim --configs "$CF" --models llama3-8b --versions 5p --num-chips 1,4 --batch-sizes 1,16 --summary one.csv 2>/dev/null)
check "sweep --summary writes no per-op files without --out" sh -c "test \"\$(ls '$SW/sh')\" = one.csv"
check "sweep --summary: 8 rows + header, indices 0..7 in order" \
    sh -c "test \"\$(cut -d, -f1 '$SW/sh/one.csv' | paste -sd' ')\" = 'index 0 1 2 3 4 5 6 7'"
row=$(grep '^7,' "$SW/sh/one.csv")
check "sweep --summary: row 7 is llama3-8b, tpuv5p, 4 chips, tp 4, batch 16, ok" \
    sh -c "echo '$row' | grep -q '^7,llama3-8b,inference,tpuv5p,4,1,4,1,1,1,1,16,ok,'"
"$NPUSIM" run --profile neusim --configs "$CONFIGS" -m llama3-8b -c tpuv5p --batch 16 --set num_chips=4 \
    --set tensor_parallelism_degree=4 --out "$SW/run" >/dev/null 2>&1
ttft=$(sed -n 's/.*"TTFT_sec": \([0-9.e-]*\).*/\1/p' "$SW/run/llama3-8b_tpuv5p_prefill.json")
tpot=$(sed -n 's/.*"TPOT_ms_request": \([0-9.e-]*\).*/\1/p' "$SW/run/llama3-8b_tpuv5p_decode.json")
dec=$(sed -n 's/.*"throughput_tokens_per_sec": \([0-9.e-]*\).*/\1/p' "$SW/run/llama3-8b_tpuv5p_decode.json")
check "sweep --summary: TTFT, TPOT and decode tokens/s equal npusim run's ($ttft s, $tpot ms)" \
    sh -c "echo '$row' | cut -d, -f14,15,17 | grep -qx '$ttft,$tpot,$dec'"
check "sweep --summary: invalid points say why" grep -q '^1,.*,invalid: decode footprint' "$SW/sh/one.csv"

# --- shards: 1/2 + 2/2 merged == one run; SLURM variables ---
(cd "$SW/sh" && "$NP" sweep --profile neusim --configs "$CF" --models llama3-8b --versions 5p --num-chips 1,4 --batch-sizes 1,16 --summary a.csv --shard 1/2 2>/dev/null &&
 "$NP" sweep --profile neusim --configs "$CF" --models llama3-8b --versions 5p --num-chips 1,4 --batch-sizes 1,16 --summary b.csv --shard 2/2 2>/dev/null)
check "sweep --shard 1/2 keeps even indices, then its closing line" sh -c "test \"\$(cut -d, -f1 '$SW/sh/a.csv' | paste -sd' ')\" = 'index 0 2 4 6 #shard 1/2 points 8'"
sed '$d' "$SW/sh/b.csv" >"$SW/sh/b_cut.csv"
expect_fail "merge: a shard without its closing line is an error" 'b_cut.csv: ends without' "$NPUSIM" merge "$SW/sh/m2.csv" "$SW/sh/a.csv" "$SW/sh/b_cut.csv"
sed '$d' "$SW/sh/b.csv" | sed '$d' >"$SW/sh/b_lost.csv"; tail -n 1 "$SW/sh/b.csv" >>"$SW/sh/b_lost.csv"
expect_fail "merge: a shard that lost its last row is an error" 'rows 7 to 7 are missing' "$NPUSIM" merge "$SW/sh/m2.csv" "$SW/sh/a.csv" "$SW/sh/b_lost.csv"
awk -F, 'NR == 3 { NF = NF - 1 } 1' OFS=, "$SW/sh/b.csv" >"$SW/sh/b_ragged.csv"
expect_fail "merge: a ragged row is an error" 'b_ragged.csv:3: .* fields, expected' "$NPUSIM" merge "$SW/sh/m2.csv" "$SW/sh/a.csv" "$SW/sh/b_ragged.csv"
check "npusim merge of shards 2/2 and 1/2 == one run, byte for byte" \
    sh -c "'$NPUSIM' merge '$SW/sh/m.csv' '$SW/sh/b.csv' '$SW/sh/a.csv' >'$SW/sh/m.out' && cmp '$SW/sh/m.csv' '$SW/sh/one.csv' &&
      grep -qx 'npusim merge: wrote $SW/sh/m.csv' '$SW/sh/m.out'"
(cd "$SW/sh" && SLURM_ARRAY_TASK_ID=5 SLURM_ARRAY_TASK_MIN=4 SLURM_ARRAY_TASK_COUNT=2 \
    "$NP" sweep --profile neusim --configs "$CF" --models llama3-8b --versions 5p --num-chips 1,4 --batch-sizes 1,16 --summary slurm.csv 2>/dev/null)
check "sweep: SLURM_ARRAY_TASK_ID 5 of MIN 4, COUNT 2 is shard 2/2" cmp "$SW/sh/slurm.csv" "$SW/sh/b.csv"
expect_fail "merge: a missing shard is an error" 'missing' "$NPUSIM" merge "$SW/sh/m2.csv" "$SW/sh/b.csv"
expect_fail "merge: the same shard twice is an error" 'more than one shard' "$NPUSIM" merge "$SW/sh/m2.csv" "$SW/sh/a.csv" "$SW/sh/a.csv" "$SW/sh/b.csv"
check "merge: failures leave no output" test ! -e "$SW/sh/m2.csv"
expect_fail "merge: headers must agree" 'header differs' "$NPUSIM" merge "$SW/sh/m3.csv" "$SW/sh/a.csv" "$SW/j1/s.csv"
expect_fail "sweep --shard 3/2" '--shard "3/2"' "$NPUSIM" sweep --profile neusim --configs "$CONFIGS" --models llama3-8b --versions 5p --num-chips 1 --batch-sizes 1 --summary "$SW/x.csv" --shard 3/2
expect_fail "sweep -j 0" '-j "0"' "$NPUSIM" sweep --profile neusim --configs "$CONFIGS" --models llama3-8b --versions 5p --num-chips 1 --batch-sizes 1 -j 0

# --- bad specs: exit 2, the message names the spec file and key, nothing written ---
bad_spec() { # DESC PATTERN JSON
    printf '%s\n' "$3" >"$SW/bad.json"
    expect_fail "bad spec: $1" "$2" "$NPUSIM" sweep --profile neusim --configs "$CONFIGS" --spec "$SW/bad.json" --summary "$SW/bad.csv"
}
B='"models": ["llama3-8b"], "chips": ["tpuv5p"], "num_chips": [1], "batch_sizes": [1]'
bad_spec "unknown field" 'bad.json: fields: unknown config field "hbm_frobs"' "{$B, \"fields\": {\"hbm_frobs\": [1]}}"
bad_spec "unknown top-level key" 'bad.json: unknown key "modles"' "{$B, \"modles\": []}"
bad_spec "empty list" 'bad.json: fields.num_sa: empty list' "{$B, \"fields\": {\"num_sa\": []}}"
bad_spec "step of zero" 'bad.json: fields.hbm_bw_GBps: range step must not be zero' "{$B, \"fields\": {\"hbm_bw_GBps\": {\"from\": 1, \"to\": 5, \"step\": 0}}}"
bad_spec "negative step" 'fields.hbm_bw_GBps: range step must be positive' "{$B, \"fields\": {\"hbm_bw_GBps\": {\"from\": 9, \"to\": 5, \"step\": -1}}}"
bad_spec "from > to" 'fields.hbm_bw_GBps: range from (9) is greater than to (5)' "{$B, \"fields\": {\"hbm_bw_GBps\": {\"from\": 9, \"to\": 5, \"step\": 1}}}"
bad_spec "non-numeric bound" 'fields.hbm_bw_GBps: range "to" must be a number' "{$B, \"fields\": {\"hbm_bw_GBps\": {\"from\": 1, \"to\": \"8k\", \"step\": 1}}}"
bad_spec "integer field with a fractional step" 'fields.num_sa: range "step" must be an integer' "{$B, \"fields\": {\"num_sa\": {\"from\": 1, \"to\": 8, \"step\": 0.5}}}"
bad_spec "value of the wrong type" 'fields.num_sa\[1\]: "eight" is not an integer' "{$B, \"fields\": {\"num_sa\": [4, \"eight\"]}}"
bad_spec "range on a string field" 'fields.ICI_topology: a range needs a numeric field' "{$B, \"fields\": {\"ICI_topology\": {\"from\": 1, \"to\": 2, \"step\": 1}}}"
bad_spec "a field the sweep sets" 'fields: "tensor_parallelism_degree" is set by the sweep' "{$B, \"fields\": {\"tensor_parallelism_degree\": [2]}}"
bad_spec "empty num_chips" 'bad.json: "num_chips": expected a non-empty list' '{"models": ["llama3-8b"], "chips": ["tpuv5p"], "num_chips": [], "batch_sizes": [1]}'
bad_spec "invalid JSON" 'bad.json:2: invalid JSON' "{$B,
  \"fields\": }"
bad_spec "unknown model" 'unknown model "llama9"' '{"models": ["llama9"], "chips": ["tpuv5p"], "num_chips": [1], "batch_sizes": [1]}'
check "bad specs write no summary" test ! -e "$SW/bad.csv"
check "examples/sweep-spec.json parses (dry run)" sh -c "'$NPUSIM' sweep --configs '$CONFIGS' --spec examples/sweep-spec.json --num-chips 1 --batch-sizes 1 --dry-run -j 2 2>&1 | grep -q '^npusim sweep: [0-9]* configurations simulated'"

# --- progress: on a terminal, a live done/total, rate and time-left line ---
# script(1) (util-linux, always on Debian) gives the sweep a pseudo-terminal.
# The line is first drawn after 0.25 s, so the sweep is made long enough to
# draw it with a wide margin (about a second; 5,604 points took under 0.25 s
# in a fast minute and the check failed).
cat >"$SW/long.json" <<'SPEC'
{"models": ["llama3-8b"], "chips": ["tpuv5p", "6e"], "num_chips": [1], "batch_sizes": [1, 16],
 "fields": {"hbm_bw_GBps": {"from": 1000, "to": 8000, "step": 1}}}
SPEC
if command -v script >/dev/null 2>&1; then
    CR=$(printf '\r')
    script -qec "'$NP' sweep --profile neusim --configs '$CF' --spec '$SW/long.json' --summary '$SW/long.csv' -j 1" "$SW/tty.log" >/dev/null 2>&1
    check "sweep on a terminal: a progress line with done/total, percent, rate and time left" \
        grep -aqE 'npusim sweep: [0-9]+/28004 \([0-9.]+%\)  [0-9.]+/s  [0-9]+:[0-9]{2} left' "$SW/tty.log"
    check "sweep on a terminal: the progress line is blanked, then the counts line (28004 points)" \
        grep -aqE "$CR {20,}${CR}npusim sweep: 14002 configurations simulated, 14002 invalid" "$SW/tty.log"
fi

# --- a results tree gets whole configurations only (written beside it, each published whole as it
# finishes: study/stages/staging.h); t_interrupt.sh interrupts and kills sweeps ---
printf '{"models": ["llama3-8b"], "chips": ["tpuv5p"], "num_chips": [1], "batch_sizes": [1], "fields": {"hbm_bw_GBps": [2765, 0.001]}}' >"$SW/fail-spec.json"
expect_fail "sweep: a point that fails stops the sweep" 'decode time: .*exceeds 2^63 ns' \
    "$NPUSIM" sweep --profile neusim --configs "$CONFIGS" --spec "$SW/fail-spec.json" --seqlen 4096_16777216 --out "$SW/stage/new/tree"
check "sweep: ... keeps the configuration finished before it, whole (5 files), and no staging folder" sh -c "
  test \"\$(find '$SW/stage' -type f | wc -l)\" -eq 5 &&
  test \"\$(find '$SW/stage' -type f -path '*hbm_bw_GBps=2765/dp1-tp1-pp1-dpdcn1-tpdcn1-ppdcn1-bs1/inference-v5p*' | wc -l)\" -eq 5 &&
  test -z \"\$(ls -A '$SW/stage/new' | grep tmp)\""
mkdir -p "$SW/stage2"
"$NPUSIM" sweep --profile neusim --configs "$CONFIGS" --models llama3-8b --versions 5p --num-chips 1 --batch-sizes 1 --out "$SW/stage2/tree" 2>/dev/null
(cd "$SW/stage2" && find . ! -type d -printf '%p %s %T@\n' | sort) >"$SW/stage2.before"
expect_fail "sweep into an existing tree that fails" 'exceeds 2^63 ns' \
    "$NPUSIM" sweep --profile neusim --configs "$CONFIGS" --spec "$SW/fail-spec.json" --seqlen 4096_16777216 --out "$SW/stage2/tree"
check "sweep: ... leaves the existing files as they were" sh -c "(cd '$SW/stage2' && find ./tree/llama3-8b ! -type d -printf '%p %s %T@\n' | sort) | cmp - '$SW/stage2.before'"
check "sweep into an existing tree adds its points beside the old ones" sh -c "
  '$NPUSIM' sweep --configs '$CONFIGS' --models llama3-8b --versions 5p --num-chips 1 --batch-sizes 2 --out '$SW/stage2/tree' 2>/dev/null &&
  test -s '$SW/stage2/tree/llama3-8b/dp1-tp1-pp1-dpdcn1-tpdcn1-ppdcn1-bs1/inference-v5p.csv' &&
  test -s '$SW/stage2/tree/llama3-8b/dp1-tp1-pp1-dpdcn1-tpdcn1-ppdcn1-bs2/inference-v5p.csv' &&
  test -z \"\$(ls -A '$SW/stage2' | grep tmp)\""
