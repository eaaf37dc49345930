/* shape.c — chipsim's messages and tensor sizes: errors naming the op,
 * the op's cells for them (config, in_shapes, out_shape: its text, or
 * printed from its form), element counts and dtype sizes with the
 * reference's substring rules. The tensors themselves come from
 * traces/op_form.h (the form, or the CSV text parsed there). */
#include "chipsim/cs_internal.h"
#include "traces/precision.h"
#include "base/strbuf.h"

#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int cs_errf(const struct cs_ctx *c, const char *fmt, ...)
{
    char msg[768];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof msg, fmt, ap);
    va_end(ap);
    return npu_errf(c->e, "op %zu \"%s\": %s", c->index, c->op->name ? c->op->name : "", msg);
}

const char *cs_config_text(const struct cs_ctx *c)
{
    static _Thread_local char buf[OP_CELL_MAX];
    return op_config_text(c->op, buf, sizeof buf);
}

const char *cs_in_text(const struct cs_ctx *c)
{
    static _Thread_local char buf[OP_CELL_MAX];
    return op_in_shapes_text(c->op, buf, sizeof buf);
}

const char *cs_out_text(const struct cs_ctx *c)
{
    static _Thread_local char buf[OP_CELL_MAX];
    return op_out_shape_text(c->op, buf, sizeof buf);
}

int64_t tensor_elems(const struct tensor *t)
{
    int64_t n = 1;
    for (int i = 0; i < t->ndim; i++)
        n *= t->dims[i];
    return n;
}

int cs_dtype_bits(const char *dt, bool bracketed)
{
    /* The frontend output dtype keeps its "[" so the exact-match tests for
     * DT_FLOAT / DT_INT fail there (chipsim Q15). */
    if (bracketed && (!strcmp(dt, "DT_FLOAT") || !strcmp(dt, "DT_INT")))
        return -1;
    return dtype_bits(dt);
}



