/* capacity.c — a serving SLO and the highest rate that meets it (see
 * capacity.h). */
#include "serving/capacity.h"

#include "serving/summary.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

#include "base/lists.h"

/* The statistics a bound may name: METRIC_STAT_UNIT. */
static const struct { const char *name, *metric, *unit; } metrics[] = {
    { "ttft", "ttft_ms", "ms" }, { "tpot", "tpot_ms", "ms" }, { "itl", "itl_ms", "ms" },
    { "e2e", "e2e_s", "s" }, { "queue", "queue_s", "s" },
};
static const char *const stats[] = { "p50", "p90", "p95", "p99", "mean", "max" };

#define N_OF(a) (sizeof(a) / sizeof((a)[0]))

/* Finds key among the statistics; 0 and *b filled, or -1. */
static int bound_of(const char *key, double v, struct serving_slo_bound *b)
{
    for (size_t i = 0; i < N_OF(metrics); i++)
        for (size_t j = 0; j < N_OF(stats); j++) {
            char k[32];
            snprintf(k, sizeof k, "%s_%s_%s", metrics[i].name, stats[j], metrics[i].unit);
            if (!strcmp(k, key)) {
                *b = (struct serving_slo_bound){ .metric = metrics[i].metric, .stat = stats[j], .limit = v };
                snprintf(b->key, sizeof b->key, "%s", k);
                return 0;
            }
        }
    return -1;
}

/* Whether key was already given: a repeated bound would silently take one
 * of the two values. */
static bool slo_has(const struct serving_slo *slo, const char *key)
{
    if (!strcmp(key, "ttft_ms"))
        return slo->ttft_ms > 0;
    if (!strcmp(key, "tpot_ms"))
        return slo->tpot_ms > 0;
    for (int i = 0; i < slo->n; i++)
        if (!strcmp(slo->b[i].key, key))
            return true;
    return false;
}

int serving_slo_parse(const char *text, struct serving_slo *slo, char *why, size_t whylen)
{
    memset(slo, 0, sizeof *slo);
    char buf[512];
    if (strlen(text) >= sizeof buf)
        return snprintf(why, whylen, "at most %zu characters", sizeof buf - 1), -1;
    snprintf(buf, sizeof buf, "%s", text);
    for (char *save = NULL, *p = strtok_r(buf, ",", &save); p; p = strtok_r(NULL, ",", &save)) {
        char *eq = strchr(p, '=');
        double v;
        if (!eq || parse_f64_strict(eq + 1, &v) || !isfinite(v) || v <= 0)
            return snprintf(why, whylen, "\"%s\" is not KEY=VALUE with a value above 0", p), -1;
        *eq = '\0';
        if (slo_has(slo, p))
            return snprintf(why, whylen, "\"%s\" is given twice", p), -1;
        if (!strcmp(p, "ttft_ms")) {
            slo->ttft_ms = v;
        } else if (!strcmp(p, "tpot_ms")) {
            slo->tpot_ms = v;
        } else if (slo->n == SERVING_SLO_MAX) {
            return snprintf(why, whylen, "at most %d statistic bounds", SERVING_SLO_MAX), -1;
        } else if (bound_of(p, v, &slo->b[slo->n++])) {
            return snprintf(why, whylen, "unknown bound \"%s\": a statistic bound is METRIC_STAT_UNIT, METRIC ttft, "
                                         "tpot or itl (ms) or e2e or queue (s), STAT p50, p90, p95, p99, mean or "
                                         "max, e.g. ttft_p99_ms", p), -1;
        }
    }
    if (slo->ttft_ms <= 0 && slo->tpot_ms <= 0 && slo->n == 0)
        return snprintf(why, whylen, "no bound given"), -1;
    return 0;
}

double serving_slo_value(const struct serving_slo_bound *b, const cJSON *summary)
{
    return serving_summary_num(summary, b->metric, b->stat);
}

bool serving_slo_met(const struct serving_slo *slo, const cJSON *summary)
{
    for (int i = 0; i < slo->n; i++)
        if (serving_slo_value(&slo->b[i], summary) > slo->b[i].limit)
            return false;
    return true;
}

/* ---- stopping a run that has missed the SLO ---- */

/* A percentile bound is missed for certain once enough requests exceed it:
 * over n values the q-quantile interpolates from the value of rank
 * k = floor(q (n - 1)) up, so it is above the limit when n - k of them are.
 * n is at most the requests of the run (fewer complete, fewer have a TPOT),
 * and n - floor(q (n - 1)) grows with n: counting to it for the run's
 * requests is safe. A maximum is missed by one value; a mean, or ITL
 * (per token), is judged at the end only. */
struct watch {
    const struct serving_slo *slo;
    int64_t need[SERVING_SLO_MAX], seen[SERVING_SLO_MAX];
    int missed;                        /* the bound that stopped the run, or -1 */
};

static void watch_init(struct watch *w, const struct serving_slo *slo, int64_t n)
{
    static const struct { const char *stat; double q; } qs[] = {
        { "p50", 0.50 }, { "p90", 0.90 }, { "p95", 0.95 }, { "p99", 0.99 }, { "max", 1.0 },
    };
    memset(w, 0, sizeof *w);
    w->slo = slo;
    w->missed = -1;
    for (int i = 0; i < slo->n; i++)
        for (size_t j = 0; n > 0 && j < N_OF(qs); j++)
            if (!strcmp(slo->b[i].stat, qs[j].stat) && strcmp(slo->b[i].metric, "itl_ms"))
                w->need[i] = qs[j].q == 1.0 ? 1 : n - (int64_t)floor(qs[j].q * (double)(n - 1));
}

static double record_value(const char *metric, const struct serving_record *r)
{
    if (!strcmp(metric, "ttft_ms"))
        return (double)(r->first_token_ns - r->arrival_ns) / 1e6;
    if (!strcmp(metric, "tpot_ms"))
        return r->output_tokens > 1 ? (double)(r->finish_ns - r->first_token_ns) / 1e6 /
                                      (double)(r->output_tokens - 1) : NAN;
    if (!strcmp(metric, "e2e_s"))
        return (double)(r->finish_ns - r->arrival_ns) / 1e9;
    return (double)(r->first_scheduled_ns - r->arrival_ns) / 1e9;   /* queue_s */
}

static int watch_record(void *arg, const struct serving_record *r)
{
    struct watch *w = arg;
    if (r->rejected)
        return 0;
    for (int i = 0; i < w->slo->n; i++)
        if (w->need[i] > 0 && record_value(w->slo->b[i].metric, r) > w->slo->b[i].limit &&
            ++w->seen[i] >= w->need[i])
            return w->missed = i, 1;
    return 0;
}

/* ---- the search ---- */

/* One run at rate (no files): 1 when it meets the SLO, 0 when not, -1 on
 * error. Its summary replaces *best when it meets. */
static int trial(const struct serving_spec *base, struct serving_steps *st, const struct serving_slo *slo,
                 double rate, struct serving_find_result *r, cJSON **best, struct npu_err *e)
{
    struct serving_spec s = serving_spec_inner(base, st);   /* the run at the rate found compares */
    struct watch w;
    watch_init(&w, slo, s.o.max_requests);
    s.w.arrivals.rate_rps = rate;
    s.missed = watch_record;
    s.missed_arg = &w;
    cJSON *sum = NULL;
    int rc = serving_simulate(&s, &sum, e);
    if (rc < 0 || rc == 2)   /* an error, or the deadline */
        return -1;
    /* a rate the replicas fall behind meets an SLO for the run's length only */
    bool ok = rc == 0 && serving_slo_met(slo, sum) && !serving_summary_above_capacity(sum);
    if (r->n < SERVING_FIND_TRIALS) {
        struct serving_rate_trial *t = &r->trials[r->n++];
        *t = (struct serving_rate_trial){ .rate_rps = rate, .meets = ok, .stopped = rc == 1, .missed = w.missed };
        t->throughput_rps = serving_summary_num(sum, NULL, "request_throughput_rps");
        t->output_tokens_per_s = serving_summary_num(sum, NULL, "output_tokens_per_s");
        for (int i = 0; i < slo->n; i++) {
            t->value[i] = sum ? serving_slo_value(&slo->b[i], sum) : NAN;
            if (t->missed < 0 && t->value[i] > slo->b[i].limit)
                t->missed = i;
        }
    }
    if (ok) {
        cJSON_Delete(*best);
        *best = sum;
    } else {
        cJSON_Delete(sum);
    }
    return ok;
}

/* Half the requests per second the spec's requests are served at when they
 * all arrive at once: where the search starts when not told. */
static int start_rate(const struct serving_spec *base, struct serving_steps *st, double *rate, struct npu_err *e)
{
    struct serving_spec s = serving_spec_inner(base, st);
    s.w.arrivals = (struct serving_arrivals){ .kind = ARRIVAL_OFFLINE };
    cJSON *sum = NULL;
    if (serving_simulate(&s, &sum, e))
        return -1;
    double served = serving_summary_num(sum, NULL, "request_throughput_rps");
    *rate = served > 0 ? served / 2 : 1;
    cJSON_Delete(sum);
    return 0;
}

/* The search; lo/hi as found (0: none). Halving stops at 1/1024 of the
 * start: an SLO missed there is missed without load (a long prompt's
 * prefill alone above a TTFT bound, say). */
static int search(const struct serving_spec *s, struct serving_steps *st, const struct serving_slo *slo, double tol,
                  double start, struct serving_find_result *r, cJSON **best, double *lo, double *hi,
                  struct npu_err *e)
{
    double rate = start;
    if (rate <= 0 && start_rate(s, st, &rate, e))
        return -1;
    int m = trial(s, st, slo, rate, r, best, e);
    if (m < 0)
        return -1;
    *(m ? lo : hi) = rate;
    /* bracket: double from a rate that meets, halve from one that does not */
    for (int k = 0; k < (m ? 30 : 10) && (m ? *hi == 0 : *lo == 0); k++) {
        rate = m ? rate * 2 : rate / 2;
        int x = trial(s, st, slo, rate, r, best, e);
        if (x < 0)
            return -1;
        *(x ? lo : hi) = rate;
    }
    while (*lo > 0 && *hi > 0 && *hi - *lo > tol * *lo && r->n < SERVING_FIND_TRIALS) {
        double mid = (*lo + *hi) / 2;
        int x = trial(s, st, slo, mid, r, best, e);
        if (x < 0)
            return -1;
        *(x ? lo : hi) = mid;
    }
    return 0;
}

int serving_find_rate(const struct serving_spec *s, const struct serving_slo *slo, double tolerance, double start_rps,
                      struct serving_find_result *r, cJSON **at_max, struct npu_err *e)
{
    memset(r, 0, sizeof *r);
    r->tolerance = tolerance;
    *at_max = NULL;
    if (slo->n == 0)
        return npu_errf(e, "--find-rate: the SLO has no statistic bound (e.g. ttft_p99_ms=500,tpot_p99_ms=50)");
    struct serving_steps st = { 0 };
    cJSON *best = NULL;
    double lo = 0, hi = 0;
    int rc = search(s, &st, slo, tolerance, start_rps, r, &best, &lo, &hi, e);
    if (!rc) {
        r->found = lo > 0;
        r->unbounded = r->found && hi == 0;
        r->max_rate_rps = lo;
        double chips = serving_summary_num(best, "setting", "chips");
        r->max_rate_rps_per_chip = chips > 0 ? lo / chips : 0;
    }
    cJSON *found = rc ? NULL : serving_find_json(r, slo);
    bool again = s->out_dir || s->timeline || s->rows || (s->pg_compare && (s->pg || s->dvfs));
    if (!rc && lo > 0 && again) {   /* the run at the rate found, with its files and its PG comparison */
        struct serving_spec w = *s;
        w.w.arrivals.rate_rps = lo;
        w.steps = &st;
        w.extra_key = "find_rate";
        w.extra = found;
        cJSON_Delete(best);
        best = NULL;
        rc = serving_simulate(&w, &best, e);
        cJSON_Delete(found);
    } else if (!rc) {
        if (!best)
            best = cJSON_CreateObject();
        cJSON_AddItemToObject(best, "find_rate", found);
    }
    serving_steps_free(&st);
    if (rc) {
        cJSON_Delete(best);
        return -1;
    }
    *at_max = best;
    return 0;
}

cJSON *serving_find_json(const struct serving_find_result *r, const struct serving_slo *slo)
{
    cJSON *o = cJSON_CreateObject();
    cJSON_AddBoolToObject(o, "found", r->found);
    cJSON_AddNumberToObject(o, "max_rate_rps", r->max_rate_rps);
    cJSON_AddNumberToObject(o, "max_rate_rps_per_chip", r->max_rate_rps_per_chip);
    cJSON_AddBoolToObject(o, "unbounded", r->unbounded);
    cJSON_AddNumberToObject(o, "tolerance", r->tolerance);
    cJSON *b = cJSON_AddObjectToObject(o, "slo");
    for (int i = 0; i < slo->n; i++)
        cJSON_AddNumberToObject(b, slo->b[i].key, slo->b[i].limit);
    cJSON *ts = cJSON_AddArrayToObject(o, "trials");
    for (int k = 0; k < r->n; k++) {
        cJSON *t = cJSON_CreateObject();
        cJSON_AddNumberToObject(t, "rate_rps", r->trials[k].rate_rps);
        cJSON_AddBoolToObject(t, "meets", r->trials[k].meets);
        cJSON_AddBoolToObject(t, "stopped_early", r->trials[k].stopped);
        if (r->trials[k].missed >= 0)
            cJSON_AddStringToObject(t, "missed", slo->b[r->trials[k].missed].key);
        const double served[2] = { r->trials[k].throughput_rps, r->trials[k].output_tokens_per_s };
        static const char *const served_key[2] = { "request_throughput_rps", "output_tokens_per_s" };
        for (int i = 0; i < 2; i++)
            if (isfinite(served[i]))
                cJSON_AddNumberToObject(t, served_key[i], served[i]);
        for (int i = 0; i < slo->n; i++) {
            double v = r->trials[k].value[i];
            if (isfinite(v))
                cJSON_AddNumberToObject(t, slo->b[i].key, v);
            else
                cJSON_AddNullToObject(t, slo->b[i].key);
        }
        cJSON_AddItemToArray(ts, t);
    }
    return o;
}
