/* testutil_model.h — a shipped model file (testutil.h's test_model_text)
 * loaded into a struct model_config for the unit tests that check figures
 * against the data (test_deepseek.c, test_params.c, test_pattern.c); the
 * tests run from the checkout. */
#ifndef NPUSIM_TESTUTIL_MODEL_H
#define NPUSIM_TESTUTIL_MODEL_H

#include <cjson/cJSON.h>

#include "testutil.h"
#include "opsgen/model.h"
#include "opsgen/opsgen.h"

static inline void load_model(struct model_config *m, const char *name)
{
    cJSON *j = cJSON_Parse(test_model_text(name));
    assert_non_null(j);
    struct npu_err e;
    if (model_config_from_json(m, j, NULL, &e))
        fail_msg("%s", e.msg);
    cJSON_Delete(j);
}

/* A TPU-like chip's links for the generators (200 GB/s ICI on a 3-D torus,
 * 95 GB of HBM), as the pattern and layer tests use them. */
static inline const struct opsgen_links *test_opsgen_links(void)
{
    static struct opsgen_links l = { .ici_bw_GBps = 200, .dcn_bw_GBps = 25, .hbm_size_GB = 95, .pcie_bw_GBps = 32.0,
                                     .ici_latency_ns = 3330, .dcn_latency_ns = 3700, .pcie_latency_ns = 400,
                                     .ICI_topology = "TORUS_3D" };
    return &l;
}

#endif
