"""pytest for the npusim package's frames, workloads and parallelism names
(issue 38): ops_frame is the CSV `npusim run` writes, column for column;
frames without pandas raise npusim.Error saying how to install it;
run(workload="training") is `npusim run --workload training`; tp/dp/pp/ep
are the degrees' fields, num_chips following from them. Run by
tests/cli/t_python.sh with NPUSIM_LIB and NPUSIM pointing at the build."""
import json
import os
import subprocess
import sys

import pytest

import npusim

NPUSIM = os.environ.get("NPUSIM", os.path.join(os.path.dirname(__file__), "..", "..", "build", "npusim"))
CONFIGS = os.path.join(os.path.dirname(__file__), "..", "..", "configs")


def cli(*args):
    return subprocess.run([NPUSIM, *args], check=True, capture_output=True, text=True).stdout


def test_ops_frame_is_the_run_s_csvs_every_column(tmp_path):
    pandas = pytest.importorskip("pandas")
    r = npusim.run(model="llama3-8b", chip="h100", batch=4, pg=[])
    cli("run", "--configs", CONFIGS, "-m", "llama3-8b", "-c", "h100", "-b", "4", "-o", str(tmp_path))
    df = npusim.ops_frame(r)
    assert isinstance(df, pandas.DataFrame)
    for phase in ("prefill", "decode"):
        csv = pandas.read_csv(tmp_path / ("llama3-8b_h100_%s.csv" % phase))
        assert list(df.columns) == list(csv.columns) + ["Phase"]   # every column, in the CSV's order
        part = df[df.Phase == phase].drop(columns="Phase").reset_index(drop=True)
        pandas.testing.assert_frame_equal(part, csv)                # and the same cells
    # the few-column rows agree with it
    assert list(df["Execution time"]) == [o["exe_ns"] for o in r["ops"]]
    assert list(df["Count"]) == [o["count"] for o in r["ops"]]


def test_ops_frame_of_a_family_without_phases(tmp_path):
    pandas = pytest.importorskip("pandas")
    r = npusim.run(model="dlrm-s", chip="tpuv5p", pg=[])
    cli("run", "--configs", CONFIGS, "-m", "dlrm-s", "-c", "tpuv5p", "-o", str(tmp_path))
    csv = pandas.read_csv(tmp_path / "dlrm-s_tpuv5p.csv")
    df = npusim.ops_frame(r)
    assert list(df.columns) == list(csv.columns) + ["Phase"] and len(df) == len(csv)
    assert df.Phase.isna().all()


@pytest.mark.parametrize("call, what", [
    (lambda r: npusim.ops_frame(r), "ops_frame"),
    (lambda r: npusim.rows_frame({"rows": [{"a": 1}]}), "rows_frame"),
    (lambda r: npusim.fields(), "fields"),
])
def test_frames_need_pandas(monkeypatch, call, what):
    r = npusim.run(pg=[])
    monkeypatch.setitem(sys.modules, "pandas", None)   # import pandas raises ImportError
    with pytest.raises(npusim.Error, match="^%s needs pandas: apt-get install python3-pandas or pip install pandas"
                       % what):
        call(r)
    assert isinstance(npusim.fields(as_frame=False), list)   # the lists need nothing


def test_run_training_is_npusim_run_workload_training(tmp_path):
    r = npusim.run(model="llama3-8b", chip="tpuv5p", workload="training", pg=[])
    text = cli("run", "--configs", CONFIGS, "-m", "llama3-8b", "-c", "tpuv5p", "--workload", "training",
               "-o", str(tmp_path))
    assert r["summary"] == text.split("  outputs")[0]
    assert r["summary"].startswith("llama3-8b training on tpuv5p")
    assert r["statistics"]["run"] == json.load(open(tmp_path / "llama3-8b_tpuv5p.json"))
    assert [p["name"] for p in r["phases"]] == ["ops"]
    inference = npusim.run(model="llama3-8b", chip="tpuv5p", workload="inference", pg=[])
    assert inference["summary"] == npusim.run(model="llama3-8b", chip="tpuv5p", pg=[])["summary"]


@pytest.mark.parametrize("workload", ["train", "", 3])
def test_run_bad_workload(workload):
    with pytest.raises(npusim.Error, match='"workload": expected "inference" or "training"'):
        npusim.run(workload=workload, pg=[])


def test_run_training_of_a_model_without_training():
    with pytest.raises(npusim.Error, match="no model family simulates its training"):
        npusim.run(model="dlrm-s", workload="training", pg=[])


def test_parallelism_short_names_are_the_fields(tmp_path):
    first = "llama3-8b on h100 (2 chips"
    by_field = npusim.run(chip="h100", num_chips=2, tensor_parallelism_degree=2, pg=[])["summary"]
    short = npusim.run(chip="h100", num_chips=2, tp=2, pg=[])["summary"]
    assert short == by_field and short.startswith(first)
    # without num_chips it follows from dp x tp x pp (the library's rule, as --set does)
    derived = npusim.run(chip="h100", tp=2, pg=[])["summary"]
    text = cli("run", "--configs", CONFIGS, "-c", "h100", "--set", "tensor_parallelism_degree=2", "-o", str(tmp_path))
    assert derived == text.split("  outputs")[0] and derived.startswith(first)
    pp = npusim.run(chip="h100", dp=1, pp=2, pg=[])["summary"]
    assert "pp 2" in pp.splitlines()[0] and pp.startswith(first)
    rows = npusim.power_gating(chip="h100", tp=2, pg=["Base"])
    assert rows == npusim.power_gating(chip="h100", num_chips=2, tensor_parallelism_degree=2, pg=["Base"])


def test_parallelism_named_twice_is_an_error():
    with pytest.raises(npusim.Error, match="tp and tensor_parallelism_degree: give one of them"):
        npusim.run(chip="h100", tp=2, tensor_parallelism_degree=2)
