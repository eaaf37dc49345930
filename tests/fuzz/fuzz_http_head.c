/* fuzz_http_head.c — the request-head checks of `npusim serve`'s gate
 * (cli/http_head.c) on any bytes, as a client may send them.
 *
 * Every answer is one of the statuses the gate sends; a complete head's
 * length lies within the input and ends with its blank line; the refusal's
 * message makes a JSON answer that parses. Seeds: corpus/http_head/. */
#include "fuzz_common.h"

#include "cli/http.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    struct http_head h;
    char why[160] = "", text[1024];
    int rc = http_head_check((const char *)data, size, 1 << 20, &h, why, sizeof why);
    switch (rc) {
    case 0:
        if (h.len == 0 || h.len > size || data[h.len - 1] != '\n' || !h.method[0] ||
            (data[h.len - 2] != '\n' && (data[h.len - 2] != '\r' || data[h.len - 3] != '\n')))
            abort();
        break;
    case 1: break;
    case 400: case 413: case 414: case 431: case 505: {
        size_t n = http_error_text(rc, why, 0, text, sizeof text);
        const char *body = n ? strstr(text, "\r\n\r\n") : NULL;
        cJSON *j = body ? cJSON_Parse(body + 4) : NULL;
        if (!j || !cJSON_IsString(cJSON_GetObjectItem(j, "error")))
            abort();
        cJSON_Delete(j);
        break;
    }
    default: abort();
    }
    return 0;
}
