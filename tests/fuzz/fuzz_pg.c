/* fuzz_pg.c — power-gating strategy JSON: read, written back, read again.
 *
 * A strategy that loads must write as JSON that loads to the same strategy
 * (names with quotes and backslashes included). Seeds: configs/pg/. */
#include "fuzz_common.h"

#include "power/pg.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    char *text = fuzz_text(data, size);
    struct pg_strategy s, back;
    struct npu_err e;
    pg_strategy_default(&s);
    if (pg_strategy_from_json_text(text, "fuzz.json", &s, &e) == 0) {
        char *buf = NULL;
        size_t len = 0;
        FILE *f = open_memstream(&buf, &len);
        if (!f || pg_strategy_write_json(&s, f) != 0 || fclose(f) != 0)
            abort();
        pg_strategy_default(&back);
        if (pg_strategy_from_json_text(buf, "written.json", &back, &e) != 0 || !pg_strategy_equal(&s, &back)) {
            fprintf(stderr, "round trip failed: %s\n%s\n", e.msg, buf);
            abort();
        }
        free(buf);
    }
    free(text);
    return 0;
}
