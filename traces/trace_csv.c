/* trace_csv.c — the reference's 101-column operator CSV, written and read back.
 *
 * One X-macro table (COLUMNS) gives every column an id and its reference
 * header name; trace_csv_columns[] and enum col are both generated from it,
 * so the two can never drift. Writing and reading are each one switch over
 * the column id (put_cell / parse_cell), kept next to each other so that a
 * change to one direction is visibly a change to the other.
 *
 * Writing reproduces Python's csv.DictWriter byte for byte (QUOTE_MINIMAL,
 * CRLF, floats via py_repr_double); a row is formatted into a reusable buffer
 * and written with one fwrite. Reading slurps the input through zlib (plain
 * and gzip alike), feeds it to libcsv one physical line at a time (so errors
 * can name the line), maps columns by header name and parses every cell
 * strictly, as libcsv hands it over (no copy; a row's first error waits for
 * the row's end, so that a wrong field count is reported first). On any
 * error the trace is left exactly as it was on entry. */
#include "traces/trace_csv.h"

#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <pthread.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <threads.h>
#include <unistd.h>

#include <csv.h>
#include <zlib.h>

#include "traces/atomic.h"
#include "traces/digits.h"
#include "traces/fastfloat.h"
#include "traces/opstr.h"
#include "traces/pyfmt.h"
#include "traces/tls_table.h"

#define DVFS_COLS(C, N) \
    X(DVFS_POL_##C, "DVFS " N " Policy") \
    X(DVFS_V_##C, "DVFS " N " Voltage (V)") \
    X(DVFS_F_##C, "DVFS " N " Frequency (GHz)")
#define DVFS_TAIL_COLS(C, N) \
    X(DVFS_SCALE_##C, "DVFS " N " Scaling Time (ns)") \
    X(DVFS_EFF_##C, "DVFS " N " Power Efficiency (%)")

/* Reference column order (chipsim.md §10). */
#define COLUMNS \
    X(FUSION, "Fusion index") X(DESC, "Description") X(CONFIG, "Config") X(NAME, "Name") \
    X(OPTYPE, "OpType") X(COUNT, "Count") X(BOUND, "Bounded-by") X(EXE, "Execution time") \
    X(COMPUTE, "Compute time") X(MEM, "Memory time") X(ICI, "ICI/NVLink time") \
    X(ICI_OUT, "ICI/NVLink outbound traffic") X(ICI_IN, "ICI/NVLink inbound traffic") \
    X(DCN_AGG, "Aggregated DCN time") X(DCN0, "DCN 0 time") X(PCIE, "PCIe time") \
    X(TEMP_MEM, "Temporary memory size") X(PERS_MEM, "Persistent memory size") \
    X(SA, "MXU time") X(VU, "VPU time") X(TRANSPOSE, "Transpose time") X(PERMUTE, "Permute time") \
    X(BYTES, "Bytes accessed") X(IN_SHAPES, "Input Tensor Shapes") \
    X(OUT_SHAPES, "Output Tensor Shapes") X(FLOPS, "FLOP Count") X(OP_NAME, "Op Name") \
    X(OPCODE, "Op Code") X(WEIGHT, "Weight Size") X(OUTPUT_SHAPE, "Output Shape") \
    X(PARSED, "parsed_op_type") X(DIM_LABELS, "dim_labels") X(TILE_SHAPES, "tile_shapes") \
    X(NUM_TILES, "num_tiles") X(MAX_VMEM, "max_vmem_demand_bytes") X(NUM_MXU, "num_mxu_ops") \
    X(EIN_B, "einsum_B_size") X(EIN_M, "einsum_M_size") X(EIN_N, "einsum_N_size") \
    X(EIN_K, "einsum_K_size") X(SOFTMAX, "vu_softmax_time_ns") \
    X(COMPUTE_NS, "Compute Time (ns)") X(BYTES2, "Bytes Accessed") \
    DVFS_COLS(SA, "SA") DVFS_COLS(VU, "VU") DVFS_COLS(SRAM, "SRAM") DVFS_COLS(HBM, "HBM") \
    DVFS_COLS(ICI, "ICI") \
    X(VMEM, "Vmem time") \
    X(ST_SA, "static_energy_sa_J") X(ST_VU, "static_energy_vu_J") \
    X(ST_SRAM, "static_energy_sram_J") X(ST_HBM, "static_energy_hbm_J") \
    X(ST_ICI, "static_energy_ici_J") X(ST_OTHER, "static_energy_other_J") \
    X(DY_SA, "dynamic_energy_sa_J") X(DY_VU, "dynamic_energy_vu_J") \
    X(DY_SRAM, "dynamic_energy_sram_J") X(DY_HBM, "dynamic_energy_hbm_J") \
    X(DY_ICI, "dynamic_energy_ici_J") X(DY_OTHER, "dynamic_energy_other_J") \
    X(ST_SUM, "static_energy_J") X(DY_SUM, "dynamic_energy_J") X(TOT_SUM, "total_energy_J") \
    X(ST_W, "static_power_W") X(DY_W, "dynamic_power_W") X(TOT_W, "total_power_W") \
    X(SETPM_SA, "num_setpm_sa") X(SETPM_VU, "num_setpm_vu") X(SETPM_SRAM, "num_setpm_sram") \
    X(SETPM_HBM, "num_setpm_hbm") X(SETPM_ICI, "num_setpm_ici") \
    X(TFLOPS, "tflops_per_sec") X(HBM_BW, "hbm_bw_GBps") X(FLOPS_UTIL, "flops_util") \
    X(HBM_UTIL, "hbm_bw_util") \
    DVFS_TAIL_COLS(SA, "SA") DVFS_TAIL_COLS(VU, "VU") DVFS_TAIL_COLS(SRAM, "SRAM") \
    DVFS_TAIL_COLS(HBM, "HBM") DVFS_TAIL_COLS(ICI, "ICI") \
    X(ACT_SA, "DVFS SA Activity Factor") X(ACT_VU, "DVFS VU Activity Factor") \
    X(ACT_SRAM, "DVFS SRAM Activity Factor") X(ACT_HBM, "DVFS HBM Activity Factor") \
    X(ACT_ICI, "DVFS ICI Activity Factor")

enum col {
#define X(id, name) C_##id,
    COLUMNS
#undef X
    C_COUNT_ALL
};

_Static_assert(C_COUNT_ALL == TRACE_CSV_NCOLS, "column table must have 101 entries");

const char *const trace_csv_columns[TRACE_CSV_NCOLS] = {
#define X(id, name) name,
    COLUMNS
#undef X
};

const char *const trace_csv_slack_columns[TRACE_CSV_NSLACK] = {
    "dvfs_extra_sa_time_ns", "dvfs_extra_vu_time_ns", "dvfs_extra_hbm_time_ns", "dvfs_extra_ici_time_ns",
    "dvfs_extra_vmem_time_ns", "dvfs_extra_sa_ratio", "dvfs_extra_vu_ratio", "dvfs_extra_hbm_ratio",
    "dvfs_extra_ici_ratio", "dvfs_extra_vmem_ratio",
};

static const char PHASE_COLUMN[] = "Phase";
/* Written after Phase only when some op has a non-zero timing group. */
static const char GROUP_COLUMN[] = "Group";

/* ------------------------------------------------------------------------ */
/* Writing                                                                   */

/* A growable byte buffer; `oom` latches allocation failure so the row
 * formatter need not check every append. */
struct sbuf {
    char *p;
    size_t n, cap;
    int oom;
};

static int sb_grow(struct sbuf *b, size_t extra)
{
    if (b->oom)
        return -1;
    size_t cap = b->cap ? b->cap : 4096;
    while (cap < b->n + extra)
        cap *= 2;
    char *p = realloc(b->p, cap);
    if (!p) {
        b->oom = 1;
        return -1;
    }
    b->p = p;
    b->cap = cap;
    return 0;
}

/* Room for extra more bytes; inline, as it runs for every cell. After a
 * failed growth, oom stays latched and flush_row reports it, whatever later
 * appends that still fit did to the row. */
static inline int sb_reserve(struct sbuf *b, size_t extra)
{
    return b->n + extra <= b->cap ? 0 : sb_grow(b, extra);
}

static inline void sb_mem(struct sbuf *b, const char *s, size_t n)
{
    if (sb_reserve(b, n) == 0) {
        memcpy(b->p + b->n, s, n);
        b->n += n;
    }
}

static inline void sb_char(struct sbuf *b, char c)
{
    if (sb_reserve(b, 1) == 0)
        b->p[b->n++] = c;
}

/* A row is written under two reservations, put_head's and put_rest's, of
 * ROW_RESERVE bytes each: enough for every cell but the strings, which reserve
 * their own length plus ROW_RESERVE again (sb_text). So the number cells and
 * separators (the bulk of a row) append unchecked: u_char, u_mem. After a
 * failed reservation (oom latched) nothing more is written than fits. */
#define ROW_RESERVE ((size_t)(TRACE_CSV_NCOLS + TRACE_CSV_NSLACK + 2) * (PY_REPR_MAX + 1) + 2)

static inline void u_char(struct sbuf *b, char c) { b->p[b->n++] = c; }

static inline void u_mem(struct sbuf *b, const char *s, size_t n)
{
    memcpy(b->p + b->n, s, n);
    b->n += n;
}

/* A string's n bytes, keeping the row's reservation. */
static inline void sb_text(struct sbuf *b, const char *s, size_t n)
{
    if (sb_reserve(b, n + ROW_RESERVE) == 0)
        u_mem(b, s, n);
}

/* Python's QUOTE_MINIMAL: quote iff the field holds the delimiter, the quote
 * character or a line-terminator character; double embedded quotes. */
static void sb_quoted(struct sbuf *b, const char *s)
{
    if (sb_reserve(b, 2 * strlen(s) + 2 + ROW_RESERVE) != 0)
        return;   /* the worst case (every byte a quote) fits: the appends below never grow */
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
static void sb_field(struct sbuf *b, const char *s)
{
    size_t n = 0;
    while (csv_plain_at((unsigned char)s[n]))
        n++;
    if (s[n] == '\0')
        sb_text(b, s, n);
    else
        sb_quoted(b, s);
}

/* An op's string field: a sealed one (traces/opstr.h) is copied unscanned. */
static inline void sb_opstr(struct sbuf *b, const char *s)
{
    size_t n;
    bool quoted;
    if (!opstr_csv_form(s, &n, &quoted)) {
        sb_field(b, s);
    } else if (!quoted) {
        sb_text(b, s, n);
    } else if (sb_reserve(b, n + 2 + ROW_RESERVE) == 0) {
        b->p[b->n] = '"';
        memcpy(b->p + b->n + 1, s, n);
        b->p[b->n + 1 + n] = '"';
        b->n += n + 2;
    }
}

static void sb_i64(struct sbuf *b, int64_t v)
{
    if ((uint64_t)v < 10) {   /* one digit: zeros fill many columns */
        u_char(b, (char)('0' + v));
        return;
    }
    /* Work in unsigned so INT64_MIN negates without overflow. */
    uint64_t u = v < 0 ? 0 - (uint64_t)v : (uint64_t)v;
    size_t len = (size_t)(v < 0) + (size_t)u64_ndigits(u);
    char *s = u64_put_digits(u, b->p + b->n + len);   /* digits straight into place */
    if (v < 0)
        s[-1] = '-';
    b->n += len;
}

/* Float cells, as Python repr. */
static void sb_repr(struct sbuf *b, double x)
{
    /* Integral values below 2^53 print as Python does, "N.0", exactly. */
    if (fabs(x) < 9007199254740992.0 && x == (double)(int64_t)x && !(x == 0 && signbit(x))) {
        sb_i64(b, (int64_t)x);
        u_mem(b, ".0", 2);
        return;
    }
    b->n += py_repr_fmt(x, b->p + b->n);
}

static int64_t compute_ns(const struct op *op) { return op->sa_ns > op->vu_ns ? op->sa_ns : op->vu_ns; }

/* Energies are the int 0 until the energy pass has run (the reference keeps
 * the int default), then Python floats. */
static void sb_energy(struct sbuf *b, const struct op *op, double v)
{
    if (op->energy_done)
        sb_repr(b, v);
    else
        u_char(b, '0');
}

/* Power = energy / exe * 1e9 in that order (same rounding as the reference);
 * the reference's sentinel for a zero-time op is the int -1. */
static void sb_power(struct sbuf *b, const struct op *op, double energy_J)
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
static inline __attribute__((always_inline)) void put_single_cell(struct sbuf *b, const struct op *op,
                                                                 enum col c)
{
    bool base = op->stats_kind == STATS_BASE;
    switch (c) {
    case C_FUSION: sb_i64(b, op->fusion_id); break;
    case C_DESC: sb_opstr(b, op->description); break;
    case C_CONFIG: sb_opstr(b, op->config); break;
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
    case C_IN_SHAPES: sb_opstr(b, op->in_shapes); break;
    case C_OUT_SHAPES: sb_opstr(b, op->out_shape); break;
    case C_FLOPS: sb_i64(b, op->flops); break;
    case C_OPCODE: sb_opstr(b, op->opcode); break;
    case C_WEIGHT: sb_i64(b, op->weight_bytes); break;
    case C_OUTPUT_SHAPE: u_mem(b, "[]", 2); break;
    case C_PARSED: sb_opstr(b, op->parsed_op_type); break;
    case C_DIM_LABELS: if (!base) sb_opstr(b, op->dim_labels); break;
    case C_TILE_SHAPES: if (!base) sb_opstr(b, op->tile_shapes); break;
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
static inline __attribute__((always_inline)) void put_cell_in(struct sbuf *b, const struct op *op, enum col c,
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

static void put_cell(struct sbuf *b, const struct op *op, enum col c)
{
    put_cell_in(b, op, c, (enum cell_group)col_group[c]);
}

static int flush_row(struct sbuf *b, FILE *f, struct npu_err *e)
{
    if (b->oom)
        return npu_errf(e, "writing CSV: out of memory");
    if (fwrite(b->p, 1, b->n, f) != b->n)
        return npu_errf(e, "writing CSV: %s", strerror(errno));
    b->n = 0;
    return 0;
}

static void build_header(struct sbuf *b, bool phase_column, bool group_column, bool slack)
{
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
static struct sbuf headers[8];
/* pthread_once rather than C11 call_once: ThreadSanitizer sees its ordering
 * (glibc's call_once reaches it through an internal, unintercepted call). */
static pthread_once_t headers_once = PTHREAD_ONCE_INIT;

static void build_headers(void)
{
    for (int i = 0; i < 8; i++)
        build_header(&headers[i], i & 1, i & 2, i & 4);
    build_col_groups();
}

static void put_header(struct sbuf *b, bool phase_column, bool group_column, bool slack)
{
    pthread_once(&headers_once, build_headers);
    const struct sbuf *h = &headers[phase_column | (phase_column && group_column) << 1 | slack << 2];
    if (h->oom)
        b->oom = 1;
    else
        sb_mem(b, h->p, h->n);
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

#define TAIL_MEMO_SLOTS 512        /* power of two; ~700 KiB per thread */
#define TAIL_TEXT_MAX 800          /* a longer tail is not kept */
struct tail_slot {
    uint64_t hash;                 /* 0: empty */
    uint32_t len;
    struct tail_key key;
    char text[TAIL_TEXT_MAX];
};
static _Thread_local struct tail_slot *tail_memo;   /* allocated on first use (traces/tls_table.h) */

static uint64_t tail_hash(const struct tail_key *k)
{
    const unsigned char *p = (const unsigned char *)k;
    uint64_t h = 0x9e3779b97f4a7c15ull;
    for (size_t i = 0; i < sizeof *k; i += 8) {
        uint64_t w;
        memcpy(&w, p + i, sizeof w);
        h = (h ^ w) * 0xbf58476d1ce4e5b9ull;
        h ^= h >> 29;
    }
    return h | 1;   /* never 0, the empty mark */
}

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
static void put_dvfs_cells(struct sbuf *b, const struct op *op, int block)
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
    if (len <= DVFS_TEXT_MAX && !b->oom) {
        memcpy(m->text[block], b->p + at, len);
        m->len[block] = (uint16_t)len;
        m->valid[block] = true;
    }
}

/* The tail's cells, each after its comma. Ops without slack (never through
 * the energy stage) write zeros there. */
static void put_tail_cells(struct sbuf *b, const struct op *op, bool slack)
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

static void put_tail(struct sbuf *b, const struct op *op, bool slack)
{
    if (!tail_memo)
        tail_memo = tls_table_calloc(TAIL_MEMO_SLOTS * sizeof *tail_memo);
    if (!tail_memo) {
        put_tail_cells(b, op, slack);
        return;
    }
    struct tail_key k;
    tail_key_of(op, slack, &k);
    uint64_t h = tail_hash(&k);
    struct tail_slot *s = &tail_memo[h >> 55];   /* top 9 bits: TAIL_MEMO_SLOTS = 512 */
    if (s->hash == h && memcmp(&s->key, &k, sizeof k) == 0) {
        u_mem(b, s->text, s->len);
        return;
    }
    size_t at = b->n;
    put_tail_cells(b, op, slack);
    size_t len = b->n - at;
    if (len <= TAIL_TEXT_MAX && !b->oom) {
        s->hash = h;
        s->len = (uint32_t)len;
        s->key = k;
        memcpy(s->text, b->p + at, len);
    }
}

/* The head of a row: the cells before the power columns (C_DVFS_POL_SA),
 * no trailing comma. cell[c] receives where cell c's text starts. */
#define HEAD_COLS C_DVFS_POL_SA
_Static_assert(C_DVFS_POL_SA < C_ACT_SA && C_DVFS_POL_SA < C_ST_SA && C_DVFS_POL_SA < C_DY_SA &&
                   C_DVFS_POL_SA < C_SETPM_SA && C_DVFS_POL_SA < C_DVFS_SCALE_SA,
               "the head holds no per-component block");
static void put_head(struct sbuf *b, const struct op *op, size_t cell[HEAD_COLS])
{
    if (sb_reserve(b, ROW_RESERVE) != 0)
        return;   /* oom: latched, reported by flush_row */
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
static void put_rest(struct sbuf *b, const struct op *op, bool phase_column, bool group_column, bool slack)
{
    if (sb_reserve(b, ROW_RESERVE) != 0)
        return;
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
           a->einsum_n == b->einsum_n && a->einsum_k == b->einsum_k && a->vu_softmax_ns == b->vu_softmax_ns;
}

/* op's head from src, the head text of an op with the same untimed cells
 * (cell: where src's cells start, end: where its head ends): runs of untimed
 * cells copied, timed cells formatted. */
static void copy_head(struct sbuf *b, const struct op *op, const char *src, const size_t cell[HEAD_COLS],
                      size_t end)
{
    if (sb_reserve(b, ROW_RESERVE + (end - cell[0])) != 0)
        return;
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
    struct sbuf out[TRACE_CSV_MAX_OUTPUTS];
    bool groups[TRACE_CSV_MAX_OUTPUTS], slack[TRACE_CSV_MAX_OUTPUTS];
    if (n < 1 || n > TRACE_CSV_MAX_OUTPUTS)
        return npu_errf(e, "writing CSV: %d outputs (1 to %d)", n, TRACE_CSV_MAX_OUTPUTS);
    memset(out, 0, sizeof out);
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
                sb_mem(&out[k], out[row].p + row_at, row_len);
                continue;
            }
            size_t at = out[k].n;
            if (head >= 0 && t[head] == t[k]) {
                sb_mem(&out[k], out[head].p + cell[0], head_end - cell[0]);
            } else if (head >= 0 && same_untimed(&t[head]->ops[i], op)) {
                copy_head(&out[k], op, out[head].p, cell, head_end);
            } else {
                put_head(&out[k], op, cell);
                head = out[k].oom ? -1 : k;   /* out of memory: cell[] unset, nothing to copy */
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
        free(out[k].p);
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
    const char *cfg = op->config;
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
    if (!base) {
        op_share(&d->dim_labels, s->dim_labels);
        op_share(&d->tile_shapes, s->tile_shapes);
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

/* libcsv trims blanks around unquoted fields by default; the reference
 * keeps them, so nothing counts as a blank. */
static int no_space(unsigned char c)
{
    (void)c;
    return 0;
}

int trace_read_csv_buffer(struct trace *t, const char *buf, size_t len, const char *name,
                          struct npu_err *e)
{
    struct reader r = { .t = t, .n0 = t->n, .name = name, .e = e, .line = 1,
                        .nul_free = memchr(buf, '\0', len) == NULL };   /* one scan, not one per field */
    struct csv_parser p;
    if (csv_init(&p, CSV_STRICT | CSV_STRICT_FINI | CSV_APPEND_NULL) != 0)
        return npu_errf(e, "%s: out of memory", name);
    csv_set_space_func(&p, no_space);
    /* One physical line per call so that callbacks know their line. */
    size_t pos = 0;
    while (pos < len && !r.failed) {
        const char *nl = memchr(buf + pos, '\n', len - pos);
        size_t n = nl ? (size_t)(nl - (buf + pos)) + 1 : len - pos;
        if (csv_parse(&p, buf + pos, n, on_field, on_row, &r) != n) {
            r.defer = false;   /* the row cannot go on: this error, now */
            rd_fail(&r, "malformed CSV (%s)", csv_strerror(csv_error(&p)));
        }
        pos += n;
        if (nl && !r.failed)
            r.line++;
    }
    if (!r.failed && csv_fini(&p, on_field, on_row, &r) != 0) {
        r.defer = false;
        rd_fail(&r, "malformed CSV (%s)", csv_strerror(csv_error(&p)));
    }
    csv_free(&p);
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

int trace_read_csv(struct trace *t, const char *path, struct npu_err *e)
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
        errno = 0;
        gz = gzopen(path, "rb");
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
    int rc = trace_read_csv_buffer(t, buf ? buf : "", len, name, e);
    free(buf);
    return rc;
}
