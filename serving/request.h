/* request.h — a serving run as its front ends ask for it: the typed entry
 * that `npusim serving`, POST /api/serving and Python's npusim.serving()
 * fill alike, and the one place its defaults, ranges and checks live.
 *
 * A request is a set of knobs given as text, as on a command line (the API
 * turns its JSON numbers into text first), each optional: absent, its
 * default. serving_build checks them all, in one order, and makes the spec
 * (simulate.h) with its strategy, SLO and length table. A message names a
 * knob as the front end spells it: "--max-num-seqs" on the command line,
 * "\"max_num_seqs\"" in JSON.
 *
 * Main data structures: struct serving_knobs and struct serving_build. */
#ifndef NPUSIM_SERVING_REQUEST_H
#define NPUSIM_SERVING_REQUEST_H

#include <stdbool.h>
#include <stddef.h>

#include <cjson/cJSON.h>

#include "power/pg.h"
#include "serving/capacity.h"
#include "serving/simulate.h"

enum serving_knob {
    SK_RATE, SK_ARRIVAL, SK_CONCURRENCY, SK_REQUESTS, SK_DURATION, SK_SEED, SK_LENGTHS, SK_MAX_CONTEXT,
    SK_TRACE, SK_SCHEDULER, SK_BATCH, SK_MAX_SEQS, SK_MAX_TOKENS, SK_BLOCK, SK_RESERVE, SK_REPLICAS,
    SK_ROUTER, SK_PREFILL_TP, SK_DECODE_TP, SK_PREFILL_REPLICAS, SK_DECODE_REPLICAS, SK_SLO, SK_TOLERANCE,
    SK_PG, SK_DVFS, SK_WARMUP, SK_BATCHER_SIZE, SK_BATCHER_WAIT, SK_KV_FREE,
    SK_ADMIT_KV_FREE, SK_CAPACITY, SK_PP_MICRO, SK_MAX_NEW_TOKENS, SK_THINK_TIME, SK_N
};

struct serving_knobs {
    const char *v[SK_N];               /* by enum serving_knob; NULL: the default */
    bool offline, swap, find_rate;
    bool async_scheduling;             /* admissions a pass late, as vLLM's --async-scheduling */
    bool json_names;                   /* messages name "max_num_seqs", not --max-num-seqs */
    const char *out_dir, *timeline;    /* files (the command line's alone) */
};

/* The run's switches, by their JSON key ("offline", "swap",
 * "async_scheduling", "find_rate"): the flag in k, or NULL when key is no
 * switch. */
bool *serving_knob_switch(struct serving_knobs *k, const char *key);
/* Whether key is a switch a fleet deployment or a sweep point takes: every
 * one but find_rate (a search, not a run). */
bool serving_knob_run_switch(const char *key);

/* The knob's name as its front end spells it: "max-num-seqs" (the option
 * without its dashes) or "max_num_seqs" (the JSON key). NULL past SK_N. */
const char *serving_knob_name(enum serving_knob k, bool json);
/* The knob with that name (either spelling), or -1. */
int serving_knob_find(const char *name);

/* The knobs of a JSON object (POST /api/serving's keys; numbers printed
 * back as text into bufs, as a command line would give them; "offline",
 * "swap", "find_rate" booleans). Other keys are the caller's to check.
 * 0, or -1 with why naming the key. */
int serving_knobs_from_json(const cJSON *o, struct serving_knobs *k, char bufs[SK_N][48], char *why, size_t n);

struct serving_build {
    struct serving_spec spec;
    struct pg_strategy pg;             /* spec.pg points here when --pg is given */
    struct serving_slo slo;
    int64_t *pairs;                    /* the lengths table's pairs (malloc'ed), or NULL */
    bool find_rate;
    double tolerance, start_rps;       /* --find-rate: start_rps 0 = from the offline throughput */
};

/* Checks the knobs and makes b (which must not move after: the spec points
 * into it) for the family fam of configs c (their trees must outlive b);
 * configs: where a --pg strategy's file is looked for. -1 with why. */
int serving_build(const struct serving_knobs *k, const struct family *fam, const struct loaded_config *c,
                  const struct profile *prof, const char *configs, struct serving_build *b, char *why,
                  size_t whylen);
void serving_build_free(struct serving_build *b);

#endif
