/* cmd_import.c — `npusim import`: measurements in other formats converted
 * to the native one (calib/importers.h), what cannot be mapped counted and
 * listed. No data structure of its own. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli/cli.h"
#include "calib/importers.h"
#include "study/outputs.h"
#include "traces/precision.h"

static const char import_help[] =
    "usage: npusim import FORMAT FILE... --dtype D -o OUT.csv\n"
    "\n"
    "Converts measurements to npusim's native format (op,dtype,m,n,k,batch,time_us, which\n"
    "npusim op --csv, validate and calibrate read). Rows that cannot be mapped are never\n"
    "dropped in silence: they are counted and listed on stderr (file, line, why).\n"
    "\n"
    "formats:\n"
    "  gemm-csv   headerless GEMM timings as simulator papers publish them, one per line:\n"
    "             \"M, K, N, 0.19ms, 101.7Tflops\" (time in s, ms, us or ns; the throughput\n"
    "             in T/G/Mflops must agree with 2 M N K / time within 5%)\n"
    "\n"
    "options:\n"
    "      --dtype D           the number format the rows were measured in (fp16, bf16, ...)\n"
    "  -o, --out FILE          the native CSV\n"
    "  -h, --help              this help\n";

int cmd_import(int argc, char **argv)
{
    static const struct option longopts[] = {
        { "dtype", required_argument, 0, 'd' }, { "out", required_argument, 0, 'o' },
        { "help", no_argument, 0, 'h' }, { 0, 0, 0, 0 },
    };
    const char *dtype = NULL, *out_path = NULL;
    int c;
    optind = 1;
    opterr = 0;
    while ((c = getopt_long(argc, argv, "o:h", longopts, NULL)) != -1) {
        switch (c) {
        case 'h': fputs(import_help, stdout); return 0;
        case 'd': dtype = optarg; break;
        case 'o': out_path = optarg; break;
        default: return usage_error("import", "unknown option or missing value \"%s\"", argv[optind - 1]);
        }
    }
    if (optind >= argc || strcmp(argv[optind], "gemm-csv"))
        return usage_error("import", "expected a FORMAT (gemm-csv), got \"%s\"", optind < argc ? argv[optind] : "");
    if (optind + 1 >= argc)
        return usage_error("import", "expected at least one FILE");
    if (!dtype || precision_by_name(dtype) < 0)
        return usage_error("import", "--dtype \"%s\": expected one of %s", dtype ? dtype : "", precision_names());
    if (!out_path)
        return usage_error("import", "expected -o OUT.csv");
    const char *name = precision_info((enum precision)precision_by_name(dtype))->name;
    struct strbuf b = STRBUF_GROWING;
    import_header(&b);
    struct import_report rep;
    memset(&rep, 0, sizeof rep);
    struct npu_err e;
    for (int i = optind + 1; i < argc; i++)
        if (import_gemm_csv(argv[i], name, &b, &rep, &e)) {
            free(b.s);
            return report_error("import", &e);
        }
    for (int i = 0; i < rep.listed; i++)
        fprintf(stderr, "npusim import: not mapped: %s\n", rep.why[i]);
    if (rep.unmapped > rep.listed)
        fprintf(stderr, "npusim import: ... and %d more not mapped\n", rep.unmapped - rep.listed);
    fprintf(stderr, "npusim import: %d rows: %d mapped, %d not mapped\n", rep.rows, rep.mapped, rep.unmapped);
    if (!rep.mapped) {
        free(b.s);
        return usage_error("import", "no row could be mapped; nothing written");
    }
    struct output out;
    output_clear(&out, 1);
    snprintf(out.path, sizeof out.path, "%s", out_path);
    out.text = b.s;
    if (write_outputs(&out, 1, &e))
        return report_error("import", &e);
    return 0;
}
