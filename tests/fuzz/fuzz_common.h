/* fuzz_common.h — shared pieces of the libFuzzer harnesses (tests/fuzz/README.md).
 *
 * Each harness is one reader: any input must parse or fail with a message,
 * never crash, leak, overflow or hang. `make fuzz` builds them with clang and
 * ASan+UBSan; the seed corpora live in tests/fuzz/corpus/<harness>/ and every
 * input that once crashed in tests/fuzz/regress/<harness>/. */
#ifndef NPUSIM_FUZZ_COMMON_H
#define NPUSIM_FUZZ_COMMON_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

/* The input as a NUL-terminated string (readers of text files take those). */
static inline char *fuzz_text(const uint8_t *data, size_t size)
{
    char *s = malloc(size + 1);
    if (!s)
        abort();
    memcpy(s, data, size);
    s[size] = '\0';
    return s;
}

/* A scratch folder of this process, made once (files in it are rewritten per input). */
static inline const char *fuzz_dir(void)
{
    static char dir[64];
    if (!dir[0] && !mkdtemp(strcpy(dir, "/tmp/npusim-fuzz-XXXXXX")))
        abort();
    return dir;
}

/* Writes data to path (in fuzz_dir()), whole. */
static inline void fuzz_write(const char *path, const uint8_t *data, size_t size)
{
    FILE *f = fopen(path, "wb");
    if (!f || fwrite(data, 1, size, f) != size || fclose(f) != 0)
        abort();
}

/* The shipped configs: NPUSIM_CONFIGS, else ./configs (run from the repo root). */
static inline const char *fuzz_configs(void)
{
    const char *d = getenv("NPUSIM_CONFIGS");
    return d && *d ? d : "configs";
}

#endif
