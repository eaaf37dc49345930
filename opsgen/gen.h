/* gen.h — skeleton helpers every generator shares: positive-field checks by
 * name, a parallelism degree laid out on torus axes, and the prefill-then-
 * decode driver of the inference generators.
 *
 * Main data structure: none of its own; helpers work on the model config,
 * struct coll_axes (builders.h) and the trace. */
#ifndef NPUSIM_GEN_H
#define NPUSIM_GEN_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "opsgen/builders.h"
#include "opsgen/model.h"
#include "opsgen/opsgen.h"
#include "base/err.h"
#include "traces/profile.h"

/* Each named integer field of m must be > 0; else `model field "K": expected a
 * positive integer, got V`. Names are model field-table keys. */
int gen_require_positive(const struct model_config *m, const char *const *keys, size_t n,
                         struct npu_err *e);

/* Degree `deg` over `n_axes` torus axes (opsgen.md §4.1), one link of bw_GBps
 * each; with 0 axes the reference drops the degree (quirk opsgen Q13) unless the
 * profile keeps it on one axis. Returns -1 if more than max_axes result. */
int gen_axes(struct coll_axes *ax, int64_t deg, int64_t n_axes, const struct profile *prof,
             double bw_GBps, int64_t latency_ns, int max_axes);


/* What the two ends of an inference layer pass need: the trace, the links,
 * the phase, the layer count, the stage activation x and (for the KV swap)
 * the family's footprint function, called only when swapping is enabled. */
typedef int64_t (*gen_mem_fn)(const struct model_config *m, enum phase ph, const struct profile *prof);
struct gen_stage {
    struct trace *t;
    const struct model_config *m;
    const struct opsgen_links *l;
    const struct profile *prof;
    bool decode;
    int64_t L;
    struct shape x;
    gen_mem_fn mem_bytes;
};

/* The start of an inference layer pass: the KV swap (when enabled), then the
 * DCN and ICI pipeline receives of x, each at its own fid (advancing *fid). */
void gen_stage_receive(const struct gen_stage *s, int64_t *fid);
/* The end: the ICI then DCN pipeline sends of x (advancing *fid). */
void gen_stage_send(const struct gen_stage *s, int64_t *fid);

/* The vocabulary ends of an inference step (none under quirk vocab_ops_missing
 * or with vocab_size 0), `steps` times per phase (1 in prefill, the output
 * length in decode): the token-embedding lookup of the step's B x seq tokens
 * (rows of width D / tp), and the LM head over the positions that produce a
 * token (prefill: the last one; decode: every position) against the vocabulary
 * sharded over TP, with its softmax. Each advances *fid. */
int gen_vocab_embed(struct trace *t, const struct model_config *m, const struct profile *prof,
                    int64_t B, int64_t seq, int64_t steps, int64_t tp, int64_t *fid);
/* The token-embedding and LM-head parameters on one chip, 2 x ceil(V / tp) x D
 * (0 under prof->vocab_ops_missing): the memory footprints and the weight
 * update count them. */
int64_t gen_vocab_params(const struct model_config *m, int64_t tp, const struct profile *prof);
int gen_vocab_head(struct trace *t, const struct model_config *m, const struct profile *prof,
                   int64_t B, int64_t seq, int64_t steps, int64_t tp, int64_t *fid);

/* Runs phase(g, decode, first_fid, &last_fid) for prefill (first fid 2) and
 * decode (the fid after prefill's last op), tagging their ops PHASE_PREFILL
 * and PHASE_DECODE; on failure removes everything it appended. */
typedef int (*gen_phase_fn)(void *g, bool decode, int64_t first_fid, int64_t *last_fid);
int gen_prefill_decode(struct trace *out, gen_phase_fn phase, void *g, struct npu_err *e);

#endif
