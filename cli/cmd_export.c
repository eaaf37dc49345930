/* cmd_export.c — `npusim export scalesim`: a timed trace's matmuls and
 * convolutions as a SCALE-Sim topology in its GEMM form ("Layer Name, M,
 * N, K,"), so a design can be cross-checked with that simulator. No data
 * structure of its own. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli/cli.h"
#include "study/run/run.h"
#include "base/strbuf.h"
#include "traces/trace_csv.h"

static const char export_help[] =
    "usage: npusim export scalesim TRACE.csv -o topology.csv\n"
    "\n"
    "Writes the matmuls (einsums) and convolutions of a timed trace (npusim chipsim's or\n"
    "npusim run's CSV, which carry each op's einsum_B/M/N/K) as a SCALE-Sim v2 topology in\n"
    "its M, N, K form (run it with scale.py -i gemm): one row per op, batches folded into\n"
    "M (B x M rows), convolutions as their GEMM (M = output channels, N = batch x output\n"
    "pixels, K = input channels x kernel area), flash attention as its two GEMMs (Q K^T\n"
    "and P V, batch x heads folded into M), the op's repeat count in the layer name.\n"
    "\n"
    "options:\n"
    "  -o, --out FILE          the topology CSV\n"
    "  -h, --help              this help\n";

int cmd_export(int argc, char **argv)
{
    static const struct option longopts[] = {
        { "out", required_argument, 0, 'o' }, { "help", no_argument, 0, 'h' }, { 0, 0, 0, 0 },
    };
    const char *out_path = NULL;
    int c;
    optind = 1;
    opterr = 0;
    while ((c = getopt_long(argc, argv, "o:h", longopts, NULL)) != -1) {
        switch (c) {
        case 'h': fputs(export_help, stdout); return 0;
        case 'o': out_path = optarg; break;
        default: return bad_option("export", argv[optind - 1], longopts);
        }
    }
    if (optind >= argc || strcmp(argv[optind], "scalesim"))
        return usage_error("export", "expected a format (scalesim), got \"%s\"", optind < argc ? argv[optind] : "");
    if (optind + 2 != argc)
        return usage_error("export", "expected one TRACE.csv");
    if (!out_path)
        return usage_error("export", "expected -o topology.csv");
    struct trace t;
    trace_init(&t);
    struct npu_err e;
    if (trace_read_csv(&t, argv[optind + 1], &e)) {
        trace_free(&t);
        return report_error("export", &e);
    }
    struct strbuf b = STRBUF_GROWING;
    strbuf_puts(&b, "Layer Name, M, N, K,\n");
    int rows = 0;
    for (size_t i = 0; i < t.n; i++) {
        const struct op *op = &t.ops[i];
        if (op->einsum_m <= 0 || op->einsum_n <= 0 || op->einsum_k <= 0)
            continue;   /* not a matmul, or not timed */
        int64_t bm = (op->einsum_b > 0 ? op->einsum_b : 1) * op->einsum_m;
        /* layer names may not hold the separator */
        char name[96];
        snprintf(name, sizeof name, "%s", op->name && *op->name ? op->name : "op");
        for (char *p = name; *p; p++)
            if (*p == ',')
                *p = ';';
        if (op->stats_kind == STATS_FA) {
            /* flash attention: its two GEMMs per (batch, head), scores Q K^T and the P V product
             * (einsum_b = batch x heads, m = keys, n = queries, k = d_head) */
            int64_t bq = (op->einsum_b > 0 ? op->einsum_b : 1) * op->einsum_n;
            strbuf_printf(&b, "%s QK x%lld, %lld, %lld, %lld,\n%s PV x%lld, %lld, %lld, %lld,\n", name,
                          (long long)op->count, (long long)bq, (long long)op->einsum_m, (long long)op->einsum_k, name,
                          (long long)op->count, (long long)bq, (long long)op->einsum_k, (long long)op->einsum_m);
            rows += 2;
            continue;
        }
        strbuf_printf(&b, "%s x%lld, %lld, %lld, %lld,\n", name, (long long)op->count, (long long)bm,
                      (long long)op->einsum_n, (long long)op->einsum_k);
        rows++;
    }
    trace_free(&t);
    if (!rows) {
        free(b.s);
        return usage_error("export", "%s: no timed matmul or convolution (einsum_M/N/K); time the trace with "
                                     "npusim chipsim first", argv[optind + 1]);
    }
    struct output out;
    output_clear(&out, 1);
    snprintf(out.path, sizeof out.path, "%s", out_path);
    out.text = b.s;
    if (write_outputs(&out, 1, &e))
        return report_error("export", &e);
    cli_print_wrote("export", &out, 1);
    fprintf(stderr, "npusim export: %d layers\n", rows);
    return 0;
}
