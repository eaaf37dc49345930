/* op_form.c — the config, in_shapes and out_shape cells printed from an
 * op's form, and tile_shapes from its tiling (see op_form.h).
 *
 * Every printer stores bytes straight into a buffer of OP_CELL_MAX bytes,
 * which holds any cell a form can spell (the bound is worked out in
 * op_form.h), so no store is checked. The CSV writer prints each generated
 * op's cells anew for every file it writes (the suite: twice per op on
 * average), where opsgen once printed them and every write copied them;
 * unchecked stores took that printing from 46 to 33 million instructions of
 * perf.suite (-j 1; strbuf appends with a bounds check each before). */
#include "traces/op_form.h"
#include "base/digits.h"

#include <string.h>

static char *put_str(char *p, const char *s)
{
    while (*s)
        *p++ = *s++;
    return p;
}

static char *put_i64(char *p, int64_t v)
{
    uint64_t u = v < 0 ? 0 - (uint64_t)v : (uint64_t)v;
    size_t len = (size_t)(v < 0) + (size_t)u64_ndigits(u);
    u64_put_digits(u, p + len);
    if (v < 0)
        *p = '-';
    return p + len;
}

/* Dimensions joined by sep, each between q and q: "8x4096", "8, 4096", "'8', '4096'". */
static char *put_dims(char *p, const int64_t *d, int nd, const char *sep, const char *q)
{
    for (int i = 0; i < nd; i++) {
        if (i)
            p = put_str(p, sep);
        p = put_i64(put_str(p, q), d[i]);
        p = put_str(p, q);
    }
    return p;
}

static char *put_x(char *p, const struct op_form *f, int slot) { return put_dims(p, f->d[slot], f->nd[slot], "x", ""); }

/* ",memory_placements=P,type=DT)" */
static char *put_tail(char *p, const struct op_form *f)
{
    p = put_str(put_str(p, ",memory_placements="), f->placements);
    p = put_str(put_str(p, ",type="), f->dtype);
    *p++ = ')';
    return p;
}

/* "key=<dims of slot>" for each (key, slot) pair up to a NULL key. */
static char *put_named(char *p, const struct op_form *f, const char *const *keys, const int *slots)
{
    for (int i = 0; keys[i]; i++) {
        if (i)
            *p++ = ',';
        p = put_x(put_str(p, keys[i]), f, slots[i]);
    }
    return p;
}

/* ",window={size=HxW stride=SxS pad=0_Px0_P}": the kernel's last two dims. */
static char *put_window(char *p, const struct op_form *f)
{
    p = put_i64(put_str(p, ",window={size="), f->d[1][2]);
    p = put_i64(put_str(p, "x"), f->d[1][3]);
    p = put_i64(put_str(p, " stride="), f->stride);
    p = put_i64(put_str(p, "x"), f->stride);
    p = put_i64(put_str(p, " pad=0_"), f->pad);
    p = put_i64(put_str(p, "x0_"), f->pad);
    *p++ = '}';
    return p;
}

/* "(in->out)" of the arrow layouts. */
static char *put_arrow(char *p, const struct op_form *f, bool quoted)
{
    const char *sep = quoted ? ", " : "x", *q = quoted ? "'" : "";
    p = put_dims(put_str(p, quoted ? "([" : "("), f->d[0], f->nd[0], sep, q);
    p = put_dims(put_str(p, quoted ? "]->[" : "->"), f->d[FORM_OUT], f->nd[FORM_OUT], sep, q);
    return put_str(p, quoted ? "])" : ")");
}

static char *put_embedding_bag(char *p, const struct op_form *f)
{
    p = put_i64(put_str(p, "(batch="), f->d[0][0]);
    p = put_i64(put_str(p, ",table_sizes=["), f->d[1][0]);
    p = put_i64(put_str(p, "],num_indices=["), f->d[0][2]);
    p = put_i64(put_str(p, "],embedding_dim="), f->d[1][1]);
    return put_tail(put_str(p, ",reduction=sum"), f);
}

static char *put_config(char *p, const struct op_form *f)
{
    static const char *const ab[] = { "(a=", "b=", NULL }, *const x[] = { "(x=", NULL }, *const a[] = { "(a=", NULL },
                              *const qkv[] = { "(q=", "k=", "v=", NULL }, *const abc[] = { "(a=", "b=", "c=", NULL };
    static const int in012[] = { 0, 1, 2 }, outs[] = { FORM_OUT, FORM_OUT }, conv[] = { 0, 1, FORM_OUT };
    p = put_str(p, f->kind);
    switch ((enum form_layout)f->layout) {
    case FORM_TEXT:
        return p;
    case FORM_EINSUM:
        p = put_str(put_str(put_named(p, f, ab, in012), ",eq="), f->eq);
        if (f->scale_k) {
            p = put_i64(put_str(p, ",block_scales="), f->scale_k);
            p = put_str(put_i64(put_str(p, "x"), f->scale_n), ":");
            p = put_str(p, f->scale_dtype);
        }
        return put_tail(p, f);
    case FORM_CONV:
        return put_tail(put_window(put_str(put_str(put_named(p, f, abc, conv), ",eq="), f->eq), f), f);
    case FORM_X:
        return put_tail(put_named(p, f, x, in012), f);
    case FORM_AB_OUT:
        return put_tail(put_named(p, f, ab, outs), f);
    case FORM_QKV:
        return put_tail(put_named(p, f, qkv, in012), f);
    case FORM_ABS:
        p = put_str(put_str(put_named(p, f, x, in012), ",type="), f->dtype);
        *p++ = ')';
        return p;
    case FORM_LIST:
        return put_str(put_dims(put_str(p, "(["), f->d[0], f->nd[0], ", ", ""), "])");
    case FORM_ARROW:
    case FORM_ARROW_QUOTED:
        return put_arrow(p, f, f->layout == FORM_ARROW_QUOTED);
    case FORM_RESAMPLE:
        p = put_i64(put_str(put_named(p, f, a, in012), ",scale_factor="), f->scale);
        return put_tail(p, f);
    case FORM_EMBEDDING_BAG:
        return put_embedding_bag(p, f);
    }
    return p;
}

static char *put_tensor(char *p, const struct op_form *f, int slot, const char *open, const char *close)
{
    p = put_str(put_str(p, op_form_dtype(f, slot)), open);
    return put_str(put_dims(p, f->d[slot], f->nd[slot], ",", ""), close);
}

static char *put_inputs(char *p, const struct op_form *f)
{
    for (int i = 0; i < f->n_in; i++) {
        if (i)
            *p++ = ',';
        p = put_tensor(p, f, i, ":[", "]");
    }
    return p;
}

static char *put_output(char *p, const struct op_form *f)
{
    *p++ = '[';
    p = put_tensor(p, f, FORM_OUT, ":(", ")");
    *p++ = ']';
    return p;
}

/* Python's repr of the tiles: one list "[4, 5]", or a list of lists "[[1, 2], [3]]". */
static char *put_tiles(char *p, const struct op_tiling *t)
{
    if (t->rows < 0)
        return p;
    int n = t->rows ? t->rows : 1;
    if (t->rows)
        *p++ = '[';
    for (int r = 0; r < n; r++) {
        p = put_str(p, r ? ", [" : "[");
        p = put_dims(p, t->d[r], t->len[r], ", ", "");
        *p++ = ']';
    }
    if (t->rows)
        *p++ = ']';
    return p;
}

/* Each printer: the cell into out (OP_CELL_MAX bytes), NUL-terminated; its length. */
#define PRINTER(name, type, put)                    \
    size_t name(char *out, const type *x)           \
    {                                               \
        char *end = put(out, x);                    \
        *end = '\0';                                \
        return (size_t)(end - out);                 \
    }
PRINTER(op_form_print_config, struct op_form, put_config)
PRINTER(op_form_print_inputs, struct op_form, put_inputs)
PRINTER(op_form_print_output, struct op_form, put_output)
PRINTER(op_tiling_print_tiles, struct op_tiling, put_tiles)
#undef PRINTER
