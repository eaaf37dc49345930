/* validate.c — measured operators against predictions (see validate.h).
 * The statistics are GSL's (gsl_stats_*, gsl_sort); the reports are text
 * built in a growing buffer and a cJSON tree. */
#include "calib/validate.h"
#include "calib/validate_internal.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <gsl/gsl_sort.h>
#include <gsl/gsl_statistics_double.h>

#include "study/run/run.h"
#include "base/pyfmt.h"
#include "traces/precision.h"
#include "base/strbuf.h"

void error_stats_of(const double *pred, const double *meas, const size_t *ids, size_t k, struct error_stats *s)
{
    memset(s, 0, sizeof *s);
    s->count = (int64_t)k;
    if (!k)
        return;
    double *ape = malloc(4 * k * sizeof *ape);
    if (!ape)
        return;
    double *abs_us = ape + k, *sq = abs_us + k, *sgn = sq + k;
    size_t best = 0, worst = 0;
    for (size_t i = 0; i < k; i++) {
        double d = pred[i] - meas[i];
        sgn[i] = d / meas[i] * 100;
        ape[i] = fabs(sgn[i]);
        abs_us[i] = fabs(d);
        sq[i] = d * d;
        if (ape[i] < ape[best])
            best = i;
        if (ape[i] > ape[worst])
            worst = i;
    }
    s->best = ids[best], s->worst = ids[worst];
    s->mape_pct = gsl_stats_mean(ape, 1, k);
    s->bias_pct = gsl_stats_mean(sgn, 1, k);
    s->rmse_us = sqrt(gsl_stats_mean(sq, 1, k));
    gsl_sort(ape, 1, k);
    gsl_sort(abs_us, 1, k);
    s->median_ape_pct = gsl_stats_median_from_sorted_data(ape, 1, k);
    s->max_ape_pct = ape[k - 1];
    s->median_abs_us = gsl_stats_median_from_sorted_data(abs_us, 1, k);
    s->max_abs_us = abs_us[k - 1];
    free(ape);
}

/* The figures of the rows idx[0..k) of v. */
static void stats_of(const struct validation *v, const size_t *idx, size_t k, struct error_stats *s)
{
    double *pm = malloc(2 * (k ? k : 1) * sizeof *pm);
    if (!pm) {
        memset(s, 0, sizeof *s);
        s->count = (int64_t)k;
        return;
    }
    for (size_t i = 0; i < k; i++)
        pm[i] = v->rows[idx[i]].p.time_us, pm[k + i] = v->rows[idx[i]].in->r.measured_us;
    error_stats_of(pm, pm + k, idx, k, s);
    free(pm);
}

/* Groups rows by a key (op, format or bound), in first-seen order. */
typedef const char *(*key_fn)(const struct validation_row *r);
static const char *op_key(const struct validation_row *r) { return r->in->r.op; }
static const char *dtype_key(const struct validation_row *r)
{
    return precision_info((enum precision)r->in->r.prec)->name;
}
static const char *bound_key(const struct validation_row *r) { return r->p.bound; }

static int group_by(const struct validation *v, key_fn key, struct error_group *g, int max, size_t *idx)
{
    const char *names[VALIDATE_GROUPS_MAX];
    int n = 0;
    for (size_t i = 0; i < v->n; i++)
        n = validate_name_add(names, n, max, key(&v->rows[i]));
    for (int j = 0; j < n; j++) {
        snprintf(g[j].name, sizeof g[0].name, "%s", names[j]);
        size_t k = 0;
        for (size_t i = 0; i < v->n; i++)
            if (!strcmp(key(&v->rows[i]), g[j].name))
                idx[k++] = i;
        stats_of(v, idx, k, &g[j].s);
    }
    return n;
}

int validate_run(const struct op_table *tables, const char *const *files, int n, const struct chip_config *chip,
                 const char *chip_name, const struct profile *prof, struct validation *v, struct npu_err *e)
{
    memset(v, 0, sizeof *v);
    v->chip = chip_name;
    size_t total = 0;
    for (int i = 0; i < n; i++)
        total += tables[i].n;
    v->rows = calloc(total ? total : 1, sizeof *v->rows);
    size_t *idx = malloc((total ? total : 1) * sizeof *idx);
    if (!v->rows || !idx) {
        free(idx);
        validation_free(v);
        return npu_errf(e, "validate: out of memory");
    }
    for (int i = 0; i < n; i++)
        for (size_t j = 0; j < tables[i].n; j++) {
            const struct op_row *row = &tables[i].rows[j];
            struct validation_row *r = &v->rows[v->n];
            if (!(row->r.measured_us > 0)) {
                free(idx);
                validation_free(v);
                return npu_errf(e, "%s: %s %d: %s \"time_us\": expected a measured time above 0 us", files[i],
                                tables[i].row_unit, row->line, tables[i].cell_unit);
            }
            struct npu_err pe;
            if (op_predict(&row->r, chip, prof, &r->p, &pe)) {
                free(idx);
                validation_free(v);
                return npu_errf(e, "%s: %s %d: %s", files[i], tables[i].row_unit, row->line, pe.msg);
            }
            r->file = files[i];
            r->in = row;
            r->error_pct = (r->p.time_us - row->r.measured_us) / row->r.measured_us * 100;
            v->n++;
        }
    for (size_t i = 0; i < v->n; i++)
        idx[i] = i;
    stats_of(v, idx, v->n, &v->overall);
    v->n_op = group_by(v, op_key, v->by_op, VALIDATE_GROUPS_MAX, idx);
    v->n_dtype = group_by(v, dtype_key, v->by_dtype, VALIDATE_GROUPS_MAX, idx);
    v->n_bound = group_by(v, bound_key, v->by_bound, 4, idx);
    free(idx);
    return 0;
}

void validation_free(struct validation *v)
{
    free(v->rows);
    memset(v, 0, sizeof *v);
}

/* ---- reports ---- */

/* "gemm fp8_e4m3 4096x4096x4096 (b 2) [file:line]": a row named for a reader. */
static void row_name(struct strbuf *b, const struct validation_row *r)
{
    const struct op_request *q = &r->in->r;
    strbuf_printf(b, "%s %s", q->op, precision_info((enum precision)q->prec)->name);
    const int64_t d[3] = { q->m, q->n, q->k };
    bool first = true;
    for (int i = 0; i < 3; i++)
        if (d[i]) {
            strbuf_printf(b, "%s%lld", first ? " " : "x", (long long)d[i]);
            first = false;
        }
    if (q->batch > 1)
        strbuf_printf(b, " (batch %lld)", (long long)q->batch);
    strbuf_printf(b, " [%s:%d]", r->file, r->in->line);
}

static void md_group_table(struct strbuf *b, const struct validation *v, const char *title,
                           const struct error_group *g, int n)
{
    strbuf_printf(b, "\n## %s\n\n| %s | count | MAPE %% | bias %% | RMSE us | median APE %% | max APE %% | "
                     "median abs us | max abs us | best | worst |\n|---|---|---|---|---|---|---|---|---|---|---|\n",
                  title, title);
    for (int i = 0; i < n; i++) {
        const struct error_stats *s = &g[i].s;
        strbuf_printf(b, "| %s | %lld | %.2f | %+.2f | %.4g | %.2f | %.2f | %.4g | %.4g | ", g[i].name,
                      (long long)s->count, s->mape_pct, s->bias_pct, s->rmse_us, s->median_ape_pct, s->max_ape_pct,
                      s->median_abs_us, s->max_abs_us);
        row_name(b, &v->rows[s->best]);
        strbuf_printf(b, " %+.1f%% | ", v->rows[s->best].error_pct);
        row_name(b, &v->rows[s->worst]);
        strbuf_printf(b, " %+.1f%% |\n", v->rows[s->worst].error_pct);
    }
}

char *validation_markdown(const struct validation *v, const struct op_table *tables, int n)
{
    (void)tables;
    (void)n;
    struct strbuf b = STRBUF_GROWING;
    const struct error_stats *o = &v->overall;
    strbuf_printf(&b, "# Validation on %s\n\n%lld measured operators. MAPE %.2f%% (bias %+.2f%%: positive "
                      "predicts slower than measured), RMSE %.4g us, median APE %.2f%%, max APE %.2f%%.\n",
                  v->chip, (long long)o->count, o->mape_pct, o->bias_pct, o->rmse_us, o->median_ape_pct, o->max_ape_pct);
    md_group_table(&b, v, "op", v->by_op, v->n_op);
    md_group_table(&b, v, "dtype", v->by_dtype, v->n_dtype);
    md_group_table(&b, v, "bound", v->by_bound, v->n_bound);
    strbuf_printf(&b, "\n## Operators\n\n| operator | measured us | predicted us | error %% | bound | ran as | "
                      "efficiency |\n|---|---|---|---|---|---|---|\n");
    for (size_t i = 0; i < v->n; i++) {
        const struct validation_row *r = &v->rows[i];
        strbuf_puts(&b, "| ");
        row_name(&b, r);
        strbuf_printf(&b, " | %.4g | %.4g | %+.2f | %s | %s | %.3g |\n", r->in->r.measured_us, r->p.time_us,
                      r->error_pct, r->p.bound, r->p.prec_ran >= 0 ? precision_info((enum precision)r->p.prec_ran)->name : "",
                      r->p.efficiency);
    }
    return b.s;
}

void validate_csv_cell(struct strbuf *b, const char *s, bool first)
{
    if (!first)
        strbuf_putc(b, ',');
    strbuf_csv_cell(b, s);
}

void validate_csv_cells(struct strbuf *b, const char *const *s, int n)
{
    for (int i = 0; i < n; i++)
        validate_csv_cell(b, s[i], false);
}

void validate_put_num(struct strbuf *b, double x)
{
    char buf[40];
    strbuf_puts(b, py_repr_double(x, buf, sizeof buf));
}

int validate_name_add(const char **names, int n, int max, const char *name)
{
    int j = 0;
    while (j < n && strcmp(names[j], name))
        j++;
    if (j == n && n < max)
        names[n++] = name;
    return n;
}

int validate_names_add(const char **names, int n, int max, char *const *add, int n_add)
{
    for (int i = 0; i < n_add; i++)
        n = validate_name_add(names, n, max, add[i]);
    return n;
}

const char *validate_extra_cell(char *const *names, char *const *cells, int n, const char *name)
{
    for (int x = 0; x < n; x++)
        if (!strcmp(names[x], name))
            return cells[x] ? cells[x] : "";
    return "";
}

static const char *extra_of(const struct op_table *tables, int n, const struct validation_row *r, const char *name)
{
    for (int i = 0; i < n; i++) {
        const struct op_table *t = &tables[i];
        if (r->in >= t->rows && r->in < t->rows + t->n)
            return validate_extra_cell(t->extra_name, r->in->extra, t->n_extra, name);
    }
    return "";
}

char *validation_csv(const struct validation *v, const struct op_table *tables, int n)
{
    const char *extra[OP_ROW_EXTRA_MAX * 4];
    int ne = 0;
    for (int i = 0; i < n; i++)   /* the extra columns of every table, in first-seen order */
        ne = validate_names_add(extra, ne, OP_ROW_EXTRA_MAX * 4, tables[i].extra_name, tables[i].n_extra);
    struct strbuf b = STRBUF_GROWING;
    strbuf_puts(&b, "file,line,op,dtype,m,n,k,batch,heads,weight_dtype,time_us");
    validate_csv_cells(&b, extra, ne);
    strbuf_puts(&b, ",predicted_us,error_pct,bound,ran_as,kernel_class,efficiency\n");
    for (size_t i = 0; i < v->n; i++) {
        const struct validation_row *r = &v->rows[i];
        const struct op_request *q = &r->in->r;
        validate_csv_cell(&b, r->file, true);
        strbuf_printf(&b, ",%d,%s,%s", r->in->line, q->op, precision_info((enum precision)q->prec)->name);
        const int64_t d[5] = { q->m, q->n, q->k, q->batch, q->heads };
        for (int j = 0; j < 5; j++) {
            strbuf_putc(&b, ',');
            if (d[j])
                strbuf_printf(&b, "%lld", (long long)d[j]);
        }
        strbuf_printf(&b, ",%s,", q->weight_prec >= 0 ? precision_info((enum precision)q->weight_prec)->name : "");
        validate_put_num(&b, q->measured_us);
        for (int x = 0; x < ne; x++)
            validate_csv_cell(&b, extra_of(tables, n, r, extra[x]), false);
        strbuf_putc(&b, ',');
        validate_put_num(&b, r->p.time_us);
        strbuf_putc(&b, ',');
        validate_put_num(&b, r->error_pct);
        strbuf_printf(&b, ",%s,%s,%s,", r->p.bound,
                      r->p.prec_ran >= 0 ? precision_info((enum precision)r->p.prec_ran)->name : "", r->p.kernel_class);
        validate_put_num(&b, r->p.efficiency);
        strbuf_putc(&b, '\n');
    }
    return b.s;
}

static cJSON *stats_json(const struct validation *v, const struct error_stats *s)
{
    cJSON *o = cJSON_CreateObject();
    cJSON_AddNumberToObject(o, "count", (double)s->count);
    cJSON_AddNumberToObject(o, "mape_pct", s->mape_pct);
    cJSON_AddNumberToObject(o, "bias_pct", s->bias_pct);
    cJSON_AddNumberToObject(o, "rmse_us", s->rmse_us);
    cJSON_AddNumberToObject(o, "median_ape_pct", s->median_ape_pct);
    cJSON_AddNumberToObject(o, "max_ape_pct", s->max_ape_pct);
    cJSON_AddNumberToObject(o, "median_abs_error_us", s->median_abs_us);
    cJSON_AddNumberToObject(o, "max_abs_error_us", s->max_abs_us);
    if (s->count) {
        const size_t which[2] = { s->best, s->worst };
        static const char *const names[2] = { "best", "worst" };
        for (int i = 0; i < 2; i++) {
            struct strbuf b = STRBUF_GROWING;
            row_name(&b, &v->rows[which[i]]);
            cJSON *r = cJSON_AddObjectToObject(o, names[i]);
            cJSON_AddStringToObject(r, "operator", b.s ? b.s : "");
            cJSON_AddNumberToObject(r, "error_pct", v->rows[which[i]].error_pct);
            free(b.s);
        }
    }
    return o;
}

static cJSON *groups_json(const struct validation *v, const struct error_group *g, int n)
{
    cJSON *o = cJSON_CreateObject();
    for (int i = 0; i < n; i++)
        cJSON_AddItemToObject(o, g[i].name, stats_json(v, &g[i].s));
    return o;
}

cJSON *validation_json(const struct validation *v)
{
    cJSON *o = cJSON_CreateObject();
    cJSON_AddStringToObject(o, "chip", v->chip);
    cJSON_AddItemToObject(o, "overall", stats_json(v, &v->overall));
    cJSON_AddItemToObject(o, "by_op", groups_json(v, v->by_op, v->n_op));
    cJSON_AddItemToObject(o, "by_dtype", groups_json(v, v->by_dtype, v->n_dtype));
    cJSON_AddItemToObject(o, "by_bound", groups_json(v, v->by_bound, v->n_bound));
    cJSON *rows = cJSON_AddArrayToObject(o, "rows");
    for (size_t i = 0; i < v->n; i++) {
        const struct validation_row *r = &v->rows[i];
        cJSON *x = cJSON_CreateObject();
        cJSON_AddStringToObject(x, "file", r->file);
        cJSON_AddNumberToObject(x, "line", r->in->line);
        cJSON_AddStringToObject(x, "op", r->in->r.op);
        cJSON_AddStringToObject(x, "dtype", precision_info((enum precision)r->in->r.prec)->name);
        cJSON_AddNumberToObject(x, "measured_us", r->in->r.measured_us);
        cJSON_AddNumberToObject(x, "predicted_us", r->p.time_us);
        cJSON_AddNumberToObject(x, "error_pct", r->error_pct);
        cJSON_AddStringToObject(x, "bound", r->p.bound);
        cJSON_AddItemToArray(rows, x);
    }
    return o;
}
