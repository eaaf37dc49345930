/* engine.c — the serving event loop: arrivals, routing, passes and their
 * completion, KV transfers between pools, the front-end batcher (see
 * engine.h). The schedulers that
 * form a replica's next pass are in sched.c.
 *
 * Main data structures: struct engine (engine_internal.h), a slab of
 * requests in flight (freed on completion, so memory follows the requests
 * in flight, not the run's length), per replica a waiting queue and a
 * running list of slab indices, a min-heap of KV transfers in flight, and
 * the batcher's held requests. */
#include "serving/engine_internal.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

static const char *const sched_names[] = { "static", "continuous", "chunked", "disaggregated", "padded", "inflight" };
static const char *const router_names[] = { "round-robin", "least-outstanding", "least-kv" };
static const char *const capacity_names[] = { "max-utilization", "guaranteed-no-evict" };

static int name_index(const char *s, const char *const *names, int n)
{
    for (int i = 0; i < n; i++)
        if (!strcmp(s, names[i]))
            return i;
    return -1;
}

int serving_scheduler_parse(const char *s, enum serving_scheduler *v)
{
    int i = name_index(s, sched_names, (int)(sizeof sched_names / sizeof sched_names[0]));
    return i < 0 ? -1 : (*v = (enum serving_scheduler)i, 0);
}

int serving_router_parse(const char *s, enum serving_router *v)
{
    int i = name_index(s, router_names, (int)(sizeof router_names / sizeof router_names[0]));
    return i < 0 ? -1 : (*v = (enum serving_router)i, 0);
}

int serving_capacity_parse(const char *s, enum serving_capacity *v)
{
    int i = name_index(s, capacity_names, (int)(sizeof capacity_names / sizeof capacity_names[0]));
    return i < 0 ? -1 : (*v = (enum serving_capacity)i, 0);
}

const char *serving_scheduler_name(enum serving_scheduler s) { return sched_names[s]; }
const char *serving_capacity_name(enum serving_capacity c) { return capacity_names[c]; }
const char *serving_router_name(enum serving_router r) { return router_names[r]; }

/* ---- index lists ---- */

int ilist_push(struct ilist *l, int v)
{
    if (l->n == l->cap) {
        int cap = l->cap ? 2 * l->cap : 16;
        int *p = realloc(l->v, (size_t)cap * sizeof *p);
        if (!p)
            return -1;
        l->v = p, l->cap = cap;
    }
    l->v[l->n++] = v;
    return 0;
}

int ilist_push_front(struct ilist *l, int v)
{
    if (ilist_push(l, v))
        return -1;
    memmove(l->v + 1, l->v, (size_t)(l->n - 1) * sizeof *l->v);
    l->v[0] = v;
    return 0;
}

void ilist_remove_at(struct ilist *l, int i)
{
    memmove(l->v + i, l->v + i + 1, (size_t)(l->n - i - 1) * sizeof *l->v);
    l->n--;
}

/* ---- the request slab ---- */

static int slab_new(struct engine *g, const struct serving_request *r)
{
    if (g->free_n == 0) {
        int cap = g->slab_cap ? 2 * g->slab_cap : 256;
        struct sreq *p = realloc(g->slab, (size_t)cap * sizeof *p);
        int *f = realloc(g->free_list, (size_t)cap * sizeof *f);
        if (p)
            g->slab = p;
        if (f)
            g->free_list = f;
        if (!p || !f)
            return -1;
        for (int i = cap - 1; i >= g->slab_cap; i--)
            g->free_list[g->free_n++] = i;
        g->slab_cap = cap;
    }
    int i = g->free_list[--g->free_n];
    g->slab[i] = (struct sreq){ .r = *r, .target = r->input_tokens, .first_sched_ns = -1, .first_token_ns = -1,
                                .replica = -1 };
    if (g->o->max_new_tokens > 0 && r->output_tokens > g->o->max_new_tokens)
        g->slab[i].r.output_tokens = g->o->max_new_tokens;   /* the answer stops at max_tokens */
    return i;
}

static void slab_free(struct engine *g, int i) { g->free_list[g->free_n++] = i; }

double engine_idle_J(const struct serving_pool *p, int64_t ns, bool *gated)
{
    *gated = p->gating && ns > p->wake_ns;
    return (*gated ? p->gated_W : p->idle_W) * (double)ns / 1e9;
}

void engine_idle_until(struct engine *g, struct replica *r, int64_t until)
{
    const struct serving_pool *p = &g->pools[r->pool];
    if (until > r->idle_from_ns) {
        bool gated;
        g->tot->idle_energy_J += (double)p->chips * engine_idle_J(p, until - r->idle_from_ns, &gated);
        r->wake_pending |= gated;
    }
    r->idle_from_ns = until;
}

double engine_stage_idle_J(const struct serving_pool *p, const struct pipe *pp, int s, int64_t until, bool *gated)
{
    *gated = false;
    if (until <= pp->free_ns[s])
        return 0;
    return (double)p->chips / (double)pp->stages * engine_idle_J(p, until - pp->free_ns[s], gated);
}

/* ---- a closed loop's think time ---- */

/* The idle clients' send times, a min-heap (only with a think time). */
static int due_push(struct engine *g, int64_t t)
{
    if (g->due_n == g->due_cap) {
        int c = g->due_cap ? 2 * g->due_cap : 64;
        int64_t *v = realloc(g->due, (size_t)c * sizeof *v);
        if (!v)
            return -1;
        g->due = v, g->due_cap = c;
    }
    int i = g->due_n++;
    for (; i > 0 && g->due[(i - 1) / 2] > t; i = (i - 1) / 2)
        g->due[i] = g->due[(i - 1) / 2];
    g->due[i] = t;
    return 0;
}

static int64_t due_pop(struct engine *g)
{
    int64_t top = g->due[0], last = g->due[--g->due_n];
    int i = 0;
    for (;;) {
        int c = 2 * i + 1;
        if (c >= g->due_n)
            break;
        if (c + 1 < g->due_n && g->due[c + 1] < g->due[c])
            c++;
        if (g->due[c] >= last)
            break;
        g->due[i] = g->due[c], i = c;
    }
    if (g->due_n > 0)
        g->due[i] = last;
    return top;
}

/* A client is idle from now: it sends its next request after its think
 * time. The request already drawn (pending) takes the earlier of its time
 * and this one, so requests keep arriving in the order they are drawn. */
static int client_idle(struct engine *g)
{
    int64_t t = g->now + g->src->think_ns(g->src->arg);
    if (g->has_pending && g->pending.arrival_ns > t) {
        int64_t later = g->pending.arrival_ns;
        g->pending.arrival_ns = t, t = later;
    }
    return due_push(g, t);
}

/* ---- records ---- */

int engine_record(struct engine *g, int i, bool rejected, struct npu_err *e)
{
    struct sreq *q = &g->slab[i];
    struct serving_record r = { q->r.id, q->r.arrival_ns, q->first_token_ns, rejected ? -1 : g->now,
                                q->r.input_tokens, q->r.output_tokens, q->first_sched_ns, q->preemptions,
                                q->energy_J, q->replica, rejected };
    if (g->sink->request && g->sink->request(g->sink->arg, &r, e))
        return -1;
    slab_free(g, i);
    g->in_flight--;
    /* a closed loop: the client sends its next request, at once or after its think time */
    if (g->src->concurrency > 0 && g->src->think_ns)
        return client_idle(g) ? npu_errf(e, "serving: out of memory") : 0;
    if (g->src->concurrency > 0)
        g->closed_due++;
    return 0;
}

/* ---- routing ---- */

int64_t promised_tokens(const struct engine *g, const struct sreq *q)
{
    int64_t in = q->r.input_tokens, out = q->r.output_tokens, cap = g->o->max_new_tokens;
    if (cap > 0 && g->o->max_context > in && cap > g->o->max_context - in)
        cap = g->o->max_context - in;   /* TensorRT-LLM clips it to the sequence's window too */
    return in + (cap > out ? cap : out);
}

int64_t blocks_for(const struct engine *g, int64_t tokens)
{
    int64_t bs = g->o->block_size, w = g->o->kv_window;
    int64_t state = tokens > 0 ? g->o->state_blocks : 0;   /* linear layers' state, from the first token */
    if (w > 0 && tokens > w + bs) {
        /* the local layers' part holds the window's blocks, the rest grows */
        double t = (double)tokens * (1 - g->o->kv_local_share) + (double)(w + bs) * g->o->kv_local_share;
        return (int64_t)ceil(t / (double)bs) + state;
    }
    return (tokens + bs - 1) / bs + state;
}

/* The pool's replica that takes the next request: the next in turn, or the
 * least loaded (requests waiting and running, or KV blocks held and wanted
 * over the cache), the first of equals. */
static struct replica *route(struct engine *g, int pool)
{
    int first = g->pool_first[pool], n = (int)(g->pools[pool].replicas * g->pools[pool].microbatches), best = first;
    if (g->o->router == ROUTE_ROUND_ROBIN)
        return &g->reps[first + (int)(g->rr[pool]++ % n)];
    double best_load = 0;
    for (int k = 0; k < n; k++) {
        const struct replica *r = &g->reps[first + k];
        double load = g->o->router == ROUTE_LEAST_KV
                          ? (double)(r->kv_used + r->kv_wanted) / (double)r->kv_total
                          : (double)(r->waiting.n + r->running.n);
        if (k == 0 || load < best_load)
            best = first + k, best_load = load;
    }
    return &g->reps[best];
}

/* Whether request q can never be served by pool p's replicas: its whole
 * context's blocks (under guaranteed-no-evict, the blocks it is promised)
 * exceed a scheduler's share of a replica's cache.
 * (Whole-prompt schedulers never meet a prompt above their budget: the
 * budget is at least the context, serving/request.c.) */
static bool never_fits(const struct engine *g, int pool, const struct sreq *q)
{
    int64_t tokens = g->o->capacity == CAPACITY_GUARANTEED_NO_EVICT ? promised_tokens(g, q)
                                                                     : q->r.input_tokens + q->r.output_tokens;
    return blocks_for(g, tokens) > g->reps[g->pool_first[pool]].kv_total;
}

/* Request i into pool p: to replica r, or the router's choice when r is NULL. */
static int admit_to(struct engine *g, int i, int pool, struct replica *r, struct npu_err *e)
{
    struct sreq *q = &g->slab[i];
    if (never_fits(g, pool, q) || (pool == 0 && g->npools == 2 && never_fits(g, 1, q)))
        return engine_record(g, i, true, e);
    if (!r)
        r = route(g, pool);
    q->replica = r->index;
    q->queued_ns = g->now;
    r->kv_wanted += blocks_for(g, q->target);
    if (ilist_push(&r->waiting, i))
        return npu_errf(e, "serving: out of memory");
    return 0;
}

static int admit(struct engine *g, int i, int pool, struct npu_err *e) { return admit_to(g, i, pool, NULL, e); }

/* ---- the front-end batcher ---- */

/* The held requests leave, batcher_size at most, together to the one
 * replica the router picks (a batch, not its requests, takes a turn). */
static int batcher_send(struct engine *g, struct npu_err *e)
{
    int n = g->held.n;
    if (g->o->batcher_size > 0 && n > g->o->batcher_size)
        n = (int)g->o->batcher_size;
    struct replica *r = route(g, 0);
    for (int k = 0; k < n; k++)
        if (admit_to(g, g->held.v[k], 0, r, e))
            return -1;
    memmove(g->held.v, g->held.v + n, (size_t)(g->held.n - n) * sizeof *g->held.v);
    g->held.n -= n;
    g->held_sent_ns = g->held_check_ns = g->now;
    return 0;
}

/* Request i reaches the batcher. As the harness's loop (sync_sut.py,
 * batch_samples_loop) it is a check: the held requests leave when they are
 * batcher_size, or when the last send is batcher_wait_ns old. The first
 * arrival starts the clock, as the harness's first blocking get. */
static int batcher_hold(struct engine *g, int i, struct npu_err *e)
{
    if (ilist_push(&g->held, i))
        return npu_errf(e, "serving: out of memory");
    if (!g->held_started)
        g->held_started = true, g->held_sent_ns = g->now;
    g->held_check_ns = g->now;
    bool full = g->o->batcher_size > 0 && g->held.n >= g->o->batcher_size;
    return full || g->now - g->held_sent_ns >= g->o->batcher_wait_ns ? batcher_send(g, e) : 0;
}

/* The batcher's next check without an arrival: batcher_wait_ns after its
 * last one (its wait for the next arrival times out), or never when it
 * holds nothing. The last check is at or after the last send, so that
 * check always sends. */
static int64_t batcher_due(const struct engine *g)
{
    return g->held.n > 0 ? g->held_check_ns + g->o->batcher_wait_ns : INT64_MAX;
}

/* ---- KV transfers (disaggregated) ---- */

static int heap_push(struct engine *g, int64_t t, int i)
{
    if (g->xfer_n == g->xfer_cap) {
        int cap = g->xfer_cap ? 2 * g->xfer_cap : 64;
        struct xfer *p = realloc(g->xfer, (size_t)cap * sizeof *p);
        if (!p)
            return -1;
        g->xfer = p, g->xfer_cap = cap;
    }
    int k = g->xfer_n++;
    g->xfer[k] = (struct xfer){ t, g->xfer_seq++, i };
    while (k > 0) {
        int up = (k - 1) / 2;
        if (g->xfer[up].t < g->xfer[k].t || (g->xfer[up].t == g->xfer[k].t && g->xfer[up].seq < g->xfer[k].seq))
            break;
        struct xfer x = g->xfer[up];
        g->xfer[up] = g->xfer[k], g->xfer[k] = x;
        k = up;
    }
    return 0;
}

static struct xfer heap_pop(struct engine *g)
{
    struct xfer top = g->xfer[0];
    g->xfer[0] = g->xfer[--g->xfer_n];
    for (int k = 0;;) {
        int l = 2 * k + 1, r = l + 1, m = k;
        if (l < g->xfer_n && (g->xfer[l].t < g->xfer[m].t || (g->xfer[l].t == g->xfer[m].t && g->xfer[l].seq < g->xfer[m].seq)))
            m = l;
        if (r < g->xfer_n && (g->xfer[r].t < g->xfer[m].t || (g->xfer[r].t == g->xfer[m].t && g->xfer[r].seq < g->xfer[m].seq)))
            m = r;
        if (m == k)
            break;
        struct xfer x = g->xfer[m];
        g->xfer[m] = g->xfer[k], g->xfer[k] = x;
        k = m;
    }
    return top;
}

int engine_hand_over(struct engine *g, int i, struct npu_err *e)
{
    struct sreq *q = &g->slab[i];
    double ns = (double)g->o->transfer_latency_ns + g->o->transfer_ns_per_token * (double)q->target;
    return heap_push(g, g->now + (int64_t)(ns + 0.5), i) ? npu_errf(e, "serving: out of memory") : 0;
}

/* ---- the loop ---- */

/* The next request from the source into the engine at its arrival (or now
 * in a closed loop); 0 when the source has none left or arrivals stopped. */
static int pull(struct engine *g, struct npu_err *e)
{
    const struct serving_options *o = g->o;
    if (g->src_done || (o->max_requests > 0 && g->arrived >= o->max_requests))
        return g->src_done = true, 0;
    struct serving_request r;
    int got = g->src->next(g->src->arg, &r, e);
    if (got < 0)
        return -1;
    if (got == 0 || (o->duration_ns > 0 && r.arrival_ns > o->duration_ns))
        return g->src_done = true, 0;
    g->pending = r;
    g->has_pending = true;
    return 1;
}

static int start_idle(struct engine *g, struct npu_err *e)
{
    for (int k = 0; k < g->nreps; k++)
        if (!g->reps[k].busy && sched_start(g, &g->reps[k], e))
            return -1;
    return 0;
}

/* The earliest busy replica's pass end, or -1. */
static int earliest(const struct engine *g)
{
    int best = -1;
    for (int k = 0; k < g->nreps; k++)
        if (g->reps[k].busy && (best < 0 || g->reps[k].end_ns < g->reps[best].end_ns))
            best = k;
    return best;
}

static int arrive(struct engine *g, struct npu_err *e)
{
    struct serving_request r = g->pending;
    g->has_pending = false;
    if (r.arrival_ns < 0)
        r.arrival_ns = g->now;
    g->now = r.arrival_ns > g->now ? r.arrival_ns : g->now;
    g->arrived++;
    g->in_flight++;
    int i = slab_new(g, &r);
    if (i < 0)
        return npu_errf(e, "serving: out of memory");
    return g->o->batcher_wait_ns > 0 ? batcher_hold(g, i, e) : admit(g, i, 0, e);
}

static int loop(struct engine *g, struct npu_err *e)
{
    /* A closed loop starts with one request per client at time 0 (then,
     * with a think time, a client sends when its due time comes). */
    g->closed_due = g->src->concurrency;
    for (;;) {
        if (g->o->stop && *g->o->stop)
            return npu_errf(e, "interrupted");
        if (!g->has_pending && (g->src->concurrency == 0 || g->closed_due > 0 || g->due_n > 0)) {
            int p = pull(g, e);
            if (p < 0)
                return -1;
            if (p > 0 && g->src->concurrency > 0 && g->closed_due > 0)
                g->closed_due--;   /* arrives now (arrival_ns -1) */
            else if (p > 0 && g->due_n > 0)
                g->pending.arrival_ns = due_pop(g);   /* the idle client that sends first */
        }
        int64_t t_xfer = g->xfer_n > 0 ? g->xfer[0].t : INT64_MAX;
        int64_t t_arr = g->has_pending ? (g->pending.arrival_ns < 0 ? g->now : g->pending.arrival_ns) : INT64_MAX;
        int64_t t_send = batcher_due(g);
        int k = earliest(g);
        /* every event of this instant first (the requests that arrive
         * together form one pass), then the idle replicas start */
        if ((k < 0 || g->reps[k].end_ns > g->now) && t_arr > g->now && t_xfer > g->now && t_send > g->now) {
            if (start_idle(g, e))
                return -1;
            k = earliest(g);
        }
        int64_t t_pass = k >= 0 ? g->reps[k].end_ns : INT64_MAX;
        /* at one instant: arrivals, then the batcher's sends, then
         * transfers, then pass ends, so a request that arrives as a pass
         * ends joins the next pass */
        if (t_arr != INT64_MAX && t_arr <= t_pass && t_arr <= t_xfer && t_arr <= t_send) {
            if (arrive(g, e))
                return -1;
        } else if (t_send != INT64_MAX && t_send <= t_pass && t_send <= t_xfer) {
            g->now = t_send;
            if (batcher_send(g, e))
                return -1;
        } else if (t_xfer != INT64_MAX && t_xfer <= t_pass) {
            struct xfer x = heap_pop(g);
            g->now = x.t;
            if (admit(g, x.i, 1, e))
                return -1;
        } else if (k >= 0) {
            g->now = t_pass;
            if (sched_finish(g, &g->reps[k], e))
                return -1;
        } else {
            if (g->in_flight > 0)
                return npu_errf(e, "internal: %lld requests left unserved", (long long)g->in_flight);
            return 0;
        }
    }
}

/* The schedulers: each pool's replicas, each as many as its microbatches
 * (their share of its cache), and a pipe for each replica they share. */
static int engine_layout(struct engine *g, struct npu_err *e)
{
    int nphys = 0;
    for (int p = 0; p < g->npools; p++) {
        g->pool_first[p] = g->nreps;
        g->nreps += (int)(g->pools[p].replicas * g->pools[p].microbatches);
        if (g->pools[p].microbatches > 1)
            g->npipes += (int)g->pools[p].replicas;
    }
    g->reps = calloc((size_t)g->nreps, sizeof *g->reps);
    g->pipes = g->npipes ? calloc((size_t)g->npipes, sizeof *g->pipes) : NULL;
    if (!g->reps || (g->npipes && !g->pipes)) {
        g->nreps = g->npipes = 0;
        return npu_errf(e, "serving: out of memory");
    }
    for (int p = 0, k = 0, n = 0; p < g->npools; p++) {
        const struct serving_pool *pl = &g->pools[p];
        int stages = (int)serving_step_stages(pl->step);
        for (int64_t j = 0; j < pl->replicas; j++, nphys++) {
            struct pipe *pp = NULL;
            if (pl->microbatches > 1) {
                pp = &g->pipes[n++];
                pp->stages = stages;
                if (!(pp->free_ns = calloc((size_t)stages, sizeof *pp->free_ns)))
                    return npu_errf(e, "serving: out of memory");
            }
            for (int m = 0; m < pl->microbatches; m++, k++)
                g->reps[k] = (struct replica){ .index = nphys, .micro = m, .pool = p, .pipe = pp,
                                               .kv_total = pl->kv_blocks / pl->microbatches };
        }
    }
    return 0;
}

int serving_run(const struct serving_options *o, struct serving_pool *pools, int npools,
                struct serving_source *src, const struct serving_sink *sink, struct serving_totals *tot,
                struct npu_err *e)
{
    struct engine g = { .o = o, .pools = pools, .npools = npools, .src = src, .sink = sink };
    *tot = (struct serving_totals){ 0 };
    g.tot = tot;
    int rc = engine_layout(&g, e);
    if (!rc)
        rc = loop(&g, e);
    tot->end_ns = g.now;
    for (int k = 0; k < g.nreps; k++)
        if (!g.reps[k].pipe)
            engine_idle_until(&g, &g.reps[k], g.now);
    for (int k = 0; k < g.nreps; k++)
        if (g.reps[k].pipe && g.reps[k].micro == 0)
            for (int s = 0; s < g.reps[k].pipe->stages; s++) {
                bool gated;
                tot->idle_energy_J += engine_stage_idle_J(&pools[g.reps[k].pool], g.reps[k].pipe, s, g.now, &gated);
            }
    for (int k = 0; k < g.nreps; k++) {
        free(g.reps[k].waiting.v);
        free(g.reps[k].running.v);
        free(g.reps[k].pass.v);
    }
    for (int k = 0; k < g.npipes; k++)
        free(g.pipes[k].free_ns);
    free(g.pipes);
    free(g.reps);
    free(g.held.v);
    free(g.slab);
    free(g.free_list);
    free(g.xfer);
    free(g.due);
    return rc;
}
