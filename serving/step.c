/* step.c — one serving pass's time (see step.h). Main data structures: the
 * per-form tables of token-linear and LM-head costs by n, and an
 * open-addressing table of attention-core costs by shape. */
#include "serving/step.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/checked.h"
#include "chipsim/chipsim.h"
#include "power/energy.h"
#include "power/powercap.h"

/* The token-linear and head costs of n one-token sequences, one form. */
struct lin_entry { struct step_cost lin, head; bool done; };

struct attn_key { int64_t decode, batch, a, b, c; };
struct attn_slot { struct attn_key k; struct step_cost c; bool used; };

struct step_memo {
    struct lin_entry *lin[2];          /* [0] prefill form, [1] decode form; by n */
    int64_t lin_cap[2];
    struct attn_slot *attn;
    size_t attn_cap, attn_n;
};

int serving_step_init(struct serving_step *s, const struct family *fam, const struct loaded_config *c,
                      const struct profile *prof, struct npu_err *e)
{
    memset(s, 0, sizeof *s);
    if (!fam->step_attention || !fam->mem_parts || !fam->gen)
        return npu_errf(e, "%s: the serving engine simulates LLM inference only", c->model_name);
    if (c->model.cached_prompt_tokens > 0)   /* a static batch's condition; requests carry their own prompts */
        return npu_errf(e, "%s: model field \"cached_prompt_tokens\" %lld: the serving engine has no prefix cache; "
                           "expected 0", c->model_name, (long long)c->model.cached_prompt_tokens);
    s->fam = fam;
    s->c = *c;
    s->c.strict = false;
    s->prof = prof;
    s->memo = true;
    config_links(&c->chip, &s->links);
    bool ovf = false;
    (void)llm_host_ns(&c->chip, &c->model, 1, prof, &ovf);   /* the fields in scale, said here once */
    s->pp = c->model.pipeline_parallelism_degree;
    s->pp_dcn = c->model.pipeline_parallel_degree_dcn;
    if (!(s->m = calloc(1, sizeof *s->m)))
        return npu_errf(e, "out of memory");
    return ovf ? npu_errf(e, "%s: chip fields \"step_overhead_ns\", \"layer_overhead_ns\" and \"request_overhead_ns\" "
                             "are out of scale",
                          c->chip_name) : 0;
}

void serving_step_free(struct serving_step *s)
{
    if (s->m) {
        free(s->m->lin[0]);
        free(s->m->lin[1]);
        free(s->m->attn);
        free(s->m);
    }
    s->m = NULL;
}

/* Adds op's count-weighted time to the part it belongs to, its energy, and
 * its power to the peak. */
static void add_op(struct step_cost *to, const struct op *op, bool *ovf)
{
    int64_t x = ck_mul(op->exe_ns, op->count, ovf);
    if (strstr(op->description, "Pipeline"))
        *(strstr(op->description, "DCN") ? &to->pp_dcn_ns : &to->pp_ici_ns) += x;
    else
        to->stage_ns = ck_add(to->stage_ns, x, ovf);
    double J = op_static_energy_J(op) + op_dynamic_energy_J(op);
    to->energy_J += J * (double)op->count;
    if (op->exe_ns > 0 && J / (double)op->exe_ns * 1e9 > to->peak_W)
        to->peak_W = J / (double)op->exe_ns * 1e9;
}

static void cost_add(struct step_cost *to, const struct step_cost *x, bool *ovf)
{
    to->stage_ns = ck_add(to->stage_ns, x->stage_ns, ovf);
    to->pp_ici_ns = ck_add(to->pp_ici_ns, x->pp_ici_ns, ovf);
    to->pp_dcn_ns = ck_add(to->pp_dcn_ns, x->pp_dcn_ns, ovf);
    to->energy_J += x->energy_J;
    if (x->peak_W > to->peak_W)
        to->peak_W = x->peak_W;
}

/* The energy pass of a power-gating strategy and DVFS policy, as `npusim
 * run --pg --dvfs` applies it. */
static int energy_pass(struct serving_step *s, struct trace *t, struct npu_err *e)
{
    power_reclassify_ops(t);
    return power_energy_pass(t, &s->c.chip, s->pg, s->dvfs, s->prof, e);
}

/* The token-linear and head costs of n one-token sequences in one form:
 * the family's trace of that batch (prompts of one token, one decode step),
 * timed, its attention core and KV swap left out. */
static int lin_compute(struct serving_step *s, int form, int64_t n, struct lin_entry *out, struct npu_err *e)
{
    struct loaded_config c = s->c;
    c.model.microbatch_size_ici = n;
    c.model.input_seqlen = 1;
    c.model.output_seqlen = 1;
    struct trace t;
    trace_init(&t);
    /* timed as run's: the energy pass included, the strategy's when given */
    int rc = pipeline_run(s->fam, &c, s->prof, !s->pg, &t, e) || (s->pg && energy_pass(s, &t, e)) ? -1 : 0;
    bool ovf = false;
    *out = (struct lin_entry){ .done = true };
    enum phase want = form ? PHASE_DECODE : PHASE_PREFILL;
    for (size_t i = 0; !rc && i < t.n; i++) {
        const struct op *op = &t.ops[i];
        if (op->phase != want || opsgen_op_is_attention_core(op) || strstr(op->description, "MemSwap"))
            continue;
        add_op(opsgen_op_is_lm_head(op) ? &out->head : &out->lin, op, &ovf);
    }
    trace_free(&t);
    s->misses++;
    if (!rc && ovf)
        rc = npu_errf(e, "%s: a pass of %lld tokens takes over 2^63 ns", s->c.model_name, (long long)n);
    return rc;
}

static int lin_get(struct serving_step *s, int form, int64_t n, struct lin_entry *out, struct npu_err *e)
{
    if (!s->memo)
        return lin_compute(s, form, n, out, e);
    struct step_memo *m = s->m;
    if (n >= m->lin_cap[form]) {
        int64_t cap = m->lin_cap[form] ? m->lin_cap[form] : 64;
        while (cap <= n)
            cap *= 2;
        struct lin_entry *p = realloc(m->lin[form], (size_t)cap * sizeof *p);
        if (!p)
            return npu_errf(e, "out of memory");
        memset(p + m->lin_cap[form], 0, (size_t)(cap - m->lin_cap[form]) * sizeof *p);
        m->lin[form] = p;
        m->lin_cap[form] = cap;
    }
    struct lin_entry *x = &m->lin[form][n];
    if (!x->done && lin_compute(s, form, n, x, e)) {
        x->done = false;
        return -1;
    }
    *out = *x;
    return 0;
}

/* The attention core of one group, timed in the pass's form. */
static int attn_compute(struct serving_step *s, const struct opsgen_step_attn *a, bool decode_form,
                        struct step_cost *out, struct npu_err *e)
{
    struct trace t;
    trace_init(&t);
    bool ovf = false;
    int rc = s->fam->step_attention(&s->c.model, &s->links, s->prof, a, &t, &ovf, e);
    for (size_t i = 0; i < t.n; i++)
        t.ops[i].phase = decode_form ? PHASE_DECODE : PHASE_PREFILL;
    if (!rc)
        rc = chipsim_run(&t, &s->c.chip, s->prof, e) || power_cap_pass(&t, &s->c.chip, s->prof, e) ||
             (s->pg ? energy_pass(s, &t, e) : power_default_pass(&t, &s->c.chip, s->prof, e)) ? -1 : 0;
    *out = (struct step_cost){ 0 };
    for (size_t i = 0; !rc && i < t.n; i++)
        add_op(out, &t.ops[i], &ovf);
    trace_free(&t);
    s->misses++;
    if (!rc && ovf)
        rc = npu_errf(e, "%s: an attention pass takes over 2^63 ns (contexts out of scale)", s->c.model_name);
    return rc;
}

static uint64_t attn_hash(const struct attn_key *k)
{
    const int64_t *w = &k->decode;
    uint64_t h = 1469598103934665603ull;
    for (int i = 0; i < 5; i++)
        h = (h ^ (uint64_t)w[i]) * 1099511628211ull;
    return h ^ (h >> 29);
}

static int attn_get(struct serving_step *s, const struct opsgen_step_attn *a, bool decode_form,
                    struct step_cost *out, struct npu_err *e)
{
    if (!s->memo)
        return attn_compute(s, a, decode_form, out, e);
    struct step_memo *m = s->m;
    struct attn_key k = { a->decode | (decode_form ? 2 : 0), a->batch, a->decode ? a->prefix : a->q,
                          a->decode ? a->suffix : a->kv, a->decode ? 0 : a->att };
    if (2 * (m->attn_n + 1) > m->attn_cap) {   /* at most half full */
        size_t cap = m->attn_cap ? 2 * m->attn_cap : 1024;
        struct attn_slot *p = calloc(cap, sizeof *p);
        if (!p)
            return npu_errf(e, "out of memory");
        for (size_t i = 0; i < m->attn_cap; i++)
            if (m->attn[i].used) {
                size_t j = attn_hash(&m->attn[i].k) & (cap - 1);
                while (p[j].used)
                    j = (j + 1) & (cap - 1);
                p[j] = m->attn[i];
            }
        free(m->attn);
        m->attn = p;
        m->attn_cap = cap;
    }
    size_t j = attn_hash(&k) & (m->attn_cap - 1);
    while (m->attn[j].used && memcmp(&m->attn[j].k, &k, sizeof k))
        j = (j + 1) & (m->attn_cap - 1);
    if (m->attn[j].used) {
        *out = m->attn[j].c;
        return 0;
    }
    if (attn_compute(s, a, decode_form, out, e))
        return -1;
    m->attn[j] = (struct attn_slot){ k, *out, true };
    m->attn_n++;
    return 0;
}

/* The context grid of the decode attention (see step.h): every length to
 * 32, then 16 points an octave. *lo <= x < *hi (or *lo == x), both on it. */
static void grid_of(double x, int64_t *lo, int64_t *hi)
{
    int64_t f = (int64_t)floor(x), step = 1;
    for (int64_t top = 32; f >= top; top *= 2)   /* [32 * 2^k, 64 * 2^k): steps of 2^(k+1) */
        step *= 2;
    *lo = f / step * step;
    *hi = (double)*lo == x ? *lo : *lo + step;
}

/* The decode group's attention: at the mean prompt and generated lengths,
 * interpolated bilinearly between the grid's points around them (exact on
 * the grid, where the memo keeps each point). */
static int decode_attention(struct serving_step *s, const struct serving_batch *b, bool decode_form,
                            struct step_cost *out, struct npu_err *e)
{
    double P = (double)b->decode_prompt_sum / (double)b->decodes, S = (double)b->decode_gen_sum / (double)b->decodes;
    if (S < 1)
        S = 1;
    int64_t p[2], q[2];
    grid_of(P, &p[0], &p[1]);
    grid_of(S, &q[0], &q[1]);
    double wp = p[1] > p[0] ? (P - (double)p[0]) / (double)(p[1] - p[0]) : 0;
    double wq = q[1] > q[0] ? (S - (double)q[0]) / (double)(q[1] - q[0]) : 0;
    double ns = 0;
    *out = (struct step_cost){ 0 };
    for (int i = 0; i < 2; i++)
        for (int j = 0; j < 2; j++) {
            double w = (i ? wp : 1 - wp) * (j ? wq : 1 - wq);
            if (w == 0)
                continue;
            struct opsgen_step_attn a = { .decode = true, .batch = b->decodes, .prefix = p[i], .suffix = q[j] };
            struct step_cost t;
            if (attn_get(s, &a, decode_form, &t, e))
                return -1;
            ns += w * (double)t.stage_ns;
            out->energy_J += w * t.energy_J;
            if (t.peak_W > out->peak_W)
                out->peak_W = t.peak_W;
        }
    out->stage_ns = (int64_t)llround(ns);
    return 0;
}

/* x / n rounded to the nearest integer (n > 0, x >= 0). */
static int64_t div_round(int64_t x, int64_t n) { return (x + n / 2) / n; }

int serving_step_time(struct serving_step *s, const struct serving_batch *b, struct serving_pass_cost *pc,
                      struct npu_err *e)
{
    bool decode_form = b->chunks == 0;
    int64_t tokens = b->decodes + b->chunk_tokens;
    struct lin_entry lin = { 0 }, head = { 0 };
    if (tokens > 0 && lin_get(s, decode_form, tokens, &lin, e))
        return -1;
    if (b->emits > 0 && b->emits != tokens && lin_get(s, decode_form, b->emits, &head, e))
        return -1;
    if (b->emits == tokens)
        head = lin;
    bool ovf = false;
    struct step_cost c = lin.lin, t;
    if (b->emits > 0)
        cost_add(&c, &head.head, &ovf);
    if (b->decodes > 0) {
        if (decode_attention(s, b, decode_form, &t, e))
            return -1;
        cost_add(&c, &t, &ovf);
    }
    if (b->chunks > 0) {
        int64_t q = div_round(b->chunk_tokens, b->chunks);
        struct opsgen_step_attn a = { .decode = false, .batch = b->chunks, .q = q > 0 ? q : 1,
                                      .kv = div_round(b->chunk_kv_sum, b->chunks),
                                      .att = div_round(b->chunk_att_sum, b->chunk_tokens > 0 ? b->chunk_tokens : 1) };
        if (a.att < 1)
            a.att = 1;
        if (attn_get(s, &a, false, &t, e))
            return -1;
        cost_add(&c, &t, &ovf);
    }
    /* As `npusim run`'s TTFT: the stages one after another with their ICI
     * transfers, the DCN stages likewise, then the host's time. */
    int64_t stage = ck_add(c.stage_ns, c.pp_ici_ns, &ovf);
    int64_t ns = ck_mul(ck_add(ck_mul(stage, s->pp, &ovf), c.pp_dcn_ns, &ovf), s->pp_dcn, &ovf);
    int64_t host = llm_host_ns(&s->c.chip, &s->c.model, b->decodes + b->chunks, s->prof, &ovf);
    ns = ck_add(ns, host, &ovf);
    if (ovf)
        return npu_errf(e, "%s: a pass takes over 2^63 ns", s->c.model_name);
    *pc = (struct serving_pass_cost){ .ns = ns > 0 ? ns : 1, .busy_ns = ck_add(stage, c.pp_dcn_ns, &ovf),
                                      .energy_J = c.energy_J, .peak_W = c.peak_W, .host_ns = host,
                                      .stage_ns = stage, .dcn_ns = c.pp_dcn_ns };
    return 0;
}
