/* step.h — how long one forward pass (an iteration) of a serving replica
 * takes, from the chip model applied to what the pass really holds.
 *
 * A pass's operators fall into three kinds (opsgen/opsgen.h):
 *  - the token-linear ones (embedding, projections, FFN, norms, TP
 *    collectives, pipeline transfers): their cost follows the number of
 *    tokens the pass carries, whoever they belong to;
 *  - the LM head: it follows the positions that emit a token;
 *  - the attention core: it follows each sequence's context.
 * The first two are taken from the family's own generated trace of a batch
 * of n one-token sequences (prefill form for a pass with prompt tokens, decode
 * form for a pass of decodes only, as `npusim run` builds its two phases),
 * timed by chipsim and remembered by n. The attention core is built per pass
 * for the pass's decodes (one group at their mean prompt and generated
 * lengths) and its prefill chunks (one group at their mean chunk length and
 * mean keys per query), timed by chipsim and remembered by its shape. The
 * decode group is timed on a grid of lengths (every length to 32, then 16
 * points an octave) and interpolated bilinearly between the four points
 * around the means: exact on the grid, and it smooths the staircase a batch
 * of B requests all at the mean length would show (tile steps) where the
 * real batch's lengths differ. Measured on the benchmark case (Llama-3-70B,
 * 8 H100, 4.2 requests/s, 10,000 chat requests): unique shapes 48,000 ->
 * 17,600 and 1.85 s -> 0.77 s; TPOT p50 and p99 0.3% below the same run at
 * each exact mean (interpolated between whole lengths). The
 * framework's host time per pass (llm_host_ns: chip fields
 * step_overhead_ns, layer_overhead_ns, and request_overhead_ns per sequence
 * in the pass) is added by the formula `npusim run` adds it by, and a pipeline's
 * stages run one after another as in its TTFT.
 *
 * So a pass of B equal prompts is `npusim run`'s prefill and a pass of B
 * equal decodes at step k is its decode step k: the static scheduler of
 * equal requests gives run's TTFT and TPOT (tests/cli/t_serving.sh).
 *
 * Main data structure: struct serving_step, the model, chip and memo. */
#ifndef NPUSIM_SERVING_STEP_H
#define NPUSIM_SERVING_STEP_H

#include <stdbool.h>
#include <stdint.h>

#include "base/err.h"
#include "opsgen/opsgen.h"
#include "power/pg.h"
#include "study/run/run.h"

/* What one pass holds (tokens). */
struct serving_batch {
    int64_t decodes;                   /* sequences adding one token */
    int64_t decode_prompt_sum;         /* their prompt tokens in the cache */
    int64_t decode_gen_sum;            /* their generated tokens in the cache, the newest included */
    int64_t chunks;                    /* sequences adding a prefill chunk */
    int64_t chunk_tokens;              /* the chunks' tokens */
    int64_t chunk_att_sum;             /* sum over chunk tokens of the keys each sees */
    int64_t chunk_kv_sum;              /* sum over chunks of cached prefix + chunk */
    int64_t emits;                     /* positions that emit a token (LM head rows) */
};

/* The cost of one part of a pass on one chip of a pipeline stage: its
 * time inside the stage and its ICI and DCN pipeline transfers (ns), the
 * energy of those operators (J, the energy pass's static and dynamic terms)
 * and the highest power any of them draws (W). */
struct step_cost { int64_t stage_ns, pp_ici_ns, pp_dcn_ns; double energy_J, peak_W; };

/* One pass: its time (ns, at least 1), and per chip the time its operators
 * keep the chip busy (ns), their energy (J) and highest power (W); the
 * rest of the pass (the host's time, the other stages') the chip idles.
 * Its parts, for a pipeline that overlaps passes: the host's time before
 * the first stage, one stage's time with its ICI transfer, and the DCN
 * transfer after the last stage of each DCN group (ns). */
struct serving_pass_cost {
    int64_t ns, busy_ns;
    double energy_J, peak_W;
    int64_t host_ns, stage_ns, dcn_ns;
};

struct step_memo;

struct serving_step {
    const struct family *fam;
    struct loaded_config c;            /* the replica's configs (shallow: the caller's trees) */
    const struct profile *prof;
    struct opsgen_links links;
    int64_t pp, pp_dcn;
    bool memo;                         /* false: every part computed afresh (tests) */
    const struct pg_strategy *pg;      /* NULL: the default energy pass (NoPG, no DVFS) */
    int dvfs;                          /* with pg: the DVFS policy (power/pg.h) */
    struct step_memo *m;
    int64_t misses;                    /* parts computed (the memo's misses) */
};

/* A replica's pipeline stages: pp inside the link domain times pp_dcn across it. */
static inline int64_t serving_step_stages(const struct serving_step *st) { return st->pp * st->pp_dcn; }

/* A step model over c (copied shallow: c's trees must outlive it; its model
 * must be an LLM inference family's); -1 with e otherwise. */
int serving_step_init(struct serving_step *s, const struct family *fam, const struct loaded_config *c,
                      const struct profile *prof, struct npu_err *e);
void serving_step_free(struct serving_step *s);

/* The pass's cost; -1 with e when the model refuses the shapes (their
 * sizes out of scale). */
int serving_step_time(struct serving_step *s, const struct serving_batch *b, struct serving_pass_cost *pc,
                      struct npu_err *e);

#endif
