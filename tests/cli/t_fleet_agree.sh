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

# More deployments (the held-out check's kinds): a GPU with tensor parallelism, a pipeline, a MoE
# with expert parallelism, DLRM over 4 chips, DiT and a training run. Each is simulated by run
# (summary and statistics JSONs), a one-point sweep (its summary, and report --sweep of it for an
# LLM), report -m (the run page) and fleet; the same quantity must be the same figure everywhere,
# and figures that count different things must say so. tag|model|chip|chips|batch|run and sweep
# degrees|fleet parallelism|extra run options
AGM=$T/agree-more
mkdir -p "$AGM"
while IFS='|' read -r tag model chip n b deg par extra; do
    d=$AGM/$tag; mkdir -p "$d"
    printf '{"deployments": [{"model": "%s", "chip": "%s", "num_chips": %s, "batch_size": %s, "parallelism": %s}]}\n' \
        "$model" "$chip" "$n" "$b" "$par" >"$d/fleet.json"
    # shellcheck disable=SC2086
    { $NPUSIM run --configs $CONFIGS -m $model -c $chip -b $b $deg $extra -o "$d/run" >"$d/run.txt" 2>&1 &&
      $NPUSIM report --configs $CONFIGS -m $model -c $chip -b $b $deg $extra -o "$d/run.html" >/dev/null 2>&1 &&
      $NPUSIM sweep --configs $CONFIGS -m $model -c $chip --num-chips $n -b $b $deg --summary "$d/s.csv" 2>"$d/s.err" &&
      $NPUSIM fleet --configs $CONFIGS -o "$d/fl" "$d/fleet.json" >/dev/null 2>"$d/f.err" &&
      case $model in llama*|deepseek*) $NPUSIM report --sweep "$d/s.csv" -o "$d/r.html" >/dev/null 2>&1 ;; esac
    } || echo "$tag" >>"$AGM/failed"
done <<'DEPLOY'
gpu|llama3-70b|h100|4|8|--tp 4|{"tp": 4}|
pp|llama3-70b|tpuv5p|4|8|--tp 2 --pp 2|{"tp": 2, "pp": 2}|
moe|deepseekv2-236b|tpuv5p|32|8|--tp 8 --ep 4|{"tp": 8, "ep": 4}|--set num_chips=32
dlrm|dlrm-s|tpuv5p|4|64|--dp 4 --tp 4|{"dp": 4, "tp": 4}|
dit|dit-xl|tpuv5p|1|1||{"tp": 1}|
DEPLOY
check "agree: run, report -m, a one-point sweep (and report --sweep) and fleet ran for a GPU, a pipeline, a MoE, DLRM and DiT" \
    test ! -e "$AGM/failed"
check "agree: the same quantity is the same figure in run (summary, JSON), report -m, sweep, report --sweep and fleet" \
  python3 - "$AGM" <<'PY'
import csv, glob, json, math, re, sys
top = sys.argv[1]

def same(what, *vals, rel=1e-9):
    assert all(math.isclose(v, vals[0], rel_tol=rel) for v in vals), (what, vals)

def printed(line, what):   # a number of the run summary, by the words before it
    m = re.search(what + r"\s+([0-9.e+-]+)", line)
    assert m, (what, line)
    return float(m.group(1))

for d in sorted(glob.glob(top + "/*/")):
    tag = d.rstrip("/").rsplit("/", 1)[1]
    row = next(csv.DictReader(open(d + "s.csv")))
    fl = json.load(open(d + "fl/fleet.json"))["deployments"][0]
    text = open(d + "run.txt").read()
    page = open(d + "run.html").read()
    n = int(row["num_chips"])
    # The run page shows the run's summary, line for line.
    for line in text.splitlines():
        if line.strip() and not line.lstrip().startswith(("outputs", "configs")):
            assert line.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;") in page, (tag, line)
    assert fl["num_chips"] == n and fl["configuration"].startswith("dp" + row["dp"] + "-tp" + row["tp"]), (tag, fl)
    same(tag + ": throughput (sweep, fleet)", float(row["throughput"]), fl["capacity_per_s"])
    assert row["throughput_unit"] == fl["capacity_unit"], (tag, row["throughput_unit"], fl["capacity_unit"])
    same(tag + ": energy per unit, J (sweep, fleet at full load)", float(row["energy_per_unit_J"]),
         fl["active_power_W"] / fl["capacity_per_s"])
    same(tag + ": carbon per unit (sweep, fleet)", float(row["carbon_per_unit_kgCO2e"]), fl["kgCO2e_per_unit"])
    same(tag + ": memory GiB per chip (sweep, fleet)", float(row["memory_GiB"]), fl["memory_GiB"])
    assert (row["out_of_memory"] == "True") == fl["out_of_memory"], tag
    # Both name the one set of carbon defaults they used, from the system config.
    sd = [l.split("summary carbon columns: ", 1)[1] for l in open(d + "s.err") if "summary carbon columns: " in l]
    fd = [l.split("npusim fleet: ", 1)[1] for l in open(d + "f.err") if l.startswith("npusim fleet: carbon defaults")]
    assert sd and sd == fd and "system_config.json" in sd[0], (tag, sd, fd)
    stats = {p.rsplit("_", 1)[1][:-5]: json.load(open(p)) for p in glob.glob(d + "run/*.json")}
    if "decode" in stats:   # an LLM
        pre, dec = stats["prefill"], stats["decode"]
        cfg = dec["sim_config"]
        mb, sin, sout = cfg["microbatch_size_ici"], cfg["input_seqlen"], cfg["output_seqlen"]
        same(tag + ": TTFT s (run, sweep)", pre["TTFT_sec"], float(row["TTFT_s"]))
        same(tag + ": TPOT ms (run, sweep)", dec["TPOT_ms_request"], float(row["TPOT_ms"]))
        same(tag + ": prefill tokens/s (run, sweep)", pre["throughput_tokens_per_sec"], float(row["prefill_tokens_per_s"]))
        same(tag + ": decode tokens/s (run, sweep)", dec["throughput_tokens_per_sec"], float(row["decode_tokens_per_s"]))
        # End to end: the batch's prefill then its decode at the rates printed beside it (with a
        # pipeline too, where TTFT and TPOT add the transfers between stages).
        same(tag + ": end-to-end output tokens/s (run, sweep, fleet)", dec["e2e_throughput_tokens_per_sec"],
             float(row["throughput"]), sout / (sin / pre["throughput_tokens_per_sec"] + sout / dec["throughput_tokens_per_sec"]),
             rel=1e-6)
        e2e = [l for l in text.splitlines() if l.lstrip().startswith("end to end")][0]
        same(tag + ": end to end as printed", printed(e2e, "end to end"), float(row["throughput"]), rel=0.05 / 200)
        # ... beside its energy per output token over both phases and all the chips (the sweep's, the fleet's).
        same(tag + ": energy per output token end to end as printed (run, sweep)", printed(e2e, "output tokens/s,"),
             float(row["energy_per_unit_J"]), rel=1e-5)
        assert ("; all %d chips)" % n in e2e) == (n > 1), (tag, e2e)
        # The statistics hold one chip's share (the reference's); the summary and the sweep count all chips.
        chip_J = pre["total_energy_J"] + dec["total_energy_J"]
        same(tag + ": energy per output token, all chips (run JSON x chips, sweep)", n * chip_J / (mb * sout),
             float(row["energy_per_unit_J"]))
        en = [l for l in text.splitlines() if l.lstrip().startswith("energy/token")][0]
        assert "(all %d chips)" % n in en, (tag, en)
        same(tag + ": energy per output token as printed (prefill per input token)",
             printed(en, "prefill") * sin / sout + printed(en, "decode"), float(row["energy_per_unit_J"]), rel=2e-5)
        same(tag + ": memory GiB (run, sweep)", max(pre["mem_footprint_GB"], dec["mem_footprint_GB"]), float(row["memory_GiB"]))
        # Power: the summary's per chip and phase, the fleet's for all chips over prefill and decode.
        busy = {p: s["total_execution_time_chip_ns"] / 1e9 for p, s in (("prefill", pre), ("decode", dec))}
        pw = [l for l in text.splitlines() if l.lstrip().startswith("power/chip")][0]
        for p, s in (("prefill", pre), ("decode", dec)):
            same(tag + ": " + p + " W per chip (JSON, energy / chip time)", s["avg_power_W"], s["total_energy_J"] / busy[p])
            assert abs(printed(pw, p) - s["avg_power_W"]) <= 0.05 + 1e-9, (tag, pw, s["avg_power_W"])
        # ... the chip time with the framework's host time of each pass (the prefill, each decode step)
        host = dec.get("framework_overhead_ns_per_pass", 0) * (1 + sout) / 1e9
        same(tag + ": fleet W at full load = chips x (prefill + decode energy) / (their chip time + host time)",
             fl["active_power_W"], n * chip_J / (busy["prefill"] + busy["decode"] + host))
        # report --sweep: TPOT and end-to-end output tokens/s per chip, the degrees making up the chips.
        html = open(d + "r.html").read()
        degs = "%s/%s/%s" % (row["dp"], row["tp"], row["pp"]) + (", ep " + row["ep"] if int(row["ep"]) > 1 else "")
        cell = "<td>%d</td><td>%s</td><td>%s</td><td class=\"\">%.4g</td><td>%.6g</td>" % (
            n, degs, row["batch"], float(row["TPOT_ms"]), float(row["throughput"]) / n)
        assert cell in html and "output tokens/s per chip (end to end)" in html, (tag, cell)
    else:
        s = stats["run"] if "run" in stats else stats["tpuv5p"]
        same(tag + ": requests/s (run JSON, sweep)", s["throughput_requests_per_sec"], float(row["throughput"]))
        # DLRM's JSON is the straggler chip's energy; the summary and sweep count every chip.
        per_req = [l for l in text.splitlines() if l.lstrip().startswith("energy")][0]
        m = re.search(r"([0-9.e+-]+) J( per request|/request)", per_req)
        same(tag + ": energy per request as printed (summary, sweep)", float(m.group(1)), float(row["energy_per_unit_J"]), rel=1e-5)
        same(tag + ": memory GiB per chip (run, sweep)", s["mem_footprint_GB"], float(row["memory_GiB"]))
        mem = [l for l in text.splitlines() if l.lstrip().startswith("memory")][0]
        assert "%.2f GiB per chip of 95 GiB HBM" % float(row["memory_GiB"]) in mem, (tag, mem)   # one chip's, as compared
        same(tag + ": fleet W at full load = chips x one chip's energy / its time", fl["active_power_W"],
             n * s["total_energy_J"] / (s["total_execution_time_chip_ns"] / 1e9))
PY
# report --sweep draws LLM inference (TPOT against output tokens/s): a summary of DLRM (requests)
# says so instead of asking for a TPOT_ms its rows cannot have; one mixing both draws the LLM
# rows and says how many it left out (before: "expected ... positive TPOT_ms" either way).
expect_fail "agree: report --sweep of a DLRM summary says it draws LLM inference and what the rows count" \
    'report --sweep draws LLM inference (TPOT against output tokens/s); the 1 configurations that ran count requests' \
    $NPUSIM report --sweep "$AGM/dlrm/s.csv" -o "$AGM/dlrm-r.html"
check "agree: report --sweep of a summary mixing DLRM and an LLM draws the LLM and names what it left out" sh -c "
  { cat '$AGM/gpu/s.csv'; echo; tail -n +2 '$AGM/dlrm/s.csv'; } >'$AGM/mix.csv' &&
  $NPUSIM report --sweep '$AGM/mix.csv' -o '$AGM/mix.html' >/dev/null 2>&1 &&
  grep -q '<p>2 configurations ran.</p>' '$AGM/mix.html' &&
  grep -q '1 of them count requests, not output tokens' '$AGM/mix.html' && grep -q '<td>1/4/1</td>' '$AGM/mix.html'"

# Out of memory (the issue's 2 x H100 at batch 64): run, the sweep and fleet give the same footprint
# and verdict, each against one card's HBM in the same unit (fleet said "80 GB" beside "GiB").
AGO=$T/agree-oom
check "agree: llama3-70b on 2 x h100 at batch 64 does not fit, by the same footprint and HBM in run, sweep and fleet" sh -c "
  $NPUSIM run --configs $CONFIGS -m llama3-70b -c h100 --tp 2 -b 64 -o '$AGO/run' >'$AGO.txt' 2>&1 &&
  grep -q '^  memory        prefill 125.71 GiB, decode 110.71 GiB of 80 GiB HBM (out of memory)\$' '$AGO.txt' &&
  $NPUSIM sweep --configs $CONFIGS -m llama3-70b -c h100 --num-chips 2 --tp 2 -b 64 --summary '$AGO.csv' 2>/dev/null &&
  grep -q ',125.70703125,True\$' '$AGO.csv' &&
  printf '{\"deployments\": [{\"model\": \"llama3-70b\", \"chip\": \"h100\", \"num_chips\": 2, \"batch_size\": 64, \"parallelism\": {\"tp\": 2}}]}' >'$AGO.json' &&
  $NPUSIM fleet --configs $CONFIGS -o '$AGO-fl' '$AGO.json' >/dev/null 2>'$AGO.err' &&
  grep -q 'does not fit in memory: 125.7 GiB per chip against 80 GiB of HBM' '$AGO.err' &&
  grep -q '\"memory_GiB\": 125.70703125,' '$AGO-fl/fleet.json' && grep -q '\"out_of_memory\": true' '$AGO-fl/fleet.json'"

# Training (run, a sweep and fleet with "workload": "training"): the sweep's energy per iteration is the
# summary's energy per step of all the chips (each chip runs its trace once a step; with a
# pipeline the step is pp slots, and the sweep charged the busy power over all of them, pp times
# the energy), its throughput one step per step time, and the run page says its energies are one
# chip's of 4.
AGT=$T/agree-train
check "agree: a training run (tp 2, pp 2) and its one-point sweep give the same step, energy and memory" sh -c "
  $NPUSIM run --configs $CONFIGS -m llama3-8b -c tpuv5p --workload training --tp 2 --pp 2 -b 16 -o '$AGT/run' >'$AGT.txt' 2>&1 &&
  $NPUSIM report --configs $CONFIGS -m llama3-8b -c tpuv5p --workload training --tp 2 --pp 2 -b 16 -o '$AGT.html' >/dev/null 2>&1 &&
  $NPUSIM sweep --configs $CONFIGS -m llama3-8b -c tpuv5p --workload training --num-chips 4 --tp 2 --pp 2 -b 16 \
    --summary '$AGT.csv' 2>/dev/null &&
  printf '{\"deployments\": [{\"model\": \"llama3-8b\", \"chip\": \"tpuv5p\", \"workload\": \"training\", \"num_chips\": 4, \"batch_size\": 16, \"parallelism\": {\"tp\": 2, \"pp\": 2}}]}' >'$AGT.json' &&
  $NPUSIM fleet --configs $CONFIGS -o '$AGT-fl' '$AGT.json' >/dev/null 2>&1 &&
  python3 - '$AGT' <<'PY'
import csv, json, math, re, sys
d = sys.argv[1]
text = open(d + '.txt').read()
row = next(csv.DictReader(open(d + '.csv')))
st = json.load(open(d + '/run/llama3-8b_tpuv5p.json'))
num = lambda what: float(re.search(what + r'\s+([0-9.e+-]+)', text).group(1))
assert row['workload'] == 'training' and row['throughput_unit'] == 'iterations', row
assert math.isclose(float(row['throughput']), 1 / num('step time'), rel_tol=1e-6), (row['throughput'], num('step time'))
assert math.isclose(float(row['throughput']) * 16 * 4096, num('throughput'), rel_tol=1e-5)
m = re.search(r'energy/step\s+([0-9.e+-]+) J per chip, ([0-9.e+-]+) J all 4 chips', text)
assert m, text
assert math.isclose(float(m.group(2)), float(row['energy_per_unit_J']), rel_tol=1e-5), (m.group(2), row['energy_per_unit_J'])
assert math.isclose(4 * st['total_energy_J'], float(row['energy_per_unit_J']), rel_tol=1e-9)
assert math.isclose(st['mem_footprint_GB'], float(row['memory_GiB'])) and str(st['out_of_memory']) == row['out_of_memory']
fl = json.load(open(d + '-fl/fleet.json'))['deployments'][0]
assert fl['workload'] == 'training' and fl['capacity_unit'] == 'iterations', fl
for a, b in ((fl['capacity_per_s'], row['throughput']), (fl['active_power_W'] / fl['capacity_per_s'], row['energy_per_unit_J']),
             (fl['kgCO2e_per_unit'], row['carbon_per_unit_kgCO2e']), (fl['memory_GiB'], row['memory_GiB'])):
    assert math.isclose(a, float(b), rel_tol=1e-9), (a, b)
page = open(d + '.html').read()
assert \"one chip's (the summary's energy of all 4 chips is 4 times theirs)\" in page
assert m.group(0) in page
PY"

expect_fail "agree: a fleet deployment's workload is inference or training" 'deployments\[0\] field "workload": expected "inference" or "training"' \
    sh -c "printf '{\"deployments\": [{\"model\": \"llama3-8b\", \"chip\": \"tpuv5p\", \"workload\": \"train\"}]}' >'$AGT-bad.json' &&
           $NPUSIM fleet --configs $CONFIGS -o '$AGT-bad' '$AGT-bad.json'"
no_files "agree: a fleet with a bad workload writes nothing" "$AGT-bad"

# The Python package (through the library beside the binary, as t_python.sh) gives the same
# figures: run()'s summary and statistics, its phases (one chip's time, energy_J of energy_chips
# chips: DLRM's straggler time, not the 4 chips' sum), sweep()'s row and carbon()'s deployment.
AG_SO=$(dirname "$NPUSIM")/libnpusim.so
if [ -f "$AG_SO" ]; then
check "agree: Python's run(), sweep() and carbon() give the figures of run, sweep and fleet (GPU, MoE, DLRM)" \
  env NPUSIM_LIB="$AG_SO" PYTHONPATH="$PWD/python" python3 - "$AGM" "$CONFIGS" <<'PY'
import csv, glob, json, math, sys
import npusim
top, cf = sys.argv[1], sys.argv[2]
cases = {"gpu": ("llama3-70b", "h100", 4, 8, {"tp": 4}, {}),
         "moe": ("deepseekv2-236b", "tpuv5p", 32, 8, {"tp": 8, "ep": 4}, {"num_chips": 32}),
         "dlrm": ("dlrm-s", "tpuv5p", 4, 64, {"dp": 4, "tp": 4}, {})}
for tag, (model, chip, n, b, deg, over) in cases.items():
    d = f"{top}/{tag}/"
    r = npusim.run(model, chip, batch=b, pg=[], configs=cf, **deg, **over)
    text = [l for l in open(d + "run.txt").read().splitlines() if not l.lstrip().startswith(("outputs", "configs"))]
    assert r["summary"].splitlines() == text, (tag, r["summary"], text)
    files = {p.rsplit("_", 1)[1][:-5]: json.load(open(p)) for p in glob.glob(d + "run/*.json")}
    for k, st in r["statistics"].items():
        mine = files[{"run": "tpuv5p", "config_stats": "stats"}.get(k, k)]
        assert {x: v for x, v in st.items() if x != "sim_config"} == {x: v for x, v in mine.items() if x != "sim_config"}, (tag, k)
    if "decode" in files:
        for ph in r["phases"]:
            s = files[ph["name"]]
            assert ph["energy_chips"] == 1 and math.isclose(ph["energy_J"], s["total_energy_J"], rel_tol=1e-9), (tag, ph)
            assert math.isclose(ph["time_s"], s["total_execution_time_chip_ns"] / 1e9, rel_tol=1e-9), (tag, ph)
    else:
        (ph,) = r["phases"]
        assert ph["energy_chips"] == n and math.isclose(ph["time_s"], files["tpuv5p"]["latency_ns"] / 1e9), (tag, ph)
        assert math.isclose(ph["energy_J"], files["tpuv5p"]["total_energy_J"] * n, rel_tol=1e-9), (tag, ph)
    row = next(csv.DictReader(open(d + "s.csv")))
    py = [x for x in npusim.sweep([model], [chip], [n], [b], configs=cf)["rows"]
          if all(str(x[k]) == row[k] for k in ("dp", "tp", "pp", "ep"))]
    assert len(py) == 1, (tag, py)
    for k, v in row.items():
        if k != "index":
            p = py[0][k]
            assert (p is None and v == "") or str(p) == v or math.isclose(float(p), float(v), rel_tol=1e-12), (tag, k, p, v)
    c = npusim.deployment(model, chip, num_chips=n, batch=b, parallelism=deg, configs=cf)
    fl = json.load(open(d + "fl/fleet.json"))["deployments"][0]
    for k in ("capacity_per_s", "active_power_W", "kgCO2e_per_unit", "memory_GiB", "carbon_intensity_kgCO2_per_kWh",
              "lifetime_years", "pue"):
        assert math.isclose(c[k], fl[k], rel_tol=1e-12), (tag, k, c[k], fl[k])
# energy() says how many chips its joules count: one chip's share for an LLM, all of DLRM's.
for tag, model, chip, kw, chips in (("gpu", "llama3-70b", "h100", {"tp": 4}, 1), ("dlrm", "dlrm-s", "tpuv5p", {"dp": 4, "tp": 4}, 4)):
    (row,) = npusim.power_gating(model, chip, batch=64 if tag == "dlrm" else 8, pg=["NoPG"], configs=cf, **kw)
    files = {p.rsplit("_", 1)[1][:-5]: json.load(open(p)) for p in glob.glob(f"{top}/{tag}/run/*.json")}
    one = files["prefill"]["total_energy_J"] + files["decode"]["total_energy_J"] if chips == 1 else files["tpuv5p"]["total_energy_J"]
    assert row["chips"] == chips and math.isclose(row["total_J"], one * chips, rel_tol=1e-9), (tag, row, one)
c = npusim.deployment("llama3-8b", "tpuv5p", num_chips=4, batch=16, parallelism={"tp": 2, "pp": 2}, workload="training",
                  configs=cf)
fl = json.load(open(top.replace("agree-more", "agree-train") + "-fl/fleet.json"))["deployments"][0]
assert c == fl, (c, fl)
PY
else
    echo "ok - agree: Python package skipped, no $AG_SO (make $(dirname "$NPUSIM")/libnpusim.so)"
fi
