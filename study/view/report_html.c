/* report_html.c — a run as one self-contained HTML page (see
 * report_html.h). Main data structure: struct agg, the time and energy of
 * a trace by phase and operator type or component. */
#include "study/view/report_html.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "study/view/chart.h"
#include "study/view/roofline.h"
#include "base/strbuf.h"

const char *const report_figure_name[FIG_COUNT] = { "time_by_op_type", "roofline", "energy_by_component",
                                                    "power_gating" };

#define TYPES_SHOWN 9                      /* the rest summed as "other" */
#define TYPES_MAX 256
/* The energy components (enum of op.h's energy terms) in the chip's words:
 * MXU, VPU, ICI on a TPU; tensor cores, CUDA cores, NVLink on an NVIDIA GPU. */
static void component_names(const struct chip_config *chip, const char *name[NUM_EN])
{
    const struct chip_vocab *v = chip_vocab(chip);
    const char *const n[NUM_EN] = { v->matrix, v->vector, "SRAM", "HBM", v->link, "other" };
    memcpy(name, n, sizeof n);
}

struct agg {
    int n_phase;
    int phase_of[3];                       /* enum phase -> column, -1 absent */
    const char *phase_name[3];
    int n_type;
    const char *type[TYPES_MAX];
    double time_s[TYPES_MAX][3];           /* by type and phase column */
    double energy_J[NUM_EN][3];
    bool energy;
};

const char *report_op_type(const struct op *op)
{
    return op->parsed_op_type && *op->parsed_op_type ? op->parsed_op_type : op->opcode && *op->opcode ? op->opcode
                                                                                                        : "other";
}

/* Whether op's time shows: every op of a one-chip trace, the shown chip's
 * of a trace of several. */
static bool op_shown(const struct report_input *in, const struct op *op)
{
    return in->n_chips <= 1 || op->group == in->shown_chip;
}

static void aggregate(const struct report_input *in, struct agg *a)
{
    const struct trace *t = in->t;
    static const char *const names[] = { "ops", "prefill", "decode" };
    memset(a, 0, sizeof *a);
    for (int p = 0; p < 3; p++)
        a->phase_of[p] = -1;
    for (size_t i = 0; i < t->n; i++) {
        const struct op *op = &t->ops[i];
        int p = (int)op->phase;
        bool shown = op_shown(in, op);
        if (a->phase_of[p] < 0) {
            a->phase_of[p] = a->n_phase;
            a->phase_name[a->n_phase++] = names[p];
        }
        int col = a->phase_of[p];
        double n = op->count > 0 ? (double)op->count : 1;
        const char *ty = report_op_type(op);
        int k = 0;
        while (k < a->n_type && strcmp(a->type[k], ty))
            k++;
        if (shown && k == a->n_type && k < TYPES_MAX)
            a->type[a->n_type++] = ty;
        if (shown && k < a->n_type)
            a->time_s[k][col] += (double)op->exe_ns * n / 1e9;
        if (op->energy_done) {
            a->energy = true;
            for (int c = 0; c < NUM_EN; c++)   /* the fields are one execution's */
                a->energy_J[c][col] += (op->static_J[c] + op->dynamic_J[c]) * n;
        }
    }
}

static double type_total(const struct agg *a, int k)
{
    double s = 0;
    for (int p = 0; p < a->n_phase; p++)
        s += a->time_s[k][p];
    return s;
}

/* Types by total time, the largest first (ties by name: deterministic). */
static void sort_types(struct agg *a)
{
    for (int i = 1; i < a->n_type; i++)
        for (int j = i; j > 0; j--) {
            double x = type_total(a, j - 1), y = type_total(a, j);
            if (x > y || (x == y && strcmp(a->type[j - 1], a->type[j]) <= 0))
                break;
            const char *tn = a->type[j];
            a->type[j] = a->type[j - 1], a->type[j - 1] = tn;
            double tmp[3];
            memcpy(tmp, a->time_s[j], sizeof tmp);
            memcpy(a->time_s[j], a->time_s[j - 1], sizeof tmp);
            memcpy(a->time_s[j - 1], tmp, sizeof tmp);
        }
}

static char *time_figure(const struct agg *a, const char *title, const char *whose)
{
    int shown = a->n_type < TYPES_SHOWN ? a->n_type : TYPES_SHOWN, ns = shown + (a->n_type > shown);
    const char *series[TYPES_SHOWN + 1];
    double v[3 * (TYPES_SHOWN + 1)] = { 0 };
    for (int k = 0; k < a->n_type; k++)
        for (int p = 0; p < a->n_phase; p++)
            v[p * ns + (k < shown ? k : shown)] += a->time_s[k][p];
    /* the largest type at the bottom of each bar */
    for (int k = 0; k < shown; k++)
        series[k] = a->type[k];
    if (ns > shown)
        series[shown] = "other";
    char t[300];
    snprintf(t, sizeof t, "Time per operator type: %s%s", title, whose);
    struct bar_chart c = { .title = t, .unit = "seconds", .n_bars = a->n_phase, .n_series = ns, .bars = a->phase_name,
                           .series = series, .value = v };
    return bar_chart_svg(&c);
}

static char *energy_figure(const struct agg *a, const char *title, const char *whose, const char *const *component_name)
{
    double v[3 * NUM_EN];
    for (int p = 0; p < a->n_phase; p++)
        for (int c = 0; c < NUM_EN; c++)
            v[p * NUM_EN + c] = a->energy_J[c][p];
    char t[300];
    snprintf(t, sizeof t, "Energy by component: %s%s", title, whose);
    struct bar_chart c = { .title = t, .unit = "joules", .n_bars = a->n_phase, .n_series = NUM_EN, .bars = a->phase_name,
                           .series = component_name, .value = v };
    return bar_chart_svg(&c);
}

static char *pg_figure(const struct report_input *in, const struct agg *a)
{
    double v[REPORT_PG_MAX * 2];
    for (int s = 0; s < in->n_pg; s++)
        for (int p = 0; p < a->n_phase && p < 2; p++)
            v[s * a->n_phase + p] = in->pg_energy_J[s][p];
    char t[300];
    snprintf(t, sizeof t, "Energy per power-gating strategy: %s", in->title);
    struct bar_chart c = { .title = t, .unit = "joules", .n_bars = in->n_pg, .n_series = a->n_phase < 2 ? a->n_phase : 2,
                           .bars = in->pg_name, .series = a->phase_name, .value = v };
    return bar_chart_svg(&c);
}

static char *roofline_figure(const struct report_input *in)
{
    struct roofline_point *p = calloc(in->t->n + 1, sizeof *p);
    if (!p)
        return NULL;
    size_t k = 0;
    for (size_t i = 0; i < in->t->n; i++) {
        const struct op *op = &in->t->ops[i];
        if (op->flops <= 0 || op->bytes <= 0 || op->exe_ns <= 0 || !op_shown(in, op))
            continue;
        /* the interconnect bound in the chip's word (ICI, NVLink) */
        const char *b = op->bounded_by == BOUND_ICI ? chip_vocab(in->chip)->link : bounded_by_name(op->bounded_by);
        p[k++] = (struct roofline_point){ (double)op->flops / (double)op->bytes,
                                          (double)op->flops / (double)op->exe_ns / 1e3, *b ? b : "unbound", false,
                                          op->name ? op->name : "op" };
    }
    char *svg = k ? roofline_svg(in->chip, in->chip_name, p, k) : NULL;
    free(p);
    return svg;
}

const char report_style[] =
    "body{font-family:sans-serif;margin:2em auto;max-width:1000px;color:#222}"
    "h1{font-size:1.5em}h2{font-size:1.2em;margin-top:2em;border-bottom:1px solid #ccc}"
    "pre{background:#f6f6f6;padding:1em;overflow-x:auto}figure{margin:1em 0;overflow-x:auto}"
    "table{border-collapse:collapse;margin:1em 0}td,th{border:1px solid #ccc;padding:3px 8px;text-align:right}"
    "th:first-child,td:first-child{text-align:left}.meets{background:#c8e6c9}.misses{background:#ffcdd2}"
    "footer{margin-top:3em;color:#777;font-size:.9em}"
    ".wide{overflow-x:auto}.wide table{font-size:.85em}.wide td{white-space:nowrap}";

/* A table of rows by phase columns: value and share of the phase's total. */
static void phase_table(struct strbuf *b, const struct agg *a, const char *what, const char *unit, int n_rows,
                        const char *const *row, const double *v /* n_rows x 3 */)
{
    double total[3] = { 0 };
    for (int r = 0; r < n_rows; r++)
        for (int p = 0; p < a->n_phase; p++)
            total[p] += v[r * 3 + p];
    strbuf_printf(b, "<table class=\"data\"><tr><th>%s</th>", what);
    for (int p = 0; p < a->n_phase; p++)
        strbuf_printf(b, "<th>%s (%s)</th><th>%%</th>", a->phase_name[p], unit);
    strbuf_puts(b, "</tr>\n");
    for (int r = 0; r < n_rows; r++) {
        strbuf_puts(b, "<tr><td>");
        strbuf_xml(b, row[r]);
        strbuf_puts(b, "</td>");
        for (int p = 0; p < a->n_phase; p++)
            strbuf_printf(b, "<td>%.6g</td><td>%.1f</td>", v[r * 3 + p], total[p] > 0 ? 100 * v[r * 3 + p] / total[p] : 0);
        strbuf_puts(b, "</tr>\n");
    }
    strbuf_puts(b, "<tr><th>total</th>");
    for (int p = 0; p < a->n_phase; p++)
        strbuf_printf(b, "<th>%.6g</th><th>100.0</th>", total[p]);
    strbuf_puts(b, "</tr></table>\n");
}

static void figure(struct strbuf *b, const char *svg)
{
    if (!svg)
        return;
    /* the standalone document's <svg ...> element is inline HTML as it is */
    strbuf_puts(b, "<figure>");
    strbuf_puts(b, svg);
    strbuf_puts(b, "</figure>\n");
}

char *report_html(const struct report_input *in, struct report_figures *figs)
{
    struct agg *a = malloc(sizeof *a);
    if (!a)
        return NULL;
    aggregate(in, a);
    sort_types(a);
    /* A trace of several chips: whose times and energies each figure counts. */
    char chip_time[96] = "", chip_energy[64] = "";
    bool one_of = in->n_chips <= 1 && in->config_chips > 1;   /* one chip's share of the work */
    if (in->n_chips > 1) {
        snprintf(chip_time, sizeof chip_time, ", chip %d of %lld (the straggler)", (int)in->shown_chip,
                 (long long)in->n_chips);
        snprintf(chip_energy, sizeof chip_energy, ", all %lld chips", (long long)in->n_chips);
    } else if (one_of) {
        snprintf(chip_time, sizeof chip_time, ", one chip of %lld", (long long)in->config_chips);
        snprintf(chip_energy, sizeof chip_energy, ", one chip of %lld", (long long)in->config_chips);
    }
    memset(figs, 0, sizeof *figs);
    figs->svg[FIG_TIME] = time_figure(a, in->title, chip_time);
    figs->svg[FIG_ROOFLINE] = roofline_figure(in);
    const char *component_name[NUM_EN];
    component_names(in->chip, component_name);
    figs->svg[FIG_ENERGY] = a->energy ? energy_figure(a, in->title, chip_energy, component_name) : NULL;
    figs->svg[FIG_PG] = in->n_pg ? pg_figure(in, a) : NULL;
    struct strbuf b = STRBUF_GROWING;
    strbuf_puts(&b, "<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\"><title>npusim: ");
    strbuf_xml(&b, in->title);
    strbuf_printf(&b, "</title><style>%s</style></head>\n<body>\n<h1>npusim: ", report_style);
    strbuf_xml(&b, in->title);
    strbuf_puts(&b, "</h1>\n<h2 id=\"summary\">Summary</h2>\n<pre>");
    strbuf_xml(&b, in->summary ? in->summary : "");
    strbuf_puts(&b, "</pre>\n<h2 id=\"time\">Time per operator type</h2>\n");
    if (in->n_chips > 1)
        strbuf_printf(&b, "<p class=\"scope\">Each of the %lld chips runs its own operators: the times and the "
                          "roofline are chip %d's, the straggler whose latency the summary gives; the energies "
                          "cover all %lld chips, as the summary's energy per batch.</p>\n",
                      (long long)in->n_chips, (int)in->shown_chip, (long long)in->n_chips);
    else if (one_of)
        strbuf_printf(&b, "<p class=\"scope\">Each of the %lld chips runs these operators on its share of the "
                          "work: the times, energies and strategies below are one chip's (the summary's energy of "
                          "all %lld chips is %lld times theirs).</p>\n",
                      (long long)in->config_chips, (long long)in->config_chips, (long long)in->config_chips);
    figure(&b, figs->svg[FIG_TIME]);
    double v[TYPES_MAX * 3];
    for (int k = 0; k < a->n_type; k++)
        for (int p = 0; p < 3; p++)
            v[k * 3 + p] = a->time_s[k][p];
    phase_table(&b, a, "operator type", "s", a->n_type, a->type, v);
    strbuf_puts(&b, "<h2 id=\"roofline\">Operators on the roofline</h2>\n<p>Each operator's arithmetic intensity "
                    "(FLOPs per HBM byte) against the TFLOP/s it reaches, coloured by what bounds it.</p>\n");
    figure(&b, figs->svg[FIG_ROOFLINE]);
    strbuf_puts(&b, "<h2 id=\"energy\">Energy by component</h2>\n");
    if (a->energy) {
        figure(&b, figs->svg[FIG_ENERGY]);
        for (int c = 0; c < NUM_EN; c++)
            for (int p = 0; p < 3; p++)
                v[c * 3 + p] = a->energy_J[c][p];
        phase_table(&b, a, "component", "J", NUM_EN, component_name, v);
    } else {
        strbuf_puts(&b, "<p>No energy pass ran (--no-energy).</p>\n");
    }
    if (in->n_pg) {
        strbuf_puts(&b, "<h2 id=\"power-gating\">Energy per power-gating strategy</h2>\n");
        figure(&b, figs->svg[FIG_PG]);
        strbuf_puts(&b, "<table class=\"data\"><tr><th>strategy</th>");
        for (int p = 0; p < a->n_phase && p < 2; p++)
            strbuf_printf(&b, "<th>%s (J)</th><th>saving vs %s</th>", a->phase_name[p], in->pg_name[0]);
        strbuf_puts(&b, "</tr>\n");
        for (int s = 0; s < in->n_pg; s++) {
            strbuf_puts(&b, "<tr><td>");
            strbuf_xml(&b, in->pg_name[s]);
            strbuf_puts(&b, "</td>");
            for (int p = 0; p < a->n_phase && p < 2; p++) {
                double base = in->pg_energy_J[0][p], e = in->pg_energy_J[s][p];
                strbuf_printf(&b, "<td>%.6g</td><td>%.1f%%</td>", e, base > 0 ? 100 * (base - e) / base : 0);
            }
            strbuf_puts(&b, "</tr>\n");
        }
        strbuf_puts(&b, "</table>\n");
    }
    strbuf_puts(&b, "<footer>Written by npusim report; every figure is inline SVG (also written on its own with "
                    "--svg-dir).</footer>\n</body></html>\n");
    free(a);
    return b.s;
}

void report_figures_free(struct report_figures *figs)
{
    for (int i = 0; i < FIG_COUNT; i++)
        free(figs->svg[i]);
    memset(figs, 0, sizeof *figs);
}
