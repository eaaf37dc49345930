# Sourced by tests/cli/run.sh: messages that name the real problem.
# A model, chip or system path that is a folder, a FIFO or a device says so
# (and a FIFO is never opened, so nothing waits for a writer; other JSON
# inputs open one without waiting and read it as empty); trace errors
# name the trace, including those about one of its operators; the HTTP API's
# unknown chip names the chip and the chips there are, never the server's
# folders (the command line's message also says where it looked).
MS="$T/messages"
mkdir -p "$MS/dir.json"
mkfifo "$MS/fifo.json"
expect_fail "messages: a model path that is a folder says so" 'dir.json: model: is a directory, expected a JSON file' \
    $NPUSIM run --configs $CONFIGS -m "$MS/dir.json" --out "$MS/o"
expect_fail "messages: a model path that is a FIFO says so, without waiting for a writer" \
    'fifo.json: model: is a FIFO (named pipe), expected a JSON file' \
    timeout 20 $NPUSIM run --configs $CONFIGS -m "$MS/fifo.json" --out "$MS/o"
expect_fail "messages: a model path that is a device says so" '/dev/null: model: is a device, expected a JSON file' \
    $NPUSIM run --configs $CONFIGS -m /dev/null --out "$MS/o"
expect_fail "messages: a chip path that is a folder says so" 'dir.json: chip: is a directory' \
    $NPUSIM run --configs $CONFIGS -c "$MS/dir.json" --out "$MS/o"
expect_fail "messages: a system path that is a FIFO says so" 'fifo.json: system: is a FIFO' \
    timeout 20 $NPUSIM run --configs $CONFIGS -s "$MS/fifo.json" --out "$MS/o"
expect_fail "messages: a missing model file is still no such file" 'nope.json: model: no such file$' \
    $NPUSIM run --configs $CONFIGS -m "$MS/nope.json" --out "$MS/o"
no_files "messages: refused config paths leave no output" "$MS/o"
# Other JSON inputs read a FIFO without waiting for a writer that never comes,
# and still read a pipe that has one (/dev/stdin here, as <(...) would be).
expect_fail "messages: sweep --spec a FIFO no one writes: exit 2 naming it, without waiting" 'fifo.json:1: invalid JSON' \
    timeout 20 $NPUSIM sweep --configs $CONFIGS --spec "$MS/fifo.json" --summary "$MS/o/s.csv"
printf '{"models": ["llama3-8b"], "chips": ["tpuv5p"], "num_chips": [1], "batch_sizes": [1]}' >"$MS/spec.json"
check "messages: sweep --spec a pipe (/dev/stdin) still reads it" sh -c "
  cat '$MS/spec.json' | timeout 60 $NPUSIM sweep --configs $CONFIGS --spec /dev/stdin --summary '$MS/pipe.csv' 2>/dev/null &&
  grep -q '^0,llama3-8b,inference,tpuv5p,1,' '$MS/pipe.csv'"
expect_fail "messages: a sweep spec that is a folder says so" 'dir.json: is a directory, expected a file' \
    $NPUSIM sweep --configs $CONFIGS --spec "$MS/dir.json" --summary "$MS/o/s.csv"
expect_fail "messages: an unknown chip names the chips there are and where it looked" \
    'unknown chip "nochip": no file found (known chips: .*h100, .*; looked for .*/chips/nochip.json' \
    $NPUSIM run --configs $CONFIGS -c nochip --out "$MS/o"

# Traces: a folder for -i, and an error about an operator of the trace.
expect_fail "messages: chipsim -i a folder says so" 'dir.json: is a directory, expected a trace CSV' \
    $NPUSIM chipsim --configs $CONFIGS -i "$MS/dir.json" -o "$MS/t/x.csv"
$NPUSIM opsgen --configs $CONFIGS -m llama3-8b -c tpuv5p -o "$MS/untimed.csv" >/dev/null 2>&1
expect_fail "messages: power -i an untimed trace names the trace and the operator" \
    'untimed.csv: op 0 "[^"]*" .*expected a positive execution time' \
    $NPUSIM power --configs $CONFIGS -m llama3-8b -c tpuv5p -i "$MS/untimed.csv" -o "$MS/t/y.csv"
expect_fail "messages: the same from stdin names <stdin>" '<stdin>: op 0 ' \
    sh -c "$NPUSIM power --configs $CONFIGS -m llama3-8b -c tpuv5p < '$MS/untimed.csv'"
expect_fail "messages: chipsim -i a FIFO no one writes: exit 2 naming it, without waiting" 'fifo.json: empty input' \
    timeout 20 $NPUSIM chipsim --configs $CONFIGS -i "$MS/fifo.json" -o "$MS/t/z.csv"
check "messages: chipsim -i a pipe (/dev/stdin) still reads it" sh -c "
  cat '$MS/untimed.csv' | timeout 60 $NPUSIM chipsim --configs $CONFIGS -i /dev/stdin -o '$MS/piped.csv' &&
  test -s '$MS/piped.csv'"
no_files "messages: refused traces leave no output" "$MS/t"

# The HTTP API (a server of its own, on the first free port of a few).
if command -v curl >/dev/null 2>&1; then
    MS_CFG=$(cd "$CONFIGS" && pwd)
    MS_NP=$(cd "$(dirname "$NPUSIM")" && pwd)/$(basename "$NPUSIM")
    MS_UP=
    for MS_PORT in $((21000 + ($$ + 7) % 28000)) $((21000 + ($$ + 1031) % 28000)) $((21000 + ($$ + 4099) % 28000)); do
        "$MS_NP" serve --port "$MS_PORT" --configs "$MS_CFG" --threads 1 2>"$MS/serve.log" &
        MS_PID=$!
        for i in $(seq 1 50); do
            curl -s -o /dev/null "http://127.0.0.1:$MS_PORT/api/strategies" && { MS_UP=1; break; }
            kill -0 "$MS_PID" 2>/dev/null || break   # the port was taken: the next one
            sleep 0.1
        done
        [ -n "$MS_UP" ] && break
        kill "$MS_PID" 2>/dev/null; wait "$MS_PID" 2>/dev/null
    done
    check "messages: the API's unknown chip is 400 naming the chip and the chips there are, not the server's folders" sh -c "
      [ -n '$MS_UP' ] &&
      [ \"\$(curl -s -o '$MS/body' -w %{http_code} -X POST -H 'Content-Type: application/json' 'http://127.0.0.1:$MS_PORT/api/op' \
             -d '{\"op\": \"gemm\", \"m\": 1, \"n\": 1, \"k\": 1, \"chip\": \"nochip\"}')\" = 400 ] &&
      grep -q 'unknown chip \\\\\"nochip\\\\\": no file found (known chips: .*h100.*tpuv5p.*)\"}\$' '$MS/body' &&
      ! grep -q -e 'looked for' -e '$MS_CFG' -e '/chips/' -e 'share/npusim' '$MS/body'"
    kill "$MS_PID" 2>/dev/null; wait "$MS_PID" 2>/dev/null
else
    echo "ok - messages: the API's unknown chip: skipped, no curl here (apt-get install curl; .ci/debian.txt has it)"
fi
