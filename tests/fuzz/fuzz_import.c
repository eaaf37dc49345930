/* fuzz_import.c — the importers (calib/importers.h) on arbitrary files:
 * every row is mapped, nested or listed, never lost, and what is written
 * reads back as a measurement file. The first byte picks the reader
 * (% 4): gemm-csv, chrome-trace, nsys-csv, or a --names rules file (then
 * used on a fixed kernel summary); the rest is the file. Seeds:
 * corpus/import/. */
#include "fuzz_common.h"

#include "calib/importers.h"
#include "calib/op_table.h"

static const char summary[] =
    "\"Time (%)\",\"Total Time (ns)\",\"Instances\",\"Avg (ns)\",\"Med (ns)\",\"Name\"\n"
    "\"50\",\"100\",\"1\",\"100.0\",\"100.0\",\"bench_gemm_m64_n32_k16\"\n"
    "\"50\",\"100\",\"1\",\"100.0\",\"100.0\",\"softmax_8x1024\"\n";

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (size < 1)
        return 0;
    int mode = data[0] % 4;
    char in[128], out[128], names[128];
    snprintf(in, sizeof in, "%s/in.csv", fuzz_dir());
    snprintf(out, sizeof out, "%s/out.csv", fuzz_dir());
    snprintf(names, sizeof names, "%s/names.csv", fuzz_dir());
    struct npu_err e;
    struct name_rules *rules = NULL;
    if (mode == 3) {
        fuzz_write(names, data + 1, size - 1);
        fuzz_write(in, (const uint8_t *)summary, sizeof summary - 1);
        if (!(rules = name_rules_load(names, &e)))
            return 0;
    } else {
        fuzz_write(in, data + 1, size - 1);
        if (mode && !(rules = name_rules_load(NULL, &e)))
            abort();   /* the built-in rules always compile */
    }
    struct strbuf b = STRBUF_GROWING;
    (mode ? import_trace_header : import_header)(&b);
    struct import_report rep;
    memset(&rep, 0, sizeof rep);
    int rc = mode == 0   ? import_gemm_csv(in, "fp16", &b, &rep, &e)
             : mode == 1 ? import_chrome_trace(in, NULL, rules, &b, &rep, &e)
                         : import_nsys_csv(in, "bf16", rules, &b, &rep, &e);
    if (rc == 0) {
        if (rep.mapped + rep.unmapped + rep.nested != rep.rows || rep.listed > IMPORT_LIST_MAX ||
            rep.listed_rows > rep.unmapped)
            abort();   /* every row accounted for */
        if (rep.mapped) {
            fuzz_write(out, (const uint8_t *)b.s, b.n);
            struct op_table t;
            if (op_table_read(out, &t, &e) || t.n != (size_t)rep.mapped)
                abort();   /* the native rows read back, all of them */
            op_table_free(&t);
        }
    }
    name_rules_free(rules);
    free(b.s);
    return 0;
}
