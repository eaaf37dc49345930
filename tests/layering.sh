#!/bin/sh
# layering.sh — the dependency rule of docs/architecture.md, checked by an include scan.
#
# Each folder may include the headers of the folders listed for it (its own
# always), and nothing else of ours; a header named *_internal.h is private to
# its folder. Unit tests and fuzz harnesses (tests/) may include anything.
# Prints every violation as file:line and exits 1 if there is one. Run by
# `make layering` and by `make test`. An argument names another tree to scan
# (tests/cli checks that a planted violation fails).
cd "${1:-$(dirname "$0")/..}" || exit 2

# folder: the folders it may include (besides itself); "chipsim/chip.h" alone
# means that one public header of chipsim.
allowed() {
    case $1 in
        traces) echo "" ;;
        opsgen) echo "traces" ;;
        chipsim) echo "traces" ;;
        power) echo "traces chipsim/chip.h" ;;
        study) echo "traces opsgen chipsim power" ;;
        calib) echo "traces opsgen chipsim power study" ;;
        api) echo "traces opsgen chipsim power study calib" ;;
        cli) echo "traces opsgen chipsim power study calib api" ;;
    esac
}

bad=0
for dir in traces opsgen chipsim power study calib api cli; do
    [ -d "$dir" ] || continue
    ok=$(allowed "$dir")
    for f in "$dir"/*.c "$dir"/*.h; do
        [ -f "$f" ] || continue
        grep -n '^[[:space:]]*#[[:space:]]*include[[:space:]]*"[a-z_]*/[a-z_0-9]*\.h"' "$f" |
        while IFS= read -r line; do
            n=${line%%:*}
            inc=$(echo "$line" | sed 's/.*"\([^"]*\)".*/\1/')
            top=${inc%%/*}
            [ "$top" = "$dir" ] && continue
            case $inc in
                *_internal.h) echo "$f:$n: includes $inc, private to $top/"; continue ;;
            esac
            pass=no
            for a in $ok; do
                if [ "$a" = "$top" ] || [ "$a" = "$inc" ]; then pass=yes; fi
            done
            [ $pass = yes ] || echo "$f:$n: includes $inc; $dir/ may include only: ${ok:-nothing of ours}"
        done
    done
done >"${TMPDIR:-/tmp}/layering.$$"
if [ -s "${TMPDIR:-/tmp}/layering.$$" ]; then
    cat "${TMPDIR:-/tmp}/layering.$$"
    bad=1
fi
rm -f "${TMPDIR:-/tmp}/layering.$$"
if [ $bad = 0 ]; then
    echo "layering: traces <- opsgen, chipsim <- power <- study <- calib <- api <- cli: no violation"
fi
exit $bad
