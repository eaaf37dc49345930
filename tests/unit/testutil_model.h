/* testutil_model.h — a shipped model file loaded into a struct model_config
 * for the unit tests that check figures against the data (test_deepseek.c,
 * test_params.c); the tests run from the checkout. */
#ifndef NPUSIM_TESTUTIL_MODEL_H
#define NPUSIM_TESTUTIL_MODEL_H

#include <cjson/cJSON.h>
#include <stdio.h>

#include "opsgen/model.h"

static inline void load_model(struct model_config *m, const char *name)
{
    char path[256], buf[1 << 14];
    snprintf(path, sizeof path, "configs/models/%s.json", name);
    FILE *f = fopen(path, "rb");
    assert_non_null(f);
    size_t n = fread(buf, 1, sizeof buf - 1, f);
    fclose(f);
    buf[n] = '\0';
    cJSON *j = cJSON_Parse(buf);
    assert_non_null(j);
    struct npu_err e;
    if (model_config_from_json(m, j, NULL, &e))
        fail_msg("%s", e.msg);
    cJSON_Delete(j);
}

#endif
