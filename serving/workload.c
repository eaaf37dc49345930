/* workload.c — arrivals and lengths of a serving run's requests, parsed
 * from their specs and drawn from two seeded MT19937 streams (workload.h).
 * Main data structure: struct serving_gen. */
#include "serving/workload.h"

#include <math.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <gsl/gsl_randist.h>
#include <gsl/gsl_rng.h>

#include "base/lists.h"

#define SPEC_FIELDS_MAX 6
#define CONCURRENCY_MAX 16777216
#define TOKENS_MAX 16777216   /* FIELD_INT_MAX: a model's lengths */
#define NS_MAX 9.2e18         /* below 2^63 ns */

/* spec split at ':' into at most SPEC_FIELDS_MAX pieces in buf; their count. */
static int split(const char *spec, char *buf, size_t n, char **f)
{
    snprintf(buf, n, "%s", spec);
    int k = 0;
    for (char *p = buf; k < SPEC_FIELDS_MAX; k++) {
        f[k] = p;
        char *c = strchr(p, ':');
        if (!c)
            return k + 1;
        *c = '\0';
        p = c + 1;
    }
    return SPEC_FIELDS_MAX + 1;   /* too many */
}

static int positive_rate(const char *s, double *v)
{
    return !parse_f64_strict(s, v) && isfinite(*v) && *v > 0 ? 0 : -1;
}

int serving_arrivals_parse(const char *spec, struct serving_arrivals *a, struct npu_err *e)
{
    char buf[256], *f[SPEC_FIELDS_MAX];
    int n = split(spec, buf, sizeof buf, f);
    memset(a, 0, sizeof *a);
    a->cv = 1;
    if (n == 2 && !strcmp(f[0], "poisson") && !positive_rate(f[1], &a->rate_rps))
        return a->kind = ARRIVAL_POISSON, 0;
    if (n == 2 && !strcmp(f[0], "constant") && !positive_rate(f[1], &a->rate_rps))
        return a->kind = ARRIVAL_CONSTANT, 0;
    if (n == 3 && !strcmp(f[0], "gamma") && !positive_rate(f[1], &a->rate_rps) && !positive_rate(f[2], &a->cv))
        return a->kind = ARRIVAL_GAMMA, 0;
    if (n == 1 && !strcmp(f[0], "offline"))
        return a->kind = ARRIVAL_OFFLINE, 0;
    if (n == 2 && !strcmp(f[0], "closed") && !parse_i64_strict(f[1], &a->concurrency) && a->concurrency >= 1 &&
        a->concurrency <= CONCURRENCY_MAX)
        return a->kind = ARRIVAL_CLOSED, 0;
    return npu_errf(e, "arrivals \"%s\": expected poisson:RATE, gamma:RATE:CV, constant:RATE (requests per second "
                       "above 0; CV above 0), offline or closed:N (N clients from 1 to %d)",
                    spec, CONCURRENCY_MAX);
}

static int tokens(const char *s, int64_t *v)
{
    return !parse_i64_strict(s, v) && *v >= 1 && *v <= TOKENS_MAX ? 0 : -1;
}

static int mean_cv(const char *m, const char *c, double *mean, double *cv)
{
    return !parse_f64_strict(m, mean) && isfinite(*mean) && *mean >= 1 && *mean <= TOKENS_MAX &&
                   !parse_f64_strict(c, cv) && isfinite(*cv) && *cv >= 0 && *cv <= 100
               ? 0
               : -1;
}

static const struct { const char *name, *spec; } named_lengths[] = {
    { "chat", "lognormal:2340:0.89:439:0.61" },
    { "summarize", "lognormal:2588:0.37:291:1.82" },
};

int serving_lengths_parse(const char *spec, struct serving_lengths *l, struct npu_err *e)
{
    for (size_t i = 0; i < sizeof named_lengths / sizeof named_lengths[0]; i++)
        if (!strcmp(spec, named_lengths[i].name))
            spec = named_lengths[i].spec;
    char buf[256], *f[SPEC_FIELDS_MAX];
    int n = split(spec, buf, sizeof buf, f);
    memset(l, 0, sizeof *l);
    if (n == 3 && !strcmp(f[0], "fixed") && !tokens(f[1], &l->in_lo) && !tokens(f[2], &l->out_lo)) {
        l->in_hi = l->in_lo, l->out_hi = l->out_lo;
        return l->kind = LENGTHS_FIXED, 0;
    }
    if (n == 5 && !strcmp(f[0], "uniform") && !tokens(f[1], &l->in_lo) && !tokens(f[2], &l->in_hi) &&
        !tokens(f[3], &l->out_lo) && !tokens(f[4], &l->out_hi) && l->in_lo <= l->in_hi && l->out_lo <= l->out_hi)
        return l->kind = LENGTHS_UNIFORM, 0;
    if (n == 5 && !strcmp(f[0], "lognormal") && !mean_cv(f[1], f[2], &l->in_mean, &l->in_cv) &&
        !mean_cv(f[3], f[4], &l->out_mean, &l->out_cv))
        return l->kind = LENGTHS_LOGNORMAL, 0;
    return npu_errf(e, "lengths \"%s\": expected fixed:IN:OUT, uniform:IN_LO:IN_HI:OUT_LO:OUT_HI (tokens from 1 to "
                       "%d, each low end at most its high one) or lognormal:IN_MEAN:IN_CV:OUT_MEAN:OUT_CV (means "
                       "of at least 1 token, CVs from 0 to 100), or a name: " SERVING_LENGTHS_NAMED,
                    spec, TOKENS_MAX);
}

/* splitmix64: two independent seeds from one (the streams never share a state). */
static unsigned long stream_seed(uint64_t seed, uint64_t stream)
{
    uint64_t z = seed + stream * 0x9e3779b97f4a7c15ULL;
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
    return (unsigned long)(z ^ (z >> 31));
}

int serving_gen_init(struct serving_gen *g, const struct serving_workload *w, struct npu_err *e)
{
    memset(g, 0, sizeof *g);
    if (w->max_context != 0 && w->max_context < 2)
        return npu_errf(e, "a context of %lld tokens cannot hold a prompt and an answer of one token each",
                        (long long)w->max_context);
    gsl_rng *a = gsl_rng_alloc(gsl_rng_mt19937), *l = gsl_rng_alloc(gsl_rng_mt19937);
    gsl_rng *t = gsl_rng_alloc(gsl_rng_mt19937);
    if (!a || !l || !t) {
        gsl_rng_free(a);
        gsl_rng_free(l);
        gsl_rng_free(t);
        return npu_errf(e, "serving: out of memory");
    }
    gsl_rng_set(a, stream_seed(w->seed, 1));
    gsl_rng_set(l, stream_seed(w->seed, 2));
    gsl_rng_set(t, stream_seed(w->seed, 3));
    g->w = w, g->arrival_rng = a, g->length_rng = l, g->think_rng = t;
    return 0;
}

/* The gap before the next arrival, seconds: exponential (mean 1 / rate),
 * gamma of shape 1 / CV^2 and the same mean, or constant. */
static double gap_s(const struct serving_arrivals *a, gsl_rng *r)
{
    switch (a->kind) {
    case ARRIVAL_POISSON: return gsl_ran_exponential(r, 1 / a->rate_rps);
    case ARRIVAL_GAMMA: {
        double k = 1 / (a->cv * a->cv);
        return gsl_ran_gamma(r, k, 1 / (a->rate_rps * k));
    }
    case ARRIVAL_CONSTANT: return 1 / a->rate_rps;
    default: return 0;
    }
}

/* A lognormal draw of this mean and CV (sigma^2 = ln(1 + CV^2), mu = ln
 * mean - sigma^2 / 2), rounded to whole tokens, at least 1. */
static int64_t lognormal_tokens(gsl_rng *r, double mean, double cv)
{
    double s2 = log1p(cv * cv), x = cv > 0 ? gsl_ran_lognormal(r, log(mean) - s2 / 2, sqrt(s2)) : mean;
    return x >= TOKENS_MAX ? TOKENS_MAX : x < 1.5 ? 1 : (int64_t)llround(x);
}

/* The lengths of q; true when they were clipped to the context. */
static bool draw_lengths(const struct serving_workload *w, gsl_rng *r, struct serving_request *q)
{
    const struct serving_lengths *l = &w->lengths;
    if (l->kind == LENGTHS_LOGNORMAL) {
        q->input_tokens = lognormal_tokens(r, l->in_mean, l->in_cv);
        q->output_tokens = lognormal_tokens(r, l->out_mean, l->out_cv);
    } else if (l->kind == LENGTHS_TABLE) {
        size_t i = (size_t)gsl_rng_uniform_int(r, (unsigned long)l->npairs);
        q->input_tokens = l->pairs[2 * i];
        q->output_tokens = l->pairs[2 * i + 1];
    } else {
        q->input_tokens = l->in_lo + (int64_t)gsl_rng_uniform_int(r, (unsigned long)(l->in_hi - l->in_lo + 1));
        q->output_tokens = l->out_lo + (int64_t)gsl_rng_uniform_int(r, (unsigned long)(l->out_hi - l->out_lo + 1));
    }
    /* clipped to the context: the prompt leaves room for one answer token,
     * the answer takes what the prompt leaves */
    bool clipped = w->max_context > 0 && q->input_tokens + q->output_tokens > w->max_context;
    if (w->max_context > 0) {
        if (q->input_tokens > w->max_context - 1)
            q->input_tokens = w->max_context - 1;
        if (q->output_tokens > w->max_context - q->input_tokens)
            q->output_tokens = w->max_context - q->input_tokens;
    }
    return clipped;
}

int serving_gen_next(struct serving_gen *g, struct serving_request *r, struct npu_err *e)
{
    const struct serving_arrivals *a = &g->w->arrivals;
    if (g->n > 0)
        g->t_s += gap_s(a, g->arrival_rng);
    double ns = g->t_s * 1e9;
    if (!(ns < NS_MAX))
        return npu_errf(e, "request %lld would arrive after 2^63 ns (292 years): the rate is too low for the "
                           "number of requests", (long long)g->n);
    r->id = g->n++;
    r->arrival_ns = a->kind == ARRIVAL_CLOSED ? -1 : (int64_t)llround(ns);
    g->clipped += draw_lengths(g->w, g->length_rng, r);
    return 0;
}

int64_t serving_gen_think_ns(struct serving_gen *g)
{
    double s = g->w->arrivals.think_s > 0 ? gsl_ran_exponential(g->think_rng, g->w->arrivals.think_s) : 0;
    return s < 1e6 ? (int64_t)llround(s * 1e9) : (int64_t)1e15;   /* at most 11.6 days: no overflow */
}

void serving_gen_free(struct serving_gen *g)
{
    gsl_rng_free(g->arrival_rng);
    gsl_rng_free(g->length_rng);
    gsl_rng_free(g->think_rng);
    memset(g, 0, sizeof *g);
}
