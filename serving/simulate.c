/* simulate.c — one serving simulation end to end (see simulate.h). Main
 * data structure: struct sim, the run's pools, source, sink and files. */
#include "serving/simulate.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "base/atomic.h"
#include "base/clock.h"
#include "base/version.h"
#include "opsgen/builders.h"
#include "opsgen/opsgen.h"
#include "power/carbon.h"
#include "power/system.h"
#include "serving/energy.h"
#include "serving/outputs.h"
#include "serving/request.h"
#include "serving/summary.h"
#include "serving/trace_in.h"

struct sim {
    const struct serving_spec *s;
    struct loaded_config cfg[2];
    struct serving_steps own, *st;     /* st: the spec's to reuse, else own */
    struct serving_pool pools[2];
    int npools;
    struct serving_gen gen;
    struct serving_trace trace;
    bool gen_ok, trace_ok;
    struct serving_files files;
    struct serving_carbon carbon;
    struct serving_energy energy;
    bool missed;                       /* stopped by the spec's missed hook */
    bool late;                         /* stopped by the spec's deadline */
    int64_t passes;
    cJSON *base;                       /* the NoPG run's summary, for the "pg" object (or NULL) */
    struct serving_collect col;
};

void serving_steps_free(struct serving_steps *st)
{
    for (int p = 0; p < 2; p++)
        if (st->ok[p])
            serving_step_free(&st->step[p]);
    memset(st, 0, sizeof *st);
}

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
                     double *block_bytes, struct serving_options *o, struct npu_err *e)
{
    bool ovf = false;
    struct opsgen_llm_mem_parts p;
    s->fam->mem_parts(&ovf, &c->model, s->prof, &p);
    double f = s->kv_free_fraction, hbm = (double)c->chip.hbm_size_GB * 1073741824.0;
    double live = (double)bld_tensor_bytes(&ovf, p.live_elems_per_token * s->o.max_num_batched_tokens, p.act_dtype);
    /* a block: block_size tokens of every layer of the stage, global and local */
    int64_t per_token = p.kv_elems_per_token + p.kv_local_elems_per_token;
    *block_bytes = (double)bld_tensor_bytes(&ovf, per_token * s->o.block_size, p.kv_dtype);
    o->kv_window = p.kv_window;
    o->kv_local_share = per_token > 0 ? (double)p.kv_local_elems_per_token / (double)per_token : 0;
    /* linear layers' state: whole blocks a sequence, as vLLM pages it beside the K/V */
    double state = (double)bld_tensor_bytes(&ovf, p.state_elems_per_seq, p.state_dtype);
    o->state_blocks = *block_bytes > 0 ? (int64_t)ceil(state / *block_bytes) : 0;
    /* TensorRT-LLM's sizing: f of what the weights and activations leave;
     * vLLM's: HBM less the reserve, less those */
    double room = f > 0 ? f * (hbm - (double)p.weight_bytes - live)
                        : hbm * (1 - s->kv_reserve) - (double)p.weight_bytes - live;
    if (!ovf && per_token == 0 && p.state_elems_per_seq > 0)
        return npu_errf(e, "%s: every layer is linear attention (full_attention_interval 0), no K/V to page: the "
                           "serving engine sizes its cache in K/V blocks; expected at least one attention layer",
                        c->model_name);
    if (ovf || *block_bytes <= 0)
        return npu_errf(e, "%s: the model's sizes are out of scale for a KV cache", c->model_name);
    if (room < *block_bytes)
        return npu_errf(e, "%s on %s (tensor parallelism %lld, pipeline %lld): the weights (%.2f GiB per chip) and "
                           "the activations of a %lld-token pass leave no room for a KV cache in %lld GiB of HBM "
                           "with %.0f%% kept free: use more chips (--tp) or a smaller --max-num-batched-tokens",
                        c->model_name, c->chip_name, (long long)c->model.tensor_parallelism_degree,
                        (long long)c->model.pipeline_parallelism_degree, (double)p.weight_bytes / 1073741824.0,
                        (long long)s->o.max_num_batched_tokens, (long long)c->chip.hbm_size_GB,
                        100 * (f > 0 ? 0 : s->kv_reserve));
    *blocks = (int64_t)(room / *block_bytes);
    return 0;
}

/* pe, a pool's layout refused, into e: as it is for the one pool; a
 * disaggregated pool's names the pool and its knob as the front end spells
 * it (--prefill-tp 3, "prefill_tp": 3), since its degree came from there,
 * not from a file or --set. */
static int pool_error(const struct sim *x, int p, bool dis, const struct npu_err *pe, struct npu_err *e)
{
    if (!dis)
        return *e = *pe, -1;
    /* a check of the generator's own names the override as --set; the pool's knob says it better */
    const char *msg = strncmp(pe->msg, "--set: ", 7) ? pe->msg : pe->msg + 7;
    bool json = x->s->json_names;
    const char *knob = serving_knob_name(p ? SK_DECODE_TP : SK_PREFILL_TP, json);
    return npu_errf(e, json ? "the %s pool (\"%s\": %lld): %s" : "the %s pool (--%s %lld): %s",
                    p ? "decode" : "prefill", knob, (long long)x->cfg[p].model.tensor_parallelism_degree, msg);
}

/* A user's layout held to what `npusim run` holds it to (a tensor
 * parallelism that divides the heads and widths); the passes then run
 * unstrict, as their batch and lengths are the engine's, not the user's. */
static int layout_check(struct sim *x, int p, bool dis, struct npu_err *e)
{
    const struct loaded_config *c = &x->cfg[p];
    struct npu_err pe;
    if (!c->strict || !x->s->fam->strict_fields || !opsgen_check_strict(&c->model, &pe))
        return 0;
    if (dis)
        return pool_error(x, p, dis, &pe, e);
    *e = pe;
    return config_name_source(c, e);
}

/* Times a one-token decode pass, so that a layout the generator refuses
 * (e.g. a pool's TP below the model's expert parallelism) fails before the
 * first request, naming the pool. The memo keeps the pass: no time lost. */
static int probe(struct sim *x, int p, bool dis, struct npu_err *e)
{
    struct serving_batch one = { .decodes = 1, .decode_prompt_sum = 1, .decode_gen_sum = 1, .emits = 1 };
    struct serving_pass_cost pc;
    struct npu_err pe;
    if (!serving_step_time(&x->st->step[p], &one, &pc, &pe))
        return 0;
    return pool_error(x, p, dis, &pe, e);
}

/* The passes a pool's replica keeps in flight: one per pipeline stage
 * unless told fewer; each takes an equal share of the cache (as vLLM V0's
 * virtual engines, engine.h). */
static int microbatches(const struct sim *x, int p, struct serving_pool *pl, struct npu_err *e)
{
    int64_t stages = serving_step_stages(pl->step), want = x->s->pp_microbatches;
    const char *knob = serving_knob_name(SK_PP_MICRO, x->s->json_names);
    if (want > stages)
        return npu_errf(e, x->s->json_names ? "\"%s\": %lld: expected at most the pipeline's %lld stage%s"
                                            : "--%s %lld: expected at most the pipeline's %lld stage%s",
                        knob, (long long)want, (long long)stages, stages == 1 ? " (no pipeline parallelism)" : "s");
    pl->microbatches = want > 0 ? want : stages;
    if (pl->kv_blocks / pl->microbatches < 1)
        return npu_errf(e, "%s on %s: %lld KV blocks cannot be shared among %lld passes in flight (--%s)",
                        x->cfg[p].model_name, x->cfg[p].chip_name, (long long)pl->kv_blocks,
                        (long long)pl->microbatches, serving_knob_name(SK_PP_MICRO, false));
    return 0;
}

static int pools_init(struct sim *x, struct serving_options *o, struct npu_err *e)
{
    const struct serving_spec *s = x->s;
    bool dis = o->scheduler == SCHED_DISAGGREGATED;
    x->npools = dis ? 2 : 1;
    double block_bytes = 0;
    for (int p = 0; p < x->npools; p++) {
        pool_config(s, dis ? (p ? s->decode_tp : s->prefill_tp) : 0, &x->cfg[p]);
        struct serving_step *st = &x->st->step[p];
        if (!x->st->ok[p]) {
            struct npu_err pe;
            if (layout_check(x, p, dis, e))
                return -1;
            if (serving_step_init(st, s->fam, &x->cfg[p], s->prof, &pe))
                return pool_error(x, p, dis, &pe, e);
            x->st->ok[p] = true;
            st->memo = !s->memo_off;
            st->pg = s->pg;
            st->dvfs = s->dvfs;
        }
        struct serving_pool *pl = &x->pools[p];
        pl->step = st;
        pl->replicas = dis ? (p ? s->decode_replicas : s->prefill_replicas) : s->replicas;
        pl->chips = chips_of(&x->cfg[p]);
        pl->idle_W = carbon_idle_power_W(&x->cfg[p].chip, false);
        pl->gated_W = carbon_idle_power_pg_W(&x->cfg[p].chip, s->pg);
        pl->wake_ns = pg_wake_ns(s->pg, x->cfg[p].chip.freq_GHz);
        pl->gating = pl->gated_W < pl->idle_W;
        if (probe(x, p, dis, e) || kv_blocks(s, &x->cfg[p], &pl->kv_blocks, &block_bytes, o, e) ||
            microbatches(x, p, pl, e))
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

static int64_t next_think_ns(void *arg)
{
    return serving_gen_think_ns(&((struct sim *)arg)->gen);
}

static int next_request(void *arg, struct serving_request *r, struct npu_err *e)
{
    struct sim *x = arg;
    if (x->trace_ok)
        return serving_trace_next(&x->trace, r, e);
    return serving_gen_next(&x->gen, r, e) ? -1 : 1;
}

/* ---- what the engine tells ---- */

/* Appends the size-byte record x to a growable array; -1 when out of memory. */
static int rows_push(void **v, size_t *n, size_t *cap, const void *x, size_t size)
{
    if (*n == *cap) {
        size_t c = *cap ? 2 * *cap : 256;
        void *p = realloc(*v, c * size);
        if (!p)
            return -1;
        *v = p, *cap = c;
    }
    memcpy((char *)*v + *n * size, x, size);
    (*n)++;
    return 0;
}


static int on_request(void *arg, const struct serving_record *r, struct npu_err *e)
{
    struct sim *x = arg;
    collect_request(&x->col, r);
    if (x->s->rows && rows_push((void **)&x->s->rows->req, &x->s->rows->nreq, &x->s->rows->capreq, r, sizeof *r))
        return npu_errf(e, "serving: out of memory");
    if (x->s->missed && x->s->missed(x->s->missed_arg, r)) {
        x->missed = true;
        return npu_errf(e, "serving: the SLO is missed");
    }
    return x->files.open ? serving_files_request(&x->files, r, e) : 0;
}

static int on_pass(void *arg, const struct serving_pass_record *p, struct npu_err *e)
{
    struct sim *x = arg;
    if (x->s->rows && rows_push((void **)&x->s->rows->pass, &x->s->rows->npass, &x->s->rows->cappass, p, sizeof *p))
        return npu_errf(e, "serving: out of memory");
    if (x->s->deadline_s > 0 && (++x->passes & 255) == 0 && clock_monotonic_s() > x->s->deadline_s) {
        x->late = true;
        return npu_errf(e, "serving: the time limit passed");
    }
    return x->files.open ? serving_files_pass(&x->files, p, e) : 0;
}

static void on_itl(void *arg, int64_t gap_ns, int64_t n)
{
    collect_itl(&((struct sim *)arg)->col, gap_ns, n);
}

/* ---- the run ---- */

static int64_t chips_all(const struct sim *x)
{
    int64_t chips = 0;
    for (int p = 0; p < x->npools; p++)
        chips += x->pools[p].chips * x->pools[p].replicas;
    return chips;
}

/* The run's energy and carbon, and each request's energy in record order
 * (*rows, malloc'ed; NULL when out of memory). */
static void energy_of(struct sim *x, const struct serving_totals *t, double **rows)
{
    const struct serving_spec *s = x->s;
    struct carbon_defaults d;
    carbon_defaults_of(&s->c->sys, s->c->sources, s->prof, false, &d);
    x->carbon = (struct serving_carbon){ d.v[CD_CI], d.v[CD_PUE], d.v[CD_LIFETIME], s->c->chip.embodied_carbon_kgCO2 };
    serving_energy_of(t, chips_all(x), x->col.completed, x->col.output_tokens, &x->carbon, &x->energy);
    const struct serving_collect *c = &x->col;
    if ((*rows = malloc((c->row_pass_J.n ? c->row_pass_J.n : 1) * sizeof **rows)))
        for (size_t k = 0; k < c->row_pass_J.n; k++)
            (*rows)[k] = serving_request_energy_J(c->row_pass_J.v[k], c->row_e2e_s.v[k], t->idle_energy_J,
                                                  c->e2e_sum_s);
}

/* Past this in_system_growth a run at a rate is above its replicas'
 * capacity: they fall behind and its latencies grow with its length. A
 * system that keeps up stays near 0 (tests/unit/test_serving_metrics.c has
 * both kinds), one filling linearly from empty is at 1.2. */
#define SERVING_ABOVE_CAPACITY_GROWTH 0.5

/* The summary's above_capacity: for arrivals at a rate (Poisson, gamma or
 * constant; not offline, a closed loop or a trace, whose own rate may
 * change), whether the requests in the system kept growing. */
static void above_capacity_of(const struct sim *x, cJSON *o)
{
    enum serving_arrival k = x->s->w.arrivals.kind;
    bool at_rate = !x->s->trace_path && (k == ARRIVAL_POISSON || k == ARRIVAL_GAMMA || k == ARRIVAL_CONSTANT);
    double g = serving_summary_num(o, NULL, "in_system_growth");
    cJSON_AddBoolToObject(o, "above_capacity", at_rate && isfinite(g) && g > SERVING_ABOVE_CAPACITY_GROWTH);
}

static cJSON *summary_of(struct sim *x, const struct serving_totals *t, double wall_s)
{
    const struct serving_spec *s = x->s;
    int64_t chips = chips_all(x);
    cJSON *o = collect_summary(&x->col, t, chips);
    /* drawn lengths past --max-context, clipped to it (a trace's are refused) */
    cJSON_AddNumberToObject(o, "requests_clipped", x->gen_ok ? (double)x->gen.clipped : 0);
    above_capacity_of(x, o);
    serving_energy_json(&x->energy, &x->carbon, o);
    serving_pg_json(s->pg ? s->pg->name : "NoPG", s->dvfs, &x->pools[0], t, x->energy.total_J, x->base, o);
    cJSON_AddNumberToObject(o, "sim_wall_s", wall_s);
    cJSON *run = cJSON_AddObjectToObject(o, "setting");
    cJSON_AddStringToObject(run, "scheduler", serving_scheduler_name(s->o.scheduler));
    cJSON_AddStringToObject(run, "router", serving_router_name(s->o.router));
    cJSON_AddStringToObject(run, "capacity_policy", serving_capacity_name(s->o.capacity));
    cJSON_AddBoolToObject(run, "async_scheduling", s->o.async_scheduling);
    cJSON_AddNumberToObject(run, "chips", (double)chips);
    cJSON *pools = cJSON_AddArrayToObject(run, "pools");
    for (int p = 0; p < x->npools; p++) {
        cJSON *q = cJSON_CreateObject();
        cJSON_AddStringToObject(q, "role", x->npools == 1 ? "both" : p ? "decode" : "prefill");
        cJSON_AddNumberToObject(q, "replicas", (double)x->pools[p].replicas);
        cJSON_AddNumberToObject(q, "chips_per_replica", (double)x->pools[p].chips);
        cJSON_AddNumberToObject(q, "tensor_parallelism", (double)x->cfg[p].model.tensor_parallelism_degree);
        cJSON_AddNumberToObject(q, "pipeline_parallelism", (double)x->cfg[p].model.pipeline_parallelism_degree);
        cJSON_AddNumberToObject(q, "pp_microbatches", (double)x->pools[p].microbatches);
        cJSON_AddNumberToObject(q, "kv_blocks_per_replica", (double)x->pools[p].kv_blocks);
        cJSON_AddItemToArray(pools, q);
    }
    cJSON_AddNumberToObject(run, "block_size", (double)s->o.block_size);
    if (s->kv_free_fraction > 0)   /* how the KV cache was sized: one of the two */
        cJSON_AddNumberToObject(run, "kv_free_fraction", s->kv_free_fraction);
    else
        cJSON_AddNumberToObject(run, "kv_reserve", s->kv_reserve);
    cJSON_AddNumberToObject(run, "max_num_seqs", (double)s->o.max_num_seqs);
    cJSON_AddNumberToObject(run, "max_num_batched_tokens", (double)s->o.max_num_batched_tokens);
    if (s->o.admit_kv_free > 0)
        cJSON_AddNumberToObject(run, "admit_kv_free", s->o.admit_kv_free);
    if (s->o.max_new_tokens > 0)
        cJSON_AddNumberToObject(run, "max_new_tokens", (double)s->o.max_new_tokens);
    if (s->o.batcher_wait_ns > 0) {
        cJSON *b = cJSON_AddObjectToObject(run, "batcher");
        cJSON_AddNumberToObject(b, "size", (double)s->o.batcher_size);
        cJSON_AddNumberToObject(b, "wait_s", (double)s->o.batcher_wait_ns / 1e9);
    }
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
    /* where the chip's efficiencies and host times come from, as `npusim run` says it */
    char cal[RUN_NOTES_CALIBRATION_MAX];
    cJSON_AddStringToObject(prov, "calibration_source", run_notes_calibration(s->c, s->prof, cal));
    if (s->trace_path)
        cJSON_AddStringToObject(prov, "trace", s->trace_path);
    if (s->command)
        cJSON_AddStringToObject(prov, "command", s->command);
    cJSON_AddItemToObject(o, "provenance", prov);
    if (s->extra_key && s->extra)
        cJSON_AddItemToObject(o, s->extra_key, cJSON_Duplicate(s->extra, 1));
    return o;
}

static int files_open(struct sim *x, struct npu_err *e)
{
    const struct serving_spec *s = x->s;
    char title[600];
    snprintf(title, sizeof title, "%s on %s, %s scheduler", s->c->model_name, s->c->chip_name,
             serving_scheduler_name(s->o.scheduler));
    return serving_files_open(&x->files, s->out_dir, s->timeline, title, e);
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
    serving_steps_free(&x->own);
    if (x->gen_ok)
        serving_gen_free(&x->gen);
    if (x->trace_ok)
        serving_trace_close(&x->trace);
    collect_free(&x->col);
    cJSON_Delete(x->base);
}

struct serving_spec serving_spec_inner(const struct serving_spec *s, struct serving_steps *steps)
{
    struct serving_spec b = *s;
    b.out_dir = b.timeline = NULL;
    b.rows = NULL;
    b.steps = steps;
    b.missed = NULL;
    b.missed_arg = NULL;
    b.extra_key = NULL;
    b.pg_compare = false;
    return b;
}

/* The same run with the default energy pass and no gating, for the "pg"
 * object's comparison; NULL when there is nothing to compare. */
static int baseline(const struct serving_spec *s, cJSON **out, struct npu_err *e)
{
    *out = NULL;
    if (!s->pg_compare || ((!s->pg || !strcmp(s->pg->name, "NoPG")) && s->dvfs == DVFS_NONE))
        return 0;
    struct serving_spec b = serving_spec_inner(s, NULL);
    b.pg = NULL;
    b.dvfs = DVFS_NONE;
    return serving_simulate(&b, out, e) ? -1 : 0;
}

int serving_simulate(const struct serving_spec *s, cJSON **summary, struct npu_err *e)
{
    struct timespec t0, t1;
    clock_gettime(CLOCK_MONOTONIC, &t0);
    struct sim x = { .s = s };
    *summary = NULL;
    if (baseline(s, &x.base, e))
        return -1;
    x.st = s->steps ? s->steps : &x.own;
    struct serving_options o = s->o;
    collect_init(&x.col, s->slo_ttft_ms, s->slo_tpot_ms, s->o.warmup);
    *summary = NULL;
    int rc = pools_init(&x, &o, e) || sources_open(&x, e) ||
             ((s->out_dir || s->timeline) && files_open(&x, e)) ? -1 : 0;
    struct serving_totals t;
    if (!rc) {
        bool closed = s->w.arrivals.kind == ARRIVAL_CLOSED && !s->trace_path;
        struct serving_source src = { next_request, &x, closed ? s->w.arrivals.concurrency : 0,
                                      closed && s->w.arrivals.think_s > 0 ? next_think_ns : NULL };
        struct serving_sink sink = { on_request, on_pass, on_itl, &x };
        rc = serving_run(&o, x.pools, x.npools, &src, &sink, &t, e);
        if (rc && x.missed)
            rc = 1;
        else if (rc && x.late)
            rc = 2;
    }
    double *rows = NULL;
    if (!rc)
        energy_of(&x, &t, &rows);
    if (!rc && (x.col.oom || !rows))
        rc = npu_errf(e, "serving: out of memory");
    clock_gettime(CLOCK_MONOTONIC, &t1);
    if (!rc) {
        *summary = summary_of(&x, &t, (double)(t1.tv_sec - t0.tv_sec) + (double)(t1.tv_nsec - t0.tv_nsec) / 1e9);
        if (x.files.open)
            rc = serving_files_commit(&x.files, rows, x.col.row_pass_J.n, *summary, e);
    }
    if (!rc && s->rows) {   /* the requests' energies, in their records' order: handed over */
        free(s->rows->energy_J);
        s->rows->energy_J = rows;
        rows = NULL;
    }
    free(rows);
    serving_files_abort(&x.files);
    if (rc) {
        cJSON_Delete(*summary);
        *summary = NULL;
    }
    sim_free(&x);
    return rc;
}
