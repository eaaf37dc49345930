/* op_form.h — an operator's form as data: how its config reads, its einsum
 * equation, its convolution window and its tensors (data type, dimensions).
 *
 * opsgen fills the form of every op it makes and prints no text; chipsim
 * times from the form; the CSV writer prints the config, in_shapes and
 * out_shape cells from it with the printers below (op_form.c, the one
 * writer of those cells). An op read from a CSV carries them as the text the
 * file gave (its form says FORM_TEXT and not held); the reader below
 * (op_parse.c, the one reader) gives chipsim the tensors, equation and
 * window from either, so that any text the reference accepts still times.
 *
 * The same for chipsim's results: struct op_tiling holds the tiles and
 * dimension labels that the tile_shapes and dim_labels cells spell.
 *
 * Main data structures: struct op_form and struct op_tiling, inline in
 * struct op (traces/op.h), copied with it. */
#ifndef NPUSIM_OP_FORM_H
#define NPUSIM_OP_FORM_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* How the config cell reads. Dimensions come from the tensors: a, b (or x,
 * q, k, v) are the inputs in order, c (and "out") the output; E is eq, P
 * placements, DT dtype, S scale. */
enum form_layout {
    FORM_TEXT,          /* no layout: the cell is the op's config text */
    FORM_EINSUM,        /* XlaEinsum(a=8x4096,b=4096x128,eq=E,memory_placements=P,type=DT) */
    FORM_X,             /* <kind>(x=8x4096,memory_placements=P,type=DT) */
    FORM_AB_OUT,        /* <kind>(a=out,b=out,memory_placements=P,type=DT) */
    FORM_QKV,           /* FlashAttention(q=..,k=..,v=..,memory_placements=P,type=DT) */
    FORM_ABS,           /* Abs(x=..,type=DT) */
    FORM_LIST,          /* <kind>([d0, d1]) of the input */
    FORM_ARROW,         /* <kind>(8x4096->8x8192): input -> output */
    FORM_ARROW_QUOTED,  /* <kind>(['8', '4096']->['8', '1024']) */
    FORM_CONV,          /* Conv2D(a=,b=,c=,eq=E,window={size=b2xb3 stride=SxS pad=0_Px0_P},
                           memory_placements=P,type=DT) */
    FORM_RESAMPLE,      /* <kind>(a=..,scale_factor=S,memory_placements=P,type=DT) */
    FORM_EMBEDDING_BAG, /* EmbeddingBag(batch=B,table_sizes=[R],num_indices=[K],embedding_dim=D,
                           reduction=sum,memory_placements=P,type=DT): indices [B,1,K] of
                           DT_INT64 (the one tensor of another dtype), table [R,D] */
};

#define OP_SHAPES_MAX_IN 3
#define OP_SHAPE_MAX_DIMS 8
#define OP_DTYPE_MAX 24

struct op_form {
    bool in_held, out_held;      /* the tensors are here; false: the op's text (a CSV's) */
    uint8_t layout;              /* enum form_layout; FORM_TEXT: the config is text */
    char kind[24];               /* the config's prefix before '(': selects chipsim's cost model */
    char eq[28];                 /* einsum or conv "lhs;rhs->out", else "" */
    char placements[12];         /* "0_0_0", "0_0", "[0, 0, 0]", ... */
    int8_t n_in;
    int8_t nd[OP_SHAPES_MAX_IN + 1];   /* ranks of the inputs, then of the output */
    int64_t stride, pad;         /* FORM_CONV window (both axes alike) */
    int64_t scale;               /* FORM_RESAMPLE scale factor */
    char dtype[OP_DTYPE_MAX];    /* the config's and the tensors' (the activations') */
    char dtype_rest[OP_DTYPE_MAX]; /* the inputs after the first when stored otherwise (a
                                  * quantised matmul's weights, a KV cache); "": dtype */
    /* FORM_EINSUM: block scales of its 8-bit and narrower operands (one
     * scale per scale_k elements along K; a weight scale covers scale_k x
     * scale_n), stored as scale_dtype; scale_k 0: none. Printed in the config
     * as ",block_scales=KxN:DT" after eq. */
    uint16_t scale_k, scale_n;
    char scale_dtype[OP_DTYPE_MAX];
    int64_t d[OP_SHAPES_MAX_IN + 1][OP_SHAPE_MAX_DIMS];
};

/* The output's slot in d and nd. */
#define FORM_OUT OP_SHAPES_MAX_IN

/* The dtype of the tensor in slot (an input, or FORM_OUT). */
static inline const char *op_form_dtype(const struct op_form *f, int slot)
{
    if (f->layout == FORM_EMBEDDING_BAG && slot == 0)
        return "DT_INT64";
    return slot > 0 && slot != FORM_OUT && f->dtype_rest[0] ? f->dtype_rest : f->dtype;
}

/* chipsim's tiling of an op as data: the tile_shapes and dim_labels cells
 * print from it. Einsum and conv ops have three lists (input, kernel or
 * right-hand side, output tiles) and labels; flash attention one flat list
 * ("[t0, t1]") and no labels. */
#define OP_TILE_ROWS 3
struct op_tiling {
    bool held;                        /* set by chipsim; false: the op's text (a CSV's) */
    int8_t rows;                      /* -1: none (""), 0: one flat list in row 0, else nested lists */
    int8_t len[OP_TILE_ROWS];
    char dim_labels[32];              /* "BLM,MND->BLND" (three parts of at most 8 letters); "" none */
    int64_t d[OP_TILE_ROWS][OP_SHAPE_MAX_DIMS];
};

/* The cells as the CSV holds them (held parts and a layout only), into out
 * (OP_CELL_MAX bytes), NUL-terminated; each returns the length. The bound:
 * a number prints in at most 20 bytes, a tensor has at most 8 dims, a form
 * 4 tensors and tokens of at most 27 bytes; the longest cell, a Conv2D
 * config with three 8-dim tensors and a window of 20-digit numbers, takes
 * under 800 bytes (an einsum's block scales add under 40). */
#define OP_CELL_MAX 1024
size_t op_form_print_config(char *out, const struct op_form *f);
size_t op_form_print_inputs(char *out, const struct op_form *f);    /* "DT:[d0,d1],DT:[..]" */
size_t op_form_print_output(char *out, const struct op_form *f);    /* "[DT:(d0,d1)]" */
size_t op_tiling_print_tiles(char *out, const struct op_tiling *t); /* "[[1, 2], [3]]", "[4, 5]" */

/* ---- the reader (op_parse.c) ---- */

/* A tensor as chipsim costs it. Size limits keep every int64 product of the
 * cost model far from overflow: a tensor holds at most 2^48 elements. */
#define OP_TENSOR_MAX_DIMS 8
#define OP_TENSOR_MAX_ELEMS (1LL << 48)
struct tensor {
    int ndim;
    int64_t dims[OP_TENSOR_MAX_DIMS];
    char dtype[OP_DTYPE_MAX];    /* clean token, e.g. "DT_BFLOAT16" (cut if longer) */
};
struct tensor_list {
    size_t n, cap;
    struct tensor *t;            /* malloc'ed; tensor_list_free */
};
void tensor_list_free(struct tensor_list *l);

struct op;
/* The op's inputs (replacing out's contents) and output: from its form, or
 * parsed from its text (a CSV's). 0, or -1 with *why the expected form. */
int op_inputs(const struct op *op, struct tensor_list *out, const char **why);
int op_output(const struct op *op, struct tensor *out, const char **why);
/* The text grammars alone: "DT:[d0,..],DT:[..]" and "[DT:(d0,..)]". */
int shape_parse_inputs(const char *s, struct tensor_list *out, const char **why);
int shape_parse_output(const char *s, struct tensor *out, const char **why);
/* The config's einsum or conv equation "lhs;rhs->out" as three letter
 * strings (each 9 bytes: at most 8 letters): from the form, or the text's
 * "eq=". -1 when there is none or a part is longer. */
int op_equation(const struct op *op, char *lhs, char *rhs, char *out);
/* A conv's window stride (1 x 1 without a window): from the form, or the
 * text's "window={.. stride=HxW ..}". -1 when the text's is not positive. */
int op_conv_stride(const struct op *op, int64_t *h, int64_t *w);
/* An einsum's block scales (*k 0: none): from the form, or the text's
 * "block_scales=KxN:DT" (dt: OP_DTYPE_MAX bytes). -1 when the text's sizes
 * are not integers from 1 to 65535 or its dtype is not a token. */
int op_block_scales(const struct op *op, int64_t *k, int64_t *n, char *dt);

#endif
