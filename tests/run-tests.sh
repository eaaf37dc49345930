#!/bin/sh
# Runs every cmocka program given as an argument, then the CLI tests, and ends
# with one summary line "N passed, N failed" (the line CI reads).
# Exit status: 0 only if nothing failed.
pass=0 fail=0
for t in "$@"; do
    out=$("$t" 2>&1); rc=$?
    printf '%s\n' "$out" | grep -E '^\[  (FAILED|  OK  ) \]|^\[==========\]|ERROR|Failure|Assert' | grep -v '^\[       OK \]' || true
    p=$(printf '%s\n' "$out" | sed -n 's/^\[  PASSED  \] \([0-9]*\) test.*/\1/p' | tail -n 1)
    f=$(printf '%s\n' "$out" | sed -n 's/^\[  FAILED  \] \([0-9]*\) test.*/\1/p' | tail -n 1)
    pass=$((pass + ${p:-0})); fail=$((fail + ${f:-0}))
    if [ "$rc" -ne 0 ] && [ -z "$f" ]; then fail=$((fail + 1)); echo "$t: exited $rc"; fi
done
if [ -x tests/cli/run.sh ]; then
    out=$(NPUSIM=${BUILD:-build}/npusim sh tests/cli/run.sh 2>&1); rc=$?
    printf '%s\n' "$out" | grep -v '^ok ' || true
    p=$(printf '%s\n' "$out" | grep -c '^ok ')
    f=$(printf '%s\n' "$out" | grep -c '^not ok ')
    if ! printf '%s\n' "$out" | grep -qx '# cli tests ran to the end'; then
        f=$((f + 1)); echo "tests/cli/run.sh: stopped before its end (exit $rc)"
    fi
    pass=$((pass + p)); fail=$((fail + f))
fi
# The fuzz harnesses (make test builds them into build-fuzz/fuzz): replay, then a short run each.
if [ "${FUZZ_SMOKE:-0}" = 1 ]; then
    if ls build-fuzz/fuzz/fuzz_* >/dev/null 2>&1; then
        out=$(sh tests/fuzz/run-fuzz.sh build-fuzz/fuzz fuzz "${FUZZ_SMOKE_SECONDS:-10}" 2>&1)
        printf '%s\n' "$out" | grep -v '^ok ' || true
        pass=$((pass + $(printf '%s\n' "$out" | grep -c '^ok '))); fail=$((fail + $(printf '%s\n' "$out" | grep -c '^not ok ')))
    else
        echo "fuzz harnesses missing in build-fuzz/fuzz (clang not installed?)"; fail=$((fail + 1))
    fi
fi
echo "$pass passed, $fail failed"
[ "$fail" -eq 0 ] && [ "$pass" -gt 0 ]
