/* formats.c — number formats and block scales on a model's ops (see
 * formats.h). */
#include "opsgen/formats.h"

#include <stdio.h>
#include <string.h>

#include "opsgen/builders.h"
#include "traces/precision.h"

#define BF16 "DT_BFLOAT16"

static const char *token_of(const char *name, const char *otherwise)
{
    int p = precision_by_name(name);
    return p < 0 ? otherwise : precision_info((enum precision)p)->token;
}

void tensor_formats_of(const struct model_config *m, struct tensor_formats *f)
{
    f->act = token_of(m->activation_dtype, BF16);
    f->weight = token_of(m->weight_dtype, BF16);
    f->kv = token_of(m->kv_cache_dtype, BF16);
    f->scale = token_of(m->scale_dtype, "DT_FLOAT");
    f->scale_k = m->scale_block;
    f->scale_n = m->weight_scale_block_n > 0 ? m->weight_scale_block_n : m->scale_block;
}

void tensor_formats_experts(const struct model_config *m, struct tensor_formats *f)
{
    tensor_formats_of(m, f);
    if (strcmp(m->expert_weight_dtype, "same") && m->expert_weight_dtype[0])
        f->weight = token_of(m->expert_weight_dtype, BF16);
}

struct op *fmt_store_rest(bool *ovf, const struct tensor_formats *fmt, struct op *op, const char *dt)
{
    if (!op || !fmt || !strcmp(dt, op->form.dtype))
        return op;
    snprintf(op->form.dtype_rest, sizeof op->form.dtype_rest, "%s", dt);
    if (op->weight_bytes > 0) {
        int64_t elems = 1;
        for (int i = 0; i < op->form.nd[1]; i++)
            elems = bmul(ovf, elems, op->form.d[1][i]);
        op->weight_bytes = bld_tensor_bytes(ovf, elems, dt);
    }
    return op;
}

struct op *fmt_weights(bool *ovf, const struct tensor_formats *fmt, struct op *op)
{
    if (!op || !fmt)
        return op;
    fmt_store_rest(ovf, fmt, op, fmt->weight);
    /* Block scales matter for 8-bit and narrower operands; chipsim sizes
     * their tensors and rescaling from the form. */
    if (fmt->scale_k > 0 && (dtype_bits(fmt->weight) <= 8 || dtype_bits(op->form.dtype) <= 8)) {
        op->form.scale_k = (uint16_t)fmt->scale_k;
        op->form.scale_n = (uint16_t)fmt->scale_n;
        snprintf(op->form.scale_dtype, sizeof op->form.scale_dtype, "%s", fmt->scale);
    }
    return op;
}

int64_t fmt_stored_bytes(bool *ovf, int64_t n, const struct tensor_formats *f)
{
    int64_t scales = 0;
    if (f->scale_k > 0 && dtype_bits(f->weight) <= 8)
        scales = bld_tensor_bytes(ovf, cdiv64(n, bmul(ovf, f->scale_k, f->scale_n)), f->scale);
    return badd(ovf, bld_tensor_bytes(ovf, n, f->weight), scales);
}

double fmt_bytes_per_weight(const struct tensor_formats *f)
{
    double b = dtype_bits(f->weight) / 8.0;
    if (f->scale_k > 0 && dtype_bits(f->weight) <= 8)
        b += dtype_bits(f->scale) / 8.0 / (double)(f->scale_k * f->scale_n);
    return b;
}
