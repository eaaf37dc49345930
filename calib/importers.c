/* importers.c — other measurement formats to the native one (see
 * importers.h). Main data structure: the unit tables. */
#include "calib/importers.h"

#include <ctype.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/lists.h"
#include "base/pyfmt.h"
#include "base/textfile.h"

void import_header(struct strbuf *out) { strbuf_puts(out, "op,dtype,m,n,k,batch,time_us\n"); }

static void unmapped(struct import_report *r, const char *path, int line, const char *why)
{
    r->unmapped++;
    if (r->listed < IMPORT_LIST_MAX && ++r->listed_rows)
        snprintf(r->why[r->listed++], sizeof r->why[0], "%s: line %d: %s", path, line, why);
}

/* s trimmed of blanks in place. */
static char *trim(char *s)
{
    while (isspace((unsigned char)*s))
        s++;
    char *e = s + strlen(s);
    while (e > s && isspace((unsigned char)e[-1]))
        *--e = '\0';
    return s;
}

/* "0.19ms" -> microseconds; "101.7Tflops" -> TFLOP/s: a number, then a unit of the table. */
struct unit { const char *name; double scale; };
static const struct unit time_units[] = { { "s", 1e6 }, { "ms", 1e3 }, { "us", 1.0 }, { "ns", 1e-3 } };
static const struct unit rate_units[] = { { "tflops", 1.0 }, { "gflops", 1e-3 }, { "mflops", 1e-6 },
                                          { "tflop/s", 1.0 }, { "gflop/s", 1e-3 } };

static int with_unit(const char *s, const struct unit *u, size_t nu, double *out)
{
    char *end;
    double v = strtod(s, &end);
    if (end == s || !isfinite(v) || v <= 0)
        return -1;
    while (isspace((unsigned char)*end))
        end++;
    char lower[16];
    size_t n = strlen(end);
    if (n == 0 || n >= sizeof lower)
        return -1;
    for (size_t i = 0; i <= n; i++)
        lower[i] = (char)tolower((unsigned char)end[i]);
    for (size_t i = 0; i < nu; i++)
        if (!strcmp(lower, u[i].name)) {
            *out = v * u[i].scale;
            return 0;
        }
    return -1;
}

int import_gemm_csv(const char *path, const char *dtype, struct strbuf *out, struct import_report *rep,
                    struct npu_err *e)
{
    size_t len;
    char *buf = text_read_file(path, &len, e);
    if (!buf)
        return -1;
    int line = 0;
    for (char *p = buf, *next; p < buf + len; p = next) {
        char *nl = memchr(p, '\n', (size_t)(buf + len - p));
        next = nl ? nl + 1 : buf + len;
        if (nl)
            *nl = '\0';
        line++;
        char *s = trim(p);
        if (!*s || *s == '#')
            continue;   /* blank lines and comments are no rows */
        rep->rows++;
        char *f[6];
        int nf = split_inplace(s, f, 6);
        if (nf != 5) {
            unmapped(rep, path, line, "expected 5 cells: M, K, N, time with its unit, throughput with its unit");
            continue;
        }
        int64_t m, k, n;
        double us, tflops;
        if (parse_i64_strict(trim(f[0]), &m) || parse_i64_strict(trim(f[1]), &k) || parse_i64_strict(trim(f[2]), &n) ||
            m < 1 || k < 1 || n < 1 || m > 2147483648LL || k > 2147483648LL || n > 2147483648LL) {
            unmapped(rep, path, line, "expected M, K and N as integers from 1 to 2^31");
            continue;
        }
        if (with_unit(trim(f[3]), time_units, sizeof time_units / sizeof time_units[0], &us)) {
            unmapped(rep, path, line, "expected a time above 0 in s, ms, us or ns (\"0.19ms\")");
            continue;
        }
        if (with_unit(trim(f[4]), rate_units, sizeof rate_units / sizeof rate_units[0], &tflops)) {
            unmapped(rep, path, line, "expected a throughput in Tflops, Gflops or Mflops (\"101.7Tflops\")");
            continue;
        }
        double implied = 2.0 * (double)m * (double)n * (double)k / us / 1e6;
        if (fabs(implied - tflops) > 0.05 * tflops) {
            char why[128];
            snprintf(why, sizeof why, "inconsistent: 2 M N K / time is %.4g TFLOP/s, the row says %.4g", implied,
                     tflops);
            unmapped(rep, path, line, why);
            continue;
        }
        char t[40];
        strbuf_printf(out, "gemm,%s,%lld,%lld,%lld,,%s\n", dtype, (long long)m, (long long)n, (long long)k,
                      py_repr_double(us, t, sizeof t));
        rep->mapped++;
    }
    free(buf);
    return 0;
}
