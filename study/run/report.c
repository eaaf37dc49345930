/* report.c — LLM inference statistics and their JSON (see report.h). */
#include "study/run/report.h"

#include <math.h>
#include <stddef.h>
#include <stdio.h>

#include "opsgen/opsgen.h"
#include "power/powercap.h"
#include "base/checked.h"
#include "base/pyfmt.h"
#include "base/strbuf.h"

void json_add_i64(cJSON *o, const char *key, int64_t v)
{
    char b[32];
    struct strbuf sb = STRBUF(b);
    strbuf_puti(&sb, v);
    cJSON_AddRawToObject(o, key, b);
}

void json_add_f64(cJSON *o, const char *key, double v)
{
    char b[40];
    py_repr_double(v, b, sizeof b);
    /* JSON has no nan/inf; the reference never produces them here. */
    if (!isfinite(v))
        cJSON_AddNullToObject(o, key);
    else
        cJSON_AddRawToObject(o, key, b);
}

static double total_energy(const struct trace_stats *s)
{
    return s->static_energy_J + s->dynamic_energy_J;
}

int64_t llm_host_ns(const struct chip_config *chip, const struct model_config *m, int64_t seqs,
                    const struct profile *prof, bool *ovf)
{
    if (prof->chip_precisions_ignored)
        return 0;
    return ck_add(ck_add(chip->step_overhead_ns, ck_mul(m->num_layers, chip->layer_overhead_ns, ovf), ovf),
                  ck_mul(seqs, chip->request_overhead_ns, ovf), ovf);
}

int llm_report_compute_mem(const struct model_config *m, const struct chip_config *chip,
                           const struct profile *prof, const struct trace *t, llm_mem_fn mem,
                           struct llm_report *r, struct npu_err *e)
{
    if (!mem)
        mem = opsgen_llm_inference_mem_bytes;
    *r = (struct llm_report){ 0 };
    if (trace_stats_compute(t, PHASE_PREFILL, &r->prefill, e) || trace_stats_compute(t, PHASE_DECODE, &r->decode, e))
        return -1;
    const struct trace_stats *P = &r->prefill, *Q = &r->decode;
    int64_t pp = m->pipeline_parallelism_degree, pp_dcn = m->pipeline_parallel_degree_dcn;
    int64_t mb = m->microbatch_size_ici, sin = m->input_seqlen, sout = m->output_seqlen;
    if (P->total_execution_time_chip_ns <= 0 || Q->total_execution_time_chip_ns <= 0)
        return npu_errf(e, "%s: the trace has no timed %s ops (total execution time 0)",
                        m->model_name, P->total_execution_time_chip_ns <= 0 ? "prefill" : "decode");
    bool ovf = false;   /* the pipeline multiplies the per-stage times (checked.h) */
    int64_t ttft_ns = ck_mul(ck_add(ck_mul(ck_add(P->total_execution_time_non_pp_ns, P->total_pp_ici_time_ns, &ovf),
                                           pp, &ovf), P->total_pp_dcn_time_ns, &ovf), pp_dcn, &ovf);
    int64_t decode_ns = ck_mul(ck_add(Q->total_execution_time_non_pp_ns, Q->total_pp_ici_time_ns, &ovf), pp, &ovf);
    if (ovf)
        return npu_errf(e, "%s: time over all pipeline stages exceeds 2^63 ns (292 years): the config's sizes, "
                           "counts or rates are out of scale", m->model_name);
    /* The framework's host time per forward pass (physical; chip.h): once
     * for the prefill, once per decode step, with a replica's sequences'
     * share. The chip idles meanwhile. */
    int64_t dp = m->data_parallelism_degree > 0 ? m->data_parallelism_degree : 1, seqs = (mb + dp - 1) / dp;
    int64_t ov = llm_host_ns(chip, m, seqs, prof, &ovf);
    ttft_ns = ck_add(ttft_ns, ov, &ovf);
    decode_ns = ck_add(decode_ns, ck_mul(ov, sout, &ovf), &ovf);
    int64_t prefill_chip_ns = ck_add(P->total_execution_time_chip_ns, ov, &ovf);
    int64_t decode_chip_ns = ck_add(Q->total_execution_time_chip_ns, ck_mul(ov, sout, &ovf), &ovf);
    r->busy_ns = ck_add(prefill_chip_ns, decode_chip_ns, &ovf);
    if (ovf)
        return npu_errf(e, "%s: time with the framework overheads exceeds 2^63 ns: chip fields "
                           "\"step_overhead_ns\", \"layer_overhead_ns\" and \"request_overhead_ns\" are out of scale",
                        m->model_name);
    r->framework_overhead_ns = ov;
    opsgen_model_params(m, &r->params_total, &r->params_active);
    r->prefill_tokens_per_sec = (double)(mb * sin) * 1e9 / (double)prefill_chip_ns;
    r->TTFT_sec = (double)ttft_ns / 1e9;
    double decode_pod = (double)decode_ns / (double)sout;
    double decode_tot = (decode_pod + (double)Q->total_pp_dcn_time_ns / (double)sout) * (double)pp_dcn;
    r->TPOT_ms_request = decode_tot / 1e6;
    r->decode_tokens_per_sec =
        (double)mb * 1e9 / ceil((double)decode_chip_ns / (double)sout);
    r->decode_tokens_per_sec_request = 1e3 / r->TPOT_ms_request;
    r->prefill_mem_GiB = (double)mem(m, PHASE_PREFILL, prof) / 1024 / 1024 / 1024;
    r->decode_mem_GiB = (double)mem(m, PHASE_DECODE, prof) / 1024 / 1024 / 1024;
    r->prefill_oom = (double)chip->hbm_size_GB < r->prefill_mem_GiB;
    r->decode_oom = (double)chip->hbm_size_GB < r->decode_mem_GiB;
    for (size_t i = 0; i < t->n && !r->energy_done; i++)
        r->energy_done = t->ops[i].energy_done;
    r->prefill_energy_J = total_energy(P);
    r->decode_energy_J = total_energy(Q);
    r->prefill_energy_per_token_J = r->prefill_energy_J / (double)(mb * sin);
    r->decode_energy_per_token_J = r->decode_energy_J / (double)(mb * sout);
    r->ext = !prof->sim_config_reference_keys;
    r->prefill_avg_power_W = r->prefill_energy_J / ((double)P->total_execution_time_chip_ns / 1e9);
    r->decode_avg_power_W = r->decode_energy_J / ((double)Q->total_execution_time_chip_ns / 1e9);
    r->power_cap_W = prof->no_power_cap ? 0.0 : power_cap_of(chip);
    /* A serving batch: the prompts' prefill, then every decode step, at the
     * prefill and decode throughputs' rates and of the batch they count: in
     * steady state a stage serves one microbatch per chip time, so the
     * pipeline holds pp x pp_dcn microbatches at once. Each request still
     * sees TTFT and TPOT, which add the transfers between stages that the
     * chip time overlaps, so with pp > 1 this is not batch x output / (TTFT +
     * output x TPOT). It is the capacity a sweep's summary and the fleet give
     * one DCN replica (llm_capacity_from_report), computed alike to agree. */
    r->microbatches = pp * pp_dcn;
    r->batch = mb * r->microbatches;
    r->dp_dcn = m->data_parallel_degree_dcn;
    r->replica_chips = m->num_chips / (r->dp_dcn > 0 ? r->dp_dcn : 1);
    if (r->replica_chips < 1)
        r->replica_chips = 1;
    r->e2e_tokens_per_sec = (double)(mb * sout) / ((double)r->busy_ns / 1e9);
    r->e2e_energy_per_token_J = (r->prefill_energy_J + r->decode_energy_J) * (double)r->replica_chips /
                                (double)(mb * sout);
    return 0;
}

void llm_report_check(struct llm_report *r, const struct trace *t, const struct chip_config *chip,
                      const struct profile *prof)
{
    r->warn[0] = r->warn[1] = (struct invariant_warnings){ 0 };
    invariants_check(t, PHASE_PREFILL, chip, prof, "prefill", &r->warn[0]);
    invariants_check(t, PHASE_DECODE, chip, prof, "decode", &r->warn[1]);
}

/* The reference's get_statistics_from_trace_file keys, in its order. */
static const struct { const char *key; size_t off; } stat_keys[] = {
#define K(f) { #f, offsetof(struct trace_stats, f) }
    K(total_pp_time_ns), K(total_pp_ici_time_ns), K(total_pp_dcn_time_ns),
    K(total_execution_time_non_pp_ns), K(overlapped_compute_time_non_pp_ns),
    K(compute_only_time_non_pp_ns), K(memory_only_time_non_pp_ns), K(ici_bound_time_non_pp_ns),
    K(total_execution_time_chip_ns), K(overlapped_compute_time_chip_ns),
    K(compute_only_time_chip_ns), K(memory_only_time_chip_ns), K(ici_bound_time_chip_ns),
#undef K
};

void json_add_trace_stats(cJSON *o, const struct trace_stats *s)
{
    for (size_t i = 0; i < sizeof stat_keys / sizeof stat_keys[0]; i++)
        json_add_i64(o, stat_keys[i].key, *(const int64_t *)((const char *)s + stat_keys[i].off));
    cJSON_AddBoolToObject(o, "bounded_by_pp_chip", s->bounded_by_pp_chip);
}

cJSON *llm_report_json(const struct llm_report *r, enum phase ph, cJSON *sim_config)
{
    cJSON *o = cJSON_CreateObject();
    if (ph == PHASE_PREFILL) {
        json_add_trace_stats(o, &r->prefill);
        json_add_f64(o, "throughput_tokens_per_sec", r->prefill_tokens_per_sec);
        json_add_f64(o, "TTFT_sec", r->TTFT_sec);
        json_add_f64(o, "mem_footprint_GB", r->prefill_mem_GiB);
        cJSON_AddBoolToObject(o, "out_of_memory", r->prefill_oom);
    } else {
        json_add_trace_stats(o, &r->decode);
        json_add_f64(o, "TPOT_ms_request", r->TPOT_ms_request);
        json_add_f64(o, "throughput_tokens_per_sec", r->decode_tokens_per_sec);
        json_add_f64(o, "throughput_tokens_per_sec_request", r->decode_tokens_per_sec_request);
        json_add_f64(o, "mem_footprint_GB", r->decode_mem_GiB);
        cJSON_AddBoolToObject(o, "out_of_memory", r->decode_oom);
        if (r->ext)
            json_add_f64(o, "e2e_throughput_tokens_per_sec", r->e2e_tokens_per_sec);
    }
    if (r->energy_done) {
        bool p = ph == PHASE_PREFILL;
        json_add_f64(o, "total_energy_J", p ? r->prefill_energy_J : r->decode_energy_J);
        json_add_f64(o, "energy_per_token_J",
                     p ? r->prefill_energy_per_token_J : r->decode_energy_per_token_J);
        if (r->ext)
            json_add_f64(o, "avg_power_W", p ? r->prefill_avg_power_W : r->decode_avg_power_W);
    }
    if (r->ext) {
        const struct trace_stats *s = ph == PHASE_PREFILL ? &r->prefill : &r->decode;
        json_add_f64(o, "power_cap_W", r->power_cap_W);
        if (r->framework_overhead_ns > 0)   /* chip.h step_overhead_ns, layer_overhead_ns */
            json_add_i64(o, "framework_overhead_ns_per_pass", r->framework_overhead_ns);
        json_add_i64(o, "power_capped_time_ns", s->power_capped_time_ns);
        json_add_i64(o, "params_total", r->params_total);
        json_add_i64(o, "params_active", r->params_active);
    }
    const struct invariant_warnings *w = &r->warn[ph == PHASE_PREFILL ? 0 : 1];
    if (w->n > 0) {
        cJSON *a = cJSON_AddArrayToObject(o, "warnings");
        for (int i = 0; i < w->n; i++)
            cJSON_AddItemToArray(a, cJSON_CreateString(w->msg[i]));
    }
    if (sim_config)
        cJSON_AddItemToObject(o, "sim_config", sim_config);
    return o;
}

/* What the throughputs count: "batch 8" with the microbatches in flight and
 * the DCN replica when there are several. */
static void batch_label(const struct llm_report *r, char *b, size_t n)
{
    int k = snprintf(b, n, "batch %lld", (long long)r->batch);
    if (r->microbatches > 1 && k > 0 && (size_t)k < n)
        k += snprintf(b + k, n - (size_t)k, ": %lld microbatches of %lld in the pipeline",
                      (long long)r->microbatches, (long long)(r->batch / r->microbatches));
    if (r->dp_dcn > 1 && k > 0 && (size_t)k < n)
        snprintf(b + k, n - (size_t)k, ", per DCN data-parallel replica");
}

void llm_report_print(const struct llm_report *r, int64_t hbm_GB, FILE *out)
{
    char batch[160];
    batch_label(r, batch, sizeof batch);   /* what the throughputs count */
    fprintf(out, "  TTFT          %.6f s (per request)\n", r->TTFT_sec);
    fprintf(out, "  TPOT          %.6f ms (per request)\n", r->TPOT_ms_request);
    fprintf(out, "  throughput    prefill %.1f tokens/s, decode %.1f tokens/s (%s)\n",
            r->prefill_tokens_per_sec, r->decode_tokens_per_sec, batch);
    /* With its energy per output token over both phases and every chip: a
     * sweep's energy_per_unit_J and the fleet's at full load. */
    char e2e_J[96] = "", chips[48] = "";
    if (r->energy_done) {
        snprintf(e2e_J, sizeof e2e_J, ", %.6g J per output token", r->e2e_energy_per_token_J);
        if (r->replica_chips > 1)
            snprintf(chips, sizeof chips, "; all %lld chips", (long long)r->replica_chips);
    }
    if (r->ext)
        fprintf(out, "  end to end    %.1f output tokens/s%s (batch %lld as above: its prefill, then its decode steps%s)\n",
                r->e2e_tokens_per_sec, e2e_J, (long long)r->batch, chips);
    /* The statistics' energy_per_token_J is one chip's share (the
     * reference's); a token costs every chip of the replica that much. */
    if (r->energy_done && r->replica_chips > 1)
        fprintf(out, "  energy/token  prefill %.6g J, decode %.6g J (all %lld chips%s)\n",
                r->prefill_energy_per_token_J * (double)r->replica_chips,
                r->decode_energy_per_token_J * (double)r->replica_chips, (long long)r->replica_chips,
                r->dp_dcn > 1 ? " of a DCN data-parallel replica" : "");
    else if (r->energy_done)
        fprintf(out, "  energy/token  prefill %.6g J, decode %.6g J\n", r->prefill_energy_per_token_J,
                r->decode_energy_per_token_J);
    if (r->energy_done && r->ext)
        fprintf(out, "  power/chip    prefill %.1f W, decode %.1f W (cap %.0f W)\n", r->prefill_avg_power_W,
                r->decode_avg_power_W, r->power_cap_W);
    int64_t capped = r->prefill.power_capped_time_ns + r->decode.power_capped_time_ns;
    if (capped > 0)
        fprintf(out, "  power cap     throttled: %.1f%% of prefill, %.1f%% of decode time ran at a lowered clock\n",
                100.0 * (double)r->prefill.power_capped_time_ns / (double)r->prefill.total_execution_time_chip_ns,
                100.0 * (double)r->decode.power_capped_time_ns / (double)r->decode.total_execution_time_chip_ns);
    fprintf(out, "  memory        prefill %.2f GiB, decode %.2f GiB of %lld GiB HBM%s\n",
            r->prefill_mem_GiB, r->decode_mem_GiB, (long long)hbm_GB,
            r->prefill_oom || r->decode_oom ? " (out of memory)" : "");
    if (r->ext && r->params_total > 0) {
        fprintf(out, "  parameters    %.3g B", (double)r->params_total / 1e9);
        if (r->params_active != r->params_total)
            fprintf(out, ", %.3g B active per token", (double)r->params_active / 1e9);
        fputc('\n', out);
    }
    for (int i = 0; i < 2; i++)
        invariants_print(&r->warn[i], "run", stderr);
}
