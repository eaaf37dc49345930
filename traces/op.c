/* op.c — lifetime of operator records and traces (see op.h). */
#include "traces/op.h"
#include "traces/opstr.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static void *xrealloc(void *p, size_t n)
{
    void *q = realloc(p, n);
    if (!q) {
        fputs("npusim: out of memory\n", stderr);
        abort();
    }
    return q;
}

/* Empty fields share opstr_empty rather than a malloc'ed "" each: an op has
 * nine string fields and most start (and many stay) empty. It is read-only,
 * so a write through a field would fault rather than corrupt other ops. */
#define EMPTY_STR ((char *)opstr_empty)

void op_setn(char **field, const char *s, size_t n)
{
    char *c = EMPTY_STR;
    if (n) {
        c = opstr_alloc(n + 1);
        memcpy(c, s, n);
        c[n] = '\0';
    }
    opstr_release(*field);
    *field = c;
}

void op_set(char **field, const char *s) { op_setn(field, s, strlen(s)); }

/* The strings opsgen writes (chipsim, power and the statistics only read
 * them), then those chipsim writes. */
#define OP_CREATION_STRINGS(X) X(description) X(config) X(name) X(opcode) X(in_shapes) X(out_shape)
#define OP_RESULT_STRINGS(X) X(parsed_op_type) X(dim_labels) X(tile_shapes)
#define OP_STRINGS(X) OP_CREATION_STRINGS(X) OP_RESULT_STRINGS(X)

void op_init(struct op *op)
{
    memset(op, 0, sizeof *op);
    op->prec = op->prec_ran = op->kernel_class = -1;   /* not timed in a format (yet) */
    op->efficiency = 1.0;
#define EMPTY(f) op->f = EMPTY_STR;
    OP_STRINGS(EMPTY)
#undef EMPTY
    op->type = OP_OTHER;
    op->count = 1;
    op->num_tiles = 1;
    for (int c = 0; c < NUM_COMP; c++) {
        strcpy(op->dvfs[c].policy, "None");
        op->dvfs[c].scaling_time_ns = 20;
        op->dvfs[c].efficiency_pct = 100.0;
        op->dvfs[c].activity = 1.0;
    }
}

void op_free(struct op *op)
{
#define FREE(f) opstr_release(op->f); op->f = NULL;
    OP_STRINGS(FREE)
#undef FREE
}

void op_share(char **field, char *src)
{
    opstr_share(src);
    opstr_release(*field);
    *field = src;
}

int op_copy(struct op *dst, const struct op *src)
{
    *dst = *src;
#define DUP(f) opstr_share(dst->f);
    OP_STRINGS(DUP)
#undef DUP
    return 0;
}

void trace_init(struct trace *t) { memset(t, 0, sizeof *t); }

void trace_free(struct trace *t)
{
    for (size_t i = 0; i < t->n; i++)
        op_free(&t->ops[i]);
    free(t->ops);
    memset(t, 0, sizeof *t);
}

/* Room for n more ops. */
static void reserve(struct trace *t, size_t n)
{
    if (t->n + n > t->cap) {
        size_t cap = t->cap ? t->cap : 64;
        while (cap < t->n + n)
            cap *= 2;
        t->ops = xrealloc(t->ops, cap * sizeof *t->ops);
        t->cap = cap;
    }
}

void trace_reserve(struct trace *t, size_t n)
{
    if (t->n + n > t->cap) {
        t->ops = xrealloc(t->ops, (t->n + n) * sizeof *t->ops);
        t->cap = t->n + n;
    }
}

struct op *trace_push(struct trace *t)
{
    reserve(t, 1);
    struct op *op = &t->ops[t->n++];
    op_init(op);
    return op;
}

int trace_append(struct trace *dst, const struct trace *src)
{
    /* One block copy, then one more owner for every string: a copied op
     * shares its strings (op.h), so nothing is allocated per op. */
    if (src->n == 0)
        return 0;
    reserve(dst, src->n);
    struct op *to = dst->ops + dst->n;
    memcpy(to, src->ops, src->n * sizeof *to);
    for (size_t i = 0; i < src->n; i++) {
#define DUP(f) opstr_share(to[i].f);
        OP_STRINGS(DUP)
#undef DUP
    }
    dst->n += src->n;
    return 0;
}

double op_tflops_per_sec(const struct op *op)
{
    if (op->exe_ns == 0)
        return 0;
    return (double)op->flops * 1e9 / (double)op->exe_ns / 1e12;
}

double op_hbm_bw_GBps(const struct op *op)
{
    if (op->exe_ns == 0)
        return 0;
    return (double)op->bytes / 1024 / 1024 / 1024 * 1e9 / (double)op->exe_ns;
}

static double sum(const double *v)
{
    double s = 0;
    for (int i = 0; i < NUM_EN; i++)
        s += v[i];
    return s;
}

double op_static_energy_J(const struct op *op) { return sum(op->static_J); }
double op_dynamic_energy_J(const struct op *op) { return sum(op->dynamic_J); }
double op_total_energy_J(const struct op *op)
{
    return op_static_energy_J(op) + op_dynamic_energy_J(op);
}

static const char *const type_names[] = { "MXU", "VPU", "ICINoCompute", "Other" };
static const char *const bound_names[] = { "", "Compute", "Memory", "ICI/NVLink", "Power" };
static const char *const phase_names[] = { "", "prefill", "decode" };

const char *op_type_name(enum op_type t) { return type_names[t]; }
const char *bounded_by_name(enum bounded_by b) { return bound_names[b]; }
const char *phase_name(enum phase p) { return phase_names[p]; }

int op_type_parse(const char *s, enum op_type *t)
{
    for (int i = 0; i < 4; i++)
        if (strcmp(s, type_names[i]) == 0) {
            *t = (enum op_type)i;
            return 0;
        }
    return -1;
}

int bounded_by_parse(const char *s, enum bounded_by *b)
{
    for (int i = 0; i < 5; i++)
        if (strcmp(s, bound_names[i]) == 0) {
            *b = (enum bounded_by)i;
            return 0;
        }
    return -1;
}

/* A printed cell into buf (size n > 0), cut to fit as snprintf would. */
static const char *cut_into(char *buf, size_t n, const char *cell, size_t len)
{
    if (len >= n)
        len = n - 1;
    memcpy(buf, cell, len);
    buf[len] = '\0';
    return buf;
}

/* Each: the op's own text when it has no data for the cell, else the cell
 * printed from the data into buf. */
#define CELL_TEXT(name, is_text, text, print, data)                          \
    const char *name(const struct op *op, char *buf, size_t n)              \
    {                                                                        \
        char cell[OP_CELL_MAX];                                              \
        return is_text ? op->text : cut_into(buf, n, cell, print(cell, &op->data)); \
    }
CELL_TEXT(op_config_text, op->form.layout == FORM_TEXT, config, op_form_print_config, form)
CELL_TEXT(op_in_shapes_text, !op->form.in_held, in_shapes, op_form_print_inputs, form)
CELL_TEXT(op_out_shape_text, !op->form.out_held, out_shape, op_form_print_output, form)
CELL_TEXT(op_tile_shapes_text, !op->tiling.held, tile_shapes, op_tiling_print_tiles, tiling)
#undef CELL_TEXT
