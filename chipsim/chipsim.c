/* chipsim.c — the per-op pipeline of chipsim.md §4 over a whole trace.
 *
 * For each op in list order: fetch its pseudo-instruction from the by-name
 * cache, compute MXU/VPU time (compute.c), HBM bytes (traffic.c), then HBM,
 * vmem and execution time, a preliminary Bounded-by and the utilisation
 * columns. The energy pass (power/energy.c) later rescales these times. The
 * cache lives for one call (and one timing group: op->group), so prefill and
 * decode must be timed together. Tiles and labels are data (op->tiling),
 * printed by the CSV writer. */
#include "chipsim/chipsim.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "chipsim/cs_internal.h"

static enum op_stats_kind stats_kind_of(enum kind k)
{
    switch (k) {
    case K_EINSUM:
    case K_BATCHMATMUL:
    case K_CONV2D:
        return STATS_EINSUM;
    case K_FLASH_ATTENTION:
        return STATS_FA;
    default:
        return STATS_BASE;
    }
}

static void reset_stats(struct op *op)
{
    op->tiling.held = true;   /* chipsim's from here on, not a CSV's text */
    op->tiling.rows = -1;
    op->tiling.dim_labels[0] = '\0';
    op->num_tiles = 1;
    op->max_vmem_demand_bytes = 0;
    op->num_sa_ops = 0;
    op->einsum_b = op->einsum_m = op->einsum_n = op->einsum_k = 0;
    op->vu_softmax_ns = 0;
}

/* The op's number format on its unit (physical profile): sets c's time
 * multipliers and the op's prec and prec_ran. */
static void set_format(struct cs_ctx *c, const struct instr *in, struct op *op)
{
    c->mx_scale = c->vu_scale = 1.0;
    op->prec = op->prec_ran = op->kernel_class = -1;
    op->efficiency = 1.0;
    int p = c->prof->chip_precisions_ignored ? -1 : op_format(in);
    if (p < 0)
        return;
    struct chip_formats local;
    struct chip_formats *f = c->fmts;
    if (!f)
        chip_formats_init(c->chip, &local), f = &local;
    enum chip_unit u = op_unit(in);
    chip_formats_need(f, u, p);
    chip_formats_need(f, UNIT_VECTOR, p);
    op->prec = (int8_t)p;
    op->prec_ran = f->ran[u][p];
    if (u == UNIT_MATRIX)
        c->mx_scale = f->scale[UNIT_MATRIX][p];
    c->vu_scale = f->scale[UNIT_VECTOR][p];
}

/* Achieved over roofline of the op's kernel class (physical profile; 1 under
 * the reference's). */
static double kernel_efficiency(const struct cs_ctx *c, const struct instr *in, struct op *op)
{
    if (c->prof->chip_precisions_ignored)
        return 1.0;
    enum kernel_class k = op_kernel_class(in, op);
    op->kernel_class = (int8_t)k;
    op->efficiency = chip_kernel_efficiency(c->chip, k, op->prec, op_kernel_size(k, in, op));
    return op->efficiency;
}

static int64_t over_eff(const struct cs_ctx *c, int64_t t, double eff)
{
    return eff == 1.0 ? t : cs_ceil(c, (double)t / eff);
}

static int time_overflow(const struct cs_ctx *c)
{
    return cs_errf(c, "a time exceeds 2^61 ns (73 years): the chip's rates (freq_GHz, hbm_bw_GBps, "
                      "num_sa, sa_dim, ...) are too small for this op");
}

/* The traffic into each memory level inside the outermost (chip.h:
 * memory_levels), tiled to its capacity; -1 where no tiling fits it (the
 * level then moves the outermost level's bytes). The op's tiles stay those
 * of the outermost level, which bytes_accessed sets after. */
static void inner_level_bytes(struct cs_ctx *c, const struct instr *in, struct op *op, int64_t search_ns,
                              int64_t *out)
{
    const struct mem_levels *lv = &c->chip->memory_levels;
    for (int i = 0; i + 1 < lv->n; i++) {
        c->vmem_cap = (int64_t)(lv->l[i].capacity_KiB * 1024);
        if (bytes_accessed(c, in, op, search_ns, &out[i]))
            out[i] = -1;
    }
    c->vmem_cap = 0;
}

/* The slowest level's fill time: its traffic over fill_GBps (the outermost
 * level's traffic is the HBM's), divided by the kernel's efficiency. */
static double levels_ns(const struct mem_levels *lv, const int64_t *inner, int64_t hbm_bytes, double eff)
{
    double worst = 0;
    for (int i = 0; i < lv->n; i++) {
        int64_t b = i + 1 < lv->n && inner[i] >= 0 ? inner[i] : hbm_bytes;
        double t = (double)b / lv->l[i].fill_GBps / eff;
        worst = t > worst ? t : worst;
    }
    return worst;
}

static int time_op(const struct cs_ctx *c0, struct instr *in, struct op *op)
{
    bool overflow = false;   /* a time out of scale (cs_trunc): an error once the times are made */
    struct cs_ctx cf = *c0, *c = &cf;
    cf.time_overflow = &overflow;
    const struct chip_config *ch = c->chip;
    set_format(c, in, op);
    op->stats_kind = stats_kind_of(c->op_kind);
    reset_stats(op);
    op_set(&op->parsed_op_type, in->kind == K_EINSUM || in->kind == K_BATCHMATMUL ? "Einsum" : in->token);
    if (in->kind == K_EINSUM || in->kind == K_BATCHMATMUL || in->kind == K_CONV2D)
        memcpy(op->tiling.dim_labels, in->dim_labels, sizeof op->tiling.dim_labels);

    int64_t mx = 0, vp = 0, bytes = 0;   /* set by compute_time / bytes_accessed on success */
    if (compute_time(c, in, op, &mx, &vp))
        return -1;
    int64_t compute = mx > vp ? mx : vp;
    /* chipsim Q4: the reference's tile search runs before compute time is stored. */
    int64_t search_ns = c->prof->tile_search_sees_zero_compute ? 0 : compute;
    int64_t level_bytes[MEM_LEVELS_MAX] = {0};
    inner_level_bytes(c, in, op, search_ns, level_bytes);
    if (bytes_accessed(c, in, op, search_ns, &bytes))
        return -1;

    /* Kernels reach a fraction of their roofline: every time the op's own
     * (compute, HBM, interconnect) is divided by it. */
    op->bytes = bytes;
    double eff = kernel_efficiency(c, in, op);
    mx = over_eff(c, mx, eff);
    vp = over_eff(c, vp, eff);
    compute = mx > vp ? mx : vp;
    /* a collective's latency steps are hops, not bandwidth: not scaled */
    int64_t ici = op->ici_alpha_ns + over_eff(c, op->ici_ns - op->ici_alpha_ns, eff);
    int64_t mem = 0;
    if (bytes != 0) {
        /* The reference's HBM GB is 2^30 B (quirk chipsim Q11); GB/s = bytes/ns otherwise. */
        double GBps = c->prof->hbm_pcie_GB_is_GiB ? ch->hbm_bw_GBps * 1024 * 1024 * 1024 / 1e9 : ch->hbm_bw_GBps;
        mem = over_eff(c, cs_ceil(c, (double)bytes / GBps), eff);
        if (mem < ch->hbm_latency_ns)
            mem = ch->hbm_latency_ns;
    }
    double vmem = 0.0;
    if (ch->memory_levels.n)
        vmem = levels_ns(&ch->memory_levels, level_bytes, bytes, eff);
    else if (op->type == OP_MXU)
        vmem = ((double)mx * chip_sa_bw_GBps(ch) + (double)mem * ch->hbm_bw_GBps) / chip_vmem_bw_GBps(ch);
    else if (op->type == OP_VPU)
        vmem = ((double)vp * chip_vpu_bw_GBps(ch) + (double)mem * ch->hbm_bw_GBps) / chip_vmem_bw_GBps(ch);
    double exe = (double)compute;
    if ((double)ici > exe)
        exe = (double)ici;
    if ((double)mem > exe)
        exe = (double)mem;
    if (vmem > exe)
        exe = vmem;

    op->sa_ns = mx;
    op->vu_ns = vp;
    op->mem_ns = mem;
    op->vmem_ns = cs_trunc(c, vmem);
    op->exe_ns = cs_trunc(c, exe);
    if (overflow)
        return time_overflow(c);
    if ((double)compute == exe)
        op->bounded_by = BOUND_COMPUTE;
    else if ((double)mem == exe)
        op->bounded_by = BOUND_MEMORY;
    else if (vmem == exe)
        op->bounded_by = BOUND_COMPUTE;
    else
        op->bounded_by = BOUND_ICI;
    /* A fixed time every kernel of the class adds (launch, pipeline fill:
     * t = t0 + t_roofline / e) and the launch gap it waits at least, after
     * the bound is named (physical profile). */
    op->exe_ns = chip_op_time_ns(ch, op, op->exe_ns);
    if ((double)op->exe_ns >= CS_NS_MAX)
        return time_overflow(c);

    /* chipsim Q18: MXU ops are measured against the SA+VU peak; otherwise
     * against the peak of the format the unit ran. */
    double peak = op->type != OP_MXU ? chip_peak_vu_tflops(ch)
                  : c->prof->mxu_util_over_sa_plus_vu_peak ? chip_peak_tflops(ch)
                                                           : chip_peak_sa_tflops(ch);
    if (op->prec_ran >= 0 && (op->type == OP_MXU || ch->vector_tflops[op->prec_ran] > 0))
        peak = c->fmts ? c->fmts->peak[op->type == OP_MXU ? UNIT_MATRIX : UNIT_VECTOR][op->prec]
                       : chip_unit_peak_tflops(ch, op->type == OP_MXU ? UNIT_MATRIX : UNIT_VECTOR,
                                               (enum precision)op->prec_ran);
    op->flops_util = op_tflops_per_sec(op) / peak;
    op->hbm_bw_util = c->prof->hbm_pcie_GB_is_GiB ? op_hbm_bw_GBps(op) / ch->hbm_bw_GBps
                      : op->exe_ns > 0 ? (double)op->bytes / (double)op->exe_ns / ch->hbm_bw_GBps : 0.0;
    return 0;
}

int chipsim_run(struct trace *t, const struct chip_config *chip, const struct profile *prof, struct npu_err *e)
{
    int rc = 0;
    chipsim_run_many(&t, &chip, 1, prof, e, &rc);
    return rc;
}

/* Marks every trace still running as failed with the error in *from. */
static void fail_all(int k, struct npu_err *errs, int *rcs, const struct npu_err *from)
{
    for (int j = 0; j < k; j++)
        if (rcs[j] == 0) {
            if (&errs[j] != from)
                errs[j] = *from;
            rcs[j] = -1;
        }
}

void chipsim_run_many(struct trace *const *ts, const struct chip_config *const *chips, int k,
                      const struct profile *prof, struct npu_err *errs, int *rcs)
{
    for (int j = 0; j < k; j++)
        rcs[j] = 0;
    struct npu_err oom;
    npu_errf(&oom, "chipsim: out of memory");
    struct instr_cache *cache = instr_cache_acquire();
    if (!cache) {
        fail_all(k, errs, rcs, &oom);
        return;
    }
    /* Each chip's number formats, once per run (not per op). */
    struct chip_formats *fmts = malloc((size_t)k * sizeof *fmts);
    if (!fmts) {
        fail_all(k, errs, rcs, &oom);
        return;
    }
    for (int j = 0; j < k; j++)
        chip_formats_init(chips[j], &fmts[j]);
    struct instr scratch;
    memset(&scratch, 0, sizeof scratch);
    const struct trace *t = ts[0];   /* the creation-time fields every copy shares */
    for (size_t i = 0; i < t->n; i++) {
        int alive = -1;   /* the first trace still running */
        for (int j = k - 1; j >= 0; j--)
            if (rcs[j] == 0)
                alive = j;
        if (alive < 0)
            break;
        /* A new timing group (e.g. the next DLRM chip) starts a fresh name table. */
        if (i > 0 && t->ops[i].group != t->ops[i - 1].group && !(cache = instr_cache_acquire())) {
            fail_all(k, errs, rcs, &oom);
            break;
        }
        /* Instructions depend on the op and the name table, never on the chip:
         * one serves every copy. */
        struct cs_ctx c = {chips[alive], prof, &errs[alive], i, &ts[alive]->ops[i],
                           kind_from_config(op_kind_text(&t->ops[i]), NULL, 0), NULL, 1.0, 1.0, 0, NULL, NULL};
        struct instr *in = instr_for_op(cache, &scratch, &c);
        if (!in) {
            fail_all(k, errs, rcs, &errs[alive]);
            break;
        }
        struct einsum_axes ax;   /* so is an einsum's classification */
        if (in->kind == K_EINSUM || in->kind == K_BATCHMATMUL) {
            einsum_classify(&c, in, &ax);
            c.axes = &ax;
        }
        for (int j = alive; j < k; j++) {
            if (rcs[j])
                continue;
            c.chip = chips[j];
            c.fmts = &fmts[j];
            c.e = &errs[j];
            c.op = &ts[j]->ops[i];
            rcs[j] = time_op(&c, in, &ts[j]->ops[i]);
        }
    }
    instr_free(&scratch);
    free(fmts);
}
