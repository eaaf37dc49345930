/* capi.c — the shared library's entry points (see capi.h): the HTTP API's
 * handler (api/routes.c) called in process. No data structure of its own. */
#include "api/capi.h"

#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "api/api.h"
#include "study/run/run.h"
#include "base/version.h"

char *npusim_call(const char *path, const char *request, const char *configs, const char *profile, int *status)
{
    pyjson_allocator_init();   /* the library's choice of cJSON allocator, as main's (study/run/pyjson.h) */
    /* no profile: the command line's default (profile_default), not a copy of its name */
    const struct profile *prof = profile ? profile_by_name(profile) : profile_default();
    struct api_response r;
    if (!prof) {
        char msg[200];   /* the names only: the caller's text is not echoed into the JSON unescaped */
        snprintf(msg, sizeof msg, "{\"error\": \"profile: expected one of %s\"}", profile_names());
        *status = 400;
        return strdup(msg);
    }
    struct api_ctx ctx = { configs, prof, LONG_MAX, 0, true, false, 0 };   /* no bound: the caller is the user */
    api_handle(&ctx, request ? "POST" : "GET", path ? path : "", request ? request : "", request ? strlen(request) : 0,
               &r);
    *status = r.status;
    return r.body;
}

void npusim_free(char *text) { free(text); }

const char *npusim_version(void) { return NPUSIM_VERSION; }
