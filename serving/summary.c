/* summary.c — a serving run's measurements and summary (see summary.h).
 * Main data structure: struct serving_collect, growable arrays of the
 * latencies. */
#include "serving/summary.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "serving/metrics.h"

static void push(struct dvec *d, double x, bool *oom)
{
    if (d->n == d->cap) {
        size_t cap = d->cap ? 2 * d->cap : 256;
        double *p = realloc(d->v, cap * sizeof *p);
        if (!p) {
            *oom = true;
            return;
        }
        d->v = p, d->cap = cap;
    }
    d->v[d->n++] = x;
}

void collect_init(struct serving_collect *c, double slo_ttft_ms, double slo_tpot_ms, int64_t warmup)
{
    memset(c, 0, sizeof *c);
    c->slo_ttft_ms = slo_ttft_ms;
    c->slo_tpot_ms = slo_tpot_ms;
    c->warmup = warmup;
    c->m_start_ns = c->m_end_ns = -1;
}

void collect_free(struct serving_collect *c)
{
    struct dvec *d[] = { &c->ttft_ms, &c->tpot_ms, &c->e2e_s, &c->queue_s, &c->itl_ms, &c->row_pass_J,
                         &c->row_e2e_s, &c->arrival_s, &c->finish_s };
    for (size_t i = 0; i < sizeof d / sizeof d[0]; i++)
        free(d[i]->v);
    free(c->itl_w);
    memset(c, 0, sizeof *c);
}

void collect_request(struct serving_collect *c, const struct serving_record *r)
{
    c->requests++;
    double e2e = r->rejected ? 0 : (double)(r->finish_ns - r->arrival_ns) / 1e9;
    push(&c->row_pass_J, r->energy_J, &c->oom);
    push(&c->row_e2e_s, e2e, &c->oom);
    c->e2e_sum_s += e2e;
    if (r->rejected) {
        c->rejected++;
        return;
    }
    c->completed++;
    c->input_tokens += r->input_tokens;
    c->output_tokens += r->output_tokens;
    if (r->id < c->warmup)
        return;   /* a warm-up request: its energy and tokens above, no figure below */
    c->m_completed++;
    c->m_input_tokens += r->input_tokens;
    c->m_output_tokens += r->output_tokens;
    if (c->m_start_ns < 0 || r->arrival_ns < c->m_start_ns)
        c->m_start_ns = r->arrival_ns;
    if (r->finish_ns > c->m_end_ns)
        c->m_end_ns = r->finish_ns;
    double ttft = (double)(r->first_token_ns - r->arrival_ns) / 1e6;
    push(&c->ttft_ms, ttft, &c->oom);
    push(&c->e2e_s, e2e, &c->oom);
    push(&c->arrival_s, (double)r->arrival_ns / 1e9, &c->oom);
    push(&c->finish_s, (double)r->finish_ns / 1e9, &c->oom);
    push(&c->queue_s, (double)(r->first_scheduled_ns - r->arrival_ns) / 1e9, &c->oom);
    double tpot = NAN;
    if (r->output_tokens > 1) {
        tpot = (double)(r->finish_ns - r->first_token_ns) / 1e6 / (double)(r->output_tokens - 1);
        push(&c->tpot_ms, tpot, &c->oom);
    }
    bool ok = (c->slo_ttft_ms <= 0 || ttft <= c->slo_ttft_ms) &&
              (c->slo_tpot_ms <= 0 || r->output_tokens < 2 || tpot <= c->slo_tpot_ms);
    c->good += ok;
}

void collect_itl(struct serving_collect *c, int64_t gap_ns, int64_t n)
{
    if (c->itl_ms.n == c->itl_wcap) {
        size_t cap = c->itl_wcap ? 2 * c->itl_wcap : 256;
        int64_t *p = realloc(c->itl_w, cap * sizeof *p);
        if (!p) {
            c->oom = true;
            return;
        }
        c->itl_w = p, c->itl_wcap = cap;
    }
    size_t before = c->itl_ms.n;
    push(&c->itl_ms, (double)gap_ns / 1e6, &c->oom);
    if (c->itl_ms.n > before)
        c->itl_w[before] = n;
}

static void add_num(cJSON *o, const char *k, double v)
{
    if (isfinite(v))
        cJSON_AddNumberToObject(o, k, v);
    else
        cJSON_AddNullToObject(o, k);
}

static void add_dist(cJSON *o, const char *k, const struct serving_dist *d)
{
    cJSON *x = cJSON_AddObjectToObject(o, k);
    add_num(x, "mean", d->mean);
    add_num(x, "p50", d->p50);
    add_num(x, "p90", d->p90);
    add_num(x, "p95", d->p95);
    add_num(x, "p99", d->p99);
    add_num(x, "max", d->max);
}

cJSON *collect_summary(struct serving_collect *c, const struct serving_totals *t, int64_t chips)
{
    cJSON *o = cJSON_CreateObject();
    double dur = (double)t->end_ns / 1e9;
    /* the measured requests' window (with a warm-up), else the whole run */
    double win = c->warmup > 0 ? (c->m_end_ns > c->m_start_ns ? (double)(c->m_end_ns - c->m_start_ns) / 1e9 : 0)
                               : dur;
    double per = win > 0 ? 1 / win : NAN;
    cJSON_AddNumberToObject(o, "requests", (double)c->requests);
    cJSON_AddNumberToObject(o, "completed", (double)c->completed);
    cJSON_AddNumberToObject(o, "rejected", (double)c->rejected);
    add_num(o, "duration_s", dur);
    if (c->warmup > 0) {
        cJSON_AddNumberToObject(o, "warmup_requests", (double)c->warmup);
        add_num(o, "measured_s", win);
    }
    add_num(o, "request_throughput_rps", (double)c->m_completed * per);
    add_num(o, "input_tokens_per_s", (double)c->m_input_tokens * per);
    add_num(o, "output_tokens_per_s", (double)c->m_output_tokens * per);
    add_num(o, "output_tokens_per_s_per_chip", (double)c->m_output_tokens * per / (double)chips);
    struct serving_dist d;
    struct { const char *k; struct dvec *v; } lat[] = {
        { "ttft_ms", &c->ttft_ms }, { "tpot_ms", &c->tpot_ms }, { "e2e_s", &c->e2e_s }, { "queue_s", &c->queue_s },
    };
    for (size_t i = 0; i < sizeof lat / sizeof lat[0]; i++) {
        serving_dist_of(lat[i].v->v, lat[i].v->n, &d);
        add_dist(o, lat[i].k, &d);
        if (i == 1) {   /* itl_ms after tpot_ms, as the issue lists them */
            serving_dist_weighted(c->itl_ms.v, c->itl_w, c->itl_ms.n, &d);
            add_dist(o, "itl_ms", &d);
        }
    }
    /* arrival_s and finish_s are pushed together (out of memory, no summary is made) */
    add_num(o, "in_system_growth", serving_in_system_growth(c->arrival_s.v, c->finish_s.v, c->arrival_s.n));
    add_num(o, "goodput_rps", (double)c->good * per);
    cJSON_AddNumberToObject(o, "preemptions", (double)t->preemptions);
    add_num(o, "kv_peak_utilisation", t->kv_peak_utilisation);
    add_num(o, "mean_batch_tokens", t->passes ? (double)t->pass_tokens / (double)t->passes : NAN);
    return o;
}

double serving_summary_num(const cJSON *summary, const char *object, const char *key)
{
    const cJSON *o = object ? cJSON_GetObjectItemCaseSensitive(summary, object) : summary;
    const cJSON *x = cJSON_GetObjectItemCaseSensitive(o, key);
    return cJSON_IsNumber(x) ? x->valuedouble : NAN;
}

bool serving_summary_above_capacity(const cJSON *summary)
{
    return cJSON_IsTrue(cJSON_GetObjectItemCaseSensitive(summary, "above_capacity"));
}

static double num(const cJSON *o, const char *k) { return serving_summary_num(o, NULL, k); }

void serving_summary_print(const cJSON *s, FILE *out)
{
    const cJSON *set = cJSON_GetObjectItemCaseSensitive(s, "setting");
    const cJSON *sched = cJSON_GetObjectItemCaseSensitive(set, "scheduler");
    double chips = num(set, "chips");
    fprintf(out, "  requests      %.0f completed, %.0f rejected in %.3f s (%s scheduler, %.0f chip%s)\n",
            num(s, "completed"), num(s, "rejected"), num(s, "duration_s"),
            cJSON_IsString(sched) ? sched->valuestring : "?", chips, chips == 1 ? "" : "s");
    if (num(s, "requests_clipped") > 0)
        fprintf(out, "  lengths       %.0f of %.0f requests drawn longer than --max-context, clipped to it\n",
                num(s, "requests_clipped"), num(s, "requests"));
    fprintf(out, "  throughput    %.3f requests/s, %.1f input and %.1f output tokens/s (%.1f per chip)\n",
            num(s, "request_throughput_rps"), num(s, "input_tokens_per_s"), num(s, "output_tokens_per_s"),
            num(s, "output_tokens_per_s_per_chip"));
    fprintf(out, "  goodput       %.3f requests/s within the SLO\n", num(s, "goodput_rps"));
    static const struct { const char *k, *label, *unit; } lat[] = {
        { "ttft_ms", "TTFT", "ms" }, { "tpot_ms", "TPOT", "ms" }, { "itl_ms", "ITL", "ms" },
        { "e2e_s", "end to end", "s" }, { "queue_s", "queueing", "s" },
    };
    fprintf(out, "  %-13s %12s %12s %12s %12s %12s\n", "latency", "mean", "p50", "p90", "p99", "max");
    for (size_t i = 0; i < sizeof lat / sizeof lat[0]; i++) {
        const cJSON *d = cJSON_GetObjectItemCaseSensitive(s, lat[i].k);
        char label[32];
        snprintf(label, sizeof label, "%s (%s)", lat[i].label, lat[i].unit);
        fprintf(out, "  %-13s %12.4f %12.4f %12.4f %12.4f %12.4f\n", label, num(d, "mean"), num(d, "p50"),
                num(d, "p90"), num(d, "p99"), num(d, "max"));
    }
    fprintf(out, "  batches       %.1f tokens per pass on average over %.0f passes, %.1f%% busy\n",
            num(s, "mean_batch_tokens"), num(set, "passes"), 100 * num(set, "busy_fraction"));
    fprintf(out, "  KV cache      peak %.1f%% of the blocks, %.0f preemptions\n", 100 * num(s, "kv_peak_utilisation"),
            num(s, "preemptions"));
    fprintf(out, "  energy        %.4g J per request, %.4g J per output token; %.1f W per chip on average, "
                 "%.1f W at peak\n", num(s, "energy_per_request_J"), num(s, "energy_per_output_token_J"),
            num(s, "avg_power_W_per_chip"), num(s, "peak_power_W_per_chip"));
    const cJSON *g = cJSON_GetObjectItemCaseSensitive(s, "pg");
    const cJSON *gs = cJSON_GetObjectItemCaseSensitive(g, "strategy"), *gd = cJSON_GetObjectItemCaseSensitive(g, "dvfs");
    const cJSON *paid = cJSON_GetObjectItemCaseSensitive(g, "latency_paid_ms");
    if (cJSON_IsObject(paid))
        fprintf(out, "  power gating  %s, DVFS %s: %.1f%% less energy than NoPG, %.0f wake-ups of %.0f ns; TTFT p99 "
                     "%+.3f ms, TPOT p99 %+.4f ms\n", cJSON_IsString(gs) ? gs->valuestring : "?",
                cJSON_IsString(gd) ? gd->valuestring : "?", num(g, "energy_saved_pct"), num(g, "wakeups"),
                num(g, "wakeup_delay_ns"), num(paid, "ttft_p99"), num(paid, "tpot_p99"));
    const cJSON *k = cJSON_GetObjectItemCaseSensitive(s, "carbon");
    fprintf(out, "  carbon        %.4g g per request, %.4g kg per million output tokens (%g kgCO2e/kWh, PUE %g, "
                 "%g-year lifetime)\n", num(s, "carbon_per_request_g"), num(s, "carbon_per_million_tokens_kg"),
            num(k, "carbon_intensity_kg_per_kWh"), num(k, "PUE"), num(k, "lifetime_years"));
}
