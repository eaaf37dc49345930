/* fuzz_import.c — the importers (calib/importers.h) on arbitrary files:
 * every row is mapped or listed, never lost, and what is written reads back
 * as a measurement file. Seeds: corpus/import/. */
#include "fuzz_common.h"

#include "calib/importers.h"
#include "calib/op_table.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    char in[128], out[128];
    snprintf(in, sizeof in, "%s/in.csv", fuzz_dir());
    snprintf(out, sizeof out, "%s/out.csv", fuzz_dir());
    fuzz_write(in, data, size);
    struct strbuf b = STRBUF_GROWING;
    import_header(&b);
    struct import_report rep;
    memset(&rep, 0, sizeof rep);
    struct npu_err e;
    if (import_gemm_csv(in, "fp16", &b, &rep, &e) == 0) {
        if (rep.mapped + rep.unmapped != rep.rows || rep.listed > IMPORT_LIST_MAX)
            abort();   /* every row accounted for */
        if (rep.mapped) {
            fuzz_write(out, (const uint8_t *)b.s, b.n);
            struct op_table t;
            if (op_table_read(out, &t, &e) || t.n != (size_t)rep.mapped)
                abort();   /* the native rows read back, all of them */
            op_table_free(&t);
        }
    }
    free(b.s);
    return 0;
}
