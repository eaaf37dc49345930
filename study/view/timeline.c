/* timeline.c — a timed trace as Chrome trace-event JSON (see timeline.h).
 * Main data structures: the component table below and struct phase_plan,
 * each row's place in its phase's steps x layers (the `layers` detail). */
#include "study/view/timeline.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cjson/cJSON.h>

#include "chipsim/chip.h"
#include "study/view/report_html.h"
#include "base/strbuf.h"

/* The component tracks: their names and the op's busy time in each. */
static int64_t sa_of(const struct op *op) { return op->sa_ns; }
static int64_t vu_of(const struct op *op) { return op->vu_ns; }
static int64_t mem_of(const struct op *op) { return op->mem_ns; }
static int64_t ici_of(const struct op *op) { return op->ici_ns; }
/* A track's name: the chip's word for the part (chip_vocab: MXU or tensor
 * cores, VPU or CUDA cores, ICI or NVLink) and what it is. */
enum part { PART_MATRIX, PART_VECTOR, PART_MEMORY, PART_LINK };
static const struct {
    enum part part;
    const char *what;
    int64_t (*busy)(const struct op *);
} components[] = {
    { PART_MATRIX, "%s (matrix units)", sa_of }, { PART_VECTOR, "%s (vector units)", vu_of },
    { PART_MEMORY, "%s", mem_of }, { PART_LINK, "%s / %s", ici_of },
};
#define N_COMPONENTS (sizeof components / sizeof components[0])
#define N_PHASES 3
static const char *const process[N_PHASES] = { "ops", "prefill", "decode" };

/* A row's place in a factored phase: run once per step outside the layers
 * (reps times), in every layer of every step (reps times), or in every
 * layer of n_steps steps from first_step on (a decode KV-suffix group,
 * which shares the steps with its same-named siblings). */
enum role { ROLE_STEP, ROLE_LAYER, ROLE_PARTIAL };
struct row_role {
    enum role role;
    int64_t reps, first_step, n_steps;
};

struct phase_plan {
    int pid;
    size_t *idx, n;            /* the phase's rows, in trace order */
    struct row_role *r;
    int64_t layers, steps;
    bool factored;             /* false: drawn as in `ops` */
    int64_t expanded;          /* steps expanded, 0..steps */
};

/* Events as text: counted, and appended unless dry (a plan's sizing pass). */
struct emitter {
    const struct chip_vocab *vocab;   /* the chip's words for its parts */
    struct strbuf out;
    int64_t events;
    bool dry, oom;
};

static int64_t count_of(const struct op *op) { return op->count > 0 ? op->count : 1; }

static void emit(struct emitter *em, cJSON *ev)
{
    char *s = ev ? cJSON_PrintUnformatted(ev) : NULL;
    cJSON_Delete(ev);
    if (!s) {
        em->oom = true;
        return;
    }
    if (em->events++)
        strbuf_putc(&em->out, ',');
    strbuf_puts(&em->out, s);
    cJSON_free(s);
}

static void emit_meta(struct emitter *em, const char *what, int pid, int tid, const char *name)
{
    if (em->dry) {
        em->events++;
        return;
    }
    cJSON *m = cJSON_CreateObject(), *args = cJSON_CreateObject();
    cJSON_AddStringToObject(m, "ph", "M");
    cJSON_AddStringToObject(m, "name", what);
    cJSON_AddNumberToObject(m, "pid", pid);
    cJSON_AddNumberToObject(m, "tid", tid);
    cJSON_AddStringToObject(args, "name", name);
    if (!cJSON_AddItemToObject(m, "args", args))
        cJSON_Delete(args);
    emit(em, m);
}

static cJSON *slice(const char *name, int pid, int tid, double start_ns, double dur_ns)
{
    cJSON *s = cJSON_CreateObject();
    cJSON_AddStringToObject(s, "ph", "X");
    cJSON_AddStringToObject(s, "name", name);
    cJSON_AddNumberToObject(s, "pid", pid);
    cJSON_AddNumberToObject(s, "tid", tid);
    cJSON_AddNumberToObject(s, "ts", start_ns / 1e3);
    cJSON_AddNumberToObject(s, "dur", dur_ns / 1e3);
    return s;
}

/* A slice's args: per execution and total kept apart (count executions). */
static cJSON *op_args(const struct op *op, int64_t count)
{
    char buf[1024];
    cJSON *a = cJSON_CreateObject();
    cJSON_AddStringToObject(a, "type", report_op_type(op));   /* the report's label: "other" when untyped */
    cJSON_AddNumberToObject(a, "count", (double)count);
    cJSON_AddNumberToObject(a, "time_per_execution_ns", (double)op->exe_ns);
    cJSON_AddNumberToObject(a, "time_total_ns", (double)op->exe_ns * (double)count);
    cJSON_AddStringToObject(a, "in_shapes", op_in_shapes_text(op, buf, sizeof buf));
    cJSON_AddStringToObject(a, "out_shape", op_out_shape_text(op, buf, sizeof buf));
    cJSON_AddStringToObject(a, "bound", bounded_by_name(op->bounded_by));
    cJSON_AddNumberToObject(a, "flops_per_execution", (double)op->flops);
    cJSON_AddNumberToObject(a, "bytes_per_execution", (double)op->bytes);
    if (op->energy_done) {
        double j = op_static_energy_J(op) + op_dynamic_energy_J(op);
        cJSON_AddNumberToObject(a, "energy_per_execution_J", j);
        cJSON_AddNumberToObject(a, "energy_total_J", j * (double)count);
    }
    return a;
}

/* The events of the phase's process and tracks. */
static void emit_tracks(struct emitter *em, int pid)
{
    emit_meta(em, "process_name", pid, 0, process[pid]);
    emit_meta(em, "thread_name", pid, 1, "operators");
    for (size_t c = 0; c < N_COMPONENTS; c++) {
        const struct chip_vocab *v = em->vocab;
        const char *word[] = { [PART_MATRIX] = v ? v->matrix : "MXU", [PART_VECTOR] = v ? v->vector : "VPU",
                               [PART_MEMORY] = "HBM", [PART_LINK] = v ? v->link : "ICI" };   /* no words: a sizing pass */
        char name[96];
        /* the link track adds the network past the link: a TPU pod's DCN, a GPU cluster's */
        snprintf(name, sizeof name, components[c].what, word[components[c].part], v && v->gpu ? "network" : "DCN");
        emit_meta(em, "thread_name", pid, 2 + (int)c, name);
    }
}

/* One slice of count executions of op from start_ns (layer, step >= 0: its
 * place, in the args) and its components' busy slices; returns its time. */
static double emit_op(struct emitter *em, int pid, const struct op *op, double start_ns, int64_t count,
                      int64_t layer, int64_t step)
{
    double n = (double)count, dur = (double)op->exe_ns * n;
    if (em->dry) {
        em->events++;
        for (size_t c = 0; c < N_COMPONENTS; c++)
            em->events += components[c].busy(op) > 0;
        return dur;
    }
    char name[300];
    snprintf(name, sizeof name, count > 1 ? "%s x%lld" : "%s", op->name ? op->name : "op", (long long)count);
    cJSON *s = slice(name, pid, 1, start_ns, dur), *a = op_args(op, count);
    if (layer >= 0)
        cJSON_AddNumberToObject(a, "layer", (double)layer);
    if (step >= 0)
        cJSON_AddNumberToObject(a, "step", (double)step);
    if (!cJSON_AddItemToObject(s, "args", a))
        cJSON_Delete(a);
    emit(em, s);
    for (size_t c = 0; c < N_COMPONENTS; c++) {
        int64_t busy = components[c].busy(op);
        if (busy > 0)
            emit(em, slice(name, pid, 2 + (int)c, start_ns, (double)busy * n));
    }
    return dur;
}

/* A parent slice on the operators track: a step, a layer, the steps left summed. */
static void emit_parent(struct emitter *em, int pid, const char *name, double start_ns, double dur_ns,
                        const char *key, int64_t value)
{
    if (em->dry) {
        em->events++;
        return;
    }
    cJSON *s = slice(name, pid, 1, start_ns, dur_ns), *a = cJSON_CreateObject();
    cJSON_AddNumberToObject(a, key, (double)value);
    if (!cJSON_AddItemToObject(s, "args", a))
        cJSON_Delete(a);
    emit(em, s);
}

/* ---- the plan: a phase's counts as steps x layers ---- */

/* Whether row k runs in step s, and how many times in each of its layers or in the step. */
static int64_t reps_in_step(const struct phase_plan *p, size_t k, int64_t s)
{
    const struct row_role *r = &p->r[k];
    if (r->role != ROLE_PARTIAL)
        return r->reps;
    return ((s - r->first_step) % p->steps + p->steps) % p->steps < r->n_steps ? 1 : 0;
}

static int64_t overlap(int64_t a0, int64_t a1, int64_t b0, int64_t b1)
{
    int64_t lo = a0 > b0 ? a0 : b0, hi = a1 < b1 ? a1 : b1;
    return hi > lo ? hi - lo : 0;
}

/* Row k's executions in steps [0, from). */
static int64_t execs_before(const struct phase_plan *p, size_t k, int64_t from)
{
    const struct row_role *r = &p->r[k];
    if (!p->factored || from <= 0)
        return 0;
    if (r->role == ROLE_STEP)
        return r->reps * from;
    if (r->role == ROLE_LAYER)
        return r->reps * p->layers * from;
    int64_t f = r->first_step, e = f + r->n_steps, steps = overlap(0, from, f, e < p->steps ? e : p->steps);
    if (e > p->steps)
        steps += overlap(0, from, 0, e - p->steps);
    return steps * p->layers;
}

/* The most frequent count/div among the rows div divides (ties: the smallest); 0 if none. */
static int64_t mode_quotient(const struct trace *t, const struct phase_plan *p, int64_t div)
{
    int64_t best = 0;
    size_t best_n = 0;
    for (size_t i = 0; i < p->n; i++) {
        int64_t c = count_of(&t->ops[p->idx[i]]);
        if (c % div)
            continue;
        size_t n = 0;
        for (size_t j = 0; j < p->n; j++)
            n += count_of(&t->ops[p->idx[j]]) == c;
        if (n > best_n || (n == best_n && c / div < best))
            best = c / div, best_n = n;
    }
    return best;
}

/* layers x steps: the model's layers when they divide a count (the steps are
 * then the most frequent count per layer), else steps = the counts' gcd and
 * layers the most frequent count per step. */
static void plan_shape(const struct trace *t, struct phase_plan *p, int64_t layers_hint)
{
    if (layers_hint > 1 && (p->steps = mode_quotient(t, p, layers_hint)) > 0) {
        p->layers = layers_hint;
        return;
    }
    int64_t g = 0;
    for (size_t i = 0; i < p->n; i++)
        for (int64_t b = count_of(&t->ops[p->idx[i]]); b;) {   /* g = gcd(g, count) */
            int64_t r = g % b;
            g = b, b = r;
        }
    p->steps = g > 0 ? g : 1;
    p->layers = mode_quotient(t, p, p->steps);
    if (p->layers < 1)
        p->layers = 1;
}

/* Each row's role; false when a count fits none (the phase is drawn as rows). */
static bool plan_roles(const struct trace *t, struct phase_plan *p)
{
    int64_t L = p->layers, S = p->steps, LS = L * S;
    size_t first = p->n, last = 0;
    for (size_t i = 0; i < p->n; i++)
        if (L > 1 && count_of(&t->ops[p->idx[i]]) % LS == 0)
            last = i, first = first < i ? first : i;
    for (size_t i = 0; i < p->n; i++) {
        const struct op *op = &t->ops[p->idx[i]];
        int64_t c = count_of(op);
        struct row_role *r = &p->r[i];
        *r = (struct row_role){ ROLE_STEP, c / S, 0, S };
        if (L > 1 && c % LS == 0)
            *r = (struct row_role){ ROLE_LAYER, c / LS, 0, S };
        else if (L > 1 && first < i && i < last && c % L == 0 && c / L < S) {
            /* after its same-named siblings' steps */
            int64_t from = 0;
            for (size_t j = 0; j < i; j++)
                if (p->r[j].role == ROLE_PARTIAL && !strcmp(t->ops[p->idx[j]].name ? t->ops[p->idx[j]].name : "",
                                                            op->name ? op->name : ""))
                    from += p->r[j].n_steps;
            *r = (struct row_role){ ROLE_PARTIAL, 1, from % S, c / L };
        } else if (c % S)
            return false;
    }
    return true;
}

/* ---- expansion ---- */

/* Whether a run of layered rows is a backward pass (its layers counted from the last down). */
static bool backward(const struct op *op)
{
    return op->description && !strncmp(op->description, "Bwd", 3);
}

/* Time of rows [i, j) (a run of layered rows) in one layer of step s. */
static double layer_ns(const struct trace *t, const struct phase_plan *p, size_t i, size_t j, int64_t s)
{
    double ns = 0;
    for (size_t k = i; k < j; k++)
        ns += (double)t->ops[p->idx[k]].exe_ns * (double)reps_in_step(p, k, s);
    return ns;
}

static size_t run_end(const struct phase_plan *p, size_t i)
{
    while (i < p->n && p->r[i].role != ROLE_STEP)
        i++;
    return i;
}

static double step_ns(const struct trace *t, const struct phase_plan *p, int64_t s)
{
    double ns = 0;
    for (size_t i = 0; i < p->n;)
        if (p->r[i].role == ROLE_STEP)
            ns += (double)t->ops[p->idx[i]].exe_ns * (double)p->r[i].reps, i++;
        else {
            size_t j = run_end(p, i);
            ns += layer_ns(t, p, i, j, s) * (double)p->layers;
            i = j;
        }
    return ns;
}

/* Step s from *clock: its slice (when the phase has several), its rows in
 * order, each run of layered rows layer by layer. */
static void emit_step(struct emitter *em, const struct trace *t, const struct phase_plan *p, int64_t s,
                      double *clock)
{
    char name[64];
    int64_t step = p->steps > 1 ? s : -1;
    if (step >= 0) {
        snprintf(name, sizeof name, "step %lld", (long long)s);
        emit_parent(em, p->pid, name, *clock, step_ns(t, p, s), "step", s);
    }
    for (size_t i = 0; i < p->n;) {
        if (p->r[i].role == ROLE_STEP) {
            *clock += emit_op(em, p->pid, &t->ops[p->idx[i]], *clock, p->r[i].reps, -1, step);
            i++;
            continue;
        }
        size_t j = run_end(p, i);
        bool down = backward(&t->ops[p->idx[i]]);
        double one = layer_ns(t, p, i, j, s);
        for (int64_t l = 0; l < p->layers; l++) {
            int64_t layer = down ? p->layers - 1 - l : l;
            snprintf(name, sizeof name, "layer %lld", (long long)layer);
            emit_parent(em, p->pid, name, *clock, one, "layer", layer);
            for (size_t k = i; k < j; k++) {
                int64_t n = reps_in_step(p, k, s);
                if (n > 0)
                    *clock += emit_op(em, p->pid, &t->ops[p->idx[k]], *clock, n, layer, step);
            }
        }
        i = j;
    }
}

/* The executions of steps [from, steps) as one slice per row (all of them
 * when the phase is drawn as rows), under a "steps FROM-LAST" slice when
 * some steps were expanded. */
static void emit_rest(struct emitter *em, const struct trace *t, const struct phase_plan *p, int64_t from,
                      double *clock)
{
    if (from > 0) {
        double ns = 0;
        for (size_t i = 0; i < p->n; i++) {
            const struct op *op = &t->ops[p->idx[i]];
            ns += (double)op->exe_ns * (double)(count_of(op) - execs_before(p, i, from));
        }
        char name[96];
        snprintf(name, sizeof name, "steps %lld-%lld (summed)", (long long)from, (long long)p->steps - 1);
        emit_parent(em, p->pid, name, *clock, ns, "steps", p->steps - from);
    }
    for (size_t i = 0; i < p->n; i++) {
        const struct op *op = &t->ops[p->idx[i]];
        int64_t left = count_of(op) - execs_before(p, i, from);
        if (left > 0)
            *clock += emit_op(em, p->pid, op, *clock, left, -1, -1);
    }
}

static void emit_phase(struct emitter *em, const struct trace *t, const struct phase_plan *p)
{
    double clock = 0;
    emit_tracks(em, p->pid);
    for (int64_t s = 0; s < p->expanded; s++)
        emit_step(em, t, p, s, &clock);
    if (!p->factored || p->expanded < p->steps)
        emit_rest(em, t, p, p->expanded, &clock);
}

/* How many steps of each phase fit in max_events, phase after phase, with
 * room kept for every phase's tracks and summed rest. */
static void plan_budget(const struct trace *t, struct phase_plan *p, size_t np, int64_t max_events)
{
    int64_t rest[N_PHASES], used = 0;
    for (size_t k = 0; k < np; k++) {
        struct emitter dry = { .dry = true };
        emit_tracks(&dry, p[k].pid);
        used += dry.events;
        dry.events = 0;
        struct phase_plan whole = p[k];
        whole.factored = false;
        emit_rest(&dry, t, &whole, 0, &(double){ 0 });
        rest[k] = dry.events + 1;   /* and the "steps K-N" slice */
        used += rest[k];
    }
    for (size_t k = 0; k < np; k++) {
        if (!p[k].factored)
            continue;
        int64_t s = 0;
        for (; s < p[k].steps; s++) {
            struct emitter dry = { .dry = true };
            emit_step(&dry, t, &p[k], s, &(double){ 0 });
            if (used + dry.events > max_events)
                break;
            used += dry.events;
        }
        p[k].expanded = s;
        if (s == p[k].steps)   /* no summed rest: its room goes to the next phases */
            used -= rest[k];
    }
}

static cJSON *plan_metadata(const struct phase_plan *p, size_t np, int64_t max_events)
{
    cJSON *a = cJSON_CreateArray();
    for (size_t k = 0; k < np; k++) {
        cJSON *o = cJSON_CreateObject();
        cJSON_AddStringToObject(o, "phase", process[p[k].pid]);
        if (p[k].factored) {
            cJSON_AddNumberToObject(o, "steps", (double)p[k].steps);
            cJSON_AddNumberToObject(o, "layers", (double)p[k].layers);
            cJSON_AddNumberToObject(o, "steps_expanded", (double)p[k].expanded);
            if (p[k].expanded < p[k].steps) {
                char note[200];
                snprintf(note, sizeof note, "steps %lld-%lld summed: the expansion stops at %lld events",
                         (long long)p[k].expanded, (long long)p[k].steps - 1, (long long)max_events);
                cJSON_AddStringToObject(o, "note", note);
            }
        } else
            cJSON_AddStringToObject(o, "note", "counts do not factor into steps x layers: one slice per row");
        cJSON_AddItemToArray(a, o);
    }
    return a;
}

/* The phases in order of first appearance, each with its rows. */
static size_t plan_phases(const struct trace *t, struct phase_plan *p)
{
    size_t np = 0;
    for (size_t i = 0; i < t->n; i++) {
        int pid = (int)t->ops[i].phase;
        size_t k = 0;
        while (k < np && p[k].pid != pid)
            k++;
        if (k == np) {
            p[np++] = (struct phase_plan){ .pid = pid, .idx = malloc(t->n * sizeof(size_t)),
                                           .r = malloc(t->n * sizeof(struct row_role)) };
            if (!p[k].idx || !p[k].r)
                abort();   /* as the op strings (traces/op.h): out of memory ends the process */
        }
        p[k].idx[p[k].n++] = i;
    }
    return np;
}

int timeline_detail_parse(const char *s, enum timeline_detail *d)
{
    if (!strcmp(s, "ops"))
        return *d = TIMELINE_OPS, 0;
    if (!strcmp(s, "layers"))
        return *d = TIMELINE_LAYERS, 0;
    return -1;
}

int64_t timeline_layers_of(const struct model_config *m)
{
    int64_t stages = m->pipeline_parallelism_degree * m->pipeline_parallel_degree_dcn;
    if (m->num_layers <= 0)
        return 0;
    return stages > 0 ? (m->num_layers + stages - 1) / stages : m->num_layers;
}

static char *finish(struct emitter *em, cJSON *md)
{
    char *mtext = cJSON_PrintUnformatted(md);
    cJSON_Delete(md);
    if (!mtext || em->oom) {
        cJSON_free(mtext);
        free(em->out.s);
        return NULL;
    }
    strbuf_puts(&em->out, "],\"displayTimeUnit\":\"ns\",\"metadata\":");
    strbuf_puts(&em->out, mtext);
    strbuf_puts(&em->out, "}\n");
    cJSON_free(mtext);
    return em->out.s;
}

char *timeline_json(const struct trace *t, const char *title, cJSON *provenance, const struct timeline_opts *o)
{
    struct timeline_opts def = { TIMELINE_OPS, 0, 0, NULL };
    o = o ? o : &def;
    int64_t max_events = o->max_events > 0 ? o->max_events : TIMELINE_MAX_EVENTS;
    bool layers = o->detail == TIMELINE_LAYERS;
    struct phase_plan p[N_PHASES];
    size_t np = plan_phases(t, p);
    for (size_t k = 0; k < np; k++) {
        p[k].steps = p[k].layers = 1;
        if (layers) {
            plan_shape(t, &p[k], o->layers);
            p[k].factored = plan_roles(t, &p[k]);
        }
    }
    if (layers)
        plan_budget(t, p, np, max_events);
    struct chip_config tpu;   /* a trace read without its chip: a TPU's words */
    if (!o->chip)
        chip_config_default(&tpu);
    struct emitter em = { .vocab = chip_vocab(o->chip ? o->chip : &tpu), .out = STRBUF_GROWING };
    strbuf_puts(&em.out, "{\"traceEvents\":[");
    for (size_t k = 0; k < np; k++)
        emit_phase(&em, t, &p[k]);
    cJSON *md = cJSON_CreateObject();
    cJSON_AddStringToObject(md, "title", title);
    cJSON_AddStringToObject(md, "producer", "npusim");
    if (provenance && !cJSON_AddItemToObject(md, "provenance", provenance))
        cJSON_Delete(provenance);
    cJSON_AddStringToObject(md, "detail", layers ? "layers" : "ops");
    if (layers) {
        cJSON_AddNumberToObject(md, "event_limit", (double)max_events);
        cJSON_AddNumberToObject(md, "events", (double)em.events);
        cJSON_AddItemToObject(md, "phases", plan_metadata(p, np, max_events));
    }
    for (size_t k = 0; k < np; k++)
        free(p[k].idx), free(p[k].r);
    return finish(&em, md);
}
