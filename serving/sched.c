/* sched.c — a replica's schedulers: which requests its next pass holds and
 * how many tokens each, the KV blocks they take, preemption, and what a
 * finished pass leaves (tokens emitted, requests done or handed over). See
 * engine.h for the policies. Main data structure: struct replica
 * (engine_internal.h), its waiting queue, running list and current pass. */
#include "serving/engine_internal.h"

#include <string.h>

#include "base/checked.h"

static bool decoding(const struct sreq *q) { return q->cached >= q->target && q->generated > 0; }

/* A disaggregated prefill pool's replica: prompts only; each request leaves
 * for the decode pool with its first token. */
static bool prefill_pool(const struct engine *g, const struct replica *r)
{
    return g->o->scheduler == SCHED_DISAGGREGATED && r->pool == 0;
}

/* Takes blocks so that q holds those of `tokens`; false when the cache lacks them. */
static bool take_blocks(struct replica *r, struct sreq *q, int64_t need)
{
    if (need <= q->blocks)
        return true;
    if (r->kv_used + need - q->blocks > r->kv_total)
        return false;
    r->kv_used += need - q->blocks;
    q->blocks = need;
    return true;
}

static void drop_blocks(struct replica *r, struct sreq *q)
{
    r->kv_used -= q->blocks;
    q->blocks = 0;
}

/* The newest running request leaves the cache: recomputed later from its
 * prompt and answer so far, or (swap) its blocks sent to host memory; it
 * waits at the front of the queue. Returns the PCIe time it adds. */
static int64_t preempt_newest(struct engine *g, struct replica *r, struct npu_err *e, int *rc)
{
    int i = r->running.v[r->running.n - 1];
    struct sreq *q = &g->slab[i];
    int64_t ns = 0;
    ilist_remove_at(&r->running, r->running.n - 1);
    if (g->o->swap && decoding(q)) {
        ns = q->blocks * g->o->swap_ns_per_block;
        q->swapped = true;
    } else {
        q->target = q->r.input_tokens + q->generated;
        q->cached = 0;
    }
    drop_blocks(r, q);
    q->preemptions++;
    g->tot->preemptions++;
    r->kv_wanted += blocks_for(g, q->swapped ? q->cached + 1 : q->target);
    if (ilist_push_front(&r->waiting, i))
        *rc = npu_errf(e, "serving: out of memory");
    return ns;
}

static void add_decode(struct engine *g, struct replica *r, int i, struct serving_batch *b)
{
    struct sreq *q = &g->slab[i];
    q->chunk = 1;
    b->decodes++;
    b->decode_prompt_sum += q->r.input_tokens;
    b->decode_gen_sum += q->cached + 1 - q->r.input_tokens;
    b->emits++;
    ilist_push(&r->pass, i);
}

static void add_chunk(struct engine *g, struct replica *r, int i, int64_t c, struct serving_batch *b)
{
    struct sreq *q = &g->slab[i];
    q->chunk = c;
    b->chunks++;
    b->chunk_tokens += c;
    b->chunk_att_sum += c * (q->cached + (c + 1) / 2);
    b->chunk_kv_sum += q->cached + c;
    b->emits += q->cached + c == q->target;
    ilist_push(&r->pass, i);
}

/* The blocks q takes as it joins r's running list with `c` prompt tokens
 * in the pass: those tokens' (a swapped one: its blocks back), or under
 * guaranteed-no-evict the ones it is promised, so that it never runs short
 * (a disaggregated prefill pool's: its prompt's). */
static int64_t joining_blocks(const struct engine *g, const struct replica *r, const struct sreq *q, int64_t c)
{
    if (g->o->capacity == CAPACITY_GUARANTEED_NO_EVICT)
        return blocks_for(g, prefill_pool(g, r) ? q->r.input_tokens : promised_tokens(g, q));
    return blocks_for(g, q->swapped ? q->cached : q->cached + c);
}

/* The waiting head joins the running list if the pass and the cache have
 * room for `c` of its prompt tokens (a swapped one: its blocks back). */
static bool admit_head(struct engine *g, struct replica *r, int64_t c, int64_t *swap_ns)
{
    int i = r->waiting.v[0];
    struct sreq *q = &g->slab[i];
    int64_t want = q->swapped ? q->cached + 1 : q->target;
    if (!take_blocks(r, q, joining_blocks(g, r, q, c)))
        return false;
    r->kv_wanted -= blocks_for(g, want);
    ilist_remove_at(&r->waiting, 0);
    ilist_push(&r->running, i);
    if (q->first_sched_ns < 0)
        q->first_sched_ns = g->now;
    if (q->swapped) {
        *swap_ns += q->blocks * g->o->swap_ns_per_block;
        q->swapped = false;
    }
    return true;
}

/* Whether waiting request q may join the pass r is forming: under async
 * scheduling only one queued by the time the pass was scheduled. */
static bool queued_in_time(const struct engine *g, const struct replica *r, const struct sreq *q)
{
    return !g->o->async_scheduling || q->queued_ns <= r->sched_ns;
}

/* True when a new prompt may not join r's pass: no more than admit_kv_free
 * of its KV blocks are free as the pass is formed (engine.h). Only prompt
 * tokens wait: a swapped request coming back, or a decode pool's arrival
 * with its cache moved in, has none to compute. */
static bool admission_held(const struct engine *g, const struct replica *r)
{
    double f = g->o->admit_kv_free;
    return f > 0 && (double)(r->kv_total - r->kv_used) <= f * (double)r->kv_total;
}

/* Every running decode of r in the pass, each with its next block, the
 * newest preempted while one is short; at most `budget` of them. */
static int64_t decodes_in(struct engine *g, struct replica *r, struct serving_batch *b, int64_t budget,
                          struct npu_err *e, int *rc)
{
    int64_t ns = 0;
    for (int j = 0; j < r->running.n && b->decodes < budget && !*rc; j++) {
        struct sreq *q = &g->slab[r->running.v[j]];
        if (!decoding(q))
            continue;
        while (!take_blocks(r, q, blocks_for(g, q->cached + 1)) && !*rc) {
            bool self = r->running.v[r->running.n - 1] == r->running.v[j];
            ns += preempt_newest(g, r, e, rc);
            if (self)
                return ns;
        }
        if (j < r->running.n)
            add_decode(g, r, r->running.v[j], b);
    }
    return ns;
}

/* continuous: whole prompts first (decode-ready arrivals of a decode pool
 * join at once), else a decode pass. */
static int64_t form_continuous(struct engine *g, struct replica *r, struct serving_batch *b, struct npu_err *e,
                               int *rc)
{
    const struct serving_options *o = g->o;
    int64_t ns = 0, tokens = 0;
    bool one = o->scheduler == SCHED_PADDED;   /* one prompt a prefill pass */
    bool held = admission_held(g, r);
    while (r->waiting.n > 0 && r->running.n < o->max_num_seqs && !(one && b->chunks > 0)) {
        struct sreq *q = &g->slab[r->waiting.v[0]];
        int64_t c = q->swapped ? 0 : q->target - q->cached;
        if ((held && c > 0) || tokens + c > o->max_num_batched_tokens || !queued_in_time(g, r, q) ||
            !admit_head(g, r, c, &ns))
            break;
        if (c > 0)
            add_chunk(g, r, r->running.v[r->running.n - 1], c, b);
        tokens += c;
    }
    if (b->chunks == 0 && !prefill_pool(g, r))
        ns += decodes_in(g, r, b, INT64_MAX, e, rc);
    return ns;
}

/* chunked: decodes first, then the prompts in progress, then waiting ones,
 * cut to the budget; inflight: a waiting prompt whole or not yet, unless
 * it is above the whole budget. */
static int64_t form_chunked(struct engine *g, struct replica *r, struct serving_batch *b, struct npu_err *e,
                            int *rc)
{
    const struct serving_options *o = g->o;
    int64_t budget = o->max_num_batched_tokens;
    int64_t ns = decodes_in(g, r, b, budget, e, rc);
    budget -= b->decodes;
    for (int j = 0; j < r->running.n && budget > 0; j++) {
        struct sreq *q = &g->slab[r->running.v[j]];
        if (q->cached >= q->target)
            continue;
        int64_t c = q->target - q->cached < budget ? q->target - q->cached : budget;
        if (!take_blocks(r, q, blocks_for(g, q->cached + c)))
            break;
        add_chunk(g, r, r->running.v[j], c, b);
        budget -= c;
    }
    bool held = admission_held(g, r);   /* as vLLM: after the running ones took their blocks */
    bool whole = o->scheduler == SCHED_INFLIGHT;
    while (budget > 0 && r->waiting.n > 0 && r->running.n < o->max_num_seqs) {
        struct sreq *q = &g->slab[r->waiting.v[0]];
        int64_t rest = q->swapped ? 0 : q->target - q->cached, c = rest < budget ? rest : budget;
        if ((held && c > 0) || (whole && c < rest && rest <= o->max_num_batched_tokens) ||
            !queued_in_time(g, r, q) || !admit_head(g, r, c, &ns))
            break;
        if (c > 0)
            add_chunk(g, r, r->running.v[r->running.n - 1], c, b);
        budget -= c;
    }
    return ns;
}

/* static: a new batch's prompts (each reserving its whole context), or the
 * batch's next decode step with its finished members as padding. */
static void form_static(struct engine *g, struct replica *r, struct serving_batch *b)
{
    if (r->running.n == 0) {
        r->pad_n = r->pad_prompt_sum = r->pad_gen_sum = 0;
        while (r->waiting.n > 0 && r->running.n < g->o->batch) {
            struct sreq *q = &g->slab[r->waiting.v[0]];
            int64_t ns = 0;
            if (!take_blocks(r, q, blocks_for(g, q->r.input_tokens + q->r.output_tokens)) ||
                !admit_head(g, r, q->target, &ns))
                break;
            add_chunk(g, r, r->running.v[r->running.n - 1], q->target, b);
        }
        return;
    }
    for (int j = 0; j < r->running.n; j++)
        add_decode(g, r, r->running.v[j], b);
    b->decodes += r->pad_n;
    b->decode_prompt_sum += r->pad_prompt_sum;
    b->decode_gen_sum += r->pad_gen_sum;
}

/* What a pass of the padded scheduler computes (engine.h): its one prompt
 * padded to the next power of two from 16, causal over the padding; or
 * every one of max_num_seqs slots decoding over the whole max_context
 * cache, the LM head over every slot. */
static struct serving_batch padded_shapes(const struct serving_options *o, const struct serving_batch *b)
{
    struct serving_batch x = *b;
    if (b->chunks > 0) {
        int64_t pad = 16;
        while (pad < b->chunk_tokens && pad < INT64_MAX / 2)
            pad *= 2;
        x.chunk_tokens = pad;
        x.chunk_att_sum = pad / 2 * (pad + 1);   /* pad (pad + 1) / 2, pad a power of two */
        x.chunk_kv_sum = pad;
        return x;
    }
    x.decodes = x.emits = o->max_num_seqs;
    x.decode_prompt_sum = o->max_num_seqs * (o->max_context - 1);
    x.decode_gen_sum = o->max_num_seqs;
    return x;
}

/* J, a pass's energy, into the run's totals (and its highest power) and
 * shared among its requests by their tokens in it. */
static void charge_pass(struct engine *g, struct replica *r, const struct serving_pass_cost *pc, double J)
{
    g->tot->pass_energy_J += J;
    if (pc->peak_W > g->tot->peak_W)
        g->tot->peak_W = pc->peak_W;
    int64_t tokens = 0;
    for (int k = 0; k < r->pass.n; k++)
        tokens += g->slab[r->pass.v[k]].chunk;
    for (int k = 0; tokens > 0 && k < r->pass.n; k++) {
        struct sreq *q = &g->slab[r->pass.v[k]];
        q->energy_J += J * (double)q->chunk / (double)tokens;
    }
}

/* A pipelined replica's pass (its microbatches share the stages): it
 * enters the first stage after the host's time and any swap-in, and each
 * stage when the pass before it has left (first in, first out). A stage's
 * chips idle between passes, gated when the gap outlasts the wake-up,
 * which then delays the pass there. Its energy is its operators' on every
 * chip and the part of each stage's gap before it that the replica spent
 * with passes in flight (the pipeline's bubbles); the part with none in
 * flight, from the last pass's end to now, is idle energy, as between
 * passes of an unpipelined replica. Every pass leaves each stage after the
 * last did, so a stage's gap starts while that last pass is in flight.
 * *ns becomes its time from now to its end and *busy the time it adds to
 * the replica's busy time. extra_ns: the swap-ins before the first stage. */
static double pass_piped(struct engine *g, struct replica *r, const struct serving_pass_cost *pc, int64_t extra_ns,
                         int64_t *ns, int64_t *busy, bool *ovf)
{
    const struct serving_pool *p = &g->pools[r->pool];
    struct pipe *pp = r->pipe;
    int64_t group = p->step->pp;   /* ICI stages between DCN transfers */
    int64_t t = ck_add(ck_add(g->now, pc->host_ns, ovf), extra_ns, ovf);
    int64_t idle_ns = g->now > pp->busy_until ? g->now - pp->busy_until : 0;
    double J = (double)p->chips * pc->energy_J;
    for (int s = 0; s < pp->stages; s++) {
        int64_t begin = t > pp->free_ns[s] ? t : pp->free_ns[s], gap = begin - pp->free_ns[s];
        bool gated;
        double gap_J = engine_stage_idle_J(p, pp, s, begin, &gated);
        double idle_J = gap > 0 ? gap_J * (double)(idle_ns < gap ? idle_ns : gap) / (double)gap : 0;
        g->tot->idle_energy_J += idle_J;
        J += gap_J - idle_J;
        if (gated) {
            begin = ck_add(begin, p->wake_ns, ovf);
            g->tot->wakeups++;
        }
        t = ck_add(begin, ck_add(pc->stage_ns, s % group == group - 1 ? pc->dcn_ns : 0, ovf), ovf);
        pp->free_ns[s] = t;
    }
    *busy = t - (pp->busy_until > g->now ? pp->busy_until : g->now);
    pp->busy_until = t;
    *ns = t - g->now;
    charge_pass(g, r, pc, J);
    return J;
}

/* The pass's energy on every chip of the replica (its operators, and idle
 * power for the rest of its ns), shared among its requests by their tokens
 * in it; the gap before it at idle power. */
static double pass_energy(struct engine *g, struct replica *r, const struct serving_pass_cost *pc, int64_t *ns)
{
    const struct serving_pool *p = &g->pools[r->pool];
    bool ovf = false, gated;
    engine_idle_until(g, r, g->now);
    if (r->wake_pending) {   /* gated since its last pass */
        *ns = ck_add(*ns, p->wake_ns, &ovf);
        g->tot->wakeups++;
        r->wake_pending = false;
    }
    double idle_J = engine_idle_J(p, *ns > pc->busy_ns ? *ns - pc->busy_ns : 0, &gated);
    if (gated) {             /* its chips gated inside the pass (the host's time, the other stages') */
        *ns = ck_add(*ns, p->wake_ns, &ovf);
        g->tot->wakeups++;
    }
    r->idle_from_ns = g->now + *ns;
    double J = (double)p->chips * (pc->energy_J + idle_J);
    charge_pass(g, r, pc, J);
    return J;
}

/* The pass r starts now into b; its extra time (swaps) in *extra_ns. */
static int form(struct engine *g, struct replica *r, struct serving_batch *b, int64_t *extra_ns,
                struct npu_err *e)
{
    int rc = 0;
    memset(b, 0, sizeof *b);
    r->pass.n = 0;
    switch (g->o->scheduler) {
    case SCHED_STATIC: form_static(g, r, b); break;
    case SCHED_CHUNKED:
    case SCHED_INFLIGHT: *extra_ns = form_chunked(g, r, b, e, &rc); break;
    default: *extra_ns = form_continuous(g, r, b, e, &rc); break;
    }
    return rc;
}

int sched_start(struct engine *g, struct replica *r, struct npu_err *e)
{
    struct serving_batch b;
    int64_t extra_ns = 0;
    /* Async scheduling planned this pass as the last one started, when it
     * runs on from it; with nothing planned the replica schedules at once. */
    bool on = g->o->async_scheduling && r->end_ns == g->now && r->start_ns < r->end_ns;
    r->sched_ns = on ? r->start_ns : g->now;
    int rc = form(g, r, &b, &extra_ns, e);
    if (!rc && r->pass.n == 0 && r->sched_ns < g->now) {
        r->sched_ns = g->now;
        rc = form(g, r, &b, &extra_ns, e);
    }
    if (rc || r->pass.n == 0)
        return rc;
    struct serving_pass_cost pc;
    struct serving_batch cost = g->o->scheduler == SCHED_PADDED ? padded_shapes(g->o, &b) : b;
    if (serving_step_time(g->pools[r->pool].step, &cost, &pc, e))
        return -1;
    bool ovf = false;
    int64_t ns = ck_add(pc.ns, extra_ns, &ovf), busy = ns;
    double J = r->pipe ? pass_piped(g, r, &pc, extra_ns, &ns, &busy, &ovf) : pass_energy(g, r, &pc, &ns);
    r->busy = true;
    r->start_ns = g->now;
    r->end_ns = ck_add(g->now, ns, &ovf);
    if (ovf)
        return npu_errf(e, "serving: the simulated time passed 2^63 ns");
    struct serving_totals *t = g->tot;
    t->passes++;
    t->pass_tokens += b.decodes - r->pad_n + b.chunk_tokens;
    t->busy_ns += busy;
    double u = (double)r->kv_used / (double)r->kv_total;
    if (u > t->kv_peak_utilisation)
        t->kv_peak_utilisation = u;
    struct serving_pass_record p = { r->index, r->micro, (int)g->pools[r->pool].microbatches, g->now, ns,
                                     b.chunk_tokens, b.decodes - (b.chunks ? 0 : r->pad_n), r->pass.n, r->kv_used,
                                     r->kv_total, J };
    return g->sink->pass ? g->sink->pass(g->sink->arg, &p, e) : 0;
}

/* Request i emitted a token at g->now: done, handed over, or on. One that
 * leaves is marked, and sched_finish takes the marked ones out of the
 * running list in one sweep (a search per token was a fifth of the time). */
static int emitted(struct engine *g, struct replica *r, int i, struct npu_err *e)
{
    struct sreq *q = &g->slab[i];
    q->generated++;
    q->last_token_ns = g->now;
    if (q->first_token_ns < 0)
        q->first_token_ns = g->now;
    if (q->generated >= q->r.output_tokens) {
        if (g->o->scheduler == SCHED_STATIC) {   /* padding until the batch ends */
            r->pad_n++;
            r->pad_prompt_sum += q->r.input_tokens;
            r->pad_gen_sum += q->cached - q->r.input_tokens;   /* + 1 as the pass ends */
        } else
            drop_blocks(r, q);
        q->leaving = true;
        return engine_record(g, i, false, e);
    }
    if (prefill_pool(g, r)) {
        drop_blocks(r, q);
        q->leaving = true;
        return engine_hand_over(g, i, e);
    }
    return 0;
}

/* The running list without the requests marked as leaving (their slots
 * stay as they were until the next arrival reuses them). */
static void running_sweep(struct engine *g, struct replica *r)
{
    int n = 0;
    for (int k = 0; k < r->running.n; k++) {
        struct sreq *q = &g->slab[r->running.v[k]];
        if (q->leaving)
            q->leaving = false;
        else
            r->running.v[n++] = r->running.v[k];
    }
    r->running.n = n;
}

int sched_finish(struct engine *g, struct replica *r, struct npu_err *e)
{
    r->busy = false;
    int64_t gap = -1, gap_n = 0;
    for (int k = 0; k < r->pass.n; k++) {
        int i = r->pass.v[k];
        struct sreq *q = &g->slab[i];
        bool was_decode = decoding(q);
        int64_t last = q->last_token_ns;
        q->cached += q->chunk;
        if (!was_decode && q->cached < q->target)
            continue;   /* a chunk short of the prompt's end: no token yet */
        if (q->generated > 0 && g->sink->itl && q->r.id >= g->o->warmup) {   /* equal gaps in a row, told at once */
            if (g->now - last != gap && gap_n > 0)
                g->sink->itl(g->sink->arg, gap, gap_n), gap_n = 0;
            gap = g->now - last, gap_n++;
        }
        if (emitted(g, r, i, e))
            return -1;
    }
    running_sweep(g, r);
    if (gap_n > 0)
        g->sink->itl(g->sink->arg, gap, gap_n);
    if (g->o->scheduler == SCHED_STATIC && r->running.n == 0) {   /* the batch ends: its blocks free */
        r->kv_used = 0;
        r->pad_n = 0;
    } else if (g->o->scheduler == SCHED_STATIC)
        r->pad_gen_sum += r->pad_n;
    return 0;
}
