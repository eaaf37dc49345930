/* err.h — error values that travel up the stack.
 *
 * Nothing below cli/ prints or exits: a failing function fills a struct
 * npu_err with one message naming the file, the field and what was expected,
 * and returns -1. The CLI prints the message and exits with status 2. */
#ifndef NPUSIM_ERR_H
#define NPUSIM_ERR_H

#include <stdarg.h>

struct npu_err {
    char msg[1024];
};

/* Formats the message into e (when e is non-NULL) and returns -1, so callers
 * can write `return npu_errf(e, "...", ...);`. */
int npu_errf(struct npu_err *e, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));

#endif
