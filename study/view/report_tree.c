/* report_tree.c — many runs as one page (see report_tree.h). Main data
 * structure: struct by_type, the seconds of each run's operators by type
 * and its energy per power-gating strategy. */
#include "study/view/report_tree.h"

#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "study/view/chart.h"
#include "study/view/report_html.h"
#include "study/view/report_sweep.h"
#include "base/strbuf.h"

const char *const report_tree_figure_name[TREE_FIG_COUNT] = { "time_by_run", "throughput_vs_batch",
                                                               "throughput_vs_chips", "pareto" };

#define TYPES_MAX 128
#define TYPES_SHOWN 9

struct by_type {
    int nrun, ntype;
    char type[TYPES_MAX][64];
    double s[REPORT_TREE_BARS][TYPES_MAX];
    char bar[REPORT_TREE_BARS][16];        /* "#1", "#2", ...: the runs table's numbers */
    struct pg_energy {                     /* each run's energy per strategy (J, both phases) */
        int n;
        char name[REPORT_PG_MAX][64];
        double J[REPORT_PG_MAX];
    } pg[REPORT_TREE_BARS];
};

static void add_times(struct by_type *b, int run, const struct trace *t)
{
    for (size_t i = 0; i < t->n; i++) {
        const struct op *op = &t->ops[i];
        const char *ty = report_op_type(op);
        int k = 0;
        while (k < b->ntype && strcmp(b->type[k], ty))
            k++;
        if (k == b->ntype && k < TYPES_MAX)
            snprintf(b->type[b->ntype++], sizeof b->type[0], "%s", ty);
        if (k < TYPES_MAX)
            b->s[run][k] += (double)op->exe_ns * (double)(op->count > 0 ? op->count : 1) / 1e9;
    }
}

/* One stacked bar per run: the TYPES_SHOWN types of most time overall, the rest as "other". */
static char *time_figure(struct by_type *b)
{
    double total[TYPES_MAX] = { 0 };
    int idx[TYPES_MAX];
    for (int k = 0; k < b->ntype; k++) {
        idx[k] = k;
        for (int r = 0; r < b->nrun; r++)
            total[k] += b->s[r][k];
    }
    for (int i = 1; i < b->ntype; i++)   /* most time first; ties by name */
        for (int j = i; j > 0 && (total[idx[j]] > total[idx[j - 1]] ||
                                  (total[idx[j]] == total[idx[j - 1]] && strcmp(b->type[idx[j]], b->type[idx[j - 1]]) < 0));
             j--) {
            int t = idx[j];
            idx[j] = idx[j - 1], idx[j - 1] = t;
        }
    int shown = b->ntype < TYPES_SHOWN ? b->ntype : TYPES_SHOWN, ns = shown + (b->ntype > shown);
    const char *series[TYPES_SHOWN + 1], *bars[REPORT_TREE_BARS];
    double *v = calloc((size_t)(b->nrun * ns + 1), sizeof *v);
    if (!v)
        return NULL;
    for (int k = 0; k < shown; k++)
        series[k] = b->type[idx[k]];
    if (ns > shown)
        series[shown] = "other";
    for (int r = 0; r < b->nrun; r++) {
        bars[r] = b->bar[r];
        for (int k = 0; k < b->ntype; k++)
            v[r * ns + (k < shown ? k : shown)] += b->s[r][idx[k]];
    }
    struct bar_chart c = { .title = "Time per operator type, each run (all phases)", .unit = "seconds",
                           .n_bars = b->nrun, .n_series = ns, .bars = bars, .series = series, .value = v };
    char *svg = bar_chart_svg(&c);
    free(v);
    return svg;
}

/* The numeric columns of the runs table: shown when some run has a value. */
static const struct column {
    const char *head, *fmt;
    size_t off;                            /* a double in struct run_figures */
} columns[] = {
    { "TTFT s", "%.6g", offsetof(struct run_figures, ttft_s) },
    { "TPOT ms", "%.6g", offsetof(struct run_figures, tpot_ms) },
    { "throughput", "%.6g", offsetof(struct run_figures, tput) },
    { "latency s", "%.6g", offsetof(struct run_figures, latency_s) },
    { "energy J", "%.6g", offsetof(struct run_figures, energy_J) },
    { "memory GB", "%.4g", offsetof(struct run_figures, mem_GB) },
};
#define NCOLUMNS (sizeof columns / sizeof columns[0])

static double column_value(const struct run_figures *f, size_t c)
{
    return *(const double *)((const char *)f + columns[c].off);
}

static void runs_row(struct strbuf *s, size_t i, const struct found_run *r, const struct run_figures *f,
                     const bool *shown)
{
    strbuf_printf(s, "<tr><td>%zu</td><td class=\"run\">", i + 1);
    strbuf_xml(s, r->label);
    strbuf_puts(s, "</td><td>");
    strbuf_xml(s, f->model);
    strbuf_puts(s, "</td><td>");
    strbuf_xml(s, f->chip);
    strbuf_printf(s, "</td><td>%lld</td><td>%lld/%lld/%lld</td><td>%lld</td>", (long long)f->chips, (long long)f->dp,
                  (long long)f->tp, (long long)f->pp, (long long)f->batch);
    for (size_t c = 0; c < NCOLUMNS; c++) {
        double v = column_value(f, c);
        if (!shown[c])
            continue;
        strbuf_puts(s, "<td>");
        if (v > 0)
            strbuf_printf(s, columns[c].fmt, v);
        if (v > 0 && columns[c].off == offsetof(struct run_figures, tput) && f->tput_unit)
            strbuf_printf(s, " %s", f->tput_unit);
        strbuf_puts(s, "</td>");
    }
    strbuf_printf(s, "<td>%s</td></tr>\n", f->oom ? "yes" : "");
}

/* The runs table; LLM rows with a TPOT also into rows[] for the sweep section. */
static size_t runs_table(struct strbuf *s, const struct found_runs *runs, struct sweep_report_row *rows)
{
    struct run_figures *f = calloc(runs->n + 1, sizeof *f);
    bool shown[NCOLUMNS] = { false };
    size_t nrows = 0;
    if (!f)
        return 0;
    for (size_t i = 0; i < runs->n; i++) {
        f[i] = runs->r[i].fig;
        for (size_t c = 0; c < NCOLUMNS; c++)
            shown[c] |= column_value(&f[i], c) > 0;
    }
    strbuf_puts(s, "<h2 id=\"runs\">Runs</h2>\n<div class=\"wide\"><table id=\"runs-table\"><tr><th>#</th><th>run</th>"
                   "<th>model</th><th>chip</th><th>chips</th><th>dp/tp/pp</th><th>batch</th>");
    for (size_t c = 0; c < NCOLUMNS; c++)
        if (shown[c])
            strbuf_printf(s, "<th>%s</th>", columns[c].head);
    strbuf_puts(s, "<th>out of memory</th></tr>\n");
    for (size_t i = 0; i < runs->n; i++) {
        runs_row(s, i, &runs->r[i], &f[i], shown);
        if (f[i].tpot_ms > 0 && f[i].tput > 0 && f[i].chips > 0) {
            struct sweep_report_row *w = &rows[nrows++];
            snprintf(w->model, sizeof w->model, "%s", f[i].model);
            snprintf(w->chip, sizeof w->chip, "%s", f[i].chip);
            w->chips = f[i].chips, w->batch = f[i].batch, w->dp = f[i].dp, w->tp = f[i].tp, w->pp = f[i].pp;
            w->tpot_ms = f[i].tpot_ms, w->tput_per_chip = f[i].tput / (double)f[i].chips;
            w->mem_GiB = f[i].mem_GB, w->oom = f[i].oom;   /* kept off the front */
        }
    }
    strbuf_puts(s, "</table></div>\n");
    free(f);
    return nrows;
}

/* Each run's energy per strategy: a row per run, a column per strategy (in
 * the order first met: NoPG first), each cell the energy and its saving
 * against the run's first strategy. */
static void pg_table(struct strbuf *s, const struct by_type *b)
{
    char names[REPORT_PG_MAX][64];
    int nn = 0;
    for (int r = 0; r < b->nrun; r++)
        for (int k = 0; k < b->pg[r].n; k++) {
            int j = 0;
            while (j < nn && strcmp(names[j], b->pg[r].name[k]))
                j++;
            if (j == nn && nn < REPORT_PG_MAX)
                snprintf(names[nn++], sizeof names[0], "%s", b->pg[r].name[k]);
        }
    if (!nn)
        return;
    strbuf_puts(s, "<h2 id=\"power-gating\">Energy per power-gating strategy</h2>\n<p>Each run's energy (J) with "
                   "each strategy whose trace lies beside it, and the saving against the first.</p>\n"
                   "<div class=\"wide\"><table id=\"pg-table\"><tr><th>#</th>");
    for (int j = 0; j < nn; j++) {
        strbuf_puts(s, "<th>");
        strbuf_xml(s, names[j]);
        strbuf_puts(s, "</th>");
    }
    strbuf_puts(s, "</tr>\n");
    for (int r = 0; r < b->nrun; r++) {
        const struct pg_energy *p = &b->pg[r];
        if (!p->n)
            continue;
        strbuf_printf(s, "<tr><td>%s</td>", b->bar[r]);
        for (int j = 0; j < nn; j++) {
            int k = 0;
            while (k < p->n && strcmp(p->name[k], names[j]))
                k++;
            if (k == p->n)
                strbuf_puts(s, "<td></td>");
            else if (k == 0)
                strbuf_printf(s, "<td>%.6g</td>", p->J[k]);
            else
                strbuf_printf(s, "<td>%.6g (%+.1f%%)</td>", p->J[k], p->J[0] > 0 ? 100 * (p->J[k] - p->J[0]) / p->J[0] : 0);
        }
        strbuf_puts(s, "</tr>\n");
    }
    strbuf_puts(s, "</table></div>\n");
}

static void keep_pg(struct pg_energy *p, const struct report_run *r)
{
    p->n = r->in.n_pg;
    for (int k = 0; k < p->n; k++) {
        snprintf(p->name[k], sizeof p->name[0], "%s", r->in.pg_name[k]);
        p->J[k] = r->in.pg_energy_J[k][0] + r->in.pg_energy_J[k][1];
    }
}

char *report_tree_html(const char *title, const struct found_runs *runs, const struct chip_config *chip,
                       const char *chip_name, double slo, char *fig[TREE_FIG_COUNT], struct npu_err *e)
{
    memset(fig, 0, TREE_FIG_COUNT * sizeof *fig);
    struct by_type *b = calloc(1, sizeof *b);
    struct sweep_report_row *rows = calloc(runs->n + 1, sizeof *rows);
    struct strbuf s = STRBUF_GROWING;
    int rc = b && rows ? 0 : npu_errf(e, "report: out of memory");
    for (size_t i = 0; !rc && i < runs->n && i < REPORT_TREE_BARS; i++) {
        struct report_run r;
        report_run_init(&r);
        rc = report_run_from_files(&runs->r[i], chip, chip_name, &r, e);
        if (!rc) {
            snprintf(b->bar[b->nrun], sizeof b->bar[0], "#%zu", i + 1);
            keep_pg(&b->pg[b->nrun], &r);
            add_times(b, b->nrun++, &r.t);
        }
        report_run_free(&r);
    }
    if (!rc) {
        strbuf_puts(&s, "<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\"><title>npusim: ");
        strbuf_xml(&s, title);
        strbuf_printf(&s, "</title><style>%s</style></head>\n<body>\n<h1>npusim: ", report_style);
        strbuf_xml(&s, title);
        strbuf_printf(&s, "</h1>\n<p>%zu runs read back from their files; none simulated again.</p>\n", runs->n);
        size_t nrows = runs_table(&s, runs, rows);
        fig[TREE_FIG_TIME] = time_figure(b);
        strbuf_puts(&s, "<h2 id=\"time\">Time per operator type</h2>\n");
        if (runs->n > REPORT_TREE_BARS)
            strbuf_printf(&s, "<p>The first %d runs; name one folder or file for the others.</p>\n", REPORT_TREE_BARS);
        strbuf_printf(&s, "<figure>%s</figure>\n", fig[TREE_FIG_TIME] ? fig[TREE_FIG_TIME] : "");
        if (nrows)
            sweep_report_section(&s, rows, nrows, slo, fig + TREE_FIG_SWEEP);
        pg_table(&s, b);
        strbuf_puts(&s, "<footer>Written by npusim report from the files of a run or a results tree; every "
                        "figure is inline SVG (also written on its own with --svg-dir).</footer>\n</body></html>\n");
    }
    free(b);
    free(rows);
    if (rc) {
        free(s.s);
        for (int k = 0; k < TREE_FIG_COUNT; k++)
            free(fig[k]), fig[k] = NULL;
        return NULL;
    }
    return s.s;
}
