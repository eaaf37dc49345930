/* run_notes.c — what ran and what it assumed, as a summary's last lines
 * (see run_notes.h). No data structure of its own. */
#include "study/run/run_notes.h"

#include <string.h>

#include "chipsim/chip.h"
#include "traces/precision.h"

/* Whether the chip's matmuls reach their whole peak: no mxu_efficiency
 * (or the profile ignores it) and a gemm efficiency curve left at its
 * defaults (or the profile applies none). */
static bool gemm_at_peak(const struct chip_config *ch, const struct profile *prof)
{
    if (!prof->mxu_efficiency_ignored && ch->mxu_efficiency < 1.0)
        return false;
    if (prof->chip_precisions_ignored)
        return true;
    const struct kernel_efficiency *ke = &ch->kernel_eff[KC_gemm];
    if (ke->e_max < 1.0 || ke->n_half > 0 || ke->t0_ns > 0)
        return false;
    for (int p = 0; p < PREC_COUNT; p++)
        if ((ke->by_prec[p] > 0 && ke->by_prec[p] < 1.0) || ke->t0_by_prec[p] > 0)
            return false;
    return true;
}

static void assumptions(const struct loaded_config *c, const struct profile *prof, FILE *out)
{
    const struct chip_vocab *v = chip_vocab(&c->chip);
    if (gemm_at_peak(&c->chip, prof))
        fprintf(out, "  assumes       GEMMs at 100%% of the %s (%s)\n", v->matrix_peak,
                prof->chip_precisions_ignored ? "the neusim profile applies no efficiency"
                : v->gpu ? "kernel_efficiency not set" : "mxu_efficiency and kernel_efficiency not set");
    /* the groups whose collectives opsgen prices by the link domain (opsgen/gen.h gen_axes) */
    const struct { const char *name; int64_t deg; } groups[] = {
        { "tensor", c->model.tensor_parallelism_degree },
        { "expert", c->model.expert_parallelism_degree },
    };
    int64_t domain = chip_link_domain(&c->chip);
    for (size_t i = 0; i < sizeof groups / sizeof groups[0]; i++) {
        int64_t d = groups[i].deg;
        if (domain <= 0 || d <= domain)
            continue;
        if (prof->collectives_ignore_link_domain)
            fprintf(out, "  assumes       %s parallelism over %lld %s at %s speed; past the %s domain of %lld %s "
                         "this is optimistic\n", groups[i].name, (long long)d, v->units, v->link, v->link,
                    (long long)domain, domain == 1 ? v->unit : v->units);
        else
            fprintf(out, "  network       %s parallelism over %lld %s spans %s domains of %lld: its collectives run on "
                         "the scale-out network (dcn_bw_GBps %g GB/s, dcn_latency_ns %lld per step)\n", groups[i].name,
                    (long long)d, v->units, v->link, (long long)domain, c->chip.dcn_bw_GBps,
                    (long long)c->chip.dcn_latency_ns);
    }
}

/* A number format field; a model without it (its table does not apply)
 * computes in bf16, as opsgen's formats take it. */
static const char *format_of(const char *field) { return field[0] ? field : "bf16"; }

/* ---- what the kernels ran at (physical profile) ---- */

/* Which kernel class and format pairs t's ops ran. */
static void used_kernels(const struct trace *t, bool used[KC_COUNT][PREC_COUNT])
{
    memset(used, 0, sizeof(bool) * KC_COUNT * PREC_COUNT);
    for (size_t i = 0; t && i < t->n; i++) {
        const struct op *o = &t->ops[i];
        if (o->kernel_class >= 0 && o->kernel_class < KC_COUNT && o->prec >= 0 && o->prec < PREC_COUNT)
            used[o->kernel_class][o->prec] = true;
    }
}

/* Whether the chip gives the class (in format p) anything but the roofline. */
static bool calibrated(const struct kernel_efficiency *ke, int p)
{
    return ke->by_prec[p] > 0 || ke->e_max < 1.0 || ke->n_half > 0 || ke->t0_ns > 0 || ke->t0_by_prec[p] > 0;
}

static double e_of(const struct kernel_efficiency *ke, int p) { return ke->by_prec[p] > 0 ? ke->by_prec[p] : ke->e_max; }

static void kernels_line(const struct loaded_config *c, const struct trace *t, FILE *out)
{
    bool used[KC_COUNT][PREC_COUNT];
    used_kernels(t, used);
    const struct chip_config *ch = &c->chip;
    int n = 0;
    for (int k = 0; k < KC_COUNT; k++)
        for (int p = 0; p < PREC_COUNT; p++)
            if (used[k][p]) {
                const struct kernel_efficiency *ke = chip_kernel_eff(ch, (enum kernel_class)k, p);
                fprintf(out, "%s%s %s %.3g", n++ ? ", " : "  kernels       ", kernel_class_name((enum kernel_class)k),
                        precision_info((enum precision)p)->name, e_of(ke, p));
                if (ke->n_half > 0)
                    fprintf(out, " (n_half %.3g)", ke->n_half);
            }
    if (!n)
        return;
    fputs(" of the roofline\n", out);
    if (ch->kernel_launch_ns || ch->graph_kernel_ns)
        fprintf(out, "  launches      at least %lld ns a kernel, %lld in captured graphs (graph_capture %s)\n",
                (long long)ch->kernel_launch_ns, (long long)ch->graph_kernel_ns, ch->graph_capture);
    if (ch->step_overhead_ns || ch->layer_overhead_ns || ch->request_overhead_ns)
        fprintf(out, "  framework     %lld ns per forward pass + %lld ns per layer + %lld ns per sequence\n",
                (long long)ch->step_overhead_ns, (long long)ch->layer_overhead_ns, (long long)ch->request_overhead_ns);
    bool coll = false;
    for (int p = 0; p < PREC_COUNT; p++)
        coll |= used[KC_collective][p];
    if (coll) {   /* the latency a collective pays beside its bytes (opsgen/builders.c, set_coll_ns) */
        fprintf(out, "  collectives   %s: %lld ns a latency step + %lld ns a phase (ici_latency_ns, collective_base_ns)",
                ch->collective_algorithm, (long long)ch->ici_latency_ns, (long long)ch->collective_base_ns);
        if (ch->collective_direct_max_bytes > 0)   /* the engines' custom kernels below a size */
            fprintf(out, "; direct up to %lld bytes (collective_direct_max_bytes)", (long long)ch->collective_direct_max_bytes);
        fputc('\n', out);
    }
}

bool run_notes_uncalibrated(const struct loaded_config *c, const struct profile *prof, const struct trace *t,
                            char *buf, size_t n)
{
    buf[0] = '\0';
    if (prof->chip_precisions_ignored || !t)
        return false;
    /* Only a chip calibrated kernel by kernel: one fitted end to end
     * (mxu_efficiency, a TPU's MFU fit) covers its kernels as a whole. */
    bool any = false;
    for (int k = 0; k < KC_COUNT; k++)
        for (int p = 0; p < PREC_COUNT; p++)
            any |= calibrated(chip_kernel_eff(&c->chip, (enum kernel_class)k, p), p);
    if (!any)
        return false;
    bool used[KC_COUNT][PREC_COUNT];
    used_kernels(t, used);
    size_t len = 0;
    /* Collectives are priced by the links (bandwidth, per-step latency), which
     * the chip states; their efficiency is an option, not a gap. */
    for (int k = 0; k < KC_COUNT; k++)
        for (int p = 0; p < PREC_COUNT && k != KC_collective; p++)
            if (used[k][p] && !calibrated(chip_kernel_eff(&c->chip, (enum kernel_class)k, p), p) && len + 40 < n)
                len += (size_t)snprintf(buf + len, n - len, "%s%s %s", len ? ", " : "",
                                        kernel_class_name((enum kernel_class)k), precision_info((enum precision)p)->name);
    return len > 0;
}

const char *run_notes_calibration(const struct loaded_config *c, const struct profile *prof,
                                  char buf[RUN_NOTES_CALIBRATION_MAX])
{
    const char *cal = c->chip.calibration_source;
    if (!cal[0])
        snprintf(buf, RUN_NOTES_CALIBRATION_MAX, "none");
    else if (prof->mxu_efficiency_ignored)
        snprintf(buf, RUN_NOTES_CALIBRATION_MAX, "not applied under profile %s (the chip's: %s)", prof->name, cal);
    else
        snprintf(buf, RUN_NOTES_CALIBRATION_MAX, "%s", cal);
    return buf;
}

void run_notes_print(const struct loaded_config *c, const struct profile *prof, const char *pg, const char *dvfs,
                     const struct trace *t, FILE *out)
{
    const struct model_config *m = &c->model;
    fprintf(out, "  ran with      profile %s; ", prof->name);
    if (pg)
        fprintf(out, "power gating %s, DVFS %s; ", pg, dvfs ? dvfs : "None");
    else
        fputs("no energy pass; ", out);
    fprintf(out, "weights %s", format_of(m->weight_dtype));
    if (m->expert_weight_dtype[0] && strcmp(m->expert_weight_dtype, "same"))   /* e.g. gpt-oss's MXFP4 experts */
        fprintf(out, " (experts %s)", m->expert_weight_dtype);
    fprintf(out, ", activations %s", format_of(m->activation_dtype));
    if (!strcmp(m->model_type, "llm"))
        fprintf(out, ", KV cache %s", format_of(m->kv_cache_dtype));
    fputc('\n', out);
    char cal[RUN_NOTES_CALIBRATION_MAX];
    fprintf(out, "  calibration   %s\n", run_notes_calibration(c, prof, cal));
    if (!prof->chip_precisions_ignored && t)
        kernels_line(c, t, out);
    assumptions(c, prof, out);
}
