/* slo.h — SLO-driven design-space selection over carbon results (power.md §9).
 *
 * The CLI reads one struct slo_point per stats file (chips, OOM flag, the
 * latency, throughput and energy-efficiency metrics of the model class); this
 * module picks the reference configuration that defines the SLO and, per chip
 * version, the minimum-chip, throughput-optimal, energy-optimal and cost-optimal
 * configurations, with the reference's tie rule (first wins) and its quirks
 * (power Q26: cost divides by the chip count twice and ignores the SLO filter).
 * Model classes, parallelism strings and the $/chip-hour table live here too. */
#ifndef NPUSIM_SLO_H
#define NPUSIM_SLO_H

#include <stdbool.h>
#include <stdint.h>

enum slo_class { SLO_UNKNOWN, SLO_LLM, SLO_DIFFUSION, SLO_DLRM };

/* By model name, as the reference: "llama"/"llm", or deepseek 236b/671b → LLM;
 * "gligen"/"dit" → diffusion; "dlrm" → DLRM. */
enum slo_class slo_model_class(const char *model);

/* dp{}-tp{}-pp{}[-ep{}]-dpdcn{}-tpdcn{}-ppdcn{}[-epdcn{}]-bs{} */
struct slo_pconfig {
    int64_t dp, tp, pp, ep, dp_dcn, tp_dcn, pp_dcn, ep_dcn, bs;
};
int slo_parse_pstr(const char *s, struct slo_pconfig *p);   /* 0, or -1 if not a pstr */
/* The reference indexes results by (dp, tp, pp, ep, dp_dcn, pp_dcn, bs). */
bool slo_same_key(const struct slo_pconfig *a, const struct slo_pconfig *b);
/* Product of all degrees; DLRM: dp*dp_dcn (-1 unless dp == tp and pp == 1). */
int slo_num_chips(const char *model, const struct slo_pconfig *p, int64_t *chips);

/* $ per chip-hour of a version ("5p"); -1 if the table has none. */
double slo_cost_per_chip_hour(const char *version);

struct slo_metrics {
    const char *latency;         /* smaller is better */
    const char *tput;            /* throughput metric */
    bool tput_max;               /* larger throughput is better (false for training) */
    const char *energy;          /* key in carbon_and_energy_stats["1"], larger is better */
};
/* -1 for an unknown model class. phase: "prefill" / "decode" (LLM inference). */
int slo_metrics_for(const char *model, bool training, const char *phase, struct slo_metrics *m);
/* Batch size of the reference configuration: 32 training, 1024 DLRM, else 1. */
int64_t slo_reference_batch(const char *model, bool training);

struct slo_point {
    int64_t bs;                  /* from the pstr */
    int64_t pstr_chips;          /* from the pstr */
    int64_t num_chips;           /* sim_config.num_chips */
    bool oom;
    double latency, tput;
    double energy;               /* avg_power_efficiency at lifetime "1"; NaN if absent */
};

/* Index of the reference point among the v5p points, or -1 if none:
 * batch ref_bs (any batch if there is none), no OOM, fewest chips, lowest
 * latency; when every such point is OOM, the fewest chips among batch-1
 * non-OOM points bounds a batch-1 search that includes OOM points. */
int slo_reference(const struct slo_point *p, int n, int64_t ref_bs);

/* Goodput per chip, and goodput per dollar (chips counted twice, power Q26). */
double slo_eff(const struct slo_point *p);
double slo_good_per_dollar(const struct slo_point *p, double cost_per_chip_hour);

struct slo_choice {
    bool any_ok;                 /* some point meets the SLO */
    int min_latency;             /* !any_ok: the non-OOM point of lowest latency, or -1 */
    int64_t min_num_chips;
    int min_chip, optimal, energy, cost;   /* indices into the points */
    int bad;                     /* on error: the point whose energy metric is missing */
};

/* One version: points with bs == bs_filter (if >= 0) and pstr_chips <= max_chips
 * (if > 0), not OOM, latency <= slo. Returns -1 if a needed energy value is NaN. */
int slo_select(const struct slo_point *p, int n, int64_t bs_filter, int64_t max_chips, double slo,
               bool tput_max, double cost_per_chip_hour, struct slo_choice *c);

#endif
