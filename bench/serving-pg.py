#!/usr/bin/env python3
"""Reproduces docs/serving.md's power-gating table: one H100 serving llama3-8b chat requests (1000,
seed 1, the default chunked scheduler) at 5%, 50% and 90% of its offline capacity, under each
power-gating strategy against NoPG (the `pg` object of summary.json: energy saved, wake-ups and the
latency paid, each strategy's run against a NoPG run of the same requests).

Usage:  python3 bench/serving-pg.py [NPUSIM]   (default build/npusim; about 2 minutes on 2 cores)

The capacity is `npusim serving --offline` on the same requests (requests/s); each load's rate is
that times the load, to 3 decimals. Prints the markdown rows, one per load and strategy."""

import json
import os
import subprocess
import sys
from concurrent.futures import ThreadPoolExecutor

LOADS = (0.05, 0.5, 0.9)
STRATEGIES = ("Base", "HW", "Full", "Ideal")


def serving(binary, args):
    cmd = [binary, "serving", "-m", "llama3-8b", "-c", "h100", "--requests", "1000", "--json"] + args
    return json.loads(subprocess.run(cmd, capture_output=True, text=True, check=True).stdout)


def signed(x, digits):
    """A latency paid: 0 when nothing moved, else signed to the given decimals."""
    return "0" if abs(x) < 5e-7 else "%+.*f" % (digits, x)


def row(load, strategy, rate, s):
    pg, paid = s["pg"], s["pg"]["latency_paid_ms"]
    return "| %d%% | %s | %.3f | %.0f%% | %.1f | %.1f | %d | %s / %s | %s / %s | %.1f%% |" % (
        round(load * 100), strategy, rate, 100 * s["setting"]["busy_fraction"],
        pg["baseline_energy_J"] / s["completed"], s["energy_per_request_J"], pg["wakeups"],
        signed(paid["ttft_p50"], 2), signed(paid["ttft_p99"], 2), signed(paid["tpot_p50"], 3),
        signed(paid["tpot_p99"], 3), pg["energy_saved_pct"])


def main():
    binary = os.path.abspath(sys.argv[1] if len(sys.argv) > 1 else "build/npusim")
    capacity = serving(binary, ["--offline"])["request_throughput_rps"]
    jobs = [(load, st, round(capacity * load, 3)) for load in LOADS for st in STRATEGIES]
    with ThreadPoolExecutor(os.cpu_count() or 1) as pool:
        runs = list(pool.map(lambda j: serving(binary, ["--rate", "%.3f" % j[2], "--pg", j[1]]), jobs))
    print("offline capacity %.2f requests/s" % capacity)
    print()
    print("| load | strategy | rate (req/s) | busy | NoPG J/request | J/request | wake-ups | "
          "TTFT p50 / p99 paid (ms) | TPOT p50 / p99 paid (ms) | energy saved |")
    print("|---|---|---|---|---|---|---|---|---|---|")
    for (load, st, rate), s in zip(jobs, runs):
        print(row(load, st, rate, s))


if __name__ == "__main__":
    main()
