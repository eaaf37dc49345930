/* engine_internal.h — the serving engine's state, shared by engine.c (the
 * event loop) and sched.c (the schedulers); not for other files.
 *
 * Main data structures: struct sreq (a request in flight), struct replica
 * and struct engine. */
#ifndef NPUSIM_SERVING_ENGINE_INTERNAL_H
#define NPUSIM_SERVING_ENGINE_INTERNAL_H

#include "serving/engine.h"

/* A growable list of slab indices. */
struct ilist { int *v; int n, cap; };
int ilist_push(struct ilist *l, int v);
int ilist_push_front(struct ilist *l, int v);
void ilist_remove_at(struct ilist *l, int i);

struct sreq {
    struct serving_request r;
    int64_t target;          /* prompt tokens the current prefill computes: the input, or after a
                              * recompute the input and the answer so far */
    int64_t cached;          /* tokens whose K/V are in the cache (or swapped out) */
    int64_t generated;       /* tokens emitted */
    int64_t blocks;          /* KV blocks held on the replica */
    int64_t first_sched_ns, first_token_ns, last_token_ns;
    int64_t queued_ns;       /* when it joined its replica's waiting list (async scheduling) */
    int64_t preemptions;
    int64_t chunk;           /* tokens in the current pass (1: a decode) */
    double energy_J;         /* its token share of the passes it was in (all the replica's chips) */
    int replica;
    bool swapped;            /* its blocks are in host memory */
    bool leaving;            /* done or handed over in the pass that just ended */
};

/* A replica's pipeline when it keeps several passes in flight: when each
 * stage is next free (ns, the end of the last pass through it), and when
 * the last pass leaves the last stage. */
struct pipe {
    int64_t *free_ns;
    int stages;
    int64_t busy_until;
};

/* One scheduler of a replica: the replica itself, or one of its pipelined
 * microbatches (index names the replica, micro the microbatch; pipe, shared
 * by the replica's microbatches, is NULL with one pass in flight). */
struct replica {
    int index, micro, pool;
    struct pipe *pipe;
    int64_t kv_total, kv_used;
    int64_t kv_wanted;       /* blocks the waiting requests' prompts need (least-kv) */
    struct ilist waiting, running, pass;
    bool busy;
    int64_t start_ns, end_ns;
    int64_t sched_ns;        /* when the pass being formed was scheduled: the requests queued by
                              * then may join (async scheduling: the last pass's start) */
    int64_t idle_from_ns;    /* the end of its last pass: idle since */
    bool wake_pending;       /* its chips gated while idle: the next pass wakes them */
    /* static: the finished members still in the batch as padding */
    int64_t pad_n, pad_prompt_sum, pad_gen_sum;
};

struct xfer { int64_t t, seq; int i; };

struct engine {
    const struct serving_options *o;
    struct serving_pool *pools;
    int npools;
    int pool_first[2];
    struct serving_source *src;
    const struct serving_sink *sink;
    struct serving_totals *tot;
    struct replica *reps;
    int nreps;
    struct pipe *pipes;              /* one per replica of a pool with microbatches > 1 */
    int npipes;
    uint64_t rr[2];                  /* round-robin turns per pool */
    struct sreq *slab;
    int slab_cap, *free_list, free_n;
    struct xfer *xfer;               /* KV transfers in flight: a min-heap by time, then order */
    int xfer_n, xfer_cap;
    int64_t xfer_seq;
    int64_t now;
    int64_t arrived, in_flight, closed_due;
    int64_t *due;                    /* with a think time: when each idle client sends (a min-heap) */
    int due_n, due_cap;
    struct serving_request pending;
    bool has_pending, src_done;
    /* the front-end batcher: the requests it holds, in arrival order; its
     * last send (the first arrival's time before one) and its last check */
    struct ilist held;
    int64_t held_sent_ns, held_check_ns;
    bool held_started;
};

int64_t blocks_for(const struct engine *g, int64_t tokens);
/* The tokens guaranteed-no-evict promises q blocks for: its prompt and its
 * answer, or the answer's max_new_tokens when the run gives one (at most
 * the context's max_context tokens in all). */
int64_t promised_tokens(const struct engine *g, const struct sreq *q);
/* A request leaves the engine: its record to the sink, its slot freed. */
int engine_record(struct engine *g, int i, bool rejected, struct npu_err *e);
/* Disaggregated: request i's KV leaves for the decode pool. */
int engine_hand_over(struct engine *g, int i, struct npu_err *e);
/* One of pool p's chips idling ns: its energy (J), and whether it gated
 * (power gating on and the idle time longer than the wake-up delay). */
double engine_idle_J(const struct serving_pool *p, int64_t ns, bool *gated);
/* Replica r's chips idle from its last pass to `until`: their idle energy;
 * gated, the next pass pays the wake-up. */
void engine_idle_until(struct engine *g, struct replica *r, int64_t until);

/* Stage s of a pipelined replica of pool p idles from its last pass to
 * `until`: its chips' idle energy (J), and whether they gated. */
double engine_stage_idle_J(const struct serving_pool *p, const struct pipe *pp, int s, int64_t until, bool *gated);

/* sched.c: form and start replica r's next pass if it has work; apply a
 * finished pass's effects. */
int sched_start(struct engine *g, struct replica *r, struct npu_err *e);
int sched_finish(struct engine *g, struct replica *r, struct npu_err *e);

#endif
