/* shape_text.h — the shape spellings of the op record's text columns.
 *
 * in_shapes is "DT:[d0,d1]" per input, joined by ','; out_shape is
 * "[DT:(d0,d1)]". opsgen prints them for every op; chipsim prints them again
 * from an op's parsed twin (op->shp) for its error messages when a lean
 * trace (op.h) left the text out. Header-only, on strbuf. */
#ifndef NPUSIM_SHAPE_TEXT_H
#define NPUSIM_SHAPE_TEXT_H

#include "traces/strbuf.h"

static inline void shape_text_dims(struct strbuf *b, const int64_t *d, int nd)
{
    for (int i = 0; i < nd; i++) {
        if (i)
            strbuf_putc(b, ',');
        strbuf_puti(b, d[i]);
    }
}

/* One input: "DT:[d0,d1]". */
static inline void shape_text_in(struct strbuf *b, const char *dt, const int64_t *d, int nd)
{
    strbuf_puts(b, dt);
    strbuf_putn(b, ":[", 2);
    shape_text_dims(b, d, nd);
    strbuf_putc(b, ']');
}

/* The output: "[DT:(d0,d1)]". */
static inline void shape_text_out(struct strbuf *b, const char *dt, const int64_t *d, int nd)
{
    strbuf_putc(b, '[');
    strbuf_puts(b, dt);
    strbuf_putn(b, ":(", 2);
    shape_text_dims(b, d, nd);
    strbuf_putn(b, ")]", 2);
}

#endif
