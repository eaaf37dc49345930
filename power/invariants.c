/* invariants.c — physical checks on a timed trace (see invariants.h). */
#include "power/invariants.h"

#include <math.h>
#include <stdarg.h>
#include <string.h>

#include "power/powercap.h"

#define EPS 1e-6   /* relative slack: times are whole ns */

static void add(struct invariant_warnings *w, const char *fmt, ...)
{
    if (w->n >= INVARIANT_MAX)
        return;
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(w->msg[w->n++], INVARIANT_LEN, fmt, ap);
    va_end(ap);
}

/* Executions of ops whose format a unit ran as another, per (unit, format,
 * format run), in first-seen order: a handful at most. */
#define FALLBACK_MAX 8
struct fallback {
    int n;
    int8_t unit[FALLBACK_MAX], prec[FALLBACK_MAX], ran[FALLBACK_MAX];
    int64_t count[FALLBACK_MAX];
};

static void fallback_add(struct fallback *fb, int unit, int prec, int ran, int64_t count)
{
    int i = 0;
    while (i < fb->n && !(fb->unit[i] == unit && fb->prec[i] == prec && fb->ran[i] == ran))
        i++;
    if (i == fb->n) {
        if (fb->n == FALLBACK_MAX)
            return;
        fb->unit[i] = (int8_t)unit, fb->prec[i] = (int8_t)prec, fb->ran[i] = (int8_t)ran, fb->count[i] = 0;
        fb->n++;
    }
    fb->count[i] += count;
}

static bool in_phase(const struct op *op, enum phase ph) { return ph == PHASE_NONE || op->phase == ph; }

/* Per-op checks; the worst offender of each kind is named. */
static void check_ops(const struct trace *t, enum phase ph, const struct chip_config *ch,
                      const struct profile *prof, double cap,
                      const char *what, struct invariant_warnings *w, double *energy_J, double *time_s)
{
    double peak_per_ns = 2.0 * (double)ch->sa_dim * (double)ch->sa_dim * (double)ch->num_sa * ch->freq_GHz;
    const struct op *util_op = NULL, *bw_op = NULL, *pow_op = NULL;
    struct fallback fb = { 0 };                               /* formats run as others */
    double peaks[PREC_COUNT] = {0};                           /* matrix peak per format run, per ns; 0: not yet */
    double util_max = 1.0 + EPS, bw_max = 1.0 + EPS, pow_max = cap * (1.0 + EPS);
    int64_t over_cap = 0;
    for (size_t i = 0; i < t->n; i++) {
        const struct op *op = &t->ops[i];
        if (!in_phase(op, ph) || op->exe_ns <= 0)
            continue;
        /* matmuls and convolutions only: a flash attention's FLOPs include
         * its softmax, which the vector units compute beside the MXU */
        bool mxu = op->opcode_type == OPC_EINSUM || op->opcode_type == OPC_CONV2D;
        /* against the peak of the format the op ran in, where one applied
         * (an op read back from CSV: the format its tensors give) */
        int prec = op->prec, ran = op->prec_ran;
        if (ran < 0 && !prof->chip_precisions_ignored)
            chipsim_op_format(op, ch, &prec, &ran);
        double peak = peak_per_ns;
        if (ran >= 0 && op->type == OP_MXU) {
            if (peaks[ran] == 0)
                peaks[ran] = chip_unit_peak_tflops(ch, UNIT_MATRIX, (enum precision)ran) * 1e3;
            peak = peaks[ran];
        }
        double u = mxu ? (double)op->flops / ((double)op->exe_ns * peak) : 0.0;
        if (prec >= 0 && ran >= 0 && prec != ran)
            fallback_add(&fb, op->type == OP_MXU ? UNIT_MATRIX : UNIT_VECTOR, prec, ran, op->count);
        if (u > util_max) util_max = u, util_op = op;
        if (op->hbm_bw_util > bw_max) bw_max = op->hbm_bw_util, bw_op = op;
        if (!op->energy_done)
            continue;
        double e = op_static_energy_J(op) + op_dynamic_energy_J(op), s = (double)op->exe_ns / 1e9;
        *energy_J += e * (double)op->count;
        *time_s += s * (double)op->count;
        if (cap > 0 && e / s > cap * (1.0 + EPS)) {
            over_cap += op->count;
            if (e / s > pow_max) pow_max = e / s, pow_op = op;
        }
    }
    static const char *const unit_text[2] = { "matrix", "vector" };
    for (int i = 0; i < fb.n; i++)
        add(w, "%s: %lld op executions in %s ran as %s on the %s units (the chip declares no %s_tflops.%s)", what,
            (long long)fb.count[i], precision_info((enum precision)fb.prec[i])->name,
            precision_info((enum precision)fb.ran[i])->name, unit_text[fb.unit[i]], unit_text[fb.unit[i]],
            precision_info((enum precision)fb.prec[i])->name);
    if (util_op)
        add(w, "%s: op \"%s\" computes at %.3g x the chip's peak FLOP rate (utilisation above 1)", what,
            util_op->description, util_max);
    if (bw_op)
        add(w, "%s: op \"%s\" uses %.3g x the HBM bandwidth (utilisation above 1)", what, bw_op->description,
            bw_max);
    if (pow_op)
        add(w, "%s: %lld op executions draw more than the power cap %.0f W (largest %.0f W, \"%s\")", what,
            (long long)over_cap, cap, pow_max, pow_op->description);
}

void invariants_check(const struct trace *t, enum phase ph, const struct chip_config *ch,
                      const struct profile *prof, const char *what, struct invariant_warnings *w)
{
    double cap = power_cap_of(ch), energy_J = 0, time_s = 0;
    check_ops(t, ph, ch, prof, cap, what, w, &energy_J, &time_s);
    if (time_s > 0) {
        double avg_W = energy_J / time_s;
        if (cap > 0 && avg_W > cap * (1.0 + EPS))
            add(w, "%s: average power %.1f W per chip exceeds the chip's power cap %.0f W (power_cap_W, "
                   "else TDP_W)", what, avg_W, cap);
        if (ch->idle_power_W > 0 && avg_W < ch->idle_power_W * (1.0 - EPS))
            add(w, "%s: average power %.1f W per chip is below the chip's idle power %.0f W", what, avg_W,
                ch->idle_power_W);
        if (prof->rescale_time_to_1_7GHz && fabs(ch->freq_GHz - 1.7) > 1e-9)
            add(w, "%s: the energy pass rescaled every time from the chip's %.3g GHz to 1.7 GHz, so times "
                   "differ with and without it", what, ch->freq_GHz);
    }
}

void invariants_print(const struct invariant_warnings *w, const char *cmd, FILE *f)
{
    for (int i = 0; i < w->n; i++)
        fprintf(f, "npusim %s: warning: %s\n", cmd, w->msg[i]);
}
