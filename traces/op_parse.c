/* op_parse.c — the one reader of the cells a form holds (see op_form.h):
 * an op's tensors, equation and window, from its form or, for an op read
 * from a CSV, parsed from the file's text with the grammars of
 * docs/spec/chipsim.md §3.2 ("DT:[d0,..],.." inputs, "[DT:(d0,..)]" the
 * output). Parsing is lazy: chipsim asks when it builds an op's
 * pseudo-instruction, so that a cell the reference never reads (a later op
 * of the same name, quirk chipsim Q1) never fails. */
#include "traces/op_form.h"
#include "traces/op.h"

#include <ctype.h>
#include <stdlib.h>
#include <string.h>

void tensor_list_free(struct tensor_list *l)
{
    free(l->t);
    l->t = NULL;
    l->n = l->cap = 0;
}

/* Room for cap tensors in l (its contents kept); -1 with *why when out of memory. */
static int list_room(struct tensor_list *l, size_t cap, const char **why)
{
    struct tensor *t = realloc(l->t, cap * sizeof *t);
    if (!t) {
        *why = "memory for the tensor list";
        return -1;
    }
    l->t = t;
    l->cap = cap;
    return 0;
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
        if (t->ndim == OP_TENSOR_MAX_DIMS) {
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
        if (elems > (double)OP_TENSOR_MAX_ELEMS) {
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
        if (out->n == out->cap && list_room(out, out->cap ? 2 * out->cap : 4, why))
            return -1;
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

/* ---- from the form: the same tensors, and the same errors, that parsing
 * the text the writer prints from it gives ---- */
_Static_assert(OP_DTYPE_MAX == sizeof ((struct tensor *)0)->dtype, "dtype tokens fit as parsed");
_Static_assert(OP_SHAPE_MAX_DIMS <= OP_TENSOR_MAX_DIMS, "held ranks fit a tensor");

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
        if (elems > (double)OP_TENSOR_MAX_ELEMS) {
            *why = "a tensor of at most 2^48 elements";
            return -1;
        }
    }
    const char *dt = op_form_dtype(h, slot);   /* the form's own, or a short constant */
    memcpy(t->dtype, dt, dt == h->dtype || dt == h->dtype_rest ? sizeof t->dtype : strlen(dt) + 1);
    return 0;
}

static int held_inputs(const struct op_form *h, struct tensor_list *out, const char **why)
{
    out->n = 0;
    if ((size_t)h->n_in > out->cap && list_room(out, OP_SHAPES_MAX_IN, why))
        return -1;
    for (int i = 0; i < h->n_in; i++, out->n++)
        if (tensor_from_held(h, i, &out->t[i], why))
            return -1;
    return 0;
}

static int held_output(const struct op_form *h, struct tensor *out, const char **why)
{
    return tensor_from_held(h, FORM_OUT, out, why);
}

int op_inputs(const struct op *op, struct tensor_list *out, const char **why)
{
    return op->form.in_held ? held_inputs(&op->form, out, why) : shape_parse_inputs(op->in_shapes, out, why);
}

int op_output(const struct op *op, struct tensor *out, const char **why)
{
    return op->form.out_held ? held_output(&op->form, out, why) : shape_parse_output(op->out_shape, out, why);
}

/* ---- the config: equation and window ---- */

/* Value of "key=" in the config text up to the next ',' (or ')' at the end). */
static int config_value(const char *config, const char *key, char *out, size_t size)
{
    const char *p = strstr(config, key);
    if (!p)
        return -1;
    p += strlen(key);
    size_t n = strcspn(p, ",)");
    if (n >= size)
        return -1;
    memcpy(out, p, n);
    out[n] = '\0';
    return 0;
}

/* "lhs;rhs->out" into three letter strings of at most 8 letters. */
static int split_eq(const char *eq, char *lhs, char *rhs, char *out)
{
    const char *semi = strchr(eq, ';'), *arrow = strstr(eq, "->");
    if (!semi || !arrow || semi > arrow || strchr(semi + 1, ';'))
        return -1;
    size_t nl = (size_t)(semi - eq), nr = (size_t)(arrow - semi - 1), no = strlen(arrow + 2);
    if (nl > OP_TENSOR_MAX_DIMS || nr > OP_TENSOR_MAX_DIMS || no > OP_TENSOR_MAX_DIMS)
        return -1;
    memcpy(lhs, eq, nl);
    lhs[nl] = '\0';
    memcpy(rhs, semi + 1, nr);
    rhs[nr] = '\0';
    memcpy(out, arrow + 2, no);
    out[no] = '\0';
    return 0;
}

int op_equation(const struct op *op, char *lhs, char *rhs, char *out)
{
    char eq[64];
    if (op->form.layout != FORM_TEXT)
        return split_eq(op->form.eq, lhs, rhs, out);
    return config_value(op->config, "eq=", eq, sizeof eq) || split_eq(eq, lhs, rhs, out);
}

int op_conv_stride(const struct op *op, int64_t *h, int64_t *w)
{
    *h = *w = 1;
    if (op->form.layout != FORM_TEXT) {
        if (op->form.stride > 0)
            *h = *w = op->form.stride;
        return 0;
    }
    const char *win = strstr(op->config, "window={");
    if (!win)
        return 0;
    const char *end = strchr(win, '}'), *st = strstr(win, "stride=");
    if (!end || !st || st > end)
        return 0;
    char *q;
    long long sh = strtoll(st + 7, &q, 10), sw = 0;
    if (*q == 'x')
        sw = strtoll(q + 1, &q, 10);
    if (sh <= 0 || sw <= 0)
        return -1;
    *h = sh;
    *w = sw;
    return 0;
}

int op_block_scales(const struct op *op, int64_t *k, int64_t *n, char *dt)
{
    *k = *n = 0;
    dt[0] = '\0';
    if (op->form.layout != FORM_TEXT) {
        if (op->form.layout == FORM_EINSUM && op->form.scale_k) {
            *k = op->form.scale_k;
            *n = op->form.scale_n;
            memcpy(dt, op->form.scale_dtype, sizeof op->form.scale_dtype);
        }
        return 0;
    }
    const char *b = strstr(op->config, ",block_scales=");
    if (!b)
        return 0;
    const char *s = b + 14;
    char *q;
    long long sk = isdigit((unsigned char)*s) ? strtoll(s, &q, 10) : 0, sn = 0;
    if (sk > 0 && *q == 'x' && isdigit((unsigned char)q[1]))
        sn = strtoll(q + 1, &q, 10);
    if (sk < 1 || sk > 65535 || sn < 1 || sn > 65535 || *q != ':')
        return -1;
    s = q + 1;
    if (parse_dtype(&s, dt, OP_DTYPE_MAX) || (*s != ',' && *s != ')'))
        return -1;
    *k = sk;
    *n = sn;
    return 0;
}
