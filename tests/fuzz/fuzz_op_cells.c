/* fuzz_op_cells.c — the one reader and the one writer of an op's config,
 * shape and tile cells (traces/op_form.h).
 *
 * Text: the input's first three lines are an op's config, in_shapes and
 * out_shape cells as a CSV gives them; reading its tensors, equation and
 * window must succeed or fail with a reason, never crash or leak.
 * Form: the input's bytes also fill a form and a tiling (tokens cut to
 * their fields, ranks and counts clamped as the builders keep them, dims
 * below 2^59 in magnitude, past which the text reader refuses a number);
 * every cell must print inside OP_CELL_MAX bytes, and the tensors read
 * back from the printed shape text (an einsum's block scales from its
 * printed config) must equal those read from the form. */
#include "fuzz_common.h"

#include "traces/op.h"

static void text_cells(const char *s)
{
    char *a = strdup(s);
    if (!a)
        abort();
    char *lines[3] = { a, "", "" };
    for (int i = 1; i < 3; i++) {
        char *nl = strchr(lines[i - 1], '\n');
        if (!nl)
            break;
        *nl = '\0';
        lines[i] = nl + 1;
    }
    struct op op;
    op_init(&op);
    op_set(&op.config, lines[0]);
    op_set(&op.in_shapes, lines[1]);
    op_set(&op.out_shape, lines[2]);
    struct tensor_list l = { 0 };
    struct tensor t;
    const char *why = "";
    if (op_inputs(&op, &l, &why) && !*why)
        abort();   /* a failure names what was expected */
    why = "";
    if (op_output(&op, &t, &why) && !*why)
        abort();
    char lhs[9], rhs[9], out[9];
    int64_t h, w;
    (void)op_equation(&op, lhs, rhs, out);
    (void)op_conv_stride(&op, &h, &w);
    char sdt[OP_DTYPE_MAX];
    if (op_block_scales(&op, &h, &w, sdt) == 0 && h && (h < 1 || h > 65535 || w < 1 || w > 65535 || !sdt[0]))
        abort();   /* what reads is in range */
    tensor_list_free(&l);
    op_free(&op);
    free(a);
}

static void same_tensor(const struct tensor *x, const struct tensor *y)
{
    if (x->ndim != y->ndim || memcmp(x->dims, y->dims, (size_t)x->ndim * sizeof x->dims[0]) ||
        strcmp(x->dtype, y->dtype))
        abort();
}

static void form_cells(const uint8_t *data, size_t size)
{
    struct op op;
    op_init(&op);
    struct op_form *f = &op.form;
    memcpy(f, data, size < sizeof *f ? size : sizeof *f);
    f->kind[sizeof f->kind - 1] = f->eq[sizeof f->eq - 1] = '\0';
    f->placements[sizeof f->placements - 1] = '\0';
    snprintf(f->dtype, sizeof f->dtype, "%s", (f->dtype[0] & 1) ? "DT_BFLOAT16" : "DT_INT8");
    /* the inputs after the first: the same, or a 4-bit weight format */
    snprintf(f->dtype_rest, sizeof f->dtype_rest, "%s", (f->dtype_rest[0] & 1) ? "DT_INT4" : "");
    snprintf(f->scale_dtype, sizeof f->scale_dtype, "%s", (f->scale_dtype[0] & 1) ? "DT_FLOAT" : "DT_FLOAT8E4M3FN");
    if (f->scale_k && !f->scale_n)
        f->scale_n = 1;
    f->layout %= FORM_EMBEDDING_BAG + 1;
    f->n_in = (int8_t)((uint8_t)f->n_in % (OP_SHAPES_MAX_IN + 1));
    for (int i = 0; i <= FORM_OUT; i++) {
        f->nd[i] = (int8_t)((uint8_t)f->nd[i] % (OP_SHAPE_MAX_DIMS + 1));
        for (int k = 0; k < OP_SHAPE_MAX_DIMS; k++)   /* the text reader stops at 2^59 and up */
            f->d[i][k] %= (int64_t)1 << 59;
    }
    f->in_held = f->out_held = true;
    if (size > sizeof *f) {
        size_t n = size - sizeof *f < sizeof op.tiling ? size - sizeof *f : sizeof op.tiling;
        memcpy(&op.tiling, data + sizeof *f, n);
    }
    op.tiling.held = true;
    op.tiling.rows = (int8_t)((uint8_t)op.tiling.rows % (OP_TILE_ROWS + 2)) - 1;
    for (int r = 0; r < OP_TILE_ROWS; r++)
        op.tiling.len[r] = (int8_t)((uint8_t)op.tiling.len[r] % (OP_SHAPE_MAX_DIMS + 1));
    char cell[OP_CELL_MAX];
    if (op_form_print_config(cell, f) >= OP_CELL_MAX)
        abort();
    /* an einsum's block scales read back from its printed config */
    /* (tokens that spell config syntax themselves, which no builder makes, may shadow it) */
    if (f->layout == FORM_EINSUM && !strpbrk(f->kind, ",()=") && !strpbrk(f->eq, ",()=") &&
        !strpbrk(f->placements, ",()=")) {
        struct op t;
        op_init(&t);
        op_set(&t.config, cell);
        int64_t k, n, k2, n2;
        char d1[OP_DTYPE_MAX], d2[OP_DTYPE_MAX];
        if (op_block_scales(&op, &k, &n, d1) || op_block_scales(&t, &k2, &n2, d2) || k != k2 || n != n2 ||
            (k && strcmp(d1, d2)))
            abort();
        op_free(&t);
    }
    if (op_tiling_print_tiles(cell, &op.tiling) >= OP_CELL_MAX)
        abort();
    struct tensor_list a = { 0 }, b = { 0 };
    struct tensor ta, tb;
    const char *wa = "", *wb = "";
    if (op_form_print_inputs(cell, f) >= OP_CELL_MAX)
        abort();
    int ra = shape_parse_inputs(cell, &a, &wa), rb = op_inputs(&op, &b, &wb);
    if (ra != rb || strcmp(wa, wb) || (!ra && a.n != b.n))
        abort();
    for (size_t i = 0; !ra && i < a.n; i++)
        same_tensor(&a.t[i], &b.t[i]);
    if (op_form_print_output(cell, f) >= OP_CELL_MAX)
        abort();
    ra = shape_parse_output(cell, &ta, &wa), rb = op_output(&op, &tb, &wb);
    if (ra != rb || strcmp(wa, wb))
        abort();
    if (!ra)
        same_tensor(&ta, &tb);
    tensor_list_free(&a);
    tensor_list_free(&b);
    op_free(&op);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    char *s = fuzz_text(data, size);
    text_cells(s);
    free(s);
    form_cells(data, size);
    return 0;
}
