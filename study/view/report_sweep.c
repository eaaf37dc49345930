/* report_sweep.c — a sweep's summary as an HTML page (see report_sweep.h).
 * Main data structure: struct srow, one configuration that ran. */
#include "study/view/report_sweep.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "study/view/chart.h"
#include "study/view/report_html.h"
#include "base/csv_lines.h"
#include "base/lists.h"
#include "base/strbuf.h"

#define srow sweep_report_row

/* The columns read, by name; the reader keeps their index. Those from
 * C_REQUIRED on may be absent (summaries written before they existed). */
enum { C_MODEL, C_CHIP, C_CHIPS, C_BATCH, C_DP, C_TP, C_PP, C_STATUS, C_TPOT, C_TPUT, C_REQUIRED,
       C_MEM = C_REQUIRED, C_OOM, C_EP, C_UNIT, C_N };
static const char *const col_names[C_N] = { "model", "chip", "num_chips", "batch", "dp", "tp", "pp", "status",
                                            "TPOT_ms", "throughput", "memory_GiB", "out_of_memory", "ep",
                                            "throughput_unit" };

/* What the legend calls the points set apart (drawn hollow, off every front). */
static const char unfit_name[] = "does not fit in memory";

struct reader {
    int col[C_N], ncell, line, failed;
    char cell[C_N][64];
    struct srow *rows;
    size_t n, cap;
    size_t other;                    /* rows that ran counting another unit (DLRM, DiT, training) */
    char other_unit[64];
    const char *name;
    struct npu_err *e;
    long csv_line;
};

static void on_field(void *s, size_t n, void *data)
{
    struct reader *r = data;
    if (r->failed)
        return;
    if (r->line == 0) {
        for (int k = 0; k < C_N; k++)
            if (strlen(col_names[k]) == n && !memcmp(s, col_names[k], n))
                r->col[k] = r->ncell;
    } else
        for (int c = 0; c < C_N; c++)
            if (r->col[c] == r->ncell)
                snprintf(r->cell[c], sizeof r->cell[c], "%.*s", (int)(n < 63 ? n : 63), (const char *)s);
    r->ncell++;
}

static void on_row(int term, void *data)
{
    (void)term;
    struct reader *r = data;
    if (r->failed)
        return;
    if (r->line++ == 0) {
        for (int c = 0; c < C_REQUIRED; c++)
            if (r->col[c] < 0) {
                npu_errf(r->e, "%s: line 1: expected the columns of npusim sweep --summary (model, chip, num_chips, "
                               "batch, status, TPOT_ms, throughput, dp, tp, pp)", r->name);
                r->failed = 1;
            }
    } else if (!strcmp(r->cell[C_STATUS], "ok") && r->cell[C_UNIT][0] && strcmp(r->cell[C_UNIT], "output tokens")) {
        /* No TPOT, another unit: the figures (TPOT against output tokens/s) cannot show it. */
        if (!r->other++)
            snprintf(r->other_unit, sizeof r->other_unit, "%s", r->cell[C_UNIT]);
    } else if (!strcmp(r->cell[C_STATUS], "ok")) {
        struct srow s = { 0 };
        double tput;
        snprintf(s.model, sizeof s.model, "%s", r->cell[C_MODEL]);
        snprintf(s.chip, sizeof s.chip, "%s", r->cell[C_CHIP]);
        if (parse_i64_strict(r->cell[C_CHIPS], &s.chips) || parse_i64_strict(r->cell[C_BATCH], &s.batch) ||
            parse_i64_strict(r->cell[C_DP], &s.dp) || parse_i64_strict(r->cell[C_TP], &s.tp) ||
            parse_i64_strict(r->cell[C_PP], &s.pp) || parse_f64_strict(r->cell[C_TPOT], &s.tpot_ms) ||
            parse_f64_strict(r->cell[C_TPUT], &tput) || s.chips < 1 || s.batch < 1 || !(s.tpot_ms > 0) ||
            !(tput > 0)) {
            npu_errf(r->e, "%s: line %d: expected whole num_chips, batch, dp, tp, pp and positive TPOT_ms and "
                           "throughput", r->name, r->line);
            r->failed = 1;
        } else if ((r->cell[C_MEM][0] && parse_f64_strict(r->cell[C_MEM], &s.mem_GiB)) ||
                   (r->cell[C_EP][0] && (parse_i64_strict(r->cell[C_EP], &s.ep) || s.ep < 0)) ||
                   (r->cell[C_OOM][0] && strcmp(r->cell[C_OOM], "True") && strcmp(r->cell[C_OOM], "False"))) {
            npu_errf(r->e, "%s: line %d: expected memory_GiB a number, out_of_memory True or False and ep a "
                           "whole number (or empty)", r->name, r->line);
            r->failed = 1;
        } else {
            s.oom = !strcmp(r->cell[C_OOM], "True");
            s.tput_per_chip = tput / (double)s.chips;
            if (r->n == r->cap) {
                size_t cap = r->cap ? 2 * r->cap : 64;
                struct srow *p = realloc(r->rows, cap * sizeof *p);
                if (!p) {
                    npu_errf(r->e, "%s: out of memory", r->name);
                    r->failed = 1;
                    return;
                }
                r->rows = p, r->cap = cap;
            }
            r->rows[r->n++] = s;
        }
    }
    r->ncell = 0;
    memset(r->cell, 0, sizeof r->cell);
}


static int by_tpot(const void *a, const void *b)
{
    const struct srow *x = a, *y = b;
    return x->tpot_ms < y->tpot_ms ? -1 : x->tpot_ms > y->tpot_ms ? 1 : y->tput_per_chip > x->tput_per_chip ? 1 : -1;
}

/* The two throughput figures as data: what makes a series, its x and its
 * y (the best parallel layout's at each x). */
struct tput_axes {
    const char *title, *x_label, *y_label, *key_fmt;
    bool by_chips;                   /* x = chips, series per batch; else x = batch, series per chip count */
};
static const struct tput_axes per_batch = { "Output throughput per chip against batch", "batch (global)",
                                            "output tokens/s per chip", "%s on %lld %s", false };
static const struct tput_axes per_chips = { "Output throughput against chips", "chips", "output tokens/s",
                                            "%s, batch %lld, %s", true };

static double tput_x(const struct tput_axes *ax, const struct srow *r)
{
    return (double)(ax->by_chips ? r->chips : r->batch);
}
static double tput_y(const struct tput_axes *ax, const struct srow *r)
{
    return ax->by_chips ? r->tput_per_chip * (double)r->chips : r->tput_per_chip;
}
static bool same_series(const struct tput_axes *ax, const struct srow *a, const struct srow *b)
{
    return !strcmp(a->model, b->model) && !strcmp(a->chip, b->chip) &&
           (ax->by_chips ? a->batch == b->batch : a->chips == b->chips);
}

/* The points that do not fit (x[], y[] filled by the caller, k of them) as
 * the last series: hollow, grey, no line; nothing when k is 0. */
static void add_unfit(struct xy_series *se, size_t *ns, const double *x, const double *y, size_t k)
{
    if (k)
        se[(*ns)++] = (struct xy_series){ unfit_name, k, x, y, false, false, true };
}

/* A line per series (at most 32) of the rows that fit, x ascending, the best
 * y at each x; the rows that do not fit as hollow points. */
static char *tput_figure(const struct srow *rows, size_t n, const struct tput_axes *ax)
{
    struct xy_series se[33];
    double *xs = calloc(n + 1, sizeof *xs), *ys = calloc(n + 1, sizeof *ys);
    char (*names)[128] = calloc(32, sizeof *names);
    size_t ns = 0, used = 0;
    for (size_t i = 0; xs && ys && names && i < n && ns < 32; i++) {
        bool seen = rows[i].oom;
        for (size_t j = 0; j < i && !seen; j++)
            seen = !rows[j].oom && same_series(ax, &rows[j], &rows[i]);
        if (seen)
            continue;   /* each series gathered once, from its first row that fits */
        snprintf(names[ns], sizeof names[0], ax->key_fmt, rows[i].model,
                 (long long)(ax->by_chips ? rows[i].batch : rows[i].chips), rows[i].chip);
        se[ns] = (struct xy_series){ names[ns], 0, xs + used, ys + used, true, false, false };
        for (size_t j = i; j < n; j++) {
            if (rows[j].oom || !same_series(ax, &rows[j], &rows[i]))
                continue;
            double x = tput_x(ax, &rows[j]), y = tput_y(ax, &rows[j]);
            size_t k = 0;   /* x ascending, the best y per x */
            while (k < se[ns].n && xs[used + k] < x)
                k++;
            if (k < se[ns].n && xs[used + k] == x) {
                ys[used + k] = fmax(ys[used + k], y);
                continue;
            }
            memmove(xs + used + k + 1, xs + used + k, (se[ns].n - k) * sizeof *xs);
            memmove(ys + used + k + 1, ys + used + k, (se[ns].n - k) * sizeof *ys);
            xs[used + k] = x, ys[used + k] = y;
            se[ns].n++;
        }
        used += se[ns].n;
        ns++;
    }
    size_t k = 0;
    for (size_t i = 0; xs && ys && i < n; i++)
        if (rows[i].oom)
            xs[used + k] = tput_x(ax, &rows[i]), ys[used + k] = tput_y(ax, &rows[i]), k++;
    add_unfit(se, &ns, xs + used, ys + used, k);
    struct line_chart c = { ax->title, ax->x_label, ax->y_label, ns, se, 0, NULL, false };
    char *svg = xs && ys && names ? line_chart_svg(&c) : NULL;
    free(xs), free(ys), free(names);
    return svg;
}

/* rows sorted by TPOT: front[] the indices of the Pareto front of the rows
 * that fit in memory (one that does not is no answer, however fast). */
static size_t pareto(const struct srow *rows, size_t n, size_t *front)
{
    size_t k = 0;
    double best = -1;
    for (size_t i = 0; i < n; i++)
        if (!rows[i].oom && rows[i].tput_per_chip > best) {
            best = rows[i].tput_per_chip;
            front[k++] = i;
        }
    return k;
}

static char *pareto_figure(const struct srow *rows, size_t n, const size_t *front, size_t nf, double slo)
{
    double *x = calloc(n + nf + 1, sizeof *x), *y = calloc(n + nf + 1, sizeof *y);
    if (!x || !y) {
        free(x), free(y);
        return NULL;
    }
    size_t fit = 0, k = 0;   /* those that fit first, then the others from the end */
    for (size_t i = 0; i < n; i++) {
        size_t at = rows[i].oom ? n - 1 - k++ : fit++;
        x[at] = rows[i].tpot_ms, y[at] = rows[i].tput_per_chip;
    }
    for (size_t i = 0; i < nf; i++)
        x[n + i] = rows[front[i]].tpot_ms, y[n + i] = rows[front[i]].tput_per_chip;
    struct xy_series se[3] = { { "every configuration that fits", fit, x, y, false, false, false },
                               { "Pareto front", nf, x + n, y + n, true, true, false } };
    size_t ns = 2;
    add_unfit(se, &ns, x + fit, y + fit, k);
    char mark[64];
    snprintf(mark, sizeof mark, "SLO %g ms", slo);
    struct line_chart c = { "Time per output token against throughput per chip", "TPOT (ms)",
                            "output tokens/s per chip", ns, se, slo, mark, false };
    char *svg = line_chart_svg(&c);
    free(x), free(y);
    return svg;
}

const char *const sweep_figure_name[SWEEP_FIG_COUNT] = { "throughput_vs_batch", "throughput_vs_chips", "pareto" };

void sweep_report_section(struct strbuf *b, struct sweep_report_row *rows, size_t n, double slo,
                          char *fig[SWEEP_FIG_COUNT])
{
    size_t *front = calloc(n + 1, sizeof *front);
    fig[SWEEP_FIG_BATCH] = tput_figure(rows, n, &per_batch);
    fig[SWEEP_FIG_CHIPS] = tput_figure(rows, n, &per_chips);
    qsort(rows, n, sizeof *rows, by_tpot);
    size_t nf = front ? pareto(rows, n, front) : 0;
    fig[SWEEP_FIG_PARETO] = pareto_figure(rows, n, front, nf, slo);
    size_t unfit = 0;
    for (size_t i = 0; i < n; i++)
        unfit += rows[i].oom;
    if (unfit)
        strbuf_printf(b, "<p class=\"unfit\">%zu of the %zu configurations do not fit in memory (their footprint "
                         "per chip exceeds the chip's HBM): drawn as grey hollow points, \"%s\", and left off "
                         "the lines, the Pareto front and its table.</p>\n", unfit, n, unfit_name);
    strbuf_printf(b, "<h2>Throughput against batch</h2>\n<figure>%s</figure>\n"
                     "<h2>Throughput against chips</h2>\n<figure>%s</figure>\n"
                     "<h2>Latency and throughput: the Pareto front</h2>\n<figure>%s</figure>\n"
                     "<table id=\"pareto\"><tr><th>model</th><th>chip</th><th>chips</th><th>dp/tp/pp</th><th>batch</th>"
                     "<th>TPOT ms</th><th>output tokens/s per chip (end to end)</th></tr>\n",
                  fig[SWEEP_FIG_BATCH] ? fig[SWEEP_FIG_BATCH] : "", fig[SWEEP_FIG_CHIPS] ? fig[SWEEP_FIG_CHIPS] : "",
                  fig[SWEEP_FIG_PARETO] ? fig[SWEEP_FIG_PARETO] : "");
    for (size_t i = 0; i < nf; i++) {
        const struct srow *s = &rows[front[i]];
        strbuf_puts(b, "<tr><td>");
        strbuf_xml(b, s->model);
        strbuf_puts(b, "</td><td>");
        strbuf_xml(b, s->chip);
        /* Expert parallelism multiplies the chips too (a MoE point): said, so the degrees make up the count. */
        strbuf_printf(b, "</td><td>%lld</td><td>%lld/%lld/%lld", (long long)s->chips, (long long)s->dp,
                      (long long)s->tp, (long long)s->pp);
        if (s->ep > 1)
            strbuf_printf(b, ", ep %lld", (long long)s->ep);
        strbuf_printf(b, "</td><td>%lld</td><td class=\"%s\">%.4g</td><td>%.6g</td></tr>\n", (long long)s->batch,
                      slo > 0 ? (s->tpot_ms <= slo ? "meets" : "misses") : "", s->tpot_ms, s->tput_per_chip);
    }
    strbuf_puts(b, "</table>\n");
    free(front);
}

char *sweep_report_html(const char *name, const char *csv, size_t len, double slo, char *fig[SWEEP_FIG_COUNT],
                        struct npu_err *e)
{
    struct reader r = { .name = name, .e = e };
    for (int c = 0; c < C_N; c++)
        r.col[c] = -1;
    const char *why;
    for (int k = 0; k < SWEEP_FIG_COUNT; k++)
        fig[k] = NULL;
    if (csv_feed_lines(csv, len, on_field, on_row, &r, &r.csv_line, &r.failed, &why) && !r.failed)
        npu_errf(e, "%s: malformed CSV (%s)", name, why), r.failed = 1;
    if (!r.failed && !r.n && r.other)
        npu_errf(e, "%s: report --sweep draws LLM inference (TPOT against output tokens/s); the %zu configurations "
                    "that ran count %s (throughput_unit), whose throughput, energy, carbon and memory are the "
                    "summary's columns", name, r.other, r.other_unit), r.failed = 1;
    else if (!r.failed && !r.n)
        npu_errf(e, "%s: no configuration with status ok", name), r.failed = 1;
    if (r.failed) {
        free(r.rows);
        return NULL;
    }
    struct strbuf b = STRBUF_GROWING;
    strbuf_puts(&b, "<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\"><title>npusim sweep: ");
    strbuf_xml(&b, name);
    strbuf_printf(&b, "</title><style>%s</style></head>\n<body>\n<h1>Sweep: ", report_style);
    strbuf_xml(&b, name);
    strbuf_printf(&b, "</h1>\n<p>%zu configurations ran.</p>\n", r.n + r.other);
    if (r.other)
        strbuf_printf(&b, "<p class=\"unfit\">%zu of them count %s, not output tokens: the figures and the table "
                          "below (TPOT against output tokens/s) leave them out.</p>\n", r.other, r.other_unit);
    sweep_report_section(&b, r.rows, r.n, slo, fig);
    strbuf_puts(&b, "<footer>Written by npusim report --sweep.</footer>\n</body></html>\n");
    free(r.rows);
    return b.s;
}
