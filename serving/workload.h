/* workload.h — the requests a serving run receives: when each arrives and
 * how long its prompt and its answer are (issue 42, `npusim serving`).
 *
 * Arrivals: a Poisson process at a rate (the default), a gamma renewal
 * process of a given coefficient of variation (burstier above 1, smoother
 * below), constant gaps, every request at time 0 (offline), or a closed
 * loop of N clients (the engine issues a request as one finishes, so the
 * generator gives lengths only). Lengths: fixed, uniform over integer
 * ranges, or lognormal of a mean and a coefficient of variation, each
 * clipped to the model's context. Everything is drawn from GSL's MT19937,
 * one stream for the arrivals, one for the lengths and one for a closed
 * loop's think times (seeded from --seed), so a seed always gives the same
 * requests and changing the lengths leaves the arrival times as they were.
 *
 * Main data structures: struct serving_workload (the specification),
 * struct serving_gen (a generator over it) and struct serving_request. */
#ifndef NPUSIM_SERVING_WORKLOAD_H
#define NPUSIM_SERVING_WORKLOAD_H

#include <stddef.h>
#include <stdint.h>

#include "base/err.h"

enum serving_arrival { ARRIVAL_POISSON, ARRIVAL_GAMMA, ARRIVAL_CONSTANT, ARRIVAL_OFFLINE, ARRIVAL_CLOSED };

struct serving_arrivals {
    enum serving_arrival kind;
    double rate_rps;        /* requests per second (Poisson, gamma, constant) */
    double cv;              /* gamma: the gaps' coefficient of variation */
    int64_t concurrency;    /* closed loop: clients, each with one request in flight */
    double think_s;         /* closed loop: the mean of each client's exponential wait between a
                             * response and its next request (0: none, it sends at once) */
};

enum serving_lengths_kind { LENGTHS_FIXED, LENGTHS_UNIFORM, LENGTHS_LOGNORMAL, LENGTHS_TABLE };

struct serving_lengths {
    enum serving_lengths_kind kind;
    int64_t in_lo, in_hi, out_lo, out_hi;   /* fixed: lo == hi; uniform: inclusive ranges (tokens) */
    double in_mean, in_cv, out_mean, out_cv;   /* lognormal (tokens) */
    const int64_t *pairs;   /* table: n (input, output) pairs, drawn with replacement (the caller's) */
    size_t npairs;
};

struct serving_workload {
    struct serving_arrivals arrivals;
    struct serving_lengths lengths;
    uint64_t seed;
    int64_t max_context;    /* tokens a request may hold, prompt and answer (0: no limit) */
};

struct serving_request {
    int64_t id;             /* 0, 1, 2, ... in arrival order */
    int64_t arrival_ns;     /* -1 in a closed loop: the engine sets it */
    int64_t input_tokens, output_tokens;   /* each at least 1 */
};

/* "poisson:RATE", "gamma:RATE:CV", "constant:RATE", "offline" or
 * "closed:N" into a; -1 with e naming the spec and what was expected (a
 * rate above 0 and finite, a CV above 0, N from 1 to 2^24). */
int serving_arrivals_parse(const char *spec, struct serving_arrivals *a, struct npu_err *e);

/* "fixed:IN:OUT", "uniform:IN_LO:IN_HI:OUT_LO:OUT_HI" or
 * "lognormal:IN_MEAN:IN_CV:OUT_MEAN:OUT_CV" (tokens, each at least 1; a
 * range's low end at most its high one; a CV of 0 or more), or one of the
 * named distributions (SERVING_LENGTHS_NAMED) into l; -1 with e naming the
 * spec. */
/* The named length distributions, lognormal fits of public traces'
 * statistics (docs/serving.md, bench/public/serving-workloads.md):
 *   chat       ShareGPT-8k (Sarathi-Serve): prompt mean 2340 (CV 0.89),
 *              answer mean 439 (CV 0.61), Llama-2 tokens;
 *   summarize  Arxiv-Summarization-4K (Vidur): prompt mean 2588 (CV 0.37),
 *              answer mean 291 (CV 1.82). */
#define SERVING_LENGTHS_NAMED "chat, summarize"
int serving_lengths_parse(const char *spec, struct serving_lengths *l, struct npu_err *e);

struct serving_gen {
    const struct serving_workload *w;
    void *arrival_rng, *length_rng;   /* gsl_rng *: the two streams */
    void *think_rng;                  /* gsl_rng *: a closed loop's think times (a third stream) */
    double t_s;                       /* the last arrival, seconds */
    int64_t n;                        /* requests made */
    int64_t clipped;                  /* of them, drawn longer than max_context and clipped to it */
};

/* A generator over w (which must outlive it); -1 with e when the context
 * cannot hold a prompt and an answer of one token each, or out of memory. */
int serving_gen_init(struct serving_gen *g, const struct serving_workload *w, struct npu_err *e);
/* The next request: the first arrives at 0, each next one a drawn gap later
 * (offline: all at 0). -1 with e when an arrival would pass 2^63 ns. */
int serving_gen_next(struct serving_gen *g, struct serving_request *r, struct npu_err *e);
/* A closed loop's next think time (ns): exponential of mean think_s, drawn
 * from its own stream, so a think time leaves the lengths as they were. */
int64_t serving_gen_think_ns(struct serving_gen *g);
void serving_gen_free(struct serving_gen *g);

#endif
