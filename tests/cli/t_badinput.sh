# The bad-input matrix (sourced by tests/cli/run.sh: uses ok, no, $NPUSIM, $CONFIGS, $T).
# Every row of tests/cli/badinput.txt is one bad input or flag; for each this asserts:
#   - exit status 2;
#   - one message on stderr (besides a "(see 'npusim X --help')" hint and a suite's
#     "+ npusim ..." echo lines) matching the row's pattern, which names the file or
#     flag, the field and what was expected;
#   - no file created, changed or removed anywhere under the scratch folder, which holds
#     every input and every output the rows name (a FIFO, a symlink, a device node made
#     with mknod, a read-only folder and a full device among them).
# Rows run with the scratch folder as the working directory, standard input from
# /dev/null and these variables: N (npusim), C (--configs with the shipped configs).
B="$T/matrix"
mkdir -p "$B"
# The binary and configs are copied under the scratch folder's parent, which any user may
# enter: rows that run as nobody (below) must reach them wherever the checkout lies.
mkdir -p "$T/matrix-bin"
cp "$NPUSIM" "$T/matrix-bin/npusim"
cp -R "$CONFIGS" "$T/matrix-bin/configs"
chmod -R a+rX "$T/matrix-bin"
N="$T/matrix-bin/npusim"
CABS="$T/matrix-bin/configs"
C="--configs $CABS"
# Root writes into read-only folders: rows naming $AS run as nobody then.
AS= NO_AS=
if [ "$(id -u)" = 0 ]; then
    AS="setpriv --reuid=65534 --regid=65534 --clear-groups"
    $AS true 2>/dev/null || NO_AS=1   # a container that cannot drop root: those rows are skipped
fi
sh tests/cli/badinput-fixtures.sh "$N" "$CABS" "$B" >"$T/fixtures.log" 2>&1 || {
    no "bad-input matrix: fixtures" "$T/fixtures.log"; }
# What a row may not change: every entry's name, type, size, mode and link target, and
# the modification time of everything but folders (a temporary made and removed again
# touches its folder's time, not its contents).
snapshot() {
    (cd "$B" && { find . -type d -printf '%p d %m\n'; find . ! -type d -printf '%p %y %s %T@ %m %l\n'; } |
        LC_ALL=C sort)
}
chmod a+rx "$T" "$B"
snapshot >"$T/snap.before"
rows=0
while IFS='|' read -r name pat cmd; do
    case "$name" in ''|'#'*) continue ;; esac
    name=$(echo "$name" | sed 's/ *$//') pat=$(echo "$pat" | sed 's/^ *//; s/ *$//')
    rows=$((rows + 1))
    case "$cmd" in *'$AS'*) if [ -n "$NO_AS" ]; then ok "bad input: $name # skipped: cannot run as nobody"; continue; fi ;; esac
    (cd "$B" && N="$N" C="$C" AS="$AS" timeout 60 sh -c "$cmd" </dev/null >"$T/m.out" 2>"$T/m.err"); rc=$?
    grep -v -e "^(see 'npusim" -e '^+ npusim' "$T/m.err" >"$T/m.msg"
    snapshot >"$T/snap.after"
    why=
    [ "$rc" -eq 2 ] || why="exit $rc"
    [ "$(wc -l <"$T/m.msg")" -eq 1 ] || why="$why; $(wc -l <"$T/m.msg") message lines"
    grep -q -e "$pat" "$T/m.msg" || why="$why; message does not match /$pat/"
    if ! cmp -s "$T/snap.before" "$T/snap.after"; then
        why="$why; files changed"
        diff "$T/snap.before" "$T/snap.after" | head -n 4 >>"$T/m.err"
        cp "$T/snap.after" "$T/snap.before"
    fi
    if [ -z "$why" ]; then ok "bad input: $name"; else
        echo "$why" >>"$T/m.err"; no "bad input: $name ($why)" "$T/m.err"; fi
done <tests/cli/badinput.txt
if [ "$rows" -ge 150 ]; then ok "bad-input matrix has $rows rows"; else
    echo "$rows rows" >"$T/rows"; no "bad-input matrix has at least 150 rows" "$T/rows"; fi
