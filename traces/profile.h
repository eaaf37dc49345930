/* profile.h — the named deviations from physics that reproduce the reference.
 *
 * Every quirk of the reference simulator (NeuSim 45dbdc1) that npusim
 * reproduces sits behind one boolean here. The `neusim` profile sets them all;
 * the `physical` profile (the default) clears them. Code consults the switch at the one
 * place the quirk lives; it never forks whole code paths. docs/profile.md
 * lists each switch with the reference file:line and spec quirk id. */
#ifndef NPUSIM_PROFILE_H
#define NPUSIM_PROFILE_H

#include <stdbool.h>

struct profile {
    const char *name;
    /* chipsim (spec chipsim.md §13) */
    bool lookup_ops_by_name_first_wins;    /* chipsim Q1: same-named ops share the first op's shapes */
    bool tile_search_sees_zero_compute;    /* chipsim Q4: tile searches run before compute time is stored */
    bool vpu_time_truncates;               /* chipsim Q5: vpu_time truncates after /f, elementwise ceils */
    bool collective_vpu_time_in_cycles;    /* chipsim Q6: ReduceScatter VPU time not divided by f */
    bool fa_fit_test_scores_times_dhead;   /* chipsim Q10: FA "fits in VMEM" counts scores x d_head */
    bool mxu_util_over_sa_plus_vu_peak;    /* chipsim Q18: MXU flops_util divides by SA+VU peak */
    bool bracketed_float_dtype_fails;      /* chipsim Q15: an op whose output is DT_FLOAT or DT_INT
                                            * (fp32, int32) is rejected: the frontend's "[" stays on it */
    bool hbm_pcie_GB_is_GiB;               /* chipsim Q11: HBM and PCIe GB/s taken as 2^30 B/s (ICI: 1e9) */
    bool mxu_efficiency_ignored;           /* the chip's mxu_efficiency is not applied (MXU at 100%) */
    bool chip_precisions_ignored;          /* every op at the geometry's rate whatever its format, at the
                                            * roofline (the chip's per-precision peaks and kernel
                                            * efficiencies are not applied) */
    /* power (power.md; chipsim.md §8) */
    bool rescale_time_to_1_7GHz;           /* power Q2: "no DVFS" plan hard-codes 1.7 GHz */
    bool sa_vu_power_times_units_twice;    /* chipsim Q19 (power Q1): num_sa/num_vu counted twice */
    bool regulator_activity_unscaled_exe;  /* power Q3: HBM/ICI/Vmem activity over the pre-scaling exe */
    bool vu_hw_idle_never_gated;           /* power Q6: HW-policy VU PG never gates an idle VU */
    bool no_power_cap;                     /* ops may draw more than the chip's TDP (no throttling) */
    bool pg_never_idle_test_dead;          /* power Q5: the "never idle" test of SA/VU gating uses exe - 1 */
    bool pg_vmem_drowsy_window_only;       /* power Q9: Vmem drowsy wake-ups widen the energy window only */
    bool pg_vmem_fixed_4MB;                /* power Q10: Vmem in use is 4 MB for every non-MXU op */
    bool pg_hbm_wake_after_energy;         /* power Q12: HBM wake-ups added after the energy, unpowered */
    bool pg_strategy_quirks;               /* power Q13/power Q14: vary_Vth sets HBM/other; vary_PG_delay skips
                                            * PE/HBM delays; Base/HW/Full matched as prefixes */
    bool pg_static_frozen_exe;             /* power Q15: static energies never cover time overheads add */
    bool pg_utils_not_refreshed;           /* power Q20: flops/HBM utilisation not refreshed after PG/DVFS */
    bool pg_setpm_rounding_cycles_as_ns;   /* power Q21: banker's rounding, 32 cycles written as ns */
    bool dynamic_power_scale_ignored;      /* the chip's dynamic_power_scale is not applied */
    bool carbon_script_defaults;           /* carbon figures default to the reference carbon script's
                                            * duty cycle 0.6 and lifetime 1 year (npusim carbon: and
                                            * 0.1352 kgCO2e/kWh), not the system config's (power/system.h) */
    bool stage_without_results_warns;      /* energy and slo over a results tree with no results for any
                                            * model or version named warn and exit 0, as the reference's
                                            * scripts do (a suite's training line whose points all ran
                                            * out of memory); corrected: exit 2 naming what is missing */
    bool inline_energy_chipsim_types;      /* the run's own energy pass (and its power cap) keep chipsim's
                                            * op type, while the energy stage types an op by the unit it
                                            * ran on: a matmul run on the vector units costs more there */
    bool dvfs_tables_for_every_chip;       /* power Q4: the DVFS/PG plans take TPU v5p's watts per
                                            * component for every chip (else scaled to the chip's) */
    /* opsgen (opsgen.md §17) */
    bool binary_ops_list_one_input;        /* chipsim Q7: Add/Mul record one input tensor */
    bool fa_uses_heads_as_dhead;           /* opsgen Q1: FA FLOPs/out shape use heads for d_head */
    bool kv_heads_ignored;                 /* opsgen Q2: num_kv_heads never reaches the ops */
    bool pp_send_reuses_fid;               /* opsgen Q5: PP send ops reuse the FFN's first fid */
    bool ffn_allgather_2d;                 /* opsgen Q6: FFN TP all-gather is [B, D] */
    bool self_attn_ln_unscattered;         /* opsgen Q7: post-attention LN on the unscattered width */
    bool decode_kv_full_length;            /* opsgen Q8: every decode step at the final KV length */
    bool dcn_transfers_use_ici;            /* opsgen Q9: DCN pipeline transfers use ICI bw/latency */
    bool kv_swap_bytes_doubled;            /* opsgen Q10: KV-swap bytes multiplied by 2 again */
    bool split_axes_drops_missing;         /* opsgen Q12: split_parallelism_degree returns fewer axes */
    bool zero_tp_axes_ignore_tp;           /* opsgen Q13: 0 TP axes silently disable TP in attn/FFN */
    bool collective_latency_overlaps;      /* a collective takes the larger of its transfer and its
                                            * steps' latency; cleared: their sum, alpha x steps +
                                            * bytes / beta (a ring's steps wait on each other) */
    bool collective_staged_bytes;          /* a chip's collective bytes are the reference's staged
                                            * elements (an all-gather its whole output, a
                                            * reduce-scatter one shard, an all-reduce twice its
                                            * input); cleared: a ring's, (p - 1) / p of the whole
                                            * tensor a phase */
    bool link_domain_as_torus;             /* a chip with a link domain (an NVSwitch or a full mesh)
                                            * splits a collective group over torus axes, each at
                                            * ici_bw_GBps (the reference maps every chip's groups so);
                                            * cleared: one ring through the switch at the chip's
                                            * ici_bw_GBps, its whole injection bandwidth */
    bool collectives_ignore_link_domain;   /* a collective group larger than the chip's link domain
                                            * (NVLink) still runs at ici_bw_GBps (the reference has
                                            * no domain); cleared: on the scale-out network */
    bool mem_kv_sharing_compares_divided;  /* opsgen Q14: KV sharing test uses the divided kv count */
    bool weight_update_always_adds_dcn;    /* opsgen Q11: DCN bw summed into the weight update */
    bool ffn_bwd_two_all_reduces;          /* opsgen Q17: FFN backward emits two TP all-reduces */
    bool mla_counts_all_layers;            /* opsgen Q3: MLA ops count all layers, not the stage's */
    bool mla_dense_layers_as_moe;          /* DeepSeek's dense first layers (num_dense_layers) run the
                                            * MoE FFN as every other layer; cleared: the dense FFN */
    bool train_memory_reference;           /* opsgen Q15: the reference's training footprint */
    bool oom_vs_pod_hbm;                   /* opsgen Q15b: per-chip footprints (training, DLRM, DiT, GLIGEN)
                                            * compared with the whole pod's HBM */
    bool layernorm_bwd_counted_once;       /* opsgen Q16: the LayerNorm-bwd ops count 1, not the layers */
    bool train_params_from_bwd_weights;    /* opsgen Q16: parameters = backward weight bytes / 2 (LN-bwd included) */
    bool optimizer_states_4x_weights;      /* opsgen §3.12: the update loads 4x the weights, writes 1x, all-reduce only */
    bool prefill_attention_unmasked;       /* causal prefill attention costed over all S keys, not (S+1)/2 */
    bool ffn_activation_missing;           /* no activation op (SiLU/GeLU) in the FFN */
    bool ffn_input_gathered_twice;         /* the FFN all-gathers the input the attention gathered */
    bool mla_allgather_full_width;         /* opsgen Q4: MLA TP all-gather outputs D x t, not D */
    bool mla_softmax_missing;              /* opsgen Q19: no softmax over the MLA scores */
    bool mla_cache_einsums_weights;        /* opsgen Q20: KV-cache and combine einsums count as weights */
    bool moe_every_expert_every_token;     /* opsgen Q22: each activated expert runs on every local token */
    bool mla_memory_reference_terms;       /* opsgen Q24: MLA weight terms of the reference's footprint */
    bool moe_a2a_global_batch;             /* opsgen Q21: MoE all-to-all moves the global batch */
    bool moe_combine_named_dispatch;       /* opsgen Q23: the combine all-to-all is named Dispatch */
    bool moe_dispatch_replicated_tokens;   /* the token all-to-alls run even when every expert-parallel
                                            * chip holds every token (attention in TP, no data
                                            * parallelism); cleared: no dispatch, and a reduce-scatter
                                            * over the EP axes sums the experts' outputs */
    bool dlrm_table_batch_before_sharding; /* opsgen Q26: replicated tables keep the global batch */
    bool dlrm_fid_doubling;                /* opsgen Q27: fid += last fid (ids double per step) */
    bool dlrm_a2a_group_is_tables;         /* opsgen Q28: all-to-all latency counts tables, not chips */
    bool dlrm_gligen_placeholder_footprint; /* opsgen Q26b: DLRM 8 x HBM - 1 KiB, GLIGEN HBM - 1 KiB, vs the pod */
    bool mem_activations_times_layers;     /* opsgen §11.1: one layer's activations x the stage's layers */
    bool vocab_ops_missing;                /* no token-embedding or LM-head ops, no vocabulary weights */
    /* outputs */
    bool sim_config_reference_keys;        /* sim_config lists only the reference's keys (FF_EXT left out) */
    bool no_provenance;                    /* outputs do not say who made them: no "# npusim" line on a
                                            * stream trace, no "provenance" in a statistics JSON */
    bool absolute_output_paths;            /* a results tree's JSONs name files by the path they were
                                            * written to (the SLO stage's made absolute); cleared:
                                            * relative to the tree's root */
};

/* The reference's behaviour, bugs included. */
extern const struct profile profile_neusim;

/* Every switch cleared: the corrected model (docs/physics.md). */
extern const struct profile profile_physical;

/* The profile a command uses without --profile: physical. */
const struct profile *profile_default(void);

/* Looks a profile up by name; NULL if unknown. */
const struct profile *profile_by_name(const char *name);

/* Comma-separated list of the known profile names, for --help and errors. */
const char *profile_names(void);

#endif
