/* simulate.h — one serving simulation end to end: the replicas' step models
 * and KV caches from the configs, the requests from a workload or a trace,
 * the engine (engine.h), and what it writes: DIR/requests.csv,
 * DIR/iterations.csv and DIR/summary.json (all or none), and the summary
 * as a cJSON tree. The front ends (`npusim serving`, later Python and the
 * API) fill struct serving_spec.
 *
 * The KV cache of a replica: HBM (hbm_size_GB, GiB) less the reserve
 * fraction, the weights of a pipeline stage and the live activations of a
 * pass of max_num_batched_tokens tokens (opsgen_llm_mem_parts), in blocks
 * of block_size tokens of every layer of the stage. With kv_free_fraction
 * F (TensorRT-LLM's sizing) it is F of HBM less the weights and
 * activations instead.
 *
 * Main data structure: struct serving_spec. */
#ifndef NPUSIM_SERVING_SIMULATE_H
#define NPUSIM_SERVING_SIMULATE_H

#include <cjson/cJSON.h>

#include "serving/engine.h"
#include "serving/outputs.h"

/* The pools' step models (their memos), kept from one simulation to the
 * next of the same spec but for its rate and workload: a search over rates
 * (capacity.h) times each pass shape once. Zeroed to start. */
struct serving_steps {
    struct serving_step step[2];
    bool ok[2];
};
void serving_steps_free(struct serving_steps *st);

struct serving_spec {
    const struct family *fam;
    const struct loaded_config *c;     /* one replica's configs (its TP, PP) */
    const struct profile *prof;
    struct serving_options o;
    struct serving_workload w;         /* arrivals, lengths, seed, context */
    const char *trace_path;            /* replay this trace instead (arrivals and lengths) */
    int64_t replicas;
    double kv_reserve;                 /* fraction of HBM kept free (vLLM: 1 - gpu_memory_utilization) */
    /* when above 0, instead: the cache takes this fraction of the memory the
     * weights and a pass's activations leave (TensorRT-LLM's
     * kv_cache_free_gpu_mem_fraction) */
    double kv_free_fraction;
    int64_t prefill_tp, decode_tp;     /* disaggregated: each pool's TP (0: the model's) */
    bool json_names;                   /* messages name a pool's "prefill_tp", not --prefill-tp */
    int64_t prefill_replicas, decode_replicas;
    /* passes in flight per replica under pipeline parallelism, 1 up to its
     * stages (0: as many as its stages) */
    int64_t pp_microbatches;
    double slo_ttft_ms, slo_tpot_ms;   /* goodput's SLO (0: that bound not set) */
    const char *out_dir;               /* NULL: no files */
    const char *timeline;              /* NULL, or a Chrome trace JSON file (serving/timeline.h) */
    const char *command;               /* the command line, for provenance (may be NULL) */
    bool memo_off;                     /* every step part computed afresh (tests) */
    struct serving_steps *steps;       /* NULL, or step models to reuse (same configs and pools) */
    /* NULL, or told each request as it ends: 1 stops the run, the SLO
     * being missed whatever follows (capacity.h) */
    int (*missed)(void *arg, const struct serving_record *r);
    void *missed_arg;
    const struct pg_strategy *pg;      /* NULL: NoPG; else gating in passes (the energy pass) and idle */
    int dvfs;                          /* DVFS policy (power/pg.h), DVFS_NONE by default */
    bool pg_compare;                   /* with pg or dvfs: also run without, for summary "pg" */
    struct serving_rows *rows;         /* NULL, or filled with the run's records */
    double deadline_s;                 /* clock_monotonic_s() past which the run stops (late); 0: none */
    const char *extra_key;             /* NULL, or a key the summary gains, with a copy of extra */
    const cJSON *extra;
};

/* A copy of s for an inner run (a search's trial, a baseline): no files,
 * rows, hooks, extra key or comparison; steps: the step models to reuse
 * (NULL: its own). */
struct serving_spec serving_spec_inner(const struct serving_spec *s, struct serving_steps *steps);

/* Runs s; *summary gets the summary tree (the caller frees it). -1 with e,
 * 1 when s->missed stopped it, 2 when the deadline passed: nothing is
 * written then. */
int serving_simulate(const struct serving_spec *s, cJSON **summary, struct npu_err *e);

#endif
