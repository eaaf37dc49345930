/* phases.h — the one phase skeleton of the LLM-like generators: LLM
 * inference (prefill, decode), DeepSeek inference (prefill, decode) and LLM
 * training (forward, backward with the weight update).
 *
 * A run is two phases, the first from fusion id 2 and the second from the id
 * after the first's last op. Every phase takes the same steps: its vocabulary
 * start (the token embedding, or a backward pass's LM-head gradient), the
 * stage's start (the KV swap when enabled, the DCN and ICI pipeline
 * receives), the input norm, the generator's layers, the stage's end (the ICI
 * and DCN pipeline sends), its vocabulary end (the LM head, or the embedding
 * gradient) and an optional end hook (the weight update). A generator gives
 * its differences as data (struct gen_phase, filled per phase) and a few
 * hooks (struct gen_phase_hooks), not as its own copy of the loop.
 *
 * Main data structures: struct gen_run (what a run shares: config, links,
 * profile, trace and its overflow flag, local batch, layers per stage, TP
 * axes, number formats), struct gen_phase (one phase's data) and struct
 * gen_phase_hooks. */
#ifndef NPUSIM_PHASES_H
#define NPUSIM_PHASES_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "opsgen/builders.h"
#include "opsgen/formats.h"
#include "opsgen/model.h"
#include "opsgen/opsgen.h"
#include "base/err.h"
#include "traces/profile.h"

/* What every phase of a run shares. A generator's own struct starts with it. */
struct gen_run {
    const struct model_config *m;
    const struct opsgen_links *l;
    const struct profile *prof;
    struct trace *t;
    bool *ovf;                   /* the trace's overflow flag (builders.h), the caller's */
    int64_t B, L, D_tp;          /* local batch, layers per stage, d_model / tp */
    struct coll_axes tp;         /* TP axes list (may be empty: quirk opsgen Q13) */
    struct tensor_formats fmt;   /* the model's number formats */
};

/* Fills r from the config (ovf: the trace's overflow flag, builders.h):
 * B = ceil(microbatch / dp), L = ceil(layers / pp / pp_dcn) on doubles as
 * the reference, D_tp = ceil(d_model / tp) and the number formats. The TP
 * axes are left empty (each generator has its limit). */
void gen_run_init(struct gen_run *r, const struct model_config *m, const struct opsgen_links *l,
                  const struct profile *prof, struct trace *t, bool *ovf);

/* The last op of the trace (there is one once a phase has begun). */
static inline struct op *gen_last(const struct gen_run *r) { return &r->t->ops[r->t->n - 1]; }

/* Footprint of a phase in bytes, for the KV swap; one past int64 sets *ovf. */
typedef int64_t (*gen_mem_fn)(bool *ovf, const struct model_config *m, enum phase ph, const struct profile *prof);

/* One phase's data, filled by the generator's setup hook (the skeleton sets
 * the two indices). */
struct gen_phase {
    enum phase tag;            /* the ops' phase; PHASE_NONE leaves them untagged (training) */
    bool decode;               /* an inference decode step */
    bool bwd;                  /* a training backward pass: vocab_bwd instead of embedding and head */
    int64_t seq;               /* tokens per step */
    int64_t count;             /* executions of each layer op */
    int64_t steps;             /* executions of the vocabulary ops, pipeline transfers and KV swap */
    int64_t head_seq;          /* positions that meet the LM head */
    bool skip_fid;             /* one id skipped before the input norm (quirk opsgen Q36) */
    const char *norm_desc;     /* the input norm's description; NULL: none */
    const char *norm_eq, *norm_op, *norm_dtype;
    bool send_reuses_fid;      /* the sends take the id the layers leave (quirk opsgen Q5);
                                * else the one past the last op */
    const char *recv_desc, *send_desc;   /* prefixes of the pipeline descriptions */
    const char *send_name;     /* "SendOutput" or (inference decode) "sendOutput" */
    size_t first_op;           /* set by the skeleton: the phase's first op in the trace */
    size_t first_layer_op;     /* set by the skeleton: the input norm's index (or where it would be) */
};

/* The prefill or decode phase of an inference run: tagged, seq the input
 * length or the decode width, counted per layer (and decode step), the LM
 * head over the last position in prefill, "Prefill"/"Decode" pipeline
 * descriptions, the input LayerNorm, and the sends reusing the layers' id
 * under the profile's pp_send_reuses_fid. */
void gen_phase_inference(const struct gen_run *r, bool decode, struct gen_phase *ph);

struct gen_phase_hooks {
    /* Fills phase i (0 or 1) of generator g. */
    void (*setup)(void *g, int i, struct gen_phase *ph);
    /* The layers after the input norm from *fid; leaves in *fid the id the
     * sends take when they reuse it. */
    int (*layers)(void *g, const struct gen_phase *ph, int64_t *fid);
    /* A backward phase's vocabulary ends: the head's gradient (embed false,
     * first) and the embedding's (embed true, last). NULL without bwd phases. */
    int (*vocab_bwd)(void *g, int64_t *fid, bool embed);
    /* After the vocabulary end, from fid (NULL: nothing). */
    int (*end)(void *g, const struct gen_phase *ph, int64_t fid);
    /* The footprint that triggers the KV swap; NULL: no swap. */
    gen_mem_fn mem_bytes;
};

/* Runs the two phases of r (g: the generator's struct, passed to the hooks);
 * on failure removes everything it appended and returns -1 with
 * "internal: malformed op builder arguments". */
int gen_phases(const struct gen_run *r, const struct gen_phase_hooks *h, void *g, struct npu_err *e);

#endif
