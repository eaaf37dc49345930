/* sweep_run.c — a sweep's points on the ordered pool (see sweep_run.h).
 *
 * Points come one at a time from the enumerator, run on an ordered pool
 * (ordered_pool.h) and are consumed in enumeration order, so the summary, the
 * counts and the first fatal error are the same for every -j. */
#include "study/sweep/sweep_run.h"

#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "chipsim/chipsim.h"
#include "study/run/run.h"
#include "study/sweep/sweep_row.h"
#include "study/sweep/sweep_spec.h"
#include "study/stages/stages.h"
#include "opsgen/opsgen.h"
#include "opsgen/sweep.h"
#include "power/carbon.h"
#include "power/energy.h"
#include "power/powercap.h"
#include "power/system.h"
#include "base/clock.h"

/* One point (the members of a bundle, sweep_points.h) in the ordered pool. */
struct item {
    struct sweep_point pt;
    enum row_status status[SWEEP_BUNDLE_MAX];
    char *row[SWEEP_BUNDLE_MAX];     /* the members' summary lines (owned) */
    char msg[512];                   /* the first member's error (fatal without --summary) */
    int nwarn[SWEEP_BUNDLE_MAX];     /* physical invariants the member violates */
    char warn[INVARIANT_LEN + 200];  /* the first such member's first violation */
    char carbon[1024];               /* the first summarised member's carbon inputs (carbon_note) */
    bool existing;                   /* --skip-existing found its files: not written (and only
                                      * simulated for its summary row) */
    char dir[2048], base[96];        /* its folder in the tree and its files' name (trees only) */
};

/* Whether the sweep is to stop before the next point (a signal). */
static bool cancelled(struct sweep_ctx *x)
{
    if (!x->cancel || !*x->cancel)
        return false;
    if (!x->interrupted)
        snprintf(x->err.msg, sizeof x->err.msg, "interrupted");
    x->interrupted = x->failed = true;
    return true;
}



static int ctx_next(void *vctx, void *vit)
{
    struct sweep_ctx *x = vctx;
    struct item *it = vit;
    memset(it, 0, sizeof *it);
    if (cancelled(x))
        return -1;
    int r = sweep_enum_next(&x->en, &it->pt, &x->err);
    if (r < 0)
        x->failed = true;
    return r;
}

/* The carbon columns' intensity, lifetime and duty cycle (by power/system.h's
 * CD_*) and, unless from is NULL, where each came from: an option, else the
 * point's system config (the one set of defaults, power/system.h). Every row
 * takes the values; only the note names the sources, whose look-ups cost a
 * scan of every config key each (2.6% of a summary sweep's instructions). */
static void carbon_inputs(const struct sweep_opts *o, const struct loaded_config *c, double v[CD_N],
                          const char *from[CD_N])
{
    struct carbon_defaults cd;
    carbon_defaults_of(&c->sys, from ? c->sources : NULL, o->prof, false, &cd);
    const char *said[CD_N];
    from = from ? from : said;
    for (int i = 0; i < CD_N; i++)
        v[i] = cd.v[i], from[i] = cd.from[i];
    if (o->ci_given)
        v[CD_CI] = o->ci, from[CD_CI] = "--ci";
    if (o->lifetime > 0)
        v[CD_LIFETIME] = o->lifetime, from[CD_LIFETIME] = "--lifetime";
    if (o->util > 0)
        v[CD_DUTY] = o->util, from[CD_DUTY] = "--util";
}

/* The line naming a row's carbon inputs (the caller prints the first row's). */
static void carbon_note(const struct sweep_opts *o, const struct loaded_config *c, char *buf, size_t n)
{
    double v[CD_N];
    const char *from[CD_N], *text[CD_N];
    char num[CD_N][32];
    carbon_inputs(o, c, v, from);
    for (int i = 0; i < CD_N; i++) {
        carbon_default_text(v[i], num[i], sizeof num[i]);
        text[i] = num[i];
    }
    carbon_defaults_line(text, from, buf, n);
}

/* The summary figures of a timed trace (energy pass already applied). */
static void summarize(const struct sweep_opts *o, const struct family *fam, const struct loaded_config *c,
                      const struct trace *t, struct row_result *res)
{
    struct npu_err e;
    struct family_capacity cap = { 0 };
    bool have_cap = false;
    if (fam->llm_stats) {
        struct llm_report r;
        if (fam->llm_stats(c, o->prof, t, &r, &e) == 0) {
            llm_capacity_from_report(&c->model, &r, &cap);
            have_cap = true;
            res->has_llm = true;
            res->ttft_s = r.TTFT_sec;
            res->tpot_ms = r.TPOT_ms_request;
            res->prefill_tps = r.prefill_tokens_per_sec;
            res->decode_tps = r.decode_tokens_per_sec;
        }
    } else if (fam->capacity) {
        have_cap = fam->capacity(c, o->prof, t, &cap, &e) == 0;
    }
    if (have_cap && cap.has_mem)   /* every family with a footprint, not only LLM inference */
        res->has_mem = true, res->mem_GiB = cap.mem_GiB, res->oom = cap.oom;
    if (have_cap && cap.units_per_sec > 0) {
        double n = (double)c->model.num_chips;
        double idle_W = carbon_idle_power_W(&c->chip, strcmp(o->pg.name, "NoPG") != 0) * n;
        double v[CD_N];
        carbon_inputs(o, c, v, NULL);
        double u = v[CD_DUTY], ci = v[CD_CI];
        double avg_W = u * cap.active_power_W + (1 - u) * idle_W;
        res->has_cap = true;
        res->unit = cap.unit;
        res->throughput = cap.units_per_sec;
        res->energy_per_unit_J = cap.active_power_W / cap.units_per_sec;
        res->carbon_per_unit_kg = carbon_per_unit(u * cap.units_per_sec, c->sys.PUE, v[CD_LIFETIME], ci,
                                                  avg_W, c->chip.embodied_carbon_kgCO2 * n);
    }
}

/* Member j's outcome: its status, its row (summary sweeps) and the first error. */
static void member_done(struct sweep_ctx *x, struct item *it, int j, const struct loaded_config *c,
                        const struct row_result *res)
{
    const struct sweep_member *m = &it->pt.m[j];
    it->status[j] = res->status;
    if (res->status == ROW_ERROR && !it->msg[0])
        snprintf(it->msg, sizeof it->msg, "%s", res->msg);
    if (x->want_row && res->has_cap && !it->carbon[0])
        carbon_note(x->o, c, it->carbon, sizeof it->carbon);
    if (x->want_row)
        it->row[j] = row_format(m->index, c->model_name, x->en.plan->workload, c->chip_name, &c->model,
                                it->pt.batch, res, m->g->field_csv);
}

/* Writes and summarizes one member's timed trace t, with c the member's config. */
static void member_finish(struct sweep_ctx *x, const struct family *fam, const struct loaded_config *c,
                          struct trace *t, const char *dir, const char *base_name, bool write,
                          struct row_result *res)
{
    const struct sweep_opts *o = x->o;
    struct npu_err e;
    char wdir[4400];   /* dir under the staging folder */
    snprintf(wdir, sizeof wdir, "%s%s", o->stage, dir + strlen(o->out));
    if ((write && o->tree && !o->dry_run && fam->write(c, o->prof, t, o->stage[0] ? wdir : dir, base_name, true, &o->sink, &e)) ||
        (x->want_row && (o->custom_energy ? power_energy_pass(t, &c->chip, &o->pg, (int)o->dvfs, o->prof, &e)
                                          : power_default_pass(t, &c->chip, o->prof, &e)))) {
        res->status = ROW_ERROR;
        snprintf(res->msg, sizeof res->msg, "%s", e.msg);
    } else if (x->want_row)
        summarize(o, fam, c, t, res);
}

/* A path's place under the output folder (the point's folder for messages,
 * its trace for sim_config.output_file_path), or the path when not under it. */
static const char *tree_tail_of(const struct sweep_opts *o, const char *dir)
{
    size_t n = strlen(o->out);
    if (!dir[0] || strncmp(dir, o->out, n))
        return dir;
    return dir[n] == '/' ? dir + n + 1 : dir + n;
}

/* Checks member j's timed trace against the physical invariants; the counts
 * are reported once, at the end of the sweep (ctx_emit runs in point order,
 * so the first example is the same whatever the thread count). */
static void invariant_note(struct item *it, int j, const struct loaded_config *c, const struct trace *t,
                           const struct profile *prof, const char *where)
{
    struct invariant_warnings w = { 0 };
    invariants_check(t, PHASE_NONE, &c->chip, prof, "trace", &w);
    it->nwarn[j] = w.n;
    if (w.n && !it->warn[0])
        snprintf(it->warn, sizeof it->warn, "%s on %s%s%s: %s", c->model_name, c->chip_name,
                 where[0] ? " " : "", where, w.msg[0]);
}

/* The point's place in the results tree (summary-only sweeps have none,
 * and only they have bundles): its folder dir[2048], its files' name
 * base_name[96] and its CSV csv[2200], which c's output path names. */
static void tree_place(const struct sweep_ctx *x, const struct sweep_group *g, const struct sweep_point *pt,
                       struct loaded_config *c, char *dir, char *base_name, char *csv)
{
    const struct sweep_opts *o = x->o;
    char pstr[256];
    g->fam->pstr(&pt->par, pt->batch, pstr, sizeof pstr);
    if (o->seq_in > 0)
        snprintf(dir, 2048, "%s/%s_%lld_%lld%s/%s", o->out, c->model_name, (long long)o->seq_in,
                 (long long)o->seq_out, g->tag, pstr);
    else
        snprintf(dir, 2048, "%s/%s%s/%s", o->out, c->model_name, g->tag, pstr);
    snprintf(base_name, 96, "%s-v%s", x->en.plan->workload, g->version);
    snprintf(csv, 2200, "%s/%s.csv", dir, base_name);
    /* Relative to the tree's root unless the profile keeps the reference's joined path. */
    snprintf(c->model.output_file_path, sizeof c->model.output_file_path, "%s",
             o->prof->absolute_output_paths ? csv : tree_tail_of(o, csv));
}

static void ctx_work(void *vctx, void *vit)
{
    struct sweep_ctx *x = vctx;
    const struct sweep_opts *o = x->o;
    struct item *it = vit;
    if (x->cancel && *x->cancel)
        return;   /* dropped unemitted (ctx_emit stops first) */
    struct sweep_point *pt = &it->pt;
    struct sweep_group *g = pt->m[0].g;
    struct row_result res;
    memset(&res, 0, sizeof res);
    /* A shallow copy: shares the group's cJSON, which it never frees. Every
     * member's config differs from it in chip and system fields only. */
    struct loaded_config c = g->invalid[0] ? *g->base : g->cfg;
    if (o->seq_in > 0) {
        c.model.input_seqlen = o->seq_in;
        c.model.output_seqlen = o->seq_out;
    }
    res.status = ROW_OK;
    char dir[2048] = "", base_name[96] = "", csv[2200] = "";
    if (o->tree)
        tree_place(x, g, pt, &c, dir, base_name, csv);
    snprintf(it->dir, sizeof it->dir, "%s", dir);
    snprintf(it->base, sizeof it->base, "%s", base_name);
    /* A configuration is published whole (ctx_emit), so its CSV being there
     * means all its files are. With a summary, an existing configuration is
     * still simulated for its row: a resumed sweep's summary is the same as
     * a complete run's. */
    bool existing = !g->invalid[0] && o->tree && o->skip_existing && access(csv, F_OK) == 0;
    it->existing = existing;
    if (!existing || x->want_row)
        sweep_apply_parallel(&c.model, &pt->par, pt->batch);
    if (g->invalid[0]) {
        res.status = ROW_INVALID;
        snprintf(res.msg, sizeof res.msg, "%s", g->invalid);
    } else if (existing && !x->want_row) {
        res.status = ROW_EXISTING;
    } else if (!g->fam->prepare(&c, o->prof, res.msg, sizeof res.msg)) {
        res.status = ROW_INVALID;
    }
    if (res.status != ROW_OK) {
        /* Equal generator inputs: every member has the same verdict. */
        for (int j = 0; j < pt->n; j++)
            member_done(x, it, j, &c, &res);
        return;
    }
    /* One generated trace for all members: each but the last gets a copy of
     * it (sharing its strings, op.h), and chipsim times the copies together,
     * building each op's instruction once. */
    struct trace ts[SWEEP_BUNDLE_MAX];
    struct trace *tp[SWEEP_BUNDLE_MAX];
    const struct chip_config *chips[SWEEP_BUNDLE_MAX];
    struct npu_err errs[SWEEP_BUNDLE_MAX];
    int rcs[SWEEP_BUNDLE_MAX];
    int n = pt->n;
    for (int j = 0; j < n; j++) {
        trace_init(&ts[j]);
        tp[j] = &ts[j];
        chips[j] = &pt->m[j].g->cfg.chip;
    }
    struct trace *gen = &ts[n - 1];
    if (family_generate(g->fam, &c, o->prof, gen, &errs[0])) {
        for (int j = 0; j < n; j++) {   /* the same inputs fail the same way for every member */
            rcs[j] = -1;
            errs[j] = errs[0];
        }
    } else {
        for (int j = 0; j + 1 < n; j++)
            trace_append(&ts[j], gen);
        chipsim_run_many(tp, chips, n, o->prof, errs, rcs);
        for (int j = 0; j < n; j++)
            if (!rcs[j])
                rcs[j] = power_cap_pass(tp[j], chips[j], o->prof, &errs[j]);
    }
    for (int j = 0; j < n; j++) {
        const struct loaded_config *mc = &pt->m[j].g->cfg;
        c.chip = mc->chip;
        c.sys = mc->sys;
        c.merged = mc->merged;
        c.sources = mc->sources;
        memset(&res, 0, sizeof res);
        if (rcs[j]) {
            res.status = ROW_ERROR;
            snprintf(res.msg, sizeof res.msg, "%s", errs[j].msg);
        } else {
            member_finish(x, g->fam, &c, &ts[j], dir, base_name, !existing, &res);
            invariant_note(it, j, &c, &ts[j], o->prof, tree_tail_of(o, dir));
        }
        member_done(x, it, j, &c, &res);
        trace_free(&ts[j]);
    }
}

/* Writes the held rows of the bundle that just ended, in combination order. */
static int flush_held(struct sweep_ctx *x)
{
    int rc = 0;
    for (int pos = 1; pos < SWEEP_BUNDLE_MAX; pos++) {
        struct strbuf *h = &x->held[pos];
        if (!rc && h->n && x->summary && fwrite(h->s, 1, h->n, x->summary) != h->n) {
            snprintf(x->err.msg, sizeof x->err.msg, "%s: write failed", x->o->summary);
            x->failed = true;
            rc = -1;
        }
        h->n = 0;
    }
    return rc;
}

/* Publishes a written point's files from the staging folder into the tree
 * as one set (study/stages/staging.h), under a lock on the tree's parent folder
 * that other sweeps into the same tree (shards) take too. */
static int publish_point(struct sweep_ctx *x, const struct item *it)
{
    const struct sweep_opts *o = x->o;
    char from[4400], scratch[4300], parent[4200];
    snprintf(from, sizeof from, "%s%s", o->stage, it->dir + strlen(o->out));
    snprintf(scratch, sizeof scratch, "%s/.publish", o->stage);
    path_folder(o->out, parent, sizeof parent);
    int lock = atomic_lock_dir(parent);
    int rc = staging_publish_set(from, it->dir, it->base, scratch, &x->err);
    atomic_unlock_dir(lock);
    if (rc)
        x->failed = true;
    else
        x->published++;
    return rc;
}

static void ctx_discard(void *vctx, void *vit)
{
    (void)vctx;
    struct item *it = vit;
    for (int j = 0; j < it->pt.n; j++)
        free(it->row[j]);
    sweep_point_release(&it->pt);
}

static int ctx_emit(void *vctx, void *vit)
{
    struct sweep_ctx *x = vctx;
    struct item *it = vit;
    int rc = 0;
    if (cancelled(x)) {   /* dropped: its staged files go with the staging folder */
        ctx_discard(vctx, vit);   /* the pool discards the items after this one, not this one */
        return -1;
    }
    if (it->pt.bundle != x->held_bundle) {
        rc = flush_held(x);
        x->held_bundle = it->pt.bundle;
    }
    for (int j = 0; j < it->pt.n && !rc; j++) {
        if (it->status[j] == ROW_OK && it->nwarn[j] && !it->existing) {
            if (!x->violating++)
                snprintf(x->first_warn, sizeof x->first_warn, "%s", it->warn);
        }
        switch (it->status[j]) {
        case ROW_OK:
            if (it->existing) {
                x->cnt.existing++;
                break;
            }
            x->cnt.simulated++;
            if (x->o->tree && !x->o->dry_run && x->o->stage[0])
                rc = publish_point(x, it);
            break;
        case ROW_INVALID: x->cnt.invalid++; break;
        case ROW_EXISTING: x->cnt.existing++; break;
        case ROW_ERROR:
            x->cnt.errors++;
            if (x->o->fatal_errors) {
                snprintf(x->err.msg, sizeof x->err.msg, "%s", it->msg);
                x->failed = true;
                rc = -1;
            }
            break;
        }
        if (rc || !it->row[j] || !x->summary)
            continue;
        if (it->pt.m[j].pos > 0)
            strbuf_puts(&x->held[it->pt.m[j].pos], it->row[j]);
        else if (fputs(it->row[j], x->summary) == EOF) {
            snprintf(x->err.msg, sizeof x->err.msg, "%s: write failed", x->o->summary);
            x->failed = true;
            rc = -1;
        }
    }
    /* The first row's carbon inputs, and whether a later row's differ (a
     * spec's fields may set the system's). */
    if (it->carbon[0] && !x->carbon_note[0])
        snprintf(x->carbon_note, sizeof x->carbon_note, "%s", it->carbon);
    else if (it->carbon[0] && strcmp(it->carbon, x->carbon_note))
        x->carbon_varies = true;
    x->cnt.done += it->pt.n;
    if (!rc && x->deadline_s > 0 && clock_monotonic_s() > x->deadline_s) {
        snprintf(x->err.msg, sizeof x->err.msg, "the time limit was reached after %ld points", x->cnt.done);
        x->failed = true;
        rc = -1;
    }
    for (int j = 0; j < it->pt.n; j++)
        free(it->row[j]);
    sweep_point_release(&it->pt);
    stage_progress_update(&x->progress, x->cnt.done);
    return rc;
}


/* Runs every point of the shard through the ordered pool; x->failed and
 * x->err on failure. */
void run_points(struct sweep_ctx *x, const struct sweep_plan *plan, long jobs)
{
    const struct stage_progress *p = &x->progress;
    if (p->on)
        stage_progress_begin(p, sweep_enum_count(&x->en));
    struct ordered_pool_ops ops = { x, ctx_next, ctx_work, ctx_emit, ctx_discard };
    size_t window = (size_t)(jobs < 4 ? 64 : 16 * jobs);
    if (ordered_pool_run(&ops, sizeof(struct item), (int)jobs, window) && !x->failed) {
        snprintf(x->err.msg, sizeof x->err.msg, "cannot start the worker threads");
        x->failed = true;
    }
    if (!x->failed)
        flush_held(x);   /* the last bundle's */
    /* A shard's summary ends with what merge needs to prove the union
     * whole: which shard it is and how many points the sweep has. */
    if (!x->failed && x->want_row && plan->shard_n > 1 &&
        fprintf(x->summary, "%s%ld/%ld points %ld\n", SUMMARY_SHARD_MARK, plan->shard_k + 1, plan->shard_n,
                sweep_enum_total(&x->en)) < 0) {
        snprintf(x->err.msg, sizeof x->err.msg, "%s: write failed", x->o->summary);
        x->failed = true;
    }
    stage_progress_end(p);
}
/* Opens the summary file and writes its header (summary rows only). */
int open_summary(struct sweep_ctx *x, struct atomic_file *af, const struct sweep_spec *spec, struct npu_err *e)
{
    if (atomic_open(af, x->o->summary, e))
        return -1;
    x->summary = af->f;
    if (fputs(row_header(spec->fields, spec->nfields), x->summary) == EOF) {
        snprintf(x->err.msg, sizeof x->err.msg, "%s: write failed", x->o->summary);
        x->failed = true;
    }
    return 0;
}

void sweep_ctx_free(struct sweep_ctx *x)
{
    sweep_enum_free(&x->en);
    for (int pos = 0; pos < SWEEP_BUNDLE_MAX; pos++)
        free(x->held[pos].s);
}

/* The spec's names as the plan's lists (pointers into the spec). */
static int plan_from_spec(const struct sweep_spec *spec, const char *configs, struct sweep_plan *plan,
                          const char **names, int max, struct npu_err *e)
{
    memset(plan, 0, sizeof *plan);
    plan->configs = configs;
    plan->workload = spec->workload ? spec->workload : "inference";
    plan->fields = spec->fields;
    plan->nfields = spec->nfields;
    plan->num_chips = spec->num_chips;
    plan->batches = spec->batches;
    plan->shard_n = 1;
    plan->bundle_max = SWEEP_BUNDLE_MAX;
    plan->nmodels = spec->models ? cJSON_GetArraySize(spec->models) : 0;
    plan->nchips = spec->chips ? cJSON_GetArraySize(spec->chips) : 0;
    if (!plan->nmodels || !plan->nchips || !plan->num_chips.count || !plan->batches.count)
        return npu_errf(e, "expected models, chips, num_chips and batch_sizes in the spec");
    if (plan->nmodels + plan->nchips > max)
        return npu_errf(e, "expected at most %d models and chips together", max);
    for (int i = 0; i < plan->nmodels; i++)
        names[i] = cJSON_GetArrayItem(spec->models, i)->valuestring;
    for (int i = 0; i < plan->nchips; i++)
        names[plan->nmodels + i] = cJSON_GetArrayItem(spec->chips, i)->valuestring;
    plan->models = names;
    plan->chips = names + plan->nmodels;
    return 0;
}

int sweep_summary_text(const struct sweep_spec *spec, const char *configs, bool only_configs,
                       const struct profile *prof, long max_points, double deadline_s, char **csv, struct sweep_count *cnt,
                       char carbon_note[SWEEP_CARBON_NOTE_MAX], struct npu_err *e)
{
    const char *names[64];
    struct sweep_plan plan;
    *csv = NULL;
    if (plan_from_spec(spec, configs, &plan, names, 64, e))
        return -1;
    plan.only_configs = only_configs;
    /* every chip count has at least one parallel configuration: a bound
     * before the enumeration, which a huge range would make slow */
    double bound = (double)plan.nmodels * plan.nchips * (double)spec_ints_count(&plan.num_chips) *
                   (double)spec_ints_count(&plan.batches);
    for (int f = 0; f < plan.nfields; f++)
        bound *= (double)(spec->fields[f].list ? cJSON_GetArraySize(spec->fields[f].list) : spec->fields[f].count);
    if (bound > (double)max_points)
        return npu_errf(e, "the sweep has at least %.0f points; expected at most %ld", bound, max_points);
    /* Carbon inputs: the system config's (util and lifetime 0: not given). */
    struct sweep_opts o = { .out = "", .summary = "sweep", .prof = prof };
    pg_strategy_default(&o.pg);
    snprintf(o.pg.name, sizeof o.pg.name, "NoPG");
    o.dvfs = DVFS_NONE;
    struct sweep_ctx x;
    memset(&x, 0, sizeof x);
    for (int pos = 0; pos < SWEEP_BUNDLE_MAX; pos++)
        x.held[pos] = STRBUF_GROWING;
    x.o = &o;
    x.want_row = true;
    x.deadline_s = deadline_s;
    size_t len = 0;
    int rc = sweep_enum_init(&x.en, &plan, e);
    long points = rc ? 0 : sweep_enum_total(&x.en);
    if (!rc && points > max_points)
        rc = npu_errf(e, "the sweep has %ld points; expected at most %ld", points, max_points);
    if (!rc && !(x.summary = open_memstream(csv, &len)))
        rc = npu_errf(e, "out of memory");
    if (!rc && fputs(row_header(spec->fields, spec->nfields), x.summary) == EOF)
        rc = npu_errf(e, "out of memory");
    if (!rc)
        run_points(&x, &plan, 1);
    if (x.summary && fclose(x.summary))
        rc = rc ? rc : npu_errf(e, "out of memory");
    if (!rc && x.failed)
        rc = npu_errf(e, "%s", x.err.msg);
    *cnt = x.cnt;
    snprintf(carbon_note, SWEEP_CARBON_NOTE_MAX, "%s", x.carbon_note);
    sweep_ctx_free(&x);
    if (rc) {
        free(*csv);
        *csv = NULL;
    }
    return rc ? -1 : 0;
}
