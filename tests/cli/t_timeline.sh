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
        assert a['bound'] in ('Compute', 'Memory', 'ICI/NVLink', 'Power', '') and 'in_shapes' in a
        # per execution and total kept apart: a row's slice stands for all its executions
        assert a['time_total_ns'] == a['time_per_execution_ns'] * a['count'] and a['energy_per_execution_J'] >= 0
        assert abs(a['energy_total_J'] - a['energy_per_execution_J'] * a['count']) <= 1e-9 * a['energy_total_J'] + 1e-15
    spans = {(e['ts'], e['name']): e['dur'] for e in ops}
    for e in ev:
        if e['ph'] == 'X' and e['pid'] == pid and e['tid'] > 1:
            assert e['dur'] <= spans[(e['ts'], e['name'])] * (1 + 1e-9) + 1e-6, e
assert any(e['name'].endswith(' x32') for e in ev if e['ph'] == 'X')
assert t['metadata']['detail'] == 'ops'
PY"
check "chipsim --timeline: a piped trace's timeline, the same operators" sh -c "
  $NPUSIM opsgen --configs $CONFIGS -m llama3-8b -c tpuv5p -o '$TL/t.csv' &&
  $NPUSIM chipsim --configs $CONFIGS -c tpuv5p -i '$TL/t.csv' -o '$TL/timed.csv' --timeline '$TL/chipsim.json' &&
  python3 -c 'import json,sys; e=json.load(open(sys.argv[1]))[\"traceEvents\"]; x=[v for v in e if v[\"ph\"]==\"X\" and v[\"tid\"]==1]; assert len(x) > 30 and {v[\"pid\"] for v in x} == {1, 2} and all(\"energy_total_J\" not in v[\"args\"] for v in x)' '$TL/chipsim.json'"
expect_fail "opsgen --timeline: an untimed trace has none" 'an untimed trace has no timeline' \
    $NPUSIM opsgen --configs $CONFIGS -m llama3-8b -c tpuv5p -o "$TL/u.csv" --timeline "$TL/u.json"
mkdir -p "$TL/adir"
expect_fail "run --timeline into a folder: nothing written" 'adir' \
    $NPUSIM run --configs $CONFIGS -m llama3-8b -c tpuv5p -o "$TL/bad" --timeline "$TL/adir"
check "run --timeline into a folder: no outputs either" test ! -e "$TL/bad"

# --timeline-detail layers: every execution its own slice, in "step N" and
# "layer N" slices. llama3-8b cut to 2 layers and 4 output tokens, by hand:
# prefill 1 embedding + 2 layers x 13 ops + 2 LM-head ops = 29 slices under
# 2 layer slices; decode 4 steps x (3 per-step ops + 2 layers x (14 ops + 1
# of each of the 3 KV-suffix pairs)) = 148 under 4 step and 8 layer slices;
# the suffix pairs' halves take steps 0-1 and 2-3.
SMALL="--set num_layers=2 --set output_seqlen=4"
check "run --timeline-detail layers: one slice per execution, per layer and step (hand-counted)" sh -c "
  $NPUSIM run --configs $CONFIGS -m llama3-8b -c tpuv5p $SMALL -o '$TL/lay' --timeline '$TL/lay.json' --timeline-detail layers >/dev/null &&
  python3 - '$TL/lay.json' '$TL/lay/llama3-8b_tpuv5p_prefill.csv' '$TL/lay/llama3-8b_tpuv5p_decode.csv' <<'PY'
import collections, csv, json, sys
t = json.load(open(sys.argv[1]))
ev = t['traceEvents']
md = t['metadata']
assert md['detail'] == 'layers' and md['event_limit'] == 200000 and md['events'] == len(ev), md
assert [(p['phase'], p['layers'], p['steps'], p['steps_expanded']) for p in md['phases']] == \
    [('prefill', 2, 1, 1), ('decode', 2, 4, 4)], md['phases']
want = {1: (29, 0, 2), 2: (148, 4, 8)}
for pid, path in ((1, sys.argv[2]), (2, sys.argv[3])):
    rows = list(csv.DictReader(open(path)))
    x = [e for e in ev if e['ph'] == 'X' and e['pid'] == pid and e['tid'] == 1]
    leaves = [e for e in x if 'count' in e['args']]
    steps = [e for e in x if e['name'].startswith('step ')]
    layers = [e for e in x if e['name'].startswith('layer ')]
    assert (len(leaves), len(steps), len(layers)) == want[pid], (pid, len(leaves), len(steps), len(layers))
    assert len(leaves) == sum(int(r['Count']) for r in rows)
    # readable names, per execution and total, the same executions and time as the CSV's rows
    assert all(e['args']['count'] == 1 and ' x' not in e['name'] for e in leaves)
    assert all(e['args']['time_total_ns'] == e['args']['time_per_execution_ns'] for e in leaves)
    by_name = collections.Counter()
    for r in rows:
        by_name[r['Name']] += int(r['Count'])
    assert collections.Counter(e['name'] for e in leaves) == by_name
    want_ns = sum(int(r['Execution time']) * int(r['Count']) for r in rows)
    assert sum(e['args']['time_total_ns'] for e in leaves) == want_ns
    # every leaf inside the layer and step slices its args name
    def inside(e, p):
        return p['ts'] - 1e-6 <= e['ts'] and e['ts'] + e['dur'] <= p['ts'] + p['dur'] + 1e-6
    for e in leaves:
        a = e['args']
        if 'layer' in a:
            assert any(inside(e, l) and l['args']['layer'] == a['layer'] for l in layers), e
        if pid == 2:
            assert any(inside(e, s) and s['args']['step'] == a['step'] for s in steps), e
suffix = sorted((e['args']['in_shapes'], e['args']['step']) for e in ev
                if e['ph'] == 'X' and e['tid'] == 1 and e['name'].startswith('AttentionservingdecodeSoftmaxQKVMatMulQKsuffix'))
halves = collections.defaultdict(set)
for shapes, step in suffix:
    halves[shapes].add(step)
assert sorted(map(sorted, halves.values())) == [[0, 1], [2, 3]], halves
PY"
check "run --timeline-detail: the same run gives the same bytes" sh -c "
  $NPUSIM run --configs $CONFIGS -m llama3-8b -c tpuv5p $SMALL -o '$TL/lay2' --timeline '$TL/lay2.json' --timeline-detail layers >/dev/null &&
  cmp '$TL/lay.json' '$TL/lay2.json'"
check "run --timeline-detail ops: as without the option" sh -c "
  $NPUSIM run --configs $CONFIGS -m llama3-8b -c tpuv5p $SMALL -o '$TL/ops' --timeline '$TL/ops1.json' >/dev/null &&
  $NPUSIM run --configs $CONFIGS -m llama3-8b -c tpuv5p $SMALL -o '$TL/ops' --timeline '$TL/ops2.json' --timeline-detail ops >/dev/null &&
  cmp '$TL/ops1.json' '$TL/ops2.json'"
check "run --timeline-detail layers, training: the backward pass counts its layers down" sh -c "
  $NPUSIM run --configs $CONFIGS -m llama3-8b -c tpuv5p --workload training --set num_layers=2 -o '$TL/tr' --timeline '$TL/tr.json' --timeline-detail layers >/dev/null &&
  python3 -c 'import json,sys; e=json.load(open(sys.argv[1]))[\"traceEvents\"]; l=[v[\"args\"][\"layer\"] for v in sorted((v for v in e if v[\"ph\"]==\"X\" and v[\"name\"].startswith(\"layer \")), key=lambda v: v[\"ts\"])]; assert l == [0, 1, 1, 0], l' '$TL/tr.json'"
# The bound: llama3-8b's 512 decode steps would be ~1.6 million events; the
# steps past 200000 events are summed, said in the metadata, and the time
# still adds up.
check "run --timeline-detail layers: at most 200000 events, the later steps summed and said so" sh -c "
  $NPUSIM run --configs $CONFIGS -m llama3-8b -c tpuv5p -o '$TL/big' --timeline '$TL/big.json' --timeline-detail layers >/dev/null &&
  python3 - '$TL/big.json' '$TL/big/llama3-8b_tpuv5p_decode.csv' <<'PY'
import csv, json, sys
t = json.load(open(sys.argv[1]))
ev, md = t['traceEvents'], t['metadata']
assert 190000 < len(ev) <= 200000 and md['events'] == len(ev), len(ev)
dec = md['phases'][1]
assert dec['phase'] == 'decode' and dec['steps'] == 512 and 0 < dec['steps_expanded'] < 512, dec
k = dec['steps_expanded']
assert dec['note'] == 'steps %d-511 summed: the expansion stops at 200000 events' % k, dec
rest = [e for e in ev if e['ph'] == 'X' and e['name'] == 'steps %d-511 (summed)' % k]
assert len(rest) == 1 and rest[0]['args']['steps'] == 512 - k
rows = list(csv.DictReader(open(sys.argv[2])))
leaves = [e for e in ev if e['ph'] == 'X' and e['pid'] == 2 and e['tid'] == 1 and 'count' in e['args']]
assert sum(e['args']['count'] for e in leaves) == sum(int(r['Count']) for r in rows)
assert sum(e['args']['time_total_ns'] for e in leaves) == sum(int(r['Execution time']) * int(r['Count']) for r in rows)
PY"
check "chipsim --timeline-detail layers: without -m the layers and steps come from the counts" sh -c "
  $NPUSIM opsgen --configs $CONFIGS -m llama3-8b -c tpuv5p $SMALL -o '$TL/small.csv' &&
  $NPUSIM chipsim --configs $CONFIGS -c tpuv5p -i '$TL/small.csv' -o '$TL/small-timed.csv' --timeline '$TL/small.json' --timeline-detail layers &&
  python3 -c 'import json,sys; p=json.load(open(sys.argv[1]))[\"metadata\"][\"phases\"]; assert [(v[\"layers\"], v[\"steps\"]) for v in p] == [(2, 1), (2, 4)], p' '$TL/small.json'"
check "power --timeline: the timeline after the energy pass, with energies" sh -c "
  $NPUSIM power --configs $CONFIGS -c tpuv5p -i '$TL/small-timed.csv' -o '$TL/small-power.csv' --timeline '$TL/power.json' --timeline-detail layers &&
  python3 -c 'import json,sys; e=json.load(open(sys.argv[1]))[\"traceEvents\"]; x=[v for v in e if v[\"ph\"]==\"X\" and \"count\" in v.get(\"args\", {})]; assert len(x) == 29 + 148 and all(v[\"args\"][\"energy_total_J\"] > 0 for v in x)' '$TL/power.json'"
expect_fail "run --timeline-detail: a bad value" 'expected ops or layers, got "steps"' \
    $NPUSIM run --configs $CONFIGS -m llama3-8b -c tpuv5p -o "$TL/bad2" --timeline "$TL/bad2.json" --timeline-detail steps
expect_fail "run --timeline-detail without --timeline" 'needs --timeline' \
    $NPUSIM run --configs $CONFIGS -m llama3-8b -c tpuv5p -o "$TL/bad2" --timeline-detail layers
expect_fail "run --timeline-detail with no value" 'timeline-detail' \
    $NPUSIM run --configs $CONFIGS -m llama3-8b -c tpuv5p -o "$TL/bad2" --timeline "$TL/bad2.json" --timeline-detail
expect_fail "opsgen --timeline-detail: an untimed trace has none" 'untimed trace' \
    $NPUSIM opsgen --configs $CONFIGS -m llama3-8b -c tpuv5p -o "$TL/bad2.csv" --timeline-detail layers
check "run --timeline-detail refused: nothing written" sh -c "test ! -e '$TL/bad2' && test ! -e '$TL/bad2.json' && test ! -e '$TL/bad2.csv'"
# The tracks take the chip's words: tensor cores and NVLink on a GPU, MXU and ICI on a TPU.
check "timeline on a GPU names tensor cores and NVLink, never MXU or ICI" sh -c "
  $NPUSIM run --configs $CONFIGS -m llama3-8b -c h100 -o '$TL/gpu' --timeline '$TL/gpu.json' >'$TL/gpu.txt' &&
  grep -q '\"tensor cores (matrix units)\"' '$TL/gpu.json' && grep -q '\"NVLink / network\"' '$TL/gpu.json' &&
  ! grep -q 'MXU\|ICI' '$TL/gpu.json' && grep -q '^  timeline      $TL/gpu.json' '$TL/gpu.txt'"
check "timeline on a TPU keeps MXU and ICI / DCN" sh -c "
  $NPUSIM run --configs $CONFIGS -m llama3-8b -c tpuv5p -o '$TL/tpu' --timeline '$TL/tpu.json' >/dev/null &&
  grep -q '\"MXU (matrix units)\"' '$TL/tpu.json' && grep -q '\"ICI / DCN\"' '$TL/tpu.json'"
check "chipsim says what it wrote: on stderr when the trace goes to stdout" sh -c "
  $NPUSIM opsgen --configs $CONFIGS -m llama3-8b -c tpuv5p -o '$TL/w.csv' >'$TL/w1.txt' && grep -qx 'npusim opsgen: wrote $TL/w.csv' '$TL/w1.txt' &&
  $NPUSIM chipsim --configs $CONFIGS -c tpuv5p -i '$TL/w.csv' --timeline '$TL/w.json' >'$TL/w2.csv' 2>'$TL/w2.err' &&
  head -n 1 '$TL/w2.csv' | grep -q '^# npusim' && grep -qx 'npusim chipsim: wrote $TL/w.json' '$TL/w2.err'"
check "a 'wrote' line never enters a file that is standard output (roofline -o /dev/stdout into a pipe)" sh -c "
  $NPUSIM roofline --configs $CONFIGS -c h100 -o /dev/stdout 2>'$TL/r.err' | tail -n 1 | grep -q '</svg>' &&
  grep -qx 'npusim roofline: wrote /dev/stdout' '$TL/r.err'"
