/* report_serving.c — a serving run's folder as an HTML page (see
 * report_serving.h). Main data structure: struct table, the numeric
 * columns of a CSV read by name. */
#include "study/view/report_serving.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include <cjson/cJSON.h>

#include "base/csv_lines.h"
#include "base/json_strict.h"
#include "base/lists.h"
#include "base/strbuf.h"
#include "study/view/chart.h"
#include "study/view/report_html.h"

const char *const serving_figure_name[SERVING_FIG_COUNT] = { "latency_cdf", "batch_over_time", "kv_over_time",
                                                             "energy_cdf" };

bool serving_dir_is(const char *dir)
{
    static const char *const files[] = { "summary.json", "requests.csv", "iterations.csv" };
    for (size_t i = 0; i < 3; i++) {
        char p[4200];
        struct stat st;
        snprintf(p, sizeof p, "%s/%s", dir, files[i]);
        if (stat(p, &st) || !S_ISREG(st.st_mode))
            return false;
    }
    return true;
}

/* ---- the CSVs' columns ---- */

#define MAX_COLS 8

struct table {
    const char *name;                  /* the file, for messages */
    const char *const *cols;           /* wanted, by name */
    int ncols, at[MAX_COLS];           /* their places in the header */
    double *v;                         /* rows x ncols; NAN: empty */
    size_t n, cap;
    int line, cell;                    /* rows seen (the header first), the cell in the row */
    long csv_line;                     /* csv_feed_lines' line count */
    double row[MAX_COLS];
    int failed;                        /* stops the feed */
    struct npu_err *e;
};

/* "ok" 1, "rejected" 0 (requests.csv's status); a number; empty NAN.
 * Every number the two files hold is a time, a count or an energy: finite
 * and >= 0 (a damaged file would draw an axis from -1e308). */
static int cell_value(const char *col, const char *s, double *v)
{
    if (!*s)
        return *v = NAN, 0;
    if (!strcmp(col, "status"))
        return !strcmp(s, "ok") ? (*v = 1, 0) : !strcmp(s, "rejected") ? (*v = 0, 0) : -1;
    return parse_f64_strict(s, v) || !isfinite(*v) || *v < 0 ? -1 : 0;
}

static void on_field(void *s, size_t n, void *data)
{
    struct table *t = data;
    if (t->failed)
        return;
    char cell[64];
    snprintf(cell, sizeof cell, "%.*s", (int)(n < 63 ? n : 63), (const char *)s);
    for (int c = 0; c < t->ncols; c++) {
        if (t->line == 0 && !strcmp(cell, t->cols[c]))
            t->at[c] = t->cell;
        else if (t->line > 0 && t->at[c] == t->cell && cell_value(t->cols[c], cell, &t->row[c])) {
            npu_errf(t->e, "%s: line %d: column \"%s\": expected %s, got \"%s\"", t->name, t->line + 1, t->cols[c],
                     strcmp(t->cols[c], "status") ? "a number >= 0" : "ok or rejected", cell);
            t->failed = 1;
        }
    }
    t->cell++;
}

static void on_row(int term, void *data)
{
    (void)term;
    struct table *t = data;
    if (t->failed)
        return;
    if (t->line++ == 0) {
        for (int c = 0; c < t->ncols; c++)
            if (t->at[c] < 0) {
                npu_errf(t->e, "%s: line 1: no column \"%s\" (expected the file npusim serving -o writes)", t->name,
                         t->cols[c]);
                t->failed = 1;
                return;
            }
    } else {
        /* a pass holds at most the blocks there are (iterations.csv) */
        if (t->ncols == 6 && !strcmp(t->cols[4], "kv_blocks_used") && t->row[4] > t->row[5]) {
            npu_errf(t->e, "%s: line %d: column \"kv_blocks_used\": expected at most kv_blocks_total (%.0f), got %.0f",
                     t->name, t->line, t->row[5], t->row[4]);
            t->failed = 1;
            return;
        }
        if (t->n == t->cap) {
            size_t cap = t->cap ? 2 * t->cap : 256;
            double *p = realloc(t->v, cap * (size_t)t->ncols * sizeof *p);
            if (!p) {
                npu_errf(t->e, "%s: out of memory", t->name);
                t->failed = 1;
                return;
            }
            t->v = p, t->cap = cap;
        }
        memcpy(t->v + t->n++ * (size_t)t->ncols, t->row, (size_t)t->ncols * sizeof *t->row);
    }
    t->cell = 0;
    for (int c = 0; c < t->ncols; c++)
        t->row[c] = NAN;
}

static int table_read(struct table *t, const char *text, size_t len, struct npu_err *e)
{
    t->e = e;
    for (int c = 0; c < t->ncols; c++)
        t->at[c] = -1, t->row[c] = NAN;
    const char *why;
    if (csv_feed_lines(text, len, on_field, on_row, t, &t->csv_line, &t->failed, &why) && !t->failed)
        return npu_errf(e, "%s: malformed CSV (%s)", t->name, why);
    if (!t->failed && t->line == 0)
        return npu_errf(e, "%s: empty (expected the file npusim serving -o writes)", t->name);
    return t->failed ? -1 : 0;
}

static double cell(const struct table *t, size_t row, int c) { return t->v[row * (size_t)t->ncols + c]; }

/* ---- the figures ---- */

static int cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

/* A CDF of the positive values of column c (times scale) in at most 200
 * points, into x/y (room for 200); the points' count. */
static size_t cdf(const struct table *t, int c, int ok_col, double scale, double *x, double *y)
{
    double *v = malloc((t->n ? t->n : 1) * sizeof *v);
    size_t k = 0, m = 0;
    for (size_t i = 0; v && i < t->n; i++) {
        double a = cell(t, i, c) * scale;
        if (a > 0 && isfinite(a) && (ok_col < 0 || cell(t, i, ok_col) == 1))
            v[k++] = a;
    }
    if (v && k) {
        qsort(v, k, sizeof *v, cmp_double);
        size_t pts = k < 200 ? k : 200;
        for (size_t i = 0; i < pts; i++) {
            size_t r = pts == 1 ? 0 : i * (k - 1) / (pts - 1);
            x[m] = v[r], y[m++] = (double)(r + 1) / (double)k;
        }
    }
    free(v);
    return m;
}

#define SLICES 300

/* Tokens per pass (mean) and KV use (max, %) over SLICES slices of the run. */
static void over_time(const struct table *it, double *t, double *tok, double *kv, size_t *n)
{
    double end = 0, sum[SLICES] = { 0 }, cnt[SLICES] = { 0 }, mx[SLICES] = { 0 };
    for (size_t i = 0; i < it->n; i++)
        end = fmax(end, cell(it, i, 0) + cell(it, i, 1) / 1e3);
    *n = 0;
    if (!(end > 0))
        return;
    for (size_t i = 0; i < it->n; i++) {
        double s = cell(it, i, 0);
        if (!(s >= 0))
            continue;
        int b = (int)(s / end * SLICES);
        b = b < 0 ? 0 : b >= SLICES ? SLICES - 1 : b;
        double tokens = cell(it, i, 2) + cell(it, i, 3), used = cell(it, i, 4), total = cell(it, i, 5);
        if (isfinite(tokens))
            sum[b] += tokens, cnt[b]++;
        if (total > 0 && isfinite(used))
            mx[b] = fmax(mx[b], 100 * used / total);
    }
    for (int b = 0; b < SLICES; b++)
        if (cnt[b] > 0) {
            t[*n] = (b + 0.5) * end / SLICES, tok[*n] = sum[b] / cnt[b], kv[*n] = mx[b];
            (*n)++;
        }
}

static void figures(const struct table *rq, const struct table *it, char *fig[SERVING_FIG_COUNT])
{
    double x[3][200], y[3][200], tt[SLICES], tok[SLICES], kv[SLICES];
    size_t n[3];
    n[0] = cdf(rq, 1, 5, 1, x[0], y[0]);     /* TTFT ms */
    n[1] = cdf(rq, 2, 5, 1, x[1], y[1]);     /* TPOT ms */
    n[2] = cdf(rq, 3, 5, 1e3, x[2], y[2]);   /* end to end, s -> ms */
    struct xy_series lat[3] = { { "TTFT", n[0], x[0], y[0], true, true, false },
                                { "TPOT", n[1], x[1], y[1], true, false, false },
                                { "end to end", n[2], x[2], y[2], true, false, false } };
    struct line_chart c = { "Latency CDFs", "latency (ms)", "fraction of requests", 3, lat, 0, NULL, false };
    fig[SERVING_FIG_LATENCY] = line_chart_svg(&c);
    size_t m;
    over_time(it, tt, tok, kv, &m);
    struct xy_series b = { "tokens per pass (mean)", m, tt, tok, true, true, false };
    struct line_chart cb = { "Batch over time", "time (s)", "tokens per pass", 1, &b, 0, NULL, true };
    fig[SERVING_FIG_BATCH] = line_chart_svg(&cb);
    struct xy_series k = { "KV cache in use (max, %)", m, tt, kv, true, true, false };
    struct line_chart ck = { "KV cache over time", "time (s)", "% of the blocks", 1, &k, 0, NULL, true };
    fig[SERVING_FIG_KV] = line_chart_svg(&ck);
    n[0] = cdf(rq, 4, 5, 1, x[0], y[0]);
    struct xy_series en = { "energy per request", n[0], x[0], y[0], true, true, false };
    struct line_chart ce = { "Energy per request", "energy (J)", "fraction of requests", 1, &en, 0, NULL, false };
    fig[SERVING_FIG_ENERGY] = line_chart_svg(&ce);
}

/* ---- the page ---- */

static double num(const cJSON *o, const char *k)
{
    const cJSON *x = cJSON_GetObjectItemCaseSensitive(o, k);
    return cJSON_IsNumber(x) ? x->valuedouble : NAN;
}

static void row(struct strbuf *b, const char *label, double v, const char *unit)
{
    strbuf_puts(b, "<tr><th>");
    strbuf_xml(b, label);
    if (isfinite(v))
        strbuf_printf(b, "</th><td>%.6g %s</td></tr>\n", v, unit);
    else
        strbuf_puts(b, "</th><td>-</td></tr>\n");
}

static void summary_tables(struct strbuf *b, const cJSON *s)
{
    static const struct { const char *key, *label, *unit; } top[] = {
        { "requests", "requests", "" }, { "completed", "completed", "" }, { "rejected", "rejected", "" },
        { "requests_clipped", "clipped to --max-context", "" }, { "duration_s", "duration", "s" }, { "request_throughput_rps", "throughput", "requests/s" },
        { "output_tokens_per_s", "output tokens", "per s" },
        { "output_tokens_per_s_per_chip", "output tokens per chip", "per s" },
        { "goodput_rps", "goodput", "requests/s" },
        { "energy_per_request_J", "energy per request", "J" },
        { "energy_per_output_token_J", "energy per output token", "J" },
        { "avg_power_W_per_chip", "power per chip (mean)", "W" }, { "peak_power_W_per_chip", "power per chip (peak)", "W" },
        { "carbon_per_request_g", "carbon per request", "gCO2e" },
        { "carbon_per_million_tokens_kg", "carbon per million output tokens", "kgCO2e" },
    };
    strbuf_puts(b, "<h2>Summary</h2>\n<table>\n");
    for (size_t i = 0; i < sizeof top / sizeof top[0]; i++)
        row(b, top[i].label, num(s, top[i].key), top[i].unit);
    row(b, "KV cache peak", 100 * num(s, "kv_peak_utilisation"), "% of the blocks");
    strbuf_puts(b, "</table>\n<h2>Latency</h2>\n<table><tr><th></th><th>mean</th><th>p50</th><th>p90</th><th>p99</th>"
                   "<th>max</th></tr>\n");
    static const char *const lat[][2] = { { "ttft_ms", "TTFT (ms)" }, { "tpot_ms", "TPOT (ms)" },
                                          { "itl_ms", "ITL (ms)" }, { "e2e_s", "end to end (s)" },
                                          { "queue_s", "queueing (s)" } };
    for (size_t i = 0; i < sizeof lat / sizeof lat[0]; i++) {
        const cJSON *d = cJSON_GetObjectItemCaseSensitive(s, lat[i][0]);
        strbuf_printf(b, "<tr><th>%s</th>", lat[i][1]);
        static const char *const st[] = { "mean", "p50", "p90", "p99", "max" };
        for (size_t k = 0; k < 5; k++)
            strbuf_printf(b, "<td>%.5g</td>", num(d, st[k]));
        strbuf_puts(b, "</tr>\n");
    }
    strbuf_puts(b, "</table>\n");
    const cJSON *g = cJSON_GetObjectItemCaseSensitive(s, "pg");
    const cJSON *gs = cJSON_GetObjectItemCaseSensitive(g, "strategy");
    if (cJSON_IsString(gs)) {
        strbuf_puts(b, "<h2>Power gating</h2>\n<table>\n<tr><th>strategy</th><td>");
        strbuf_xml(b, gs->valuestring);
        strbuf_puts(b, "</td></tr>\n");
        row(b, "energy saved against NoPG", num(g, "energy_saved_pct"), "%");
        row(b, "NoPG energy (the same requests)", num(g, "baseline_energy_J"), "J");
        row(b, "wake-ups", num(g, "wakeups"), "");
        row(b, "wake-up delay", num(g, "wakeup_delay_ns"), "ns");
        row(b, "idle power per chip", num(g, "idle_power_W_per_chip"), "W");
        const cJSON *p = cJSON_GetObjectItemCaseSensitive(g, "latency_paid_ms");
        row(b, "TTFT p99 paid", num(p, "ttft_p99"), "ms");
        row(b, "TPOT p99 paid", num(p, "tpot_p99"), "ms");
        strbuf_puts(b, "</table>\n");
    }
    const cJSON *f = cJSON_GetObjectItemCaseSensitive(s, "find_rate");
    if (cJSON_IsObject(f)) {
        strbuf_puts(b, "<h2>Capacity at the SLO (--find-rate)</h2>\n<table>\n");
        row(b, "highest rate meeting the SLO", num(f, "max_rate_rps"), "requests/s");
        row(b, "per chip", num(f, "max_rate_rps_per_chip"), "requests/s");
        row(b, "tolerance", num(f, "tolerance"), "");
        strbuf_puts(b, "</table>\n");
    }
}

char *serving_report_html(const char *title, const char *summary, size_t ns, const char *summary_name,
                          const char *requests, size_t nr, const char *requests_name, const char *iterations,
                          size_t ni, const char *iterations_name, char *fig[SERVING_FIG_COUNT], struct npu_err *e)
{
    static const char *const rcols[] = { "arrival_s", "ttft_ms", "tpot_ms", "e2e_s", "energy_J", "status" };
    static const char *const icols[] = { "start_s", "duration_ms", "prefill_tokens", "decode_tokens", "kv_blocks_used",
                                         "kv_blocks_total" };
    for (int k = 0; k < SERVING_FIG_COUNT; k++)
        fig[k] = NULL;
    struct table rq = { .name = requests_name, .cols = rcols, .ncols = 6 };
    struct table it = { .name = iterations_name, .cols = icols, .ncols = 6 };
    cJSON *s = json_parse_strict(summary, ns, summary_name, e);
    int rc = !s ? -1 : !cJSON_IsObject(s) ? npu_errf(e, "%s: expected a JSON object (summary.json)", summary_name) : 0;
    if (!rc && (table_read(&rq, requests, nr, e) || table_read(&it, iterations, ni, e)))
        rc = -1;
    if (rc) {
        cJSON_Delete(s);
        free(rq.v), free(it.v);
        return NULL;
    }
    figures(&rq, &it, fig);
    struct strbuf b = STRBUF_GROWING;
    strbuf_puts(&b, "<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\"><title>npusim serving: ");
    strbuf_xml(&b, title);
    strbuf_printf(&b, "</title><style>%s</style></head>\n<body>\n<h1>npusim serving: ", report_style);
    strbuf_xml(&b, title);
    strbuf_printf(&b, "</h1>\n<p>%zu requests, %zu passes.</p>\n", rq.n, it.n);
    summary_tables(&b, s);
    static const char *const caption[SERVING_FIG_COUNT] = {
        "Latency CDFs: the fraction of requests within each latency.",
        "Tokens per pass over time (the mean over each of 300 slices of the run).",
        "KV-cache use over time (the most of any pass in each slice).",
        "Energy per request: its token share of its passes and its share of the idle time.",
    };
    for (int k = 0; k < SERVING_FIG_COUNT; k++)
        if (fig[k])
            strbuf_printf(&b, "<figure>%s<figcaption>%s</figcaption></figure>\n", fig[k], caption[k]);
    strbuf_puts(&b, "<footer>Written by npusim report from the files of npusim serving -o.</footer>\n</body></html>\n");
    cJSON_Delete(s);
    free(rq.v), free(it.v);
    return b.s;
}
