#!/bin/sh
# layering.sh — the dependency rule of docs/architecture.md, checked by an include scan.
#
# Each folder may include the headers of the folders listed for it (its own
# always), and nothing else of ours; a header named *_internal.h is private to
# its folder; and only base/ calls cJSON_Parse* (the one JSON reader). Unit
# tests and fuzz harnesses (tests/) may include and call anything.
# Prints every violation as file:line and exits 1 if there is one. Run by
# `make layering` and by `make test`. An argument names another tree to scan
# (tests/cli checks that a planted violation fails).
cd "${1:-$(dirname "$0")/..}" || exit 2

# folder: the folders it may include (besides itself); "chipsim/chip.h" alone
# means that one public header of chipsim. study/ is cut into rooms by role,
# each a folder of its own here, in this order: hf (Hugging Face configs) <- run (one configuration) <-
# stages (over results trees) <- sweep <- view (what people look at); study/
# itself holds the front door (study.h), which may include every room. A room
# is entered by its front header alone (study/hf/hf.h, study/run/run.h, study/stages/stages.h,
# study/sweep/sweep.h, study/view/view.h): outside the room nothing includes a
# header inside it (tests may, to test what is inside). serving/ (the
# request-level engine) stands on the run room and is entered by
# serving/serving.h alike.
allowed() {
    case $1 in
        base) echo "" ;;
        traces) echo "base" ;;
        opsgen) echo "base traces" ;;
        chipsim) echo "base traces" ;;
        power) echo "base traces chipsim/chip.h" ;;
        study/hf) echo "base" ;;
        study/run) echo "base traces opsgen chipsim power study/hf" ;;
        study/stages) echo "base traces opsgen chipsim power study/hf study/run" ;;
        study/sweep) echo "base traces opsgen chipsim power study/hf study/run study/stages" ;;
        study/view) echo "base traces opsgen chipsim power study/hf study/run study/stages study/sweep" ;;
        study) echo "base traces opsgen chipsim power study/hf study/run study/stages study/sweep study/view" ;;
        serving) echo "base traces opsgen chipsim power study/hf study/run" ;;
        calib) echo "base traces opsgen chipsim power study serving" ;;
        api) echo "base traces opsgen chipsim power study serving calib" ;;
        cli) echo "base traces opsgen chipsim power study serving calib api" ;;
    esac
}

# The folder an include names: its room for study/ (study/run/x.h: study/run).
folder_of() {
    case $1 in
        study/*/*) echo "$1" | cut -d/ -f1-2 ;;
        *) echo "${1%%/*}" ;;
    esac
}

bad=0
for dir in base traces opsgen chipsim power study/hf study/run study/stages study/sweep study/view study serving calib api cli; do
    [ -d "$dir" ] || continue
    ok=$(allowed "$dir")
    for f in "$dir"/*.c "$dir"/*.h; do
        [ -f "$f" ] || continue
        grep -n '^[[:space:]]*#[[:space:]]*include[[:space:]]*"[a-z_]*/[a-z_0-9/]*\.h"' "$f" |
        while IFS= read -r line; do
            n=${line%%:*}
            inc=$(echo "$line" | sed 's/.*"\([^"]*\)".*/\1/')
            top=$(folder_of "$inc")
            [ "$top" = "$dir" ] && continue
            case $inc in
                *_internal.h) echo "$f:$n: includes $inc, private to $top/"; continue ;;
            esac
            pass=no
            for a in $ok; do
                # "study" admits every room; a room or header admits itself
                if [ "$a" = "$top" ] || [ "$a" = "$inc" ] || [ "$a" = "${top%%/*}" ]; then pass=yes; fi
            done
            if [ $pass = no ]; then
                echo "$f:$n: includes $inc; $dir/ may include only: ${ok:-nothing of ours}"
                continue
            fi
            # A study room is entered by its front header (study/run/run.h):
            # outside it, no header inside the room is included.
            case $top in
                study/*)
                    [ "$inc" = "$top/${top#study/}.h" ] ||
                        echo "$f:$n: includes $inc; outside $top/ include its front header $top/${top#study/}.h" ;;
                serving)
                    [ "$inc" = "serving/serving.h" ] ||
                        echo "$f:$n: includes $inc; outside serving/ include its front header serving/serving.h" ;;
            esac
        done
    done
done >"${TMPDIR:-/tmp}/layering.$$"
# Every JSON text is read by the one reader (base/json_strict.h): no folder
# above base/ calls cJSON's parser itself.
for dir in traces opsgen chipsim power study/hf study/run study/stages study/sweep study/view study serving calib api cli; do
    [ -d "$dir" ] || continue
    for f in "$dir"/*.c "$dir"/*.h; do
        [ -f "$f" ] || continue
        grep -n 'cJSON_Parse[A-Za-z]*[[:space:]]*(' "$f" | while IFS= read -r line; do
            echo "$f:${line%%:*}: calls cJSON's parser; JSON is read by base/json_strict.h (json_parse*)"
        done
    done
done >>"${TMPDIR:-/tmp}/layering.$$"
if [ -s "${TMPDIR:-/tmp}/layering.$$" ]; then
    cat "${TMPDIR:-/tmp}/layering.$$"
    bad=1
fi
rm -f "${TMPDIR:-/tmp}/layering.$$"
if [ $bad = 0 ]; then
    echo "layering: base <- traces <- opsgen, chipsim <- power <- study (hf <- run <- stages <- sweep <- view), serving (over run) <- calib <- api <- cli: no violation"
fi
exit $bad
