# %% [markdown]
# # npusim from Python: a five-minute tour
#
# Notebook-style (cells marked `# %%`: Jupyter, VS Code and Spyder run them one
# by one; `python3 examples/python_tour.py` runs them all). Install the package
# first: `pip install ./python` (or `make python` and `PYTHONPATH=python`);
# the frames need pandas. Every figure comes from the C library the `npusim`
# command runs.

# %%
import npusim

print("npusim", npusim.version())
print(npusim.list_configs("chips"))

# %% [markdown]
# ## One configuration: Llama 3 8B on a TPU v5p, batch 8

# %%
r = npusim.run(model="llama3-8b", chip="tpuv5p", batch=8)
print(r["summary"])
ops = npusim.ops_frame(r)          # one row per operator: the run's CSV columns and Phase (pandas)
ops["seconds"] = ops["Execution time"] * ops["Count"] / 1e9
print(ops.groupby(["Phase", "OpType"]).seconds.sum().sort_values(ascending=False).head(8))

# %% [markdown]
# ## Two chips compared, and what power gating saves

# %%
for chip in ("tpuv5p", "h100"):
    s = npusim.run(chip=chip, batch=8)
    saved = npusim.power_gating(chip=chip, batch=8, pg=["Full", "Ideal"])   # one row per strategy
    print(f"{chip:8s} {s['summary'].splitlines()[2].strip()}  " +
          ", ".join(f"{x['strategy']} {100 * x['saving']:.1f}% saved" for x in saved[1:]))

# %% [markdown]
# ## Carbon: a deployment's year, and its carbon per token

# %%
c = npusim.deployment("llama3-8b", "tpuv5p", num_chips=4, batch=16, load={"tokens_per_sec": 2000},
                  carbon_intensity=0.4, lifetime_years=4)
print(f"{c['configuration']}: {100 * c['utilisation']:.0f}% busy, {c['annual_energy_MWh']:.2f} MWh/year, "
      f"{c['operational_tCO2e']:.2f} + {c['embodied_tCO2e']:.2f} tCO2e/year, "
      f"{1e6 * c['kgCO2e_per_unit']:.1f} mgCO2e per output token")

# %% [markdown]
# ## A model that does not fit, and the options that make it fit

# %%
big = npusim.run(model="llama3-70b", chip="tpuv5p")
print("\n".join(line for line in big["summary"].splitlines() if "memory" in line or "to fit" in line))
fit = npusim.run(model="llama3-70b", chip="tpuv5p", num_chips=2, tensor_parallelism_degree=2)
print([line for line in fit["summary"].splitlines() if "memory" in line][0])

# %% [markdown]
# ## A sweep and its Pareto front (time per token against throughput per chip)

# %%
sw = npusim.sweep(["llama3-8b"], ["tpuv5p", "h100"], [1, 2, 4], [1, 8, 32], slo_tpot_ms=10)
rows = npusim.rows_frame(sw)
ok = rows.query("status == 'ok'").copy()
ok["per_chip"] = ok.throughput / ok.num_chips
ok = ok.sort_values("TPOT_ms")
front = ok[ok.per_chip > ok.per_chip.cummax().shift(fill_value=0)]
print(front[["chip", "num_chips", "dp", "tp", "pp", "batch", "TPOT_ms", "per_chip"]].to_string(index=False))
open("pareto.svg", "w").write(sw["figures"]["pareto"])   # the report's figure, as SVG

# %% [markdown]
# ## Serving traffic: requests over time, and the highest rate that meets an SLO

# %%
sv = npusim.serving(model="llama3-8b", chip="h100", rate=2, requests=200, lengths="chat", seed=1)
s = sv["summary"]
print(f"TTFT p99 {s['ttft_ms']['p99']:.0f} ms, TPOT p99 {s['tpot_ms']['p99']:.1f} ms, "
      f"{s['energy_per_request_J']:.0f} J per request")
print(sv["requests"][["ttft_ms", "tpot_ms", "energy_J"]].describe().loc[["mean", "50%", "max"]])
cap = npusim.serving(model="llama3-8b", chip="h100", requests=200, find_rate=True,
                     slo={"ttft_p99_ms": 2000, "tpot_p99_ms": 30}, frames=False)
print("highest rate meeting the SLO:", round(cap["summary"]["find_rate"]["max_rate_rps"], 2), "requests/s")

# %% [markdown]
# ## The validation loop: measured kernels against the model

# %%
measured = "op,dtype,m,n,k,time_us\ngemm,fp16,4096,4096,4096,540\ngemm,fp16,1024,1024,1024,12\n"
v = npusim.validate("a100", measured)
print(f"{v['overall']['count']} kernels, MAPE {v['overall']['mape_pct']:.1f}%")

# %%
try:
    npusim.run(chip="tpuv5q")
except npusim.Error as e:       # the command line's message
    print("npusim.Error:", e)
