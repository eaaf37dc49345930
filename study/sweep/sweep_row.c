/* sweep_row.c — summary rows of the sweep (see sweep_row.h). */
#include "study/sweep/sweep_row.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/pyfmt.h"
#include "base/strbuf.h"

#define FIXED_COLUMNS                                                                              \
    "index,model,workload,chip,num_chips,dp,tp,pp,ep,dp_dcn,pp_dcn,batch,status,TTFT_s,TPOT_ms,"    \
    "prefill_tokens_per_s,decode_tokens_per_s,throughput,throughput_unit,energy_per_unit_J,"        \
    "carbon_per_unit_kgCO2e,memory_GiB,out_of_memory"

const char *row_header(const struct spec_field *fields, int nfields)
{
    static _Thread_local char buf[16384];
    size_t l = (size_t)snprintf(buf, sizeof buf, "%s", FIXED_COLUMNS);
    for (int i = 0; i < nfields && l < sizeof buf; i++)
        l += (size_t)snprintf(buf + l, sizeof buf - l, ",%s", fields[i].key);
    if (l + 2 <= sizeof buf)
        strcpy(buf + l, "\n");
    return buf;
}


/* ",value" with CSV quoting (line breaks become spaces: one row, one line).
 * Runs of plain characters are appended whole. */
static void sb_cell(struct strbuf *b, const char *v)
{
    bool q = strpbrk(v, ",\"\r\n") != NULL;
    strbuf_puts(b, q ? ",\"" : ",");
    while (*v) {
        size_t run = strcspn(v, "\"\r\n");
        strbuf_putn(b, v, run);
        v += run;
        if (*v) {
            strbuf_puts(b, *v == '"' ? "\"\"" : " ");
            v++;
        }
    }
    if (q)
        strbuf_puts(b, "\"");
}

static void sb_num(struct strbuf *b, bool have, double v)
{
    char t[40];
    strbuf_puts(b, ",");
    if (have)
        strbuf_puts(b, py_repr_double(v, t, sizeof t));
}

/* sep (or nothing when 0) then v in decimal. */
static void sb_int(struct strbuf *b, char sep, int64_t v)
{
    char t[24];
    struct strbuf tb = STRBUF(t);
    if (sep)
        strbuf_putc(&tb, sep);
    strbuf_puti(&tb, v);
    strbuf_putn(b, tb.s, tb.n);
}

char *row_format(long index, const char *model, const char *workload, const char *chip,
                 const struct model_config *m, int64_t batch, const struct row_result *r,
                 const char *field_csv)
{
    struct strbuf b = STRBUF_GROWING;
    char t[640];
    sb_int(&b, 0, index);
    sb_cell(&b, model);
    sb_cell(&b, workload);
    sb_cell(&b, chip);
    sb_int(&b, ',', m->num_chips);
    sb_int(&b, ',', m->data_parallelism_degree);
    sb_int(&b, ',', m->tensor_parallelism_degree);
    sb_int(&b, ',', m->pipeline_parallelism_degree);
    sb_int(&b, ',', m->expert_parallelism_degree);
    sb_int(&b, ',', m->data_parallel_degree_dcn);
    sb_int(&b, ',', m->pipeline_parallel_degree_dcn);
    sb_int(&b, ',', batch);
    switch (r->status) {
    case ROW_OK: strcpy(t, "ok"); break;
    case ROW_INVALID: snprintf(t, sizeof t, "invalid: %s", r->msg); break;
    case ROW_ERROR: snprintf(t, sizeof t, "error: %s", r->msg); break;
    case ROW_EXISTING: strcpy(t, "existing"); break;
    }
    sb_cell(&b, t);
    sb_num(&b, r->has_llm, r->ttft_s);
    sb_num(&b, r->has_llm, r->tpot_ms);
    sb_num(&b, r->has_llm, r->prefill_tps);
    sb_num(&b, r->has_llm, r->decode_tps);
    sb_num(&b, r->has_cap, r->throughput);
    sb_cell(&b, r->has_cap ? r->unit : "");
    sb_num(&b, r->has_cap, r->energy_per_unit_J);
    sb_num(&b, r->has_cap, r->carbon_per_unit_kg);
    sb_num(&b, r->has_mem, r->mem_GiB);
    strbuf_puts(&b, r->has_mem ? (r->oom ? ",True" : ",False") : ",");
    strbuf_puts(&b, field_csv ? field_csv : "");
    strbuf_puts(&b, "\n");
    return b.s;
}
