# Sourced by tests/cli/run.sh: `npusim serve`, used as people use it. A
# server on a loopback port; every endpoint with curl (results, and bad
# input as 400 with the CLI's message, 404, 405, 413); measurements as a
# JSON list of records; the requests the page makes; the page's inputs and
# panels, and the page in headless Chromium (on first load its script fills
# the selects, runs a configuration, a fleet, a sweep and a validation: the
# DOM holds their tables and figures, no console error; a screenshot; a
# link presets the simulate panel); 200 requests 8 at a time, none failing, the latencies
# reported; SIGTERM stops it; it wrote no file; a sweep past --time-limit
# is 503. Bad options exit 2.
SV="$T/serve"
mkdir -p "$SV/cwd"
CFG_ABS=$(cd "$CONFIGS" && pwd)
up=0
serve_start $((20000 + $$ % 30000)) "$SV/cwd" "$SV/log" --configs "$CFG_ABS" --threads 4 --max-points 100 && up=1
PORT=$SERVE_PORT SV_PID=$SERVE_PID
URL="http://127.0.0.1:$PORT"
check "serve: listening on 127.0.0.1 by default" sh -c "[ $up = 1 ] && grep -q 'listening on http://127.0.0.1:$PORT/' '$SV/log'"
check "serve: GET /api/chips, /api/models, /api/systems, /api/strategies, /api/fields" sh -c "
  curl -sf '$URL/api/chips' | grep -q '\"tpuv5p\"' && curl -sf '$URL/api/models' | grep -q '\"llama3-8b\"' &&
  curl -sf '$URL/api/systems' | grep -q '\"system_config\"' &&
  curl -sf '$URL/api/strategies' | grep -q '\"Ideal\"' &&
  curl -sf '$URL/api/fields' | grep -q '\"key\":\"hbm_bw_GBps\",\"table\":\"chip\",\"section\":\"Chip\",\"type\":\"number\",\"unit\":\"GB/s\"'"
# A chip file the server reads may start from another by name; a base that is a path is refused
# as a path chip is (the server reads its configs folder alone). The two files leave at once.
cat >"$SV/base.sh" <<'SH'
c=$1 url=$2 out=$3
printf '{"base": "h100", "hbm_size_GB": 160}\n' >"$c/chips/zz_base_name.json"
printf '{"base": "%s/chips/h100.json"}\n' "$c" >"$c/chips/zz_base_path.json"
curl -s -X POST -H 'Content-Type: application/json' "$url/api/simulate" \
    -d '{"model": "llama3-8b", "chip": "zz_base_name", "batch": 1}' >"$out.name"
curl -s -X POST -H 'Content-Type: application/json' "$url/api/simulate" \
    -d '{"model": "llama3-8b", "chip": "zz_base_path", "batch": 1}' >"$out.path"
rm -f "$c/chips/zz_base_name.json" "$c/chips/zz_base_path.json"
grep -q '"phases"' "$out.name" && grep -q 'zz_base_path.json: field \\"base\\": chip: expected a config name' "$out.path"
SH
check "serve: a chip file's base is a config name in the server's folder, never a path" sh "$SV/base.sh" "$CFG_ABS" "$URL" "$SV/base"
# gemm 4096^3 bf16 on h100: 138912.5 -> 138913 ns at the bf16 peak (t_op.sh), in its 128 x 128 tiles'
# waves (x 1056 / 1024: 143254.0 ns), over the shipped h100's fitted bf16 efficiency 0.7749: 184.868 us (143254 / 0.7749 = 184867.7)
check "serve: POST /api/op gives npusim op's figures (gemm 4096^3 bf16 on h100: 184.868 us)" sh -c "
  curl -sf -X POST -H 'Content-Type: application/json' '$URL/api/op' -d '{\"op\": \"gemm\", \"dtype\": \"bf16\", \"m\": 4096, \"n\": 4096, \"k\": 4096, \"chip\": \"h100\"}' |
  grep -q '\"time_us\":184.868,'"
check "serve: POST /api/simulate gives the run's summary, phases and per-op rows" sh -c "
  curl -sf -X POST -H 'Content-Type: application/json' '$URL/api/simulate' -d '{\"model\": \"llama3-8b\", \"chip\": \"tpuv5p\", \"batch\": 1}' >'$SV/sim.json' &&
  $NPUSIM run --configs $CONFIGS -m llama3-8b -c tpuv5p -o '$SV/run' >'$SV/run.txt' &&
  python3 - '$SV/sim.json' '$SV/run.txt' <<'PY'
import json, sys
j = json.load(open(sys.argv[1]))
assert j['summary'] == open(sys.argv[2]).read().split('  outputs')[0], 'the summary differs from npusim run'
assert [p['name'] for p in j['phases']] == ['prefill', 'decode'] and len(j['ops']) > 30
PY"
check "serve: POST /api/simulate draws the figures of npusim report, byte for byte" sh -c "
  $NPUSIM report --configs $CONFIGS -m llama3-8b -c tpuv5p -o '$SV/rep.html' --svg-dir '$SV/figs' >/dev/null &&
  python3 - '$SV/sim.json' '$SV/figs' <<'PY'
import json, sys
f = json.load(open(sys.argv[1]))['figures']
names = ['time_by_op_type', 'roofline', 'energy_by_component', 'power_gating']
assert sorted(f) == sorted(names), sorted(f)
for n in names:
    assert f[n] == open(sys.argv[2] + '/' + n + '.svg').read(), n
PY"
cat >"$SV/spec.json" <<'JSON'
{"models": ["llama3-8b"], "chips": ["tpuv5p", "h100"], "num_chips": [1, 2], "batch_sizes": [1, 8, 64]}
JSON
check "serve: POST /api/sweep answers npusim sweep --summary's rows and the two figures" sh -c "
  python3 -c 'import json,sys; print(json.dumps({\"spec\": json.load(open(sys.argv[1])), \"slo_tpot_ms\": 7}))' '$SV/spec.json' >'$SV/sweep-req.json' &&
  curl -sf -X POST -H 'Content-Type: application/json' '$URL/api/sweep' --data-binary @'$SV/sweep-req.json' >'$SV/sweep.json' &&
  $NPUSIM sweep --configs $CONFIGS --spec '$SV/spec.json' --summary '$SV/sum.csv' -j 2 2>/dev/null &&
  python3 - '$SV/sweep.json' '$SV/sum.csv' <<'PY'
import csv, json, sys
j = json.load(open(sys.argv[1]))
text = open(sys.argv[2], newline='').read()
assert j['summary_csv'] == text, 'the summary differs from npusim sweep'
rows = list(csv.DictReader(text.splitlines()))
assert j['points'] == len(rows) == len(j['rows']) and j['simulated'] == sum(r['status'] == 'ok' for r in rows)
assert j['rows'][0]['TPOT_ms'] == float(rows[0]['TPOT_ms']) and j['rows'][0]['chip'] == rows[0]['chip']
for n in ('throughput_vs_batch', 'throughput_vs_chips', 'pareto'):
    assert j['figures'][n].startswith('<svg') and '</svg>' in j['figures'][n], n
assert 'SLO 7 ms' in j['figures']['pareto']
# the carbon columns' inputs, named as npusim sweep says them, by the file's name (no server path)
assert j['carbon_defaults'].startswith('carbon defaults from system_config.json: 0.5 kgCO2e/kWh, 4 years, duty cycle 0.6'), j['carbon_defaults']
PY"
check "serve: /api/sweep is bounded (over --max-points: 400 with the count), names only, bad specs named" sh -c "
  [ \"\$(curl -s -o '$SV/body' -w %{http_code} -X POST -H 'Content-Type: application/json' '$URL/api/sweep' -d '{\"spec\": {\"models\": [\"llama3-8b\"], \"chips\": [\"tpuv5p\"], \"num_chips\": [1, 2, 4, 8, 16, 32], \"batch_sizes\": [1, 2, 4, 8, 16, 32, 64, 128]}}')\" = 400 ] &&
  grep -q 'the sweep has 168 points; expected at most 100' '$SV/body' &&
  [ \"\$(curl -s -o '$SV/body' -w %{http_code} -X POST -H 'Content-Type: application/json' '$URL/api/sweep' -d '{\"spec\": {\"models\": [\"llama3-8b\"], \"chips\": [\"tpuv5p\"], \"num_chips\": {\"from\": 1, \"to\": 1000000, \"step\": 1}, \"batch_sizes\": [1]}}')\" = 400 ] &&
  grep -q 'at least 1000000 points' '$SV/body' &&
  [ \"\$(curl -s -o '$SV/body' -w %{http_code} -X POST -H 'Content-Type: application/json' '$URL/api/sweep' -d '{\"spec\": {\"models\": [\"/etc/passwd\"], \"chips\": [\"tpuv5p\"], \"num_chips\": [1], \"batch_sizes\": [1]}}')\" = 400 ] &&
  grep -q 'not paths' '$SV/body' &&
  [ \"\$(curl -s -o '$SV/body' -w %{http_code} -X POST -H 'Content-Type: application/json' '$URL/api/sweep' -d '{\"spec\": {\"modelz\": []}}')\" = 400 ] &&
  grep -q 'did you mean' '$SV/body' &&
  [ \"\$(curl -s -o '$SV/body' -w %{http_code} -X POST -H 'Content-Type: application/json' '$URL/api/simulate' -d '{\"pg\": [\"../x.json\"]}')\" = 400 ] &&
  grep -q 'not paths' '$SV/body'"
check "serve: a body not UTF-8, a key twice or text after the object is 400 naming the request body; /api/simulate and /api/op refuse an unknown member (tp, model) instead of ignoring it" sh -c "
  printf '{\"model\": \"llama3-8b\\377\"}' >'$SV/bad-utf8.json' &&
  [ \"\$(curl -s -o '$SV/body' -w %{http_code} -X POST -H 'Content-Type: application/json' '$URL/api/simulate' --data-binary @'$SV/bad-utf8.json')\" = 400 ] &&
  grep -q 'the request body:1: invalid JSON' '$SV/body' &&
  [ \"\$(curl -s -o '$SV/body' -w %{http_code} -X POST -H 'Content-Type: application/json' '$URL/api/simulate' -d '{\"model\": \"llama3-8b\", \"model\": \"x\"}')\" = 400 ] &&
  grep -q 'the request body: duplicate key' '$SV/body' &&
  [ \"\$(curl -s -o '$SV/body' -w %{http_code} -X POST -H 'Content-Type: application/json' '$URL/api/validate' -d '{\"chip\": \"h100\", \"measurements\": []} x')\" = 400 ] &&
  grep -q 'trailing text' '$SV/body' &&
  [ \"\$(curl -s -o '$SV/body' -w %{http_code} -X POST -H 'Content-Type: application/json' '$URL/api/simulate' -d '{\"model\": \"llama3-8b\", \"tp\": 4}')\" = 400 ] &&
  grep -q 'unknown member .*tp.*tensor_parallelism_degree' '$SV/body' &&
  [ \"\$(curl -s -o '$SV/body' -w %{http_code} -X POST -H 'Content-Type: application/json' '$URL/api/op' -d '{\"op\": \"gemm\", \"m\": 4, \"n\": 4, \"k\": 4, \"model\": \"llama3-8b\"}')\" = 400 ] &&
  grep -q 'unknown member .*model.*an operator has no model' '$SV/body'"
check "serve: POST /api/fleet answers npusim fleet's deployments and totals; names only" sh -c "
  curl -sf -X POST -H 'Content-Type: application/json' '$URL/api/fleet' --data-binary @examples/fleet.json >'$SV/fleet.json' &&
  $NPUSIM fleet --configs $CONFIGS examples/fleet.json -o '$SV/fleet' >/dev/null &&
  python3 - '$SV/fleet.json' '$SV/fleet/fleet.json' <<'PY' &&
import json, sys
a, b = json.load(open(sys.argv[1])), json.load(open(sys.argv[2]))
assert [d['name'] for d in a['deployments']] == [d['name'] for d in b['deployments']]
for k, v in b['total'].items():
    assert abs(a['total'][k] - v) <= 1e-9 * abs(v), (k, a['total'][k], v)
assert a['table'].startswith('deployment ')
PY
  [ \"\$(curl -s -o '$SV/body' -w %{http_code} -X POST -H 'Content-Type: application/json' '$URL/api/fleet' -d '{\"deployments\": [{\"model\": \"/etc/x\", \"chip\": \"h100\"}]}')\" = 400 ] &&
  grep -q 'by name, not by path' '$SV/body'"
# /api/energy, /api/carbon and /api/slo: the stages of npusim energy, carbon
# and slo. A server sweeps the configurations into a private folder first
# (nothing stays), answers the statistics files the command writes, and
# reads no folder of its own.
SW='"sweep": {"models": ["llama3-8b"], "chips": ["5p"], "num_chips": [2], "batch_sizes": [8]}'
printf '{%s, "pg": ["NoPG", "Full"]}' "$SW" >"$SV/req-energy.json"
printf '{%s, "pg": "Full", "ci": [0.1, 0.4]}' "$SW" >"$SV/req-carbon.json"
printf '{%s, "pg": "NoPG"}' "$SW" >"$SV/req-slo.json"
printf '{%s}' "$SW" >"$SV/req-nopg.json"
printf '{"results": "/tmp", "models": ["a"], "versions": ["5p"]}' >"$SV/req-path.json"
printf '{"sweep": {"models": ["../x"], "chips": ["5p"], "num_chips": [1], "batch_sizes": [1]}, "pg": "NoPG"}' >"$SV/req-name.json"
SV_ABS=$(cd "$(dirname "$NPUSIM")" && pwd)/$(basename "$NPUSIM")
SV_CFG=$(cd "$CONFIGS" && pwd)
check "serve: POST /api/energy, /api/carbon, /api/slo answer what npusim energy, carbon, slo write; no paths" sh -c "
  for st in energy carbon slo; do
    curl -sf -X POST -H 'Content-Type: application/json' '$URL/api/'\$st --data-binary @'$SV/req-'\$st.json >'$SV/'\$st.json || exit 1
  done &&
  mkdir -p '$SV/st' && cd '$SV/st' &&
  '$SV_ABS' sweep -q --configs '$SV_CFG' -m llama3-8b -c 5p --num-chips 2 -b 8 -o raw 2>/dev/null &&
  '$SV_ABS' energy -q --configs '$SV_CFG' --results raw -m llama3-8b -c 5p --pg NoPG,Full 2>/dev/null &&
  '$SV_ABS' carbon -q --configs '$SV_CFG' --results raw_None -m llama3-8b -c 5p --pg Full --ci 0.1,0.4 2>/dev/null &&
  python3 - '$SV' <<'PY' &&
import json, os, sys
sv = sys.argv[1]
def tree(root):
    out = {}
    for d, _, names in os.walk(root):
        for n in names:
            if n.endswith('.json'):
                out[os.path.relpath(os.path.join(d, n), root)] = json.load(open(os.path.join(d, n)))
    return out
e, c, s = (json.load(open(os.path.join(sv, f + '.json'))) for f in ('energy', 'carbon', 'slo'))
assert e['files'] == tree(os.path.join(sv, 'st/raw_None')) and e['count'] >= 2, e.get('count')
assert c['files'] == tree(os.path.join(sv, 'st/carbon_Full/dvfs_None')) and c['count'] == 2 * e['count']
assert c['carbon_defaults']
assert s['count'] >= 1 and all(k.startswith('llama3-8b/') for k in s['files']), s
assert 'out' not in e and 'out' not in c
PY
  [ \"\$(curl -s -o '$SV/body' -w %{http_code} -X POST -H 'Content-Type: application/json' '$URL/api/energy' --data-binary @'$SV/req-path.json')\" = 400 ] &&
  grep -q 'a server reads no folder of its own' '$SV/body' &&
  [ \"\$(curl -s -o '$SV/body' -w %{http_code} -X POST -H 'Content-Type: application/json' '$URL/api/carbon' --data-binary @'$SV/req-nopg.json')\" = 400 ] &&
  grep -q 'power-gating strategy' '$SV/body' &&
  [ \"\$(curl -s -o '$SV/body' -w %{http_code} -X POST -H 'Content-Type: application/json' '$URL/api/slo' --data-binary @'$SV/req-name.json')\" = 400 ] &&
  grep -q 'not a path' '$SV/body' &&
  test -z \"\$(ls \${TMPDIR:-/tmp} | grep '^npusim-api[.]')\""
check "serve: POST /api/calibrate fits the chip to measured kernels (the CLI's fit and held-out error)" sh -c "
  python3 -c 'import json,sys; print(json.dumps({\"chip\": \"a100\", \"measurements\": open(sys.argv[1]).read()}))' bench/public/ops_a100_llmcompass.csv >'$SV/calreq.json' &&
  curl -sf -X POST -H 'Content-Type: application/json' '$URL/api/calibrate' --data-binary @'$SV/calreq.json' >'$SV/cal.json' &&
  $NPUSIM calibrate --configs $CONFIGS -c a100 bench/public/ops_a100_llmcompass.csv -o '$SV/cal-cli.json' >'$SV/cal-cli.txt' &&
  python3 - '$SV/cal.json' '$SV/cal-cli.txt' <<'PY'
import json, sys
c = json.load(open(sys.argv[1]))
cv = c['cross_validation']
line = [l for l in open(sys.argv[2]) if l.strip().startswith('overall')][-1].split()
assert '%.2f%%' % cv['mape_roofline_pct'] == line[3] and '%.2f%%' % cv['mape_calibrated_pct'] == line[5], (cv, line)
assert c['fits'][0]['class'] == 'gemm' and 'kernel_efficiency' in c['chip']
PY"
check "serve: POST /api/validate gives the error table of measured kernels" sh -c "
  curl -sf -X POST -H 'Content-Type: application/json' '$URL/api/validate' -d '{\"chip\": \"a100\", \"measurements\": \"op,dtype,m,n,k,time_us\\ngemm,fp16,4096,4096,4096,540\\n\"}' |
  python3 -c 'import json,sys; j=json.load(sys.stdin); assert j[\"overall\"][\"count\"] == 1 and \"gemm\" in j[\"by_op\"]'"
# The page's calls and the list form of measurements, with curl (post.py:
# a request body to curl, its status and JSON answer back).
cat >"$SV/post.py" <<'PY'
import json, subprocess
def post(url, body):
    p = subprocess.run(['curl', '-s', '-w', '\n%{http_code}', '-X', 'POST', '-H', 'Content-Type: application/json', url, '--data-binary', '@-'],
                       input=json.dumps(body).encode(), capture_output=True, check=True)
    text, code = p.stdout.decode().rsplit('\n', 1)
    return int(code), json.loads(text)
PY
check "serve: POST /api/validate and /api/calibrate take measurements as a JSON list of records, answering as for the CSV text" \
  python3 - "$URL" "$SV" bench/public/ops_a100_llmcompass.csv <<'PY'
import csv, json, re, sys
sys.path.insert(0, sys.argv[2])
from post import post
url, path = sys.argv[1], sys.argv[3]
ints = ('m', 'n', 'k', 'batch', 'heads')
records = [{k: int(v) if k in ints else float(v) if k == 'time_us' else v for k, v in r.items() if v != ''}
           for r in csv.DictReader(open(path, newline=''))]
text = open(path).read()
for route in ('/api/validate', '/api/calibrate'):
    (sa, a), (sb, b) = post(url + route, {'chip': 'a100', 'measurements': records}), post(url + route, {'chip': 'a100', 'measurements': text})
    assert sa == sb == 200, (route, sa, sb, a, b)
    keys = ('overall', 'by_op', 'by_dtype', 'by_bound') if route == '/api/validate' else ('chip', 'fits', 'cross_validation')
    # a row is named by its record, or by its line under the CSV header: one more
    named = lambda x, k: re.sub(r' \[measurements:\d+\]', '', json.dumps(x[k]))
    for k in keys:
        assert named(a, k) == named(b, k), (route, k)
    at = lambda x: int(re.search(r':(\d+)\]', x['overall']['best']['operator']).group(1))
    assert route != '/api/validate' or at(a) + 1 == at(b), (a['overall']['best'], b['overall']['best'])
    if route == '/api/validate':
        assert a['overall']['count'] == len(records) > 20 and a['overall']['mape_pct'] > 0
        # one H100 GEMM as a record: its MAPE is its error against /api/op's prediction
        gemm = {'op': 'gemm', 'dtype': 'bf16', 'm': 4096, 'n': 4096, 'k': 4096}
        s, p = post(url + '/api/op', dict(gemm, chip='h100'))
        s, j = post(url + route, {'chip': 'h100', 'measurements': [dict(gemm, time_us=160)]})
        want = abs(p['time_us'] - 160) / 160 * 100
        assert s == 200 and j['overall']['count'] == 1 and abs(j['overall']['mape_pct'] - want) < 1e-9, (s, j, want)
PY
check "serve: a bad measurement record is 400 naming the record and the key (missing, wrong type, fractional, none)" \
  python3 - "$URL" "$SV" <<'PY'
import sys
sys.path.insert(0, sys.argv[2])
from post import post
ok = {'op': 'gemm', 'dtype': 'bf16', 'm': 64, 'n': 64, 'k': 64, 'time_us': 5}
cases = [
    ([ok, {'dtype': 'bf16', 'm': 64, 'time_us': 5}], 'measurements: record 2: key "op": missing'),
    ([ok, dict(ok, m='64')], 'measurements: record 2: key "m": expected a number, got text'),
    ([dict(ok, k=64.5)], 'measurements: record 1: key "k": expected a positive integer, got "64.5"'),
    ([dict(ok, dtype=16)], 'measurements: record 1: key "dtype": expected text, got a number'),
    ([ok, ok, {'op': 'gemm', 'dtype': 'bf16', 'm': 64, 'n': 64, 'k': 64}],
     'measurements: record 3: key "time_us": expected a measured time above 0 us'),
    ([], 'measurements: no records'),
    ({'op': 'gemm'}, '"measurements": expected a list of records'),
]
for route in ('/api/validate', '/api/calibrate'):
    for m, want in cases:
        s, j = post(sys.argv[1] + route, {'chip': 'a100', 'measurements': m})
        assert s == 400 and j['error'].startswith(want), (route, m, s, j)
PY
check "serve: the page's simulate request: llama3-70b on 4 H100s with tp 4, its sequence lengths, formats and every strategy" \
  python3 - "$URL" "$SV" <<'PY'
import sys
sys.path.insert(0, sys.argv[2])
from post import post
s, j = post(sys.argv[1] + '/api/simulate', {'model': 'llama3-70b', 'chip': 'h100', 'batch': 2, 'set': {
    'num_chips': 4, 'tensor_parallelism_degree': 4, 'data_parallelism_degree': 1, 'pipeline_parallelism_degree': 1,
    'input_seqlen': 2048, 'output_seqlen': 256, 'weight_dtype': 'fp8', 'kv_cache_dtype': 'fp8'}})
assert s == 200, j
assert j['summary'].startswith('llama3-70b on h100 (4 chips') and '2048 in / 256 out' in j['summary'], j['summary']
assert 'weights fp8' in j['summary'] and 'KV cache fp8' in j['summary'], j['summary']
assert 'out of memory' not in j['summary'], j['summary']
assert [p['strategy'] for p in j['power_gating']] == ['NoPG', 'Base', 'HW', 'Full', 'Ideal']
s, j = post(sys.argv[1] + '/api/simulate', {'model': 'deepseekv2-236b', 'chip': 'h100', 'set': {
    'num_chips': 8, 'data_parallelism_degree': 8, 'expert_parallelism_degree': 8}})
assert s == 200 and '8 chips' in j['summary'] and 'ep 8' in j['summary'], j
PY
check "serve: the page's fleet request: empty site fields take the server's defaults, which each deployment reports" \
  python3 - "$URL" "$SV" <<'PY'
import sys
sys.path.insert(0, sys.argv[2])
from post import post
deps = [{'model': 'llama3-8b', 'chip': 'tpuv5p', 'parallelism': 'best', 'num_chips': 4, 'batch_size': 16, 'replicas': 10,
         'load': {'tokens_per_sec': 20000}},
        {'model': 'llama3-70b', 'chip': 'h100', 'parallelism': {'tp': 8}, 'num_chips': 8, 'batch_size': 8, 'replicas': 4,
         'load': {'requests_per_sec': 2}}]
s, a = post(sys.argv[1] + '/api/fleet', {'defaults': {}, 'deployments': deps})
assert s == 200, a
keys = ('pue', 'carbon_intensity_kgCO2_per_kWh', 'lifetime_years', 'pg', 'dvfs', 'configuration', 'utilisation',
        'annual_energy_MWh', 'operational_tCO2e', 'embodied_tCO2e', 'total_tCO2e', 'kgCO2e_per_unit', 'capacity_unit')
assert all(k in d for d in a['deployments'] for k in keys), a['deployments'][0].keys()
assert a['deployments'][1]['configuration'].startswith('dp1-tp8-pp1')
site = {'pue': 1.25, 'carbon_intensity_kgCO2_per_kWh': 0.123, 'lifetime_years': 5, 'pg': 'Full'}
s, b = post(sys.argv[1] + '/api/fleet', {'defaults': site, 'deployments': deps})
assert s == 200 and all(d[k] == v for d in b['deployments'] for k, v in site.items()), b['deployments'][0]
assert b['total']['total_tCO2e'] != a['total']['total_tCO2e']
PY
check "serve: a path for a name is 400, named" sh -c "
  [ \"\$(curl -s -o '$SV/body' -w %{http_code} -X POST -H 'Content-Type: application/json' '$URL/api/simulate' -d '{\"chip\": \"../../etc/passwd\"}')\" = 400 ] && grep -q 'not a path' '$SV/body'"
check "serve: an unknown chip is 400 with the CLI's message" sh -c "
  [ \"\$(curl -s -o '$SV/body' -w %{http_code} -X POST -H 'Content-Type: application/json' '$URL/api/op' -d '{\"op\": \"gemm\", \"m\": 1, \"n\": 1, \"k\": 1, \"chip\": \"nochip\"}')\" = 400 ] &&
  grep -q 'unknown chip \\\\\"nochip\\\\\"' '$SV/body'"
check "serve: bad JSON 400, bad measurements 400 naming the line, no endpoint 404, wrong method 405, too big 413" sh -c "
  [ \"\$(curl -s -o '$SV/body' -w %{http_code} -X POST -H 'Content-Type: application/json' '$URL/api/op' -d '{bad')\" = 400 ] &&
  [ \"\$(curl -s -o '$SV/body' -w %{http_code} -X POST -H 'Content-Type: application/json' '$URL/api/validate' -d '{\"measurements\": \"op,dtype,m\\ngemm,bf17,1\\n\"}')\" = 400 ] &&
  grep -q 'measurements: line 2: column' '$SV/body' &&
  [ \"\$(curl -s -o '$SV/body' -w %{http_code} '$URL/api/nothing')\" = 404 ] && [ \"\$(curl -s -o '$SV/body' -w %{http_code} '$URL/api/op')\" = 405 ] &&
  head -c 2000000 /dev/zero | tr '\\\\0' a >'$SV/big' && [ \"\$(curl -s -o '$SV/body' -w %{http_code} -X POST -H 'Content-Type: application/json' '$URL/api/op' --data-binary @'$SV/big')\" = 413 ]"
check "serve: --help names every endpoint the server's 404 answer lists (GET and POST)" sh -c "
  curl -s '$URL/api/nothing' >'$SV/404' && $NPUSIM serve --help >'$SV/help' &&
  n=\$(grep -o '/api/[a-z]*' '$SV/404' | sort -u | tee '$SV/eps' | wc -l) && [ \$n -ge 15 ] &&
  while read -r ep; do grep -q \"\$ep[,;)]\" '$SV/help' || { echo \"not in serve --help: \$ep\"; exit 1; }; done <'$SV/eps'"
check "serve: the page has the simulate inputs (TP/DP/PP/EP, chips, sequence lengths, formats, power gating), the serving panel's capacity policy, the fleet panel with empty site fields, checkbox chips, and runs every panel on first load" \
  sh -c "curl -sf '$URL/' >'$SV/page.html' && python3 - '$SV/page.html' <<'PY'
import re, sys
html = open(sys.argv[1]).read()
ids = set(re.findall(r'id=\"([^\"]+)\"', html))
need = {'tp', 'dp', 'pp', 'ep', 'nchips', 'seq-in', 'seq-out', 'wdtype', 'adtype', 'kvdtype', 'pg', 'fleet', 'fleet-deps',
        'fleet-add', 'fpue', 'fci', 'flife', 'fpg', 'fleet-run', 'fleet-out', 'schips', 'vbwait', 'vcap', 'vmaxnew',
        'vasync'}
assert need <= ids, need - ids
assert 'base.max_new_tokens = num(' in html   # the serving panel sends --max-new-tokens by its API name
assert 'base.async_scheduling = true' in html   # ... and --async-scheduling
for f in ('tensor_parallelism_degree', 'expert_parallelism_degree', 'input_seqlen', 'output_seqlen', 'weight_dtype',
          'activation_dtype', 'kv_cache_dtype', 'num_chips'):
    assert 'data-field=\"%s\"' % f in html, f
assert ' multiple' not in html and 'type=\"checkbox\"' in html   # the sweep's chips need no ctrl-click
for i in ('fpue', 'fci', 'flife'):   # the carbon defaults are the server's
    tag = re.search(r'<input id=\"%s\"[^>]*>' % i, html).group(0)
    assert 'value=' not in tag, tag
calls = re.search(r'init\(\)\.then\(\(\) => Promise\.all\(\[([^\]]*)\]\)\)', html)
assert calls and set(calls.group(1).split(', ')) == {'run()', 'serve()', 'fleet()', 'sweep()', 'check()'}, calls
assert '#demo' not in html
PY"
if command -v chromium >/dev/null 2>&1; then
    check "serve: the page in headless chromium shows a configuration, a serving run with its rate curve, a fleet, a sweep and a validation on first load (DOM tables and figures, no console error, a screenshot); a link presets llama3-70b on 4 H100s" sh -c "
      timeout 120 chromium --headless --no-sandbox --disable-gpu --virtual-time-budget=20000 --enable-logging=stderr --v=0 \
        --dump-dom '$URL/' >'$SV/dom.html' 2>'$SV/console.log' &&
      timeout 120 chromium --headless --no-sandbox --disable-gpu --virtual-time-budget=20000 --window-size=1100,4000 \
        --screenshot='$SV/page.png' '$URL/' >/dev/null 2>&1 && [ \$(wc -c <'$SV/page.png') -gt 50000 ] &&
      timeout 120 chromium --headless --no-sandbox --disable-gpu --virtual-time-budget=20000 \
        --dump-dom '$URL/?model=llama3-70b&chip=h100&tp=4&pg=Full' >'$SV/dom70.html' 2>/dev/null &&
      python3 - '$SV/dom.html' '$SV/dom70.html' <<'PY'
import sys
from html.parser import HTMLParser
class P(HTMLParser):
    def __init__(self):
        super().__init__(); self.ids = set(); self.options = 0; self.cls = []; self.text = {}; self.cur = None
    def handle_starttag(self, tag, attrs):
        a = dict(attrs)
        if 'id' in a: self.ids.add(a['id']); self.cur = a['id']
        if tag == 'option': self.options += 1
        if tag == 'polygon': self.triangles = getattr(self, 'triangles', 0) + 1
        if tag == 'td' and 'class' in a: self.cls.append(a['class'])
    def handle_data(self, data):
        if self.cur: self.text[self.cur] = self.text.get(self.cur, '') + data
p = P(); p.feed(open(sys.argv[1]).read())
assert {'sim-summary', 'pg-energy', 'by-type', 'errors', 'overall', 'val-roofline', 'fig-time', 'fig-roofline', 'fig-energy',
        'fig-pg', 'fleet-total', 'fig-fleet', 'fleet-rows', 'fleet-assumed', 'sweep-counts', 'fig-tput', 'fig-chips',
        'fig-pareto', 'sweep-rows', 'serve-summary', 'serve-knee', 'fig-serve-cdf', 'fig-serve-rate', 'fig-serve-tput'} <= p.ids, p.ids
assert 'requests/s' in p.text['serve-knee'], p.text['serve-knee']
assert p.options > 20 and getattr(p, 'triangles', 0) >= 2 and set(p.cls) <= {'good', 'fair', 'poor'} and p.cls, (p.options, p.cls)
assert p.text['sim-summary'].startswith('llama3-8b on tpuv5p (1 chip'), p.text['sim-summary']
q = P(); q.feed(open(sys.argv[2]).read())
assert q.text['sim-summary'].startswith('llama3-70b on h100 (4 chips'), q.text['sim-summary']
assert 'with power gating Full' in q.text['pg-energy'], q.text['pg-energy']
PY
      ! grep -E 'CONSOLE.*(Error|Uncaught)' '$SV/console.log'"
else
    echo "ok - serve page in headless chromium: skipped, no chromium here (apt-get install chromium)"
fi
check "serve: 200 requests, 8 at a time, all answered 200 (latency reported)" sh -c "
  seq 200 | xargs -P 8 -I{} curl -s -o /dev/null -w '%{http_code} %{time_total}\n' -X POST -H 'Content-Type: application/json' '$URL/api/op' \
    -d '{\"op\": \"gemm\", \"m\": 1024, \"n\": 1024, \"k\": 1024, \"chip\": \"a100\"}' >'$SV/load.txt' &&
  [ \"\$(grep -c '^200 ' '$SV/load.txt')\" = 200 ] &&
  sort -k2 -n '$SV/load.txt' | awk '{ t[NR] = \$2 } END { printf \"# serve load: 200 requests, median %.1f ms, p95 %.1f ms, max %.1f ms\n\", t[100]*1e3, t[190]*1e3, t[200]*1e3 }' >&2"
check "serve: 16 simulations at once, 8 in parallel, answer the same bytes" sh -c "
  seq 16 | xargs -P 8 -I{} sh -c \"curl -sf -X POST -H 'Content-Type: application/json' '$URL/api/simulate' -d '{\\\"model\\\": \\\"llama3-8b\\\", \\\"chip\\\": \\\"tpuv5e\\\"}' | md5sum\" >'$SV/sums.txt' &&
  [ \"\$(wc -l <'$SV/sums.txt')\" = 16 ] && ! grep -q d41d8cd98f00b204e9800998ecf8427e '$SV/sums.txt' && [ \"\$(sort -u '$SV/sums.txt' | wc -l)\" = 1 ]"
grep -h '^# serve load' "$T/log" 2>/dev/null || true
check "serve: POST /api/serving answers npusim serving's summary, with the requests and passes as columns" sh -c "
  curl -sf -X POST -H 'Content-Type: application/json' '$URL/api/serving' -d '{\"model\":\"llama3-8b\",\"chip\":\"h100\",\"rate\":2,\"requests\":100,\"lengths\":\"chat\",\"seed\":1}' >'$SV/srv.json' &&
  $NPUSIM serving --configs $CONFIGS -m llama3-8b -c h100 --rate 2 --requests 100 --lengths chat --seed 1 -o '$SV/srv' >/dev/null &&
  python3 - '$SV/srv.json' '$SV/srv' <<'PY'
import csv, json, sys
j = json.load(open(sys.argv[1]))
s = json.load(open(sys.argv[2] + '/summary.json'))
for k in ('duration_s', 'ttft_ms', 'tpot_ms', 'energy_J', 'output_tokens_per_s'):
    assert j['summary'][k] == s[k], k
rows = list(csv.DictReader(open(sys.argv[2] + '/requests.csv')))
assert [int(r['id']) for r in rows] == j['requests']['id']
assert all(abs(float(r['energy_J']) - e) < 1e-5 for r, e in zip(rows, j['requests']['energy_J']))
it = list(csv.DictReader(open(sys.argv[2] + '/iterations.csv')))
assert len(it) == len(j['iterations']['duration_ms'])
PY"
check "serve: POST /api/serving with find_rate and an SLO answers max_rate_rps" sh -c "
  curl -sf -X POST -H 'Content-Type: application/json' '$URL/api/serving' -d '{\"model\":\"llama3-8b\",\"chip\":\"h100\",\"requests\":200,\"find_rate\":true,\"slo\":\"ttft_p99_ms=2000,tpot_p99_ms=30\",\"rows\":false}' |
  python3 -c 'import json,sys; j=json.load(sys.stdin); f=j[\"summary\"][\"find_rate\"]; assert f[\"found\"] and f[\"max_rate_rps\"] > 1 and \"requests\" not in j, j'"
for bad in '{"rate":0}|"rate" "0": expected requests per second above 0' \
           '{"requests":1000000}|"requests": 1000000; a server' \
           '{"trace":"/etc/passwd"}|the server reads no file' \
           '{"lengths":"/etc/passwd"}|the server reads no file' \
           '{"scheduler":"fifo"}|"scheduler" "fifo": expected static' \
           '{"max_num_seqs":0}|"max_num_seqs" "0": expected a whole number' \
           '{"tp":0}|"tp": expected a whole number' \
           '{"offline":1}|"offline": expected true or false' \
           '{"model":"dlrm-s"}|not served' \
           '{"rates":2}|unknown member "rates"'; do
    body=${bad%%|*}; want=${bad#*|}
    check "serve: POST /api/serving $body is 400 naming it" sh -c "
      [ \"\$(curl -s -o '$SV/body' -w %{http_code} -X POST -H 'Content-Type: application/json' '$URL/api/serving' -d '$body')\" = 400 ] &&
      python3 -c 'import json, sys; sys.exit(sys.argv[2] not in json.load(open(sys.argv[1]))[\"error\"])' '$SV/body' '$want'"
done
expect_fail "serve: a port in use says so, suggests --port N and exits 2" "port $PORT is in use; try --port [0-9]" \
    timeout 20 $NPUSIM serve --port "$PORT" --configs "$CFG_ABS"
kill -TERM "$SV_PID" 2>/dev/null
wait "$SV_PID"
SV_RC=$?
check "serve: SIGTERM stops it (exit 0), and it wrote no file" sh -c "[ $SV_RC = 0 ] && grep -q 'stopped' '$SV/log' && [ -z \"\$(ls -A '$SV/cwd')\" ]"
serve_start $((PORT + 1)) "$SV/cwd" "$SV/log2" --configs "$CFG_ABS" --time-limit 0.001
PORT2=$SERVE_PORT SV2_PID=$SERVE_PID
check "serve: a sweep past --time-limit stops with 503, saying so" sh -c "
  [ \"\$(curl -s -o '$SV/body' -w %{http_code} -X POST -H 'Content-Type: application/json' 'http://127.0.0.1:$PORT2/api/sweep' --data-binary @'$SV/sweep-req.json')\" = 503 ] &&
  grep -q 'the time limit was reached after' '$SV/body'"
kill -TERM "$SV2_PID" 2>/dev/null
wait "$SV2_PID"
expect_fail "serve: --time-limit 0" '--time-limit "0": expected seconds above 0' $NPUSIM serve --time-limit 0
expect_fail "serve: --max-points x" '--max-points "x": expected a whole number' $NPUSIM serve --max-points x
expect_fail "serve: --port 0" '--port "0": expected a whole number from 1 to 65535' $NPUSIM serve --port 0
expect_fail "serve: --bind not an address" '--bind "localhost": expected an IPv4 address' $NPUSIM serve --bind localhost
expect_fail "serve: --configs missing" '--configs "nowhere": no such folder' $NPUSIM serve --configs nowhere
