/* run_notes.c — what ran and what it assumed, as a summary's last lines
 * (see run_notes.h). No data structure of its own. */
#include "study/run/run_notes.h"

#include <string.h>

#include "chipsim/chip.h"

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
    int64_t tp = c->model.tensor_parallelism_degree, domain = chip_link_domain(&c->chip);
    if (domain > 0 && tp > domain && prof->collectives_ignore_link_domain)
        fprintf(out, "  assumes       tensor parallelism over %lld %s at %s speed; past the %s domain of %lld %s "
                     "this is optimistic\n", (long long)tp, v->units, v->link, v->link, (long long)domain,
                domain == 1 ? v->unit : v->units);
    else if (domain > 0 && tp > domain)   /* opsgen/gen.h gen_axes */
        fprintf(out, "  network       tensor parallelism over %lld %s spans %s domains of %lld: its collectives run on "
                     "the scale-out network (dcn_bw_GBps %g GB/s, dcn_latency_ns %lld per step)\n", (long long)tp,
                v->units, v->link, (long long)domain, c->chip.dcn_bw_GBps, (long long)c->chip.dcn_latency_ns);
}

/* A number format field; a model without it (its table does not apply)
 * computes in bf16, as opsgen's formats take it. */
static const char *format_of(const char *field) { return field[0] ? field : "bf16"; }

void run_notes_print(const struct loaded_config *c, const struct profile *prof, const char *pg, const char *dvfs,
                     FILE *out)
{
    const struct model_config *m = &c->model;
    fprintf(out, "  ran with      profile %s; ", prof->name);
    if (pg)
        fprintf(out, "power gating %s, DVFS %s; ", pg, dvfs ? dvfs : "None");
    else
        fputs("no energy pass; ", out);
    fprintf(out, "weights %s, activations %s", format_of(m->weight_dtype), format_of(m->activation_dtype));
    if (!strcmp(m->model_type, "llm"))
        fprintf(out, ", KV cache %s", format_of(m->kv_cache_dtype));
    fputc('\n', out);
    const char *cal = c->chip.calibration_source;
    if (!cal[0])
        fputs("  calibration   none\n", out);
    else if (prof->mxu_efficiency_ignored)
        fprintf(out, "  calibration   not applied under profile %s (the chip's: %s)\n", prof->name, cal);
    else
        fprintf(out, "  calibration   %s\n", cal);
    assumptions(c, prof, out);
}
