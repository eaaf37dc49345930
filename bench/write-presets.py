#!/usr/bin/env python3
"""Write the GPU presets (configs/chips/*.json) from an inference fit, so that a refit is
reproducible end to end: `make validate-inference` (bench/validate-inference.sh) fits, this writes.

Usage:  python3 bench/write-presets.py FIT_DIR [--configs DIR] [--runs FILE] [--check]

FIT_DIR is validate-inference.sh's output directory: its fit.json (`npusim calibrate --runs
... --json`) lists every chip of the rows with the fields its calibrated config sets ("chips":
{"chip", "group", "sets": ["kernel_efficiency.gemm.bf16=0.774700286", ...]}). Each preset
DIR/chips/CHIP.json (default configs) takes those fields, rounded as a preset states them:

  kernel_efficiency.*       4 decimals (0.774700286 -> 0.7747)
  ici_latency_ns            nearest 10 ns (a link step: 4493 -> 4490)
  other *_ns                nearest 100 ns (host times: 1079922 -> 1079900, 87137 -> 87100)

(half up), and a calibration_source naming the rows (--runs: the file fitted, default
bench/public/inference-runs.csv), their sources and the fit's leave-one-source-out MAPE. A chip no row ran takes named fields from a fitted one (BORROWED:
b200, on no inference row, takes h100's host terms, link step and collective fraction; its own
efficiencies stay the B200 kernel-benchmark priors). A preset that starts from another ("base":
gb200 from b200, gh200 from h200, mi325x from mi300x, MI300X's die with more and faster HBM) inherits them and is not
written. Every other field, and the file's layout (4-space JSON, key order), is kept. --check writes nothing and exits 1, naming each field, when a preset
differs from what the fit gives (0 when they all agree).
"""

import decimal
import json
import os
import sys

RUNS = "bench/public/inference-runs.csv"
# The engines' host terms, the switch's step latency and NCCL's fraction: what a die no row ran borrows.
HOST_TERMS = ["step_overhead_ns", "layer_overhead_ns", "kernel_launch_ns", "request_overhead_ns",
              "ici_latency_ns", "kernel_efficiency.collective.e_max"]
# chip -> (the fitted chip it borrows from, the fields it takes); a chip on another's die starts
# from it instead ("base" in its file) and is not written
BORROWED = {
    "b200": ("h100", HOST_TERMS),
}


def half_up(x, quantum):
    """x to a multiple of quantum (a decimal string), halves away from zero."""
    q = decimal.Decimal(quantum)
    return (decimal.Decimal(repr(x)) / q).quantize(decimal.Decimal(1), decimal.ROUND_HALF_UP) * q


def rounded(key, value):
    if key.startswith("kernel_efficiency."):
        return float(half_up(value, "0.0001"))
    if key.endswith("_ns"):
        return int(half_up(value, "10" if key == "ici_latency_ns" else "100"))
    return value


def get(d, key):
    for part in key.split("."):
        d = d[part]
    return d


def put(d, key, value):
    parts = key.split(".")
    for part in parts[:-1]:
        d = d.setdefault(part, {})
    d[parts[-1]] = value


def compress(names):
    """["S5a", "S5b", "S5c", "S8"] -> "S5a-c, S8": a source's lettered parts as one range."""
    out, i = [], 0
    while i < len(names):
        j = i
        stem = names[i].rstrip("abcdefghijklmnopqrstuvwxyz")
        while (j + 1 < len(names) and stem != names[i] and names[j + 1].rstrip("abcdefghijklmnopqrstuvwxyz") == stem
               and ord(names[j + 1][-1]) == ord(names[j][-1]) + 1):
            j += 1
        out.append(names[i] if j == i else "%s-%s" % (names[i], names[j][-1]))
        i = j + 1
    return ", ".join(out)


def source_text(fit, runs):
    lo = fit["leave_one_source_out"]
    srcs = [s["source"].split()[0] for s in lo["sources"]]
    return ("npusim calibrate --runs %s: %d rows of %d sources (%s), kernel-benchmark priors "
            "(docs/validation.md, Inference); leave-one-source-out MAPE %.1f%%"
            % (runs, len(fit["rows"]), len(srcs), compress(srcs), lo["pooled"]["overall"]["mape_pct"]))


def new_presets(fit, configs, runs):
    """{chip: (path, old dict, new dict)} for every fitted and borrowing chip."""
    out, fitted = {}, {}
    for c in fit["chips"]:
        path = os.path.join(configs, "chips", c["chip"] + ".json")
        old = json.load(open(path))
        new = json.loads(json.dumps(old))
        for s in c["sets"]:
            key, _, v = s.partition("=")
            put(new, key, rounded(key, float(v)))
        new["calibration_source"] = source_text(fit, runs)
        out[c["chip"]] = (path, old, new)
        fitted[c["chip"]] = new
    for chip, (donor, keys) in BORROWED.items():
        path = os.path.join(configs, "chips", chip + ".json")
        if donor not in fitted or not os.path.exists(path):
            continue
        old = json.load(open(path))
        if "base" in old:   # its fields come from its base chip's file
            continue
        new = json.loads(json.dumps(old))
        for key in keys:
            put(new, key, get(fitted[donor], key))
        out[chip] = (path, old, new)
    return out


def leaves(d, prefix=""):
    for k, v in d.items():
        if isinstance(v, dict):
            yield from leaves(v, prefix + k + ".")
        else:
            yield prefix + k, v


def main(argv):
    configs, runs, check, fit_dir = "configs", RUNS, False, None
    i = 0
    while i < len(argv):
        if argv[i] in ("-h", "--help"):
            print(__doc__)
            return 0
        if argv[i] == "--configs" and i + 1 < len(argv):
            configs, i = argv[i + 1], i + 2
        elif argv[i] == "--runs" and i + 1 < len(argv):
            runs, i = argv[i + 1], i + 2
        elif argv[i] == "--check":
            check, i = True, i + 1
        else:
            fit_dir, i = argv[i], i + 1
    if not fit_dir:
        print("write-presets: give the fit's directory (bench/validate-inference.sh's OUT_DIR)", file=sys.stderr)
        return 2
    try:
        fit = json.load(open(os.path.join(fit_dir, "fit.json")))
        if not isinstance(fit.get("chips"), list):
            raise ValueError("no \"chips\" list")
    except (OSError, ValueError) as e:
        print("write-presets: %s/fit.json: %s (expected `npusim calibrate --runs --json` output with \"chips\")"
              % (fit_dir, e), file=sys.stderr)
        return 2
    differ = 0
    for chip, (path, old, new) in sorted(new_presets(fit, configs, runs).items()):
        a, b = dict(leaves(old)), dict(leaves(new))
        for k in sorted(set(a) | set(b)):
            if a.get(k) != b.get(k):
                differ += 1
                print("%s %s: %s -> %s" % (chip, k, a.get(k), b.get(k)))
        if not check:
            with open(path + ".tmp", "w") as f:
                f.write(json.dumps(new, indent=4) + "\n")
            os.replace(path + ".tmp", path)
    if check and differ:
        print("write-presets: %d field(s) differ from the fit" % differ, file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
