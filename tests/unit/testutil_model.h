/* testutil_model.h — a shipped model file (testutil.h's test_model_text)
 * loaded into a struct model_config for the unit tests that check figures
 * against the data (test_deepseek.c, test_params.c, test_pattern.c); the
 * tests run from the checkout. */
#ifndef NPUSIM_TESTUTIL_MODEL_H
#define NPUSIM_TESTUTIL_MODEL_H

#include <cjson/cJSON.h>

#include "testutil.h"
#include "opsgen/model.h"

static inline void load_model(struct model_config *m, const char *name)
{
    cJSON *j = cJSON_Parse(test_model_text(name));
    assert_non_null(j);
    struct npu_err e;
    if (model_config_from_json(m, j, NULL, &e))
        fail_msg("%s", e.msg);
    cJSON_Delete(j);
}

#endif
