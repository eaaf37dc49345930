/* cmd_measure.c — `npusim measure`: micro-benchmarks of this machine
 * (calib/measure.h), each kernel checked before it is timed; the
 * measurement rows as CSV and JSON, and the host chip config built from the
 * measured peaks. No data structure of its own. */
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "calib/measure.h"
#include "cli/cli.h"
#include "cli/progress.h"
#include "calib/team.h"
#include "study/run/run.h"
#include "base/lists.h"

static const char measure_help[] =
    "usage: npusim measure [-o MEASUREMENTS.csv] [--chip-out FILE] [--quick] [--check]\n"
    "                      [--threads N] [--blas auto|openblas|gsl] [--budget SECONDS] [-q]\n"
    "\n"
    "Micro-benchmarks of the machine npusim runs on: GEMM over a size sweep in fp64 and\n"
    "fp32 (the BLAS), bf16 (cblas_sbgemm, where the BLAS exports it), fp8 e4m3 and e5m2\n"
    "block-scaled (1x128 and 128x128 scale blocks, emulated: dequantised to fp32, then\n"
    "sgemm); GEMV; add, mul, gelu, silu; softmax, layernorm, rmsnorm; STREAM's copy,\n"
    "triad and reduce over working sets larger than the last cache; the triad in each\n"
    "cache (sizes from sysfs) and an FMA chain for the vector peaks.\n"
    "\n"
    "Every kernel's result is first checked against a reference (normwise relative\n"
    "error: fp64 within 1e-12, fp32 within 1e-5; bf16 and fp8 twice: against the\n"
    "unquantised product within 2e-2 and 5e-2, and against the product of the same\n"
    "quantised inputs within 1e-5); a kernel that fails is reported and not timed.\n"
    "Then a warm-up and repetitions for the time budget: median, min, max, spread.\n"
    "Prints a table of every kernel (PASS/FAIL/SKIP, error, TFLOP/s, GB/s).\n"
    "\n"
    "options:\n"
    "  -o, --out FILE          the measurement rows (op,dtype,m,n,k,batch,time_us, then\n"
    "                          tflops, GBps, min_us, max_us, iqr_pct, reps, threads,\n"
    "                          backend, rel_err), with its JSON twin beside it (.json),\n"
    "                          and the host chip config (--chip-out)\n"
    "      --chip-out FILE     the host chip config (default chips/host.json in your configs\n"
    "                          folder, $XDG_DATA_HOME/npusim or ~/.local/share/npusim, where\n"
    "                          -c host finds it from any folder before any installed copy)\n"
    "      --quick             a small sweep (under 30 s)\n"
    "      --check             the correctness checks only: the PASS/FAIL table, nothing\n"
    "                          timed or written\n"
    "      --threads N         threads for the BLAS and the other kernels (default: the\n"
    "                          online CPUs)\n"
    "      --blas NAME         auto (OpenBLAS when it opens, else GSL's reference CBLAS,\n"
    "                          labelled), openblas or gsl\n"
    "      --budget SECONDS    timing per kernel (default 0.1 with --quick, else 0.5)\n"
    "%s"
    "  -h, --help              this help\n"
    "\n"
    "Exit status: 0 when every kernel passed (or was skipped as unsupported), 1 when\n"
    "one failed its check (the others are still written), 2 on bad options.\n";

enum { O_CHIP_OUT = 1, O_QUICK, O_CHECK, O_THREADS, O_BLAS, O_BUDGET };

static void on_progress(void *ctx, int done, int total, const char *what)
{
    (void)what;
    struct progress *p = ctx;
    p->total = total;
    progress_update(p, done);
}

/* FILE.csv -> FILE.json; other names get .json appended. */
static void json_twin(const char *csv, char *out, size_t n)
{
    size_t len = strlen(csv);
    if (len > 4 && !strcmp(csv + len - 4, ".csv"))
        snprintf(out, n, "%.*s.json", (int)(len - 4), csv);
    else
        snprintf(out, n, "%s.json", csv);
}

static int write_all(const struct measure_run *m, const char *csv, const char *chip_out, bool chip_out_default,
                     struct npu_err *e)
{
    struct output out[3];
    output_clear(out, 3);
    struct strbuf b = STRBUF_GROWING;
    measure_csv(m, &b);
    snprintf(out[0].path, sizeof out[0].path, "%s", csv);
    out[0].text = b.s;
    b = STRBUF_GROWING;
    measure_json(m, &b);
    json_twin(csv, out[1].path, sizeof out[1].path);
    out[1].text = b.s;
    struct chip_config chip;
    measure_host_chip(m, &chip);
    cJSON *j = cJSON_CreateObject();
    fields_to_json(&chip_fields, &chip, j, true);
    char *text = cJSON_Print(j);
    cJSON_Delete(j);
    snprintf(out[2].path, sizeof out[2].path, "%s", chip_out);
    out[2].text = text ? strdup(text) : NULL;
    cJSON_free(text);
    if (!out[0].text || !out[1].text || !out[2].text) {
        for (int i = 0; i < 3; i++)
            free(out[i].text);
        return npu_errf(e, "measure: out of memory");
    }
    if (write_outputs(out, 3, e))
        return -1;
    fprintf(stderr, "npusim measure: wrote %s, %s and the host chip %s%s\n", out[0].path, out[1].path, out[2].path,
            chip_out_default ? " (-c host finds it)" : "");
    return 0;
}

int cmd_measure(int argc, char **argv)
{
    static const struct option longopts[] = {
        { "out", required_argument, 0, 'o' },       { "chip-out", required_argument, 0, O_CHIP_OUT },
        { "quick", no_argument, 0, O_QUICK },       { "check", no_argument, 0, O_CHECK },
        { "threads", required_argument, 0, O_THREADS }, { "blas", required_argument, 0, O_BLAS },
        { "budget", required_argument, 0, O_BUDGET }, { "help", no_argument, 0, 'h' },
        SHARED_LONGOPT_QUIET,
        { 0, 0, 0, 0 },
    };
    struct measure_opts mo = { .blas = "auto" };
    const char *out = NULL, *chip_out = NULL;
    struct shared_opts sh;
    shared_opts_init(&sh);
    int c;
    optind = 1;
    opterr = 0;
    while ((c = getopt_long(argc, argv, "o:hq", longopts, NULL)) != -1) {
        int64_t v;
        if (shared_opt("measure", SHARED_QUIET, &sh, c, optarg) == 1)
            continue;
        switch (c) {
        case 'h': printf(measure_help, shared_help_line(SHARED_QUIET)); return 0;
        case 'o': out = optarg; break;
        case O_CHIP_OUT: chip_out = optarg; break;
        case O_QUICK: mo.quick = true; break;
        case O_CHECK: mo.check_only = true; break;
        case O_BLAS: mo.blas = optarg; break;
        case O_THREADS:
            if (parse_i64_strict(optarg, &v) || v < 1 || v > TEAM_MAX)
                return usage_error("measure", "--threads: expected a whole number 1-%d, got \"%s\"", TEAM_MAX, optarg);
            mo.threads = (int)v;
            break;
        case O_BUDGET:
            if (parse_f64_strict(optarg, &mo.budget_s) || !(mo.budget_s > 0 && mo.budget_s <= 3600))
                return usage_error("measure", "--budget: expected seconds in (0, 3600], got \"%s\"", optarg);
            break;
        default: return bad_option("measure", argv[optind - 1], longopts);
        }
    }
    if (optind < argc)
        return usage_error("measure", "unexpected argument \"%s\"", argv[optind]);
    if (mo.check_only && out)
        return usage_error("measure", "--check times nothing: -o has nothing to write");
    if (strcmp(mo.blas, "auto") && strcmp(mo.blas, "openblas") && strcmp(mo.blas, "gsl"))
        return usage_error("measure", "--blas: expected auto, openblas or gsl, got \"%s\"", mo.blas);
    struct progress p = { .cmd = "npusim measure" };
    progress_init(&p, isatty(2) && !sh.quiet, 0);
    mo.progress = on_progress, mo.ctx = &p;
    struct measure_run m;
    struct npu_err e;
    if (measure_run(&mo, &m, &e)) {
        progress_end(&p);
        return report_error("measure", &e);
    }
    progress_end(&p);
    struct strbuf b = STRBUF_GROWING;
    measure_table(&m, mo.check_only, &b);
    fputs(b.s, stdout);
    free(b.s);
    int rc = stdout_flushed("measure");
    /* The host chip goes outside any install and source tree (study/run/config.h:
     * config_user_dir), where names resolve before an installed copy. */
    char user_chip[4200] = "configs/chips/host.json";   /* no $HOME: the current folder's configs */
    char user[4096];
    if (!chip_out && config_user_dir(user, sizeof user) == 0)
        snprintf(user_chip, sizeof user_chip, "%s/chips/host.json", user);
    if (!rc && out && write_all(&m, out, chip_out ? chip_out : user_chip, !chip_out, &e))
        rc = report_error("measure", &e);
    if (!rc && m.failed)
        rc = 1;
    measure_run_free(&m);
    return rc;
}
