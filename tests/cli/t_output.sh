# Output targets that are not plain files (sourced by tests/cli/run.sh: uses check, expect_fail,
# no_files, $NPUSIM, $CONFIGS, $T). A device, FIFO or socket is written in place and never
# replaced; a symlink is followed and its target replaced; a full device, a closed pipe or a
# read-only folder is exit 2 naming the file.
O="$T/outkinds"
mkdir -p "$O"
$NPUSIM opsgen --configs $CONFIGS -o "$O/ref.csv" >/dev/null

# A character device made here (the same device as /dev/null): written, still a device.
if mknod "$O/null" c 1 3 2>/dev/null; then
    check "opsgen -o a device node: exit 0, the node stays a device" sh -c "
      $NPUSIM opsgen --configs $CONFIGS -o '$O/null' && test -c '$O/null'"
else
    check "opsgen -o /dev/null: exit 0, still a device" sh -c "$NPUSIM opsgen --configs $CONFIGS -o /dev/null && test -c /dev/null"
fi
if mknod "$O/full" c 1 7 2>/dev/null; then FULL="$O/full"; else FULL=/dev/full; fi
expect_fail "opsgen -o a full device: exit 2 naming it" "$FULL: .*No space left on device" $NPUSIM opsgen --configs $CONFIGS -o "$FULL"
check "the full device is still a device" test -c "$FULL"
ln -s "$FULL" "$O/full.csv.gz"
expect_fail "chipsim -o a link to a full device (.gz): exit 2" "full.csv.gz: .*No space left" $NPUSIM chipsim --configs $CONFIGS -i "$O/ref.csv" -o "$O/full.csv.gz"
check "... and the link and the device stay" sh -c "test -L '$O/full.csv.gz' && test -c '$FULL'"
expect_fail "opsgen to stdout on a full device: exit 2 naming <stdout>" '<stdout>: .*No space left' sh -c "$NPUSIM opsgen --configs $CONFIGS -o - >'$FULL'"
expect_fail "run with its summary on a full device: exit 2" '<stdout>' sh -c "$NPUSIM run --configs $CONFIGS --no-energy --out '$O/runfull' >'$FULL'"
expect_fail "fleet with its table on a full device: exit 2" '<stdout>' sh -c "$NPUSIM fleet --configs $CONFIGS --out '$O/fleetfull' examples/fleet.json >'$FULL'"
expect_fail "--help on a full device: exit 2" '<stdout>' sh -c "$NPUSIM run --help >'$FULL'"

# A FIFO: written in place (a reader must be there), still a FIFO afterwards.
mkfifo "$O/fifo"
check "opsgen -o a FIFO: the reader gets the trace, the FIFO stays" sh -c "
  cat '$O/fifo' >'$O/fifo.out' & $NPUSIM opsgen --configs $CONFIGS -o '$O/fifo' && wait &&
  test -p '$O/fifo' && cmp '$O/ref.csv' '$O/fifo.out'"

# Symlinks: the link stays, the file it names is replaced whole (relative links from the link's folder).
mkdir -p "$O/real" "$O/links"
echo old >"$O/real/t.csv"
ln -s ../real/t.csv "$O/links/t.csv"
check "opsgen -o a symlink: the link stays a link, its target holds the trace" sh -c "
  $NPUSIM opsgen --configs $CONFIGS -o '$O/links/t.csv' && test -L '$O/links/t.csv' && cmp '$O/ref.csv' '$O/real/t.csv'"
ln -s ../real/new.csv "$O/links/dangling.csv"
check "opsgen -o a dangling symlink creates the file it names" sh -c "
  $NPUSIM opsgen --configs $CONFIGS -o '$O/links/dangling.csv' && test -L '$O/links/dangling.csv' && cmp '$O/ref.csv' '$O/real/new.csv'"
ln -s loop1 "$O/loop2"; ln -s loop2 "$O/loop1"
expect_fail "opsgen -o a symlink loop: exit 2" 'loop1: .*symbolic links' $NPUSIM opsgen --configs $CONFIGS -o "$O/loop1"
check "no temporary is left beside a link's target" sh -c "test -z \"\$(find '$O/real' '$O/links' -name '*.tmp.*')\""

# A folder, and a folder that is a file.
expect_fail "opsgen -o a folder: exit 2" 'is a folder' $NPUSIM opsgen --configs $CONFIGS -o "$O/real"
expect_fail "run --out under a file: exit 2" 'ref.csv exists and is not a folder' $NPUSIM run --configs $CONFIGS --no-energy --out "$O/ref.csv/x"

# A closed pipe: EPIPE is exit 2 naming <stdout>, not a silent SIGPIPE.
# The reader is gone before npusim writes: the first write fails with EPIPE.
check "opsgen into a closed pipe exits 2 naming <stdout>" sh -c "
  { sleep 0.3; $NPUSIM opsgen --configs $CONFIGS -o - 2>'$O/pipe.err'; echo \$? >'$O/pipe.rc'; } | true;
  test \"\$(cat '$O/pipe.rc')\" = 2 && grep -q '<stdout>.*Broken pipe' '$O/pipe.err'"

# A read-only folder (as root, run as nobody, since root writes anywhere).
mkdir -p "$O/ro"; chmod 555 "$O/ro"
RO_BIN=$NPUSIM RO_CF=$PWD/$CONFIGS
if [ "$(id -u)" = 0 ] && setpriv --reuid=65534 --regid=65534 --clear-groups true 2>/dev/null; then
    AS_USER="setpriv --reuid=65534 --regid=65534 --clear-groups"
    # nobody must reach the binary and configs wherever the checkout lies: copies under $T.
    mkdir -p "$T/ro-bin" && cp "$NPUSIM" "$T/ro-bin/npusim" && cp -R "$CONFIGS" "$T/ro-bin/configs" &&
        chmod -R a+rX "$T/ro-bin" && RO_BIN=$T/ro-bin/npusim RO_CF=$T/ro-bin/configs
    chmod 755 "$T" "$O" 2>/dev/null; chmod o+rx "$T"
else
    AS_USER=
fi
if [ "$(id -u)" = 0 ] && [ -z "$AS_USER" ]; then
    ok "run into a read-only folder # skipped: cannot run as nobody"
else
    expect_fail "run into a read-only folder: exit 2 naming the file" 'ro/.*Permission denied' $AS_USER "$RO_BIN" run --configs "$RO_CF" --no-energy --out "$O/ro/sub"
fi
no_files "the read-only folder stays empty" "$O/ro"

# A run whose outputs cannot all be written leaves none of them, nor the folder it made.
mkdir -p "$O/partial/new"
mkdir "$O/partial/new/llama3-8b_tpuv5p_decode.json"
expect_fail "run with one output blocked by a folder: exit 2" 'decode.json: is a folder' $NPUSIM run --configs $CONFIGS --no-energy --out "$O/partial/new"
check "... and leaves none of the other outputs" sh -c "test \"\$(ls -A '$O/partial/new')\" = llama3-8b_tpuv5p_decode.json"

# The configuration reference is `npusim fields`, from its marker line on.
check "docs/configs.md holds what npusim fields prints" sh -c "
  $NPUSIM fields >'$O/fields.md' && sed -n '/^<!-- printed by .npusim fields/,\$p' docs/configs.md | cmp - '$O/fields.md'"
check "npusim fields names every checked range" sh -c "$NPUSIM fields | grep -q '| \`num_chips\` | integer | chips | 1 | 1 to 1048576 | Chips '"
check "npusim fields gives units and meanings" sh -c "$NPUSIM fields | grep -q '| \`hbm_bw_GBps\` | number | GB/s | required | 0.001 to 1000000000 | HBM '"
check "npusim fields lists the strategy fields" sh -c "$NPUSIM fields | grep -q '| \`hbm_pg_delay_cycles\` | number | cycles | \`60\` | 0 to 1e12 | '"
# A default prints every digit it has (the power model's derived 1.35868996 W, not %g's 1.35869).
check "npusim fields prints a default's every digit" sh -c "$NPUSIM fields | grep -q '| \`static_power_W_per_sa\` | number | W per SA | 1.35868996 | '"
printf '{"SA_PG_enable": true}' >"$O/pg_typo.json"
expect_fail "a misspelt strategy field names the closest" 'pg_typo.json: unknown field "SA_PG_enable" (did you mean "SA_PG_enabled"?)' \
  $NPUSIM run --configs $CONFIGS --pg "$O/pg_typo.json" --out "$O/pg_typo"
# -w and -b, the short spellings of --workload and --batch.
check "run -w training -b 32 equals --workload training --batch 32" sh -c "
  $NPUSIM run --configs $CONFIGS -w training -b 32 --set num_chips=64 --set data_parallelism_degree=8 --set tensor_parallelism_degree=8 --out '$O/wb1' >'$O/wb1.txt' &&
  $NPUSIM run --configs $CONFIGS --workload training --batch 32 --set num_chips=64 --set data_parallelism_degree=8 --set tensor_parallelism_degree=8 --out '$O/wb2' >'$O/wb2.txt' &&
  grep -q 'training' '$O/wb1.txt' && cmp '$O/wb1/llama3-8b_tpuv5p.csv' '$O/wb2/llama3-8b_tpuv5p.csv'"
# /dev/stdout is a link (through /proc/self/fd) to whatever standard output is: a pipe here.
check "opsgen -o /dev/stdout into a pipe writes the trace to it" sh -c "
  $NPUSIM opsgen --configs $CONFIGS -o /dev/stdout | cmp - '$O/ref.csv'"
# A Unix socket (needs python3 to listen; the check is skipped without it).
if command -v python3 >/dev/null; then
    python3 -c "
import socket, sys
s = socket.socket(socket.AF_UNIX); s.bind(sys.argv[1]); s.listen(1); s.settimeout(20)
c, _ = s.accept(); d = b''
while True:
    x = c.recv(65536)
    if not x: break
    d += x
open(sys.argv[2], 'wb').write(d)" "$O/sock" "$O/sock.out" &
    for i in 1 2 3 4 5 6 7 8 9 10; do [ -S "$O/sock" ] && break; sleep 0.2; done
    $NPUSIM opsgen --configs $CONFIGS -o "$O/sock" >"$O/sock.log" 2>&1; echo "exit $?" >>"$O/sock.log"
    wait
    check "opsgen -o a Unix socket: the listener gets the trace, the socket stays" sh -c "
      grep -q 'exit 0' '$O/sock.log' && test -S '$O/sock' && cmp '$O/ref.csv' '$O/sock.out'"
fi
