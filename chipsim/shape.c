/* shape.c — tensor-shape strings, dtype sizes and Python-exact arithmetic.
 *
 * Parses the two shape grammars of chipsim.md §3.2 ("DT:[d0,..],.." inputs,
 * "[DT:(d0,..)]" output) into struct tensor, maps dtype tokens to bytes with
 * the reference's substring rules, and provides py_div: Python's correctly
 * rounded int/int true division, which the reference uses inside ceil() and
 * which differs from (double)a/(double)b once an operand exceeds 2^53 (Q-NUM). */
#include "chipsim/cs_internal.h"
#include "traces/dtype.h"
#include "traces/strbuf.h"

#include <ctype.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int cs_errf(const struct cs_ctx *c, const char *fmt, ...)
{
    char msg[768];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof msg, fmt, ap);
    va_end(ap);
    return npu_errf(c->e, "op %zu \"%s\": %s", c->index, c->op->name ? c->op->name : "", msg);
}

const char *cs_config_text(const struct cs_ctx *c)
{
    static _Thread_local char buf[512 + OP_SHAPES_MAX_IN * OP_SHAPE_MAX_DIMS * 21];
    return op_config_text(c->op, buf, sizeof buf);
}

const char *cs_in_text(const struct cs_ctx *c)
{
    static _Thread_local char buf[OP_SHAPES_MAX_IN * (OP_DTYPE_MAX + 4 + OP_SHAPE_MAX_DIMS * 21)];
    return op_in_shapes_text(c->op, buf, sizeof buf);
}

const char *cs_out_text(const struct cs_ctx *c)
{
    static _Thread_local char buf[OP_DTYPE_MAX + 6 + OP_SHAPE_MAX_DIMS * 21];
    return op_out_shape_text(c->op, buf, sizeof buf);
}

int64_t tensor_elems(const struct tensor *t)
{
    int64_t n = 1;
    for (int i = 0; i < t->ndim; i++)
        n *= t->dims[i];
    return n;
}

int cs_dtype_bytes(const char *dt, bool bracketed)
{
    /* The frontend output dtype keeps its "[" so the exact-match tests for
     * DT_FLOAT / DT_INT fail there (chipsim Q15). */
    if (bracketed && (!strcmp(dt, "DT_FLOAT") || !strcmp(dt, "DT_INT")))
        return -1;
    return dtype_bytes(dt);
}

void tensor_list_free(struct tensor_list *l)
{
    free(l->t);
    l->t = NULL;
    l->n = l->cap = 0;
}

/* dtype token "DT_[A-Z|0-9]+" at *p; advances past it. */
static int parse_dtype(const char **p, char *out, size_t size)
{
    const char *s = *p;
    if (strncmp(s, "DT_", 3))
        return -1;
    size_t n = 3;
    while (isupper((unsigned char)s[n]) || isdigit((unsigned char)s[n]) || s[n] == '|')
        n++;
    if (n == 3)
        return -1;
    size_t c = n < size ? n : size - 1;
    memcpy(out, s, c);
    out[c] = '\0';
    *p = s + n;
    return 0;
}

/* "d0,d1,...<close>" (a trailing ',' as in Python's 1-tuple is allowed). */
static int parse_dims(const char **p, char close, struct tensor *t, const char **why)
{
    const char *s = *p;
    double elems = 1;
    t->ndim = 0;
    while (*s == ' ')
        s++;
    while (*s != close) {
        if (!isdigit((unsigned char)*s)) {
            *why = "a non-negative integer dimension";
            return -1;
        }
        if (t->ndim == NPU_MAX_DIMS) {
            *why = "at most 8 dimensions";
            return -1;
        }
        int64_t v = 0;
        while (isdigit((unsigned char)*s)) {
            if (v > (INT64_MAX - 9) / 10) {
                *why = "a dimension below 2^63";
                return -1;
            }
            v = v * 10 + (*s++ - '0');
        }
        t->dims[t->ndim++] = v;
        elems *= (double)v;
        if (elems > (double)NPU_MAX_TENSOR_ELEMS) {
            *why = "a tensor of at most 2^48 elements";
            return -1;
        }
        while (*s == ' ')
            s++;
        if (*s == ',') {
            s++;
            while (*s == ' ')
                s++;
        } else if (*s != close) {
            *why = "',' or a closing bracket after a dimension";
            return -1;
        }
    }
    *p = s + 1;
    return 0;
}

int shape_parse_inputs(const char *s, struct tensor_list *out, const char **why)
{
    out->n = 0;
    while (*s) {
        while (*s == ',')
            s++;
        if (!*s)
            break;
        if (out->n == out->cap) {
            size_t cap = out->cap ? 2 * out->cap : 4;
            struct tensor *t = realloc(out->t, cap * sizeof *t);
            if (!t) {
                *why = "memory for the tensor list";
                return -1;
            }
            out->t = t;
            out->cap = cap;
        }
        struct tensor *t = &out->t[out->n];
        if (parse_dtype(&s, t->dtype, sizeof t->dtype) || *s++ != ':' || *s++ != '[') {
            *why = "DT_<TYPE>:[d0,d1,...] pieces";
            return -1;
        }
        if (parse_dims(&s, ']', t, why))
            return -1;
        out->n++;
        if (*s && *s != ',') {
            *why = "',' between tensors";
            return -1;
        }
    }
    return 0;
}

int shape_parse_output(const char *s, struct tensor *t, const char **why)
{
    if (*s++ != '[' || parse_dtype(&s, t->dtype, sizeof t->dtype) || *s++ != ':' || *s++ != '(') {
        *why = "exactly one [DT_<TYPE>:(d0,d1,...)]";
        return -1;
    }
    if (parse_dims(&s, ')', t, why))
        return -1;
    if (strcmp(s, "]")) {
        *why = "exactly one [DT_<TYPE>:(d0,d1,...)]";
        return -1;
    }
    return 0;
}

/* The op's tensors from its form (traces/op_form.h): the same
 * tensors, and the same errors, that parsing the text gives. */
_Static_assert(OP_DTYPE_MAX == sizeof ((struct tensor *)0)->dtype, "dtype tokens fit as parsed");
_Static_assert(OP_SHAPE_MAX_DIMS <= NPU_MAX_DIMS, "held ranks fit a tensor");

static int tensor_from_held(const struct op_form *h, int slot, struct tensor *t, const char **why)
{
    double elems = 1;
    t->ndim = 0;
    for (int i = 0; i < h->nd[slot]; i++) {
        int64_t v = h->d[slot][i];
        if (v < 0) {
            *why = "a non-negative integer dimension";
            return -1;
        }
        t->dims[t->ndim++] = v;
        elems *= (double)v;
        if (elems > (double)NPU_MAX_TENSOR_ELEMS) {
            *why = "a tensor of at most 2^48 elements";
            return -1;
        }
    }
    const char *dt = op_form_dtype(h, slot);   /* the form's own, or a short constant */
    memcpy(t->dtype, dt, dt == h->dtype ? sizeof t->dtype : strlen(dt) + 1);
    return 0;
}

int shape_held_inputs(const struct op_form *h, struct tensor_list *out, const char **why)
{
    out->n = 0;
    if ((size_t)h->n_in > out->cap) {
        struct tensor *t = realloc(out->t, OP_SHAPES_MAX_IN * sizeof *t);
        if (!t) {
            *why = "memory for the tensor list";
            return -1;
        }
        out->t = t;
        out->cap = OP_SHAPES_MAX_IN;
    }
    for (int i = 0; i < h->n_in; i++, out->n++)
        if (tensor_from_held(h, i, &out->t[i], why))
            return -1;
    return 0;
}

int shape_held_output(const struct op_form *h, struct tensor *out, const char **why)
{
    return tensor_from_held(h, OP_SHAPES_MAX_IN, out, why);
}
