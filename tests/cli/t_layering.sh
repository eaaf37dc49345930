# Sourced by tests/cli/run.sh: the include scan of tests/layering.sh (docs/architecture.md)
# passes on the tree and fails on planted violations, naming the file and line.
LY="$T/layering"
mkdir -p "$LY/opsgen" "$LY/power" "$LY/traces" "$LY/base" "$LY/study/run"
check "layering: the tree follows the dependency rule" sh tests/layering.sh
printf '#include "traces/op.h"\n#include "power/stats.h"\n' >"$LY/opsgen/gen.c"
expect_fail_1() { desc=$1 pat=$2; shift 2
    "$@" >"$T/out" 2>&1; rc=$?
    if [ "$rc" -eq 1 ] && grep -q -- "$pat" "$T/out"; then ok "$desc"; else
        echo "exit $rc" >>"$T/out"; no "$desc (want exit 1 and /$pat/)" "$T/out"; fi; }
expect_fail_1 "layering: opsgen including power fails, naming the line" \
    'opsgen/gen.c:2: includes power/stats.h; opsgen/ may include only: base traces' sh tests/layering.sh "$LY"
rm "$LY/opsgen/gen.c"
printf '#include "chipsim/cs_internal.h"\n' >"$LY/power/energy.c"
expect_fail_1 "layering: a private header used across folders fails" \
    'power/energy.c:1: includes chipsim/cs_internal.h, private to chipsim/' sh tests/layering.sh "$LY"
printf '#include "chipsim/chip.h"\n' >"$LY/power/energy.c"
check "layering: power may read chipsim's public chip header" sh tests/layering.sh "$LY"
printf '#include "opsgen/model.h"\n' >"$LY/traces/op.h"
expect_fail_1 "layering: traces including more than base fails" \
    'traces/op.h:1: includes opsgen/model.h; traces/ may include only: base' sh tests/layering.sh "$LY"
rm "$LY/traces/op.h"
printf '#include "traces/op.h"\n' >"$LY/base/err.h"
expect_fail_1 "layering: base including anything of ours fails" \
    'base/err.h:1: includes traces/op.h; base/ may include only: nothing of ours' sh tests/layering.sh "$LY"
rm "$LY/base/err.h"
printf '#include "study/view/chart.h"\n' >"$LY/study/run/stats.c"
expect_fail_1 "layering: a study room including a room above it fails" \
    'study/run/stats.c:1: includes study/view/chart.h; study/run/ may include only: base traces opsgen chipsim power' \
    sh tests/layering.sh "$LY"
mkdir -p "$LY/study/view"
printf '#include "study/run/run.h"\n#include "study/run/config.h"\n' >"$LY/study/view/chart.c"
rm "$LY/study/run/stats.c"
expect_fail_1 "layering: a room above reaching inside study/run (not its front header run.h) fails" \
    'study/view/chart.c:2: includes study/run/config.h; outside study/run/ include its front header study/run/run.h' \
    sh tests/layering.sh "$LY"
rm "$LY/study/view/chart.c"

# Quirk ids name their spec file (opsgen Q8, chipsim Q11, power Q13): a bare Qn is ambiguous.
check "quirk ids in the sources name their spec (no bare Qn)" sh -c "
  ! grep -nE '(^|[^A-Za-z0-9_])Q[0-9]+[a-z]?([^0-9a-z]|$)' base/*.[ch] traces/*.[ch] opsgen/*.[ch] chipsim/*.[ch] power/*.[ch] study/*.[ch] study/*/*.[ch] calib/*.[ch] api/*.[ch] cli/*.[ch] |
    grep -vE '(opsgen|chipsim|power|spec) Q[0-9]' | grep -E 'Q[0-9]'"
