#!/bin/sh
# validate-inference.sh — reproduces docs/validation.md's "Inference" section: the 173 measured
# end-to-end LLM inference runs of bench/public/inference-runs.csv predicted under the neusim
# profile, the physical profile uncalibrated (the fields calibrate --runs fits set to neutral) and
# `npusim calibrate --runs` from those chips: its parameters, in-sample (the chips it writes,
# OUT_DIR/chips, fitted on every row), 5-fold and leave-one-source-out figures (the headline)
# and every row's predictions, as markdown.
#
#   sh bench/validate-inference.sh [NPUSIM] [OUT_DIR]
#
# `make validate-inference` runs it with build/npusim; at the end it says on stderr whether
# configs/chips hold this fit (bench/write-presets.py writes them). It takes about 7.5 minutes (every
# residual re-runs the simulator).
set -eu
NPUSIM=${1:-build/npusim}
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/.." && pwd)
OUT=${2:-$(mktemp -d)}
mkdir -p "$OUT"
RUNS=$root/bench/public/inference-runs.csv
# The fields calibrate --runs fits, neutral (the chips before calibration).
NEUTRAL=""
for k in gemm.fp8_e4m3 gemm.bf16 gemm.fp16; do NEUTRAL="$NEUTRAL --set kernel_efficiency.$k=0"; done
for c in gemm gemv elementwise activation reduction softmax attention collective; do
    NEUTRAL="$NEUTRAL --set kernel_efficiency.$c.e_max=1"
done
NEUTRAL="$NEUTRAL --set step_overhead_ns=0 --set layer_overhead_ns=0 --set kernel_launch_ns=0 --set request_overhead_ns=0 --set ici_latency_ns=3330 --set collective_base_ns=0"

# The reference's model has no fitted field but the link latency: the neusim column takes its default,
# so it does not move with a fit.
"$NPUSIM" validate --runs "$RUNS" --profile neusim --set ici_latency_ns=3330 --json "$OUT/neusim.json" >/dev/null
# shellcheck disable=SC2086
"$NPUSIM" validate --runs "$RUNS" $NEUTRAL --json "$OUT/physical.json" >/dev/null
# shellcheck disable=SC2086
"$NPUSIM" calibrate --runs "$RUNS" $NEUTRAL -o "$OUT/chips" --json "$OUT/fit.json" --report "$OUT/fit.md" >"$OUT/fit.txt"

python3 - "$OUT" <<'PY'
import json, sys
out = sys.argv[1]
load = lambda n: json.load(open(f"{out}/{n}.json"))
neu, phy, fit = load("neusim"), load("physical"), load("fit")
def cell(v, m):
    return "-" if v is None else f"{v:.4g} ({(v - m) / m * 100:+.1f}%)"
print("| id | source | chip | model | metric | measured | neusim | physical, uncalibrated | "
      "physical, calibrated (fitted on every row) | physical, leave-one-source-out |")
print("|---|---|---|---|---|---|---|---|---|---|")
for a, b, f in zip(neu["rows"], phy["rows"], fit["rows"]):
    assert a["id"] == b["id"] == f["id"]
    m = a["measured"]
    src = a["source"].split(" ")[0]
    print(f"| {a['id']} | {src} | {a['chip']} | {a['model']} | {a['metric']} | {m:g} | "
          f"{cell(a.get('predicted'), m)} | {cell(b.get('predicted'), m)} | {cell(f['calibrated'], m)} | "
          f"{cell(f['leave_one_source_out'], m)} |")
print()
print("| metric | rows | neusim MAPE % | physical uncalibrated MAPE % | calibrated in-sample MAPE % | "
      "5-fold MAPE % | **leave-one-source-out MAPE %** |")
print("|---|---|---|---|---|---|---|")
ids = {}
for name in ["overall"] + list(phy["by_metric"]):
    g = lambda d: d["overall"] if name == "overall" else d["by_metric"][name]
    gf = lambda d: d["overall"] if name == "overall" else d["by_metric"].get(name, {})
    print(f"| {name} | {g(phy)['count']} | {g(neu)['mape_pct']:.1f} | {g(phy)['mape_pct']:.1f} | "
          f"{gf(fit['in_sample']['calibrated'])['mape_pct']:.1f} | {gf(fit['cross_validation']['held_out'])['mape_pct']:.1f} | "
          f"**{gf(fit['leave_one_source_out']['pooled'])['mape_pct']:.1f}** |")
PY
echo
cat "$OUT/fit.md"
# Whether the shipped presets are this fit (on stderr: the markdown above is the section).
if python3 "$here/write-presets.py" "$OUT" --configs "$root/configs" --check >"$OUT/presets.txt" 2>&1; then
    echo "validate-inference: configs/chips hold this fit (bench/write-presets.py --check)" >&2
else
    echo "validate-inference: configs/chips differ from this fit; write them with python3 bench/write-presets.py $OUT" >&2
    cat "$OUT/presets.txt" >&2
fi
