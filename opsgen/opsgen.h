/* opsgen.h — operator generators: a model config in, an ordered trace out.
 *
 * Generators emit shapes, FLOPs and bytes; they never time compute. The only
 * times they set are the reference's creation-time communication times
 * (collectives, pipeline transfers, KV swap: opsgen.md §3.8–§3.10), for which
 * they need the link parameters below. The CLI fills struct opsgen_links from
 * the chip config, so opsgen does not depend on chipsim. */
#ifndef NPUSIM_OPSGEN_H
#define NPUSIM_OPSGEN_H

#include <stdbool.h>
#include <stdint.h>

#include "opsgen/model.h"
#include "base/err.h"
#include "traces/op.h"
#include "traces/profile.h"

struct opsgen_links {
    char chip_name[FIELD_STR_MAX];
    double ici_bw_GBps;           /* per axis; GB = 1e9 B (quirk chipsim Q11) */
    double dcn_bw_GBps;
    double pcie_bw_GBps;          /* GB = 2^30 B */
    int64_t ici_latency_ns;
    int64_t dcn_latency_ns;
    int64_t pcie_latency_ns;
    int64_t hbm_size_GB;          /* KV-swap trigger and OOM flags */
    int64_t link_domain_chips;    /* chips one ICI/NVLink domain joins; a collective group larger
                                   * runs on the scale-out network (dcn_*); 0: no bound known */
    char ICI_topology[FIELD_STR_MAX];
};

/* LLM inference (opsgen.md §5): prefill ops (phase PREFILL) followed by decode
 * ops (phase DECODE), appended to out. Validates the config first (model_type,
 * divisibility, num_chips >= dp*tp*pp, tp_dcn == 1, ...).
 *
 * Every generator (this one, opsgen_llm_training, opsgen_deepseek_inference,
 * opsgen_dit, opsgen_gligen, opsgen_dlrm_inference) returns 0 with *ovf set
 * (never cleared) when a size, FLOP count or time of the trace, or the
 * footprint it checks, left int64 (builders.h): those values are 0 and the
 * caller refuses the trace (family_generate says why). */
int opsgen_llm_inference(const struct model_config *m, const struct opsgen_links *l,
                         const struct profile *prof, struct trace *out, bool *ovf, struct npu_err *e);

/* A user-given LLM-like config (LLM, training, DiT) must shard evenly: TP
 * divides num_heads, d_model and d_ff, and there are at least as many layers
 * as pipeline stages. The generators themselves round shards and layers per
 * stage up, as the reference does for the points its sweeps enumerate. */
int opsgen_check_strict(const struct model_config *m, struct npu_err *e);

/* Memory footprint of LLM inference for a phase, in bytes (opsgen.md §11.1);
 * terms past int64 count 0. _checked: the same, and such a term sets *ovf
 * (builders.h), as the generator's trace does. */
int64_t opsgen_llm_inference_mem_bytes(const struct model_config *m, enum phase phase,
                                       const struct profile *prof);
int64_t opsgen_llm_inference_mem_checked(bool *ovf, const struct model_config *m, enum phase phase,
                                         const struct profile *prof);

#endif
