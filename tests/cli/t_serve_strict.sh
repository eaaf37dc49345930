# Sourced by tests/cli/run.sh: the JSON API of `npusim serve` is as strict as
# the command line (issue 39). A fractional value for a whole-number member
# is 400 naming it (op, simulate, sweep, "set"; validate and calibrate take
# no member they do not know); an error body is well-formed UTF-8 even when
# it echoes a long multi-byte name cut short; names resolve in --configs
# alone (not the server's current folder, not $NPUSIM_CONFIGS); no error
# shows a server path (a bad config file is named relative to the configs
# folder); measurements over --max-rows are 400 with the count; a
# calibration past --time-limit is 503. Every POST says its Content-Type.
SS="$T/serve-strict"
mkdir -p "$SS/cfg" "$SS/cwd/configs/models" "$SS/env/models"
cp -R "$CONFIGS"/. "$SS/cfg/"
SS_CFG=$(cd "$SS/cfg" && pwd)
# a model only in the server's current folder's configs/, one only under $NPUSIM_CONFIGS
cp "$SS_CFG/models/llama3-8b.json" "$SS/cwd/configs/models/cwdonly.json"
cp "$SS_CFG/models/llama3-8b.json" "$SS/env/models/envonly.json"
# two bad chip files in the configs folder: their errors name them, never the folder
printf '{"name": "badjson", "num_sa": 1\n' >"$SS_CFG/chips/badjson.json"
printf '{"num_sa": 1.5}\n' >"$SS_CFG/chips/badfield.json"
# Names must not resolve under $NPUSIM_CONFIGS: the server runs with it set.
SERVE_ENV="NPUSIM_CONFIGS=$SS/env"
serve_start $((21000 + $$ % 20000)) "$SS/cwd" "$SS/log" --configs "$SS_CFG" --max-rows 3000
SS_PORT=$SERVE_PORT SS_PID=$SERVE_PID
SS_URL="http://127.0.0.1:$SS_PORT"

# ss_is PATH BODY STATUS TEXT: POST BODY (text, or @file) answers STATUS with TEXT in its body
# ($SS/body), or in its "error" as JSON decodes it.
ss_is() {
    code=$(curl -s -o "$SS/body" -w '%{http_code}' -X POST -H 'Content-Type: application/json' \
        --data-binary "$2" "$SS_URL$1")
    [ "$code" = "$3" ] && python3 - "$SS/body" "$4" <<'PY' && return 0
import json, sys
b = open(sys.argv[1], 'rb').read().decode('utf-8', 'replace')
try:
    err = json.loads(b).get('error', '')
except ValueError:
    err = ''
sys.exit(0 if sys.argv[2] in b or sys.argv[2] in err else 1)
PY
    echo "$1 $2: got $code $(head -c 400 "$SS/body"), expected $3 with: $4"
    return 1
}
# ss_text: the body is well-formed UTF-8 JSON with an "error" and no server folder in it
ss_text() {
    python3 - "$SS/body" "$SS_CFG" "$SS/env" "$SS/cwd" <<'PY'
import json, sys
b = open(sys.argv[1], 'rb').read()
j = json.loads(b.decode('utf-8'))   # strict: a cut character fails here
assert 'error' in j, j
for folder in sys.argv[2:]:
    assert folder.encode() not in b, (folder, b[:300])
PY
}

ss_op_fractions() {
  for d in m n k batch heads; do
    req=$(python3 -c 'import json, sys; r = {"op": "attention", "m": 64, "n": 64, "k": 64, "batch": 2, "heads": 2}
r[sys.argv[1]] = 1.9
print(json.dumps(r))' "$d")
    ss_is /api/op "$req" 400 "\"$d\": expected a whole number from 1 to 2147483648, got 1.9" || return 1
  done
  ss_is /api/op "{\"op\": \"gemm\", \"m\": \"64\", \"n\": 64, \"k\": 64}" 400 "\"m\": expected a whole number from 1 to 2147483648, got text" &&
  ss_is /api/op "{\"op\": \"gemm\", \"m\": 64.0, \"n\": 64, \"k\": 64}" 200 "\"time_us\""
}
check "serve strict: a fractional m, n, k, batch or heads of /api/op is 400 naming the member (not computed with 1)" ss_op_fractions
check "serve strict: /api/simulate's batch 2.5 is 400 naming it" \
    ss_is /api/simulate '{"model": "llama3-8b", "batch": 2.5}' 400 '"batch": expected a whole number from 1 to 16777216, got 2.5'
ss_sweep_values() {
  ss_is /api/sweep "{\"spec\": {\"models\": [\"llama3-8b\"], \"chips\": [\"tpuv5p\"], \"num_chips\": [1], \"batch_sizes\": [1.5]}}" 400 "\"batch_sizes\": every item must be a positive integer" &&
  ss_is /api/sweep "{\"spec\": {\"models\": [\"llama3-8b\"], \"chips\": [\"tpuv5p\"], \"num_chips\": [1], \"batch_sizes\": [1]}, \"slo\": 1.5}" 400 "unknown member \"slo\": expected spec, slo_tpot_ms"
}
check "serve strict: a sweep's batch 1.5 is 400 naming batch_sizes; a member /api/sweep does not know is 400" ss_sweep_values
ss_set_values() {
  $NPUSIM run --configs "$SS_CFG" --set global_batch_size=1.9 -o "$SS/run" 2>"$SS/cli.txt"; [ ! -d "$SS/run" ] &&
  msg=$(sed -n "s/^npusim run: //p" "$SS/cli.txt") && [ -n "$msg" ] &&
  ss_is /api/simulate "{\"set\": {\"global_batch_size\": 1.9}}" 400 "$msg" &&
  ss_is /api/validate "{\"chip\": \"h100\", \"measurements\": \"op,dtype,m,n,k,time_us\\ngemm,bf16,64,64,64,3\\n\", \"set\": {\"num_sa\": 1.9}}" 400 "--set: chip field \"num_sa\": expected an integer" &&
  ss_is /api/validate "{\"chip\": \"h100\", \"measurements\": \"op,dtype,m,n,k,time_us\\ngemm,bf16,64,64,64,3\\n\", \"folds\": 2}" 400 "unknown member \"folds\": expected measurements, chip, system, set" &&
  ss_is /api/op "{\"op\": \"gemm\", \"m\": 8, \"n\": 8, \"k\": 8, \"set\": {\"name\": \"$(printf '%0251d' 0)\"}}" 400 "\"set\": \"name\": expected a field and its value in at most 255 characters"
}
check "serve strict: \"set\" of an integer field to 1.9 is 400 with the CLI's --set message, a set too long is 400 (not cut); validate takes no unknown member" ss_set_values
python3 -c 'import json, sys; sys.stdout.write(json.dumps({"op": "gemm", "a" + "\u00e9" * 60: 1}, ensure_ascii=False))' >"$SS/long.json"
python3 -c 'import json, sys; sys.stdout.write(json.dumps({"chip": "h100", "measurements": "", "\u20ac" * 40: 1}, ensure_ascii=False))' >"$SS/long2.json"
printf '{"op": "gemm", "\303": 1}' >"$SS/cut.json"
ss_utf8_bodies() {
  ss_is /api/op @"$SS/long.json" 400 "unknown member \"a" && ss_text &&
  ss_is /api/validate @"$SS/long2.json" 400 "unknown member" && ss_text &&
  ss_is /api/op @"$SS/cut.json" 400 "the request body" && ss_text
}
check "serve strict: an error echoing a long multi-byte member name, or a body of cut UTF-8, is well-formed UTF-8" ss_utf8_bodies
ss_only_configs() {
  ss_is /api/simulate "{\"model\": \"cwdonly\"}" 400 "unknown model \"cwdonly\"" && ss_text &&
  ss_is /api/simulate "{\"model\": \"envonly\"}" 400 "unknown model \"envonly\"" && ss_text &&
  ss_is /api/sweep "{\"spec\": {\"models\": [\"envonly\"], \"chips\": [\"tpuv5p\"], \"num_chips\": [1], \"batch_sizes\": [1]}}" 400 "unknown model \"envonly\"" &&
  ss_is /api/fleet "{\"deployments\": [{\"model\": \"cwdonly\", \"chip\": \"tpuv5p\", \"num_chips\": 1, \"batch_size\": 1}]}" 400 "unknown model \"cwdonly\"" &&
  curl -sf "$SS_URL/api/models" >"$SS/models.json" && grep -q "\"llama3-8b\"" "$SS/models.json" &&
  ! grep -q -e cwdonly -e envonly "$SS/models.json"
}
check "serve strict: names resolve in --configs alone (not ./configs, not \$NPUSIM_CONFIGS), in every endpoint" ss_only_configs
ss_no_server_paths() {
  ss_is /api/simulate "{\"chip\": \"badjson\"}" 400 "chips/badjson.json:2: invalid JSON" && ss_text &&
  ss_is /api/op "{\"op\": \"gemm\", \"m\": 8, \"n\": 8, \"k\": 8, \"chip\": \"badfield\"}" 400 "chips/badfield.json: chip field \"num_sa\": expected an integer" && ss_text &&
  ss_is /api/fleet "{\"deployments\": [{\"model\": \"llama3-8b\", \"chip\": \"badjson\", \"num_chips\": 1, \"batch_size\": 1}]}" 400 "chips/badjson.json:2" && ss_text &&
  ss_is /api/sweep "{\"spec\": {\"models\": [\"llama3-8b\"], \"chips\": [\"badfield\"], \"num_chips\": [1], \"batch_sizes\": [1]}}" 400 "chips/badfield.json" && ss_text &&
  ss_is /api/simulate "{\"chip\": \"nochip\"}" 400 "unknown chip \"nochip\"" && ss_text
}
check "serve strict: a bad config file is named relative to --configs, no server path in the error" ss_no_server_paths
# 3000 and 3001 GEMM rows (sizes 64..4096, a time that follows them)
python3 - "$SS" <<'PY'
import json, sys
rows = ['op,dtype,m,n,k,time_us'] + ['gemm,bf16,%d,%d,%d,%.3f' % (m, n, 512, 2 + m * n * 1e-6)
                                     for m in (64, 128, 256, 512, 1024, 2048) for n in range(64, 64 + 600)]
for count in (3000, 3001):
    json.dump({'chip': 'h100', 'measurements': '\n'.join(rows[:count + 1]) + '\n'}, open('%s/rows%d.json' % (sys.argv[1], count), 'w'))
PY
ss_max_rows() {
  ss_is /api/validate @"$SS/rows3001.json" 400 "measurements: 3001 rows; expected at most 3000 (npusim serve --max-rows)" &&
  ss_is /api/calibrate @"$SS/rows3001.json" 400 "measurements: 3001 rows; expected at most 3000" &&
  ss_is /api/validate @"$SS/rows3000.json" 200 "\"overall\""
}
check "serve strict: measurements over --max-rows are 400 with the count and the limit (validate, calibrate)" ss_max_rows
kill -TERM "$SS_PID" 2>/dev/null
wait "$SS_PID"
# Without --configs: the configs shipped with the binary alone; a calibration
# still fitting its folds after --time-limit is 503, as a sweep is.
serve_start $((SS_PORT + 1)) "$SS/cwd" "$SS/log2" --time-limit 0.001
SS_PORT2=$SERVE_PORT SS_PID2=$SERVE_PID
SERVE_ENV=
ss_calibrate_late() {
  SS_URL=http://127.0.0.1:$SS_PORT2 &&
  ss_is /api/calibrate @"$SS/rows3000.json" 503 "calibrate: the time limit was reached after" &&
  grep -qF "(npusim serve --time-limit)" "$SS/body"
}
check "serve strict: a calibration past --time-limit stops with 503, saying so" ss_calibrate_late
ss_shipped_only() {
  SS_URL=http://127.0.0.1:$SS_PORT2 &&
  ss_is /api/simulate "{\"model\": \"cwdonly\"}" 400 "unknown model \"cwdonly\"" &&
  ss_is /api/simulate "{\"model\": \"envonly\"}" 400 "unknown model \"envonly\"" &&
  curl -sf "$SS_URL/api/models" >"$SS/models2.json" && grep -q "\"llama3-8b\"" "$SS/models2.json" &&
  ! grep -q -e cwdonly -e envonly "$SS/models2.json"
}
check "serve strict: without --configs, names resolve in the shipped configs alone (not ./configs, not \$NPUSIM_CONFIGS)" ss_shipped_only
kill -TERM "$SS_PID2" 2>/dev/null
wait "$SS_PID2"
