/* cmd_op.c — `npusim op`: one operator predicted on a chip (time, achieved
 * TFLOP/s, arithmetic intensity, bound, efficiency), or every row of a
 * measurement file (--csv), as text or JSON. The work is study/run/op_predict.h;
 * this file reads flags and prints. No data structure of its own. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cjson/cJSON.h>

#include "cli/cli.h"
#include "calib/op_table.h"
#include "base/lists.h"
#include "traces/precision.h"

static const char op_help[] =
    "usage: npusim op KIND [-m M] [-n N] [-k K] [-b B] [--heads H] [--dtype D]\n"
    "                 [--weight-dtype D] [-c CHIP] [--set KEY=VALUE]... [--json]\n"
    "       npusim op --csv FILE [-c CHIP] [--json]\n"
    "\n"
    "Predicts one operator on a chip: its time, achieved TFLOP/s, arithmetic intensity\n"
    "(FLOPs per HBM byte), the bound (compute, memory, vmem or interconnect) and the\n"
    "kernel efficiency used (the chip's kernel_efficiency.*; docs/hardware.md). KIND and\n"
    "what M, N, K and B mean:\n"
    "  gemm, gemv        C[M,N] = A[M,K] B[K,N], B of them (gemv: M defaults to 1)\n"
    "  attention         B sequences x H heads of M queries over N keys, d_head K\n"
    "                    (prefill: M = N; decode: M = 1, N = the KV length)\n"
    "  decode-attention  a decode step's attention over the KV cache (paged attention):\n"
    "                    B sequences x H KV heads, M query rows per KV head (the GQA\n"
    "                    group x new tokens; default 1), N cached positions, d_head K\n"
    "                    (kernel class decode_attention)\n"
    "  add, mul, gelu, silu, relu        M elements (or M rows of N)\n"
    "  softmax, layernorm, rmsnorm       M rows of N\n"
    "  copy, triad, reduce               M elements (STREAM's copy and triad; a sum)\n"
    "  all-reduce, all-gather, reduce-scatter, all-to-all\n"
    "                    M elements per chip over a ring of N chips (default 8) at the\n"
    "                    chip's ici_bw_GBps\n"
    "--csv FILE predicts every row of a measurement file: a header naming op and dtype\n"
    "and any of m, n, k, batch, heads, weight_dtype, time_us (measured; the error is\n"
    "printed), other columns carried to the output; empty cells are not given.\n"
    "\n"
    "options:\n"
    "  -m, -n, -k M, N, K      the sizes above (also --m, --n, --k; an operator has no\n"
    "                          model, so -m is M here)\n"
    "  -b, --batch B           batch count (default 1)\n"
    "      --heads H           attention heads; decode-attention: KV heads (default 1)\n"
    "      --dtype D           number format: fp64, fp32, tf32, bf16 (default), fp16, fp8\n"
    "                          (= fp8_e4m3), fp8_e5m2, int8, int4, fp4\n"
    "      --weight-dtype D    a matmul's B operand stored in D (weight-only quantisation)\n"
    "  -c, --chip NAME|PATH    chip config (default tpuv5p; configs/chips/NAME.json)\n"
    "      --set KEY=VALUE     override one chip field (repeatable)\n"
    "      --configs DIR       where to look for configs first\n"
    "      --profile NAME      physical (default) or neusim\n"
    "      --csv FILE          predict every row of FILE\n"
    "      --json              one JSON object (per row with --csv, one per line)\n"
    "  -h, --help              this help\n";

static int format_arg(const char *flag, const char *arg, int *p)
{
    *p = precision_by_name(arg);
    if (*p < 0)
        return usage_error("op", "%s \"%s\": expected one of %s", flag, arg, precision_names());
    return 0;
}

static int size_arg(const char *flag, const char *arg, int64_t *v)
{
    if (parse_i64_strict(arg, v) || *v < 1)
        return usage_error("op", "%s \"%s\": expected a positive integer", flag, arg);
    return 0;
}

static cJSON *prediction_json(const struct op_request *r, const struct op_prediction *p, const char *chip,
                              double peak)
{
    cJSON *o = cJSON_CreateObject();
    cJSON_AddStringToObject(o, "op", r->op);
    cJSON_AddStringToObject(o, "dtype", precision_info((enum precision)r->prec)->name);
    if (r->weight_prec >= 0)
        cJSON_AddStringToObject(o, "weight_dtype", precision_info((enum precision)r->weight_prec)->name);
    if (p->prec_ran >= 0)
        cJSON_AddStringToObject(o, "ran_as", precision_info((enum precision)p->prec_ran)->name);
    static const char *const names[] = { "m", "n", "k", "batch", "heads" };
    const int64_t vals[] = { r->m, r->n, r->k, r->batch, r->heads };
    for (int i = 0; i < 5; i++)
        if (vals[i])
            cJSON_AddNumberToObject(o, names[i], (double)vals[i]);
    cJSON_AddStringToObject(o, "chip", chip);
    cJSON_AddNumberToObject(o, "time_us", p->time_us);
    cJSON_AddNumberToObject(o, "tflops", p->tflops);
    if (peak > 0)
        cJSON_AddNumberToObject(o, "peak_tflops", peak);
    cJSON_AddNumberToObject(o, "intensity_flop_per_byte", p->intensity);
    cJSON_AddNumberToObject(o, "flops", (double)p->flops);
    cJSON_AddNumberToObject(o, "bytes", (double)p->bytes);
    cJSON_AddStringToObject(o, "bound", p->bound);
    cJSON_AddNumberToObject(o, "efficiency", p->efficiency);
    cJSON_AddStringToObject(o, "kernel_class", p->kernel_class);
    if (r->measured_us >= 0) {
        cJSON_AddNumberToObject(o, "measured_us", r->measured_us);
        if (r->measured_us > 0)
            cJSON_AddNumberToObject(o, "error_pct", (p->time_us - r->measured_us) / r->measured_us * 100);
    }
    return o;
}

/* The peak of the unit that ran the op, in the format it ran (0: none). */
static double peak_of(const struct chip_config *c, const struct op_request *r, const struct op_prediction *p)
{
    if (p->prec_ran < 0 || !strcmp(p->kernel_class, "collective"))
        return 0;
    bool matrix = !strcmp(r->op, "gemm") || !strcmp(r->op, "gemv") || !strcmp(r->op, "attention");
    return chip_unit_peak_tflops(c, matrix ? UNIT_MATRIX : UNIT_VECTOR, (enum precision)p->prec_ran);
}

static void print_text(const struct op_request *r, const struct op_prediction *p, const char *chip, double peak)
{
    const char *fmt = precision_info((enum precision)r->prec)->name;
    printf("%s", r->op);
    static const char *const names[] = { "m", "n", "k", "batch", "heads" };
    const int64_t vals[] = { r->m, r->n, r->k, r->batch, r->heads };
    for (int i = 0; i < 5; i++)
        if (vals[i])
            printf(" %s=%lld", names[i], (long long)vals[i]);
    printf(" %s on %s\n", fmt, chip);
    printf("  time          %.3f us\n", p->time_us);
    printf("  throughput    %.1f TFLOP/s", p->tflops);
    if (peak > 0)
        printf(" (peak %.1f in %s)", peak, precision_info((enum precision)p->prec_ran)->name);
    printf("\n  intensity     %.2f FLOP/byte (%lld FLOPs, %lld bytes)\n", p->intensity, (long long)p->flops,
           (long long)p->bytes);
    printf("  bound         %s\n", p->bound);
    printf("  efficiency    %.3g%s%s%s\n", p->efficiency, *p->kernel_class ? " (" : "", p->kernel_class,
           *p->kernel_class ? ")" : "");
    if (p->prec_ran >= 0 && p->prec_ran != r->prec)
        printf("  format        %s ran as %s: the chip lacks %s on that unit\n", fmt,
               precision_info((enum precision)p->prec_ran)->name, fmt);
    if (r->measured_us > 0)
        printf("  measured      %.3f us (error %+.1f%%)\n", r->measured_us,
               (p->time_us - r->measured_us) / r->measured_us * 100);
}

static int print_json(cJSON *o)
{
    char *s = cJSON_PrintUnformatted(o);
    cJSON_Delete(o);
    if (!s)
        return -1;
    puts(s);
    cJSON_free(s);
    return 0;
}

static int run_table(const char *path, const struct loaded_config *c, const struct profile *prof, bool json)
{
    struct op_table t;
    struct npu_err e;
    if (op_table_read(path, &t, &e))
        return report_error("op", &e);
    int rc = 0;
    if (!json)
        printf("%-14s %-9s %10s %10s %10s %6s %12s %10s %-12s %6s %12s %8s\n", "op", "dtype", "m", "n", "k", "batch",
               "time_us", "TFLOP/s", "bound", "eff", "measured_us", "error%");
    for (size_t i = 0; i < t.n && !rc; i++) {
        const struct op_row *row = &t.rows[i];
        struct op_prediction p;
        if (op_predict(&row->r, &c->chip, prof, &p, &e)) {
            fprintf(stderr, "npusim op: %s: line %d: %s\n", path, row->line, e.msg);
            rc = EXIT_USAGE;
            break;
        }
        if (json) {
            cJSON *o = prediction_json(&row->r, &p, c->chip_name, peak_of(&c->chip, &row->r, &p));
            cJSON_AddNumberToObject(o, "line", row->line);
            for (int x = 0; x < t.n_extra; x++)
                cJSON_AddStringToObject(o, t.extra_name[x], row->extra[x] ? row->extra[x] : "");
            print_json(o);
            continue;
        }
        const struct op_request *r = &row->r;
        printf("%-14s %-9s %10lld %10lld %10lld %6lld %12.3f %10.2f %-12s %6.3g", r->op,
               precision_info((enum precision)r->prec)->name, (long long)r->m, (long long)r->n, (long long)r->k,
               (long long)(r->batch ? r->batch : 1), p.time_us, p.tflops, p.bound, p.efficiency);
        if (r->measured_us > 0)
            printf(" %12.3f %+8.1f", r->measured_us, (p.time_us - r->measured_us) / r->measured_us * 100);
        printf("\n");
    }
    op_table_free(&t);
    return rc ? rc : stdout_flushed("op");
}

int cmd_op(int argc, char **argv)
{
    static const struct option longopts[] = {
        COMMON_LONGOPTS_NO_MODEL, { "model", required_argument, 0, 9 },
        { "m", required_argument, 0, 'm' }, { "n", required_argument, 0, 'n' }, { "k", required_argument, 0, 'k' },
        { "heads", required_argument, 0, 4 }, { "dtype", required_argument, 0, 5 },
        { "weight-dtype", required_argument, 0, 6 }, { "csv", required_argument, 0, 7 },
        { "json", no_argument, 0, 8 }, { 0, 0, 0, 0 },
    };
    struct common_opts o;
    common_opts_init(&o);
    struct op_request r;
    op_request_init(&r);
    const char *csv = NULL;
    bool json = false;
    struct npu_err e;
    int c, rc;
    optind = 1;
    opterr = 0;
    /* An operator has no model: -m and --m are its M. common_opt takes the
     * letter m as the model's, so M arrives in o.model and is read below. */
    while ((c = command_opt("op", op_help, argc, argv, COMMON_SHORTOPTS "n:k:", longopts, &o, &rc)) != -1) {
        if (c == OPT_EXIT)
            return rc;
        switch (c) {
        case 'n': if (size_arg("-n/--n", optarg, &r.n)) return EXIT_USAGE; break;
        case 'k': if (size_arg("-k/--k", optarg, &r.k)) return EXIT_USAGE; break;
        case 9:
            return usage_error("op", "--model: an operator needs no model (its sizes are -m, -n, -k)");
        case 4: if (size_arg("--heads", optarg, &r.heads)) return EXIT_USAGE; break;
        case 5: if (format_arg("--dtype", optarg, &r.prec)) return EXIT_USAGE; break;
        case 6: if (format_arg("--weight-dtype", optarg, &r.weight_prec)) return EXIT_USAGE; break;
        case 7: csv = optarg; break;
        case 8: json = true; break;
        default: return bad_option("op", argv[optind - 1], longopts);
        }
    }
    if (common_refuse("op", &o, "sw", "an operator is timed on the chip alone"))
        return EXIT_USAGE;
    if (o.model && size_arg("-m/--m", o.model, &r.m))
        return EXIT_USAGE;
    if (csv && optind < argc)
        return usage_error("op", "--csv predicts a file's rows: expected no KIND, got \"%s\"", argv[optind]);
    if (!csv && optind != argc - 1)
        return usage_error("op", "expected one KIND (%s)", OP_REQUEST_KINDS);
    if (!csv) {
        snprintf(r.op, sizeof r.op, "%s", argv[optind]);
        if (!op_kind_known(argv[optind]))
            return usage_error("op", "KIND \"%s\": expected one of %s", argv[optind], OP_REQUEST_KINDS);
    }
    r.batch = o.batch;
    struct loaded_config cfg;
    if (load_common("op", &o, false, &cfg, NULL))
        return EXIT_USAGE;
    const struct profile *prof = o.sh.prof;
    if (csv)
        rc = run_table(csv, &cfg, prof, json);
    else {
        struct op_prediction p;
        if (op_predict(&r, &cfg.chip, prof, &p, &e))
            rc = report_error("op", &e);
        else {
            double peak = peak_of(&cfg.chip, &r, &p);
            if (json)
                print_json(prediction_json(&r, &p, cfg.chip_name, peak));
            else
                print_text(&r, &p, cfg.chip_name, peak);
            rc = stdout_flushed("op");
        }
    }
    config_free(&cfg);
    return rc;
}
