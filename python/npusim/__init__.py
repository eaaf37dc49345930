"""npusim from Python: the simulator's C library (libnpusim.so) through ctypes.

Every function is a call into the same C code the command line runs (the
endpoints of the HTTP API, docs/api.md, in this process): nothing is
reimplemented here. Results are dicts and lists of dicts; the *_frame
functions make pandas DataFrames (they need pandas and raise npusim.Error
saying so without it). Bad input raises npusim.Error with the message the
command line prints.

    import npusim
    r = npusim.run(model="llama3-8b", chip="tpuv5p", batch=8)
    r["summary"]            # the text `npusim run` prints
    npusim.ops_frame(r)     # one row per operator (pandas)

The library is found in this package's folder (pip install), else at
$NPUSIM_LIB, else in the source tree's build/ folder.
"""

import ctypes
import io
import json
import math
import os
import tempfile

__all__ = ["Error", "version", "list_configs", "fields", "run", "power_gating", "deployment", "energy", "carbon", "slo",
           "op", "sweep", "validate", "calibrate", "fleet", "serving", "ops_frame", "rows_frame"]


class Error(Exception):
    """Bad input: the message names the file or field, as the command line's does."""

    def __init__(self, message, status=400):
        super().__init__(message)
        self.status = status


def _find_library():
    here = os.path.dirname(os.path.abspath(__file__))
    for path in (os.path.join(here, "libnpusim.so"), os.environ.get("NPUSIM_LIB", ""),
                 os.path.join(here, "..", "..", "build", "libnpusim.so")):
        if path and os.path.isfile(path):
            return path
    raise ImportError("libnpusim.so not found: pip install the package, set NPUSIM_LIB, "
                      "or build it with `make build/libnpusim.so`")


_lib = ctypes.CDLL(_find_library())
_lib.npusim_call.restype = ctypes.c_void_p
_lib.npusim_call.argtypes = [ctypes.c_char_p, ctypes.c_char_p, ctypes.c_char_p, ctypes.c_char_p,
                             ctypes.POINTER(ctypes.c_int)]
_lib.npusim_free.argtypes = [ctypes.c_void_p]
_lib.npusim_version.restype = ctypes.c_char_p


def _default_configs():
    """The configs shipped with the package (pip install), else the source tree's."""
    here = os.path.dirname(os.path.abspath(__file__))
    for d in (os.path.join(here, "configs"), os.path.join(here, "..", "..", "configs")):
        if os.path.isdir(os.path.join(d, "chips")):
            return os.path.normpath(d)
    return None


_CONFIGS = _default_configs()


def _nonfinite(value, where=""):
    """The key path and value of the first NaN or infinity in value, else None."""
    if isinstance(value, float) and not math.isfinite(value):
        return where, value
    items = value.items() if isinstance(value, dict) else enumerate(value) if isinstance(value, (list, tuple)) else ()
    for k, v in items:
        hit = _nonfinite(v, "%s.%s" % (where, k) if where else str(k))
        if hit:
            return hit
    return None


def _dumps(request):
    """The request as JSON; a NaN or infinity (which JSON cannot hold) is
    bad input named by its key, as the server names a bad value."""
    hit = _nonfinite(request)
    if hit:
        raise Error('"%s": expected a finite number, got %r' % hit)
    return json.dumps(request)


def _call(path, request=None, configs=None, profile=None):
    status = ctypes.c_int(0)
    configs = os.fspath(configs) if configs is not None else _CONFIGS
    enc = lambda s: None if s is None else s.encode()
    body = None if request is None else _dumps(request)
    ptr = _lib.npusim_call(enc(path), enc(body), enc(configs), enc(profile), ctypes.byref(status))
    if not ptr:
        raise MemoryError("npusim: out of memory")
    try:
        answer = json.loads(ctypes.string_at(ptr).decode())
    finally:
        _lib.npusim_free(ptr)
    if status.value != 200:
        raise Error(answer.get("error", "status %d" % status.value), status.value)
    return answer


class _Configs:
    """Configs given as dicts are written to temporary JSON files for the
    call (the C library reads files); names and paths pass as they are."""

    def __init__(self):
        self.files = []

    def __call__(self, value):
        if isinstance(value, dict):
            f = tempfile.NamedTemporaryFile("w", suffix=".json", delete=False)
            json.dump(value, f)
            f.close()
            self.files.append(f.name)
            return f.name
        return None if value is None else os.fspath(value)

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        for f in self.files:
            os.unlink(f)


def version():
    """The version of the C library: "0.2.0"."""
    return _lib.npusim_version().decode()


def list_configs(kind, configs=None):
    """The names of "models", "chips", "systems" or "strategies" (npusim list)."""
    if kind not in ("models", "chips", "systems", "strategies"):
        raise Error('kind "%s": expected models, chips, systems or strategies' % kind)
    return _call("/api/" + kind, configs=configs)[kind]


def fields(as_frame=True):
    """The configuration reference (npusim fields, docs/configs.md): one row
    per model, chip, system and strategy field with its table, section,
    type, unit, default, checked range and meaning. A DataFrame (as_frame:
    needs pandas), else a list of dicts."""
    rows = _call("/api/fields")["fields"]
    return _frame(rows, "fields") if as_frame else rows


# The short names of the parallelism degrees (run --tp/--dp/--pp/--ep, fleet's "tp").
_DEGREES = {"tp": "tensor_parallelism_degree", "dp": "data_parallelism_degree",
            "pp": "pipeline_parallelism_degree", "ep": "expert_parallelism_degree"}


def _with_set(overrides, fields):
    """overrides (keyword arguments) and fields (a set= dict, as serving()
    takes it) as one dict of config fields; a field given both ways is an
    error."""
    out = dict(overrides)
    for key, value in dict(fields or {}).items():
        if key in out:
            raise Error("%s: given both as a keyword and in set; give it once" % key)
        out[key] = value
    return out


def _with_degrees(overrides, degrees):
    """overrides with tp/dp/pp/ep given as their fields; both spellings of one is an error."""
    out = dict(overrides)
    for short, value in degrees.items():
        if value is None:
            continue
        if _DEGREES[short] in out:
            raise Error("%s and %s: give one of them" % (short, _DEGREES[short]))
        out[_DEGREES[short]] = value
    return out


def run(model=None, chip=None, batch=None, system=None, pg=None, workload=None, tp=None, dp=None,
        pp=None, ep=None, set=None, configs=None, profile=None, **overrides):
    """One configuration end to end (npusim run). model, chip and system are
    names, paths or dicts (default: npusim run's, llama3-8b on tpuv5p with
    system_config; every argument left None is the command line's default,
    as the API applies it); workload is "inference" (default) or "training"
    (run --workload); tp, dp, pp and ep set the parallelism degrees (run
    --tp ...; num_chips follows from them unless given); overrides set
    config fields (num_chips=4, tensor_parallelism_degree=4), as does a
    dict set={"num_chips": 4} (serving()'s spelling; for names that are not
    Python identifiers, such as "kernel_efficiency.gemm.bf16"); pg lists
    power-gating strategies to compare (default the five named ones; []
    for none). Returns the summary text, "statistics" (the JSON files
    `npusim run` writes, as dicts: "prefill" and "decode" for an LLM, "run"
    for the other families), the phases (time and energy), the per-op rows
    ("ops", a few columns; "ops_csv", the CSV `npusim run` writes with every
    column and Phase: ops_frame), each strategy's energy and the report's
    figures (SVG)."""
    overrides = _with_degrees(_with_set(overrides, set), {"tp": tp, "dp": dp, "pp": pp, "ep": ep})
    with _Configs() as cfg:
        req = {key: cfg(v) for key, v in (("model", model), ("chip", chip), ("system", system)) if v is not None}
        if batch is not None:
            req["batch"] = batch
        if pg is not None:
            req["pg"] = list(pg)
        if workload is not None:
            req["workload"] = workload
        if overrides:
            req["set"] = overrides
        return _call("/api/simulate", req, configs, profile)


_STRATEGIES = ("NoPG", "Base", "HW", "Full", "Ideal")


def power_gating(model=None, chip=None, batch=None, pg=_STRATEGIES, system=None, tp=None, dp=None, pp=None,
                 ep=None, set=None, configs=None, profile=None, **overrides):
    """Power gating: one configuration's energy under each strategy (npusim
    run --pg, the energy pass on copies of the timed trace). Returns one row
    per strategy: prefill_J, decode_J, total_J, saving (the fraction of
    NoPG's total saved; NoPG is added first when pg leaves it out) and
    chips, the chips those energies count: 1 for an LLM, whose trace is one
    chip's share (the run summary's energy per token counts all of them),
    every chip for DLRM (run()'s phases say the same: energy_chips). tp,
    dp, pp, ep, set and overrides as for run()."""
    names = [s for s in pg]
    if "NoPG" not in names:
        names.insert(0, "NoPG")
    r = run(model, chip, batch=batch, system=system, pg=names, tp=tp, dp=dp, pp=pp, ep=ep, set=set,
            configs=configs, profile=profile, **overrides)
    chips = r["phases"][0]["energy_chips"] if r["phases"] else 1
    rows = [{"strategy": s["strategy"], "prefill_J": s["energy_J"][0], "decode_J": s["energy_J"][1],
             "total_J": s["energy_J"][0] + s["energy_J"][1], "chips": chips} for s in r["power_gating"]]
    base = next(x["total_J"] for x in rows if x["strategy"] == "NoPG")
    for x in rows:
        x["saving"] = 1 - x["total_J"] / base if base > 0 else 0.0
    return rows


def deployment(model="llama3-8b", chip="tpuv5p", num_chips=None, batch=None, parallelism=None, replicas=None,
               pg=None, dvfs=None, carbon_intensity=None, pue=None, lifetime_years=None, duty_cycle=None, load=None,
               workload=None, configs=None, profile=None):
    """One deployment's energy and carbon a year (a fleet of one, npusim
    fleet, docs/fleet.md): capacity, active, idle and average power, annual
    energy, operational and embodied carbon, and energy and carbon per unit
    of work served (a fleet deployment needs its model and chip named).
    num_chips, parallelism, replicas, pg and dvfs left None are a fleet
    deployment's defaults (1, "best", 1, NoPG, None; docs/fleet.md).
    parallelism: "best" or a dict of degrees ({"tp": 4});
    load: {"tokens_per_sec": N} (or requests_per_sec, iterations_per_sec),
    else duty_cycle. carbon_intensity, pue, lifetime_years and duty_cycle
    default to the system config's (configs/systems/system_config.json), as
    for npusim carbon, a sweep's summary and npusim fleet. model and chip
    are names, paths or dicts; workload "training" deploys training (its
    unit is iterations), as run(workload=...)."""
    with _Configs() as cfg:
        d = {"model": cfg(model), "chip": cfg(chip)}
        for key, v in (("num_chips", num_chips), ("parallelism", parallelism), ("replicas", replicas), ("pg", pg),
                       ("dvfs", dvfs), ("carbon_intensity_kgCO2_per_kWh", carbon_intensity), ("pue", pue),
                       ("lifetime_years", lifetime_years), ("batch_size", batch), ("workload", workload)):
            if v is not None:
                d[key] = v
        if load is not None and duty_cycle is not None:
            raise Error("deployment: give load or duty_cycle, not both")
        if load is not None or duty_cycle is not None:
            d["load"] = dict(load) if load is not None else {"duty_cycle": duty_cycle}
        return _call("/api/fleet", {"deployments": [d]}, configs, profile)["deployments"][0]


def op(kind, m=None, n=None, k=None, batch=None, heads=None, dtype=None, chip=None, set=None, configs=None,
       profile=None, **overrides):
    """One operator predicted on a chip (npusim op): time, TFLOP/s, bound.
    Arguments left None are npusim op's defaults (bf16 on tpuv5p); set and
    overrides give config fields as for run()."""
    overrides = _with_set(overrides, set)
    with _Configs() as cfg:
        req = {"op": kind}
        if chip is not None:
            req["chip"] = cfg(chip)
        for key, v in (("dtype", dtype), ("m", m), ("n", n), ("k", k), ("batch", batch), ("heads", heads)):
            if v is not None:
                req[key] = v
        if overrides:
            req["set"] = overrides
        return _call("/api/op", req, configs, profile)



def _stage(path, results, sweep, members, configs, profile):
    """A stage over a results tree (results: its path, written as the
    command writes) or over configurations swept first (sweep: a dict of
    models, chips, num_chips, batch_sizes and optionally workload and
    seqlen "IN_OUT", swept into a temporary folder that is removed after)."""
    req = {key: v for key, v in members.items() if v is not None}
    if results is not None:
        req["results"] = os.fspath(results)
    if sweep is not None:
        req["sweep"] = dict(sweep)
    for key in ("models", "versions", "pg", "ci", "lifetime", "slo_scales"):
        if isinstance(req.get(key), tuple):
            req[key] = list(req[key])
    return _call(path, req, configs, profile)


def energy(results=None, sweep=None, models=None, versions=None, workload=None, pg=None, dvfs=None, configs=None,
           profile=None):
    """The energy stage (npusim energy, /api/energy): per-operator energy of
    every configuration of a sweep's results tree under each power-gating
    strategy (pg: a list, NoPG first; default NoPG, Base, HW, Full, Ideal)
    and DVFS policy (dvfs: "None" or "Ideal"). results: the tree npusim
    sweep wrote (models and versions required), whose outputs go beside it
    as RESULTS_<dvfs>, as the command writes them; or sweep: the
    configurations to sweep first (models and versions default to the
    sweep's). Returns "files" (each statistics JSON with its
    energy_stats, by its path under the output folder), "count", "out"
    (with results) and "points" (with sweep). For one configuration's
    strategies side by side, power_gating()."""
    return _stage("/api/energy", results, sweep, {"models": models, "versions": versions, "workload": workload,
                                                  "pg": pg, "dvfs": dvfs}, configs, profile)


def carbon(results=None, sweep=None, pg=None, models=None, versions=None, workload=None, dvfs=None, ci=None,
           util=None, lifetime=None, configs=None, profile=None):
    """The carbon stage (npusim carbon, /api/carbon): power, energy and
    carbon figures of every energy statistics file under strategy pg, per
    carbon intensity (ci, kgCO2e/kWh; a number or a list), duty cycle (util)
    and lifetime (years; a number or a list); those not given are the system
    config's ("carbon_defaults" says which were used). results: the
    RESULTS_<dvfs> tree npusim energy wrote; or sweep: configurations swept
    and run through the energy stage first. Returns "files" (by their path
    under carbon_<pg>/dvfs_<dvfs>/), "count", "carbon_defaults". For one
    deployment's annual energy and carbon, deployment()."""
    return _stage("/api/carbon", results, sweep, {"models": models, "versions": versions, "workload": workload,
                                                  "pg": pg, "dvfs": dvfs, "ci": ci, "util": util,
                                                  "lifetime": lifetime}, configs, profile)


def slo(results=None, sweep=None, out=None, pg=None, models=None, versions=None, workload=None, dvfs=None, ci=None,
        util=None, lifetime=None, slo_scales=None, max_num_chips=None, slo_multiple=None, configs=None, profile=None):
    """The SLO stage (npusim slo, /api/slo): per model and phase, the
    latency SLO from the reference configuration and, per SLO scale and
    chip version, the minimum-chip, throughput-, energy- and cost-optimal
    configurations. results: a carbon folder (.../CI<ci>/UTIL<u>) with out,
    the folder the analyses go to, as the command; or sweep: configurations
    swept and run through the energy and carbon stages first (pg required;
    one ci, util and lifetime, default the system config's). Returns
    "files" (one analysis per model and phase) and "count"."""
    return _stage("/api/slo", results, sweep, {"out": None if out is None else os.fspath(out), "models": models,
                                               "versions": versions, "workload": workload, "pg": pg, "dvfs": dvfs,
                                               "ci": ci, "util": util, "lifetime": lifetime,
                                               "slo_scales": slo_scales, "max_num_chips": max_num_chips,
                                               "slo_multiple": slo_multiple}, configs, profile)


def sweep(models, chips, num_chips, batch_sizes, fields=None, workload=None, slo_tpot_ms=None, configs=None,
          profile=None):
    """A sweep (npusim sweep --spec --summary): every parallel layout of each
    chip count, chip and batch. Returns the counts, one row per
    configuration and the summary CSV, and the figures (SVG)."""
    spec = {"models": list(models), "chips": list(chips), "num_chips": list(num_chips),
            "batch_sizes": list(batch_sizes)}
    if fields:
        spec["fields"] = fields
    if workload:
        spec["workload"] = workload
    req = {"spec": spec}
    if slo_tpot_ms is not None:
        req["slo_tpot_ms"] = slo_tpot_ms
    return _call("/api/sweep", req, configs, profile)


def validate(chip, measurements, configs=None, profile=None):
    """Measured operators against predictions (npusim validate): errors per
    operator type, format and bound. measurements: the CSV text, a path to it,
    or a DataFrame with its columns (op, dtype, m, n, k, batch, time_us)."""
    with _Configs() as cfg:
        return _call("/api/validate", {"chip": cfg(chip), "measurements": _measurement_text(measurements)},
                     configs, profile)


def _measurement_text(measurements):
    if hasattr(measurements, "to_csv"):
        return measurements.to_csv(index=False)
    if isinstance(measurements, os.PathLike) or (isinstance(measurements, str) and "\n" not in measurements
                                                  and os.path.isfile(measurements)):
        with open(measurements) as f:
            return f.read()
    return measurements


def calibrate(chip, measurements, configs=None, profile=None):
    """A chip's kernel efficiencies fitted to measured operators (npusim
    calibrate): the calibrated chip config (a dict run() and validate() take
    as chip=), the fit per kernel class and format, and the held-out errors
    of the seeded cross-validation. measurements as validate() takes them."""
    with _Configs() as cfg:
        return _call("/api/calibrate", {"chip": cfg(chip), "measurements": _measurement_text(measurements)},
                     configs, profile)


def fleet(spec, configs=None, profile=None):
    """Annual energy and carbon of a fleet (npusim fleet, docs/fleet.md): spec
    is the fleet file's tree (a dict) or a path to it. Returns the
    deployments with their results, the totals and the table npusim prints."""
    if not isinstance(spec, dict):
        with open(spec) as f:
            spec = json.load(f)
    return _call("/api/fleet", spec, configs, profile)


def serving(model=None, chip=None, rate=None, requests=None, lengths=None, seed=None, system=None, set=None,
            frames=True, configs=None, profile=None, **options):
    """Requests served over time (npusim serving, docs/serving.md): model,
    chip and system as in run(); rate (requests/s, Poisson), requests,
    lengths ("chat", "summarize", "fixed:IN:OUT", ... or a CSV path) and
    seed as the command's options, every other option by its name with
    underscores (tp=8, scheduler="chunked", max_num_batched_tokens=512,
    replicas=2, slo="ttft_p99_ms=500,tpot_p99_ms=50" or a dict of bounds,
    find_rate=True, pg="Full", offline=True, trace="trace.csv", ...; the API's
    keys, docs/api.md); set gives config fields. Every option left None is
    the command's default. Returns {"summary": summary.json's dict,
    "requests": requests.csv's rows, "iterations": iterations.csv's}, the
    rows as pandas DataFrames (frames=False: dicts of columns, no pandas
    needed)."""
    with _Configs() as cfg:
        req = {key: cfg(v) for key, v in (("model", model), ("chip", chip), ("system", system)) if v is not None}
        for key, v in (("rate", rate), ("requests", requests), ("lengths", lengths), ("seed", seed)):
            if v is not None:
                req[key] = v
        for key, v in options.items():
            if v is None:
                continue
            if key == "slo" and isinstance(v, dict):
                v = ",".join("%s=%s" % kv for kv in v.items())
            req[key] = v
        if set:
            req["set"] = dict(set)
        out = _call("/api/serving", req, configs, profile)
    if frames:
        pandas = _pandas("serving (frames=False needs nothing)")
        out["requests"] = pandas.DataFrame(out["requests"])
        out["iterations"] = pandas.DataFrame(out["iterations"])
    return out


def _pandas(what):
    """pandas, or npusim.Error naming the call and how to install it."""
    try:
        import pandas
    except ImportError:
        raise Error("%s needs pandas: apt-get install python3-pandas or pip install pandas "
                    "(the result's lists of dicts need nothing)" % what) from None
    return pandas


def _frame(rows, what):
    return _pandas(what).DataFrame(rows)


def ops_frame(result):
    """A run's operators as a pandas DataFrame: every column of the per-op
    CSVs `npusim run` writes, in their order and read as pandas reads those
    files, and Phase (prefill, decode; empty for a family without phases).
    Needs pandas (npusim.Error without it)."""
    pandas = _pandas("ops_frame")
    return pandas.read_csv(io.StringIO(result["ops_csv"]), keep_default_na=True)


def rows_frame(result):
    """A sweep's rows (or a validation's) as a pandas DataFrame. Needs pandas (npusim.Error without it)."""
    return _frame(result["rows"], "rows_frame")
