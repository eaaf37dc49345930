/* timeline.c — a timed trace as Chrome trace-event JSON (see timeline.h).
 * Main data structure: the component table below. */
#include "study/timeline.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cjson/cJSON.h>

#include "study/report_html.h"

/* The component tracks: their names and the op's busy time in each. */
static int64_t sa_of(const struct op *op) { return op->sa_ns; }
static int64_t vu_of(const struct op *op) { return op->vu_ns; }
static int64_t mem_of(const struct op *op) { return op->mem_ns; }
static int64_t ici_of(const struct op *op) { return op->ici_ns; }
static const struct { const char *name; int64_t (*busy)(const struct op *); } components[] = {
    { "MXU (matrix units)", sa_of }, { "VPU (vector units)", vu_of }, { "HBM", mem_of }, { "ICI / DCN", ici_of },
};
#define N_COMPONENTS (sizeof components / sizeof components[0])

static cJSON *meta(const char *what, int pid, int tid, const char *name)
{
    cJSON *m = cJSON_CreateObject(), *args = cJSON_CreateObject();
    cJSON_AddStringToObject(m, "ph", "M");
    cJSON_AddStringToObject(m, "name", what);
    cJSON_AddNumberToObject(m, "pid", pid);
    cJSON_AddNumberToObject(m, "tid", tid);
    cJSON_AddStringToObject(args, "name", name);
    cJSON_AddItemToObject(m, "args", args);
    return m;
}

static cJSON *slice(const char *name, int pid, int tid, double start_us, double dur_us)
{
    cJSON *s = cJSON_CreateObject();
    cJSON_AddStringToObject(s, "ph", "X");
    cJSON_AddStringToObject(s, "name", name);
    cJSON_AddNumberToObject(s, "pid", pid);
    cJSON_AddNumberToObject(s, "tid", tid);
    cJSON_AddNumberToObject(s, "ts", start_us);
    cJSON_AddNumberToObject(s, "dur", dur_us);
    return s;
}

static cJSON *op_args(const struct op *op)
{
    char buf[1024];
    cJSON *a = cJSON_CreateObject();
    cJSON_AddStringToObject(a, "type", report_op_type(op));   /* the report's label: "other" when untyped */
    cJSON_AddNumberToObject(a, "count", (double)op->count);
    cJSON_AddNumberToObject(a, "exe_ns", (double)op->exe_ns);
    cJSON_AddStringToObject(a, "in_shapes", op_in_shapes_text(op, buf, sizeof buf));
    cJSON_AddStringToObject(a, "out_shape", op_out_shape_text(op, buf, sizeof buf));
    cJSON_AddStringToObject(a, "bound", bounded_by_name(op->bounded_by));
    cJSON_AddNumberToObject(a, "flops", (double)op->flops);
    cJSON_AddNumberToObject(a, "bytes", (double)op->bytes);
    if (op->energy_done)   /* the slice's: one execution's times its count */
        cJSON_AddNumberToObject(a, "energy_J", (op_static_energy_J(op) + op_dynamic_energy_J(op)) * (double)(op->count > 0 ? op->count : 1));
    return a;
}

char *timeline_json(const struct trace *t, const char *title, cJSON *provenance)
{
    cJSON *root = cJSON_CreateObject(), *ev = cJSON_CreateArray(), *md = cJSON_CreateObject();
    if (!root || !ev || !md) {
        cJSON_Delete(root), cJSON_Delete(ev), cJSON_Delete(md), cJSON_Delete(provenance);
        return NULL;
    }
    cJSON_AddItemToObject(root, "traceEvents", ev);
    cJSON_AddStringToObject(root, "displayTimeUnit", "ns");
    cJSON_AddStringToObject(md, "title", title);
    cJSON_AddStringToObject(md, "producer", "npusim");
    if (provenance)
        cJSON_AddItemToObject(md, "provenance", provenance);
    cJSON_AddItemToObject(root, "metadata", md);
    static const char *const process[] = { "ops", "prefill", "decode" };
    bool seen[3] = { false, false, false };
    double clock_ns[3] = { 0, 0, 0 };
    for (size_t i = 0; i < t->n; i++) {
        const struct op *op = &t->ops[i];
        int pid = (int)op->phase;
        if (!seen[pid]) {
            seen[pid] = true;
            cJSON_AddItemToArray(ev, meta("process_name", pid, 0, process[pid]));
            cJSON_AddItemToArray(ev, meta("thread_name", pid, 1, "operators"));
            for (size_t c = 0; c < N_COMPONENTS; c++)
                cJSON_AddItemToArray(ev, meta("thread_name", pid, 2 + (int)c, components[c].name));
        }
        double n = op->count > 0 ? (double)op->count : 1;
        double start = clock_ns[pid], dur = (double)op->exe_ns * n;
        char name[300];
        snprintf(name, sizeof name, op->count > 1 ? "%s x%lld" : "%s", op->name ? op->name : "op",
                 (long long)op->count);
        cJSON *s = slice(name, pid, 1, start / 1e3, dur / 1e3);
        cJSON_AddItemToObject(s, "args", op_args(op));
        cJSON_AddItemToArray(ev, s);
        for (size_t c = 0; c < N_COMPONENTS; c++) {
            int64_t busy = components[c].busy(op);
            if (busy > 0)
                cJSON_AddItemToArray(ev, slice(name, pid, 2 + (int)c, start / 1e3, (double)busy * n / 1e3));
        }
        clock_ns[pid] += dur;
    }
    char *text = cJSON_PrintUnformatted(root);
    cJSON_Delete(root);
    if (!text)
        return NULL;
    size_t len = strlen(text);
    char *out = malloc(len + 2);   /* with a closing newline */
    if (out) {
        memcpy(out, text, len);
        out[len] = '\n', out[len + 1] = '\0';
    }
    cJSON_free(text);
    return out;
}
