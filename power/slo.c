/* slo.c — SLO reference and per-version selection (see slo.h). Every "best"
 * keeps the first point among equals, as Python's min()/max() do. */
#include "power/slo.h"

#include <ctype.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

/* $ per chip-hour (on-demand), by version. */
static const struct {
    const char *version;
    double dollars;
} cost_table[] = {
    { "2", 1.2375 }, { "3", 2 }, { "4", 3.22 }, { "5p", 4.2 }, { "6p", 9.45 }, { "5e", 1.2 }, { "6e", 2.7 },
};

static bool has(const char *lower, const char *what) { return strstr(lower, what) != NULL; }

enum slo_class slo_model_class(const char *model)
{
    char m[256];
    size_t i = 0;
    for (; model[i] && i < sizeof m - 1; i++)
        m[i] = (char)tolower((unsigned char)model[i]);
    m[i] = '\0';
    if (has(m, "llama") || has(m, "llm") || (has(m, "deepseek") && (has(m, "236b") || has(m, "671b"))))
        return SLO_LLM;
    if (has(m, "dlrm"))
        return SLO_DLRM;
    if (has(m, "gligen") || has(m, "dit"))
        return SLO_DIFFUSION;
    return SLO_UNKNOWN;
}

static int field(const char *tok, const char *prefix, int64_t *v)
{
    size_t n = strlen(prefix);
    if (strncmp(tok, prefix, n) || !tok[n])
        return -1;
    char *end;
    long long x = strtoll(tok + n, &end, 10);
    if (*end || x <= 0)
        return -1;
    *v = x;
    return 0;
}

int slo_parse_pstr(const char *s, struct slo_pconfig *p)
{
    char buf[256], *tok[10], *save = NULL;
    int n = 0;
    if (strlen(s) >= sizeof buf)
        return -1;
    strcpy(buf, s);
    for (char *t = strtok_r(buf, "-", &save); t; t = strtok_r(NULL, "-", &save)) {
        if (n == 10)
            return -1;
        tok[n++] = t;
    }
    p->ep = p->ep_dcn = 1;
    if (n == 7)
        return field(tok[0], "dp", &p->dp) || field(tok[1], "tp", &p->tp) || field(tok[2], "pp", &p->pp) ||
               field(tok[3], "dpdcn", &p->dp_dcn) || field(tok[4], "tpdcn", &p->tp_dcn) ||
               field(tok[5], "ppdcn", &p->pp_dcn) || field(tok[6], "bs", &p->bs) ? -1 : 0;
    if (n == 9)
        return field(tok[0], "dp", &p->dp) || field(tok[1], "tp", &p->tp) || field(tok[2], "pp", &p->pp) ||
               field(tok[3], "ep", &p->ep) || field(tok[4], "dpdcn", &p->dp_dcn) ||
               field(tok[5], "tpdcn", &p->tp_dcn) || field(tok[6], "ppdcn", &p->pp_dcn) ||
               field(tok[7], "epdcn", &p->ep_dcn) || field(tok[8], "bs", &p->bs) ? -1 : 0;
    return -1;
}

bool slo_same_key(const struct slo_pconfig *a, const struct slo_pconfig *b)
{
    return a->dp == b->dp && a->tp == b->tp && a->pp == b->pp && a->ep == b->ep && a->dp_dcn == b->dp_dcn &&
           a->pp_dcn == b->pp_dcn && a->bs == b->bs;
}

int slo_num_chips(const char *model, const struct slo_pconfig *p, int64_t *chips)
{
    if (slo_model_class(model) == SLO_DLRM) {
        if (p->dp != p->tp || p->pp != 1)
            return -1;
        *chips = p->dp * p->dp_dcn;
        return 0;
    }
    *chips = p->dp * p->tp * p->pp * p->dp_dcn * p->tp_dcn * p->pp_dcn * p->ep * p->ep_dcn;
    return 0;
}

double slo_cost_per_chip_hour(const char *version)
{
    for (size_t i = 0; i < sizeof cost_table / sizeof cost_table[0]; i++)
        if (!strcmp(cost_table[i].version, version))
            return cost_table[i].dollars;
    return -1;
}

int slo_metrics_for(const char *model, bool training, const char *phase, struct slo_metrics *m)
{
    switch (slo_model_class(model)) {
    case SLO_LLM:
        if (training) {
            /* The reference uses the iteration time as "throughput" too. */
            *m = (struct slo_metrics){ "total_execution_time_ns", "total_execution_time_ns", false,
                                       "avg_power_efficiency_iteration_per_joule" };
            return 0;
        }
        *m = (struct slo_metrics){ strcmp(phase, "decode") ? "TTFT_sec" : "TPOT_ms_request",
                                   "throughput_tokens_per_sec", true, "avg_power_efficiency_tkn_per_joule" };
        return 0;
    case SLO_DIFFUSION:
        *m = (struct slo_metrics){ "latency_step_sec", "throughput_step_per_sec_per_request", true,
                                   "avg_power_efficiency_req_per_joule" };
        return 0;
    case SLO_DLRM:
        *m = (struct slo_metrics){ "latency_ns", "throughput_requests_per_sec", true,
                                   "avg_power_efficiency_req_per_joule" };
        return 0;
    default:
        return -1;
    }
}

int64_t slo_reference_batch(const char *model, bool training)
{
    if (training)
        return 32;
    return slo_model_class(model) == SLO_DLRM ? 1024 : 1;
}

/* Index of the lowest latency among points passing keep(), or -1. */
static int min_latency(const struct slo_point *p, int n, bool (*keep)(const struct slo_point *, const void *),
                       const void *arg)
{
    int best = -1;
    for (int i = 0; i < n; i++)
        if (keep(&p[i], arg) && (best < 0 || p[i].latency < p[best].latency))
            best = i;
    return best;
}

struct ref_filter {
    int64_t bs;                  /* -1: any */
    int64_t max_chips;           /* -1: any (sim_config chips) */
    int64_t max_pstr_chips;      /* -1: any */
    bool drop_oom;
};

static bool ref_keep(const struct slo_point *p, const void *arg)
{
    const struct ref_filter *f = arg;
    return (f->bs < 0 || p->bs == f->bs) && (!f->drop_oom || !p->oom) &&
           (f->max_chips < 0 || p->num_chips <= f->max_chips) &&
           (f->max_pstr_chips < 0 || p->pstr_chips <= f->max_pstr_chips);
}

static int64_t min_chips(const struct slo_point *p, int n, const struct ref_filter *f, bool *found)
{
    int64_t m = 0;
    *found = false;
    for (int i = 0; i < n; i++)
        if (ref_keep(&p[i], f) && (!*found || p[i].num_chips < m)) {
            m = p[i].num_chips;
            *found = true;
        }
    return m;
}

int slo_reference(const struct slo_point *p, int n, int64_t ref_bs)
{
    int64_t bs = ref_bs;
    bool any = false;
    for (int i = 0; i < n && !any; i++)
        any = p[i].bs == bs;
    if (!any)
        bs = -1;   /* no point at the reference batch: the reference takes every batch */
    struct ref_filter f = { bs, -1, -1, true };
    bool found;
    int64_t m = min_chips(p, n, &f, &found);
    if (found) {
        f.max_chips = m;
        return min_latency(p, n, ref_keep, &f);
    }
    /* Every candidate is out of memory: the reference re-reads batch-1 points. */
    struct ref_filter b1 = { 1, -1, -1, true };
    m = min_chips(p, n, &b1, &found);
    if (!found)
        return -1;
    struct ref_filter b1all = { 1, -1, m, false };
    return min_latency(p, n, ref_keep, &b1all);
}

double slo_eff(const struct slo_point *p) { return p->tput / (double)p->num_chips; }

double slo_good_per_dollar(const struct slo_point *p, double cost_per_chip_hour)
{
    double per_sec = cost_per_chip_hour / 3600 * (double)p->num_chips;
    return slo_eff(p) / per_sec;
}

int slo_select(const struct slo_point *p, int n, int64_t bs_filter, int64_t max_chips, double slo,
               bool tput_max, double cost_per_chip_hour, struct slo_choice *c)
{
    memset(c, 0, sizeof *c);
    c->min_latency = c->min_chip = c->optimal = c->energy = c->cost = c->bad = -1;
    bool *mem_ok = calloc(n > 0 ? (size_t)n : 1, sizeof *mem_ok), *ok = calloc(n > 0 ? (size_t)n : 1, sizeof *ok);
    if (!mem_ok || !ok)
        abort();
    for (int i = 0; i < n; i++) {
        mem_ok[i] = (bs_filter < 0 || p[i].bs == bs_filter) && (max_chips <= 0 || p[i].pstr_chips <= max_chips) &&
                    !p[i].oom;
        ok[i] = mem_ok[i] && p[i].latency <= slo;
        if (ok[i] && (!c->any_ok || p[i].num_chips < c->min_num_chips))
            c->min_num_chips = p[i].num_chips;
        c->any_ok |= ok[i];
        if (mem_ok[i] && (c->min_latency < 0 || p[i].latency < p[c->min_latency].latency))
            c->min_latency = i;
    }
    int rc = 0;
    if (c->any_ok) {
        double best_min = 0, best_opt = 0, best_energy = 0, best_cost = 0;
        for (int i = 0; i < n; i++) {
            if (mem_ok[i]) {
                double g = slo_good_per_dollar(&p[i], cost_per_chip_hour);
                if (c->cost < 0 || g > best_cost)
                    c->cost = i, best_cost = g;
            }
            if (!ok[i])
                continue;
            double eff = slo_eff(&p[i]);
            bool better_opt = c->optimal < 0 || (tput_max ? eff > best_opt : eff < best_opt);
            if (better_opt)
                c->optimal = i, best_opt = eff;
            if (p[i].num_chips == c->min_num_chips &&
                (c->min_chip < 0 || (tput_max ? eff > best_min : eff < best_min)))
                c->min_chip = i, best_min = eff;
            if (isnan(p[i].energy)) {
                c->bad = i;
                rc = -1;
                break;
            }
            double jpg = 1 / p[i].energy;   /* joules per unit of work, lower is better */
            if (c->energy < 0 || jpg < best_energy)
                c->energy = i, best_energy = jpg;
        }
    }
    free(mem_ok);
    free(ok);
    return rc;
}
