/* trace_csv_write.c — writing the operator CSV (see trace_csv.c, trace_csv.h):
 * Python's csv.DictWriter byte for byte (QUOTE_MINIMAL, CRLF, floats via
 * py_repr_double); a row is formatted into a reusable buffer and written with
 * one fwrite. */
#include "traces/trace_csv_internal.h"

#include <errno.h>
#include <math.h>
#include <pthread.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <threads.h>

#include "base/atomic.h"
#include "base/digits.h"
#include "traces/opstr.h"
#include "base/pyfmt.h"
#include "base/strbuf.h"
#include "base/dmemo.h"


/* ------------------------------------------------------------------------ */
/* Writing                                                                   */

/* Rows are formatted into a growing strbuf (base/strbuf.h): reserved a
 * row at a time, then written with unchecked appends (u_char, u_mem, and
 * the cell printers), which leave the text unterminated: only its n bytes
 * go to the file. Running out of memory aborts, as for every strbuf. */

/* Room for extra more bytes; inline, as it runs for every cell. */
static inline void sb_reserve(struct strbuf *b, size_t extra) { strbuf_reserve(b, extra); }

static inline void sb_mem(struct strbuf *b, const char *s, size_t n)
{
    sb_reserve(b, n);
    memcpy(b->s + b->n, s, n);
    b->n += n;
}

static inline void sb_char(struct strbuf *b, char c)
{
    sb_reserve(b, 1);
    b->s[b->n++] = c;
}

/* A row is written under two reservations, put_head's and put_rest's, of
 * ROW_RESERVE bytes each: enough for every cell but the strings, which reserve
 * their own length plus ROW_RESERVE again (sb_text). So the number cells and
 * separators (the bulk of a row) append unchecked: u_char, u_mem. */
#define ROW_RESERVE ((size_t)(TRACE_CSV_NCOLS + TRACE_CSV_NSLACK + 2) * (PY_REPR_MAX + 1) + 2)

static inline void u_char(struct strbuf *b, char c) { b->s[b->n++] = c; }

static inline void u_mem(struct strbuf *b, const char *s, size_t n)
{
    memcpy(b->s + b->n, s, n);
    b->n += n;
}

/* A string's n bytes, keeping the row's reservation. */
static inline void sb_text(struct strbuf *b, const char *s, size_t n)
{
    sb_reserve(b, n + ROW_RESERVE);
    u_mem(b, s, n);
}

/* Python's QUOTE_MINIMAL: quote iff the field holds the delimiter, the quote
 * character or a line-terminator character; double embedded quotes. */
static void sb_quoted(struct strbuf *b, const char *s)
{
    sb_reserve(b, 2 * strlen(s) + 2 + ROW_RESERVE);   /* the worst case (every byte a quote): the appends below never grow */
    sb_char(b, '"');
    for (const char *q; (q = strchr(s, '"')) != NULL; s = q + 1) {
        sb_mem(b, s, (size_t)(q - s) + 1);
        sb_char(b, '"');
    }
    sb_mem(b, s, strlen(s));
    sb_char(b, '"');
}

/* Bytes a field may hold unquoted (not NUL, which ends it). */
static inline bool csv_plain_at(unsigned char c) { return c != 0 && c != ',' && c != '"' && c != '\r' && c != '\n'; }

/* A field of any origin: one pass finds its length and whether it is plain
 * (the common case: short names such as a DVFS policy). */
static void sb_field(struct strbuf *b, const char *s)
{
    size_t n = 0;
    while (csv_plain_at((unsigned char)s[n]))
        n++;
    if (s[n] == '\0')
        sb_text(b, s, n);
    else
        sb_quoted(b, s);
}

/* A cell printed from the op's data (traces/op_form.h): config, in_shapes
 * and out_shape from its form, tile_shapes from its tiling. Printed in place
 * after an opening quote, which is closed when the text holds a comma and
 * taken out again when not: that data spells no quote and no line break,
 * so a comma is the only reason to quote. */
static size_t print_config(char *out, const struct op *op) { return op_form_print_config(out, &op->form); }
static size_t print_inputs(char *out, const struct op *op) { return op_form_print_inputs(out, &op->form); }
static size_t print_output(char *out, const struct op *op) { return op_form_print_output(out, &op->form); }
static size_t print_tiles(char *out, const struct op *op) { return op_tiling_print_tiles(out, &op->tiling); }

static void sb_printed(struct strbuf *b, const struct op *op, size_t (*print)(char *, const struct op *))
{
    sb_reserve(b, OP_CELL_MAX + 2 + ROW_RESERVE);
    char *cell = b->s + b->n;
    size_t n = print(cell + 1, op);
    if (memchr(cell + 1, ',', n)) {
        cell[0] = cell[n + 1] = '"';
        b->n += n + 2;
    } else {
        memmove(cell, cell + 1, n);
        b->n += n;
    }
}

/* An op's string field: a sealed one (traces/opstr.h) is copied unscanned. */
static inline void sb_opstr(struct strbuf *b, const char *s)
{
    size_t n;
    bool quoted;
    if (!opstr_csv_form(s, &n, &quoted)) {
        sb_field(b, s);
    } else if (!quoted) {
        sb_text(b, s, n);
    } else {
        sb_reserve(b, n + 2 + ROW_RESERVE);
        b->s[b->n] = '"';
        memcpy(b->s + b->n + 1, s, n);
        b->s[b->n + 1 + n] = '"';
        b->n += n + 2;
    }
}

static void sb_i64(struct strbuf *b, int64_t v)
{
    if ((uint64_t)v < 10) {   /* one digit: zeros fill many columns */
        u_char(b, (char)('0' + v));
        return;
    }
    /* Work in unsigned so INT64_MIN negates without overflow. */
    uint64_t u = v < 0 ? 0 - (uint64_t)v : (uint64_t)v;
    size_t len = (size_t)(v < 0) + (size_t)u64_ndigits(u);
    char *s = u64_put_digits(u, b->s + b->n + len);   /* digits straight into place */
    if (v < 0)
        s[-1] = '-';
    b->n += len;
}

/* Float cells, as Python repr. */
static void sb_repr(struct strbuf *b, double x)
{
    /* Integral values below 2^53 print as Python does, "N.0", exactly. */
    if (fabs(x) < 9007199254740992.0 && x == (double)(int64_t)x && !(x == 0 && signbit(x))) {
        sb_i64(b, (int64_t)x);
        u_mem(b, ".0", 2);
        return;
    }
    b->n += py_repr_fmt(x, b->s + b->n);
}

static int64_t compute_ns(const struct op *op) { return op->sa_ns > op->vu_ns ? op->sa_ns : op->vu_ns; }

/* Energies are the int 0 until the energy pass has run (the reference keeps
 * the int default), then Python floats. */
static void sb_energy(struct strbuf *b, const struct op *op, double v)
{
    if (op->energy_done)
        sb_repr(b, v);
    else
        u_char(b, '0');
}

/* Power = energy / exe * 1e9 in that order (same rounding as the reference);
 * the reference's sentinel for a zero-time op is the int -1. */
static void sb_power(struct strbuf *b, const struct op *op, double energy_J)
{
    if (op->exe_ns == 0)
        u_mem(b, "-1", 2);
    else
        sb_repr(b, (op->energy_done ? energy_J : 0.0) / (double)op->exe_ns * 1e9);
}

/* The per-component column blocks, by column: put_cell's first dispatch
 * (one jump instead of a chain of range tests per cell). */
enum cell_group { G_SINGLE, G_DVFS_POL, G_DVFS_SCALE, G_ACT, G_STATIC, G_DYNAMIC, G_SETPM };
static unsigned char col_group[TRACE_CSV_NCOLS];
static const struct { int first, last; enum cell_group g; } col_blocks[] = {
    { C_DVFS_POL_SA, C_DVFS_F_ICI, G_DVFS_POL }, { C_DVFS_SCALE_SA, C_DVFS_EFF_ICI, G_DVFS_SCALE },
    { C_ACT_SA, C_ACT_ICI, G_ACT }, { C_ST_SA, C_ST_OTHER, G_STATIC }, { C_DY_SA, C_DY_OTHER, G_DYNAMIC },
    { C_SETPM_SA, C_SETPM_ICI, G_SETPM },
};

static void build_col_groups(void)
{
    for (size_t i = 0; i < sizeof col_blocks / sizeof col_blocks[0]; i++)
        for (int c = col_blocks[i].first; c <= col_blocks[i].last; c++)
            col_group[c] = (unsigned char)col_blocks[i].g;
}

/* The same by search: for a constant c (an unrolled loop) it folds to a
 * constant, where the table lookup does not. */
static inline enum cell_group group_of(enum col c)
{
#pragma GCC unroll 8
    for (size_t i = 0; i < sizeof col_blocks / sizeof col_blocks[0]; i++)
        if ((int)c >= col_blocks[i].first && (int)c <= col_blocks[i].last)
            return col_blocks[i].g;
    return G_SINGLE;
}

/* Writes column c of op when it is in no per-component block (G_SINGLE).
 * Always inlined: put_head calls it for each head column in an unrolled
 * loop, so the switch folds away and the head is straight-line code. */
static inline __attribute__((always_inline)) void put_single_cell(struct strbuf *b, const struct op *op,
                                                                 enum col c)
{
    bool base = op->stats_kind == STATS_BASE;
    switch (c) {
    case C_FUSION: sb_i64(b, op->fusion_id); break;
    case C_DESC: sb_opstr(b, op->description); break;
    case C_CONFIG:
        if (op->form.layout == FORM_TEXT) sb_opstr(b, op->config);
        else sb_printed(b, op, print_config);
        break;
    case C_NAME: case C_OP_NAME: sb_opstr(b, op->name); break;
    case C_OPTYPE: sb_field(b, op_type_name(op->type)); break;
    case C_COUNT: sb_i64(b, op->count); break;
    case C_BOUND: sb_field(b, bounded_by_name(op->bounded_by)); break;
    case C_EXE: sb_i64(b, op->exe_ns); break;
    case C_COMPUTE: case C_COMPUTE_NS: sb_i64(b, compute_ns(op)); break;
    case C_MEM: sb_i64(b, op->mem_ns); break;
    case C_ICI: sb_i64(b, op->ici_ns); break;
    case C_ICI_OUT: sb_i64(b, op->ici_out_bytes); break;
    case C_ICI_IN: sb_i64(b, op->ici_in_bytes); break;
    case C_PCIE: sb_i64(b, op->pcie_ns); break;
    case C_DCN_AGG: case C_DCN0: case C_TEMP_MEM: case C_PERS_MEM:
    case C_TRANSPOSE: case C_PERMUTE:
        u_char(b, '0'); /* never set by the reference */
        break;
    case C_SA: sb_i64(b, op->sa_ns); break;
    case C_VU: sb_i64(b, op->vu_ns); break;
    case C_BYTES: case C_BYTES2: sb_i64(b, op->bytes); break;
    case C_IN_SHAPES:
        if (op->form.in_held) sb_printed(b, op, print_inputs);
        else sb_opstr(b, op->in_shapes);
        break;
    case C_OUT_SHAPES:
        if (op->form.out_held) sb_printed(b, op, print_output);
        else sb_opstr(b, op->out_shape);
        break;
    case C_FLOPS: sb_i64(b, op->flops); break;
    case C_OPCODE: sb_opstr(b, op->opcode); break;
    case C_WEIGHT: sb_i64(b, op->weight_bytes); break;
    case C_OUTPUT_SHAPE: u_mem(b, "[]", 2); break;
    case C_PARSED: sb_opstr(b, op->parsed_op_type); break;
    case C_DIM_LABELS:
        if (base) break;
        if (op->tiling.held) sb_field(b, op->tiling.dim_labels);
        else sb_opstr(b, op->dim_labels);
        break;
    case C_TILE_SHAPES:
        if (base) break;
        if (op->tiling.held) sb_printed(b, op, print_tiles);
        else sb_opstr(b, op->tile_shapes);
        break;
    case C_NUM_TILES: if (op->stats_kind == STATS_EINSUM) sb_i64(b, op->num_tiles); break;
    case C_MAX_VMEM: if (!base) sb_i64(b, op->max_vmem_demand_bytes); break;
    case C_NUM_MXU: sb_i64(b, op->num_sa_ops); break;
    case C_EIN_B: if (!base) sb_i64(b, op->einsum_b); break;
    case C_EIN_M: if (!base) sb_i64(b, op->einsum_m); break;
    case C_EIN_N: if (!base) sb_i64(b, op->einsum_n); break;
    case C_EIN_K: if (!base) sb_i64(b, op->einsum_k); break;
    case C_SOFTMAX: sb_i64(b, op->vu_softmax_ns); break;
    case C_VMEM: sb_i64(b, op->vmem_ns); break;
    case C_ST_SUM: sb_energy(b, op, op_static_energy_J(op)); break;
    case C_DY_SUM: sb_energy(b, op, op_dynamic_energy_J(op)); break;
    case C_TOT_SUM: sb_energy(b, op, op_total_energy_J(op)); break;
    case C_ST_W: sb_power(b, op, op_static_energy_J(op)); break;
    case C_DY_W: sb_power(b, op, op_dynamic_energy_J(op)); break;
    case C_TOT_W: sb_power(b, op, op_total_energy_J(op)); break;
    case C_TFLOPS:
        if (op->exe_ns == 0) u_char(b, '0'); else sb_repr(b, op_tflops_per_sec(op));
        break;
    case C_HBM_BW:
        if (op->exe_ns == 0) u_char(b, '0'); else sb_repr(b, op_hbm_bw_GBps(op));
        break;
    /* Untimed ops keep the reference's int 0 default. */
    case C_FLOPS_UTIL:
        if (op->bounded_by == BOUND_NONE) u_char(b, '0'); else sb_repr(b, op->flops_util);
        break;
    case C_HBM_UTIL:
        if (op->bounded_by == BOUND_NONE) u_char(b, '0'); else sb_repr(b, op->hbm_bw_util);
        break;
    default: break; /* ranges handled above */
    }
}

/* Writes column c of op, in group g. Stats cells the op's statistics class
 * lacks are "". Always inlined: a loop over constant columns unrolls to
 * each cell's own code (group_of); put_cell is the dispatching call. */
static inline __attribute__((always_inline)) void put_cell_in(struct strbuf *b, const struct op *op, enum col c,
                                                             enum cell_group g)
{
    switch (g) {
    case G_DVFS_POL: {
        const struct op_dvfs *d = &op->dvfs[(c - C_DVFS_POL_SA) / 3];
        switch ((c - C_DVFS_POL_SA) % 3) {
        case 0: sb_field(b, d->policy); break;
        case 1: sb_repr(b, d->voltage_V); break;
        default: sb_repr(b, d->freq_GHz); break;
        }
        return;
    }
    case G_DVFS_SCALE: {
        const struct op_dvfs *d = &op->dvfs[(c - C_DVFS_SCALE_SA) / 2];
        if ((c - C_DVFS_SCALE_SA) % 2 == 0)
            sb_i64(b, d->scaling_time_ns);
        else
            sb_repr(b, d->efficiency_pct);
        return;
    }
    case G_ACT: sb_repr(b, op->dvfs[c - C_ACT_SA].activity); return;
    case G_STATIC: sb_energy(b, op, op->static_J[c - C_ST_SA]); return;
    case G_DYNAMIC: sb_energy(b, op, op->dynamic_J[c - C_DY_SA]); return;
    case G_SETPM: sb_i64(b, op->num_setpm[c - C_SETPM_SA]); return;
    case G_SINGLE: put_single_cell(b, op, c); return;
    }
}

static void put_cell(struct strbuf *b, const struct op *op, enum col c)
{
    put_cell_in(b, op, c, (enum cell_group)col_group[c]);
}

static int flush_row(struct strbuf *b, FILE *f, struct npu_err *e)
{
    if (fwrite(b->s, 1, b->n, f) != b->n)
        return npu_errf(e, "writing CSV: %s", strerror(errno));
    b->n = 0;
    return 0;
}

static void build_header(struct strbuf *b, bool phase_column, bool group_column, bool slack)
{
    *b = STRBUF_GROWING;
    for (int c = 0; c < TRACE_CSV_NCOLS; c++) {
        if (c)
            sb_char(b, ',');
        sb_field(b, trace_csv_columns[c]);
    }
    for (int c = 0; slack && c < TRACE_CSV_NSLACK; c++) {
        sb_char(b, ',');
        sb_field(b, trace_csv_slack_columns[c]);
    }
    if (phase_column) {
        sb_char(b, ',');
        sb_field(b, PHASE_COLUMN);
    }
    if (phase_column && group_column) {
        sb_char(b, ',');
        sb_field(b, GROUP_COLUMN);
    }
    sb_mem(b, "\r\n", 2);
}

/* The header line of each (phase, group, slack) combination, built once per
 * process (with col_group): a sweep writes thousands of files with the same
 * few headers. */
static struct strbuf headers[8];
/* pthread_once rather than C11 call_once: ThreadSanitizer sees its ordering
 * (glibc's call_once reaches it through an internal, unintercepted call). */
static pthread_once_t headers_once = PTHREAD_ONCE_INIT;

static void build_headers(void)
{
    for (int i = 0; i < 8; i++)
        build_header(&headers[i], i & 1, i & 2, i & 4);
    build_col_groups();
}

static void put_header(struct strbuf *b, bool phase_column, bool group_column, bool slack)
{
    pthread_once(&headers_once, build_headers);
    const struct strbuf *h = &headers[phase_column | (phase_column && group_column) << 1 | slack << 2];
    sb_mem(b, h->s, h->n);
}

/* The power columns of a row (C_DVFS_POL_SA to the end, then the slack
 * columns) hold most of its floats, and they repeat: the ops of a sweep
 * recur from point to point with the same times, so their energies, DVFS
 * settings and rates recur too (the energy pass's own memo hits most of
 * them, power/energy_memo.h). A per-thread direct-mapped memo keeps the text
 * of recent such row tails, keyed by every op field those columns print,
 * byte for byte: equal bytes print equal text, so a hit is one copy. A cell
 * added to the tail must add its fields to the key (test_row_tail_memo in
 * tests/unit/test_traces.c changes each field in turn). */
struct tail_key {
    struct op_dvfs dvfs[NUM_COMP];
    double static_J[NUM_EN], dynamic_J[NUM_EN];
    double flops_util, hbm_bw_util;
    double extra_ratio[NUM_SLACK];
    int64_t vmem_ns, exe_ns, flops, bytes;
    int64_t num_setpm[NUM_COMP];
    int64_t extra_ns[NUM_SLACK];
    int32_t bounded_by;
    uint8_t energy_done, slack;   /* slack: the slack columns are written (their values, or zeros) */
};
_Static_assert(sizeof(struct tail_key) % 8 == 0, "tail_key hashes as whole words");

#define TAIL_TEXT_MAX 800          /* a longer tail is not kept */
struct tail_text {
    uint32_t len;
    char text[TAIL_TEXT_MAX];
};
DMEMO(tail_memo, struct tail_key, struct tail_text, 9)   /* 512 slots, ~700 KiB per thread (base/dmemo.h) */

static void tail_key_of(const struct op *op, bool slack, struct tail_key *k)
{
    memset(k, 0, sizeof *k);   /* padding and unused fields compare as zeros */
    memcpy(k->dvfs, op->dvfs, sizeof k->dvfs);
    memcpy(k->static_J, op->static_J, sizeof k->static_J);
    memcpy(k->dynamic_J, op->dynamic_J, sizeof k->dynamic_J);
    k->flops_util = op->flops_util;
    k->hbm_bw_util = op->hbm_bw_util;
    k->vmem_ns = op->vmem_ns;
    k->exe_ns = op->exe_ns;
    k->flops = op->flops;
    k->bytes = op->bytes;
    memcpy(k->num_setpm, op->num_setpm, sizeof k->num_setpm);
    k->bounded_by = (int32_t)op->bounded_by;
    k->energy_done = op->energy_done;
    k->slack = slack;
    if (slack && op->has_slack) {
        memcpy(k->extra_ns, op->dvfs_extra_ns, sizeof k->extra_ns);
        memcpy(k->extra_ratio, op->dvfs_extra_ratio, sizeof k->extra_ratio);
    }
}

/* The DVFS cells (policy, voltage, clock, then scaling time, efficiency and
 * activity, of each component) print op->dvfs alone, and an energy run's
 * ops nearly all share one setting: the text of the last setting seen on
 * this thread is kept, keyed by its bytes (equal bytes print equal text).
 * Half a tail's cells, so a tail the memo above misses (its energies are
 * new) still takes them in two copies. */
#define DVFS_TEXT_MAX 512
struct dvfs_text {
    struct op_dvfs key[NUM_COMP];
    bool valid[2];
    uint16_t len[2];
    char text[2][DVFS_TEXT_MAX];
};
static _Thread_local struct dvfs_text last_dvfs;
_Static_assert(C_DVFS_F_ICI + 1 - C_DVFS_POL_SA == 3 * NUM_COMP && TRACE_CSV_NCOLS - C_DVFS_SCALE_SA == 3 * NUM_COMP,
               "the DVFS blocks are the 15 columns after the head and the last 15");

/* Block 0: C_DVFS_POL_SA to C_DVFS_F_ICI; block 1: C_DVFS_SCALE_SA to the
 * last column. Each cell after its comma. */
static void put_dvfs_cells(struct strbuf *b, const struct op *op, int block)
{
    static const int first[2] = { C_DVFS_POL_SA, C_DVFS_SCALE_SA }, end[2] = { C_DVFS_F_ICI + 1, TRACE_CSV_NCOLS };
    struct dvfs_text *m = &last_dvfs;
    if (memcmp(m->key, op->dvfs, sizeof m->key) != 0) {
        memcpy(m->key, op->dvfs, sizeof m->key);
        m->valid[0] = m->valid[1] = false;
    }
    if (m->valid[block]) {
        u_mem(b, m->text[block], m->len[block]);
        return;
    }
    size_t at = b->n;
    for (int c = first[block]; c < end[block]; c++) {
        u_char(b, ',');
        put_cell(b, op, (enum col)c);
    }
    size_t len = b->n - at;
    if (len <= DVFS_TEXT_MAX) {
        memcpy(m->text[block], b->s + at, len);
        m->len[block] = (uint16_t)len;
        m->valid[block] = true;
    }
}

/* The tail's cells, each after its comma. Ops without slack (never through
 * the energy stage) write zeros there. */
static void put_tail_cells(struct strbuf *b, const struct op *op, bool slack)
{
    put_dvfs_cells(b, op, 0);
#pragma GCC unroll 64
    for (int c = C_DVFS_F_ICI + 1; c < C_DVFS_SCALE_SA; c++) {
        u_char(b, ',');
        put_cell_in(b, op, (enum col)c, group_of((enum col)c));
    }
    put_dvfs_cells(b, op, 1);
    for (int c = 0; slack && c < NUM_SLACK; c++) {
        u_char(b, ',');
        sb_i64(b, op->has_slack ? op->dvfs_extra_ns[c] : 0);
    }
    for (int c = 0; slack && c < NUM_SLACK; c++) {
        u_char(b, ',');
        sb_repr(b, op->has_slack ? op->dvfs_extra_ratio[c] : 0.0);
    }
}

static void put_tail(struct strbuf *b, const struct op *op, bool slack)
{
    struct tail_key k;
    tail_key_of(op, slack, &k);
    uint64_t h = dmemo_hash(&k, sizeof k, 0);
    const struct tail_text *hit = tail_memo_get(&k, h);
    if (hit) {
        u_mem(b, hit->text, hit->len);
        return;
    }
    size_t at = b->n;
    put_tail_cells(b, op, slack);
    size_t len = b->n - at;
    struct tail_text *put = len <= TAIL_TEXT_MAX ? tail_memo_put(&k, h) : NULL;
    if (put) {
        put->len = (uint32_t)len;
        memcpy(put->text, b->s + at, len);
    }
}

/* The head of a row: the cells before the power columns (C_DVFS_POL_SA),
 * no trailing comma. cell[c] receives where cell c's text starts. */
#define HEAD_COLS C_DVFS_POL_SA
_Static_assert(C_DVFS_POL_SA < C_ACT_SA && C_DVFS_POL_SA < C_ST_SA && C_DVFS_POL_SA < C_DY_SA &&
                   C_DVFS_POL_SA < C_SETPM_SA && C_DVFS_POL_SA < C_DVFS_SCALE_SA,
               "the head holds no per-component block");
static void put_head(struct strbuf *b, const struct op *op, size_t cell[HEAD_COLS])
{
    sb_reserve(b, ROW_RESERVE);
    /* Every head column is a single one (no per-component block): unrolled,
     * each put_single_cell folds to its own cell's code. */
#pragma GCC unroll 64
    for (int c = 0; c < HEAD_COLS; c++) {
        if (c)
            u_char(b, ',');
        cell[c] = b->n;
        put_single_cell(b, op, (enum col)c);
    }
}

/* The rest of a row after its head: power columns, slack, phase, group, CRLF. */
static void put_rest(struct strbuf *b, const struct op *op, bool phase_column, bool group_column, bool slack)
{
    sb_reserve(b, ROW_RESERVE);
    put_tail(b, op, slack);
    if (phase_column) {
        u_char(b, ',');
        sb_field(b, phase_name(op->phase));
    }
    if (phase_column && group_column) {
        u_char(b, ',');
        sb_i64(b, op->group);
    }
    u_mem(b, "\r\n", 2);
}

/* The head cells an energy strategy may change in its copy of a trace:
 * power gating's wake-up delays lengthen an op's times (and so may change
 * what bounds it). A copy's head is the original's text with these cells
 * formatted afresh, when every other head cell's fields are equal
 * (same_untimed). */
static const bool head_timed[HEAD_COLS] = {
    [C_BOUND] = true, [C_EXE] = true, [C_COMPUTE] = true, [C_MEM] = true, [C_ICI] = true,
    [C_PCIE] = true, [C_SA] = true, [C_VU] = true, [C_COMPUTE_NS] = true,
};

/* Whether a and b print the same head cells but the timed ones: every field
 * put_cell reads for the other columns before C_DVFS_POL_SA. Strings compare
 * by address: both ops hold theirs for the whole write, so an equal address
 * is an equal string (an equal string elsewhere is only a miss). A head cell
 * that reads a new field must add it here (test_copied_heads in
 * tests/unit/test_traces.c changes each field in turn). */
static bool same_untimed(const struct op *a, const struct op *b)
{
    return a->fusion_id == b->fusion_id && a->description == b->description && a->config == b->config &&
           a->name == b->name && a->type == b->type && a->count == b->count &&
           a->ici_out_bytes == b->ici_out_bytes && a->ici_in_bytes == b->ici_in_bytes &&
           a->bytes == b->bytes && a->in_shapes == b->in_shapes && a->out_shape == b->out_shape &&
           a->flops == b->flops && a->opcode == b->opcode && a->weight_bytes == b->weight_bytes &&
           a->parsed_op_type == b->parsed_op_type && a->stats_kind == b->stats_kind &&
           a->dim_labels == b->dim_labels && a->tile_shapes == b->tile_shapes &&
           a->num_tiles == b->num_tiles && a->max_vmem_demand_bytes == b->max_vmem_demand_bytes &&
           a->num_sa_ops == b->num_sa_ops && a->einsum_b == b->einsum_b && a->einsum_m == b->einsum_m &&
           a->einsum_n == b->einsum_n && a->einsum_k == b->einsum_k && a->vu_softmax_ns == b->vu_softmax_ns &&
           !memcmp(&a->form, &b->form, sizeof a->form) && !memcmp(&a->tiling, &b->tiling, sizeof a->tiling);
}

/* op's head from src, the head text of an op with the same untimed cells
 * (cell: where src's cells start, end: where its head ends): runs of untimed
 * cells copied, timed cells formatted. */
static void copy_head(struct strbuf *b, const struct op *op, const char *src, const size_t cell[HEAD_COLS],
                      size_t end)
{
    sb_reserve(b, ROW_RESERVE + (end - cell[0]));
    for (int c = 0; c < HEAD_COLS;) {
        if (c)
            u_char(b, ',');
        if (head_timed[c]) {
            put_cell(b, op, (enum col)c++);
            continue;
        }
        int d = c;   /* the run of untimed cells c..d-1 */
        while (d < HEAD_COLS && !head_timed[d])
            d++;
        size_t to = d < HEAD_COLS ? cell[d] - 1 : end;   /* without the comma before cell d */
        u_mem(b, src + cell[c], to - cell[c]);
        c = d;
    }
}

/* Row i of every output is formatted once and copied to the others that
 * take it: whole to an output of the same trace and columns (a sweep writes
 * the same rows to the combined and the per-phase files), head only to one
 * of another trace whose op i has the same head (an energy run writes one
 * copy of a trace per strategy: only the power columns differ). Each
 * output's buffer goes out in ~64 KiB writes. */
int trace_write_csv_each(const struct trace *const *t, FILE *const *f, const struct trace_csv_opts *o,
                         int n, struct npu_err *e)
{
    struct strbuf out[TRACE_CSV_MAX_OUTPUTS];
    bool groups[TRACE_CSV_MAX_OUTPUTS], slack[TRACE_CSV_MAX_OUTPUTS];
    if (n < 1 || n > TRACE_CSV_MAX_OUTPUTS)
        return npu_errf(e, "writing CSV: %d outputs (1 to %d)", n, TRACE_CSV_MAX_OUTPUTS);
    for (int k = 0; k < TRACE_CSV_MAX_OUTPUTS; k++)
        out[k] = STRBUF_GROWING;
    size_t rows = 0;
    for (int k = 0; k < n; k++) {
        bool g = false, any_slack = false;
        for (size_t i = 0; i < t[k]->n && !g; i++)
            g = t[k]->ops[i].group != 0;
        for (size_t i = 0; i < t[k]->n && !any_slack; i++)
            any_slack = t[k]->ops[i].has_slack;
        groups[k] = g;
        slack[k] = any_slack || o[k].slack_columns;
        rows = t[k]->n > rows ? t[k]->n : rows;
        /* Room for a flush's worth and a row at once: growing by doubling
         * from 4 KiB took five reallocs (and copies) per file. Below glibc's
         * mmap threshold, so it comes from the heap, not a fresh mapping. */
        sb_reserve(&out[k], 65536 + 16384);
        put_header(&out[k], o[k].phase_column, g, slack[k]);   /* goes out with the first rows */
    }
    int rc = 0;
    for (size_t i = 0; rc == 0 && i < rows; i++) {
        int row = -1, head = -1;   /* the outputs holding row i whole / its head */
        size_t row_at = 0, row_len = 0, head_end = 0, cell[HEAD_COLS];
        for (int k = 0; k < n; k++) {
            if (i >= t[k]->n)
                continue;
            const struct op *op = &t[k]->ops[i];
            if (o[k].only != PHASE_NONE && op->phase != o[k].only)
                continue;
            if (row >= 0 && t[row] == t[k] && o[row].phase_column == o[k].phase_column &&
                slack[row] == slack[k] && groups[row] == groups[k]) {
                sb_mem(&out[k], out[row].s + row_at, row_len);
                continue;
            }
            size_t at = out[k].n;
            if (head >= 0 && t[head] == t[k]) {
                sb_mem(&out[k], out[head].s + cell[0], head_end - cell[0]);
            } else if (head >= 0 && same_untimed(&t[head]->ops[i], op)) {
                copy_head(&out[k], op, out[head].s, cell, head_end);
            } else {
                put_head(&out[k], op, cell);
                head = k;
                head_end = out[k].n;
            }
            put_rest(&out[k], op, o[k].phase_column, groups[k], slack[k]);
            row = k;
            row_at = at;
            row_len = out[k].n - at;
        }
        for (int k = 0; k < n && rc == 0; k++)
            if (out[k].n >= 65536)
                rc = flush_row(&out[k], f[k], e);
    }
    for (int k = 0; k < n; k++) {
        if (rc == 0)
            rc = flush_row(&out[k], f[k], e);
        if (rc == 0 && fflush(f[k]) != 0)
            rc = npu_errf(e, "writing CSV: %s", strerror(errno));
        free(out[k].s);
    }
    return rc;
}

int trace_write_csv_multi(const struct trace *t, FILE *const *f, const struct trace_csv_opts *o,
                          int n, struct npu_err *e)
{
    const struct trace *each[TRACE_CSV_MAX_OUTPUTS];
    for (int k = 0; k < n && k < TRACE_CSV_MAX_OUTPUTS; k++)
        each[k] = t;
    return trace_write_csv_each(each, f, o, n, e);
}

int trace_write_csv_stream(const struct trace *t, FILE *f, const struct trace_csv_opts *o,
                           struct npu_err *e)
{
    static const struct trace_csv_opts defaults = { PHASE_NONE, false, false };
    return trace_write_csv_multi(t, &f, o ? o : &defaults, 1, e);
}

/* Prefixes the message already in e with the output's name. */
static int prefix_err(struct npu_err *e, const char *name)
{
    if (!e)
        return -1;
    char msg[sizeof e->msg];
    memcpy(msg, e->msg, sizeof msg);
    return npu_errf(e, "%s: %s", name, msg);
}

int trace_write_csv(const struct trace *t, const char *path, const struct trace_csv_opts *o,
                    struct npu_err *e)
{
    struct atomic_file a;   /* "-" is standard output */
    if (atomic_open(&a, path, e) != 0)
        return -1;
    if (trace_write_csv_stream(t, a.f, o, e) != 0) {
        atomic_abort(&a);
        return prefix_err(e, a.path);
    }
    return atomic_commit(&a, e);
}

