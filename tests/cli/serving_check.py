"""Checks of `npusim serving` outputs for tests/cli/t_serving.sh: each
subcommand reads what the test wrote and asserts one property (exit 1 with
the reason when it does not hold)."""
import csv
import glob
import json
import os
import subprocess
import sys


def rows(d, name):
    return list(csv.DictReader(open(os.path.join(d, name))))


def summary(d):
    return json.load(open(os.path.join(d, "summary.json")))


def close(a, b, rel):
    return abs(a - b) <= rel * max(abs(a), abs(b))


def equal(run_dir, s129, s128):
    p = json.load(open(glob.glob(run_dir + "/*_prefill.json")[0]))
    q = json.load(open(glob.glob(run_dir + "/*_decode.json")[0]))
    a, b = json.load(open(s129)), json.load(open(s128))
    ttft, tpot = p["TTFT_sec"] * 1e3, q["TPOT_ms_request"]
    assert close(a["ttft_ms"]["mean"], ttft, 1e-9), (a["ttft_ms"], ttft)
    assert a["ttft_ms"]["max"] == a["ttft_ms"]["p50"], a["ttft_ms"]
    assert close(a["tpot_ms"]["mean"], tpot, 1e-3), (a["tpot_ms"], tpot)
    busy = ttft / 1e3 + 128 * tpot / 1e3   # the prefill and 128 decode steps
    assert close(a["duration_s"], busy, 1e-3), (a["duration_s"], busy)
    e2e = q["e2e_throughput_tokens_per_sec"]
    assert close(b["output_tokens_per_s"], e2e, 0.01), (b["output_tokens_per_s"], e2e)


def same_summary(d1, d2):
    a, b = summary(d1), summary(d2)
    for s in (a, b):
        del s["sim_wall_s"]
        del s["provenance"]["command"]
    assert a == b


def accounting(d, sched):
    s, req, it = summary(d), rows(d, "requests.csv"), rows(d, "iterations.csv")
    ok = [r for r in req if r["status"] == "ok"]
    assert len(req) == s["requests"] == s["completed"] + s["rejected"] == 300, (len(req), s["requests"])
    assert sorted(int(r["id"]) for r in req) == list(range(300))
    dur = s["duration_s"]
    # Little's law: the mean number in the system (the rows' times in the
    # system over the run) is the throughput times the mean time in it
    L = sum(float(r["e2e_s"]) for r in ok) / dur
    assert close(L, s["request_throughput_rps"] * s["e2e_s"]["mean"], 1e-9), L
    assert s["preemptions"] == 0
    pre = sum(int(r["prefill_tokens"]) for r in it)
    dec = sum(int(r["decode_tokens"]) for r in it)
    assert pre == sum(int(r["input_tokens"]) for r in ok), (pre,)
    assert dec == sum(int(r["output_tokens"]) - 1 for r in ok), (dec,)
    out = sum(int(r["output_tokens"]) for r in ok)
    assert close(out, s["output_tokens_per_s"] * dur, 1e-9)
    assert all(int(r["kv_blocks_used"]) <= int(r["kv_blocks_total"]) for r in it)
    # JSON keeps 15 significant digits (cJSON): equal to within them
    assert close(max(int(r["kv_blocks_used"]) / int(r["kv_blocks_total"]) for r in it), s["kv_peak_utilisation"], 1e-13)
    for r in ok:   # each request's own times in order
        a, f, e = float(r["arrival_s"]), float(r["first_token_s"]), float(r["finish_s"])
        assert a <= f <= e and float(r["queue_s"]) >= 0, r
    # passes never overlap on a replica
    t = 0.0
    for r in it:
        st = float(r["start_s"])
        assert st >= t - 1e-9, r
        t = st + float(r["duration_ms"]) / 1e3


def budget(d, b):
    b = int(b)
    for r in rows(d, "iterations.csv"):
        assert int(r["prefill_tokens"]) + int(r["decode_tokens"]) <= b, r


def monotone(*files):
    last = None
    for f in files:
        s = json.load(open(f))["ttft_ms"]
        if last:
            assert s["p50"] >= last["p50"] and s["p99"] >= last["p99"], (f, s, last)
        last = s


def preempt(rec, swap):
    for d, recompute in ((rec, True), (swap, False)):
        s, req, it = summary(d), rows(d, "requests.csv"), rows(d, "iterations.csv")
        assert s["completed"] == 120 and s["preemptions"] > 0, (d, s["completed"], s["preemptions"])
        assert sum(int(r["preemptions"]) for r in req) == s["preemptions"]
        pre = sum(int(r["prefill_tokens"]) for r in it)
        inp = sum(int(r["input_tokens"]) for r in req)
        assert (pre > inp) if recompute else (pre == inp), (d, pre, inp)
        assert all(int(r["kv_blocks_used"]) <= int(r["kv_blocks_total"]) for r in it)


def admit(gated, free, f, prompt, block):
    """--admit-kv-free F: every prefill pass of fixed prompts began with more
    than F of the blocks free (a pass's kv_blocks_used is counted after its
    prompts took theirs); without the gate some began with less, and
    preempted, so the check can fail."""
    def free_before(d):
        out = []
        for r in rows(d, "iterations.csv"):
            n = int(r["prefill_tokens"]) // int(prompt)
            if n:
                tot = int(r["kv_blocks_total"])
                used = int(r["kv_blocks_used"]) - n * -(-int(prompt) // int(block))
                out.append((tot - used) / tot)
        return out
    g, u = free_before(gated), free_before(free)
    assert g and min(g) > float(f), min(g)
    assert summary(gated)["preemptions"] == 0 and summary(gated)["completed"] == summary(free)["completed"]
    assert min(u) <= float(f) and summary(free)["preemptions"] > 0, (min(u), summary(free)["preemptions"])
    assert summary(gated)["setting"]["admit_kv_free"] == float(f) and "admit_kv_free" not in summary(free)["setting"]


def noevict(held, maxu, n, ctx_blocks):
    """--capacity-policy guaranteed-no-evict on a cache max-utilization
    preempts in: none preempted, every request done, each holding its whole
    context's blocks from its first pass (so a pass's blocks are a multiple
    of them), the cache filled as far as whole contexts go, and no prompt
    recomputed."""
    s, u, cb = summary(held), summary(maxu), int(ctx_blocks)
    assert s["preemptions"] == 0 and s["completed"] == int(n) == u["completed"], (s["preemptions"], s["completed"])
    assert u["preemptions"] > 0, u["preemptions"]
    it = rows(held, "iterations.csv")
    used = [int(r["kv_blocks_used"]) for r in it]
    total = int(it[0]["kv_blocks_total"])
    assert all(x % cb == 0 and x <= total for x in used), sorted(set(x % cb for x in used))
    assert max(used) > total - cb, (max(used), total)
    assert sum(int(r["prefill_tokens"]) for r in it) == sum(int(r["input_tokens"]) for r in rows(held, "requests.csv"))
    assert s["setting"]["capacity_policy"] == "guaranteed-no-evict" and u["setting"]["capacity_policy"] == "max-utilization"


def rejected(d, n):
    s, req = summary(d), rows(d, "requests.csv")
    assert s["rejected"] == int(n) and s["completed"] == 0, s
    assert all(r["status"] == "rejected" and r["ttft_ms"] == "" for r in req)


def closed(d, n):
    ev = []
    for r in rows(d, "requests.csv"):
        ev += [(float(r["arrival_s"]), 1), (float(r["finish_s"]), -1)]
    ev.sort(key=lambda x: (x[0], x[1]))
    k = top = 0
    for _, x in ev:
        k += x
        top = max(top, k)
    assert top == int(n), top


def think(d, d0, mean_s):
    """One client: each request arrives its think time after the one before ends (every gap above
    0, their mean within 20% of the mean asked, 199 draws), where without one it arrives as it ends;
    the lengths are the same request by request (their own stream)."""
    req, req0 = rows(d, "requests.csv"), rows(d0, "requests.csv")
    gaps = [float(b["arrival_s"]) - float(a["finish_s"]) for a, b in zip(req, req[1:])]
    gaps0 = [float(b["arrival_s"]) - float(a["finish_s"]) for a, b in zip(req0, req0[1:])]
    assert all(g == 0 for g in gaps0), gaps0[:5]
    assert all(g > 0 for g in gaps), min(gaps)
    m = sum(gaps) / len(gaps)
    assert abs(m - float(mean_s)) <= 0.2 * float(mean_s), m
    assert [(r["input_tokens"], r["output_tokens"]) for r in req] == \
        [(r["input_tokens"], r["output_tokens"]) for r in req0]


def arrival_order(d):
    """Requests arrive in the order of their ids (a think time reorders no request)."""
    a = [float(r["arrival_s"]) for r in sorted(rows(d, "requests.csv"), key=lambda r: int(r["id"]))]
    assert all(x <= y for x, y in zip(a, a[1:]))


def warmup(d, full, w):
    """--warmup W: the requests, their energy and the run are the same as
    without it (full), every request still runs; the latency figures are
    those of the requests with id >= W and the throughput is their output
    tokens over the time from the first one's arrival to the last one's end."""
    w = int(w)
    s, f, req = summary(d), summary(full), rows(d, "requests.csv")
    assert rows(full, "requests.csv") == req
    for k in ("requests", "completed", "duration_s", "energy_per_request_J"):
        assert s[k] == f[k], (k, s[k], f[k])
    assert s["warmup_requests"] == w and "warmup_requests" not in f
    m = [r for r in req if int(r["id"]) >= w]
    assert 0 < len(m) < len(req)
    ttft = sorted(float(r["ttft_ms"]) for r in m)
    assert close(s["ttft_ms"]["mean"], sum(ttft) / len(ttft), 1e-6), (s["ttft_ms"], len(m))
    assert close(s["ttft_ms"]["max"], ttft[-1], 1e-6)
    win = max(float(r["finish_s"]) for r in m) - min(float(r["arrival_s"]) for r in m)
    assert close(s["measured_s"], win, 1e-6), (s["measured_s"], win)
    tok = sum(int(r["output_tokens"]) for r in m)
    assert close(s["output_tokens_per_s"], tok / win, 1e-6), (s["output_tokens_per_s"], tok / win)
    assert s["ttft_ms"]["mean"] != f["ttft_ms"]["mean"]
    # every measured request emits the same tokens: the gaps' mean is their TPOTs' mean
    tpot = [float(r["tpot_ms"]) for r in m]
    assert close(s["itl_ms"]["mean"], sum(tpot) / len(tpot), 1e-6), (s["itl_ms"], sum(tpot) / len(tpot))


def md1(dfile, cmd, tmp):
    D = json.load(open(dfile))["ttft_ms"]["mean"] / 1e3
    for rho, seed in ((0.5, 11), (0.8, 12)):
        out = subprocess.run(cmd.split() + ["--scheduler", "static", "--batch", "1", "--lengths", "fixed:512:1",
                                            "--rate", repr(rho / D), "--requests", "40000", "--seed", str(seed),
                                            "--json"], check=True, capture_output=True, text=True).stdout
        wq = json.loads(out)["queue_s"]["mean"]
        theory = rho * D / (2 * (1 - rho))   # Pollaczek-Khinchine, deterministic service
        assert close(wq, theory, 0.03), (rho, wq, theory)


def trace(*dirs):
    got = [[(round(float(r["arrival_s"]), 6), r["input_tokens"], r["output_tokens"]) for r in
            sorted(rows(d, "requests.csv"), key=lambda r: int(r["id"]))] for d in dirs]
    want = [(0.0, "374", "44"), (4.314579, "396", "109"), (4.819409, "879", "5")]
    for g in got:
        assert g == want, g


def pairs(d):
    seen = {(r["input_tokens"], r["output_tokens"]) for r in rows(d, "requests.csv")}
    assert seen == {("100", "10"), ("300", "30")}, seen


def disagg(d):
    s, it = summary(d), rows(d, "iterations.csv")
    assert s["completed"] == 100
    roles = [p["role"] for p in s["setting"]["pools"]]
    assert roles == ["prefill", "decode"], roles
    assert s["setting"]["chips"] == 2 * 1 + 1 * 2
    for r in it:
        if r["replica"] in ("0", "1"):
            assert r["decode_tokens"] == "0", r
        else:
            assert r["prefill_tokens"] == "0", r


def replicas(d, n):
    used = {r["replica"] for r in rows(d, "requests.csv")}
    assert used == {str(i) for i in range(int(n))}, used


def keys(jfile, d):
    s = json.load(open(jfile))
    for k in ("requests", "completed", "rejected", "duration_s", "request_throughput_rps", "input_tokens_per_s",
              "output_tokens_per_s", "output_tokens_per_s_per_chip", "goodput_rps", "preemptions",
              "kv_peak_utilisation", "mean_batch_tokens", "sim_wall_s", "provenance", "energy_per_request_J",
              "energy_per_output_token_J", "avg_power_W_per_chip", "peak_power_W_per_chip", "carbon_per_request_g",
              "carbon_per_million_tokens_kg"):
        assert k in s, k
    for k in ("ttft_ms", "tpot_ms", "itl_ms", "e2e_s", "queue_s"):
        assert sorted(s[k]) == sorted(["mean", "p50", "p90", "p95", "p99", "max"]), k
        assert s[k]["p50"] <= s[k]["p90"] <= s[k]["p95"] <= s[k]["p99"] <= s[k]["max"], k
    assert s["goodput_rps"] <= s["request_throughput_rps"]
    head = open(os.path.join(d, "requests.csv")).readline().strip()
    assert head == ("id,arrival_s,first_token_s,finish_s,input_tokens,output_tokens,ttft_ms,tpot_ms,e2e_s,"
                    "queue_s,preemptions,replica,status,energy_J"), head
    head = open(os.path.join(d, "iterations.csv")).readline().strip()
    assert head == ("replica,start_s,duration_ms,prefill_tokens,decode_tokens,requests,kv_blocks_used,"
                    "kv_blocks_total,microbatch"), head


def energy(lo, hi):
    """Each request's energy adds up to the run's; a chip idles at one power
    (idle energy over idle chip-time alike at two loads); energy per request
    falls as the load rises; power lies between idle and peak; carbon adds
    up from its parts."""
    idle_w = []
    per_req = []
    for d in (lo, hi):
        s, req, it = summary(d), rows(d, "requests.csv"), rows(d, "iterations.csv")
        tot = sum(float(r["energy_J"]) for r in req)
        assert close(tot, s["energy_J"], 1e-6), (tot, s["energy_J"])
        assert all(float(r["energy_J"]) > 0 for r in req if r["status"] == "ok")
        chips = s["setting"]["chips"]
        busy = sum(float(r["duration_ms"]) for r in it) / 1e3
        idle_w.append(s["carbon"]["idle_energy_J"] / (chips * (s["duration_s"] - busy)))
        assert close(s["energy_per_request_J"], s["energy_J"] / s["completed"], 1e-9)
        assert idle_w[-1] < s["avg_power_W_per_chip"] < s["peak_power_W_per_chip"], (idle_w, s)
        c = s["carbon"]
        kg = s["energy_J"] / 3.6e6 * c["PUE"] * c["carbon_intensity_kg_per_kWh"]
        assert close(c["operational_kg"], kg, 1e-9)
        emb = c["embodied_kg_per_chip"] * chips * s["duration_s"] / (c["lifetime_years"] * 365 * 24 * 3600)
        assert close(c["embodied_kg"], emb, 1e-9)
        assert close(s["carbon_per_request_g"], (kg + emb) * 1e3 / s["completed"], 1e-9)
        per_req.append(s["energy_per_request_J"])
    assert close(idle_w[0], idle_w[1], 1e-6), idle_w
    assert per_req[0] > 2 * per_req[1], per_req


def find_rate(jfile, d, tol, check_cmd):
    """The rate found meets the SLO (its run is the summary and DIR's files);
    the lowest rate found to miss it is within the tolerance above; every
    run stopped early does miss it when run to the end."""
    s = json.load(open(jfile))
    f = s["find_rate"]
    assert f["found"] and not f["unbounded"], f
    m, tol = f["max_rate_rps"], float(tol)
    assert close(f["max_rate_rps_per_chip"], m / s["setting"]["chips"], 1e-12)
    for k, lim in f["slo"].items():
        metric, stat = k.rsplit("_", 2)[0], k.rsplit("_", 2)[1]
        key = metric + ("_s" if metric in ("e2e", "queue") else "_ms")
        assert s[key][stat] <= lim, (k, s[key][stat], lim)
    miss = [t["rate_rps"] for t in f["trials"] if not t["meets"]]
    met = [t["rate_rps"] for t in f["trials"] if t["meets"]]
    assert max(met) == m and min(miss) > m and min(miss) - m <= tol * m * (1 + 1e-12), (m, miss)
    assert json.load(open(os.path.join(d, "summary.json")))["find_rate"]["max_rate_rps"] == m
    assert len(rows(d, "requests.csv")) == s["requests"]
    stopped = [t for t in f["trials"] if t["stopped_early"]]
    assert stopped, "no run was stopped early"
    for t in stopped[:2]:
        out = subprocess.run(check_cmd.split() + ["--rate", repr(t["rate_rps"]), "--json"], check=True,
                             capture_output=True, text=True).stdout
        full = json.loads(out)
        k = t["missed"]
        metric, stat = k.rsplit("_", 2)[0], k.rsplit("_", 2)[1]
        key = metric + ("_s" if metric in ("e2e", "queue") else "_ms")
        assert full[key][stat] > f["slo"][k], (t, full[key])


def pg(nopg, base, ideal):
    """NoPG reports nothing saved; Base gates idle time (a lower idle power,
    wake-ups, energy saved against its own NoPG run, which is the NoPG
    run's energy); Ideal wakes in no time, so pays no latency."""
    n, b, i = json.load(open(nopg)), json.load(open(base)), json.load(open(ideal))
    assert n["pg"]["strategy"] == "NoPG" and n["pg"]["energy_saved_pct"] == 0 and n["pg"]["wakeups"] == 0, n["pg"]
    g = b["pg"]
    assert g["strategy"] == "Base" and g["wakeups"] > 0 and g["wakeup_delay_ns"] > 0
    assert g["idle_power_W_per_chip"] < n["pg"]["idle_power_W_per_chip"]
    assert close(g["baseline_energy_J"], n["energy_J"], 1e-12), (g, n["energy_J"])
    assert close(g["energy_saved_pct"], 100 * (1 - b["energy_J"] / n["energy_J"]), 1e-9)
    assert g["energy_saved_pct"] > 5, g
    assert i["pg"]["wakeup_delay_ns"] == 0
    assert all(v == 0 for v in i["pg"]["latency_paid_ms"].values()), i["pg"]
    assert i["energy_J"] < b["energy_J"] < n["energy_J"]


def timeline(tfile, d, microbatches="1"):
    """One slice per pass on its replica's track (its microbatch's when a
    pipelined replica keeps several passes in flight), as iterations.csv,
    and the slices of a track never overlap; per request its queued,
    prefill and decode slices end to end from arrival to finish, as
    requests.csv."""
    t = json.load(open(tfile))
    ev = t["traceEvents"]
    m = int(microbatches)
    assert t["metadata"]["events_left_out"] == 0 and t["metadata"]["events"] == len(ev)
    passes = [e for e in ev if e["pid"] == 1 and e["ph"] == "X"]
    it = rows(d, "iterations.csv")
    assert len(passes) == len(it)
    ends = {}
    for e, r in zip(passes, it):
        tid = int(r["replica"]) * m + int(r["microbatch"])
        assert e["tid"] == tid and abs(e["ts"] - float(r["start_s"]) * 1e6) < 1e-2, (e, r)
        assert abs(e["dur"] - float(r["duration_ms"]) * 1e3) < 1e-2
        assert e["ts"] >= ends.get(tid, 0) - 1e-2, (e, ends.get(tid))
        ends[tid] = e["ts"] + e["dur"]
    names = {e["tid"]: e["args"]["name"] for e in ev if e["pid"] == 1 and e["ph"] == "M" and "tid" in e}
    assert names == {k: (f"replica {k // m} microbatch {k % m}" if m > 1 else f"replica {k}") for k in ends}, names
    by = {}
    for e in ev:
        if e["pid"] == 2 and e["ph"] == "X":
            by.setdefault(e["tid"], []).append(e)
    for r in rows(d, "requests.csv"):
        s = sorted(by[int(r["id"])], key=lambda e: e["ts"])
        assert [e["name"] for e in s][-1] == "decode" or int(r["output_tokens"]) == 1
        assert abs(s[0]["ts"] - float(r["arrival_s"]) * 1e6) < 1e-2 or s[0]["name"] != "queued"
        end = s[-1]["ts"] + s[-1]["dur"]
        assert abs(end - float(r["finish_s"]) * 1e6) < 2e-2, (end, r)
        for a, b in zip(s, s[1:]):
            assert abs(a["ts"] + a["dur"] - b["ts"]) < 2e-2


def sweep(csvfile, out, points, select):
    """Every point a row; refused points say why; the selection is the row
    meeting the SLO with the least of its criterion."""
    rows = list(csv.DictReader(open(csvfile)))
    assert len(rows) == int(points), len(rows)
    ok = [r for r in rows if r["status"] == "ok"]
    assert ok and all(r["message"] for r in rows if r["status"] == "refused")
    key = {"fewest_chips": "chips", "energy": "energy_per_request_J", "carbon": "carbon_per_request_g"}[select]
    meet = [r for r in ok if r["meets_slo"] == "True" and r["above_capacity"] == "False"]
    best = min(meet, key=lambda r: (float(r[key]), float(r["energy_per_request_J"])))
    text = open(out).read()
    sel = text.split("selected (")[1].splitlines()[1]
    assert best["model"] in sel and best["chip"] in sel and ("rate=%s " % best["rate"]) in sel, (sel, best)
    assert ("replicas=%s " % best["replicas"]) in sel, (sel, best)


def fleet(fleet_json, serving_json):
    """A fleet deployment driven by a rate through serving is the serving
    run: its average power x a year x PUE is the annual energy; a single
    replica at the same rate is overloaded and says how many it needs."""
    f = json.load(open(fleet_json))["deployments"]
    s = json.load(open(serving_json))
    d = f[0]
    pue = d["pue"]
    want = s["avg_power_W_per_chip"] * s["setting"]["chips"] * 365 * 24 * pue / 1e6
    assert close(d["annual_energy_MWh"], want, 1e-9), (d["annual_energy_MWh"], want)
    assert close(d["serving"]["energy_per_request_J"], s["energy_per_request_J"], 1e-12)
    assert not d["overloaded"] and d["serving"]["served_rps"] == 12
    assert close(d["units_per_year"], 12 * 365 * 24 * 3600, 1e-12)
    o = f[1]
    assert o["overloaded"] and o["replicas_needed"] >= 2 and o["serving"]["served_rps"] < 12, o


def window_holds(win_dir, full_dir):
    """Local attention: a sequence's local layers keep only the window's
    blocks, so the same KV cache runs more sequences at once than with
    every layer global; the caches have the same blocks."""
    def peak(d):
        rows = list(csv.DictReader(open(os.path.join(d, "iterations.csv"))))
        return max(int(r["requests"]) for r in rows), rows[0]["kv_blocks_total"]
    (w, wt), (f, ft) = peak(win_dir), peak(full_dir)
    assert wt == ft and w > f, (w, f, wt, ft)


def ns(x, scale):
    return round(float(x) * scale)


def pipelined(one, two):
    """Two stages, no host time, static batches of 4 equal prompts, one
    decode step each. One pass in flight: batch A's prefill (P = 2 stage
    times p) and decode (D = 2 d), then batch B's: 2P + 2D. Two in flight
    (by hand): A's prefill ends at 2p, B's follows it one stage behind and
    ends at 3p; A's decode waits for the second stage until 3p and ends at
    3p + d; B's ends at 3p + 2d = 1.5 P + D. The passes' own work is the
    same, so the energy saved is the idle power of the time saved (the
    first run's pipeline bubbles). No gap between passes in either: the one
    idle time is the first stage's after its last pass, d on half the chips."""
    it1, it2 = rows(one, "iterations.csv"), rows(two, "iterations.csv")
    P, D = ns(it1[0]["duration_ms"], 1e6), ns(it1[1]["duration_ms"], 1e6)
    assert len(it1) == 4 and {r["microbatch"] for r in it1} == {"0"} and P % 2 == 0 and D < P, it1
    s1, s2 = summary(one), summary(two)
    assert ns(s1["duration_s"], 1e9) == 2 * P + 2 * D, (s1["duration_s"], P, D)
    assert ns(s2["duration_s"], 1e9) == 3 * P // 2 + D, (s2["duration_s"], P, D)
    ttft = sorted({ns(r["ttft_ms"], 1e6) for r in rows(two, "requests.csv")})
    assert ttft == [P, 3 * P // 2], (ttft, P)
    assert sorted((r["microbatch"], r["prefill_tokens"]) for r in it2) == [("0", "0"), ("0", "2048"), ("1", "0"),
                                                                          ("1", "2048")], it2
    assert s2["setting"]["pools"][0]["pp_microbatches"] == 2 and s1["setting"]["pools"][0]["pp_microbatches"] == 1
    idle_W, chips = s1["pg"]["idle_power_W_per_chip"], s1["setting"]["chips"]
    saved = s1["energy_J"] - s2["energy_J"]
    assert close(saved, idle_W * chips * (s1["duration_s"] - s2["duration_s"]), 1e-9), saved
    assert s1["carbon"]["idle_energy_J"] == 0, s1["carbon"]
    assert close(s2["carbon"]["idle_energy_J"], idle_W * chips / 2 * D / 2e9, 1e-9), (s2["carbon"], D)


def accounting_pp(d, n):
    """A pipelined run at a rate: every request served and every token in
    a pass; a microbatch's passes one at a time, and never more passes in
    flight on a replica than its microbatches; each request's energy adds
    up to the run's."""
    s, req, it = summary(d), rows(d, "requests.csv"), rows(d, "iterations.csv")
    m = s["setting"]["pools"][0]["pp_microbatches"]
    assert len(req) == s["completed"] == int(n) and all(r["status"] == "ok" for r in req)
    assert sum(int(r["prefill_tokens"]) for r in it) == sum(int(r["input_tokens"]) for r in req)
    assert sum(int(r["decode_tokens"]) for r in it) == sum(int(r["output_tokens"]) - 1 for r in req)
    ev, last = [], {}
    for r in it:
        a = ns(r["start_s"], 1e9)
        b = a + ns(r["duration_ms"], 1e6)
        k = (r["replica"], r["microbatch"])
        assert a >= last.get(k, 0) and int(r["microbatch"]) < m, (r, last.get(k))
        last[k] = b
        ev += [(a, 1, r["replica"]), (b, -1, r["replica"])]
    live = {}
    for t, x, rep in sorted(ev, key=lambda e: (e[0], e[1])):
        live[rep] = live.get(rep, 0) + x
        assert live[rep] <= m, (t, rep)
    assert max(int(r["microbatch"]) for r in it) == m - 1
    assert close(sum(float(r["energy_J"]) for r in req), s["energy_J"], 1e-6)


def pp_equal(run_dir, d):
    """npusim run's pipeline (batch 8 as 2 microbatches of 4) against two
    static batches of 4 in flight on the same two stages: the first
    microbatch's TTFT is run's (one prefill through both stages, nothing
    ahead of it), and the second's TPOT is run's (its decode steps each
    follow the first's one stage behind, every stage busy: a step per two
    stage times, as run's steady state)."""
    p = json.load(open(glob.glob(run_dir + "/*_prefill.json")[0]))
    q = json.load(open(glob.glob(run_dir + "/*_decode.json")[0]))
    by = {}
    for r in rows(d, "requests.csv"):
        by.setdefault(int(r["id"]) % 2, set()).add((float(r["ttft_ms"]), float(r["tpot_ms"])))
    assert len(by[0]) == len(by[1]) == 1, by
    (ttft0, _), (ttft1, tpot1) = next(iter(by[0])), next(iter(by[1]))
    assert close(ttft0, p["TTFT_sec"] * 1e3, 1e-9), (ttft0, p["TTFT_sec"])
    assert ttft0 < ttft1 < 1.6 * ttft0, (ttft0, ttft1)   # one stage behind, not a whole pass
    assert close(tpot1, q["TPOT_ms_request"], 1e-6), (tpot1, q["TPOT_ms_request"])


def pipelined_rate(one, two):
    """Saturated, two stages with two passes in flight serve nearly twice
    the tokens a second of one pass at a time holding as many requests."""
    a, b = json.load(open(one)), json.load(open(two))
    assert b["output_tokens_per_s"] > 1.7 * a["output_tokens_per_s"], (a["output_tokens_per_s"], b["output_tokens_per_s"])
    assert b["output_tokens_per_s"] < 2 * a["output_tokens_per_s"]


def padded(run_dir, *bucket_dirs):
    """The padded scheduler's static shapes: a prefill pass holds one prompt;
    every decode-only pass computes all slots over the whole cache, so all
    take the same time; prompts of 100 and 128 tokens pad to one bucket
    (the same pass time), 129 to the next (longer)."""
    rows = list(csv.DictReader(open(os.path.join(run_dir, "iterations.csv"))))
    pre = [r for r in rows if int(r["prefill_tokens"]) > 0]
    dec = {r["duration_ms"] for r in rows if int(r["prefill_tokens"]) == 0}
    assert pre and all(r["requests"] == "1" for r in pre), pre[:3]
    assert len(dec) == 1, sorted(dec)[:5]
    first = [next(csv.DictReader(open(os.path.join(d, "iterations.csv"))))["duration_ms"] for d in bucket_dirs]
    assert first[0] == first[1] and float(first[2]) > float(first[1]), first


if __name__ == "__main__":
    globals()[sys.argv[1]](*sys.argv[2:])
