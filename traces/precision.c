/* precision.c — the number-format table and its lookups (see precision.h). */
#include "traces/precision.h"

#include <string.h>

#include "traces/dtype.h"

static const struct precision_info table[PREC_COUNT] = {
#define PRECISION_ROW(a, e, n, t, b, f) [PREC_##e] = { n, t, b, f },
    PRECISION_LIST(PRECISION_ROW, _)
#undef PRECISION_ROW
};

const struct precision_info *precision_info(enum precision p) { return &table[p]; }

/* Other spellings: names people type, and tokens other traces use. */
struct alias { const char *alias; enum precision p; };
static const struct alias name_aliases[] = {
    { "fp8", PREC_FP8_E4M3 }, { "e4m3", PREC_FP8_E4M3 }, { "e5m2", PREC_FP8_E5M2 },
    { "float64", PREC_FP64 }, { "double", PREC_FP64 }, { "float32", PREC_FP32 }, { "float", PREC_FP32 },
    { "bfloat16", PREC_BF16 }, { "float16", PREC_FP16 }, { "half", PREC_FP16 },
    { "fp4_e2m1", PREC_FP4 }, { "nvfp4", PREC_FP4 }, { "mxfp4", PREC_FP4 },
}, token_aliases[] = {
    { "DT_DOUBLE", PREC_FP64 }, { "DT_FLOAT32", PREC_FP32 }, { "DT_HALF", PREC_FP16 },
    { "DT_BF16", PREC_BF16 }, { "DT_FLOAT8", PREC_FP8_E4M3 }, { "DT_FLOAT8_E4M3FN", PREC_FP8_E4M3 },
    { "DT_FLOAT8_E5M2", PREC_FP8_E5M2 }, { "DT_FLOAT4", PREC_FP4 }, { "DT_FLOAT4_E2M1FN", PREC_FP4 },
};
#define N_ALIASES(a) (sizeof a / sizeof a[0])

/* The table's row whose name (or token) is s, else the alias's; -1. */
static int lookup(const char *s, bool token, const struct alias *aliases, size_t n)
{
    for (int p = 0; p < PREC_COUNT; p++)
        if (!strcmp(s, token ? table[p].token : table[p].name))
            return p;
    for (size_t i = 0; i < n; i++)
        if (!strcmp(s, aliases[i].alias))
            return (int)aliases[i].p;
    return -1;
}

int precision_by_name(const char *name) { return lookup(name, false, name_aliases, N_ALIASES(name_aliases)); }

static int precision_of_token_uncached(const char *token) { return lookup(token, true, token_aliases, N_ALIASES(token_aliases)); }

const char *precision_names(void)
{
    return "fp64|fp32|tf32|bf16|fp16|fp8_e4m3|fp8_e5m2|int8|int4|fp4 (aliases: fp8 = fp8_e4m3, "
           "float32, bfloat16, float16, e4m3, e5m2)";
}

/* What a token says: its format (-1: none) and storage bits (-1: unknown). */
struct token_facts {
    int prec, bits;
};

/* Asked for every tensor of every op with one token or two, as dtype_bytes
 * is: the last answer per thread is kept with its token (tokens longer than
 * the slot are not kept). */
static struct token_facts facts_of(const char *token)
{
    static _Thread_local struct {
        char token[32];
        struct token_facts f;
    } last;
    if (last.token[0] && !strcmp(token, last.token))
        return last.f;
    struct token_facts f = { precision_of_token_uncached(token), -1 };
    if (f.prec >= 0)
        f.bits = table[f.prec].bits;
    else if (dtype_bytes(token) >= 0)
        f.bits = 8 * dtype_bytes(token);
    size_t n = strlen(token);
    if (n < sizeof last.token) {
        memcpy(last.token, token, n + 1);
        last.f = f;
    }
    return f;
}

int precision_of_token(const char *token) { return facts_of(token).prec; }

int dtype_bits(const char *token) { return facts_of(token).bits; }
