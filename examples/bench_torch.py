#!/usr/bin/env python3
"""bench_torch.py - GEMM, GEMV and row-wise kernel timings on whatever PyTorch
device is present (CUDA, ROCm, Apple MPS or the CPU), written as npusim's
native measurement CSV (op,dtype,m,n,k,batch,time_us, then tflops, GBps,
min_us, max_us, reps, device, torch), ready for

    npusim validate -c h100 torch.csv
    npusim calibrate -c h100 torch.csv -o h100-cal.json

Each kernel's result is checked against an fp64 product on the CPU (sampled
rows) before its time counts; one that fails is reported and left out.
Times: a warm-up, then repetitions timed with CUDA events on a GPU (the
kernels' own time) or the wall clock on the CPU; the median is written.

    python3 bench_torch.py -o torch.csv               # the full sweep
    python3 bench_torch.py --quick -o torch.csv       # a small one (CI)
    python3 bench_torch.py --device cpu --dtypes fp32,bf16 -o cpu.csv
"""
import argparse
import csv
import statistics
import sys
import time

import torch

DTYPES = {"fp64": torch.float64, "fp32": torch.float32, "bf16": torch.bfloat16, "fp16": torch.float16}
# Normwise relative error against fp64 on the same (rounded) inputs: the
# accumulation's, not the format's (fp16/bf16 GEMMs accumulate in fp32).
TOL = {"fp64": 1e-12, "fp32": 1e-4, "bf16": 2e-2, "fp16": 5e-3}


def pick_device(name):
    if name != "auto":
        return torch.device(name)
    if torch.cuda.is_available():          # CUDA and ROCm builds both answer here
        return torch.device("cuda")
    mps = getattr(torch.backends, "mps", None)
    if mps is not None and mps.is_available():
        return torch.device("mps")
    return torch.device("cpu")


def sync(dev):
    if dev.type == "cuda":
        torch.cuda.synchronize()
    elif dev.type == "mps":
        torch.mps.synchronize()


def time_us(fn, dev, budget_s, min_reps=3, max_reps=200):
    """Median, min and max of one call in microseconds, and the repetitions."""
    fn()
    sync(dev)
    times = []
    start = time.perf_counter()
    while len(times) < max_reps and (len(times) < min_reps or time.perf_counter() - start < budget_s):
        if dev.type == "cuda":
            a, b = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
            a.record()
            fn()
            b.record()
            b.synchronize()
            times.append(a.elapsed_time(b) * 1e3)
        else:
            t0 = time.perf_counter()
            fn()
            sync(dev)
            times.append((time.perf_counter() - t0) * 1e6)
    return statistics.median(times), min(times), max(times), len(times)


def rel_err(got, want):
    got, want = got.double().cpu(), want.double().cpu()
    return float((got - want).norm() / max(float(want.norm()), 1e-300))


def gemm_case(m, n, k, dt, dev):
    a = torch.rand(m, k, dtype=torch.float64).mul_(2).sub_(1)
    b = torch.rand(k, n, dtype=torch.float64).mul_(2).sub_(1)
    ad, bd = a.to(dt).to(dev), b.to(dt).to(dev)
    c = ad @ bd
    rows = torch.linspace(0, m - 1, min(m, 8)).long()
    want = ad[rows].cpu().double() @ bd.cpu().double()
    err = rel_err(c[rows], want)
    return (lambda: torch.matmul(ad, bd)), err, 2 * m * n * k, (m * k + k * n + m * n) * ad.element_size()


def row_case(op, m, n, dt, dev):
    x = torch.rand(m, n, dtype=torch.float64).mul_(4).sub_(2).to(dt).to(dev)
    fns = {
        "softmax": lambda: torch.softmax(x, dim=-1),
        "layernorm": lambda: torch.nn.functional.layer_norm(x, (n,)),
        "gelu": lambda: torch.nn.functional.gelu(x, approximate="tanh"),
    }
    refs = {
        "softmax": lambda v: torch.softmax(v, dim=-1),
        "layernorm": lambda v: torch.nn.functional.layer_norm(v, (n,)),
        "gelu": lambda v: torch.nn.functional.gelu(v, approximate="tanh"),
    }
    err = rel_err(fns[op]()[:8], refs[op](x[:8].cpu().double()))
    return fns[op], err, 8 * m * n, 2 * m * n * x.element_size()


def plan(quick):
    squares = [256, 512, 1024] if quick else [128, 256, 512, 768, 1024, 1536, 2048, 3072, 4096, 6144, 8192]
    rects = [(64, 1024, 1024)] if quick else [(16, 4096, 4096), (64, 4096, 4096), (128, 4096, 11008),
                                             (512, 4096, 4096), (2048, 1024, 4096), (4096, 14336, 4096)]
    gemv = [(1, 2048, 2048)] if quick else [(1, 4096, 4096), (1, 11008, 4096), (1, 4096, 14336), (1, 8192, 8192)]
    rows = [(4096, 1024)] if quick else [(4096, 1024), (16384, 4096), (65536, 4096)]
    for s in squares:
        yield "gemm", (s, s, s)
    for r in rects + gemv:
        yield ("gemv" if r[0] == 1 else "gemm"), r
    for op in ("softmax", "layernorm", "gelu"):
        for m, n in rows:
            yield op, (m, n, 0)


def main(argv=None):
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0], formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("-o", "--out", required=True, help="the native measurement CSV")
    p.add_argument("--device", default="auto", help="auto (cuda, then mps, then cpu), cuda, cuda:1, mps or cpu")
    p.add_argument("--dtypes", default="fp32,bf16,fp16", help="comma list of fp64, fp32, bf16, fp16")
    p.add_argument("--quick", action="store_true", help="a small sweep")
    p.add_argument("--budget", type=float, default=None, help="seconds of timing per kernel (0.05 quick, 0.3 full)")
    a = p.parse_args(argv)
    dev = pick_device(a.device)
    budget = a.budget if a.budget is not None else (0.05 if a.quick else 0.3)
    names = [d.strip() for d in a.dtypes.split(",") if d.strip()]
    bad = [d for d in names if d not in DTYPES]
    if bad:
        p.error("--dtypes: expected some of %s, got %s" % (",".join(DTYPES), ",".join(bad)))
    torch.manual_seed(20261126)
    label = torch.cuda.get_device_name(dev) if dev.type == "cuda" else dev.type
    print("device: %s (torch %s)" % (label, torch.__version__), file=sys.stderr)
    rows, failed = [], 0
    for name in names:
        dt = DTYPES[name]
        for op, (m, n, k) in plan(a.quick):
            try:
                fn, err, flops, nbytes = (gemm_case(m, n, k, dt, dev) if op in ("gemm", "gemv")
                                          else row_case(op, m, n, dt, dev))
            except (RuntimeError, TypeError) as e:   # a format the device has no kernel for
                print("SKIP %-9s %-5s %s: %s" % (op, name, (m, n, k), str(e).split("\n")[0]), file=sys.stderr)
                break
            tol = TOL[name] if op in ("gemm", "gemv") else max(TOL[name], 1e-5)
            if not err <= tol:
                print("FAIL %-9s %-5s %s: error %.3g above %.3g" % (op, name, (m, n, k), err, tol), file=sys.stderr)
                failed += 1
                continue
            med, lo, hi, reps = time_us(fn, dev, budget)
            rows.append([op, name, m, n, k or "", "", "%.4f" % med, "%.6g" % (flops / med / 1e6),
                         "%.6g" % (nbytes / med / 1e3), "%.4f" % lo, "%.4f" % hi, reps, label, torch.__version__])
            print("PASS %-9s %-5s %-20s %10.2f us %8.3f TFLOP/s" % (op, name, (m, n, k), med, flops / med / 1e6),
                  file=sys.stderr)
    with open(a.out, "w", newline="") as f:
        w = csv.writer(f, lineterminator="\n")
        w.writerow(["op", "dtype", "m", "n", "k", "batch", "time_us", "tflops", "GBps", "min_us", "max_us", "reps",
                    "device", "torch"])
        w.writerows(rows)
    print("%d rows written to %s, %d failed" % (len(rows), a.out, failed), file=sys.stderr)
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
