/* quantize.h — the narrow number formats as bits, for the kernels npusim
 * measure emulates on a CPU: fp8 e4m3 (OCP "e4m3fn": no infinities, max 448)
 * and e5m2 (max 57344) encoded and decoded, bf16 rounding, and block-scaled
 * quantisation (one fp32 scale per block, chosen so the block's largest
 * magnitude lands on the format's largest finite value, as DeepSeek-V3's
 * fp8 GEMMs do with 1x128 activation and 128x128 weight blocks).
 *
 * Rounding is to nearest, ties to even, saturating at the largest finite
 * value. Main data structure: struct fp8_format, one format's parameters. */
#ifndef NPUSIM_QUANTIZE_H
#define NPUSIM_QUANTIZE_H

#include <stddef.h>
#include <stdint.h>

struct fp8_format {
    const char *name;       /* "fp8_e4m3" */
    int exp_bits, man_bits, bias;
    double max_finite;      /* 448 or 57344 */
};
extern const struct fp8_format fp8_e4m3, fp8_e5m2;

/* x rounded to the nearest value of f (ties to even), saturated to
 * +-max_finite; NaN stays NaN. */
double fp8_round(const struct fp8_format *f, double x);
/* The bit pattern of fp8_round(f, x); decode(encode(x)) == fp8_round(x). */
uint8_t fp8_encode(const struct fp8_format *f, double x);
double fp8_decode(const struct fp8_format *f, uint8_t code);
/* The 256 values of f's codes, for a table lookup (NaN codes: NaN). */
void fp8_table(const struct fp8_format *f, float table[256]);

/* x rounded to bfloat16 (8 bits of mantissa, ties to even), as a float. */
float bf16_round(float x);

/* Block-scaled quantisation of a rows x cols row-major matrix to f's codes:
 * blocks of br rows by bc columns (edge blocks may be smaller), one scale
 * per block, scales row-major over the ceil(rows/br) x ceil(cols/bc) block
 * grid. An all-zero block gets scale 1. */
void fp8_quantize_blocks(const struct fp8_format *f, const float *x, size_t rows, size_t cols, size_t br,
                         size_t bc, uint8_t *codes, float *scales);
/* The inverse: out = table[code] * scale of the element's block. */
void fp8_dequantize_blocks(const float table[256], const uint8_t *codes, const float *scales, size_t rows,
                           size_t cols, size_t br, size_t bc, float *out);

#endif
