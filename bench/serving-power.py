#!/usr/bin/env python3
"""serving-power.py: npusim's GPU power and energy under serving traffic against ML.ENERGY's measurements.

Usage: python3 bench/serving-power.py BIN [--csv FILE] [--in-mean N]

Reads bench/public/serving-power.csv (the ML.ENERGY leaderboard's vLLM runs of the LM Arena chat task on
H100 and B200: measured mean GPU power, energy per output token, median inter-token latency and output
throughput of a steady state whose batch is held at max_num_seqs) and runs each row through
`npusim serving` as its configuration states it. Prints a markdown table for docs/validation.md
("Serving power"). Nothing here is fitted: the chips' power fields are the presets' (docs/hardware.md).

Mapping (each row's conditions):
  workload     --offline --requests 1024: benchmark.yaml queues all 1024 requests at once (no rate);
               --max-num-seqs = the row's max_num_seqs, --max-num-batched-tokens 8192 and --max-context
               20480 (monolithic.config.yaml), --scheduler chunked (vLLM V1), --kv-reserve 0.1 (vLLM's
               default gpu-memory-utilization 0.9), bf16 weights, activations and KV cache (dtype
               bfloat16); --tp = num_gpus (tensor_parallel in the leaderboard's parallelization).
  lengths      lognormal:IN:2.0:OUT:CV. OUT and CV from the row's output-length histogram (the model's
               own answers, max_output_tokens 4096). IN, the prompt mean, is not published: ASSUMED 300
               tokens with a CV of 2 (LM Arena prompts are short with a long tail; a multi-turn request
               carries its earlier turns). --in-mean changes it (docs: the sensitivity run).
  power        measured avg_power_W is all num_gpus GPUs together (NVML, steady state); compared with
               npusim's avg_power_W_per_chip x num_gpus (energy over the whole run's time, ramp-up and
               drain included: the steady state is not separated). Energy per output token: npusim's
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
REQUESTS, BUDGET, CONTEXT = 1024, 8192, 20480


def read_rows(path):
    with open(path, newline="") as f:
        return list(csv.DictReader(l for l in f if not l.startswith("#")))


def command(binary, row, in_mean):
    return [binary, "serving", "-m", os.path.join(MODELS, row["model"] + ".json"), "-c", row["chip"],
            "--tp", row["num_gpus"], "--set", "weight_dtype=bf16", "--set", "activation_dtype=bf16",
            "--set", "kv_cache_dtype=bf16", "--offline", "--requests", str(REQUESTS),
            "--lengths", "lognormal:%g:%g:%s:%s" % (in_mean, IN_CV, row["output_mean"], row["output_cv"]),
            "--max-context", str(CONTEXT), "--max-num-batched-tokens", str(BUDGET),
            "--max-num-seqs", row["max_num_seqs"], "--kv-reserve", "0.1", "--scheduler", "chunked", "--json"]


def run(binary, row, in_mean):
    p = subprocess.run(command(binary, row, in_mean), capture_output=True, text=True)
    if p.returncode != 0:
        return None, p.stderr.strip().splitlines()[-1] if p.stderr.strip() else "exit %d" % p.returncode
    return json.loads(p.stdout), None


def err(pred, meas):
    return 100.0 * (pred - meas) / meas


def mape(xs):
    return sum(abs(x) for x in xs) / len(xs) if xs else float("nan")


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
