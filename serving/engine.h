/* engine.h — the request-level serving simulation: requests arrive, a
 * router gives each to a replica, each replica's scheduler forms passes
 * (iterations) over its paged KV cache, and the step model (step.h) says how
 * long each pass takes. Discrete events in one thread, so a seed always
 * gives the same bytes.
 *
 * Schedulers (per replica):
 *   static         batches of `batch` requests: one prefill pass of their
 *                  prompts, then decode passes until the longest is done
 *                  (finished members stay in the batch as padding);
 *   continuous     iteration-level and first come first served (vLLM's
 *                  default without chunking): a pass admits waiting prompts
 *                  whole while max_num_seqs, max_num_batched_tokens and the
 *                  KV cache allow, and runs them alone (prefills first);
 *                  otherwise every running request decodes one token;
 *   chunked        a budget of max_num_batched_tokens per pass: every
 *                  running decode first, then the prompts in progress and
 *                  the waiting ones cut into chunks that fill the rest;
 *   inflight       TensorRT-LLM's in-flight batching without chunked
 *                  context (its enable_chunked_context default, false):
 *                  as chunked, but a waiting prompt joins whole or waits,
 *                  and those behind it wait too (first come, first served);
 *                  only a prompt above the whole budget (a recompute after
 *                  preemption) is cut, so that it runs;
 *   disaggregated  a prefill pool (prefill-only passes) and a decode pool
 *                  (continuous decodes), each its own replicas, chips and
 *                  parallelism; a request's KV cache moves between them;
 *   padded         continuous with the static shapes of an XLA engine
 *                  (JetStream): a prefill pass holds one prompt, computed
 *                  padded to the next power of two from 16; a decode pass
 *                  computes all max_num_seqs slots, each over the whole
 *                  max_context cache, whatever they hold.
 * The KV cache is paged in blocks of block_size tokens. When a decode needs
 * a block and none is free, the newest running request is preempted: its
 * blocks are freed and it is recomputed later (its prompt and answer so far
 * as one prompt), or with swap its blocks go to host memory and come back
 * before it resumes (the PCIe time of both moves is added to the passes).
 * That is the capacity policy max-utilization (vLLM's, SGLang's, and
 * TensorRT-LLM's MAX_UTILIZATION). Under guaranteed-no-evict (TensorRT-LLM's
 * default) a request joins only when the blocks of its whole context, prompt
 * and answer (the answer's max_new_tokens when given), are free, and takes
 * them all at once: no decode runs short, no
 * request is preempted, and fewer run at once (a disaggregated prefill pool
 * reserves the prompt alone: the answer is the decode pool's).
 * A request that can never fit (its context's blocks above the cache) is
 * rejected. Under continuous and padded max_num_batched_tokens is at least
 * max_context (serving/request.c refuses less, as vLLM V0 does).
 *
 * Main data structures: struct serving_options, struct serving_pool (a set
 * of alike replicas) and the engine's own state (engine.c). */
#ifndef NPUSIM_SERVING_ENGINE_H
#define NPUSIM_SERVING_ENGINE_H

#include <signal.h>
#include <stdbool.h>
#include <stdint.h>

#include "base/err.h"
#include "serving/step.h"
#include "serving/workload.h"

enum serving_scheduler { SCHED_STATIC, SCHED_CONTINUOUS, SCHED_CHUNKED, SCHED_DISAGGREGATED, SCHED_PADDED,
                         SCHED_INFLIGHT };
enum serving_router { ROUTE_ROUND_ROBIN, ROUTE_LEAST_OUTSTANDING, ROUTE_LEAST_KV };
enum serving_capacity { CAPACITY_MAX_UTILIZATION, CAPACITY_GUARANTEED_NO_EVICT };

#define SERVING_SCHEDULERS "static, continuous, chunked, inflight, disaggregated or padded"
#define SERVING_ROUTERS "round-robin, least-outstanding or least-kv"
#define SERVING_CAPACITY_POLICIES "max-utilization or guaranteed-no-evict"
int serving_scheduler_parse(const char *s, enum serving_scheduler *v);
int serving_router_parse(const char *s, enum serving_router *v);
int serving_capacity_parse(const char *s, enum serving_capacity *v);
const char *serving_scheduler_name(enum serving_scheduler s);
const char *serving_router_name(enum serving_router r);
const char *serving_capacity_name(enum serving_capacity c);

/* Replicas alike. */
struct serving_pool {
    struct serving_step *step;
    int64_t replicas;
    int64_t chips;                  /* per replica */
    int64_t kv_blocks;              /* per replica */
    /* passes in flight per replica (1 up to its pipeline stages): the
     * replica runs this many schedulers, each with its share of the cache
     * and its own max_num_seqs, whose passes share the stages in turn */
    int64_t microbatches;
    double idle_W;                  /* one chip's power while it idles */
    /* Power gating: an idle time longer than wake_ns (between passes, or
     * a chip's idle time inside one) is spent at gated_W, and the pass
     * after it is wake_ns longer (the components' wake-up). */
    bool gating;
    double gated_W;
    int64_t wake_ns;
};

struct serving_options {
    enum serving_scheduler scheduler;
    enum serving_router router;
    enum serving_capacity capacity; /* how a request's KV blocks are promised (above) */
    int64_t batch;                  /* static: requests per batch */
    int64_t max_num_seqs;           /* requests in a pass at most */
    int64_t max_num_batched_tokens; /* tokens in a pass at most (chunked: the budget) */
    int64_t max_context;            /* tokens of a request's context at most (padded: the cache) */
    int64_t block_size;             /* tokens per KV block */
    /* local attention (opsgen/pattern.h): that share of a block's bytes is
     * local layers' K/V, of which a sequence keeps kv_window tokens and the
     * block they straddle (0: no local layer) */
    int64_t kv_window;
    double kv_local_share;
    /* linear-attention layers (opsgen/linear_attn.h): the blocks' worth of
     * state each sequence holds whatever its length (0: none) */
    int64_t state_blocks;
    bool swap;                      /* preemption swaps to host memory (else recompute) */
    /* vLLM's --async-scheduling: a pass is scheduled as the pass before it
     * starts, so a request that joined the waiting list after that start
     * waits for the pass after (a replica with nothing to run schedules at
     * once) */
    bool async_scheduling;
    int64_t swap_ns_per_block;      /* PCIe time to move one block one way */
    int64_t transfer_latency_ns;    /* disaggregated: per KV transfer */
    double transfer_ns_per_token;   /* disaggregated: per token of KV moved */
    int64_t max_requests;           /* arrivals stop after this many (0: no bound) */
    int64_t duration_ns;            /* arrivals stop after this time (0: no bound) */
    /* the first warmup requests (ids 0 .. warmup - 1) warm the engine: they
     * run, but no latency, ITL or throughput figure counts them (0: none) */
    int64_t warmup;
    /* the front-end batcher (off when batcher_wait_ns is 0): arrivals are
     * held and sent together to one replica when batcher_size are held (0:
     * no bound), or at the first arrival, or a check batcher_wait_ns after
     * the last arrival or send, at least batcher_wait_ns after the last send
     * (the harness batcher of AMD's MLPerf v4.1 vLLM code, docs/serving.md) */
    int64_t batcher_size, batcher_wait_ns;
    /* waiting prompts join a pass only when more than this share of the
     * replica's KV blocks is free as the pass is formed (AMD's vLLM for
     * MLPerf v4.1: VLLM_SCHED_PREFILL_KVC_FREEPCT / 100); requests already
     * running, swapped ones coming back and a decode pool's arrivals (no
     * prompt to compute) are not held. 0: no gate */
    double admit_kv_free;
    /* the max_tokens every request carries (0: its own answer's length, as a
     * benchmark client that asks for exactly the answer sends): an answer
     * stops there, and guaranteed-no-evict reserves the blocks of the prompt
     * and this many answer tokens (at most max_context in all), as
     * TensorRT-LLM's KVCacheManager::getRemainingBlocksToCompletion does */
    int64_t max_new_tokens;
    const volatile sig_atomic_t *stop;   /* when set and non-zero the run stops (an error) */
};

/* Where the requests come from: next gives the next one (arrival_ns -1 in a
 * closed loop: the engine sets it), 1; 0 when there are no more; -1 with e. */
struct serving_source {
    int (*next)(void *arg, struct serving_request *r, struct npu_err *e);
    void *arg;
    int64_t concurrency;            /* a closed loop of this many clients; 0: open */
    /* A closed loop's think time: how long a client waits after a response
     * before it sends its next request, drawn at each response (ns; NULL:
     * none, the next request arrives as the last one ends). */
    int64_t (*think_ns)(void *arg);
};

/* One finished (or rejected) request, as requests.csv writes it (ns). */
struct serving_record {
    int64_t id, arrival_ns, first_token_ns, finish_ns, input_tokens, output_tokens;
    int64_t first_scheduled_ns, preemptions;
    double energy_J;                /* its token share of its passes' energy (idle gaps not included) */
    int replica;                    /* -1 when rejected before routing */
    bool rejected;
};

/* One pass, as iterations.csv writes it. */
struct serving_pass_record {
    int replica;
    int microbatch, microbatches;   /* which of the replica's passes in flight (0 up), of how many */
    int64_t start_ns, duration_ns, prefill_tokens, decode_tokens, requests, kv_blocks_used, kv_blocks_total;
    double energy_J;                /* every chip of the replica over the pass */
};

/* What the engine tells as it goes (each may be NULL): -1 stops the run with e. */
struct serving_sink {
    int (*request)(void *arg, const struct serving_record *r, struct npu_err *e);
    int (*pass)(void *arg, const struct serving_pass_record *p, struct npu_err *e);
    /* an inter-token gap of ns seen by n requests at once */
    void (*itl)(void *arg, int64_t gap_ns, int64_t n);
    void *arg;
};

struct serving_totals {
    int64_t end_ns;                 /* the last event */
    int64_t passes, pass_tokens;    /* passes run and the tokens they carried */
    int64_t preemptions;
    double kv_peak_utilisation;     /* the largest used / total blocks of any replica */
    int64_t busy_ns;                /* replica-time spent in passes, summed */
    /* Energy of every chip: in passes (their operators, and the chips'
     * idle time within them: the host's time, the other pipeline stages',
     * KV moves), and in the gaps between passes, from time 0 to end_ns. */
    double pass_energy_J, idle_energy_J;
    double peak_W;                  /* one chip's highest operator power */
    int64_t wakeups;                /* replica wake-ups from gated idle (power gating) */
};

/* Runs the workload to the end (every arrival served or rejected). pools:
 * one, or for disaggregated two (prefill, decode). */
int serving_run(const struct serving_options *o, struct serving_pool *pools, int npools,
                struct serving_source *src, const struct serving_sink *sink, struct serving_totals *tot,
                struct npu_err *e);

#endif
