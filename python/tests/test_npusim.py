"""pytest for the npusim package (python/npusim): each function against the
command line it wraps (the same bytes), hand-derived figures, physical
invariants, and bad input raised with the command line's messages. Run by
`make test` (tests/cli/t_python.sh) with NPUSIM_LIB and NPUSIM pointing at
the build."""
import os
import subprocess

import pytest

import npusim

NPUSIM = os.environ.get("NPUSIM", os.path.join(os.path.dirname(__file__), "..", "..", "build", "npusim"))
CONFIGS = os.path.join(os.path.dirname(__file__), "..", "..", "configs")


def cli(*args):
    return subprocess.run([NPUSIM, *args], check=True, capture_output=True, text=True).stdout


def test_version_is_the_binary_s():
    assert cli("-V").strip() == "npusim " + npusim.version()


def test_run_summary_is_npusim_run_s(tmp_path):
    r = npusim.run(model="llama3-8b", chip="tpuv5p")
    text = cli("run", "--configs", CONFIGS, "-m", "llama3-8b", "-c", "tpuv5p", "-o", str(tmp_path))
    assert r["summary"] == text.split("  outputs")[0]
    assert [p["name"] for p in r["phases"]] == ["prefill", "decode"]


def test_run_statistics_are_npusim_run_s_files(tmp_path):
    import json
    r = npusim.run(model="llama3-8b", chip="h100", batch=8, num_chips=2, tensor_parallelism_degree=2)
    cli("run", "--configs", CONFIGS, "-m", "llama3-8b", "-c", "h100", "-b", "8", "--set", "num_chips=2",
        "--set", "tensor_parallelism_degree=2", "-o", str(tmp_path))
    assert sorted(r["statistics"]) == ["decode", "prefill"]
    for phase in ("prefill", "decode"):
        assert r["statistics"][phase] == json.load(open(tmp_path / ("llama3-8b_h100_%s.json" % phase)))
    d = npusim.run(model="dlrm-s", chip="tpuv5e", batch=64, num_chips=4)["statistics"]
    assert sorted(d) == ["chip0", "chip1", "chip2", "chip3", "config_stats", "run"]
    assert d["run"]["sim_config"]["provenance"]["model"] == "dlrm-s"


def test_overrides_and_batch_reach_the_configuration():
    r = npusim.run(model="llama3-70b", chip="tpuv5p", batch=8, num_chips=8, tensor_parallelism_degree=8)
    assert r["summary"].startswith("llama3-70b on tpuv5p (8 chips: dp 1, tp 8, pp 1; microbatch 8;")


def test_ops_add_up_to_the_phases():
    r = npusim.run(chip="h100", batch=4)
    for phase in r["phases"]:
        t = sum(o["exe_ns"] * o["count"] for o in r["ops"] if o["phase"] == phase["name"]) / 1e9
        assert t == pytest.approx(phase["time_s"], rel=1e-12)


def test_power_gating_saves_energy():
    r = npusim.run(chip="tpuv5p", pg=["NoPG", "Base", "Ideal"])
    e = {p["strategy"]: sum(p["energy_J"]) for p in r["power_gating"]}
    assert set(e) == {"NoPG", "Base", "Ideal"}
    assert e["Ideal"] <= e["Base"] <= e["NoPG"] and e["Ideal"] < e["NoPG"]
    assert npusim.run(chip="tpuv5p", pg=[])["power_gating"] == []


def test_energy_is_run_s_power_gating():
    rows = npusim.power_gating(chip="tpuv5p", pg=["Base", "Ideal"])
    assert [x["strategy"] for x in rows] == ["NoPG", "Base", "Ideal"]   # NoPG added first: the baseline
    r = npusim.run(chip="tpuv5p", pg=["NoPG", "Base", "Ideal"])
    for x, p in zip(rows, r["power_gating"]):
        assert (x["prefill_J"], x["decode_J"]) == tuple(p["energy_J"])
        assert x["total_J"] == pytest.approx(sum(p["energy_J"]), rel=1e-15)
    nopg = rows[0]["total_J"]
    assert rows[0]["saving"] == 0.0
    assert rows[2]["saving"] == pytest.approx(1 - rows[2]["total_J"] / nopg, rel=1e-15)
    assert 0 < rows[1]["saving"] <= rows[2]["saving"] < 1


def test_carbon_is_the_sweep_s_carbon_per_unit():
    # Both take their defaults from the system config (duty cycle 0.6, four
    # years, its intensity and PUE): one replica's carbon per unit is the
    # sweep summary's carbon_per_unit_kgCO2e.
    c = npusim.deployment("llama3-8b", "tpuv5p", parallelism={"tp": 1}, batch=8)
    row = npusim.sweep(["llama3-8b"], ["tpuv5p"], [1], [8])["rows"][0]
    assert (c["carbon_intensity_kgCO2_per_kWh"], c["pue"], c["lifetime_years"], c["utilisation"]) == (0.5, 1.1, 4, 0.6)
    assert c["capacity_per_s"] == pytest.approx(row["throughput"], rel=1e-12)
    assert c["kgCO2e_per_unit"] == pytest.approx(row["carbon_per_unit_kgCO2e"], rel=1e-12)
    # The year's figures from the deployment's own numbers (docs/fleet.md).
    year_s = 365 * 24 * 3600
    assert c["avg_power_W"] == pytest.approx(0.6 * c["active_power_W"] + 0.4 * c["idle_power_W"], rel=1e-12)
    assert c["units_per_year"] == pytest.approx(0.6 * c["capacity_per_s"] * year_s, rel=1e-12)
    assert c["embodied_tCO2e"] == pytest.approx(0.585 / 4)   # tpuv5p's 585 kg over four years
    assert c["facility_energy_per_unit_J"] == pytest.approx(c["avg_power_W"] * 1.1 / (0.6 * c["capacity_per_s"]))
    # A load instead of a duty cycle; a cleaner grid emits less.
    half = npusim.deployment("llama3-8b", "tpuv5p", parallelism={"tp": 1}, batch=8,
                         load={"tokens_per_sec": c["capacity_per_s"] / 2}, carbon_intensity=0.05)
    assert half["utilisation"] == pytest.approx(0.5) and half["operational_tCO2e"] < c["operational_tCO2e"]
    with pytest.raises(npusim.Error, match="not both"):
        npusim.deployment(load={"tokens_per_sec": 1}, duty_cycle=0.5)
    with pytest.raises(npusim.Error, match=r'unknown chip "nochip"'):
        npusim.deployment(chip="nochip")


def test_ops_frame_is_a_dataframe():
    pandas = pytest.importorskip("pandas")
    df = npusim.ops_frame(npusim.run())
    assert isinstance(df, pandas.DataFrame)
    assert {"Name", "Phase", "OpType", "Count", "Execution time", "Bounded-by", "FLOP Count"} <= set(df.columns)
    assert (df.groupby("Phase")["Execution time"].count() > 10).all()


def test_op_gemm_on_h100_is_the_documented_time():
    # docs/api.md: 4096^3 bf16 on an H100 at its 989.4 TFLOP/s dense peak (138.913 us), in waves of its
    # 132 SMs (x 1056 / 1024) at the shipped h100's fitted bf16 GEMM efficiency 0.7749 (docs/validation.md)
    p = npusim.op("gemm", m=4096, n=4096, k=4096, dtype="bf16", chip="h100")
    assert p["time_us"] == pytest.approx(184.868) and p["efficiency"] == 0.7749
    assert p["bound"] == "compute" and p["flops"] == 2 * 4096 ** 3


def test_set_dict_is_taken_by_run_and_op_as_by_serving():
    """set={...} gives config fields to run() and op() as it does to
    serving(), names no keyword can spell among them; a field given both
    ways is an Error, not a silent choice."""
    p = npusim.op("gemm", m=4096, n=4096, k=4096, dtype="bf16", chip="h100",
                  set={"kernel_efficiency.gemm.bf16": 0.5})
    assert p["efficiency"] == 0.5 and p["time_us"] > 184.868
    one = npusim.run(model="llama3-8b", chip="h100", batch=8, pg=[])["statistics"]["decode"]
    two = npusim.run(model="llama3-8b", chip="h100", batch=8, set={"num_chips": 2, "tensor_parallelism_degree": 2},
                     pg=[])["statistics"]["decode"]
    assert two["mem_footprint_GB"] == pytest.approx(one["mem_footprint_GB"] / 2, rel=1e-3)   # a chip's half
    with pytest.raises(npusim.Error, match="num_chips: given both"):
        npusim.run(model="llama3-8b", chip="h100", num_chips=2, set={"num_chips": 2})


def test_sweep_rows_are_the_summary_s(tmp_path):
    s = npusim.sweep(["llama3-8b"], ["tpuv5p", "h100"], [1, 2], [1, 8], slo_tpot_ms=7)
    spec = tmp_path / "spec.json"
    spec.write_text('{"models": ["llama3-8b"], "chips": ["tpuv5p", "h100"], "num_chips": [1, 2], '
                    '"batch_sizes": [1, 8]}')
    subprocess.run([NPUSIM, "sweep", "--configs", CONFIGS, "--spec", str(spec), "--summary",
                    str(tmp_path / "s.csv")], check=True, capture_output=True)
    assert s["summary_csv"] == (tmp_path / "s.csv").read_text()
    assert s["points"] == len(s["rows"]) == s["simulated"] + s["invalid"] + s["errors"]
    pandas = pytest.importorskip("pandas")
    df = npusim.rows_frame(s)
    assert df["TPOT_ms"].dtype.kind == "f" and df[df.status == "ok"]["TPOT_ms"].notna().all()


def test_validate_a_dataframe_at_a_known_error():
    pandas = pytest.importorskip("pandas")
    t = npusim.op("gemm", m=2048, n=2048, k=2048, dtype="bf16", chip="a100")["time_us"]
    # measured 1.25x the prediction: |pred - meas| / meas = 0.25 / 1.25 = 20%
    df = pandas.DataFrame([{"op": "gemm", "dtype": "bf16", "m": 2048, "n": 2048, "k": 2048, "time_us": 1.25 * t}])
    v = npusim.validate("a100", df)
    assert v["overall"]["count"] == 1
    assert v["overall"]["mape_pct"] == pytest.approx(20.0, rel=1e-3)


def test_configs_as_dicts():
    import json
    chip = json.load(open(os.path.join(CONFIGS, "chips", "h100.json")))
    base = npusim.run(chip=chip)
    chip["hbm_bw_GBps"] *= 2
    fast = npusim.run(chip=chip)
    tpot = lambda r: r["statistics"]["decode"]["TPOT_ms_request"]
    assert tpot(fast) < tpot(base)


def test_neusim_profile_is_the_binary_s(tmp_path):
    r = npusim.run(profile="neusim")
    text = cli("run", "--profile", "neusim", "--configs", CONFIGS, "-o", str(tmp_path))
    assert r["summary"] == text.split("  outputs")[0]


def test_fleet_is_npusim_fleet_s(tmp_path):
    import json
    example = os.path.join(os.path.dirname(__file__), "..", "..", "examples", "fleet.json")
    f = npusim.fleet(example)
    subprocess.run([NPUSIM, "fleet", "--configs", CONFIGS, example, "-o", str(tmp_path)], check=True,
                   capture_output=True)
    want = json.load(open(tmp_path / "fleet.json"))
    assert [d["name"] for d in f["deployments"]] == [d["name"] for d in want["deployments"]]
    for key, v in want["total"].items():
        if isinstance(v, float):
            assert f["total"][key] == pytest.approx(v, rel=1e-12), key
    with pytest.raises(npusim.Error, match=r"deployments\[0\]"):
        npusim.fleet({"deployments": [{"model": "llama3-8b", "chip": "nochip"}]})


def test_calibrate_is_npusim_calibrate_s(tmp_path):
    import json
    data = os.path.join(os.path.dirname(__file__), "..", "..", "bench", "public", "ops_a100_llmcompass.csv")
    # from the a100's roofline: the preset without the efficiencies and host times fitted end to end
    roof = json.load(open(os.path.join(CONFIGS, "chips", "a100.json")))
    for k in ("kernel_efficiency", "step_overhead_ns", "layer_overhead_ns", "kernel_launch_ns"):
        roof.pop(k, None)
    (tmp_path / "a100-roofline.json").write_text(json.dumps(roof))
    c = npusim.calibrate(roof, data)
    text = cli("calibrate", "--configs", CONFIGS, "-c", str(tmp_path / "a100-roofline.json"), data,
               "-o", str(tmp_path / "cal.json"))
    overall = [l for l in text.splitlines() if l.strip().startswith("overall")][-1].split()
    cv = c["cross_validation"]
    assert "%.2f%%" % cv["mape_roofline_pct"] == overall[3] and "%.2f%%" % cv["mape_calibrated_pct"] == overall[5]
    want = json.load(open(tmp_path / "cal.json"))
    got = {k: v for k, v in c["chip"].items() if k != "calibration_source"}
    assert got == {k: v for k, v in want.items() if k != "calibration_source"}
    # the calibrated chip, as a dict, is a chip config: validated against the rows it was fitted to,
    # it is far closer than the roofline
    before = npusim.validate(roof, data)["overall"]["mape_pct"]
    after = npusim.validate(c["chip"], data)["overall"]["mape_pct"]
    assert after < before / 3, (before, after)


def test_lists():
    assert "h100" in npusim.list_configs("chips") and "llama3-8b" in npusim.list_configs("models")
    assert npusim.list_configs("strategies")[0] == "NoPG"
    assert "system_config" in npusim.list_configs("systems")


def test_fields_are_npusim_list_fields():
    rows = npusim.fields(as_frame=False)
    lines = cli("list", "fields").splitlines()
    assert len(rows) == len(lines) > 300
    for row, line in zip(rows, lines):
        assert line.split()[:2] == [row["key"], row["table"]] and line.endswith(row["meaning"])
    hbm = next(r for r in rows if r["key"] == "hbm_bw_GBps")
    assert (hbm["unit"], hbm["default"], hbm["range"]) == ("GB/s", "required", "0.001 to 1000000000")
    remat = next(r for r in rows if r["key"] == "remat")
    assert remat["range"] == "none, full" and remat["default"] == "none"
    pandas = pytest.importorskip("pandas")
    df = npusim.fields()
    assert isinstance(df, pandas.DataFrame) and set(df.table) == {"model", "chip", "system", "strategy"}


@pytest.mark.parametrize("call, message", [
    (lambda: npusim.run(chip="nochip"), 'unknown chip "nochip"'),
    (lambda: npusim.run(num_chip=4), '"num_chip": unknown field (did you mean "num_chips"?)'),
    (lambda: npusim.run(batch=0), '"batch": expected a whole number'),
    (lambda: npusim.run(batch=2 ** 30), '"batch": expected a whole number from 1 to 16777216'),
    (lambda: npusim.op("matmul", m=1, n=1, k=1), '"op": expected one of'),
    (lambda: npusim.validate("a100", "op,dtype,m\ngemm,bf17,1\n"), 'measurements: line 2: column'),
    (lambda: npusim.sweep(["llama3-8b"], ["tpuv5p"], [], [1]), "spec"),
    (lambda: npusim.run(profile="nope"), "profile"),
])
def test_bad_input_raises_the_cli_s_message(call, message):
    with pytest.raises(npusim.Error) as e:
        call()
    assert message in str(e.value)


def test_unset_arguments_are_the_command_line_s_defaults():
    """Python leaves what it is not given to the library (the API applies the
    command line's defaults), never a copy of them that could drift."""
    import inspect
    for f, names in ((npusim.run, ("model", "chip", "system", "batch", "pg", "workload")),
                     (npusim.power_gating, ("model", "chip", "system", "batch")), (npusim.op, ("dtype", "chip")),
                     (npusim.deployment, ("num_chips", "parallelism", "replicas", "pg", "dvfs", "carbon_intensity",
                                      "pue", "lifetime_years", "duty_cycle"))):
        params = inspect.signature(f).parameters
        assert [n for n in names if params[n].default is not None] == [], f.__name__
    assert npusim.run()["summary"] == npusim.run(model="llama3-8b", chip="tpuv5p")["summary"]
    assert npusim.op("gemm", m=64, n=64, k=64) == npusim.op("gemm", m=64, n=64, k=64, dtype="bf16", chip="tpuv5p")
    assert npusim.deployment("llama3-8b", "tpuv5p") == npusim.deployment("llama3-8b", "tpuv5p", num_chips=1, replicas=1,
                                                                 parallelism="best", pg="NoPG", dvfs="None")


def test_profile_left_unset_is_the_command_line_s_default():
    """No profile: the library's default (physical today), and an unknown one
    lists the profiles there are, as npusim run --profile does."""
    assert npusim.run()["summary"] == npusim.run(profile="physical")["summary"]
    with pytest.raises(npusim.Error, match="profile: expected one of physical, neusim"):
        npusim.run(profile="nope")


# ---- the stages over results trees: the same word, the same computation ----

SWEEP = {"models": ["llama3-8b"], "chips": ["5p"], "num_chips": [4], "batch_sizes": [8]}


def _tree(tmp_path):
    raw = tmp_path / "raw"
    cli("sweep", "--configs", CONFIGS, "-m", "llama3-8b", "-c", "5p", "--num-chips", "4", "-b", "8", "-o", str(raw),
        "-q")
    return raw


def _files(root):
    """Every JSON file under root, by its path there, parsed."""
    import json
    out = {}
    for d, _, names in os.walk(root):
        for n in names:
            if n.endswith(".json"):
                p = os.path.join(d, n)
                with open(p) as f:
                    out[os.path.relpath(p, root)] = json.load(f)
    return out


def test_energy_is_npusim_energy(tmp_path):
    raw = _tree(tmp_path)
    cli("energy", "--configs", CONFIGS, "--results", str(raw), "-m", "llama3-8b", "-c", "5p", "--pg", "NoPG,Full", "-q")
    by_cli = _files(str(raw) + "_None")
    # over a sweep: the server's temporary tree, the same statistics
    e = npusim.energy(sweep=SWEEP, pg=["NoPG", "Full"])
    assert e["count"] == len(by_cli) == 2 * e["points"]["simulated"] >= 2   # prefill and decode per layout
    assert e["files"] == by_cli
    decode = [f for k, f in e["files"].items() if k.endswith("inference-v5p_decode.json")]
    assert decode and all(set(f["energy_stats"]) == {"NoPG", "Full"} for f in decode)
    # over the tree itself: written beside it as the command writes
    r = npusim.energy(results=str(raw), models=["llama3-8b"], versions=["5p"], pg=["NoPG", "Full"], dvfs="Ideal")
    assert r["out"] == str(raw) + "_Ideal" and os.path.isdir(r["out"]) and r["count"] == len(by_cli)


def test_carbon_is_npusim_carbon(tmp_path):
    raw = _tree(tmp_path)
    cli("energy", "--configs", CONFIGS, "--results", str(raw), "-m", "llama3-8b", "-c", "5p", "--pg", "NoPG,Full", "-q")
    cli("carbon", "--configs", CONFIGS, "--results", str(raw) + "_None", "-m", "llama3-8b", "-c", "5p", "--pg", "Full",
        "--ci", "0.1,0.4", "-q")
    by_cli = _files(tmp_path / "carbon_Full" / "dvfs_None")
    c = npusim.carbon(sweep=SWEEP, pg="Full", ci=[0.1, 0.4])
    assert c["files"] == by_cli and c["count"] == len(by_cli) >= 4
    assert "carbon defaults" in c["carbon_defaults"] or "--ci" in c["carbon_defaults"]
    with pytest.raises(npusim.Error, match="pg"):
        npusim.carbon(sweep=SWEEP)


def test_slo_over_a_sweep_and_bad_requests():
    s = npusim.slo(sweep={"models": ["llama3-8b"], "chips": ["5p"], "num_chips": [1, 4], "batch_sizes": [1, 8]},
                   pg="NoPG")
    assert s["count"] >= 1 and all(k.startswith("llama3-8b/") for k in s["files"])
    with pytest.raises(npusim.Error, match='"sweep" .* or "results"'):
        npusim.energy()
    with pytest.raises(npusim.Error, match="first strategy must be NoPG"):
        npusim.energy(sweep=SWEEP, pg=["Full"])
    with pytest.raises(npusim.Error, match="unknown member"):
        npusim._call("/api/energy", {"sweep": SWEEP, "pgs": ["NoPG"]})


def test_serving_is_npusim_serving_s(tmp_path):
    """npusim.serving gives the command's summary, and its requests and
    iterations as DataFrames (or columns with frames=False)."""
    import csv
    import json
    pytest.importorskip("pandas")
    s = npusim.serving(model="llama3-8b", chip="h100", rate=2, requests=80, lengths="chat", seed=3,
                       scheduler="chunked", max_num_batched_tokens=512)
    cli("serving", "--configs", CONFIGS, "-m", "llama3-8b", "-c", "h100", "--rate", "2", "--requests", "80",
        "--lengths", "chat", "--seed", "3", "--scheduler", "chunked", "--max-num-batched-tokens", "512",
        "-o", str(tmp_path))
    want = json.load(open(tmp_path / "summary.json"))
    for k in ("duration_s", "ttft_ms", "tpot_ms", "energy_J", "requests"):
        assert s["summary"][k] == want[k], k
    rows = list(csv.DictReader(open(tmp_path / "requests.csv")))
    assert list(s["requests"]["id"]) == [int(r["id"]) for r in rows]
    assert len(s["iterations"]) == len(list(csv.DictReader(open(tmp_path / "iterations.csv"))))
    cols = npusim.serving(model="llama3-8b", chip="h100", rate=2, requests=10, frames=False)
    assert sorted(cols) == ["iterations", "requests", "summary"] and len(cols["requests"]["id"]) == 10


def test_serving_batcher_as_the_command():
    """batcher_wait_s and batcher_size reach the engine as --batcher-wait and
    --batcher-size: arrivals every 100 ms, sent at 0.1, 0.3 (pairs) and 0.65."""
    s = npusim.serving(model="llama3-8b", chip="h100", rate=10, requests=5, lengths="fixed:16:2",
                       arrival="constant", batcher_wait_s=0.25, batcher_size=2, frames=False)
    assert s["summary"]["setting"]["batcher"] == {"size": 2, "wait_s": 0.25}
    q = s["requests"]
    sent = [round(a + w, 9) for a, w in zip(q["arrival_s"], q["queue_s"])]
    assert sent == [0.1, 0.1, 0.3, 0.3, 0.65], sent


def test_serving_async_scheduling_as_the_command():
    """async_scheduling reaches the engine as --async-scheduling: the second of
    two requests, arriving 1 ms into the first one's prefill, runs its prompt a
    pass later (its TTFT longer by one pass of the first one's lone decode); a
    non-boolean is an npusim.Error naming it."""
    common = dict(model="llama3-8b", chip="h100", rate=1000, arrival="constant", requests=2,
                  lengths="fixed:100:3", scheduler="chunked", frames=False)
    sync, asyn = npusim.serving(**common), npusim.serving(async_scheduling=True, **common)
    assert asyn["summary"]["setting"]["async_scheduling"] is True
    assert sync["summary"]["setting"]["async_scheduling"] is False
    ts, ta = sync["requests"]["ttft_ms"], asyn["requests"]["ttft_ms"]
    lone = min(sync["iterations"]["duration_ms"])   # a pass of one decode
    assert ta[0] == ts[0] and abs(ta[1] - ts[1] - lone) < 1e-5, (ts, ta, lone)
    with pytest.raises(npusim.Error, match="async_scheduling"):
        npusim.serving(async_scheduling="yes", **common)


def test_serving_admission_gate_as_the_command():
    """admit_kv_free reaches the engine as --admit-kv-free: on a short cache
    (kv_reserve 0.7, 200 prompts of 1000 tokens all at once) the ungated run
    preempts and the gated one does not; out of range is an npusim.Error."""
    common = dict(model="llama3-8b", chip="h100", scheduler="continuous", kv_reserve=0.7, offline=True,
                  requests=200, lengths="fixed:1000:200", frames=False)
    free, gated = npusim.serving(**common), npusim.serving(admit_kv_free=0.5, **common)
    assert free["summary"]["preemptions"] > 0 and gated["summary"]["preemptions"] == 0
    assert gated["summary"]["setting"]["admit_kv_free"] == 0.5 and "admit_kv_free" not in free["summary"]["setting"]
    with pytest.raises(npusim.Error, match="admit_kv_free"):
        npusim.serving(admit_kv_free=1.5, **common)


def test_serving_pipeline_microbatches_as_the_command():
    """pp_microbatches reaches the engine as --pp-microbatches: with pp=2
    the default keeps two passes in flight (the iterations name both
    microbatches and the run ends sooner than with one); above the stages
    is an npusim.Error naming the key."""
    common = dict(model="llama3-8b", chip="h100", pp=2, offline=True, requests=64, lengths="fixed:256:16", frames=False)
    two, one = npusim.serving(**common), npusim.serving(pp_microbatches=1, **common)
    assert two["summary"]["setting"]["pools"][0]["pp_microbatches"] == 2
    assert one["summary"]["setting"]["pools"][0]["pp_microbatches"] == 1
    assert sorted(set(two["iterations"]["microbatch"])) == [0, 1] and set(one["iterations"]["microbatch"]) == {0}
    assert two["summary"]["duration_s"] < 0.8 * one["summary"]["duration_s"]
    with pytest.raises(npusim.Error, match="pp_microbatches"):
        npusim.serving(pp_microbatches=3, **common)


def test_serving_capacity_policy_as_the_command():
    """capacity_policy reaches the engine as --capacity-policy: on the short
    cache above, guaranteed-no-evict preempts nothing and serves every
    request; a name it does not know is an npusim.Error naming the key."""
    common = dict(model="llama3-8b", chip="h100", scheduler="continuous", kv_reserve=0.7, offline=True,
                  requests=200, lengths="fixed:1000:200", frames=False)
    held = npusim.serving(capacity_policy="guaranteed-no-evict", **common)["summary"]
    assert held["preemptions"] == 0 and held["completed"] == 200
    assert held["setting"]["capacity_policy"] == "guaranteed-no-evict"
    with pytest.raises(npusim.Error, match='"capacity_policy" "none": expected max-utilization or guaranteed-no-evict'):
        npusim.serving(capacity_policy="none", **common)


def test_serving_max_new_tokens_as_the_command():
    """max_new_tokens reaches the engine as --max-new-tokens: answers stop at
    it, guaranteed-no-evict promises the prompt's and its blocks (so fewer
    requests run at once than with each answer's own length), and the
    summary gives it; 0 is an npusim.Error naming the key."""
    common = dict(model="llama3-8b", chip="h100", kv_reserve=0.7, offline=True, requests=200,
                  lengths="fixed:1000:200", capacity_policy="guaranteed-no-evict", frames=True)
    own = npusim.serving(**common)
    capped = npusim.serving(max_new_tokens=150, **common)
    promised = npusim.serving(max_new_tokens=1000, **common)
    assert set(capped["requests"]["output_tokens"]) == {150}
    assert capped["summary"]["setting"]["max_new_tokens"] == 150 and "max_new_tokens" not in own["summary"]["setting"]
    # 1000 + 1000 tokens promised (125 blocks) against 1000 + 200 (75): fewer at once, all served
    assert promised["summary"]["completed"] == 200 and promised["summary"]["preemptions"] == 0
    assert promised["iterations"]["kv_blocks_used"].max() % 125 == 0
    assert promised["iterations"]["decode_tokens"].max() < own["iterations"]["decode_tokens"].max()
    with pytest.raises(npusim.Error, match='"max_new_tokens" "0": expected a whole number from 1'):
        npusim.serving(max_new_tokens=0, **common)


def test_serving_find_rate_and_slo_dict():
    s = npusim.serving(model="llama3-8b", chip="h100", requests=200, find_rate=True,
                       slo={"ttft_p99_ms": 2000, "tpot_p99_ms": 30}, frames=False)
    f = s["summary"]["find_rate"]
    assert f["found"] and f["slo"] == {"ttft_p99_ms": 2000, "tpot_p99_ms": 30}


def test_serving_warmup_is_the_commands():
    """warmup=N as --warmup N: the same summary, the first N requests run but
    counted in no latency or throughput figure; N must leave some requests."""
    import json
    import subprocess
    s = npusim.serving(model="llama3-8b", chip="h100", concurrency=8, requests=64, lengths="fixed:3000:40",
                       warmup=16, frames=False)["summary"]
    out = subprocess.run([NPUSIM, "serving", "--configs", CONFIGS, "-m", "llama3-8b", "-c", "h100",
                          "--concurrency", "8", "--requests", "64", "--lengths", "fixed:3000:40",
                          "--warmup", "16", "--json"], check=True, capture_output=True, text=True).stdout
    want = json.loads(out)
    assert s["warmup_requests"] == 16 and s["completed"] == 64
    for k in ("measured_s", "ttft_ms", "itl_ms", "output_tokens_per_s"):
        assert s[k] == want[k], k
    with pytest.raises(npusim.Error, match='"warmup" 64: expected fewer warm-up requests than the 64 requests'):
        npusim.serving(model="llama3-8b", chip="h100", requests=64, warmup=64)


def test_serving_bad_input_names_the_key():
    with pytest.raises(npusim.Error, match='"max_num_seqs" "0": expected a whole number'):
        npusim.serving(model="llama3-8b", chip="h100", max_num_seqs=0)
    with pytest.raises(npusim.Error, match='unknown member "rates"'):
        npusim.serving(model="llama3-8b", chip="h100", rates=2)


def test_a_nan_or_infinity_is_named_by_its_key():
    # JSON holds neither; the call says which value, as the server names a bad one
    with pytest.raises(npusim.Error, match=r'^"rate": expected a finite number, got nan$'):
        npusim.serving(model="llama3-8b", chip="h100", rate=float("nan"), frames=False)
    with pytest.raises(npusim.Error, match=r'^"set.hbm_bw_GBps": expected a finite number, got inf$'):
        npusim.run(chip="h100", hbm_bw_GBps=float("inf"))


def test_serving_refuses_a_tp_that_does_not_divide_the_heads():
    with pytest.raises(npusim.Error, match="does not divide num_heads 32"):
        npusim.serving(model="llama3-8b", chip="h100", tp=3, rate=1, requests=5, frames=False)
    # a disaggregated pool's message names its key as the call spells it (the command: --prefill-tp 3)
    with pytest.raises(npusim.Error, match=r'^the prefill pool \("prefill_tp": 3\): model field'):
        npusim.serving(model="llama3-8b", chip="h100", scheduler="disaggregated", prefill_tp=3, requests=5,
                       frames=False)
