/* diffusion.h — image-diffusion generators: DiT (opsgen.md §8) and the GLIGEN
 * UNet (§10), their memory footprints (§11.4) and end-of-run statistics (§12.5).
 *
 * DiT is a transformer: its ops are the LLM generator's prefill ops on a
 * derived config (one token per image patch), every count multiplied by the
 * diffusion steps. GLIGEN is a UNet of convolutions, resnet blocks and
 * spatial transformers whose attention and FFN come from opsgen/layers.h.
 * Both emit a single op list (phase NONE) that chipsim times as one.
 *
 * Errors name the offending model field as `model field "KEY"` so that the
 * CLI can add the file the key came from. Main data structure: struct
 * diffusion_report, the statistics of one timed trace. */
#ifndef NPUSIM_DIFFUSION_H
#define NPUSIM_DIFFUSION_H

#include <stdbool.h>
#include <stdint.h>

#include "opsgen/opsgen.h"
#include "opsgen/sweep.h"

/* The LLM config DiT runs as: model_type "llm", input_seqlen =
 * ceil(image_width^2 / patch_size^2) (pixel width, quirk opsgen Q25), output_seqlen 1. */
void dit_llm_config(const struct model_config *m, struct model_config *llm);
/* DiT inference ops appended to out (10 ops for dit-xl on one chip); *ovf as
 * opsgen_llm_inference (opsgen.h). */
int opsgen_dit(const struct model_config *m, const struct opsgen_links *l,
               const struct profile *prof, struct trace *out, bool *ovf, struct npu_err *e);
/* Per-chip footprint: the LLM prefill formula (§11.1) on the derived config. */
int64_t opsgen_dit_mem_bytes(const struct model_config *m, const struct profile *prof);

/* GLIGEN UNet ops appended to out (634 ops for the shipped config); *ovf as
 * opsgen_llm_inference (opsgen.h). */
int opsgen_gligen(const struct model_config *m, const struct opsgen_links *l,
                  const struct profile *prof, struct trace *out, bool *ovf, struct npu_err *e);
/* The reference's placeholder footprint: one chip's HBM less 1 KiB (quirk opsgen Q26b). */
int64_t opsgen_gligen_mem_bytes(int64_t hbm_size_GB);
/* Corrected: the weights of every op of the timed trace t (BF16, each layer
 * once per execution count) plus the largest op's activations (its bytes
 * accessed less its weights); the placeholder above under
 * prof->dlrm_gligen_placeholder_footprint (quirk opsgen Q26b). Sums past
 * int64 count 0. */
int64_t opsgen_gligen_mem_bytes_of(const struct trace *t, int64_t hbm_size_GB, const struct profile *prof);

/* ---- sweep helpers (opsgen.md §13.2, §13.4) ---- */
/* Axes (m, 0, 0), m = 2 on TPU v2/v3 and 3 on every other chip (5e/6e
 * included, unlike the LLM rule: quirk opsgen Q34). */
void sweep_map_axes_diffusion(const char *chip_version, struct model_config *m);

#endif
