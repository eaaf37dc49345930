/* sweep.h — the reference's sweep driver helpers for LLMs (opsgen.md §13):
 * enumerate parallelism configs, apply one to a model config, map degrees to
 * physical torus axes, validate a run, and spell its directory name (pstr).
 *
 * Main data structure: struct parallel_cfg, one point of the sweep. */
#ifndef NPUSIM_SWEEP_H
#define NPUSIM_SWEEP_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "opsgen/opsgen.h"

struct parallel_cfg {
    int64_t num_chips, dp, tp, pp, ep, dp_dcn, tp_dcn, pp_dcn, ep_dcn;
};

/* §13.2 llama enumeration for one num_chips, including the >256-chip DCN rule
 * (quirk opsgen Q32); inference uses max_dp 1. Fills a malloc'ed array (caller frees)
 * in the reference's order and returns 0, or -1 with e set. */
int sweep_llm_configs(int64_t num_chips, bool training, struct parallel_cfg **out, size_t *n,
                      struct npu_err *e);
/* §13.2 MoE enumeration for one num_chips: (dp <= 1, tp, pp, ep, dp_dcn,
 * pp_dcn) with ep <= dp*tp, dp*tp/ep <= max_etp and the chip product
 * including ep (quirk opsgen Q33); >256 chips split over 1/2/4 pods as for LLMs. */
int sweep_moe_configs(int64_t num_chips, int64_t max_etp, struct parallel_cfg **out, size_t *n,
                      struct npu_err *e);
/* Every dp x tp x pp == num_chips (loops dp, tp, pp over the divisors in
 * ascending order), DCN degrees 1; GLIGEN only pp 1. Above 256 chips the
 * reference calls the enumeration for num_chips / {1, 2, 4} (quirk opsgen Q32).
 * Fills a malloc'ed array (caller frees). */
int sweep_diffusion_configs(int64_t num_chips, bool gligen, struct parallel_cfg **out, size_t *n,
                            struct npu_err *e);
/* §13.5 step 2: degrees, microbatch sizes, global batch size, chip count. */
void sweep_apply_parallel(struct model_config *m, const struct parallel_cfg *p, int64_t gbs);
/* §13.4: number of torus axes per parallelism for chip "2".."6p". */
void sweep_map_axes_llm(const char *chip_version, struct model_config *m);
/* §13.3 for one phase (PHASE_PREFILL / PHASE_DECODE); a run is skipped only
 * when both phases are invalid. Returns true if valid, else false and a
 * reason in why. */
/* The structural rules every LLM-like sweep shares (pipeline deeper than the
 * layers, v2/v3 3-way parallelism, ICI pod size per chip version, batch too
 * small for the data/pipeline degrees); false + why when one fails. */
bool sweep_validate_structure(const struct model_config *m, const char *chip_version, char *why,
                              size_t whylen);
bool sweep_validate_llm(const struct model_config *m, const struct opsgen_links *l,
                        const struct profile *prof, enum phase ph, double oom_factor,
                        char *why, size_t whylen);
/* §13.5 step 1: "dp1-tp4-pp1-dpdcn1-tpdcn1-ppdcn1-bs16". */
void sweep_pstr_llm(const struct parallel_cfg *p, int64_t gbs, char *buf, size_t n);

#endif
