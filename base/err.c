/* err.c — formatting of error values (see err.h). */
#include "base/err.h"

#include <stdio.h>

int npu_errf(struct npu_err *e, const char *fmt, ...)
{
    if (e) {
        va_list ap;
        va_start(ap, fmt);
        vsnprintf(e->msg, sizeof e->msg, fmt, ap);
        va_end(ap);
    }
    return -1;
}
