/* name_rules.c — the table of operator-name rules the trace importers map
 * operators by (see importers.h, import_internal.h), a user's rules file,
 * and the sizes each rule finds: PyTorch's recorded input shapes, an XLA
 * dot's HLO text, or a name's capture groups. Main data structure: the
 * built-in table, builtin_rules[]. */
#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "calib/import_internal.h"
#include "study/run/run.h"
#include "base/lists.h"
#include "base/textfile.h"

/* The built-in table (docs/validation.md lists it). PyTorch's aten ops
 * first, XLA's dot, then kernel names as Nsight lists them: those carry an
 * op type but no sizes, and are listed as such unless a --names rule with
 * capture groups gives them. */
static const struct name_rule builtin_rules[] = {
    { "^aten::_?mm$", "gemm", SH_MM, 0, 0, 0, 0, false },
    { "^aten::addmm$", "gemm", SH_ADDMM, 0, 0, 0, 0, false },
    { "^aten::(bmm|baddbmm)$", "gemm", SH_BMM, 0, 0, 0, 0, false },
    { "^aten::linear$", "gemm", SH_LINEAR, 0, 0, 0, 0, false },
    { "^aten::(_?softmax|_safe_softmax)$", "softmax", SH_ROWS, 0, 0, 0, 0, false },
    { "^aten::(native_)?layer_norm$", "layernorm", SH_ROWS, 0, 0, 0, 0, false },
    { "^aten::(_fused_)?rms_norm$", "rmsnorm", SH_ROWS, 0, 0, 0, 0, false },
    { "^aten::gelu_?$", "gelu", SH_ELEMS, 0, 0, 0, 0, false },
    { "^aten::silu_?$", "silu", SH_ELEMS, 0, 0, 0, 0, false },
    { "^aten::relu_?$", "relu", SH_ELEMS, 0, 0, 0, 0, false },
    { "^aten::add_?$", "add", SH_ELEMS, 0, 0, 0, 0, false },
    { "^aten::mul_?$", "mul", SH_ELEMS, 0, 0, 0, 0, false },
    { "^aten::(_scaled_dot_product_(flash|efficient|cudnn)_attention|scaled_dot_product_attention)$", "attention",
      SH_SDPA, 0, 0, 0, 0, false },
    { "= [a-z0-9]+\\[[0-9,]*\\][^ ]* dot\\(", "gemm", SH_HLO_DOT, 0, 0, 0, 0, true },
    { "gemm|cublas|xmma|cutlass.*(s|h|bf)[0-9]+gemm", "gemm", SH_NAME, "", "", "", "", false },
    { "softmax", "softmax", SH_NAME, "", "", "", "", false },
    { "layer_?norm", "layernorm", SH_NAME, "", "", "", "", false },
    { "rms_?norm", "rmsnorm", SH_NAME, "", "", "", "", false },
    { "flash|fmha|attention", "attention", SH_NAME, "", "", "", "", false },
    { "gelu", "gelu", SH_NAME, "", "", "", "", false },
    { "silu|swish", "silu", SH_NAME, "", "", "", "", false },
};
#define N_BUILTIN (sizeof builtin_rules / sizeof builtin_rules[0])

/* The number format of a PyTorch type name or an HLO element type. */
static const struct { const char *name; const char *fmt; } type_names[] = {
    { "float", "fp32" },        { "double", "fp64" },         { "c10::Half", "fp16" },
    { "c10::BFloat16", "bf16" }, { "c10::Float8_e4m3fn", "fp8_e4m3" }, { "c10::Float8_e5m2", "fp8_e5m2" },
    { "signed char", "int8" },  { "f32", "fp32" },            { "f64", "fp64" },
    { "f16", "fp16" },          { "bf16", "bf16" },           { "f8e4m3fn", "fp8_e4m3" },
    { "f8e5m2", "fp8_e5m2" },   { "s8", "int8" },             { "s4", "int4" },
};

const char *format_of_type(const char *t)
{
    for (size_t i = 0; t && i < sizeof type_names / sizeof type_names[0]; i++)
        if (!strcmp(type_names[i].name, t))
            return type_names[i].fmt;
    return NULL;
}

/* ---- rule sets ---- */

static int rules_add(struct name_rules *s, const struct name_rule *r, const char *where, struct npu_err *e)
{
    struct compiled_rule *c = &s->rule[s->n];
    c->r = *r;
    int rc = regcomp(&c->re, r->pattern, REG_EXTENDED | REG_ICASE);
    if (rc) {
        char msg[128];
        regerror(rc, &c->re, msg, sizeof msg);
        return npu_errf(e, "%s: pattern \"%.60s\": %s", where, r->pattern, msg);
    }
    s->n++;
    return 0;
}

void name_rules_free(struct name_rules *s)
{
    if (!s)
        return;
    for (int i = 0; i < s->n; i++)
        regfree(&s->rule[i].re);
    free(s->rule);
    free(s->text);
    free(s);
}

/* A size cell of a user rule: "$1".."$9", a whole number, or empty. */
static bool size_spec_ok(const char *s)
{
    int64_t v;
    return !*s || (s[0] == '$' && s[1] >= '1' && s[1] <= '9' && !s[2]) || (!parse_i64_strict(s, &v) && v > 0);
}

struct name_rules *name_rules_load(const char *path, struct npu_err *e)
{
    struct name_rules *s = calloc(1, sizeof *s);
    size_t len = 0;
    if (!s)
        return npu_errf(e, "import: out of memory"), NULL;
    if (path && !(s->text = text_read_file(path, &len, e))) {
        free(s);
        return NULL;
    }
    int lines = 1;
    for (size_t i = 0; i < len; i++)
        lines += s->text[i] == '\n';
    s->rule = calloc((size_t)lines + N_BUILTIN, sizeof *s->rule);
    if (!s->rule) {
        name_rules_free(s);
        return npu_errf(e, "import: out of memory"), NULL;
    }
    char *save = NULL;
    int line = 0;
    for (char *l = path ? strtok_r(s->text, "\n", &save) : NULL; l; l = strtok_r(NULL, "\n", &save)) {
        line++;
        l[strcspn(l, "\r")] = '\0';
        if (!*l || *l == '#' || (line == 1 && !strncmp(l, "pattern,", 8)))
            continue;
        char *f[7];
        char where[300];
        snprintf(where, sizeof where, "%s: line %d", path, line);
        /* the pattern is everything before the last five commas: it may hold commas itself */
        int commas = 0;
        char *cut[5];
        for (char *p = l + strlen(l); p > l && commas < 5; p--)
            if (p[-1] == ',')
                cut[commas++] = p - 1;
        if (commas < 5) {
            name_rules_free(s);
            return npu_errf(e, "%s: expected pattern,op,m,n,k,batch", where), NULL;
        }
        for (int i = 0; i < 5; i++)
            *cut[i] = '\0', f[5 - i] = cut[i] + 1;
        f[0] = l;
        struct name_rule r = { f[0], f[1], SH_NAME, f[2], f[3], f[4], f[5], false };
        if (!op_kind_known(r.op) || !size_spec_ok(r.m) || !size_spec_ok(r.n) || !size_spec_ok(r.k) ||
            !size_spec_ok(r.batch)) {
            /* the message first: the cells point into the text the free releases */
            npu_errf(e, "%s: expected an op of %s and sizes as $1..$9, a whole number or empty, got "
                        "\"%.24s\",\"%.12s\",\"%.12s\",\"%.12s\",\"%.12s\"", where, OP_REQUEST_KINDS, r.op, r.m, r.n, r.k,
                     r.batch);
            name_rules_free(s);
            return NULL;
        }
        if (rules_add(s, &r, where, e)) {
            name_rules_free(s);
            return NULL;
        }
    }
    for (size_t i = 0; i < N_BUILTIN; i++)
        if (rules_add(s, &builtin_rules[i], "built-in rule", e)) {
            name_rules_free(s);
            return NULL;
        }
    return s;
}

/* ---- sizes ---- */

/* The dims of Input Dims entry i; -1 if absent or not a list of positive integers. */
static int dims_of(const cJSON *dims, int i, int64_t *d, int max)
{
    const cJSON *a = cJSON_GetArrayItem(dims, i);
    if (!cJSON_IsArray(a))
        return -1;
    int n = 0;
    for (const cJSON *x = a->child; x; x = x->next) {
        if (!cJSON_IsNumber(x) || !(x->valuedouble >= 1 && x->valuedouble <= 2147483648.0) || n == max)
            return -1;
        d[n++] = (int64_t)x->valuedouble;
    }
    return n;
}

static int64_t product(const int64_t *d, int n)
{
    double p = 1;
    for (int i = 0; i < n; i++)
        p *= (double)d[i];
    return p <= 2147483648.0 ? (int64_t)p : -1;
}

/* Sizes from PyTorch's Input Dims by the rule; a reason when they do not fit. */
static const char *torch_sizes(enum shape_rule r, const cJSON *dims, struct sizes *s)
{
    int64_t a[8], b[8];
    int na = dims_of(dims, r == SH_ADDMM ? 1 : 0, a, 8), nb = dims_of(dims, r == SH_ADDMM ? 2 : 1, b, 8);
    if (!dims)
        return "no Input Dims (profile with record_shapes=True)";
    *s = (struct sizes){ 0, 0, 0, 1, 0 };
    switch (r) {
    case SH_MM:
    case SH_ADDMM:
        if (na != 2 || nb != 2 || a[1] != b[0])
            return "expected Input Dims [m,k] and [k,n]";
        *s = (struct sizes){ a[0], b[1], a[1], 1, 0 };
        return NULL;
    case SH_BMM: {
        int off = cJSON_GetArraySize(dims) == 3 ? 1 : 0;   /* baddbmm: input, batch1, batch2 */
        na = dims_of(dims, off, a, 8), nb = dims_of(dims, off + 1, b, 8);
        if (na != 3 || nb != 3 || a[0] != b[0] || a[2] != b[1])
            return "expected Input Dims [b,m,k] and [b,k,n]";
        *s = (struct sizes){ a[1], b[2], a[2], a[0], 0 };
        return NULL;
    }
    case SH_LINEAR:
        if (na < 2 || nb != 2 || a[na - 1] != b[1] || product(a, na - 1) < 1)
            return "expected Input Dims [..., k] and a weight [n, k]";
        *s = (struct sizes){ product(a, na - 1), b[0], b[1], 1, 0 };
        return NULL;
    case SH_ROWS:
        if (na < 1 || product(a, na) < 1)
            return "expected Input Dims [..., n]";
        *s = (struct sizes){ na > 1 ? product(a, na - 1) : 1, a[na - 1], 0, 1, 0 };
        return NULL;
    case SH_ELEMS:
        if (na < 1 || product(a, na) < 1)
            return "expected Input Dims with at most 2^31 elements";
        s->m = product(a, na);
        return NULL;
    case SH_SDPA:
        if (na != 4 || nb != 4 || a[0] != b[0] || a[1] != b[1] || a[3] != b[3])
            return "expected Input Dims [b,h,s,d] for the query and the key";
        *s = (struct sizes){ a[2], b[2], a[3], a[0], a[1] };
        return NULL;
    default:
        return "no sizes";
    }
}

/* "bf16[8,128,256]{2,1,0}" at *p: the element type into t, the dims into d. */
static int hlo_shape(const char **p, char *t, size_t tn, int64_t *d, int max)
{
    const char *s = *p;
    size_t i = 0;
    while (isalnum((unsigned char)*s) && i + 1 < tn)
        t[i++] = *s++;
    t[i] = '\0';
    if (*s++ != '[')
        return -1;
    int n = 0;
    while (*s && *s != ']') {
        char *end;
        long long v = strtoll(s, &end, 10);
        if (end == s || v < 1 || v > 2147483648LL || n == max)
            return -1;
        d[n++] = v;
        s = *end == ',' ? end + 1 : end;
    }
    if (*s != ']')
        return -1;
    *p = s + 1;
    return n;
}

/* An XLA dot: "%dot.3 = f32[m,n]{..} dot(f32[m,k]{..} %a, f32[k,n]{..} %b), lhs_contracting_dims={1}, ...". */
static const char *hlo_dot_sizes(const char *text, struct sizes *s, const char **fmt)
{
    static char t[16];
    char lt[16];
    int64_t o[8], l[8];
    const char *p = strstr(text, "= ");
    if (!p)
        return "expected \"= TYPE[dims] dot(\" in the HLO text";
    p += 2;
    int no = hlo_shape(&p, t, sizeof t, o, 8);
    const char *q = strstr(p, "dot(");
    if (no < 2 || !q)
        return "expected a dot with an output of rank 2 or more";
    q += 4;
    int nl = hlo_shape(&q, lt, sizeof lt, l, 8);
    const char *cd = strstr(q, "lhs_contracting_dims={");
    int kdim = cd ? atoi(cd + 22) : nl - 1;
    if (nl < 2 || kdim < 0 || kdim >= nl)
        return "expected the left operand's shape and its contracting dimension";
    int64_t batch = product(o, no - 2);
    if (batch < 1)
        return "expected at most 2^31 batches";
    *s = (struct sizes){ o[no - 2], o[no - 1], l[kdim], batch, 0 };
    *fmt = format_of_type(lt) ? format_of_type(lt) : format_of_type(t);
    return NULL;
}

/* SH_NAME: "$N" from the match's groups, a literal, or empty (0). -1: a
 * group that did not match a whole number. */
static int64_t name_size(const char *spec, const char *name, const regmatch_t *g)
{
    if (!spec || !*spec)
        return 0;
    if (spec[0] != '$') {
        int64_t v;
        return parse_i64_strict(spec, &v) ? -1 : v;
    }
    const regmatch_t *m = &g[spec[1] - '0'];
    char buf[24];
    int len = (int)(m->rm_eo - m->rm_so);
    if (m->rm_so < 0 || len <= 0 || len >= (int)sizeof buf)
        return -1;
    memcpy(buf, name + m->rm_so, (size_t)len);
    buf[len] = '\0';
    int64_t v;
    return parse_i64_strict(buf, &v) || v < 1 || v > 2147483648LL ? -1 : v;
}

/* The first rule that matches; its sizes (or why there are none). NULL: no rule. */
const struct compiled_rule *match(const struct name_rules *rs, const char *name, const char *hlo,
                                  const cJSON *dims, struct sizes *s, const char **fmt, const char **why)
{
    for (int i = 0; i < rs->n; i++) {
        const struct compiled_rule *c = &rs->rule[i];
        const char *text = c->r.on_hlo ? hlo : name;
        regmatch_t g[10];
        if (!text || regexec(&c->re, text, 10, g, 0))
            continue;
        *why = NULL;
        if (c->r.shape == SH_HLO_DOT)
            *why = hlo_dot_sizes(text, s, fmt);
        else if (c->r.shape != SH_NAME)
            *why = torch_sizes(c->r.shape, dims, s);
        else {
            *s = (struct sizes){ name_size(c->r.m, text, g), name_size(c->r.n, text, g), name_size(c->r.k, text, g),
                                 name_size(c->r.batch, text, g), 0 };
            if (s->m < 0 || s->n < 0 || s->k < 0 || s->batch < 0)
                *why = "a size group of the rule is not a whole number";
            else if (!s->m)
                *why = "no sizes in the kernel name (add a --names rule with capture groups)";
        }
        return c;
    }
    return NULL;
}
