/* report.h — end-to-end statistics of an LLM inference run (opsgen.md §12.2).
 *
 * From a timed trace (prefill + decode ops) and the configs, computes the
 * per-phase aggregates (power/stats.h), TTFT, TPOT, throughputs, memory
 * footprint and OOM flags exactly as the reference, and renders them as the
 * reference's `_prefill.json` / `_decode.json` objects. */
#ifndef NPUSIM_STUDY_REPORT_H
#define NPUSIM_STUDY_REPORT_H

#include <stdbool.h>
#include <stdio.h>

#include <cjson/cJSON.h>

#include "chipsim/chip.h"
#include "opsgen/model.h"
#include "power/invariants.h"
#include "study/run/stats.h"
#include "traces/op.h"
#include "traces/profile.h"

struct llm_report {
    struct trace_stats prefill, decode;
    double prefill_tokens_per_sec;
    double TTFT_sec;                   /* with the framework overhead of one forward pass */
    int64_t framework_overhead_ns;     /* per forward pass (prefill, decode step): chip.h */
    int64_t params_total, params_active;   /* opsgen_model_params (-1: past int64) */
    double TPOT_ms_request;
    double decode_tokens_per_sec;
    double decode_tokens_per_sec_request;
    double prefill_mem_GiB, decode_mem_GiB;
    bool prefill_oom, decode_oom;
    bool energy_done;
    double prefill_energy_J, decode_energy_J;   /* count-weighted op energies */
    double prefill_energy_per_token_J, decode_energy_per_token_J;
    /* npusim's own keys (left out where the JSON must list only the reference's) */
    bool ext;
    double prefill_avg_power_W, decode_avg_power_W;   /* per chip: energy over the phase's chip time */
    double power_cap_W;                                /* power_cap_of(chip) */
    /* The batch the throughputs count: every microbatch in the pipeline at
     * once (microbatch x pp x pp_dcn), per DCN data-parallel replica. */
    int64_t batch, microbatches, dp_dcn;
    /* The chips one such batch runs on (num_chips / dp_dcn): the trace is one
     * chip's, so the summary's energy per token is its energy times these. */
    int64_t replica_chips;
    int64_t busy_ns;             /* that batch's prefill and decode chip time, host time included */
    double e2e_tokens_per_sec;   /* that batch's output tokens at the prefill and decode rates */
    double e2e_energy_per_token_J;   /* both phases, every chip of the replica, per output token */
    /* Physical invariants violated (power/invariants.h), per phase, when
     * llm_report_check ran (the run's summary and files; not the reference's
     * results trees, which keep its bytes); listed under "warnings" in the JSON. */
    struct invariant_warnings warn[2];                 /* [0] prefill, [1] decode */
};

/* A model's per-chip memory footprint of one phase in bytes (the LLM
 * formula, or DeepSeek's). */
typedef int64_t (*llm_mem_fn)(const struct model_config *m, enum phase ph,
                              const struct profile *prof);

/* Fills r->warn with the physical invariants t violates, per phase. */
void llm_report_check(struct llm_report *r, const struct trace *t, const struct chip_config *chip,
                      const struct profile *prof);
/* Returns -1 (with e) if a total is zero and a throughput cannot be formed.
 * The footprint from mem (NULL: the LLM formula, opsgen.md §11.1). */
/* The framework's host time of one forward pass over seqs sequences
 * (chip.h): step_overhead_ns + num_layers x layer_overhead_ns + seqs x
 * request_overhead_ns; 0 under a profile that ignores the chip's precisions
 * (neusim). The one formula run's TTFT and TPOT and serving's passes add. A
 * sum past int64 sets *ovf. */
int64_t llm_host_ns(const struct chip_config *chip, const struct model_config *m, int64_t seqs,
                    const struct profile *prof, bool *ovf);

int llm_report_compute_mem(const struct model_config *m, const struct chip_config *chip,
                           const struct profile *prof, const struct trace *t, llm_mem_fn mem,
                           struct llm_report *r, struct npu_err *e);
/* The JSON object of one phase; takes ownership of sim_config (may be NULL). */
cJSON *llm_report_json(const struct llm_report *r, enum phase ph, cJSON *sim_config);
/* The human summary lines of a report (TTFT, TPOT, throughput, energy, memory). */
void llm_report_print(const struct llm_report *r, int64_t hbm_GB, FILE *out);
/* Adds an int64 / a double (as Python repr) to a cJSON object. */
void json_add_i64(cJSON *o, const char *key, int64_t v);
void json_add_f64(cJSON *o, const char *key, double v);
/* The 13 per-trace time statistics and bounded_by_pp_chip, as the reference names them. */
void json_add_trace_stats(cJSON *o, const struct trace_stats *s);

#endif
