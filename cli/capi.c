/* capi.c — the shared library's entry points (see capi.h): the HTTP API's
 * handler (serve_api.c) called in process. No data structure of its own. */
#include "cli/capi.h"

#include <limits.h>
#include <stdlib.h>
#include <string.h>

#include "cli/serve.h"
#include "traces/version.h"

char *npusim_call(const char *path, const char *request, const char *configs, const char *profile, int *status)
{
    const struct profile *prof = profile_by_name(profile ? profile : "physical");
    struct api_response r;
    if (!prof) {
        *status = 400;
        return strdup("{\"error\": \"profile: expected physical or neusim\"}");
    }
    struct api_ctx ctx = { configs, prof, LONG_MAX, 0, true };   /* no bound: the caller is the user */
    api_handle(&ctx, request ? "POST" : "GET", path ? path : "", request ? request : "", request ? strlen(request) : 0,
               &r);
    *status = r.status;
    return r.body;
}

void npusim_free(char *text) { free(text); }

const char *npusim_version(void) { return NPUSIM_VERSION; }
