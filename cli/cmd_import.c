/* cmd_import.c — `npusim import`: measurements in other formats converted
 * to the native one (calib/importers.h), what cannot be mapped counted and
 * listed. No data structure of its own. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli/cli.h"
#include "base/atomic.h"
#include "calib/importers.h"
#include "study/run/run.h"
#include "traces/precision.h"

static const char import_help[] =
    "usage: npusim import FORMAT FILE... [--dtype D] [--names RULES.csv] -o OUT.csv\n"
    "       npusim import model CONFIG.json -o NAME.json\n"
    "\n"
    "Converts measurements to npusim's native format (op,dtype,m,n,k,batch,time_us, which\n"
    "npusim op --csv, validate and calibrate read). Rows that cannot be mapped are never\n"
    "dropped in silence: they are counted and listed on stderr (file, line, why).\n"
    "\n"
    "formats:\n"
    "  gemm-csv   headerless GEMM timings as simulator papers publish them, one per line:\n"
    "             \"M, K, N, 0.19ms, 101.7Tflops\" (time in s, ms, us or ns; the throughput\n"
    "             in T/G/Mflops must agree with 2 M N K / time within 5%); --dtype needed\n"
    "  chrome-trace  Chrome trace-event JSON (.json or .json.gz) from PyTorch's profiler\n"
    "             (export_chrome_trace with record_shapes=True) or the JAX profiler/XProf:\n"
    "             operators by the name table (docs/validation.md), sizes from the recorded\n"
    "             input shapes or the HLO text, the time of the GPU kernels each launched\n"
    "             (source device) or else its own span (source host); an op holding a\n"
    "             mapped op (aten::linear around aten::addmm) is left out for it (nested)\n"
    "  model      a Hugging Face config.json into npusim's model config (docs/models.md): the\n"
    "             keys it maps, refusing those it cannot model yet (naming them) and listing\n"
    "             the ones ignored; the config carries its \"source\"\n"
    "  nsys-csv   Nsight Systems' kernel summary (nsys stats --report cuda_gpu_kern_sum\n"
    "             --format csv): a row per kernel name with its median time; sizes only\n"
    "             where a --names rule captures them from the name; --dtype needed\n"
    "\n"
    "options:\n"
    "      --dtype D           the number format of rows whose file names none (fp16, bf16, ...)\n"
    "      --names FILE        more name rules, tried first: CSV pattern,op,m,n,k,batch (a POSIX\n"
    "                          extended regular expression, case-insensitive; sizes as capture\n"
    "                          groups $1..$9, whole numbers or empty)\n"
    "  -o, --out FILE          the native CSV\n"
    "  -h, --help              this help\n";

/* `npusim import model CONFIG.json -o NAME.json`. */
static int import_model(int nfiles, char **files, const char *out, bool other_options)
{
    if (nfiles != 1)
        return usage_error("import", "model: expected one config.json");
    if (!out)
        return usage_error("import", "model: expected -o NAME.json");
    if (other_options)
        return usage_error("import", "model: --dtype and --names are for measurements");
    struct npu_err e;
    cJSON *hf = config_read_json(files[0], &e);   /* strict, or a Hugging Face config with Python's Infinity */
    if (!hf)
        return report_error("import", &e);
    if (!hf_config_is(hf)) {
        cJSON_Delete(hf);
        return usage_error("import", "model: %s: not a Hugging Face config (no \"architectures\", nor "
                                     "\"hidden_size\" with \"num_hidden_layers\")", files[0]);
    }
    char ignored[1024];
    cJSON *m = hf_config_model(hf, files[0], ignored, sizeof ignored, &e);
    cJSON_Delete(hf);
    if (!m)
        return usage_error("import", "model: %s", e.msg);
    char *text = cJSON_Print(m);
    cJSON_Delete(m);
    int rc = !text ? report_error("import", (npu_errf(&e, "import: out of memory"), &e))
             : atomic_write_string(out, text, &e) ? report_error("import", &e) : 0;
    cJSON_free(text);
    if (!rc) {
        if (ignored[0])
            fprintf(stderr, "npusim import: %s: keys ignored (no effect on what npusim models): %s\n", files[0],
                    ignored);
        printf("npusim import: wrote %s\n", out);
    }
    return rc;
}

int cmd_import(int argc, char **argv)
{
    static const struct option longopts[] = {
        { "dtype", required_argument, 0, 'D' }, { "out", required_argument, 0, 'o' },
        { "names", required_argument, 0, 'N' },
        { "help", no_argument, 0, 'h' }, { 0, 0, 0, 0 },
    };
    const char *dtype = NULL, *out_path = NULL, *names = NULL;
    int c;
    optind = 1;
    opterr = 0;
    while ((c = getopt_long(argc, argv, "o:h", longopts, NULL)) != -1) {
        switch (c) {
        case 'h': fputs(import_help, stdout); return 0;
        case 'D': dtype = optarg; break;
        case 'o': out_path = optarg; break;
        case 'N': names = optarg; break;
        default: return bad_option("import", argv[optind - 1], longopts);
        }
    }
    if (optind < argc && !strcmp(argv[optind], "model"))
        return import_model(argc - optind - 1, argv + optind + 1, out_path, dtype || names);
    static const char *const formats[] = { "gemm-csv", "chrome-trace", "nsys-csv" };
    int fmt = -1;
    for (int i = 0; i < 3 && optind < argc; i++)
        if (!strcmp(argv[optind], formats[i]))
            fmt = i;
    if (fmt < 0)
        return usage_error("import", "expected a FORMAT (gemm-csv, chrome-trace or nsys-csv), got \"%s\"",
                           optind < argc ? argv[optind] : "");
    if (optind + 1 >= argc)
        return usage_error("import", "expected at least one FILE");
    if ((dtype || fmt == 0) && (!dtype || precision_by_name(dtype) < 0))
        return usage_error("import", "--dtype \"%s\": expected one of %s", dtype ? dtype : "", precision_names());
    if (names && fmt == 0)
        return usage_error("import", "--names: gemm-csv rows are GEMMs already");
    if (!out_path)
        return usage_error("import", "expected -o OUT.csv");
    const char *name = dtype ? precision_info((enum precision)precision_by_name(dtype))->name : NULL;
    struct npu_err e;
    struct name_rules *rules = fmt ? name_rules_load(names, &e) : NULL;
    if (fmt && !rules)
        return report_error("import", &e);
    struct strbuf b = STRBUF_GROWING;
    (fmt ? import_trace_header : import_header)(&b);
    struct import_report rep;
    memset(&rep, 0, sizeof rep);
    for (int i = optind + 1; i < argc; i++) {
        int rc = fmt == 0 ? import_gemm_csv(argv[i], name, &b, &rep, &e)
                 : fmt == 1 ? import_chrome_trace(argv[i], name, rules, &b, &rep, &e)
                            : import_nsys_csv(argv[i], name, rules, &b, &rep, &e);
        if (rc) {
            free(b.s);
            name_rules_free(rules);
            return report_error("import", &e);
        }
    }
    name_rules_free(rules);
    for (int i = 0; i < rep.listed; i++)
        fprintf(stderr, "npusim import: not mapped: %s\n", rep.why[i]);
    if (rep.unmapped > rep.listed_rows)
        fprintf(stderr, "npusim import: ... and %d more not mapped\n", rep.unmapped - rep.listed_rows);
    if (rep.nested)
        fprintf(stderr, "npusim import: %d operators left out for the mapped operator inside them\n", rep.nested);
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
    cli_print_wrote("import", &out, 1);
    return 0;
}
