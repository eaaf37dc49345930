# Sourced by tests/cli/run.sh: `npusim validate --runs`, measured end-to-end
# runs against npusim's predictions (docs/validation.md, "End-to-end runs").
# tests/data/runs-small.csv holds six made-up rows on h100, a100 and tpuv5e;
# the figures are checked against the rows' own predicted and measured
# values, and two rows' predictions against the files `npusim run` writes
# for the same configuration.
RU="$T/runs"
mkdir -p "$RU"
RS=tests/data/runs-small.csv
check "validate --runs: the table, the figures and the three reports" sh -c "
  $NPUSIM validate --configs $CONFIGS --runs $RS --json '$RU/v.json' --csv '$RU/v.csv' --md '$RU/v.md' >'$RU/out' &&
  for id in T1 T2 T3 T4 T5 T6; do grep -q \"^\$id  *test source\" '$RU/out' || exit 1; done &&
  grep -q '^metric  *count errors' '$RU/out' && grep -q '^source  *count' '$RU/out' && grep -q '^chip  *count' '$RU/out' &&
  grep -q '^overall  *6  *0 ' '$RU/out' && grep -q '^test source B  *3  *0 ' '$RU/out' && grep -q '^h100  *4  *0 ' '$RU/out'"
# The figures from the rows: APE = |pred - meas| / meas; the MAPE their mean,
# the median and max, the bias the mean signed error; each metric from TTFT
# and TPOT as docs/validation.md says (e2e: TTFT + (out - 1) x TPOT;
# throughput: dp x batch x out over it).
check "validate --runs: each metric from TTFT and TPOT, MAPE, median, max and bias per group and overall" python3 - "$RU/v.json" <<'PY'
import json, statistics, sys
d = json.load(open(sys.argv[1]))
rows = d["rows"]
assert [r["id"] for r in rows] == ["T1", "T2", "T3", "T4", "T5", "T6"]
for r in rows:
    ttft_ms, tpot = r["TTFT_sec"] * 1000, r["TPOT_ms_request"]
    e2e = ttft_ms + (r["output_len"] - 1) * tpot
    want = {"ttft_ms": ttft_ms, "tpot_ms": tpot, "decode_step_ms": tpot, "e2e_latency_ms": e2e,
            "throughput_tokens_per_s": r["dp"] * r["batch"] * r["output_len"] / (e2e / 1000)}[r["metric"]]
    assert abs(r["predicted"] - want) <= 1e-9 * want, (r["id"], r["predicted"], want)
    assert abs(r["error_pct"] - (r["predicted"] - r["measured"]) / r["measured"] * 100) < 1e-9
def check(g, rs):
    ape = [abs(r["error_pct"]) for r in rs]
    assert g["count"] == len(rs) and g["not_predicted"] == 0
    for k, v in (("mape_pct", sum(ape) / len(ape)), ("median_ape_pct", statistics.median(ape)),
                 ("max_ape_pct", max(ape)), ("bias_pct", sum(r["error_pct"] for r in rs) / len(rs))):
        assert abs(g[k] - v) < 1e-9, (k, g[k], v)
check(d["overall"], rows)
for key, group in (("metric", "by_metric"), ("source", "by_source"), ("chip", "by_chip")):
    names = list(dict.fromkeys(r[key] for r in rows))
    assert list(d[group]) == names, (group, list(d[group]))
    for n in names:
        check(d[group][n], [r for r in rows if r[key] == n])
assert d["by_chip"]["h100"]["count"] == 4 and d["provenance"]["runs"] == ["runs-small.csv"]
PY
check "validate --runs: the merged CSV keeps every input column, then predicted, error_pct, error" sh -c "
  head -n 1 '$RU/v.csv' | grep -qx 'file,line,id,source,metric,measured,chip,model,tp,pp,ep,dp,batch,input_len,output_len,weight_dtype,activation_dtype,kv_cache_dtype,sets,conditions,note,predicted,error_pct,error' &&
  grep -q '^$RS,4,T1,test source A,ttft_ms,250,h100,llama3-8b,1,1,,1,8,2048,128,,,,,\"engine X, made up\",first,[0-9.]*,[0-9.]*,\$' '$RU/v.csv' &&
  test \$(wc -l <'$RU/v.csv') -eq 7"
check "validate --runs: the markdown report has the groups and every run" sh -c "
  grep -q '^## By metric' '$RU/v.md' && grep -q '^## By source' '$RU/v.md' && grep -q '^## By chip' '$RU/v.md' &&
  grep -q '^| T6 | test source B | tpuv5e | llama3-8b | ttft_ms | 310 | ' '$RU/v.md'"
# The prediction is what `npusim run --no-energy` writes (the pipeline
# without the energy pass): TTFT_sec of *_prefill.json (T1: llama3-8b on one
# h100, batch 8, 2048 in, 128 out) and TPOT_ms_request of *_decode.json (T5:
# llama3-70b on 4 h100 with tp 4, batch 16). Plain `npusim run` (the energy
# pass on) moves T1's TTFT by 96 ns of 272 ms: within 1e-6.
check "validate --runs: T1's ttft_ms is 1000 x the TTFT_sec npusim run writes, T5's decode_step_ms its TPOT" sh -c "
  $NPUSIM run --configs $CONFIGS -m llama3-8b -c h100 --set num_chips=1 --set tensor_parallelism_degree=1 \
    --set input_seqlen=2048 --set output_seqlen=128 --batch 8 --no-energy -o '$RU/t1' >/dev/null &&
  $NPUSIM run --configs $CONFIGS -m llama3-8b -c h100 --set num_chips=1 --set tensor_parallelism_degree=1 \
    --set input_seqlen=2048 --set output_seqlen=128 --batch 8 -o '$RU/t1e' >/dev/null &&
  $NPUSIM run --configs $CONFIGS -m llama3-70b -c h100 --set num_chips=4 --set tensor_parallelism_degree=4 \
    --set input_seqlen=2048 --set output_seqlen=128 --batch 16 --no-energy -o '$RU/t5' >/dev/null &&
  python3 - '$RU' <<'PY'
import csv, json, sys
d = sys.argv[1]
pred = {r['id']: float(r['predicted']) for r in csv.DictReader(open(d + '/v.csv'))}
ttft = json.load(open(d + '/t1/llama3-8b_h100_prefill.json'))['TTFT_sec']
ttft_e = json.load(open(d + '/t1e/llama3-8b_h100_prefill.json'))['TTFT_sec']
tpot = json.load(open(d + '/t5/llama3-70b_h100_decode.json'))['TPOT_ms_request']
assert pred['T1'] == ttft * 1000, (pred['T1'], ttft)
assert abs(pred['T1'] - ttft_e * 1000) <= 1e-6 * pred['T1'], (pred['T1'], ttft_e)
assert pred['T5'] == tpot, (pred['T5'], tpot)
PY"
# Rows no run predicts: a model of no LLM inference family, a model that does
# not fit its chip, a tensor parallelism that does not divide the heads. Each
# says why in the table, is counted and stays out of the figures.
cat >"$RU/mixed.csv" <<'CSV'
id,source,metric,measured,chip,model,tp,batch,input_len,output_len
G,S,tpot_ms,6,h100,llama3-8b,1,8,2048,128
D,S,ttft_ms,5,h100,dlrm-s,1,8,2048,128
M,S,ttft_ms,5,a100,llama3-70b,1,8,2048,128
P,S,ttft_ms,5,h100,llama3-8b,3,8,2048,128
CSV
check "validate --runs: rows that cannot be predicted say why, are counted and left out of the figures" sh -c "
  $NPUSIM validate --configs $CONFIGS --runs '$RU/mixed.csv' --json '$RU/m.json' --csv '$RU/m.csv' >'$RU/mout' &&
  grep -q '^D .* error: model \"dlrm-s\": dlrm inference is not LLM inference' '$RU/mout' &&
  grep -q '^M .* error: out of memory' '$RU/mout' && grep -q '^P .* error: .*does not divide' '$RU/mout' &&
  grep -q '^overall  *1  *3 ' '$RU/mout' &&
  tr -d ' \t\n' <'$RU/m.json' | grep -q '\"overall\":{\"count\":1,\"not_predicted\":3,' &&
  grep -q '^$RU/mixed.csv,4,M,.*,,,\"out of memory: ' '$RU/m.csv'"
check "validate --runs --max-mape: exit 1 when no row could be predicted" sh -c "
  sed -n '1p;3,5p' '$RU/mixed.csv' >'$RU/none.csv' &&
  $NPUSIM validate --configs $CONFIGS --runs '$RU/none.csv' --max-mape 50 >/dev/null 2>'$RU/err'; test \$? -eq 1 &&
  grep -q 'no row could be predicted' '$RU/err'"
check "validate --runs --max-mape: 30 passes, 10 exits 1" sh -c "
  $NPUSIM validate --configs $CONFIGS --runs $RS --max-mape 30 >/dev/null &&
  { $NPUSIM validate --configs $CONFIGS --runs $RS --max-mape 10 >/dev/null 2>'$RU/err'; test \$? -eq 1; } &&
  grep -q 'is above --max-mape 10%' '$RU/err'"
# Relative chip and model paths are relative to the runs file's folder.
mkdir -p "$RU/sub/cfg"
cp "$CONFIGS/chips/h100.json" "$RU/sub/cfg/myh100.json"
printf 'id,source,metric,measured,chip,model,batch,input_len,output_len\nR,S,tpot_ms,6,cfg/myh100.json,llama3-8b,8,2048,128\n' >"$RU/sub/rel.csv"
NPABS=$(cd "$(dirname "$NPUSIM")" && pwd)/$(basename "$NPUSIM")
check "validate --runs: a relative chip path is relative to the runs file's folder" sh -c "
  cd / && '$NPABS' validate --configs $CONFIGS --runs '$RU/sub/rel.csv' --json '$RU/rel.json' >/dev/null &&
  python3 -c \"import json; a = json.load(open('$RU/rel.json'))['rows'][0]['predicted']; b = json.load(open('$RU/v.json'))['rows'][1]['predicted']; assert a == b, (a, b)\""
check "validate --runs: several files, the positional ones runs files too" sh -c "
  $NPUSIM validate --configs $CONFIGS --runs $RS '$RU/mixed.csv' | grep -q '^overall  *7  *3 '"
check "validate --help mentions --runs" sh -c "$NPUSIM validate --help | grep -q -- '--runs FILE'"
# Bad input: exit 2, the message names the file, the line and the column, nothing written.
H=id,source,metric,measured,chip,model,batch,input_len,output_len
bad_runs() { # DESC PATTERN CONTENT
    printf '%b' "$3" >"$RU/bad.csv"
    expect_fail "validate --runs: $1" "$2" $NPUSIM validate --configs $CONFIGS --runs "$RU/bad.csv" --json "$RU/bad/b.json" --md "$RU/bad/b.md"
    no_files "validate --runs: $1 writes nothing" "$RU/bad"
}
bad_runs "a missing column" 'bad.csv: line 1: column "batch": missing' 'id,source,metric,measured,chip,model,input_len,output_len\nA,S,ttft_ms,1,h100,llama3-8b,1,1\n'
bad_runs "an unknown metric" 'bad.csv: line 2: column "metric": expected ttft_ms, tpot_ms' "$H\nA,S,latency,1,h100,llama3-8b,1,1,1\n"
bad_runs "a measured value that is not a number" 'bad.csv: line 2: column "measured": expected a value above 0' "$H\nA,S,ttft_ms,fast,h100,llama3-8b,1,1,1\n"
bad_runs "a measured value of 0" 'bad.csv: line 2: column "measured": expected a value above 0' "$H\nA,S,ttft_ms,0,h100,llama3-8b,1,1,1\n"
bad_runs "a batch that is not an integer" 'bad.csv: line 2: column "batch": expected a positive integer' "$H\nA,S,ttft_ms,1,h100,llama3-8b,2.5,1,1\n"
bad_runs "output_len 0" 'bad.csv: line 2: column "output_len": expected a positive integer' "$H\nA,S,ttft_ms,1,h100,llama3-8b,1,1,0\n"
bad_runs "degrees past the chips" 'bad.csv: line 2: columns "tp", "pp", "dp": the degrees multiply to more than' "$H,tp,pp,dp\nA,S,ttft_ms,1,h100,llama3-8b,1,1,1,1024,1024,2\n"
bad_runs "an unknown chip" 'bad.csv: line 3: column "chip": unknown chip "h900"' "$H\nA,S,ttft_ms,1,h100,llama3-8b,1,1,1\nB,S,ttft_ms,1,h900,llama3-8b,1,1,1\n"
bad_runs "an unknown model" 'bad.csv: line 2: column "model": unknown model "llama9"' "$H\nA,S,ttft_ms,1,h100,llama9,1,1,1\n"
bad_runs "an unknown format" 'bad.csv: line 2: column "kv_cache_dtype": model field "kv_cache_dtype": expected one of' "$H,kv_cache_dtype\nA,S,ttft_ms,1,h100,llama3-8b,1,1,1,fp9\n"
bad_runs "an unknown field in sets" 'bad.csv: line 2: column "sets": --set "frobs": unknown field' "$H,sets\nA,S,ttft_ms,1,h100,llama3-8b,1,1,1,frobs=2\n"
bad_runs "a duplicate id" 'bad.csv: line 4: column "id": "A" given twice (first on line 2)' "$H\nA,S,ttft_ms,1,h100,llama3-8b,1,1,1\n# x\nA,S,tpot_ms,1,h100,llama3-8b,1,1,1\n"
bad_runs "a short row" 'bad.csv: line 2: expected 9 cells as the header, got 8' "$H\nA,S,ttft_ms,1,h100,llama3-8b,1,1\n"
bad_runs "an empty file" 'bad.csv: line 1: empty input' ''
bad_runs "a header alone" 'bad.csv: line 2: no rows after the header' "$H\n"
expect_fail "validate --runs: a directory" "$RU/sub: is a directory" $NPUSIM validate --configs $CONFIGS --runs "$RU/sub" --json "$RU/bad/b.json"
expect_fail "validate --runs: /dev/null" '/dev/null: line 1: empty input' $NPUSIM validate --configs $CONFIGS --runs /dev/null --json "$RU/bad/b.json"
expect_fail "validate --runs: a missing file" "$RU/nope.csv: cannot open" $NPUSIM validate --configs $CONFIGS --runs "$RU/nope.csv" --json "$RU/bad/b.json"
: >"$RU/empty.csv"
expect_fail "validate --runs: a bad second file, nothing predicted" 'empty.csv: line 1: empty input' $NPUSIM validate --configs $CONFIGS --runs $RS "$RU/empty.csv" --json "$RU/bad/b.json"
expect_fail "validate --runs: -c does not apply" '-c/--chip does not apply to --runs' $NPUSIM validate --configs $CONFIGS -c h100 --runs $RS --json "$RU/bad/b.json"
expect_fail "validate --runs: --html does not apply" '--html does not apply to --runs' $NPUSIM validate --configs $CONFIGS --runs $RS --html "$RU/bad/b.html"
no_files "validate --runs: the refused commands wrote nothing" "$RU/bad"
# The reports go out all together or not at all: a JSON path under a file fails them all.
: >"$RU/afile"
expect_fail "validate --runs: a report that cannot be written" 'afile' $NPUSIM validate --configs $CONFIGS --runs $RS --md "$RU/all.md" --json "$RU/afile/v.json"
check "validate --runs: no report written when one cannot be" test ! -e "$RU/all.md"
