# Sourced by tests/cli/run.sh: `npusim calibrate --runs`, the terms a
# roofline misses fitted to measured end-to-end runs (calib/runs_fit.h;
# docs/validation.md, "Inference"). On tests/data/runs-small.csv (six
# made-up rows, two sources): the report with leave-one-source-out, one
# chip config per chip that `npusim run` loads and that reproduces the
# fit's own predictions under `npusim validate --runs`, and bad input
# refused with nothing written. The recovery of known parameters is
# tests/unit/test_runs_fit.c.
CR="$T/calruns"
mkdir -p "$CR"
RS=tests/data/runs-small.csv
check "calibrate --runs: the parameters, the figures before and after, k-fold and leave-one-source-out" sh -c "
  $NPUSIM calibrate --configs $CONFIGS --runs $RS -o '$CR/cal' --json '$CR/f.json' --report '$CR/f.md' >'$CR/out' &&
  grep -q '^gemm e_max e  *h100 ' '$CR/out' && grep -q '^step_overhead_ns  *every chip  *0\.\.1e+10 ns ' '$CR/out' &&
  grep -q '^overall  *6 ' '$CR/out' && grep -q '^leave one source out' '$CR/out' &&
  grep -q '^test source A  *3  *3 ' '$CR/out' && grep -q '^test source B  *3  *3 ' '$CR/out' &&
  grep -q '^pooled  *6 ' '$CR/out' && grep -q 'leave-one-source-out' '$CR/f.md' &&
  test -s '$CR/cal/h100.json' && test -s '$CR/cal/a100.json' && test -s '$CR/cal/tpuv5e.json'"
check "calibrate --runs: the chip configs load (npusim run -c DIR/h100.json) and name their source" sh -c "
  $NPUSIM run --configs $CONFIGS -c '$CR/cal/h100.json' -m llama3-8b --no-energy --out '$CR/run' >/dev/null &&
  grep -q '\"calibration_source\":[[:space:]]*\"npusim .* calibrate --runs of runs-small.csv, 6 rows T1,T2,T3,T4,T5,T6; sources test source A, test source B\"' '$CR/cal/h100.json' &&
  grep -q '\"step_overhead_ns\":[[:space:]]*[1-9]' '$CR/cal/a100.json'"
# The written chips are the fit: validate --runs on the same rows, each chip
# replaced by its calibrated file, predicts what the fit reported.
sed -e 's/,h100,/,cal\/h100.json,/' -e 's/,a100,/,cal\/a100.json,/' -e 's/,tpuv5e,/,cal\/tpuv5e.json,/' $RS >"$CR/runs-cal.csv"
check "calibrate --runs: validate --runs with the written chips predicts what the fit reported" sh -c "
  $NPUSIM validate --configs $CONFIGS --runs '$CR/runs-cal.csv' --json '$CR/v.json' >/dev/null &&
  python3 - '$CR/f.json' '$CR/v.json'" <<'PY'
import json, sys
f, v = json.load(open(sys.argv[1])), json.load(open(sys.argv[2]))
fit = {r["id"]: r for r in f["rows"]}
for r in v["rows"]:
    want = fit[r["id"]]["calibrated"]
    assert abs(r["predicted"] - want) <= 1e-9 * want, (r["id"], r["predicted"], want)
for p in f["parameters"]:
    assert p["lo"] <= p["value"] <= p["hi"] if p["fitted"] else p["value"] is None, p
ins = f["in_sample"]
assert ins["calibrated"]["overall"]["mape_pct"] < ins["uncalibrated"]["overall"]["mape_pct"]
lo = f["leave_one_source_out"]
assert [s["source"] for s in lo["sources"]] == ["test source A", "test source B"]
assert all(s["rows"] == 3 and s["fitted_on_rows"] == 3 for s in lo["sources"])
assert lo["pooled"]["overall"]["count"] == 6 and f["cross_validation"]["folds"] == 5
assert all(r["leave_one_source_out"] is not None and r["k_fold"] is not None for r in f["rows"])
# "chips": each chip with the fields its written config sets, as written
assert sorted(c["chip"] for c in f["chips"]) == ["a100", "h100", "tpuv5e"], f["chips"]
for c in f["chips"]:
    chip = json.load(open(sys.argv[1].rsplit("/", 1)[0] + "/cal/" + c["chip"] + ".json"))
    assert any(s.startswith("step_overhead_ns=") for s in c["sets"]), c
    for s in c["sets"]:
        key, _, val = s.partition("=")
        d = chip
        for part in key.split("."):
            d = d[part]
        assert abs(d - float(val)) <= 1e-9 * abs(float(val)), (c["chip"], key, d, val)
PY
# bench/write-presets.py writes the presets from such a fit: each fitted field
# rounded as a preset states it (efficiencies to 4 decimals, host times to
# 100 ns, the link step to 10 ns), every other field and the layout kept,
# b200 (no row) taking h100's host terms; --check then agrees, and a preset
# edited by hand is named.
check "write-presets: the fit's fields, rounded, into the presets; the rest kept; b200 borrows h100's host terms" sh -c "
  rm -rf '$CR/wp' && mkdir -p '$CR/wp/fit' '$CR/wp/configs/chips' &&
  cp '$CR/f.json' '$CR/wp/fit/fit.json' &&
  for c in h100 a100 tpuv5e b200; do cp $CONFIGS/chips/\$c.json '$CR/wp/configs/chips/'; done &&
  python3 bench/write-presets.py '$CR/wp/fit' --configs '$CR/wp/configs' --runs $RS >'$CR/wp/out' &&
  python3 bench/write-presets.py '$CR/wp/fit' --configs '$CR/wp/configs' --runs $RS --check &&
  python3 - '$CR/wp' $CONFIGS" <<'PY'
import json, sys
wp, configs = sys.argv[1], sys.argv[2]
f = json.load(open(wp + "/fit/fit.json"))
new = {c: json.load(open("%s/configs/chips/%s.json" % (wp, c))) for c in ("h100", "a100", "tpuv5e", "b200")}
old = {c: json.load(open("%s/chips/%s.json" % (configs, c))) for c in new}
sets = {c["chip"]: dict(s.split("=", 1) for s in c["sets"]) for c in f["chips"]}
h = sets["h100"]
assert new["h100"]["step_overhead_ns"] == int(round(float(h["step_overhead_ns"]) / 100.0)) * 100
assert new["h100"]["step_overhead_ns"] % 100 == 0 and new["h100"]["ici_latency_ns"] % 10 == 0
g = float(h["kernel_efficiency.gemv.e_max"])
assert new["h100"]["kernel_efficiency"]["gemv"]["e_max"] == round(g, 4), (g, new["h100"]["kernel_efficiency"])
assert new["h100"]["kernel_efficiency"]["gemm"] == old["h100"]["kernel_efficiency"]["gemm"], "not fitted: kept"
assert new["h100"]["hbm_bw_GBps"] == old["h100"]["hbm_bw_GBps"] and new["h100"]["name"] == "h100"
assert list(new["h100"]) == list(old["h100"]), "key order kept"
assert new["h100"]["calibration_source"].startswith("npusim calibrate --runs tests/data/runs-small.csv: 6 rows of 2 sources (test, test), "), new["h100"]["calibration_source"]
for k in ("step_overhead_ns", "layer_overhead_ns", "kernel_launch_ns", "request_overhead_ns", "ici_latency_ns"):
    assert new["b200"][k] == new["h100"][k], k
assert new["b200"]["kernel_efficiency"]["collective"]["e_max"] == new["h100"]["kernel_efficiency"]["collective"]["e_max"]
assert new["b200"]["kernel_efficiency"]["gemm"] == old["b200"]["kernel_efficiency"]["gemm"]
assert new["b200"]["calibration_source"] == old["b200"]["calibration_source"]
text = open("%s/configs/chips/h100.json" % wp).read()
assert text == json.dumps(new["h100"], indent=4) + "\n"
PY
check "write-presets --check: exit 1 naming a field a preset holds apart from the fit" sh -c "
  python3 -c 'import json,sys; d=json.load(open(sys.argv[1])); d[\"request_overhead_ns\"]=12345; open(sys.argv[1],\"w\").write(json.dumps(d, indent=4) + \"\\n\")' '$CR/wp/configs/chips/h100.json' &&
  ! python3 bench/write-presets.py '$CR/wp/fit' --configs '$CR/wp/configs' --runs $RS --check >'$CR/wp/chk' 2>&1 &&
  grep -q '^h100 request_overhead_ns: 12345 -> ' '$CR/wp/chk'"
expect_fail "write-presets: a directory without fit.json exits 2" "fit.json" python3 bench/write-presets.py "$CR/wp/configs"
# The priors (docs/validation.md, "Priors"): each efficiency's in the JSON
# and the report: the class's for a format-less GEMM, h100's own for
# attention (FlashAttention-2 and -3 on it) and HBM (BabelStream on it);
# --prior-weight 0 turns them off.
check "calibrate --runs: each efficiency names its prior (weight 0.1 by default), --prior-weight 0 none" sh -c "
  grep -q '^Priors weighted 0.1: ' '$CR/out' && grep -q '^memory-bound e  *h100 .* 0.9 +- 0.05 ' '$CR/out' &&
  $NPUSIM calibrate --configs $CONFIGS --runs $RS --prior-weight 0 --json '$CR/f0.json' >'$CR/out0' &&
  ! grep -q '^Priors weighted' '$CR/out0' &&
  python3 - '$CR/f.json' '$CR/f0.json'" <<'PY'
import json, sys
f, f0 = json.load(open(sys.argv[1])), json.load(open(sys.argv[2]))
assert f["prior_weight"] == 0.1 and f0["prior_weight"] == 0, (f["prior_weight"], f0["prior_weight"])
pr = {p["name"]: (p["prior_mean"], p["prior_sd"]) for p in f["parameters"] if p["chips"] == "h100"}
assert pr["gemm e_max e"] == (0.75, 0.15) and pr["memory-bound e"] == (0.9, 0.05) and pr["attention e"] == (0.55, 0.2), pr
assert all(p["prior_mean"] is None for p in f["parameters"] if p["chips"] == "every chip")
assert all(p["prior_mean"] is None for p in f0["parameters"])
PY
for w in -1 11 x; do
    expect_fail "calibrate --runs: --prior-weight $w is refused" "\-\-prior-weight: expected a number from 0 to 10, got \"$w\"" \
      $NPUSIM calibrate --configs $CONFIGS --runs $RS --prior-weight "$w" -o "$CR/badw"
done
no_files "calibrate --runs: nothing written for a bad --prior-weight" "$CR/badw"
expect_fail "calibrate: --prior-weight without --runs" '\-\-prior-weight goes with \-\-runs' \
  $NPUSIM calibrate --configs $CONFIGS -c h100 --prior-weight 1 bench/public/ops_a100_llmcompass.csv -o "$CR/badw.json"
# Bad input: exit 2 naming it, nothing written.
cat >"$CR/dlrm.csv" <<'CSV'
id,source,metric,measured,chip,model,tp,batch,input_len,output_len
D,S,ttft_ms,5,h100,dlrm-s,1,8,2048,128
CSV
cat >"$CR/oom.csv" <<'CSV'
id,source,metric,measured,chip,model,tp,batch,input_len,output_len
G,S,tpot_ms,6,h100,llama3-8b,1,8,2048,128
M,S,ttft_ms,5,a100,llama3-70b,1,8,2048,128
CSV
expect_fail "calibrate --runs: an empty file" '/dev/null: line 1: empty input' \
  $NPUSIM calibrate --configs $CONFIGS --runs /dev/null -o "$CR/bad" --json "$CR/bad.json"
expect_fail "calibrate --runs: rows of a model that is not LLM inference" \
  'dlrm.csv: line 2: row D cannot be predicted, so it cannot be fitted: model "dlrm-s": dlrm inference is not LLM inference' \
  $NPUSIM calibrate --configs $CONFIGS --runs "$CR/dlrm.csv" -o "$CR/bad" --json "$CR/bad.json"
expect_fail "calibrate --runs: a row that cannot be predicted (out of memory)" \
  'oom.csv: line 3: row M cannot be predicted, so it cannot be fitted: out of memory' \
  $NPUSIM calibrate --configs $CONFIGS --runs "$CR/oom.csv" -o "$CR/bad" --json "$CR/bad.json"
expect_fail "calibrate --runs: the neusim profile has nothing to fit" 'has no kernel efficiencies or host times' \
  $NPUSIM calibrate --configs $CONFIGS --profile neusim --runs $RS -o "$CR/bad"
expect_fail "calibrate --runs: -c does not apply" '-c/--chip does not apply to --runs' \
  $NPUSIM calibrate --configs $CONFIGS -c h100 --runs $RS -o "$CR/bad"
no_files "calibrate --runs: bad input wrote nothing" "$CR/bad"
check "calibrate --runs: nothing beside the folder either" test ! -e "$CR/bad.json"
