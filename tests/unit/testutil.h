/* testutil.h — shared includes and helpers for the cmocka unit tests. */
#ifndef NPUSIM_TESTUTIL_H
#define NPUSIM_TESTUTIL_H

#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <math.h>
#include <string.h>

/* Exact integer comparison with readable failure output. */
#define assert_i64(a, b) assert_int_equal((int64_t)(a), (int64_t)(b))
/* Relative comparison for doubles that are hand-derived to ~1e-12. */
#define assert_close(a, b) assert_true(fabs((double)(a) - (double)(b)) <= 1e-9 * fmax(1.0, fabs((double)(b))))

/* Path to the source tree's tests/ folder (tests run from the repo root). */
#define TEST_DATA(p) "tests/" p

#include <stdio.h>
#include <stdlib.h>

#include <cjson/cJSON.h>

#include "chipsim/chip.h"
#include "traces/op.h"

/* The text of configs/<kind>/<name>.json (kept for the test's lifetime), so
 * tests run on the shipped models instead of copies of them. Chips come from
 * tests/golden/configs/chips/: the reference's chips (plus npusim's
 * calibration fields as first released), which the hand-derived values of
 * the spec are for; configs/chips/ holds the corrected presets. */
static inline const char *test_config_text(const char *kind, const char *name)
{
    static struct { char key[128]; char text[1 << 14]; } slot[64];
    char key[128];
    snprintf(key, sizeof key, "%s/%s", kind, name);
    int i = 0;
    for (; i < 64 && slot[i].key[0] && strcmp(slot[i].key, key); i++)
        ;
    assert_true(i < 64);
    if (!slot[i].key[0]) {
        char path[256];
        snprintf(path, sizeof path, "%s/%s.json", strcmp(kind, "chips") ? "configs" : "tests/golden/configs",
                 key);
        FILE *f = fopen(path, "rb");
        assert_non_null(f);
        size_t n = fread(slot[i].text, 1, sizeof slot[i].text - 1, f);
        fclose(f);
        slot[i].text[n] = '\0';
        snprintf(slot[i].key, sizeof slot[i].key, "%s", key);
    }
    return slot[i].text;
}
#define test_model_text(name) test_config_text("models", name)

/* Loads tests/golden/configs/chips/<name>.json over the class defaults. */
static inline void test_chip(const char *name, struct chip_config *c)
{
    cJSON *j = cJSON_Parse(test_config_text("chips", name));
    assert_non_null(j);
    chip_config_default(c);
    struct npu_err e;
    assert_int_equal(fields_from_json(&chip_fields, c, j, NULL, &e), 0);
    cJSON_Delete(j);
}

/* An op's config, in_shapes and out_shape cells as the CSV writer prints
 * them (its text, or its form's). Each returns one of four rotating static
 * buffers, so that a few calls can sit in one assertion. */
static inline char *test_cell_buf(void)
{
    static char buf[4][4096];
    static int next;
    return buf[next++ & 3];
}
static inline const char *cfg_text(const struct op *o) { return op_config_text(o, test_cell_buf(), 4096); }
static inline const char *in_text(const struct op *o) { return op_in_shapes_text(o, test_cell_buf(), 4096); }
static inline const char *out_text(const struct op *o) { return op_out_shape_text(o, test_cell_buf(), 4096); }
static inline const char *tiles_text(const struct op *o) { return op_tile_shapes_text(o, test_cell_buf(), 4096); }
static inline const char *labels_text(const struct op *o) { return op_dim_labels_text(o); }

/* op_set with printf formatting. */
static inline void __attribute__((format(printf, 2, 3))) op_setf(char **field, const char *fmt, ...)
{
    char buf[1024];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(buf, sizeof buf, fmt, ap);
    va_end(ap);
    op_set(field, buf);
}

/* Appends an op with the creation-time strings chipsim reads. */
static inline struct op *test_op(struct trace *t, const char *name, const char *config,
                                 const char *in, const char *out, enum op_type type, int64_t flops)
{
    struct op *op = trace_push(t);
    op_set(&op->name, name);
    op_set(&op->config, config);
    op_set(&op->in_shapes, in);
    op_set(&op->out_shape, out);
    op->type = type;
    op->flops = flops;
    return op;
}

#endif
