/* pipeline.c — one configuration end to end (generate, time, cap, energy)
 * and the LLM families' output files and capacity (see pipeline.h). */
#include "study/run/pipeline.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "chipsim/chipsim.h"
#include "opsgen/opsgen.h"
#include "power/energy.h"
#include "power/invariants.h"
#include "power/powercap.h"
#include "study/run/family.h"
#include "study/run/fit_hint.h"
#include "study/run/outputs.h"
#include "study/run/pyjson.h"

int family_generate(const struct family *fam, const struct loaded_config *c,
                    const struct profile *prof, struct trace *t, struct npu_err *e)
{
    struct opsgen_links l;
    config_links(&c->chip, &l);
    bool ovf = false;   /* the trace's overflow flag (opsgen/builders.h) */
    if ((fam->check && fam->check(c, e)) || (c->strict && fam->strict_fields && opsgen_check_strict(&c->model, e)) ||
        fam->gen(&c->model, &l, prof, t, &ovf, e))
        return config_name_source(c, e);
    /* A size the builders could not hold: one message for the whole trace,
     * since the product of several fields overflowed. */
    if (ovf)
        return npu_errf(e, "%s: an operator's size, FLOP count or time exceeds int64 (or a tensor 2^48 "
                           "elements): the model's dimensions, batch, sequence lengths and parallelism "
                           "multiply out of scale", c->model_name);
    return 0;
}

int pipeline_run(const struct family *fam, const struct loaded_config *c, const struct profile *prof,
                 bool energy, struct trace *t, struct npu_err *e)
{
    if (family_generate(fam, c, prof, t, e) || chipsim_run(t, &c->chip, prof, e) ||
        power_cap_pass(t, &c->chip, prof, e))
        return -1;
    return energy ? power_default_pass(t, &c->chip, prof, e) : 0;
}

/* Writes <dir>/<base>{,_prefill,_decode}.csv (combined only if `combined`)
 * and <base>_prefill.json / _decode.json, all together or none, to `to`;
 * mem: the phase footprint (NULL: the LLM formula), e.g. DeepSeek's. */
static int write_llm_outputs_mem(const struct loaded_config *c, const struct profile *prof,
                          const struct trace *t, const char *dir, const char *base, bool combined,
                          cJSON *sim_extra, llm_mem_fn mem, const struct output_sink *to, struct npu_err *e)
{
    struct llm_report r;
    if (llm_report_compute_mem(&c->model, &c->chip, prof, t, mem, &r, e))
        return -1;
    if (!combined)   /* results trees keep the reference's bytes */
        llm_report_check(&r, t, &c->chip, prof);
    struct output p[5];
    int n = 0;
    output_clear(p, 5);
    if (combined) {
        snprintf(p[n].path, sizeof p[n].path, "%s/%s.csv", dir, base);
        p[n].trace = t;
        p[n++].opts = (struct trace_csv_opts){ PHASE_NONE, false, false };
    }
    for (int ph = PHASE_PREFILL; ph <= PHASE_DECODE; ph++) {
        snprintf(p[n].path, sizeof p[n].path, "%s/%s_%s.csv", dir, base, phase_name(ph));
        p[n].trace = t;
        p[n++].opts = (struct trace_csv_opts){ (enum phase)ph, false, false };
    }
    cJSON *sim = config_dump(c, prof);
    const cJSON *it;
    if (sim_extra)
        cJSON_ArrayForEach(it, sim_extra)
            cJSON_AddItemToObject(sim, it->string, cJSON_Duplicate(it, 1));
    /* Both phases' files hold the same sim_config: one text, printed at its
     * depth in the files (the trees keep it as a raw item, study/run/results.h). */
    char *sim_text = pyjson_print_at(sim, 1);
    bool keep = to && to->keep;
    for (int ph = PHASE_PREFILL; ph <= PHASE_DECODE; ph++) {
        cJSON *j = llm_report_json(&r, (enum phase)ph, cJSON_CreateRaw(sim_text));
        snprintf(p[n].path, sizeof p[n].path, "%s/%s_%s.json", dir, base, phase_name(ph));
        p[n].text = pyjson_print(j);
        /* A tree handed on to the next stage of a suite holds sim_config as
         * the tree it was printed from, which that stage reads as it is
         * (parsing the text back cost perf.suite 23 million instructions):
         * a copy for prefill, the tree itself for decode. */
        if (keep)
            cJSON_ReplaceItemInObjectCaseSensitive(j, "sim_config", ph == PHASE_DECODE ? sim : cJSON_Duplicate(sim, 1));
        p[n++].tree = j;
    }
    if (!keep)
        cJSON_Delete(sim);
    free(sim_text);
    return write_outputs_to(p, n, to, e);
}

int write_llm_family_outputs(const struct loaded_config *c, const struct profile *prof,
                             const struct trace *t, const char *dir, const char *base, bool sweep,
                             llm_mem_fn mem, const struct output_sink *to, struct npu_err *e)
{
    if (!sweep)
        return write_llm_outputs_mem(c, prof, t, dir, base, false, NULL, mem, to, e);
    /* The reference's sweep adds these to sim_config. */
    const struct model_config *m = &c->model;
    cJSON *extra = cJSON_CreateObject();
    int64_t pods = m->data_parallel_degree_dcn * m->pipeline_parallel_degree_dcn;
    int64_t stages = m->pipeline_parallelism_degree * m->pipeline_parallel_degree_dcn;
    json_add_i64(extra, "num_pods", pods);
    json_add_i64(extra, "batch_size_per_pod", (m->global_batch_size + pods - 1) / pods);
    json_add_i64(extra, "layers_per_pp_stage", (m->num_layers + stages - 1) / stages);
    int rc = write_llm_outputs_mem(c, prof, t, dir, base, true, extra, mem, to, e);
    cJSON_Delete(extra);
    return rc;
}

void llm_capacity_from_report(const struct model_config *m, const struct llm_report *r,
                              struct family_capacity *cap)
{
    /* Steady state: every chip handles one microbatch per (prefill + decode)
     * chip time, the framework's host time of each forward pass included
     * (llm_report's busy_ns, as its e2e_tokens_per_sec); each request
     * yields output_seqlen tokens; the DCN data-parallel pods each serve
     * their own microbatches. */
    double busy_s = (double)r->busy_ns / 1e9;
    double chip_J = r->prefill_energy_J + r->decode_energy_J;
    cap->unit = "output tokens";
    cap->units_per_sec = (double)(m->microbatch_size_ici * m->data_parallel_degree_dcn *
                                  m->output_seqlen) / busy_s;
    cap->active_power_W = chip_J / busy_s * (double)m->num_chips;
    cap->has_mem = true;   /* the larger phase's footprint; either phase over HBM */
    cap->mem_GiB = r->prefill_mem_GiB > r->decode_mem_GiB ? r->prefill_mem_GiB : r->decode_mem_GiB;
    cap->oom = r->prefill_oom || r->decode_oom;
}

/* The footprint fit_hint asks for: the larger phase's, both named. */
struct llm_mem_arg { llm_mem_fn fn; };

static double llm_fit_mem(const struct model_config *m, const struct profile *prof, const void *arg, char *desc,
                          size_t n)
{
    llm_mem_fn mem = ((const struct llm_mem_arg *)arg)->fn;
    double pre = (double)mem(m, PHASE_PREFILL, prof) / 1073741824.0,
           dec = (double)mem(m, PHASE_DECODE, prof) / 1073741824.0;
    snprintf(desc, n, "prefill %.2f GiB, decode %.2f GiB", pre, dec);
    return pre > dec ? pre : dec;
}

void llm_family_summary(const struct loaded_config *c, const struct profile *prof, const struct trace *t,
                        llm_mem_fn mem, bool with_ep, FILE *out)
{
    const struct model_config *m = &c->model;
    struct llm_report r;
    struct npu_err e;
    fprintf(out, "%s on %s (%lld chip%s%s: dp %lld, tp %lld, pp %lld", c->model_name, c->chip_name,
            (long long)m->num_chips, m->num_chips == 1 ? "" : "s", config_chips_note(c), (long long)m->data_parallelism_degree,
            (long long)m->tensor_parallelism_degree, (long long)m->pipeline_parallelism_degree);
    if (with_ep)
        fprintf(out, ", ep %lld", (long long)m->expert_parallelism_degree);
    fprintf(out, "; microbatch %lld; %lld in / %lld out", (long long)m->microbatch_size_ici,
            (long long)m->input_seqlen, (long long)m->output_seqlen);
    if (m->cached_prompt_tokens > 0)   /* a prefix cache's hit: say what prefill computed */
        fprintf(out, "; %lld of each prompt cached, prefill computes %lld", (long long)m->cached_prompt_tokens,
                (long long)(m->input_seqlen - m->cached_prompt_tokens));
    fprintf(out, ")\n");
    if (llm_report_compute_mem(m, &c->chip, prof, t, mem, &r, &e)) {
        fprintf(out, "  (no statistics: %s)\n", e.msg);
        return;
    }
    llm_report_check(&r, t, &c->chip, prof);
    llm_report_print(&r, c->chip.hbm_size_GB, out);
    if (r.prefill_oom || r.decode_oom) {
        struct llm_mem_arg arg = { mem ? mem : opsgen_llm_inference_mem_bytes };
        fit_hint(c, prof, llm_fit_mem, &arg, false, out);
    }
}

int llm_family_capacity(const struct loaded_config *c, const struct profile *prof, const struct trace *t,
                        llm_mem_fn mem, struct family_capacity *cap, struct npu_err *e)
{
    struct llm_report r;
    if (llm_report_compute_mem(&c->model, &c->chip, prof, t, mem, &r, e))
        return -1;
    llm_capacity_from_report(&c->model, &r, cap);
    return 0;
}

void summary_warnings(const struct loaded_config *c, const struct profile *prof, const struct trace *t)
{
    struct invariant_warnings w = { 0 };
    invariants_check(t, PHASE_NONE, &c->chip, prof, "trace", &w);
    invariants_print(&w, "run", stderr);
}
