/* testutil.h — shared includes and helpers for the cmocka unit tests. */
#ifndef NPUSIM_TESTUTIL_H
#define NPUSIM_TESTUTIL_H

#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <math.h>
#include <string.h>

/* Exact integer comparison with readable failure output. */
#define assert_i64(a, b) assert_int_equal((int64_t)(a), (int64_t)(b))
/* Relative comparison for doubles that are hand-derived to ~1e-12. */
#define assert_close(a, b) assert_true(fabs((double)(a) - (double)(b)) <= 1e-9 * fmax(1.0, fabs((double)(b))))

/* Path to the source tree's tests/ folder (tests run from the repo root). */
#define TEST_DATA(p) "tests/" p

#endif
