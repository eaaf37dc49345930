/* simulate.c — one serving simulation end to end (see simulate.h). Main
 * data structure: struct sim, the run's pools, source, sink and files. */
#include "serving/simulate.h"

#include <math.h>
#include <stdio.h>
#include <string.h>
#include <time.h>

#include "base/atomic.h"
#include "base/version.h"
#include "opsgen/builders.h"
#include "serving/summary.h"
#include "serving/trace_in.h"

struct sim {
    const struct serving_spec *s;
    struct loaded_config cfg[2];
    struct serving_step step[2];
    bool step_ok[2];
    struct serving_pool pools[2];
    int npools;
    struct serving_gen gen;
    struct serving_trace trace;
    bool gen_ok, trace_ok;
    struct atomic_file files[2];       /* requests.csv, iterations.csv */
    bool files_open;
    struct serving_collect col;
};

/* ---- the replicas ---- */

/* One pool's configs: the model's own, with this TP (0: as it is), one
 * data-parallel replica. */
static void pool_config(const struct serving_spec *s, int64_t tp, struct loaded_config *c)
{
    *c = *s->c;
    struct model_config *m = &c->model;
    m->data_parallelism_degree = m->data_parallel_degree_dcn = 1;
    if (tp > 0 && tp != m->tensor_parallelism_degree) {
        /* the pool's own degrees on torus axes, as the loader maps the model's */
        m->tensor_parallelism_degree = tp;
        m->num_data_parallel_axes = m->num_tensor_parallel_axes = 0;
        m->num_pipeline_parallel_axes = m->num_expert_parallel_axes = 0;
        if (s->fam->adjust)
            s->fam->adjust(c);
    }
    m->num_chips = m->tensor_parallelism_degree * m->tensor_parallel_degree_dcn * m->pipeline_parallelism_degree *
                   m->pipeline_parallel_degree_dcn;
}

static int64_t chips_of(const struct loaded_config *c) { return c->model.num_chips; }

/* The KV blocks one replica's cache holds (see simulate.h). */
static int kv_blocks(const struct serving_spec *s, const struct loaded_config *c, int64_t *blocks,
                     double *block_bytes, struct npu_err *e)
{
    bool ovf = false;
    struct opsgen_llm_mem_parts p;
    s->fam->mem_parts(&ovf, &c->model, s->prof, &p);
    double hbm = (double)c->chip.hbm_size_GB * 1073741824.0 * (1 - s->kv_reserve);
    double live = (double)bld_tensor_bytes(&ovf, p.live_elems_per_token * s->o.max_num_batched_tokens, p.act_dtype);
    *block_bytes = (double)bld_tensor_bytes(&ovf, p.kv_elems_per_token * s->o.block_size, p.kv_dtype);
    double room = hbm - (double)p.weight_bytes - live;
    if (ovf || *block_bytes <= 0)
        return npu_errf(e, "%s: the model's sizes are out of scale for a KV cache", c->model_name);
    if (room < *block_bytes)
        return npu_errf(e, "%s on %s (tensor parallelism %lld, pipeline %lld): the weights (%.2f GiB per chip) and "
                           "the activations of a %lld-token pass leave no room for a KV cache in %lld GiB of HBM "
                           "with %.0f%% kept free: use more chips (--tp) or a smaller --max-num-batched-tokens",
                        c->model_name, c->chip_name, (long long)c->model.tensor_parallelism_degree,
                        (long long)c->model.pipeline_parallelism_degree, (double)p.weight_bytes / 1073741824.0,
                        (long long)s->o.max_num_batched_tokens, (long long)c->chip.hbm_size_GB, 100 * s->kv_reserve);
    *blocks = (int64_t)(room / *block_bytes);
    return 0;
}

/* Times a one-token decode pass, so that a layout the generator refuses
 * (e.g. a pool's TP below the model's expert parallelism) fails before the
 * first request, naming the pool. The memo keeps the pass: no time lost. */
static int probe(struct sim *x, int p, bool dis, struct npu_err *e)
{
    struct serving_batch one = { .decodes = 1, .decode_prompt_sum = 1, .decode_gen_sum = 1, .emits = 1 };
    int64_t ns;
    struct npu_err pe;
    if (!serving_step_time(&x->step[p], &one, &ns, &pe))
        return 0;
    if (!dis)
        return *e = pe, -1;
    const char *msg = strncmp(pe.msg, "--set: ", 7) ? pe.msg : pe.msg + 7;
    return npu_errf(e, "the %s pool (tensor parallelism %lld): %s", p ? "decode" : "prefill",
                    (long long)x->cfg[p].model.tensor_parallelism_degree, msg);
}

static int pools_init(struct sim *x, struct serving_options *o, struct npu_err *e)
{
    const struct serving_spec *s = x->s;
    bool dis = o->scheduler == SCHED_DISAGGREGATED;
    x->npools = dis ? 2 : 1;
    double block_bytes = 0;
    for (int p = 0; p < x->npools; p++) {
        pool_config(s, dis ? (p ? s->decode_tp : s->prefill_tp) : 0, &x->cfg[p]);
        if (serving_step_init(&x->step[p], s->fam, &x->cfg[p], s->prof, e))
            return -1;
        x->step_ok[p] = true;
        x->step[p].memo = !s->memo_off;
        struct serving_pool *pl = &x->pools[p];
        pl->step = &x->step[p];
        pl->replicas = dis ? (p ? s->decode_replicas : s->prefill_replicas) : s->replicas;
        pl->chips = chips_of(&x->cfg[p]);
        if (probe(x, p, dis, e) || kv_blocks(s, &x->cfg[p], &pl->kv_blocks, &block_bytes, e))
            return -1;
    }
    /* PCIe both ways for a swapped block (GB = 2^30 B); a KV transfer between
     * the pools over the link domain, or the scale-out network past it. */
    const struct chip_config *ch = &s->c->chip;
    if (ch->pcie_bw_GBps > 0)
        o->swap_ns_per_block = (int64_t)ceil(block_bytes / (ch->pcie_bw_GBps * 1073741824.0) * 1e9);
    if (dis) {
        int64_t domain = chip_link_domain(ch), chips = x->pools[0].chips * x->pools[0].replicas +
                                                        x->pools[1].chips * x->pools[1].replicas;
        bool inside = domain == 0 || chips <= domain;
        double bw = (inside ? ch->ici_bw_GBps : ch->dcn_bw_GBps) * 1e9;
        int64_t lanes = x->cfg[0].model.tensor_parallelism_degree < x->cfg[1].model.tensor_parallelism_degree
                            ? x->cfg[0].model.tensor_parallelism_degree : x->cfg[1].model.tensor_parallelism_degree;
        /* the whole model's KV per token: a stage chip's times the stage's chips and stages */
        double per_token = block_bytes / (double)o->block_size * (double)x->cfg[0].model.tensor_parallelism_degree *
                           (double)x->cfg[0].model.pipeline_parallelism_degree;
        if (bw <= 0)
            return npu_errf(e, "%s: field \"%s\" is 0: the KV cache cannot move between the pools", ch->name,
                            inside ? "ici_bw_GBps" : "dcn_bw_GBps");
        o->transfer_ns_per_token = per_token / (bw * (double)lanes) * 1e9;
        o->transfer_latency_ns = inside ? ch->ici_latency_ns : ch->dcn_latency_ns;
    }
    return 0;
}

/* ---- the requests ---- */

static int next_request(void *arg, struct serving_request *r, struct npu_err *e)
{
    struct sim *x = arg;
    if (x->trace_ok)
        return serving_trace_next(&x->trace, r, e);
    return serving_gen_next(&x->gen, r, e) ? -1 : 1;
}

/* ---- the files ---- */

static void fmt_s(char *b, size_t n, int64_t ns)
{
    if (ns < 0)
        b[0] = '\0';
    else
        snprintf(b, n, "%.9f", (double)ns / 1e9);
}

static int on_request(void *arg, const struct serving_record *r, struct npu_err *e)
{
    struct sim *x = arg;
    collect_request(&x->col, r);
    if (!x->files_open)
        return 0;
    char a[32], f[32], fin[32], ttft[32] = "", tpot[32] = "", e2e[32] = "", q[32] = "";
    fmt_s(a, sizeof a, r->arrival_ns);
    fmt_s(f, sizeof f, r->rejected ? -1 : r->first_token_ns);
    fmt_s(fin, sizeof fin, r->rejected ? -1 : r->finish_ns);
    if (!r->rejected) {
        snprintf(ttft, sizeof ttft, "%.6f", (double)(r->first_token_ns - r->arrival_ns) / 1e6);
        if (r->output_tokens > 1)
            snprintf(tpot, sizeof tpot, "%.6f",
                     (double)(r->finish_ns - r->first_token_ns) / 1e6 / (double)(r->output_tokens - 1));
        fmt_s(e2e, sizeof e2e, r->finish_ns - r->arrival_ns);
        fmt_s(q, sizeof q, r->first_scheduled_ns - r->arrival_ns);
    }
    char rep[24] = "";
    if (r->replica >= 0)
        snprintf(rep, sizeof rep, "%d", r->replica);
    if (fprintf(x->files[0].f, "%lld,%s,%s,%s,%lld,%lld,%s,%s,%s,%s,%lld,%s,%s\n", (long long)r->id, a, f, fin,
                (long long)r->input_tokens, (long long)r->output_tokens, ttft, tpot, e2e, q,
                (long long)r->preemptions, rep, r->rejected ? "rejected" : "ok") < 0)
        return npu_errf(e, "%s: write error", x->files[0].path);
    return 0;
}

static int on_pass(void *arg, const struct serving_pass_record *p, struct npu_err *e)
{
    struct sim *x = arg;
    if (!x->files_open)
        return 0;
    char st[32];
    fmt_s(st, sizeof st, p->start_ns);
    if (fprintf(x->files[1].f, "%d,%s,%.6f,%lld,%lld,%lld,%lld,%lld\n", p->replica, st, (double)p->duration_ns / 1e6,
                (long long)p->prefill_tokens, (long long)p->decode_tokens, (long long)p->requests,
                (long long)p->kv_blocks_used, (long long)p->kv_blocks_total) < 0)
        return npu_errf(e, "%s: write error", x->files[1].path);
    return 0;
}

static void on_itl(void *arg, int64_t gap_ns, int64_t n)
{
    collect_itl(&((struct sim *)arg)->col, gap_ns, n);
}

static int files_open(struct sim *x, struct npu_err *e)
{
    const char *dir = x->s->out_dir;
    if (!dir)
        return 0;
    if (make_dirs(dir, e))
        return -1;
    static const char *const names[2] = { "requests.csv", "iterations.csv" };
    static const char *const heads[2] = {
        "id,arrival_s,first_token_s,finish_s,input_tokens,output_tokens,ttft_ms,tpot_ms,e2e_s,queue_s,preemptions,"
        "replica,status\n",
        "replica,start_s,duration_ms,prefill_tokens,decode_tokens,requests,kv_blocks_used,kv_blocks_total\n",
    };
    for (int k = 0; k < 2; k++) {
        char path[4200];
        snprintf(path, sizeof path, "%s/%s", dir, names[k]);
        if (atomic_open(&x->files[k], path, e)) {
            if (k == 1)
                atomic_abort(&x->files[0]);
            return -1;
        }
        fputs(heads[k], x->files[k].f);
    }
    x->files_open = true;
    return 0;
}

/* ---- the run ---- */

static cJSON *summary_of(struct sim *x, const struct serving_totals *t, double wall_s)
{
    const struct serving_spec *s = x->s;
    int64_t chips = 0;
    for (int p = 0; p < x->npools; p++)
        chips += x->pools[p].chips * x->pools[p].replicas;
    cJSON *o = collect_summary(&x->col, t, chips);
    cJSON_AddNumberToObject(o, "sim_wall_s", wall_s);
    cJSON *run = cJSON_AddObjectToObject(o, "setting");
    cJSON_AddStringToObject(run, "scheduler", serving_scheduler_name(s->o.scheduler));
    cJSON_AddStringToObject(run, "router", serving_router_name(s->o.router));
    cJSON_AddNumberToObject(run, "chips", (double)chips);
    cJSON *pools = cJSON_AddArrayToObject(run, "pools");
    for (int p = 0; p < x->npools; p++) {
        cJSON *q = cJSON_CreateObject();
        cJSON_AddStringToObject(q, "role", x->npools == 1 ? "both" : p ? "decode" : "prefill");
        cJSON_AddNumberToObject(q, "replicas", (double)x->pools[p].replicas);
        cJSON_AddNumberToObject(q, "chips_per_replica", (double)x->pools[p].chips);
        cJSON_AddNumberToObject(q, "tensor_parallelism", (double)x->cfg[p].model.tensor_parallelism_degree);
        cJSON_AddNumberToObject(q, "pipeline_parallelism", (double)x->cfg[p].model.pipeline_parallelism_degree);
        cJSON_AddNumberToObject(q, "kv_blocks_per_replica", (double)x->pools[p].kv_blocks);
        cJSON_AddItemToArray(pools, q);
    }
    cJSON_AddNumberToObject(run, "block_size", (double)s->o.block_size);
    cJSON_AddNumberToObject(run, "max_num_seqs", (double)s->o.max_num_seqs);
    cJSON_AddNumberToObject(run, "max_num_batched_tokens", (double)s->o.max_num_batched_tokens);
    cJSON_AddNumberToObject(run, "passes", (double)t->passes);
    double busy = t->end_ns > 0 ? (double)t->busy_ns / ((double)t->end_ns * (double)(x->pools[0].replicas +
                                                                                     (x->npools > 1 ? x->pools[1].replicas : 0)))
                                : NAN;
    if (isfinite(busy))
        cJSON_AddNumberToObject(run, "busy_fraction", busy);
    if (s->slo_ttft_ms > 0 || s->slo_tpot_ms > 0) {
        cJSON *slo = cJSON_AddObjectToObject(run, "slo");
        if (s->slo_ttft_ms > 0)
            cJSON_AddNumberToObject(slo, "ttft_ms", s->slo_ttft_ms);
        if (s->slo_tpot_ms > 0)
            cJSON_AddNumberToObject(slo, "tpot_ms", s->slo_tpot_ms);
    }
    cJSON *prov = config_provenance(s->prof, s->c);
    if (!prov)
        prov = cJSON_CreateObject();
    cJSON_AddNumberToObject(prov, "seed", (double)s->w.seed);
    if (s->trace_path)
        cJSON_AddStringToObject(prov, "trace", s->trace_path);
    if (s->command)
        cJSON_AddStringToObject(prov, "command", s->command);
    cJSON_AddItemToObject(o, "provenance", prov);
    return o;
}

static int sources_open(struct sim *x, struct npu_err *e)
{
    const struct serving_spec *s = x->s;
    if (s->trace_path) {
        if (serving_trace_open(&x->trace, s->trace_path, NULL, false, s->w.max_context, e))
            return -1;
        return x->trace_ok = true, 0;
    }
    if (serving_gen_init(&x->gen, &s->w, e))
        return -1;
    return x->gen_ok = true, 0;
}

static void sim_free(struct sim *x)
{
    for (int p = 0; p < 2; p++)
        if (x->step_ok[p])
            serving_step_free(&x->step[p]);
    if (x->gen_ok)
        serving_gen_free(&x->gen);
    if (x->trace_ok)
        serving_trace_close(&x->trace);
    collect_free(&x->col);
}

int serving_simulate(const struct serving_spec *s, cJSON **summary, struct npu_err *e)
{
    struct timespec t0, t1;
    clock_gettime(CLOCK_MONOTONIC, &t0);
    struct sim x = { .s = s };
    struct serving_options o = s->o;
    collect_init(&x.col, s->slo_ttft_ms, s->slo_tpot_ms);
    *summary = NULL;
    int rc = pools_init(&x, &o, e) || sources_open(&x, e) || files_open(&x, e) ? -1 : 0;
    struct serving_totals t;
    if (!rc) {
        struct serving_source src = { next_request, &x,
                                      s->w.arrivals.kind == ARRIVAL_CLOSED && !s->trace_path ? s->w.arrivals.concurrency : 0 };
        struct serving_sink sink = { on_request, on_pass, on_itl, &x };
        rc = serving_run(&o, x.pools, x.npools, &src, &sink, &t, e);
    }
    if (!rc && x.col.oom)
        rc = npu_errf(e, "serving: out of memory");
    clock_gettime(CLOCK_MONOTONIC, &t1);
    if (!rc) {
        *summary = summary_of(&x, &t, (double)(t1.tv_sec - t0.tv_sec) + (double)(t1.tv_nsec - t0.tv_nsec) / 1e9);
        if (x.files_open) {
            char *text = cJSON_Print(*summary), path[4200];
            snprintf(path, sizeof path, "%s/summary.json", s->out_dir);
            struct atomic_file *f = x.files;
            struct atomic_file all[3] = { f[0], f[1] };
            rc = !text || atomic_open(&all[2], path, e) ? -1 : 0;
            if (!rc) {
                fprintf(all[2].f, "%s\n", text);
                rc = atomic_commit_all(all, 3, e);
            } else
                atomic_abort(&f[0]), atomic_abort(&f[1]);
            x.files_open = false;
            cJSON_free(text);
        }
    }
    if (x.files_open)
        atomic_abort(&x.files[0]), atomic_abort(&x.files[1]);
    if (rc) {
        cJSON_Delete(*summary);
        *summary = NULL;
    }
    sim_free(&x);
    return rc;
}
