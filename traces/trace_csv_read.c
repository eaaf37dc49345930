/* trace_csv_read.c — reading the operator CSV back (see trace_csv.c,
 * trace_csv.h): zlib slurps plain and gzip input, libcsv gets it one physical
 * line at a time (so errors can name the line), columns map by header name
 * and every cell is parsed strictly; on any error the trace is left as it
 * was on entry. Also trace_csv_readback, the in-memory round trip. */
#include "base/csv_lines.h"
#include "traces/trace_csv_internal.h"

#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <cjson/cJSON.h>
#include <zlib.h>

#include "base/fastfloat.h"
#include "base/textfile.h"
#include "base/json_strict.h"


/* ------------------------------------------------------------------------ */
/* Reading                                                                   */

struct reader {
    struct trace *t;
    size_t n0;               /* t->n on entry: rolled back to on error */
    const char *name;
    struct npu_err *e;
    int failed;
    long line;               /* physical line being parsed (1-based) */
    bool nul_free;           /* the input has no NUL byte: fields need no check */
    /* header */
    int have_header;
    size_t nhead;            /* fields in the header row */
    int file_col[TRACE_CSV_NCOLS]; /* file field index of each reference column */
    long phase_col;          /* file field index of "Phase", or -1 */
    long group_col;          /* file field index of "Group", or -1 */
    int slack_col[TRACE_CSV_NSLACK]; /* file field index of each slack column, or -1 */
    bool slack;              /* the file has the slack columns */
    int *target;             /* per file field: what it holds (enum target below) */
    /* header row: NUL-terminated cells back to back in buf, starts in off */
    char *buf;
    size_t len, cap;
    size_t *off;
    size_t nf, fcap;         /* fields of the current row so far */
    /* data rows are parsed field by field as libcsv hands them over */
    struct op *row_op;       /* the current row's op, pushed at its first field */
    bool defer;              /* in a data row: errors wait for its end (row_msg) */
    bool row_err;
    char row_msg[768];
};

/* What a file field holds, beyond the reference columns 0..TRACE_CSV_NCOLS-1. */
enum target { T_IGNORED = -1, T_PHASE = -2, T_GROUP = -3, T_SLACK0 = 1000 };

static int rd_fail(struct reader *r, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

static int rd_fail(struct reader *r, const char *fmt, ...)
{
    if (r->failed || (r->defer && r->row_err))
        return -1;
    char msg[sizeof r->row_msg];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof msg, fmt, ap);
    va_end(ap);
    /* Inside a data row the first error waits for the row's end: a wrong
     * field count is reported before any cell of that row. */
    if (r->defer) {
        memcpy(r->row_msg, msg, sizeof msg);
        r->row_err = true;
        return -1;
    }
    r->failed = 1;
    if (r->e)
        npu_errf(r->e, "%s:%ld: %s", r->name, r->line, msg);
    return -1;
}

static void parse_field(struct reader *r, struct op *op, size_t f, const char *s);

static void on_field(void *s, size_t n, void *data)
{
    struct reader *r = data;
    if (r->failed)
        return;
    /* Fields beyond the header's count are only counted: the row is an
     * error anyway, and storing them would let bad input grow memory. */
    if (r->have_header && r->nf >= r->nhead) {
        r->nf++;
        return;
    }
    if (!r->nul_free && memchr(s, '\0', n)) {
        rd_fail(r, "field %zu contains a NUL byte", r->nf + 1);
        if (!r->have_header)
            return;
    }
    if (r->have_header) {   /* libcsv's copy is NUL-terminated (CSV_APPEND_NULL) */
        r->defer = true;
        if (!r->row_op)
            r->row_op = trace_push(r->t);
        if (!r->row_err)
            parse_field(r, r->row_op, r->nf, s);
        r->nf++;
        return;
    }
    if (r->nf == r->fcap) {
        size_t fcap = r->fcap ? 2 * r->fcap : 128;
        size_t *off = realloc(r->off, fcap * sizeof *off);
        if (!off) {
            rd_fail(r, "out of memory");
            return;
        }
        r->off = off;
        r->fcap = fcap;
    }
    if (r->len + n + 1 > r->cap) {
        size_t cap = r->cap ? r->cap : 4096;
        while (cap < r->len + n + 1)
            cap *= 2;
        char *buf = realloc(r->buf, cap);
        if (!buf) {
            rd_fail(r, "out of memory");
            return;
        }
        r->buf = buf;
        r->cap = cap;
    }
    r->off[r->nf++] = r->len;
    if (n)
        memcpy(r->buf + r->len, s, n);
    r->len += n;
    r->buf[r->len++] = '\0';
}

static const char *cell(const struct reader *r, size_t i) { return r->buf + r->off[i]; }

static void read_header(struct reader *r)
{
    for (int c = 0; c < TRACE_CSV_NCOLS; c++)
        r->file_col[c] = -1;
    for (int c = 0; c < TRACE_CSV_NSLACK; c++)
        r->slack_col[c] = -1;
    r->phase_col = r->group_col = -1;
    int nslack = 0;
    for (size_t i = 0; i < r->nf; i++) {
        const char *h = cell(r, i);
        /* Files this program writes have the columns in order: try there first. */
        int c0 = i < TRACE_CSV_NCOLS && strcmp(h, trace_csv_columns[i]) == 0 ? (int)i : -1;
        int sc = -1;
        for (int c = 0; c < TRACE_CSV_NSLACK && sc < 0 && c0 < 0; c++)
            if (strcmp(h, trace_csv_slack_columns[c]) == 0)
                sc = c;
        if (sc >= 0) {
            if (r->slack_col[sc] >= 0) {
                rd_fail(r, "duplicate column \"%s\"", h);
                return;
            }
            r->slack_col[sc] = (int)i;
            nslack++;
            continue;
        }
        long *extra = c0 >= 0 ? NULL
                    : strcmp(h, PHASE_COLUMN) == 0 ? &r->phase_col
                    : strcmp(h, GROUP_COLUMN) == 0 ? &r->group_col : NULL;
        if (extra) {
            if (*extra >= 0) {
                rd_fail(r, "duplicate column \"%s\"", h);
                return;
            }
            *extra = (long)i;
            continue;
        }
        for (int c = c0 >= 0 ? c0 : 0; c < TRACE_CSV_NCOLS; c++)
            if (c == c0 || strcmp(h, trace_csv_columns[c]) == 0) {
                if (r->file_col[c] >= 0) {
                    rd_fail(r, "duplicate column \"%s\"", h);
                    return;
                }
                r->file_col[c] = (int)i;
                break;
            }
    }
    for (int c = 0; c < TRACE_CSV_NCOLS; c++)
        if (r->file_col[c] < 0) {
            rd_fail(r, "missing column \"%s\"", trace_csv_columns[c]);
            return;
        }
    /* The slack columns come all together or not at all. */
    for (int c = 0; nslack && c < TRACE_CSV_NSLACK; c++)
        if (r->slack_col[c] < 0) {
            rd_fail(r, "missing column \"%s\" (the slack columns come as a set of %d)",
                    trace_csv_slack_columns[c], TRACE_CSV_NSLACK);
            return;
        }
    r->slack = nslack > 0;
    r->nhead = r->nf;
    if (!(r->target = malloc((r->nhead ? r->nhead : 1) * sizeof *r->target))) {
        rd_fail(r, "out of memory");
        return;
    }
    for (size_t i = 0; i < r->nhead; i++)
        r->target[i] = (long)i == r->phase_col ? T_PHASE : (long)i == r->group_col ? T_GROUP : T_IGNORED;
    for (int c = 0; c < TRACE_CSV_NCOLS; c++)
        r->target[r->file_col[c]] = c;
    for (int c = 0; r->slack && c < TRACE_CSV_NSLACK; c++)
        r->target[r->slack_col[c]] = T_SLACK0 + c;
    r->have_header = 1;
}

/* A decimal int64 and nothing else: optional '-', then digits (leading
 * zeros allowed, as strtoll), no overflow. Hand-rolled: every third cell of
 * a trace is an integer, and strtoll's locale and base handling cost more
 * than the digits. */
static int parse_i64(const char *s, int64_t *v)
{
    bool neg = *s == '-';
    const char *p = s + neg;
    if (*p < '0' || *p > '9')
        return -1;
    uint64_t u = 0, lim = neg ? (uint64_t)INT64_MAX + 1 : (uint64_t)INT64_MAX;
    for (; *p >= '0' && *p <= '9'; p++) {
        unsigned d = (unsigned)(*p - '0');
        if (u > (lim - d) / 10)
            return -1;
        u = u * 10 + d;
    }
    if (*p)
        return -1;
    *v = neg ? (int64_t)(0 - u) : (int64_t)u;
    return 0;
}

static int parse_double(const char *s, double *v)
{
    /* strtod skips leading space and accepts "" as 0; neither is a number. */
    if (*s == '\0' || *s == ' ' || (*s >= '\t' && *s <= '\r'))
        return -1;
    /* Most float cells are small integers written "N.0" (0.0, 1.0, 100.0:
     * DVFS settings, efficiencies, unused energies): exact without the
     * general parser. Up to 15 digits, so the value is exact in a double. */
    uint64_t n = 0;
    int d = 0;
    while (d < 16 && s[d] >= '0' && s[d] <= '9')
        n = 10 * n + (uint64_t)(s[d++] - '0');
    if (d > 0 && d < 16 && s[d] == '.' && s[d + 1] == '0' && s[d + 2] == '\0') {
        *v = (double)n;
        return 0;
    }
    char *end;
    errno = 0;
    double x = fast_strtod(s, &end);
    if (*end)
        return -1;
    *v = x;
    return 0;
}

static int bad(struct reader *r, enum col c, const char *what, const char *s)
{
    return rd_fail(r, "column \"%s\": expected %s, got \"%.80s%s\"", trace_csv_columns[c], what, s,
                   strlen(s) > 80 ? "..." : "");
}

static int rd_i64(struct reader *r, enum col c, const char *s, int64_t *v)
{
    return parse_i64(s, v) == 0 ? 0 : bad(r, c, "an integer", s);
}

/* Times, sizes and FLOP counts: no negative value means anything. */
static int rd_nonneg(struct reader *r, enum col c, const char *s, int64_t *v)
{
    return parse_i64(s, v) == 0 && *v >= 0 ? 0 : bad(r, c, "an integer >= 0", s);
}

/* How many times an op runs: the stages multiply it into time and energy
 * sums, so it is bounded well inside int64 (2^40, about 10^12). */
#define TRACE_COUNT_MAX ((int64_t)1 << 40)
static int rd_count(struct reader *r, enum col c, const char *s, int64_t *v)
{
    return parse_i64(s, v) == 0 && *v >= 0 && *v <= TRACE_COUNT_MAX
               ? 0 : bad(r, c, "an integer from 0 to 2^40", s);
}

/* Statistics the op's class lacks are written blank; a blank reads as 0. */
static int rd_i64_blank(struct reader *r, enum col c, const char *s, int64_t *v)
{
    if (*s == '\0') {
        *v = 0;
        return 0;
    }
    return rd_i64(r, c, s, v);
}

static int rd_double(struct reader *r, enum col c, const char *s, double *v)
{
    return parse_double(s, v) == 0 && isfinite(*v) ? 0 : bad(r, c, "a finite number", s);
}

static int rd_str(char **field, const char *s)
{
    op_set(field, s);
    return 0;
}

/* Parses cell text s of column c into op. Columns the writer derives
 * (sums, powers, rates, duplicates, constants) are only checked. */
static int parse_cell(struct reader *r, struct op *op, enum col c, const char *s)
{
    int64_t ignored_i;
    double ignored_d;
    if (c >= C_DVFS_POL_SA && c <= C_DVFS_F_ICI) {
        struct op_dvfs *d = &op->dvfs[(c - C_DVFS_POL_SA) / 3];
        switch ((c - C_DVFS_POL_SA) % 3) {
        case 0:
            if (strlen(s) >= sizeof d->policy)
                return bad(r, c, "a DVFS policy name", s);
            strcpy(d->policy, s);
            return 0;
        case 1: return rd_double(r, c, s, &d->voltage_V);
        default: return rd_double(r, c, s, &d->freq_GHz);
        }
    }
    if (c >= C_DVFS_SCALE_SA && c <= C_DVFS_EFF_ICI) {
        struct op_dvfs *d = &op->dvfs[(c - C_DVFS_SCALE_SA) / 2];
        if ((c - C_DVFS_SCALE_SA) % 2 == 0)
            return rd_i64(r, c, s, &d->scaling_time_ns);
        return rd_double(r, c, s, &d->efficiency_pct);
    }
    if (c >= C_ACT_SA && c <= C_ACT_ICI)
        return rd_double(r, c, s, &op->dvfs[c - C_ACT_SA].activity);
    if (c >= C_ST_SA && c <= C_ST_OTHER) {
        /* The int 0 (not 0.0) marks an op the energy pass never saw. */
        if (c == C_ST_SA)
            op->energy_done = strcmp(s, "0") != 0;
        return rd_double(r, c, s, &op->static_J[c - C_ST_SA]);
    }
    if (c >= C_DY_SA && c <= C_DY_OTHER)
        return rd_double(r, c, s, &op->dynamic_J[c - C_DY_SA]);
    if (c >= C_SETPM_SA && c <= C_SETPM_ICI)
        return rd_i64(r, c, s, &op->num_setpm[c - C_SETPM_SA]);

    switch (c) {
    case C_FUSION: return rd_i64(r, c, s, &op->fusion_id);
    case C_DESC: return rd_str(&op->description, s);
    case C_CONFIG: return rd_str(&op->config, s);
    case C_NAME: return rd_str(&op->name, s);
    case C_OPTYPE:
        return op_type_parse(s, &op->type) == 0 ? 0
               : bad(r, c, "MXU, VPU, ICINoCompute or Other", s);
    case C_COUNT: return rd_count(r, c, s, &op->count);
    case C_BOUND:
        return bounded_by_parse(s, &op->bounded_by) == 0 ? 0
               : bad(r, c, "Compute, Memory, ICI/NVLink or empty", s);
    case C_EXE: return rd_nonneg(r, c, s, &op->exe_ns);
    case C_MEM: return rd_nonneg(r, c, s, &op->mem_ns);
    case C_ICI: return rd_nonneg(r, c, s, &op->ici_ns);
    case C_ICI_OUT: return rd_nonneg(r, c, s, &op->ici_out_bytes);
    case C_ICI_IN: return rd_nonneg(r, c, s, &op->ici_in_bytes);
    case C_PCIE: return rd_nonneg(r, c, s, &op->pcie_ns);
    case C_SA: return rd_nonneg(r, c, s, &op->sa_ns);
    case C_VU: return rd_nonneg(r, c, s, &op->vu_ns);
    case C_BYTES: return rd_nonneg(r, c, s, &op->bytes);
    case C_IN_SHAPES: return rd_str(&op->in_shapes, s);
    case C_OUT_SHAPES: return rd_str(&op->out_shape, s);
    case C_FLOPS: return rd_nonneg(r, c, s, &op->flops);
    case C_OPCODE: return rd_str(&op->opcode, s);
    case C_WEIGHT: return rd_nonneg(r, c, s, &op->weight_bytes);
    case C_PARSED: return rd_str(&op->parsed_op_type, s);
    case C_DIM_LABELS: return rd_str(&op->dim_labels, s);
    case C_TILE_SHAPES: return rd_str(&op->tile_shapes, s);
    case C_NUM_TILES:
        if (*s == '\0')
            return 0; /* keep the default of 1 */
        return rd_nonneg(r, c, s, &op->num_tiles);
    case C_MAX_VMEM: return rd_i64_blank(r, c, s, &op->max_vmem_demand_bytes);
    case C_NUM_MXU: return rd_nonneg(r, c, s, &op->num_sa_ops);
    case C_EIN_B: return rd_i64_blank(r, c, s, &op->einsum_b);
    case C_EIN_M: return rd_i64_blank(r, c, s, &op->einsum_m);
    case C_EIN_N: return rd_i64_blank(r, c, s, &op->einsum_n);
    case C_EIN_K: return rd_i64_blank(r, c, s, &op->einsum_k);
    case C_SOFTMAX: return rd_nonneg(r, c, s, &op->vu_softmax_ns);
    case C_VMEM: return rd_nonneg(r, c, s, &op->vmem_ns);
    case C_FLOPS_UTIL: return rd_double(r, c, s, &op->flops_util);
    case C_HBM_UTIL: return rd_double(r, c, s, &op->hbm_bw_util);
    /* Derived or constant on write: validated, not stored. */
    case C_COMPUTE: case C_COMPUTE_NS: case C_DCN_AGG: case C_DCN0: case C_TEMP_MEM:
    case C_PERS_MEM: case C_TRANSPOSE: case C_PERMUTE: case C_BYTES2:
        return rd_i64(r, c, s, &ignored_i);
    case C_ST_SUM: case C_DY_SUM: case C_TOT_SUM: case C_ST_W: case C_DY_W: case C_TOT_W:
    case C_TFLOPS: case C_HBM_BW:
        /* Any number: recomputed on write, never read into a sum (a power
         * of a huge energy over a short time may print as inf). */
        return parse_double(s, &ignored_d) == 0 ? 0 : bad(r, c, "a number", s);
    case C_OP_NAME: case C_OUTPUT_SHAPE:
        return 0;
    default:
        return 0; /* ranges handled above */
    }
}

/* The cost-model kind is the config text before its first '('. */
static void classify(struct op *op)
{
    const char *cfg = op_kind_text(op);
    size_t n = strcspn(cfg, "(");
#define IS(k) (n == sizeof k - 1 && memcmp(cfg, k, n) == 0)
    if (IS("XlaEinsum") || IS("BatchMatMul")) {
        op->opcode_type = OPC_EINSUM;
        op->stats_kind = STATS_EINSUM;
    } else if (IS("Conv2D")) {
        op->opcode_type = OPC_CONV2D;
        op->stats_kind = STATS_EINSUM;
    } else if (IS("FlashAttention")) {
        op->opcode_type = OPC_FLASH_ATTENTION;
        op->stats_kind = STATS_FA;
    } else {
        op->opcode_type = OPC_OTHER;
        op->stats_kind = STATS_BASE;
    }
#undef IS
}

/* ------------------------------------------------------------------------ */
/* Read-back without the text                                                */

/* A double as py_repr_double writes it and parse_double reads it back:
 * every finite value and infinity exactly (repr is the shortest text that
 * round-trips); any NaN as the "nan" strtod gives. */
static double readback_double(double x) { return isnan(x) ? strtod("nan", NULL) : x; }

/* One op as put_cell writes it and parse_cell reads it back; `groups` and
 * `slack` are the file's optional columns, as trace_write_csv_multi decides
 * them for the whole trace. Mirrors put_cell/parse_cell cell by cell. */
static void readback_op(struct op *d, const struct op *s, bool phase_column, bool groups, bool slack)
{
    bool base = s->stats_kind == STATS_BASE;
    d->fusion_id = s->fusion_id;
#define STR(f) op_share(&d->f, s->f);
    STR(description) STR(config) STR(name) STR(in_shapes) STR(out_shape) STR(opcode) STR(parsed_op_type)
#undef STR
    d->form = s->form;   /* what reading the cells back would parse (the text cells print from it) */
    if (!base) {
        op_share(&d->dim_labels, s->dim_labels);
        op_share(&d->tile_shapes, s->tile_shapes);
        d->tiling = s->tiling;
        d->max_vmem_demand_bytes = s->max_vmem_demand_bytes;
        d->einsum_b = s->einsum_b;
        d->einsum_m = s->einsum_m;
        d->einsum_n = s->einsum_n;
        d->einsum_k = s->einsum_k;
    }
    if (s->stats_kind == STATS_EINSUM)
        d->num_tiles = s->num_tiles;   /* else blank: op_init's 1 */
    d->type = s->type;
    d->count = s->count;
    d->bounded_by = s->bounded_by;
    d->exe_ns = s->exe_ns;
    d->mem_ns = s->mem_ns;
    d->ici_ns = s->ici_ns;
    d->ici_out_bytes = s->ici_out_bytes;
    d->ici_in_bytes = s->ici_in_bytes;
    d->pcie_ns = s->pcie_ns;
    d->sa_ns = s->sa_ns;
    d->vu_ns = s->vu_ns;
    d->bytes = s->bytes;
    d->flops = s->flops;
    d->weight_bytes = s->weight_bytes;
    d->num_sa_ops = s->num_sa_ops;
    d->vu_softmax_ns = s->vu_softmax_ns;
    d->vmem_ns = s->vmem_ns;
    for (int c = 0; c < NUM_COMP; c++) {
        const struct op_dvfs *sd = &s->dvfs[c];
        struct op_dvfs *dd = &d->dvfs[c];
        strcpy(dd->policy, sd->policy);
        dd->voltage_V = readback_double(sd->voltage_V);
        dd->freq_GHz = readback_double(sd->freq_GHz);
        dd->scaling_time_ns = sd->scaling_time_ns;
        dd->efficiency_pct = readback_double(sd->efficiency_pct);
        dd->activity = readback_double(sd->activity);
        d->num_setpm[c] = s->num_setpm[c];
    }
    /* Energies: the int 0 before the pass (read as 0.0, energy_done false). */
    d->energy_done = s->energy_done;
    for (int k = 0; k < NUM_EN && s->energy_done; k++) {
        d->static_J[k] = readback_double(s->static_J[k]);
        d->dynamic_J[k] = readback_double(s->dynamic_J[k]);
    }
    if (s->bounded_by != BOUND_NONE) {
        d->flops_util = readback_double(s->flops_util);
        d->hbm_bw_util = readback_double(s->hbm_bw_util);
    }
    d->has_slack = slack;
    for (int k = 0; k < NUM_SLACK && slack && s->has_slack; k++) {
        d->dvfs_extra_ns[k] = s->dvfs_extra_ns[k];
        d->dvfs_extra_ratio[k] = readback_double(s->dvfs_extra_ratio[k]);
    }
    if (phase_column)
        d->phase = s->phase;
    if (phase_column && groups)
        d->group = s->group;
    classify(d);
}

void trace_csv_readback(struct trace *dst, const struct trace *src, const struct trace_csv_opts *o)
{
    static const struct trace_csv_opts defaults = { PHASE_NONE, false, false };
    if (!o)
        o = &defaults;
    bool groups = false, any_slack = false;
    size_t taken = 0;
    for (size_t i = 0; i < src->n; i++) {
        groups = groups || src->ops[i].group != 0;
        any_slack = any_slack || src->ops[i].has_slack;
        taken += o->only == PHASE_NONE || src->ops[i].phase == o->only;
    }
    trace_reserve(dst, taken);
    for (size_t i = 0; i < src->n; i++) {
        const struct op *op = &src->ops[i];
        if (o->only != PHASE_NONE && op->phase != o->only)
            continue;
        readback_op(trace_push(dst), op, o->phase_column, groups, any_slack || o->slack_columns);
    }
}

/* One field of a data row into op, by what its column holds. */
static void parse_field(struct reader *r, struct op *op, size_t f, const char *s)
{
    int t = r->target[f];
    if (t >= 0 && t < TRACE_CSV_NCOLS) {
        parse_cell(r, op, (enum col)t, s);
    } else if (t >= T_SLACK0) {
        int c = t - T_SLACK0;
        int bad_cell = c < NUM_SLACK ? parse_i64(s, &op->dvfs_extra_ns[c])
                                     : parse_double(s, &op->dvfs_extra_ratio[c - NUM_SLACK]);
        if (bad_cell)
            rd_fail(r, "column \"%s\": expected %s, got \"%.80s\"", trace_csv_slack_columns[c],
                    c < NUM_SLACK ? "an integer" : "a number", s);
    } else if (t == T_PHASE) {
        if (strcmp(s, phase_name(PHASE_PREFILL)) == 0)
            op->phase = PHASE_PREFILL;
        else if (strcmp(s, phase_name(PHASE_DECODE)) == 0)
            op->phase = PHASE_DECODE;
        else if (*s == '\0')
            op->phase = PHASE_NONE;
        else
            rd_fail(r, "column \"Phase\": expected prefill, decode or empty, got \"%.80s\"", s);
    } else if (t == T_GROUP) {
        int64_t g;
        if (parse_i64(s, &g) != 0 || g < 0 || g > INT32_MAX)
            rd_fail(r, "column \"Group\": expected an integer from 0 to %d, got \"%.80s\"", INT32_MAX, s);
        else
            op->group = (int32_t)g;
    }
}

/* The end of a data row: its field count, then the first error of its
 * cells; a good row's op is finished. */
static void read_row(struct reader *r)
{
    r->defer = false;
    if (r->nf != r->nhead)
        rd_fail(r, "expected %zu fields, got %zu", r->nhead, r->nf);
    else if (r->row_err)
        rd_fail(r, "%s", r->row_msg);
    else {
        r->row_op->has_slack = r->slack;
        classify(r->row_op);
    }
    r->row_op = NULL;
    r->row_err = false;
}

static void on_row(int term, void *data)
{
    (void)term;
    struct reader *r = data;
    if (r->failed)
        return;
    if (!r->have_header)
        read_header(r);
    else
        read_row(r);
    r->nf = 0;
    r->len = 0;
}

/* The provenance line's members, as data for its reader and its writer. */
#define PROV(k) { #k, offsetof(struct trace_provenance, k), sizeof ((struct trace_provenance *)0)->k }
static const struct { const char *key; size_t off, size; } prov_field[] = {
    PROV(version), PROV(profile), PROV(model), PROV(chip), PROV(system),
};
#define NPROV (sizeof prov_field / sizeof prov_field[0])

/* A first line "# npusim {...}" (the provenance of a stream trace) is not
 * CSV: it is taken off the buffer, parsed into *p when p is given. The line
 * the CSV starts on. */
static long take_provenance(const char **buf, size_t *len, struct trace_provenance *p, bool *has)
{
    if (p)
        memset(p, 0, sizeof *p);
    if (has)
        *has = false;
    if (!*len || (*buf)[0] != '#')
        return 1;
    const char *nl = memchr(*buf, '\n', *len);
    size_t n = nl ? (size_t)(nl - *buf) + 1 : *len, k = strlen(TRACE_PROVENANCE_PREFIX);
    bool ours = p && n > k && !memcmp(*buf, TRACE_PROVENANCE_PREFIX, k);
    cJSON *j = ours ? json_parse(*buf + k, n - k, "provenance", NULL) : NULL;   /* not JSON: no provenance */
    for (size_t i = 0; cJSON_IsObject(j) && i < NPROV; i++) {
        const cJSON *v = cJSON_GetObjectItemCaseSensitive(j, prov_field[i].key);
        if (cJSON_IsString(v))
            snprintf((char *)p + prov_field[i].off, prov_field[i].size, "%s", v->valuestring);
    }
    if (has)
        *has = cJSON_IsObject(j);
    cJSON_Delete(j);
    *buf += n, *len -= n;
    return 2;
}

void trace_provenance_line(const struct trace_provenance *p, char *buf, size_t n)
{
    cJSON *j = cJSON_CreateObject();
    for (size_t i = 0; i < NPROV; i++)
        cJSON_AddStringToObject(j, prov_field[i].key, (const char *)p + prov_field[i].off);
    char *text = cJSON_PrintUnformatted(j);
    snprintf(buf, n, "%s%s\n", TRACE_PROVENANCE_PREFIX, text ? text : "{}");
    cJSON_free(text);
    cJSON_Delete(j);
}

static int read_buffer(struct trace *t, const char *buf, size_t len, const char *name, struct trace_provenance *p,
                       bool *has, struct npu_err *e)
{
    long first = take_provenance(&buf, &len, p, has);
    struct reader r = { .t = t, .n0 = t->n, .name = name, .e = e, .line = first,
                        .nul_free = memchr(buf, '\0', len) == NULL };   /* one scan, not one per field */
    const char *why;
    if (csv_feed_lines(buf, len, on_field, on_row, &r, &r.line, &r.failed, &why) && !r.failed) {
        if (!strcmp(why, "out of memory"))
            return npu_errf(e, "%s: out of memory", name);
        r.defer = false;   /* the row cannot go on: this error, now */
        rd_fail(&r, "malformed CSV (%s)", why);
    }
    if (!r.failed && !r.have_header) {
        r.failed = 1;
        npu_errf(e, "%s: empty input (no header row)", name);
    }
    free(r.buf);
    free(r.off);
    free(r.target);
    if (r.failed) {
        while (t->n > r.n0)
            op_free(&t->ops[--t->n]);
        return -1;
    }
    return 0;
}

int trace_read_csv_buffer(struct trace *t, const char *buf, size_t len, const char *name, struct npu_err *e)
{
    return read_buffer(t, buf, len, name, NULL, NULL, e);
}

int trace_read_csv(struct trace *t, const char *path, struct npu_err *e)
{
    return trace_read_csv_prov(t, path, NULL, NULL, e);
}

int trace_read_csv_prov(struct trace *t, const char *path, struct trace_provenance *p, bool *has,
                        struct npu_err *e)
{
    int std = strcmp(path, "-") == 0;
    const char *name = std ? "<stdin>" : path;
    gzFile gz;
    if (std) {
        int fd = dup(0);
        gz = fd < 0 ? NULL : gzdopen(fd, "rb");
        if (!gz && fd >= 0)
            close(fd);
    } else {
        /* A folder opens, then fails to read with a bare "Is a directory". A
         * FIFO stays readable: a pipe's end (-i <(npusim opsgen ...)) is read,
         * a FIFO no one writes reads as empty instead of waiting forever. */
        if (path_is_dir(path))
            return npu_errf(e, "%s: is a directory, expected a trace CSV (.csv or .csv.gz)", path);
        int fd = path_open_read(path);
        gz = fd < 0 ? NULL : gzdopen(fd, "rb");
        if (!gz && fd >= 0)
            close(fd);
    }
    if (!gz)
        return npu_errf(e, "%s: %s", name, errno ? strerror(errno) : "cannot open");
    char *buf = NULL;
    size_t len = 0, cap = 0;
    for (;;) {
        if (cap - len < 65536) {
            cap = cap ? 2 * cap : 1 << 20;
            char *nb = realloc(buf, cap);
            if (!nb) {
                free(buf);
                gzclose(gz);
                return npu_errf(e, "%s: out of memory", name);
            }
            buf = nb;
        }
        int got = gzread(gz, buf + len, (unsigned)(cap - len > (1u << 30) ? 1u << 30 : cap - len));
        if (got < 0) {
            int zerr;
            const char *msg = gzerror(gz, &zerr);
            npu_errf(e, "%s: %s", name, zerr == Z_ERRNO ? strerror(errno) : msg);
            free(buf);
            gzclose(gz);
            return -1;
        }
        if (got == 0) {
            /* End of input. zlib reports a gzip stream cut short (a partial
             * download, a full disk) only through gzerror here (Z_BUF_ERROR)
             * and gzclose: without the check it reads as a complete trace. */
            int zerr;
            const char *msg = gzerror(gz, &zerr);
            if (zerr != Z_OK) {
                const char *why = strrchr(msg, ':');   /* zlib prefixes its own name for the file */
                npu_errf(e, "%s: truncated or corrupt gzip data (%s)", name, why ? why + 2 : msg);
                free(buf);
                gzclose(gz);
                return -1;
            }
            break;
        }
        len += (size_t)got;
    }
    if (gzclose(gz) != Z_OK) {
        free(buf);
        return npu_errf(e, "%s: truncated or corrupt gzip data", name);
    }
    int rc = read_buffer(t, buf ? buf : "", len, name, p, has, e);
    free(buf);
    return rc;
}
