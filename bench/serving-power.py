#!/usr/bin/env python3
"""serving-power.py: npusim's GPU power and energy under serving traffic against ML.ENERGY's measurements.

Usage: python3 bench/serving-power.py BIN [--csv FILE] [--in-mean N] [--fit]

Reads bench/public/serving-power.csv (the ML.ENERGY leaderboard's vLLM runs of the LM Arena chat task on
H100 and B200: measured mean GPU power, energy per output token, median inter-token latency and output
throughput of a steady state whose batch is held at max_num_seqs) and runs each row through
`npusim serving` as its configuration states it. Prints a markdown table for docs/validation.md
("Serving power") with the presets as they are.

--fit fits the GPU presets' running power instead: dynamic_power_other_W = r (TDP - idle), the power
a chip draws while it runs whatever its units do, with dynamic_power_scale = 1 - r, so a pass with
every unit at full load draws what it drew before (at most the TDP the split was made from). r is
fitted to h100's rows of the first gathering (FIT_ROWS: relative errors, least squares, bounded so
that static plus "other" stays under the cap); each model's h100 rows are then predicted from r
fitted to the other model's alone, the b200 rows, a die the fit never saw, from h100's r, and the
rows added after the fit (Qwen3-14B, E19-E26; Qwen3-30B-A3B, a mixture of experts, E27-E33; the
mixtures on 2 to 8 GPUs with their experts spread over them, E34-E48) from it too. Each row's power is linear in r when the cap is off, so three uncapped runs per row give it,
and a fourth with the units' dynamic power at its floor gives the cap's bound (components()).

Mapping (each row's conditions):
  engine       --async-scheduling: every row's config sets vLLM's async-scheduling true (its
               admissions a pass late; added after the rows had been seen, with npusim's option)
  workload     --offline --requests 4096: benchmark.yaml queues all 1024 requests at once (no rate)
               and measures a steady state, without ramp-up and drain; npusim's figures are over the
               whole run, so it runs four times the requests to weigh its ramp and drain a quarter
               as much (chosen after the 256-sequence rows, whose throughput 1024 requests put
               13-32% short, had been seen);
               --max-num-seqs = the row's max_num_seqs, --max-num-batched-tokens 8192 and --max-context
               20480 (monolithic.config.yaml), --scheduler chunked (vLLM V1), --kv-reserve 0.1 (vLLM's
               default gpu-memory-utilization 0.9), bf16 weights, activations and KV cache (dtype
               bfloat16); --tp = num_gpus: the benchmark (mlenergy/benchmark/llm/benchmark.py) passes
               --tensor-parallel-size num_gpus unless the config names data-parallel-size (none does), and the
               leaderboard's parallelization (tensor_parallel 1, expert_parallel N) does not say so; a config
               with enable-expert-parallel (the mixtures) also spreads the experts over the num_gpus GPUs,
               vLLM's EP = TP x DP: --ep num_gpus.
  lengths      lognormal:IN:2.0:OUT:CV. OUT and CV from the row's output-length histogram (the model's
               own answers, max_output_tokens 4096). IN, the prompt mean, is not published: ASSUMED 300
               tokens with a CV of 2 (LM Arena prompts are short with a long tail; a multi-turn request
               carries its earlier turns). --in-mean changes it (docs: the sensitivity run).
  power        measured avg_power_W is all num_gpus GPUs together (NVML, steady state); compared with
               npusim's avg_power_W_per_chip x num_gpus (energy over the whole run's time: see
               workload). Energy per output token: npusim's
               energy_per_output_token_J (every chip) against energy_per_token_J.
  timing       median_itl_ms -> itl_ms.p50; output_tokens_per_s as it is.
"""

import concurrent.futures
import csv
import json
import os
import subprocess
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)
CSV_DEFAULT = os.path.join(HERE, "public", "serving-power.csv")
MODELS = os.path.join(ROOT, "tests", "samples", "hf")   # the Hugging Face configs as published
IN_MEAN, IN_CV = 300, 2.0                               # ASSUMED (header)
REQUESTS, BUDGET, CONTEXT = 4 * 1024, 8192, 20480      # 4x the run's 1024: a steady state (header)


def read_rows(path):
    with open(path, newline="") as f:
        return list(csv.DictReader(l for l in f if not l.startswith("#")))


def command(binary, row, in_mean, sets=()):
    extra = [a for kv in sets for a in ("--set", kv)]
    # vLLM's enable-expert-parallel over num_gpus GPUs (header, Mapping)
    ep = ["--ep", row["num_gpus"]] if "enable-expert-parallel true," in row["conditions"] and row["num_gpus"] != "1" else []
    # vLLM's async scheduling, as the row's config sets it (header, Mapping)
    asy = ["--async-scheduling"] if "async-scheduling true" in row["conditions"] else []
    return [binary, "serving", "-m", os.path.join(MODELS, row["model"] + ".json"), "-c", row["chip"],
            "--tp", row["num_gpus"], "--set", "weight_dtype=bf16", "--set", "activation_dtype=bf16",
            "--set", "kv_cache_dtype=bf16", "--offline", "--requests", str(REQUESTS),
            "--lengths", "lognormal:%g:%g:%s:%s" % (in_mean, IN_CV, row["output_mean"], row["output_cv"]),
            "--max-context", str(CONTEXT), "--max-num-batched-tokens", str(BUDGET),
            "--max-num-seqs", row["max_num_seqs"], "--kv-reserve", "0.1", "--scheduler", "chunked", "--json"] + asy + ep + extra


def run(binary, row, in_mean, sets=()):
    p = subprocess.run(command(binary, row, in_mean, sets), capture_output=True, text=True)
    if p.returncode != 0:
        return None, p.stderr.strip().splitlines()[-1] if p.stderr.strip() else "exit %d" % p.returncode
    return json.loads(p.stdout), None


def err(pred, meas):
    return 100.0 * (pred - meas) / meas


def mape(xs):
    return sum(abs(x) for x in xs) / len(xs) if xs else float("nan")


# ---- --fit: the power running costs whatever the units do -----------------------------------------

PROBE_W = 100.0          # dynamic_power_other_W of the probe run
NO_CAP = "power_cap_W=1e9"   # the probes run uncapped: the model is linear in the two fields only then


def chip_field(chip, key):
    """A preset's field, following "base"."""
    while chip:
        with open(os.path.join(ROOT, "configs", "chips", chip + ".json")) as f:
            d = json.load(f)
        if key in d:
            return d[key]
        chip = d.get("base")
    raise KeyError(key)


def components(binary, row, in_mean):
    """The row's point (P0, h, M, K, O_max): npusim's mean power of all its GPUs with the units' split
    before any fit (other 0, scale 1), uncapped; its slope in O when dynamic_power_other_W = O and dynamic_power_scale = 1 - O/K (K = TDP - idle:
    a pass with every unit at full load draws no more than it did before the fit); and the largest O
    the chip's cap allows; M the measured power, K = TDP - idle. "Other" does not fall when the cap slows the clock, so the static power
    with its regulator losses (F, probed with the units' dynamic power at its floor) plus O must stay
    under the TDP; 2% of K is kept for the units' dynamic power at dynamic_power_scale's floor."""
    g = int(row["num_gpus"])
    tdp = chip_field(row["chip"], "TDP_W")
    k = tdp - chip_field(row["chip"], "idle_power_W")

    def power(other, scale):   # from the split before any fit: other 0, scale 1
        sets = (NO_CAP, "dynamic_power_other_W=%g" % other, "dynamic_power_scale=%g" % scale)
        return run(binary, row, in_mean, sets)[0]["avg_power_W_per_chip"]
    p0 = power(0, 1)
    po = power(PROBE_W, 1)
    p2 = power(0, 2)
    floor = power(0, 0.01)
    return (p0 * g, ((po - p0) / PROBE_W - (p2 - p0) / k) * g, float(row["avg_power_W"]), k,
            min(0.99 * k, tdp - floor - 0.02 * k))


def fit_r(points):
    """r = O/K minimising the squared relative errors of P0 + r K h against the measured M, within
    [0, the smallest O_max/K]."""
    num = sum((k * h / m) * (m - p0) / m for p0, h, m, k, _ in points)
    den = sum((k * h / m) ** 2 for p0, h, m, k, _ in points)
    return min(max(num / den, 0.0), min(omax / k for *_, k, omax in points))


def predict(points, r):
    return [err(p0 + r * k * h, m) for p0, h, m, k, _ in points]


FIT_CHIP = "h100"   # the die with the most rows; the others are predicted from its fraction (header)
# The rows the shipped r was fitted on (FIT_CHIP's rows of the first gathering); rows added later
# (E19-E26, Qwen3-14B; E27-E33, Qwen3-30B-A3B) are predicted, never fitted, so that they test the fit.
FIT_ROWS = {"E1", "E2", "E3", "E4", "E9", "E10", "E11", "E12", "E13", "E14"}


def fit(binary, rows, in_mean):
    """r fitted to FIT_CHIP's rows: in sample, each model's rows predicted from the other's alone,
    and every other chip's rows predicted with O = r (TDP - idle) of their own preset."""
    with concurrent.futures.ThreadPoolExecutor(2) as pool:   # as main() runs the rows
        pts = list(zip(rows, pool.map(lambda row: components(binary, row, in_mean), rows)))
    own = [(r, p) for r, p in pts if r["id"] in FIT_ROWS]
    r = fit_r([p for _, p in own])
    print("Fitted on %s's rows (%s): r = dynamic_power_other_W / (TDP - idle) = %.4f, so "
          "dynamic_power_scale = 1 - r = %.4f; %s: dynamic_power_other_W %.1f W; in sample %.1f%%." % (
              FIT_CHIP, " ".join(x["id"] for x, _ in own), r, 1 - r, FIT_CHIP, r * own[0][1][3],
              mape(predict([p for _, p in own], r))))
    print()
    print("| held out | rows | fitted on | r | dynamic_power_other_W | power MAPE | signed |")
    print("|---|---|---|---|---|---|---|")
    models = sorted({x["model"] for x, _ in own})
    for held in models:
        rt = fit_r([p for x, p in own if x["model"] != held])
        e = predict([p for x, p in own if x["model"] == held], rt)
        print("| %s on %s | %d | %s's other rows | %.4f | %.1f | %.1f%% | %+.1f%% |" % (
            held, FIT_CHIP, len(e), FIT_CHIP, rt, rt * own[0][1][3], mape(e), sum(e) / len(e)))
    # the rows never fitted: another die's rows of the fitted models, and each model added later, by chip
    groups = {}
    for x, p in pts:
        if x["id"] not in FIT_ROWS:
            later = x["model"] not in models
            key = (later, x["model"] if later else "", x["chip"])
            groups.setdefault(key, []).append(p)
    for (later, model, chip), cp in sorted(groups.items()):
        e = predict(cp, r)
        what = "%s on %s (added after the fit)" % (model, chip) if later else "every %s row" % chip
        print("| %s | %d | %s's rows | %.4f | %.1f | %.1f%% | %+.1f%% |" % (
            what, len(e), FIT_CHIP, r, r * cp[0][3], mape(e), sum(e) / len(e)))


def main():
    args = sys.argv[1:]
    if not args or args[0].startswith("-"):
        sys.exit(__doc__.split("\n\n")[1])
    binary, path, in_mean = args[0], CSV_DEFAULT, IN_MEAN
    for i, a in enumerate(args[1:], 1):
        if a == "--csv":
            path = args[i + 1]
        elif a == "--in-mean":
            in_mean = float(args[i + 1])
    rows = read_rows(path)
    if "--fit" in args:
        return fit(binary, rows, in_mean)
    with concurrent.futures.ThreadPoolExecutor(2) as pool:
        results = list(pool.map(lambda r: run(binary, r, in_mean), rows))
    print("| row | model | chip | GPUs | max_num_seqs | power W (measured) | npusim | error | J/token "
          "(measured) | npusim | error | median ITL ms (measured) | npusim | error | output tok/s (measured) "
          "| npusim | error |")
    print("|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|")
    errs = {"power": [], "energy": [], "itl": [], "tput": []}
    by_chip = {}
    for row, (s, why) in zip(rows, results):
        if s is None:
            print("| %s | %s | %s | %s | %s | skipped: %s |" % (row["id"], row["model"], row["chip"],
                                                               row["num_gpus"], row["max_num_seqs"], why))
            continue
        g = int(row["num_gpus"])
        pairs = [("power", s["avg_power_W_per_chip"] * g, float(row["avg_power_W"])),
                 ("energy", s["energy_per_output_token_J"], float(row["energy_per_token_J"])),
                 ("itl", s["itl_ms"]["p50"], float(row["median_itl_ms"])),
                 ("tput", s["output_tokens_per_s"], float(row["output_tokens_per_s"]))]
        cells = []
        for k, p, m in pairs:
            e = err(p, m)
            errs[k].append(e)
            if k == "power":
                by_chip.setdefault(row["chip"], []).append(e)
            cells += ["%.4g" % m, "%.4g" % p, "%+.1f%%" % e]
        print("| %s | %s | %s | %d | %s | %s |" % (row["id"], row["model"], row["chip"], g, row["max_num_seqs"],
                                                   " | ".join(cells)))
    print()
    names = {"power": "mean GPU power", "energy": "energy per output token", "itl": "median ITL",
             "tput": "output throughput"}
    print("| metric | rows | MAPE | signed mean error |")
    print("|---|---|---|---|")
    for k, v in errs.items():
        print("| %s | %d | %.1f%% | %+.1f%% |" % (names[k], len(v), mape(v), sum(v) / len(v) if v else float("nan")))
    print()
    print("Mean GPU power by chip: " + "; ".join("%s %+.1f%% signed over %d rows" % (c, sum(v) / len(v), len(v))
                                                 for c, v in sorted(by_chip.items())) + ".")
    print("Prompt mean %g tokens (ASSUMED), CV %g." % (in_mean, IN_CV))


if __name__ == "__main__":
    main()
