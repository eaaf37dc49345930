# One deployment, three commands (issue 38, "checked by"): llama3-8b on one
# tpuv5p at batch 8, simulated by `npusim run`, by a one-point sweep's summary
# (and `npusim report --sweep` of it) and by `npusim fleet`. The same
# quantities must agree: decode and end-to-end throughput, energy per output
# token, and carbon per output token, which the sweep and fleet compute from
# the one set of defaults in the system config (and say so). Numbers are read
# from the files the commands write (JSON, CSV), not from their screens.
# Sourced by tests/cli/run.sh: uses NPUSIM, CONFIGS, T, check.
AG=$T/agree
mkdir -p "$AG"
printf '{"deployments": [{"model": "llama3-8b", "chip": "tpuv5p", "num_chips": 1, "batch_size": 8, "parallelism": {"tp": 1}}]}\n' \
  >"$AG/fleet.json"
check "agree: run, a one-point sweep with its report, and fleet of llama3-8b x 1 tpuv5p at batch 8 run" sh -c "
  $NPUSIM run --configs $CONFIGS -m llama3-8b -c tpuv5p --batch 8 --out '$AG/run' >/dev/null 2>&1 &&
  $NPUSIM sweep --configs $CONFIGS --models llama3-8b --versions 5p --num-chips 1 --batch-sizes 8 --summary '$AG/s.csv' 2>'$AG/s.err' &&
  $NPUSIM report --sweep '$AG/s.csv' -o '$AG/r.html' >/dev/null 2>&1 &&
  $NPUSIM fleet --configs $CONFIGS --out '$AG/fl' '$AG/fleet.json' >/dev/null 2>'$AG/f.err'"
check "agree: throughput, energy and carbon per output token are the same figures in run, sweep, report and fleet" \
  python3 - "$AG" <<'PY'
import csv, json, math, sys
d = sys.argv[1]
pre, dec = (json.load(open(f"{d}/run/llama3-8b_tpuv5p_{p}.json")) for p in ("prefill", "decode"))
row = next(csv.DictReader(open(f"{d}/s.csv")))
fl = json.load(open(f"{d}/fl/fleet.json"))["deployments"][0]
cfg = dec["sim_config"]
tokens = cfg["global_batch_size"] * cfg["output_seqlen"]    # output tokens of the batch

def same(what, *vals):
    assert all(math.isclose(v, vals[0], rel_tol=1e-9) for v in vals), (what, vals)

same("decode tokens/s (run, sweep)", dec["throughput_tokens_per_sec"], float(row["decode_tokens_per_s"]))
same("end-to-end output tokens/s (run, sweep, fleet)", dec["e2e_throughput_tokens_per_sec"],
     float(row["throughput"]), fl["capacity_per_s"])
same("energy per output token, J (run, sweep, fleet at full load)",
     (pre["total_energy_J"] + dec["total_energy_J"]) / tokens, float(row["energy_per_unit_J"]),
     fl["active_power_W"] / fl["capacity_per_s"])
same("carbon per output token, kgCO2e (sweep, fleet)", float(row["carbon_per_unit_kgCO2e"]), fl["kgCO2e_per_unit"])
# The report of the sweep shows the summary's throughput per chip (to its rounding).
html = open(f"{d}/r.html").read()
per_chip = float(row["throughput"]) / int(row["num_chips"])
shown = [f % per_chip for f in ("%.6g", "%.5g", "%.4g", "%.2f", "%.1f")]
assert any(">" + s + "<" in html or " " + s + " " in html for s in shown), ("report --sweep: tokens/s per chip", shown)
PY
check "agree: sweep and fleet name the same carbon defaults, from the system config" sh -c "
  s=\$(sed -n 's/^npusim sweep: summary carbon columns: //p' '$AG/s.err') && f=\$(sed -n 's/^npusim fleet: \(carbon defaults\)/\1/p' '$AG/f.err') &&
  test -n \"\$s\" && test \"\$s\" = \"\$f\" && echo \"\$s\" | grep -q '^carbon defaults from .*systems/system_config.json: '"
