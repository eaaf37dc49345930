# Sourced by tests/cli/run.sh: --timeline, the operators as Chrome trace-event
# JSON. The operators' slices of each phase add up to that phase's time in
# the CSVs (execution time x count), every component's busy slice fits in
# its operator's, the args carry shape, bound and energy; chipsim writes the
# same timeline as run's times give; opsgen has none; a bad path writes
# nothing at all.
TL="$T/timeline"
mkdir -p "$TL"
check "run --timeline: Chrome trace events, prefill and decode adding up to the CSVs' times" sh -c "
  $NPUSIM run --configs $CONFIGS -m llama3-8b -c tpuv5p -o '$TL/run' --timeline '$TL/run.json' >/dev/null &&
  python3 - '$TL/run.json' '$TL/run/llama3-8b_tpuv5p_prefill.csv' '$TL/run/llama3-8b_tpuv5p_decode.csv' <<'PY'
import csv, json, sys
t = json.load(open(sys.argv[1]))
ev = t['traceEvents']
names = {e['pid']: e['args']['name'] for e in ev if e['ph'] == 'M' and e['name'] == 'process_name'}
assert names == {1: 'prefill', 2: 'decode'}, names
tracks = {(e['pid'], e['tid']): e['args']['name'] for e in ev if e['ph'] == 'M' and e['name'] == 'thread_name'}
assert tracks[(1, 1)] == 'operators' and tracks[(1, 2)].startswith('MXU') and tracks[(1, 4)] == 'HBM'
for pid, path in ((1, sys.argv[2]), (2, sys.argv[3])):
    rows = list(csv.DictReader(open(path)))
    want = sum(int(r['Execution time']) * int(r['Count']) for r in rows) / 1e3
    ops = [e for e in ev if e['ph'] == 'X' and e['pid'] == pid and e['tid'] == 1]
    assert len(ops) == len(rows), (len(ops), len(rows))
    got = sum(e['dur'] for e in ops)
    assert abs(got - want) <= 1e-9 * want + 1e-6, (got, want)
    end = 0
    for e in ops:                       # back to back
        assert abs(e['ts'] - end) < 1e-6 * max(1, end), (e['ts'], end)
        end = e['ts'] + e['dur']
        a = e['args']
        assert a['bound'] in ('Compute', 'Memory', 'ICI/NVLink', 'Power', '') and 'in_shapes' in a and a['energy_J'] >= 0
    spans = {(e['ts'], e['name']): e['dur'] for e in ops}
    for e in ev:
        if e['ph'] == 'X' and e['pid'] == pid and e['tid'] > 1:
            assert e['dur'] <= spans[(e['ts'], e['name'])] * (1 + 1e-9) + 1e-6, e
assert any(e['name'].endswith(' x32') for e in ev if e['ph'] == 'X')
PY"
check "chipsim --timeline: a piped trace's timeline, the same operators" sh -c "
  $NPUSIM opsgen --configs $CONFIGS -m llama3-8b -c tpuv5p -o '$TL/t.csv' &&
  $NPUSIM chipsim --configs $CONFIGS -c tpuv5p -i '$TL/t.csv' -o '$TL/timed.csv' --timeline '$TL/chipsim.json' &&
  python3 -c 'import json,sys; e=json.load(open(sys.argv[1]))[\"traceEvents\"]; x=[v for v in e if v[\"ph\"]==\"X\" and v[\"tid\"]==1]; assert len(x) > 30 and {v[\"pid\"] for v in x} == {1, 2} and all(\"energy_J\" not in v[\"args\"] for v in x)' '$TL/chipsim.json'"
expect_fail "opsgen --timeline: an untimed trace has none" 'an untimed trace has no timeline' \
    $NPUSIM opsgen --configs $CONFIGS -m llama3-8b -c tpuv5p -o "$TL/u.csv" --timeline "$TL/u.json"
mkdir -p "$TL/adir"
expect_fail "run --timeline into a folder: nothing written" 'adir' \
    $NPUSIM run --configs $CONFIGS -m llama3-8b -c tpuv5p -o "$TL/bad" --timeline "$TL/adir"
check "run --timeline into a folder: no outputs either" test ! -e "$TL/bad"
