/* measure_out.c — what npusim measure writes: the measurement rows as CSV
 * and JSON, the PASS/FAIL and throughput table, and the host chip built from
 * the measured peaks (see measure.h). No data structure of its own. */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "calib/measure.h"
#include "traces/precision.h"

static const char *const status_names[] = { "PASS", "FAIL", "SKIP" };

/* The check closest to (or furthest past) its tolerance. */
static int tightest(const struct measure_result *r)
{
    int w = 0;
    for (int i = 1; i < r->n_checks; i++)
        if (r->check[i].err / r->check[i].tol > r->check[w].err / r->check[w].tol)
            w = i;
    return w;
}

static double worst_err(const struct measure_result *r) { return r->n_checks ? r->check[tightest(r)].err : 0; }

/* A size cell: empty when not applicable. */
static void size_cell(struct strbuf *b, int64_t v, const char *sep)
{
    if (v > 0)
        strbuf_printf(b, "%lld", (long long)v);
    strbuf_puts(b, sep);
}

static bool row_written(const struct measure_result *r) { return r->in_table && r->status == MEASURE_PASS; }

void measure_csv(const struct measure_run *m, struct strbuf *out)
{
    strbuf_puts(out, "op,dtype,m,n,k,batch,time_us,tflops,GBps,min_us,max_us,iqr_pct,reps,threads,backend,rel_err\n");
    for (int i = 0; i < m->n; i++) {
        const struct measure_result *r = &m->r[i];
        if (!row_written(r))
            continue;
        strbuf_printf(out, "%s,%s,", r->op, precision_info(r->prec)->name);
        size_cell(out, r->m, ",");
        size_cell(out, r->n, ",");
        size_cell(out, r->k, ",,");
        strbuf_printf(out, "%.6g,%.6g,%.6g,%.6g,%.6g,%.3g,%d,%d,%s,%.3g\n", r->median_us,
                      (double)r->flops / r->median_us * 1e-6, (double)r->bytes / r->median_us * 1e-3, r->min_us,
                      r->max_us, r->iqr_pct, r->reps, r->threads, r->backend, worst_err(r));
    }
}

void measure_json(const struct measure_run *m, struct strbuf *out)
{
    strbuf_puts(out, "[");
    bool first = true;
    for (int i = 0; i < m->n; i++) {
        const struct measure_result *r = &m->r[i];
        if (!row_written(r))
            continue;
        strbuf_printf(out, "%s\n  {\"op\": \"%s\", \"dtype\": \"%s\"", first ? "" : ",", r->op,
                      precision_info(r->prec)->name);
        const char *dims[] = { "m", "n", "k" };
        const int64_t v[] = { r->m, r->n, r->k };
        for (int d = 0; d < 3; d++)
            if (v[d] > 0)
                strbuf_printf(out, ", \"%s\": %lld", dims[d], (long long)v[d]);
        strbuf_printf(out,
                      ", \"time_us\": %.6g, \"tflops\": %.6g, \"GBps\": %.6g, \"min_us\": %.6g, \"max_us\": %.6g, "
                      "\"iqr_pct\": %.3g, \"reps\": %d, \"threads\": %d, \"backend\": \"%s\", \"rel_err\": %.3g}",
                      r->median_us, (double)r->flops / r->median_us * 1e-6, (double)r->bytes / r->median_us * 1e-3,
                      r->min_us, r->max_us, r->iqr_pct, r->reps, r->threads, r->backend, worst_err(r));
        first = false;
    }
    strbuf_puts(out, "\n]\n");
}

static void human_bytes(char *buf, size_t n, int64_t b)
{
    if (b >= 1 << 20)
        snprintf(buf, n, "%g MiB", (double)b / (1 << 20));
    else
        snprintf(buf, n, "%g KiB", (double)b / 1024);
}

void measure_table(const struct measure_run *m, bool check_only, struct strbuf *out)
{
    const struct host_info *h = &m->host;
    strbuf_printf(out, "host: %s, %d CPUs at %.2f GHz, %.1f GiB", h->cpu_model, h->cpus, h->freq_GHz,
                  (double)h->mem_bytes / (1 << 30));
    for (int i = 0; i < h->n_caches; i++) {
        char sz[32];
        human_bytes(sz, sizeof sz, h->caches[i].size_bytes);
        strbuf_printf(out, "; L%d %s per %d CPU%s", h->caches[i].level, sz, h->caches[i].shared_cpus,
                      h->caches[i].shared_cpus > 1 ? "s" : "");
    }
    strbuf_printf(out, "\nBLAS: %s (%d threads); own kernels: %d threads\n", m->blas.name, m->blas.threads,
                  m->threads);
    if (m->warn[0])
        strbuf_printf(out, "warning: %s\n", m->warn);
    strbuf_printf(out, "\n%-10s %-9s %6s %6s %6s %-5s %-10s %-6s %-34s", "kernel", "dtype", "m", "n", "k",
                  "level", "backend", "check", "error (tolerance)");
    if (!check_only)
        strbuf_printf(out, " %11s %8s %8s %6s", "median_us", "TFLOP/s", "GB/s", "iqr%");
    strbuf_puts(out, "\n");
    for (int i = 0; i < m->n; i++) {
        const struct measure_result *r = &m->r[i];
        char dims[3][16];
        const int64_t v[] = { r->m, r->n, r->k };
        for (int d = 0; d < 3; d++) {
            dims[d][0] = '\0';
            if (v[d] > 0)
                snprintf(dims[d], sizeof dims[d], "%lld", (long long)v[d]);
        }
        strbuf_printf(out, "%-10s %-9s %6s %6s %6s %-5s %-10s %-6s ", r->op, precision_info(r->prec)->name, dims[0],
                      dims[1], dims[2], r->level, r->backend, status_names[r->status]);
        char errs[64] = "-";
        for (int c = 0, at = 0; c < r->n_checks && at < (int)sizeof errs; c++)
            at += snprintf(errs + at, sizeof errs - (size_t)at, "%s%.2e (%.0e)", c ? ", " : "", r->check[c].err,
                           r->check[c].tol);
        strbuf_printf(out, "%-34s", errs);
        if (!check_only && r->status == MEASURE_PASS)
            strbuf_printf(out, " %11.2f %8.4f %8.2f %6.1f", r->median_us, (double)r->flops / r->median_us * 1e-6,
                          (double)r->bytes / r->median_us * 1e-3, r->iqr_pct);
        if (r->status != MEASURE_PASS)
            strbuf_printf(out, "  %s", r->why);
        strbuf_puts(out, "\n");
    }
    strbuf_printf(out, "\n%d passed, %d failed, %d skipped\n", m->passed, m->failed, m->skipped);
}

/* The best rate of the passed kernels named op in prec (0: none), in
 * TFLOP/s or (bytes) GB/s; level: "" any. */
static double best(const struct measure_run *m, const char *op, int prec, const char *level, bool bytes)
{
    double b = 0;
    for (int i = 0; i < m->n; i++) {
        const struct measure_result *r = &m->r[i];
        if (r->status != MEASURE_PASS || strcmp(r->op, op) || r->prec != prec || r->median_us <= 0 ||
            (level[0] && strcmp(r->level, level)))
            continue;
        b = fmax(b, (double)(bytes ? r->bytes : r->flops) / r->median_us * (bytes ? 1e-3 : 1e-6));
    }
    return b;
}

void measure_host_chip(const struct measure_run *m, struct chip_config *c)
{
    const struct host_info *h = &m->host;
    chip_config_default(c);
    snprintf(c->name, sizeof c->name, "host");
    c->num_sa = c->num_vu = c->num_vu_ports = m->threads;
    c->sa_dim = 16;                   /* a register tile's width: pads little */
    c->freq_GHz = h->freq_GHz > 0.1 ? h->freq_GHz : 1.0;
    /* The memory roofline: the best rate a streaming kernel reached from
     * DRAM (a roofline's ceiling is the best measured, so no kernel's
     * efficiency comes out above 1). */
    static const struct { const char *op; int prec; } streams[] = {
        { "copy", PREC_FP64 }, { "triad", PREC_FP64 }, { "reduce", PREC_FP64 }, { "add", PREC_FP32 },
        { "mul", PREC_FP32 },  { "gemv", PREC_FP32 },  { "gemv", PREC_FP64 },
    };
    double dram = 0;
    for (size_t i = 0; i < sizeof streams / sizeof streams[0]; i++)
        dram = fmax(dram, best(m, streams[i].op, streams[i].prec, "DRAM", true));
    c->hbm_bw_GBps = dram > 0 ? dram : 10;
    c->ici_bw_GBps = c->hbm_bw_GBps;  /* no chip-to-chip link: collectives as memory copies */
    c->hbm_size_GB = (int)(h->mem_bytes >> 30) > 0 ? (int)(h->mem_bytes >> 30) : 1;
    int64_t llc = host_level_bytes(h, 3, m->threads);
    c->vmem_size_MB = llc >> 20 > 0 ? (int)(llc >> 20) : 1;
    /* The reference's VPU path for small matmuls counts a TPU's vector ops,
     * not a CPU's FMAs: off. sa_dim 16 keeps the matmul's vector-unit
     * accumulation (vu_mult) under the MXU time; a GEMV's one row is padded
     * to 16, which can make it look compute-bound (docs/validation.md). */
    c->use_vu_for_small_matmul = false;
    /* No power is measured: every power and energy-rate figure 0 (not the
     * default chip's), said in power_data_source. */
    for (size_t i = 0; i < chip_fields.n; i++) {
        const struct field_desc *f = &chip_fields.f[i];
        if (f->type == FT_DOUBLE && f->lo <= 0 && (strstr(f->key, "power") || strstr(f->key, "_W")))
            *(double *)((char *)c + f->offset) = 0;
    }
    for (int p = 0; p < PREC_COUNT; p++) {
        /* Formats the CPU computes in; an emulated one (fp8: dequantised,
         * then sgemm) is no unit of its own: it runs as fp32, as chipsim's
         * fallback says, so its rows are predicted at the fp32 peak. */
        bool emulated = p == PREC_FP8_E4M3 || p == PREC_FP8_E5M2;
        c->matrix_tflops[p] = emulated ? 0 : best(m, "gemm", p, "", false);
        /* A CPU's matrix and vector work run on the same SIMD FMA units: the
         * vector peak is the better of the FMA chain (plain C, as the
         * compiler vectorised it) and the BLAS's GEMM. */
        c->vector_tflops[p] = emulated ? 0 : fmax(best(m, "fma", p, "", false), c->matrix_tflops[p]);
    }
    /* Each cache is filled at the rate the triad reaches with its working
     * set one level out: L2 from L3; L3 from DRAM at the memory roofline's
     * rate. L1 is left to the BLAS's register blocking: as a tile store of
     * 32 KiB it made chipsim charge fp64 GEMMs twice their time (1024^3:
     * 68 ms predicted, 34 ms measured), which no fit can take back. */
    static const char *const lv_names[] = { "l1", "l2", "l3" };
    static const char *const out_level[] = { "L2", "L3", "DRAM" };
    c->memory_levels.n = 0;
    for (int lv = 2; lv <= 3; lv++) {
        int64_t bytes = host_level_bytes(h, lv, 1);
        double fill = lv == 3 ? c->hbm_bw_GBps : best(m, "triad", PREC_FP64, out_level[lv - 1], true);
        if (!bytes || fill <= 0 || c->memory_levels.n >= MEM_LEVELS_MAX)
            continue;
        int i = c->memory_levels.n++;
        snprintf(c->memory_levels.l[i].name, sizeof c->memory_levels.l[i].name, "%s", lv_names[lv - 1]);
        c->memory_levels.l[i].capacity_KiB = (double)bytes / 1024;
        c->memory_levels.l[i].fill_GBps = fill;
    }
    snprintf(c->hardware_source, sizeof c->hardware_source,
             "npusim measure on %s (%d threads; BLAS: %.80s): GEMM peaks per format, FMA-chain vector peaks, "
             "STREAM triad bandwidths, caches from sysfs",
             h->cpu_model, m->threads, m->blas.name);
    snprintf(c->power_data_source, sizeof c->power_data_source,
             "not measured: npusim measure times kernels only; set TDP_W and the power fields for energy figures");
    snprintf(c->embodied_carbon_source, sizeof c->embodied_carbon_source, "not known for this host");
    c->embodied_carbon_kgCO2 = 0;
}
