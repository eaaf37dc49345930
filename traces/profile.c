/* profile.c — the table of named profiles (see profile.h).
 *
 * `physical` (the default) clears every switch: each quirk's corrected branch
 * is what docs/physics.md describes. `neusim` sets them all. */
#include "traces/profile.h"

#include <string.h>

const struct profile profile_neusim = {
    .name = "neusim",
    .lookup_ops_by_name_first_wins = true,
    .tile_search_sees_zero_compute = true,
    .vpu_time_truncates = true,
    .collective_vpu_time_in_cycles = true,
    .fa_fit_test_scores_times_dhead = true,
    .mxu_util_over_sa_plus_vu_peak = true,
    .bracketed_float_dtype_fails = true,
    .hbm_pcie_GB_is_GiB = true,
    .mxu_efficiency_ignored = true,
    .chip_precisions_ignored = true,
    .rescale_time_to_1_7GHz = true,
    .sa_vu_power_times_units_twice = true,
    .regulator_activity_unscaled_exe = true,
    .vu_hw_idle_never_gated = true,
    .no_power_cap = true,
    .pg_never_idle_test_dead = true,
    .pg_vmem_drowsy_window_only = true,
    .pg_vmem_fixed_4MB = true,
    .pg_hbm_wake_after_energy = true,
    .pg_strategy_quirks = true,
    .pg_static_frozen_exe = true,
    .pg_utils_not_refreshed = true,
    .pg_setpm_rounding_cycles_as_ns = true,
    .dynamic_power_scale_ignored = true,
    .carbon_script_defaults = true,
    .stage_without_results_warns = true,
    .inline_energy_chipsim_types = true,
    .dvfs_tables_for_every_chip = true,
    .binary_ops_list_one_input = true,
    .fa_uses_heads_as_dhead = true,
    .kv_heads_ignored = true,
    .pp_send_reuses_fid = true,
    .ffn_allgather_2d = true,
    .self_attn_ln_unscattered = true,
    .decode_kv_full_length = true,
    .dcn_transfers_use_ici = true,
    .kv_swap_bytes_doubled = true,
    .split_axes_drops_missing = true,
    .zero_tp_axes_ignore_tp = true,
    .collectives_ignore_link_domain = true,
    .collective_latency_overlaps = true,
    .collective_staged_bytes = true,
    .link_domain_as_torus = true,
    .mem_kv_sharing_compares_divided = true,
    .weight_update_always_adds_dcn = true,
    .ffn_bwd_two_all_reduces = true,
    .mla_counts_all_layers = true,
    .mla_dense_layers_as_moe = true,
    .train_memory_reference = true,
    .oom_vs_pod_hbm = true,
    .layernorm_bwd_counted_once = true,
    .train_params_from_bwd_weights = true,
    .optimizer_states_4x_weights = true,
    .prefill_attention_unmasked = true,
    .ffn_activation_missing = true,
    .ffn_input_gathered_twice = true,
    .mla_allgather_full_width = true,
    .mla_softmax_missing = true,
    .mla_cache_einsums_weights = true,
    .moe_every_expert_every_token = true,
    .mla_memory_reference_terms = true,
    .moe_a2a_global_batch = true,
    .moe_combine_named_dispatch = true,
    .moe_dispatch_replicated_tokens = true,
    .dlrm_table_batch_before_sharding = true,
    .dlrm_fid_doubling = true,
    .dlrm_a2a_group_is_tables = true,
    .dlrm_gligen_placeholder_footprint = true,
    .mem_activations_times_layers = true,
    .vocab_ops_missing = true,
    .sim_config_reference_keys = true,
    .no_provenance = true,
    .absolute_output_paths = true,
};

/* Every switch false: the designated initializer leaves them so. */
const struct profile profile_physical = { .name = "physical" };

static const struct profile *const profiles[] = { &profile_physical, &profile_neusim };

const struct profile *profile_default(void) { return &profile_physical; }

const struct profile *profile_by_name(const char *name)
{
    for (size_t i = 0; i < sizeof profiles / sizeof profiles[0]; i++)
        if (strcmp(profiles[i]->name, name) == 0)
            return profiles[i];
    return NULL;
}

const char *profile_names(void) { return "physical, neusim"; }
