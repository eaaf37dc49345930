/* fam_dlrm.c — the DLRM inference entry of the family table (opsgen.md §9,
 * §12.4, §13): one trace holding every chip's ops (op->group = chip), the
 * reference's per-chip CSVs and statistics, the straggler chip's CSV and
 * statistics (with the memory/OOM flag), and the table-placement JSON.
 *
 * Main data structure: one trace view per chip (a pointer into the timed
 * trace's contiguous run of that chip's ops), which the CSV writer and the
 * statistics take like any trace. */
#include <stdlib.h>
#include <string.h>

#include "study/run/outputs.h"
#include "study/run/pyjson.h"
#include "study/run/pipeline.h"
#include "study/run/family.h"
#include "opsgen/dlrm.h"
#include "study/run/stats.h"
#include "base/atomic.h"

static bool dlrm_matches(const struct model_config *m, const char *workload)
{
    return !strcmp(m->model_type, "dlrm") && !strcmp(workload, "inference");
}

/* DLRMConfig turns the chip's small-matmul VPU path off (the chip JSONs do
 * not set the key, so the ChipConfig default True would win otherwise); an
 * explicit key in the merged config still decides. Axis counts (reported
 * only) follow the sweep's rule when the config leaves them all at 0. */
static void dlrm_adjust(struct loaded_config *c)
{
    if (!cJSON_GetObjectItemCaseSensitive(c->merged, "use_vu_for_small_matmul"))
        c->chip.use_vu_for_small_matmul = false;
    struct model_config *m = &c->model;
    if (m->num_data_parallel_axes == 0 && m->num_tensor_parallel_axes == 0 &&
        m->num_pipeline_parallel_axes == 0)
        sweep_map_axes_dlrm(c->chip.name, m);
}

/* Checked before generating so that messages name the file each field came from. */
static int dlrm_check_config(const struct loaded_config *c, struct npu_err *e)
{
    return dlrm_check(&c->model, c->sources, e);
}

/* ---- statistics ---- */

struct chip_view {
    struct trace t;              /* borrowed ops: never trace_free'd */
    struct trace_stats s;
};

/* Views and statistics of every chip; *straggler = the slowest. Caller frees. */
static struct chip_view *chip_views(const struct loaded_config *c, const struct trace *t,
                                    int32_t *straggler, struct npu_err *e)
{
    int64_t nc = c->model.num_chips;
    for (size_t i = 0; i < t->n; i++)
        if (t->ops[i].group < 0 || t->ops[i].group >= nc) {
            npu_errf(e, "trace: an op of chip %d (column \"Group\") but model field \"num_chips\" "
                        "is %lld", (int)t->ops[i].group, (long long)nc);
            return NULL;
        }
    struct chip_view *v = calloc((size_t)nc, sizeof *v);
    if (!v) {
        npu_errf(e, "DLRM statistics: out of memory");
        return NULL;
    }
    for (int64_t i = 0; i < nc; i++) {
        size_t first = 0, n = 0;   /* set by dlrm_group_range (initialised for LTO's flow analysis) */
        if (dlrm_group_range(t, (int32_t)i, &first, &n, e)) {
            free(v);
            return NULL;
        }
        v[i].t = (struct trace){ .ops = t->ops + first, .n = n, .cap = n };
        if (trace_stats_compute(&v[i].t, PHASE_NONE, &v[i].s, e)) {
            free(v);
            return NULL;
        }
        if (v[i].s.total_execution_time_chip_ns <= 0) {
            npu_errf(e, "%s: chip %lld has no timed ops (total execution time 0)", c->model_name,
                     (long long)i);
            free(v);
            return NULL;
        }
    }
    *straggler = dlrm_straggler(t, nc);
    return v;
}

static bool energy_done(const struct trace *t)
{
    for (size_t i = 0; i < t->n; i++)
        if (t->ops[i].energy_done)
            return true;
    return false;
}

static double throughput(const struct loaded_config *c, const struct trace_stats *s)
{
    return (double)c->model.global_batch_size / (double)s->total_execution_time_chip_ns * 1e9;
}

static double mem_GiB(const struct loaded_config *c, const struct profile *prof)
{
    struct opsgen_links l;
    config_links(&c->chip, &l);
    return (double)dlrm_mem_bytes_of(&c->model, &l, prof) / 1024 / 1024 / 1024;
}

/* The chips whose HBM the per-chip footprint is compared with: the pod's
 * in the reference (quirk opsgen Q15b), else one. */
static int64_t oom_chips(const struct loaded_config *c, const struct profile *prof)
{
    return prof->oom_vs_pod_hbm ? c->model.num_chips : 1;
}

/* get_statistics_from_trace_file keys, then the DLRM ones (§12.4). */
static cJSON *stats_json(const struct loaded_config *c, const struct profile *prof, const struct chip_view *v,
                         bool overall, bool energy, const cJSON *sim)
{
    const struct trace_stats *s = &v->s;
    cJSON *o = cJSON_CreateObject();
    json_add_trace_stats(o, s);
    json_add_f64(o, "throughput_requests_per_sec", throughput(c, s));
    json_add_i64(o, "latency_ns", s->total_execution_time_chip_ns);
    if (overall) {
        /* The reference compares a per-chip constant with the pod's HBM (opsgen Q15b). */
        double gib = mem_GiB(c, prof);
        json_add_f64(o, "mem_footprint_GB", gib);
        cJSON_AddBoolToObject(o, "out_of_memory", (double)(oom_chips(c, prof) * c->chip.hbm_size_GB) < gib);
    }
    if (energy) {   /* not in the reference (its sweep runs no energy pass) */
        double J = s->static_energy_J + s->dynamic_energy_J;
        json_add_f64(o, "total_energy_J", J);
        json_add_f64(o, "energy_per_request_J", J / (double)c->model.global_batch_size);
    }
    cJSON_AddItemToObject(o, "sim_config", cJSON_Duplicate(sim, 1));
    return o;
}

static cJSON *config_stats_json(const struct loaded_config *c, const struct profile *prof)
{
    struct opsgen_links l;
    config_links(&c->chip, &l);
    struct dlrm_plan *p = malloc(sizeof *p);
    if (!p)
        return NULL;
    dlrm_plan(&c->model, &l, prof, p);
    cJSON *o = cJSON_CreateObject();
    json_add_f64(o, "ICI_bisection_BW_per_chip_GBps", p->bisection_bw_GBps);
    cJSON *topo = cJSON_AddArrayToObject(o, "topology");
    for (int i = 0; i < p->ntopo; i++)   /* integral numbers print as ints */
        cJSON_AddItemToArray(topo, cJSON_CreateNumber((double)p->topology[i]));
    cJSON *tabs = cJSON_AddArrayToObject(o, "table_sharding");
    for (int i = 0; i < p->ntables; i++) {
        const struct dlrm_table *t = &p->tables[i];
        cJSON *j = cJSON_CreateObject();
        json_add_i64(j, "embed_dim", t->embed_dim);
        json_add_i64(j, "num_entries", t->num_entries);
        json_add_i64(j, "num_indices_per_lookup", t->num_indices_per_lookup);
        json_add_i64(j, "row_sharding_degree", t->row_sharding_degree);
        json_add_i64(j, "column_sharding_degree", t->column_sharding_degree);
        json_add_i64(j, "data_parallel_degree", t->data_parallel_degree);
        cJSON *ca = cJSON_AddArrayToObject(j, "chip_assignment");
        int64_t lo = t->all_chips ? 0 : t->chip, hi = t->all_chips ? c->model.num_chips : t->chip + 1;
        for (int64_t k = lo; k < hi; k++)
            cJSON_AddItemToArray(ca, cJSON_CreateNumber((double)k));
        json_add_i64(j, "batch_size", t->batch_size);
        cJSON_AddItemToArray(tabs, j);
    }
    free(p);
    return o;
}

/* ---- output ---- */

static int dlrm_write(const struct loaded_config *c, const struct profile *prof, const struct trace *t,
                      const char *dir, const char *base, bool sweep, const struct output_sink *to,
                      struct npu_err *e)
{
    (void)sweep;   /* `run` writes the same files as the sweep, under its own base name */
    int32_t sg;
    struct chip_view *v = chip_views(c, t, &sg, e);
    if (!v)
        return -1;
    int64_t nc = c->model.num_chips;
    bool energy = energy_done(t);
    int n = 0, cap = (int)(2 * nc + 3);
    struct output *o = calloc((size_t)cap, sizeof *o);
    cJSON *sim = config_dump(c, prof);
    cJSON *cs = config_stats_json(c, prof);
    int rc = -1;
    if (!o || !cs) {
        npu_errf(e, "DLRM outputs: out of memory");
        goto out;
    }
    /* The reference dumps the merged config dict as loaded, so the MLP layers
     * keep every key of the JSON ("bias", "activation"), which the typed
     * fields do not carry. */
    static const char *const layers[] = { "bottom_mlp_config", "top_mlp_config" };
    for (int i = 0; i < 2; i++) {
        const cJSON *raw = cJSON_GetObjectItemCaseSensitive(c->merged, layers[i]);
        if (raw && cJSON_GetObjectItemCaseSensitive(sim, layers[i]))
            cJSON_ReplaceItemInObjectCaseSensitive(sim, layers[i], cJSON_Duplicate(raw, 1));
    }
    /* The reference's run_sim adds these to sim_config (one pod only). */
    json_add_i64(sim, "num_pods", 1);
    json_add_i64(sim, "batch_size_per_pod", c->model.global_batch_size);

    snprintf(o[n].path, sizeof o[n].path, "%s/%s.csv", dir, base);
    o[n].trace = &v[sg].t;
    o[n++].opts = (struct trace_csv_opts){ PHASE_NONE, false, false };
    cJSON *j = stats_json(c, prof, &v[sg], true, energy, sim);
    snprintf(o[n].path, sizeof o[n].path, "%s/%s.json", dir, base);
    o[n].text = pyjson_print(j);
    o[n++].tree = j;
    snprintf(o[n].path, sizeof o[n].path, "%s/%s_config_stats.json", dir, base);
    o[n++].text = pyjson_print(cs);
    for (int64_t i = 0; i < nc; i++) {
        snprintf(o[n].path, sizeof o[n].path, "%s/%s_chip%lld.csv", dir, base, (long long)i);
        o[n].trace = &v[i].t;
        o[n++].opts = (struct trace_csv_opts){ PHASE_NONE, false, false };
        j = stats_json(c, prof, &v[i], false, energy, sim);
        snprintf(o[n].path, sizeof o[n].path, "%s/%s_chip%lld.json", dir, base, (long long)i);
        o[n++].text = pyjson_print(j);
        cJSON_Delete(j);
    }
    rc = write_outputs_to(o, n, to, e);
out:
    cJSON_Delete(sim);
    cJSON_Delete(cs);
    free(o);
    free(v);
    return rc;
}

static void dlrm_summary(const struct loaded_config *c, const struct profile *prof,
                         const struct trace *t, FILE *out)
{
    summary_warnings(c, prof, t);
    const struct model_config *m = &c->model;
    fprintf(out, "%s on %s (%lld chip%s%s: dp %lld, tp %lld; batch %lld; %d embedding tables)\n",
            c->model_name, c->chip_name, (long long)m->num_chips, m->num_chips == 1 ? "" : "s", config_chips_note(c),
            (long long)m->data_parallelism_degree, (long long)m->tensor_parallelism_degree,
            (long long)m->global_batch_size, m->embedding_table_sizes.n);
    struct npu_err e;
    int32_t sg;
    struct chip_view *v = chip_views(c, t, &sg, &e);
    if (!v) {
        fprintf(out, "  (no statistics: %s)\n", e.msg);
        return;
    }
    for (int64_t i = 0; i < m->num_chips && i < 8; i++)
        fprintf(out, "  chip %-8lld latency %.3f us\n", (long long)i,
                (double)v[i].s.total_execution_time_chip_ns / 1e3);
    if (m->num_chips > 8)
        fprintf(out, "  ...           (%lld more chips)\n", (long long)(m->num_chips - 8));
    fprintf(out, "  straggler     chip %d: latency %.3f us, throughput %.1f requests/s\n", (int)sg,
            (double)v[sg].s.total_execution_time_chip_ns / 1e3, throughput(c, &v[sg].s));
    if (energy_done(t)) {
        double J = 0;
        for (int64_t i = 0; i < m->num_chips; i++)
            J += v[i].s.static_energy_J + v[i].s.dynamic_energy_J;
        fprintf(out, "  energy        %.6g J per batch over all chips (%.6g J/request)\n", J,
                J / (double)m->global_batch_size);
    }
    double gib = mem_GiB(c, prof);
    int64_t n = oom_chips(c, prof);
    fprintf(out, "  memory        %.2f GiB per chip%s of ", gib,
            prof->dlrm_gligen_placeholder_footprint ? " (reference constant)" : "");
    if (prof->oom_vs_pod_hbm)   /* the reference's verdict: against the pod's HBM */
        fprintf(out, "%lld x ", (long long)n);
    fprintf(out, "%lld GiB HBM%s\n", (long long)c->chip.hbm_size_GB,
            (double)(n * c->chip.hbm_size_GB) < gib ? " (out of memory)" : "");
    free(v);
}

static bool dlrm_prepare(struct loaded_config *c, const struct profile *prof, char *why, size_t whylen)
{
    (void)prof, (void)why, (void)whylen;   /* DLRM points are always valid (§13.3) */
    sweep_map_axes_dlrm(c->chip.name, &c->model);
    return true;
}

static int dlrm_capacity(const struct loaded_config *c, const struct profile *prof,
                         const struct trace *t, struct family_capacity *cap, struct npu_err *e)
{
    int32_t sg;
    struct chip_view *v = chip_views(c, t, &sg, e);
    if (!v)
        return -1;
    /* Every chip's energy per batch, spread over the straggler's latency. */
    double J = 0;
    for (int64_t i = 0; i < c->model.num_chips; i++)
        J += v[i].s.static_energy_J + v[i].s.dynamic_energy_J;
    cap->unit = "requests";
    cap->units_per_sec = throughput(c, &v[sg].s);
    cap->active_power_W = J / ((double)v[sg].s.total_execution_time_chip_ns / 1e9);
    cap->has_mem = true, cap->mem_GiB = mem_GiB(c, prof);   /* the statistics JSON's verdict */
    cap->oom = (double)(oom_chips(c, prof) * c->chip.hbm_size_GB) < cap->mem_GiB;
    free(v);
    return 0;
}

const struct family fam_dlrm = {
    .name = "dlrm inference",
    .example = "npusim run -m dlrm-s -c tpuv5p",
    .matches = dlrm_matches,
    .adjust = dlrm_adjust,
    .gen = opsgen_dlrm_inference,
    .check = dlrm_check_config,
    .write = dlrm_write,
    .summary = dlrm_summary,
    .enumerate = sweep_dlrm_configs,
    .pstr = sweep_pstr_llm,
    .prepare = dlrm_prepare,
    .capacity = dlrm_capacity,
};
