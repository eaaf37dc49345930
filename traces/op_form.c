/* op_form.c — the config, in_shapes and out_shape cells printed from an
 * op's form, and tile_shapes from its tiling (see op_form.h). */
#include "traces/op_form.h"
#include "traces/strbuf.h"

/* Dimensions joined by sep, each between q and q: "8x4096", "8, 4096",
 * "'8', '4096'". The one-character joins without quotes ("x", ",") are
 * most of every CSV's text cells: they take a byte append each. */
static void put_dims(struct strbuf *b, const int64_t *d, int nd, const char *sep, const char *q)
{
    if (sep[1] == '\0' && *q == '\0') {
        for (int i = 0; i < nd; i++) {
            if (i)
                strbuf_putc(b, *sep);
            strbuf_puti(b, d[i]);
        }
        return;
    }
    for (int i = 0; i < nd; i++) {
        if (i)
            strbuf_puts(b, sep);
        strbuf_puts(b, q);
        strbuf_puti(b, d[i]);
        strbuf_puts(b, q);
    }
}

static void put_x(struct strbuf *b, const struct op_form *f, int slot) { put_dims(b, f->d[slot], f->nd[slot], "x", ""); }

/* ",memory_placements=P,type=DT)" */
static void put_tail(struct strbuf *b, const struct op_form *f)
{
    strbuf_puts(b, ",memory_placements=");
    strbuf_puts(b, f->placements);
    strbuf_puts(b, ",type=");
    strbuf_puts(b, f->dtype);
    strbuf_putc(b, ')');
}

/* "key=<dims of slot>" for each (key, slot) pair up to a NULL key. */
static void put_named(struct strbuf *b, const struct op_form *f, const char *const *keys, const int *slots)
{
    for (int i = 0; keys[i]; i++) {
        if (i)
            strbuf_putc(b, ',');
        strbuf_puts(b, keys[i]);
        put_x(b, f, slots[i]);
    }
}

static void put_window(struct strbuf *b, const struct op_form *f)
{
    strbuf_puts(b, ",window={size=");
    strbuf_puti(b, f->d[1][2]);
    strbuf_putc(b, 'x');
    strbuf_puti(b, f->d[1][3]);
    strbuf_puts(b, " stride=");
    strbuf_puti(b, f->stride);
    strbuf_putc(b, 'x');
    strbuf_puti(b, f->stride);
    strbuf_puts(b, " pad=0_");
    strbuf_puti(b, f->pad);
    strbuf_puts(b, "x0_");
    strbuf_puti(b, f->pad);
    strbuf_putc(b, '}');
}

/* "(in->out)" with the dims of the arrow layouts. */
static void put_arrow(struct strbuf *b, const struct op_form *f, bool quoted)
{
    const char *sep = quoted ? ", " : "x", *q = quoted ? "'" : "";
    strbuf_puts(b, quoted ? "([" : "(");
    put_dims(b, f->d[0], f->nd[0], sep, q);
    strbuf_puts(b, quoted ? "]->[" : "->");
    put_dims(b, f->d[FORM_OUT], f->nd[FORM_OUT], sep, q);
    strbuf_puts(b, quoted ? "])" : ")");
}

void op_form_print_config(struct strbuf *b, const struct op_form *f)
{
    static const char *const ab[] = { "(a=", "b=", NULL }, *const x[] = { "(x=", NULL },
                              *const qkv[] = { "(q=", "k=", "v=", NULL }, *const abc[] = { "(a=", "b=", "c=", NULL };
    static const int in01[] = { 0, 1 }, in012[] = { 0, 1, 2 }, outs[] = { FORM_OUT, FORM_OUT },
                     conv[] = { 0, 1, FORM_OUT };
    strbuf_puts(b, f->kind);
    switch ((enum form_layout)f->layout) {
    case FORM_TEXT:
        break;
    case FORM_EINSUM:
    case FORM_CONV:
        put_named(b, f, f->layout == FORM_CONV ? abc : ab, f->layout == FORM_CONV ? conv : in01);
        strbuf_puts(b, ",eq=");
        strbuf_puts(b, f->eq);
        if (f->layout == FORM_CONV)
            put_window(b, f);
        put_tail(b, f);
        break;
    case FORM_X:
        put_named(b, f, x, in01);
        put_tail(b, f);
        break;
    case FORM_AB_OUT:
        put_named(b, f, ab, outs);
        put_tail(b, f);
        break;
    case FORM_QKV:
        put_named(b, f, qkv, in012);
        put_tail(b, f);
        break;
    case FORM_ABS:
        put_named(b, f, x, in01);
        strbuf_puts(b, ",type=");
        strbuf_puts(b, f->dtype);
        strbuf_putc(b, ')');
        break;
    case FORM_LIST:
        strbuf_puts(b, "([");
        put_dims(b, f->d[0], f->nd[0], ", ", "");
        strbuf_puts(b, "])");
        break;
    case FORM_ARROW:
    case FORM_ARROW_QUOTED:
        put_arrow(b, f, f->layout == FORM_ARROW_QUOTED);
        break;
    case FORM_EMBEDDING_BAG:
        strbuf_puts(b, "(batch=");
        strbuf_puti(b, f->d[0][0]);
        strbuf_puts(b, ",table_sizes=[");
        strbuf_puti(b, f->d[1][0]);
        strbuf_puts(b, "],num_indices=[");
        strbuf_puti(b, f->d[0][2]);
        strbuf_puts(b, "],embedding_dim=");
        strbuf_puti(b, f->d[1][1]);
        strbuf_puts(b, ",reduction=sum");
        put_tail(b, f);
        break;
    case FORM_RESAMPLE:
        put_named(b, f, (const char *const[]){ "(a=", NULL }, in01);
        strbuf_puts(b, ",scale_factor=");
        strbuf_puti(b, f->scale);
        put_tail(b, f);
        break;
    }
}

static void put_tensor(struct strbuf *b, const struct op_form *f, int slot, const char *open, const char *close)
{
    strbuf_puts(b, op_form_dtype(f, slot));
    strbuf_puts(b, open);
    put_dims(b, f->d[slot], f->nd[slot], ",", "");
    strbuf_puts(b, close);
}

void op_form_print_inputs(struct strbuf *b, const struct op_form *f)
{
    for (int i = 0; i < f->n_in; i++) {
        if (i)
            strbuf_putc(b, ',');
        put_tensor(b, f, i, ":[", "]");
    }
}

void op_form_print_output(struct strbuf *b, const struct op_form *f)
{
    strbuf_putc(b, '[');
    put_tensor(b, f, FORM_OUT, ":(", ")");
    strbuf_putc(b, ']');
}

/* Python's repr of a list of ints: "[1, 2]". */
static void put_list(struct strbuf *b, const int64_t *d, int n)
{
    strbuf_putc(b, '[');
    put_dims(b, d, n, ", ", "");
    strbuf_putc(b, ']');
}

void op_tiling_print_tiles(struct strbuf *b, const struct op_tiling *t)
{
    if (t->rows == 0) {
        put_list(b, t->d[0], t->len[0]);
        return;
    }
    if (t->rows < 0)
        return;
    strbuf_putc(b, '[');
    for (int r = 0; r < t->rows; r++) {
        if (r)
            strbuf_putn(b, ", ", 2);
        put_list(b, t->d[r], t->len[r]);
    }
    strbuf_putc(b, ']');
}
