/* fuzz_api.c — the JSON API of `npusim serve` (api/api.h) on arbitrary
 * request bodies: every answer is a status the API documents (200, 400,
 * 503) with a JSON body, never a crash. The first byte picks the route
 * (% 8): POST /api/op, /api/validate, /api/sweep (at most 8 points, one
 * second), /api/calibrate, the stages /api/energy, /api/carbon, /api/slo,
 * or /api/serving (its run stopped at the one second: 503)
 * (their sweep bounded the same; the private folder each makes is removed,
 * and "results" is refused as the server refuses it) (simulate and fleet
 * are left out: a valid request may ask for a run of any size; fuzz_fleet
 * reads fleet files);
 * the rest is the body. Configs
 * from ./configs (the harnesses run from the checkout). Seeds:
 * corpus/api/. */
#include "fuzz_common.h"

#include "api/api.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (size < 1)
        return 0;
    static const char *const paths[] = { "/api/op",     "/api/validate", "/api/sweep", "/api/calibrate",
                                         "/api/energy", "/api/carbon",   "/api/slo",       "/api/serving" };
    struct api_ctx ctx = { fuzz_configs(), profile_by_name("physical"), 8, 1.0, false, true, 2000 };   /* as the server */
    struct api_response r;
    char *body = fuzz_text(data + 1, size - 1);
    api_handle(&ctx, "POST", paths[data[0] % 8], body, size - 1, &r);
    if (!r.body || (r.status != 200 && r.status != 400 && r.status != 503) || r.body[0] != '{')
        abort();
    free(r.body);
    free(body);
    return 0;
}
