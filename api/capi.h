/* capi.h — npusim as a shared library for other languages (libnpusim.so;
 * the Python package python/npusim calls it through ctypes). One call: an
 * endpoint of the HTTP API (docs/api.md) with its JSON request, answered
 * with its JSON, in this process and without HTTP. Unlike `npusim serve`,
 * config paths are taken as well as names and a sweep has no size or time
 * bound: the caller is the user. No data structure of its own. */
#ifndef NPUSIM_CAPI_H
#define NPUSIM_CAPI_H

/* The answer to path (an endpoint of docs/api.md: "/api/simulate",
 * "/api/op", "/api/sweep", "/api/fleet", "/api/calibrate", "/api/validate",
 * or the lists "/api/chips", "/api/models", "/api/systems",
 * "/api/strategies", "/api/fields") with the JSON request (NULL for the
 * lists); configs: where names resolve
 * first (NULL: the usual places); profile: "physical" (NULL) or "neusim".
 * *status is the HTTP status the server would give (200, 400, 404, ...);
 * errors are {"error": "..."} with the command line's message. The text is
 * malloc'ed: free it with npusim_free. NULL only when out of memory. */
char *npusim_call(const char *path, const char *request, const char *configs, const char *profile, int *status);
void npusim_free(char *text);
/* "0.2.0" */
const char *npusim_version(void);

#endif
