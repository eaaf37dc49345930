/* quantize.c — fp8 and bf16 as bits (see quantize.h). No data structure
 * beyond the two format descriptions. */
#include "calib/quantize.h"

#include <math.h>
#include <string.h>

const struct fp8_format fp8_e4m3 = { "fp8_e4m3", 4, 3, 7, 448.0 };
const struct fp8_format fp8_e5m2 = { "fp8_e5m2", 5, 2, 15, 57344.0 };

/* The smallest normal exponent: 1 - bias. Below it the spacing stays that of
 * the smallest binade (subnormals). */
static int min_exp(const struct fp8_format *f) { return 1 - f->bias; }

double fp8_round(const struct fp8_format *f, double x)
{
    if (isnan(x) || x == 0)
        return x;
    double a = fabs(x);
    int e;
    frexp(a, &e);                     /* a = m 2^e, m in [0.5, 1): leading bit 2^(e-1) */
    int lead = e - 1 < min_exp(f) ? min_exp(f) : e - 1;
    double ulp = ldexp(1.0, lead - f->man_bits);
    double r = nearbyint(a / ulp) * ulp; /* the default rounding mode: ties to even */
    if (r > f->max_finite)
        r = f->max_finite;
    return x < 0 ? -r : r;
}

uint8_t fp8_encode(const struct fp8_format *f, double x)
{
    if (isnan(x))
        return 0x7f;                  /* e4m3fn's NaN; e5m2's is among 0x7d..0x7f too */
    double r = fabs(fp8_round(f, x));
    unsigned sign = (signbit(x) ? 1u : 0u) << 7, exp = 0, man;
    if (r < ldexp(1.0, min_exp(f))) {
        man = (unsigned)(r / ldexp(1.0, min_exp(f) - f->man_bits)); /* subnormal: exact */
    } else {
        int e;
        double m = frexp(r, &e);      /* r = m 2^e, m in [0.5, 1) */
        exp = (unsigned)(e - 1 + f->bias);
        man = (unsigned)((m * 2 - 1) * (1 << f->man_bits));
    }
    return (uint8_t)(sign | exp << f->man_bits | man);
}

double fp8_decode(const struct fp8_format *f, uint8_t code)
{
    unsigned man_mask = (1u << f->man_bits) - 1, exp_max = (1u << f->exp_bits) - 1;
    unsigned exp = (code >> f->man_bits) & exp_max, man = code & man_mask;
    double sign = code & 0x80 ? -1.0 : 1.0;
    /* e4m3fn: only all ones (S.1111.111) is NaN; e5m2: IEEE-like top exponent. */
    if (f->exp_bits == 4 ? (exp == exp_max && man == man_mask) : exp == exp_max)
        return f->exp_bits == 5 && man == 0 ? sign * INFINITY : NAN;
    if (exp == 0)
        return sign * ldexp((double)man, min_exp(f) - f->man_bits);
    return sign * ldexp(1.0 + (double)man / (1 << f->man_bits), (int)exp - f->bias);
}

void fp8_table(const struct fp8_format *f, float table[256])
{
    for (int c = 0; c < 256; c++)
        table[c] = (float)fp8_decode(f, (uint8_t)c);
}

float bf16_round(float x)
{
    uint32_t u;
    memcpy(&u, &x, sizeof u);
    if ((u & 0x7f800000u) == 0x7f800000u)
        return x;                     /* inf and NaN as they are */
    u += 0x7fffu + ((u >> 16) & 1u);  /* to nearest, ties to even */
    u &= 0xffff0000u;
    memcpy(&x, &u, sizeof x);
    return x;
}

void fp8_quantize_blocks(const struct fp8_format *f, const float *x, size_t rows, size_t cols, size_t br,
                         size_t bc, uint8_t *codes, float *scales)
{
    size_t gc = (cols + bc - 1) / bc;
    for (size_t r0 = 0; r0 < rows; r0 += br)
        for (size_t c0 = 0; c0 < cols; c0 += bc) {
            size_t r1 = r0 + br < rows ? r0 + br : rows, c1 = c0 + bc < cols ? c0 + bc : cols;
            float amax = 0;
            for (size_t r = r0; r < r1; r++)
                for (size_t c = c0; c < c1; c++)
                    amax = fmaxf(amax, fabsf(x[r * cols + c]));
            float s = amax > 0 ? amax / (float)f->max_finite : 1.0f;
            scales[(r0 / br) * gc + c0 / bc] = s;
            for (size_t r = r0; r < r1; r++)
                for (size_t c = c0; c < c1; c++)
                    codes[r * cols + c] = fp8_encode(f, x[r * cols + c] / s);
        }
}

void fp8_dequantize_blocks(const float table[256], const uint8_t *codes, const float *scales, size_t rows,
                           size_t cols, size_t br, size_t bc, float *out)
{
    size_t gc = (cols + bc - 1) / bc;
    for (size_t r = 0; r < rows; r++) {
        const float *srow = scales + (r / br) * gc;
        const uint8_t *in = codes + r * cols;
        float *o = out + r * cols;
        /* a block's scale hoisted out of its columns: no division per element */
        for (size_t b = 0, c0 = 0; c0 < cols; b++, c0 += bc) {
            size_t c1 = c0 + bc < cols ? c0 + bc : cols;
            float sc = srow[b];
            for (size_t c = c0; c < c1; c++)
                o[c] = table[in[c]] * sc;
        }
    }
}
