/* import_trace.c — profiler output to the native measurement rows: Chrome
 * trace-event JSON (PyTorch's profiler, the JAX profiler / XProf; .json or
 * .json.gz) and Nsight Systems' CUDA kernel summary CSV (see importers.h).
 * Operators are found by the name rules of name_rules.c; what no rule maps,
 * or maps without sizes, is counted and listed with the reason.
 *
 * Main data structure: struct tev, one trace event of interest. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <zlib.h>

#include "calib/import_internal.h"
#include "base/csv_lines.h"
#include "base/lists.h"
#include "base/json_strict.h"
#include "base/pyfmt.h"
#include "base/textfile.h"

/* ---- rows and reports ---- */

static void unmapped(struct import_report *r, const char *path, const char *what, const char *why)
{
    r->unmapped++;
    if (r->listed < IMPORT_LIST_MAX && ++r->listed_rows)
        snprintf(r->why[r->listed++], sizeof r->why[0], "%s: %s: %s", path, what, why);
}

static void size_cell(struct strbuf *b, int64_t v)
{
    if (v > 0)
        strbuf_printf(b, "%lld", (long long)v);
    strbuf_putc(b, ',');
}

static void emit(struct strbuf *out, const char *op, const char *fmt, const struct sizes *s, double us,
                 const char *name, const char *source)
{
    char t[40];
    strbuf_printf(out, "%s,%s,", op, fmt);
    size_cell(out, s->m);
    size_cell(out, s->n);
    size_cell(out, s->k);
    size_cell(out, s->batch > 1 ? s->batch : 0);
    strbuf_printf(out, "%s,", py_repr_double(us, t, sizeof t));
    size_cell(out, s->heads);
    strbuf_csv_cell(out, name);
    strbuf_printf(out, ",%s\n", source);
}

void import_trace_header(struct strbuf *out) { strbuf_puts(out, "op,dtype,m,n,k,batch,time_us,heads,name,source\n"); }

/* Distinct reasons, counted: an unmapped name listed once with its count. */
struct tally { char what[80]; const char *why; int count; };
struct tallies { struct tally t[64]; int n, other; };

static void tally(struct tallies *ts, const char *what, const char *why)
{
    for (int i = 0; i < ts->n; i++)
        if (ts->t[i].why == why && !strncmp(ts->t[i].what, what, sizeof ts->t[i].what - 1)) {
            ts->t[i].count++;
            return;
        }
    if (ts->n == (int)(sizeof ts->t / sizeof ts->t[0])) {
        ts->other++;
        return;
    }
    struct tally *t = &ts->t[ts->n++];
    snprintf(t->what, sizeof t->what, "%s", what);
    t->why = why;
    t->count = 1;
}

static void tallies_report(const struct tallies *ts, const char *path, struct import_report *rep)
{
    for (int i = 0; i < ts->n; i++) {
        char what[120];
        snprintf(what, sizeof what, "%.60s%s (x%d)", ts->t[i].what, strlen(ts->t[i].what) > 60 ? "..." : "",
                 ts->t[i].count);
        int listed = rep->listed;
        unmapped(rep, path, what, ts->t[i].why);
        rep->unmapped += ts->t[i].count - 1;
        if (rep->listed > listed)
            rep->listed_rows += ts->t[i].count - 1;
    }
    rep->unmapped += ts->other;
}

/* ---- Chrome trace events ---- */

enum tev_kind { TEV_OP, TEV_LAUNCH, TEV_KERNEL };
struct tev {
    enum tev_kind kind;
    int index;                    /* in the file: the rows keep its order */
    const char *name, *hlo;
    char lane[64];                /* pid and tid: containment is per thread */
    double ts, end, corr;
    const struct compiled_rule *rule;
    struct sizes s;
    const char *fmt, *why;
    bool mapped, outer, used;
    double device_us;
    int kernels;
};

/* The whole file, gzip or plain (zlib reads both). */
static char *read_gz(const char *path, size_t *len, struct npu_err *e)
{
    gzFile f = gzopen(path, "rb");
    if (!f)
        return npu_errf(e, "%s: cannot open", path), NULL;
    size_t cap = 1 << 16, n = 0;
    char *buf = malloc(cap + 1);
    for (int got; buf; n += (size_t)got) {
        if (n == cap) {
            char *nb = cap < (size_t)1 << 32 ? realloc(buf, 2 * cap + 1) : NULL;
            if (!nb) {
                free(buf);
                buf = NULL;
                break;
            }
            buf = nb, cap *= 2;
        }
        got = gzread(f, buf + n, (unsigned)(cap - n));
        if (got <= 0) {
            if (got < 0) {
                int zerr;
                npu_errf(e, "%s: not a readable gzip file: %s", path, gzerror(f, &zerr));
                free(buf);
                gzclose(f);
                return NULL;
            }
            break;
        }
    }
    gzclose(f);
    if (!buf)
        return npu_errf(e, "%s: out of memory", path), NULL;
    buf[n] = '\0';
    *len = n;
    return buf;
}

static const char *str_of(const cJSON *o, const char *k)
{
    const cJSON *v = cJSON_GetObjectItemCaseSensitive(o, k);
    return cJSON_IsString(v) ? v->valuestring : NULL;
}

static bool num_of(const cJSON *o, const char *k, double *out)
{
    const cJSON *v = cJSON_GetObjectItemCaseSensitive(o, k);
    if (!cJSON_IsNumber(v) || !isfinite(v->valuedouble))
        return false;
    *out = v->valuedouble;
    return true;
}

static void lane_of(const cJSON *ev, char *out, size_t n)
{
    const cJSON *p = cJSON_GetObjectItemCaseSensitive(ev, "pid"), *t = cJSON_GetObjectItemCaseSensitive(ev, "tid");
    char a[32] = "", b[32] = "";
    if (cJSON_IsString(p))
        snprintf(a, sizeof a, "%s", p->valuestring);
    else if (cJSON_IsNumber(p))
        snprintf(a, sizeof a, "%.17g", p->valuedouble);
    if (cJSON_IsString(t))
        snprintf(b, sizeof b, "%s", t->valuestring);
    else if (cJSON_IsNumber(t))
        snprintf(b, sizeof b, "%.17g", t->valuedouble);
    snprintf(out, n, "%s|%s", a, b);
}

static bool is_cat(const char *cat, const char *const *list)
{
    for (; cat && *list; list++)
        if (!strcmp(cat, *list))
            return true;
    return false;
}

/* One "X" event as a struct tev; false when it is of no interest (annotations,
 * Python frames, memory events). */
static bool tev_of(const cJSON *ev, int index, struct tev *t)
{
    static const char *const kernel_cats[] = { "kernel", "gpu_op", "Kernel", NULL };
    static const char *const launch_cats[] = { "cuda_runtime", "cuda_driver", "hip_runtime", "runtime", NULL };
    static const char *const op_cats[] = { "cpu_op", "Operator", "operator", NULL };
    const char *ph = str_of(ev, "ph"), *name = str_of(ev, "name"), *cat = str_of(ev, "cat");
    double ts, dur;
    if (!ph || strcmp(ph, "X") || !name || !num_of(ev, "ts", &ts) || !num_of(ev, "dur", &dur) || dur < 0)
        return false;
    const cJSON *args = cJSON_GetObjectItemCaseSensitive(ev, "args");
    memset(t, 0, sizeof *t);
    t->index = index, t->name = name, t->ts = ts, t->end = ts + dur;
    t->hlo = str_of(args, "long_name");
    lane_of(ev, t->lane, sizeof t->lane);
    if (is_cat(cat, kernel_cats) || is_cat(cat, launch_cats)) {
        t->kind = is_cat(cat, kernel_cats) ? TEV_KERNEL : TEV_LAUNCH;
        return num_of(args, "correlation", &t->corr) || num_of(args, "External id", &t->corr);
    }
    t->kind = TEV_OP;
    /* an operator: the profiler says so, or it is aten's (older exports have no cat), or XLA's */
    return is_cat(cat, op_cats) || (!cat && strstr(name, "::")) || t->hlo;
}

static int by_lane_ts(const void *a, const void *b)
{
    const struct tev *x = *(struct tev *const *)a, *y = *(struct tev *const *)b;
    int c = strcmp(x->lane, y->lane);
    if (c)
        return c;
    if (x->ts != y->ts)
        return x->ts < y->ts ? -1 : 1;
    if (x->end != y->end)
        return x->end > y->end ? -1 : 1;   /* the outer first */
    return x->index - y->index;
}

static int by_corr(const void *a, const void *b)
{
    const struct tev *x = *(struct tev *const *)a, *y = *(struct tev *const *)b;
    return x->corr < y->corr ? -1 : x->corr > y->corr ? 1 : x->index - y->index;
}

/* Marks every mapped op that holds another mapped op on its thread as
 * outer (the inner one is the row: aten::linear holds aten::addmm). */
static void mark_outer(struct tev **ops, int n)
{
    for (int i = 0; i < n; i++)
        for (int j = i + 1; j < n && !strcmp(ops[j]->lane, ops[i]->lane) && ops[j]->ts < ops[i]->end; j++)
            if (ops[j]->end <= ops[i]->end) {
                ops[i]->outer = true;
                break;
            }
}

/* Kernels to the innermost mapped op whose thread launched them: their time
 * is its device time. inner: the mapped ops that are not outer, by lane and
 * time (they do not overlap on a thread). */
static void attribute_kernels(struct tev *ev, int nev, struct tev **inner, int ninner, struct tev **kern, int nk)
{
    for (int i = 0; i < nev; i++) {
        const struct tev *l = &ev[i];
        if (l->kind != TEV_LAUNCH)
            continue;
        int lo = 0, hi = ninner;   /* the last op of l's lane starting at or before l */
        while (lo < hi) {
            int mid = (lo + hi) / 2, c = strcmp(inner[mid]->lane, l->lane);
            if (c < 0 || (c == 0 && inner[mid]->ts <= l->ts))
                lo = mid + 1;
            else
                hi = mid;
        }
        struct tev *op = lo > 0 ? inner[lo - 1] : NULL;
        if (!op || strcmp(op->lane, l->lane) || l->ts > op->end)
            continue;
        lo = 0, hi = nk;
        while (lo < hi) {
            int mid = (lo + hi) / 2;
            if (kern[mid]->corr < l->corr)
                lo = mid + 1;
            else
                hi = mid;
        }
        for (int k = lo; k < nk && kern[k]->corr == l->corr; k++)
            if (!kern[k]->used) {
                kern[k]->used = true;
                op->device_us += kern[k]->end - kern[k]->ts;
                op->kernels++;
            }
    }
}

/* The ops, launches and kernels of the events; NULL on no memory. */
static struct tev *collect_events(const cJSON *events, const struct name_rules *rules, const char *dtype, int *n)
{
    int cap = cJSON_GetArraySize(events), k = 0, i = 0;
    struct tev *ev = calloc(cap ? (size_t)cap : 1, sizeof *ev);
    if (!ev)
        return NULL;
    for (const cJSON *e = events->child; e; e = e->next, i++) {
        struct tev *t = &ev[k];
        if (!cJSON_IsObject(e) || !tev_of(e, i, t))
            continue;
        k++;
        if (t->kind != TEV_OP)
            continue;
        const cJSON *args = cJSON_GetObjectItemCaseSensitive(e, "args");
        t->rule = match(rules, t->name, t->hlo, cJSON_GetObjectItemCaseSensitive(args, "Input Dims"), &t->s, &t->fmt,
                        &t->why);
        if (t->rule && !t->why && t->rule->r.shape != SH_HLO_DOT) {
            const cJSON *types = cJSON_GetObjectItemCaseSensitive(args, "Input type");
            const cJSON *first = cJSON_GetArrayItem(types, t->rule->r.shape == SH_ADDMM ? 1 : 0);
            t->fmt = format_of_type(cJSON_IsString(first) ? first->valuestring : NULL);
        }
        if (!t->fmt)
            t->fmt = dtype;
        if (t->rule && !t->why && !t->fmt)
            t->why = "no number format in the trace (give --dtype)";
        t->mapped = t->rule && !t->why;
    }
    *n = k;
    return ev;
}

int import_chrome_trace(const char *path, const char *dtype, const struct name_rules *rules, struct strbuf *out,
                        struct import_report *rep, struct npu_err *e)
{
    size_t len;
    char *text = read_gz(path, &len, e);
    if (!text)
        return -1;
    cJSON *root = json_parse(text, len, path, e);   /* NULL: "path: not JSON (at byte B)" */
    const cJSON *events = cJSON_IsArray(root) ? root : cJSON_GetObjectItemCaseSensitive(root, "traceEvents");
    if (!root || !cJSON_IsArray(events)) {
        int rc = root ? npu_errf(e, "%s: expected a trace-event list or an object with \"traceEvents\"", path) : -1;
        cJSON_Delete(root);
        free(text);
        return rc;
    }
    int n = 0, nops = 0, ninner = 0, nk = 0;
    struct tev *ev = collect_events(events, rules, dtype, &n);
    struct tev **ops = calloc((size_t)n + 1, sizeof *ops), **inner = calloc((size_t)n + 1, sizeof *inner);
    struct tev **kern = calloc((size_t)n + 1, sizeof *kern);
    struct tallies *ts = calloc(1, sizeof *ts);
    int rc = 0;
    if (!ev || !ops || !inner || !kern || !ts)
        rc = npu_errf(e, "%s: out of memory", path);
    for (int i = 0; !rc && i < n; i++) {
        if (ev[i].mapped)
            ops[nops++] = &ev[i];
        if (ev[i].kind == TEV_KERNEL)
            kern[nk++] = &ev[i];
    }
    if (!rc) {
        qsort(ops, (size_t)nops, sizeof *ops, by_lane_ts);
        mark_outer(ops, nops);
        for (int i = 0; i < nops; i++)
            if (!ops[i]->outer)
                inner[ninner++] = ops[i];
        qsort(kern, (size_t)nk, sizeof *kern, by_corr);
        attribute_kernels(ev, n, inner, ninner, kern, nk);
    }
    for (int i = 0; !rc && i < n; i++) {
        struct tev *t = &ev[i];
        if (t->kind == TEV_KERNEL && !t->used) {
            rep->rows++;
            tally(ts, t->name, "a GPU kernel launched inside no mapped operator");
        }
        if (t->kind != TEV_OP)
            continue;
        rep->rows++;
        if (!t->rule)
            tally(ts, t->name, "no rule maps this operator");
        else if (!t->mapped)
            tally(ts, t->name, t->why);
        else if (t->outer)
            rep->nested++;
        else {
            /* an XLA op's span is the device's (the JAX profiler records the TPU or GPU op itself) */
            bool dev = t->kernels > 0;
            emit(out, t->rule->r.op, t->fmt, &t->s, dev ? t->device_us : t->end - t->ts, t->name,
                 dev || t->hlo ? "device" : "host");
            rep->mapped++;
        }
    }
    if (!rc)
        tallies_report(ts, path, rep);
    free(ts);
    free(kern);
    free(inner);
    free(ops);
    free(ev);
    cJSON_Delete(root);
    free(text);
    return rc;
}

/* ---- Nsight Systems: the CUDA kernel summary ---- */

struct nsys_csv {
    char **cell;
    int ncell, cap, rows;
    int name_col, time_col;
    const char *path, *dtype;
    const struct name_rules *rules;
    struct strbuf *out;
    struct import_report *rep;
    struct tallies *ts;
    int stop;
    const char *bad;
};

static void nsys_field(void *s, size_t n, void *data)
{
    struct nsys_csv *c = data;
    if (c->ncell == c->cap) {
        int cap = c->cap ? 2 * c->cap : 16;
        char **nc = realloc(c->cell, (size_t)cap * sizeof *nc);
        if (!nc) {
            c->stop = 1, c->bad = "out of memory";
            return;
        }
        c->cell = nc, c->cap = cap;
    }
    char *v = malloc(n + 1);
    if (!v) {
        c->stop = 1, c->bad = "out of memory";
        return;
    }
    memcpy(v, s, n);
    v[n] = '\0';
    c->cell[c->ncell++] = v;
}

static void nsys_row(int term, void *data)
{
    (void)term;
    struct nsys_csv *c = data;
    if (c->stop) {
        /* after a bad header or no memory: nothing more is read */
    } else if (c->rows++ == 0) {
        /* the header: the kernel's name and its median (else average) time in ns */
        for (int i = 0; i < c->ncell; i++) {
            if (!strcmp(c->cell[i], "Name"))
                c->name_col = i;
            if (!strcmp(c->cell[i], "Med (ns)") || (c->time_col < 0 && !strcmp(c->cell[i], "Avg (ns)")))
                c->time_col = i;
        }
        if (c->name_col < 0 || c->time_col < 0)
            c->stop = 1, c->bad = "expected a header with \"Name\" and \"Med (ns)\" or \"Avg (ns)\" "
                                  "(nsys stats --report cuda_gpu_kern_sum --format csv)";
    } else if (c->ncell) {
        c->rep->rows++;
        double ns;
        const char *name = c->name_col >= 0 && c->name_col < c->ncell ? c->cell[c->name_col] : "";
        struct sizes s;
        const char *fmt = NULL, *why = NULL;
        const struct compiled_rule *r = match(c->rules, name, NULL, NULL, &s, &fmt, &why);
        if (c->time_col < 0 || c->time_col >= c->ncell || parse_f64_strict(c->cell[c->time_col], &ns) || !(ns >= 0))
            tally(c->ts, name, "expected a time in ns");
        else if (!r)
            tally(c->ts, name, "no rule maps this kernel");
        else if (why)
            tally(c->ts, name, why);
        else if (!c->dtype)
            tally(c->ts, name, "no number format in a kernel summary (give --dtype)");
        else {
            emit(c->out, r->r.op, c->dtype, &s, ns / 1e3, name, "device");
            c->rep->mapped++;
        }
    }
    for (int i = 0; i < c->ncell; i++)
        free(c->cell[i]);
    c->ncell = 0;
}

int import_nsys_csv(const char *path, const char *dtype, const struct name_rules *rules, struct strbuf *out,
                    struct import_report *rep, struct npu_err *e)
{
    size_t len;
    char *text = text_read_file(path, &len, e);
    if (!text)
        return -1;
    struct nsys_csv c = { .name_col = -1, .time_col = -1, .path = path, .dtype = dtype, .rules = rules, .out = out,
                          .rep = rep, .ts = calloc(1, sizeof *c.ts) };
    long line = 1;
    const char *why = NULL;
    int rc = 0;
    if (!c.ts)
        rc = npu_errf(e, "%s: out of memory", path);
    else if (csv_feed_lines(text, len, nsys_field, nsys_row, &c, &line, &c.stop, &why) || c.bad)
        rc = npu_errf(e, "%s: line %ld: %s", path, line, c.bad ? c.bad : why);
    else
        tallies_report(c.ts, path, rep);
    for (int i = 0; i < c.ncell; i++)
        free(c.cell[i]);
    free(c.cell);
    free(c.ts);
    free(text);
    return rc;
}
