#!/usr/bin/env python3
"""physics-headline.py -- reruns docs/physics.md's "Headline numbers" tables.

Usage: python3 bench/physics-headline.py [build/npusim]

Each row is one `npusim run` on the tpuv5p preset (the caption of the tables
gives the command) under the physical and the neusim profile; the script
reads the run's printed summary and prints both tables as docs/physics.md
holds them, so the page is regenerated rather than edited by hand. Power per
chip is the phase's energy over its chip time (J per token per chip times
tokens/s); the neusim rows above the chip's TDP say so.

Main data structure: RUNS, (model, extra npusim flags, chips) a row.
"""
import re
import subprocess
import sys
import tempfile

BIN = sys.argv[1] if len(sys.argv) > 1 else "build/npusim"
CHIP = "tpuv5p"
TDP_W = 350.0   # configs/chips/tpuv5p.json: TDP_W (the neusim rows' note)

LLM_RUNS = [
    ("llama3-8b", ["--batch", "8"], 1),
    ("llama3-70b", ["--batch", "8", "--set", "num_chips=8", "--set", "tensor_parallelism_degree=8"], 8),
    ("deepseekv3-671b", [], 1),
]
OTHER_RUNS = ["dlrm-m", "dit-xl"]
PROFILES = ["physical", "neusim"]


def run(model, flags, profile):
    with tempfile.TemporaryDirectory() as out:
        r = subprocess.run([BIN, "run", "-m", model, "-c", CHIP, "--profile", profile, "-o", out] + flags,
                           capture_output=True, text=True)
    if r.returncode != 0:
        sys.exit(f"physics-headline.py: {model} ({profile}) exited {r.returncode}: {r.stderr.strip()}")
    return r.stdout


def num(pattern, text):
    m = re.search(pattern, text)
    if not m:
        sys.exit(f"physics-headline.py: no match for {pattern!r} in:\n{text}")
    return float(m.group(1))


def group(x, digits):
    return f"{x:,.{digits}f}"


def sig(x, n=3):
    """n significant digits, no exponent (0.0154, 0.285, 4.77, 11.7)."""
    s = f"{x:#.{n}g}"
    return s if "e" not in s else f"{x:.{n}f}"


def watts(x):
    return group(x, 0) if x >= 1000 else f"{x:.1f}"


def llm_row(model, flags, chips, profile):
    t = run(model, flags, profile)
    ttft = num(r"TTFT\s+([0-9.]+) s", t)
    tpot = num(r"TPOT\s+([0-9.]+) ms", t)
    pre_tps = num(r"throughput\s+prefill ([0-9.]+) tokens/s", t)
    dec_tps = num(r"decode ([0-9.]+) tokens/s", t)
    pre_j = num(r"energy/token\s+prefill ([0-9.e+-]+) J", t) / chips
    dec_j = num(r"energy/token\s+prefill [0-9.e+-]+ J, decode ([0-9.e+-]+) J", t) / chips
    pre_w, dec_w = pre_j * pre_tps, dec_j * dec_tps
    if profile == "physical":   # the run's own power line
        pw = t.split("power/chip", 1)[1]
        power = f"{watts(num(r'prefill ([0-9.]+) W', pw))}, {watts(num(r'decode ([0-9.]+) W', pw))}"
    else:
        over = [name for name, w in (("prefill", pre_w), ("decode", dec_w)) if w > TDP_W]
        power = f"{group(pre_w, 0)}, {group(dec_w, 0)}" + (f" ({' and '.join(over)} above TDP)" if over else "")
    return (f"| {model} | {profile} | {ttft:.3f} | {tpot:.2f} | {group(pre_tps, 0)} | {dec_tps:,.1f} | "
            f"{power} | {sig(pre_j)}, {sig(dec_j)} |")


def other_row(model, profile):
    t = run(model, [], profile)
    if model.startswith("dlrm"):
        us, j = num(r"latency ([0-9.]+) us", t), num(r"\(([0-9.e+-]+) J/request\)", t)
        lat, energy = f"{us:.1f} us per batch", f"{sig(j)} J per request"
    else:
        s, step = num(r"latency\s+([0-9.]+) s per request", t), num(r"([0-9.]+) s per diffusion step", t)
        lat = f"{s:.2f} s per request ({step:.3f} s per step)"
        energy = f"{group(num(r'([0-9.]+) J per request', t), 0)} J per request"
    return f"| {model} | {profile} | {lat} | {energy} |"


def main():
    print("| model | profile | TTFT s | TPOT ms | prefill tok/s | decode tok/s | W/chip prefill, decode "
          "| J/token prefill, decode |")
    print("|---|---|---|---|---|---|---|---|")
    for model, flags, chips in LLM_RUNS:
        for p in PROFILES:
            print(llm_row(model, flags, chips, p))
    print()
    print("| model | profile | latency | energy |")
    print("|---|---|---|---|")
    for model in OTHER_RUNS:
        for p in PROFILES:
            print(other_row(model, p))


if __name__ == "__main__":
    main()
