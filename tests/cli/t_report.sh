# Sourced by tests/cli/run.sh: `npusim report`, a run as one self-contained
# HTML page. Its time table adds up to the run's CSVs, its energy to the
# run's energy per token times the tokens, each figure is also a valid SVG
# on its own, the page needs nothing from the network, and (where Debian's
# chromium is installed, as .ci/run does) a headless browser renders it: the
# DOM holds the four figures and the tables, and a screenshot is taken.
RP="$T/report"
mkdir -p "$RP"
check "report: the page and its four figures" sh -c "
  $NPUSIM report --configs $CONFIGS -m llama3-8b -c tpuv5p -o '$RP/r.html' --svg-dir '$RP/svg' >/dev/null &&
  for f in time_by_op_type roofline energy_by_component power_gating; do
    python3 -c 'import sys, xml.etree.ElementTree as E; r = E.parse(sys.argv[1]).getroot(); assert r.tag.endswith(\"svg\")' \"$RP/svg/\$f.svg\" || exit 1
  done"
check "report: the time per operator type adds up to the run's CSVs; energy to the run's per-token figures" sh -c "
  $NPUSIM run --configs $CONFIGS -m llama3-8b -c tpuv5p -o '$RP/run' >'$RP/run.txt' &&
  python3 - '$RP/r.html' '$RP/run' '$RP/run.txt' <<'PY'
import csv, re, sys
html = open(sys.argv[1]).read()
totals = re.findall(r'<tr><th>total</th><th>([0-9.e+-]+)</th><th>100.0</th><th>([0-9.e+-]+)</th>', html)
assert len(totals) == 2, totals
for i, phase in enumerate(('prefill', 'decode')):
    rows = list(csv.DictReader(open(sys.argv[2] + '/llama3-8b_tpuv5p_%s.csv' % phase)))
    want = sum(int(r['Execution time']) * int(r['Count']) for r in rows) / 1e9
    got = float(totals[0][i])
    assert abs(got - want) <= 1e-5 * want, (phase, got, want)
run = open(sys.argv[3]).read()
pj, dj = (float(x) for x in re.search(r'energy/token +prefill ([0-9.e+-]+) J, decode ([0-9.e+-]+) J', run).groups())
assert abs(float(totals[1][0]) - pj * 4096) <= 1e-4 * pj * 4096, (totals[1][0], pj * 4096)
assert abs(float(totals[1][1]) - dj * 512) <= 1e-4 * dj * 512, (totals[1][1], dj * 512)
assert 'http://' not in html.replace('http://www.w3.org/2000/svg', '') and 'https://' not in html
assert html.count('<svg') == 4 and '<tr><td>NoPG</td>' in html and '<tr><td>Ideal</td>' in html
# the energy by component and the NoPG strategy count the same energy (a matmul run on the vector
# units is costed as one by both)
nopg = re.search(r'<tr><td>NoPG</td><td>([0-9.e+-]+)</td><td>[^<]*</td><td>([0-9.e+-]+)</td>', html).groups()
for i in range(2):
    assert abs(float(nopg[i]) - float(totals[1][i])) <= 1e-5 * float(nopg[i]), (nopg, totals[1])
PY"
check "report of a 4-chip DLRM: the time chart is the straggler's latency the summary gives, the energy all chips'" sh -c "
  $NPUSIM report --configs $CONFIGS -m dlrm-s -c tpuv5p --set num_chips=4 --set data_parallelism_degree=4 \
    --set tensor_parallelism_degree=4 --batch 64 -o '$RP/dlrm.html' >/dev/null &&
  python3 - '$RP/dlrm.html' <<'PY'
import re, sys
html = open(sys.argv[1]).read()
totals = re.findall(r'<tr><th>total</th><th>([0-9.e+-]+)</th>', html)
lat_us = float(re.search(r'straggler +chip \d+: latency ([0-9.]+) us', html).group(1))
energy_J = float(re.search(r'energy +([0-9.e+-]+) J per batch over all chips', html).group(1))
assert abs(float(totals[0]) * 1e6 - lat_us) <= 1e-3 + 1e-6 * lat_us, (totals[0], lat_us)
assert abs(float(totals[1]) - energy_J) <= 1e-5 * energy_J, (totals[1], energy_J)
assert re.search(r'Time per operator type: dlrm-s on tpuv5p, chip \d of 4 \(the straggler\)', html)
assert 'Energy by component: dlrm-s on tpuv5p, all 4 chips' in html
PY"
check "report at tp 2: the figures say they are one chip's, and twice their energy per token is the summary's (all 2 chips)" sh -c "
  $NPUSIM report --configs $CONFIGS -m llama3-8b -c tpuv5p -b 8 --set num_chips=2 --set tensor_parallelism_degree=2 \
    -o '$RP/tp2.html' >/dev/null &&
  python3 - '$RP/tp2.html' <<'PY'
import re, sys
html = open(sys.argv[1]).read()
assert 'Energy by component: llama3-8b on tpuv5p, one chip of 2' in html and 'are one chip' in html
pj, dj = (float(x) for x in re.search(r'energy/token +prefill ([0-9.e+-]+) J, decode ([0-9.e+-]+) J \\(all 2 chips\\)', html).groups())
totals = re.findall(r'<tr><th>total</th><th>([0-9.e+-]+)</th><th>100.0</th><th>([0-9.e+-]+)</th>', html)
for got, want in ((2 * float(totals[1][0]) / (8 * 4096), pj), (2 * float(totals[1][1]) / (8 * 512), dj)):
    assert abs(got - want) <= 1e-5 * want, (got, want)
PY"
check "report --no-energy: no energy sections, no power gating" sh -c "
  $NPUSIM report --configs $CONFIGS -m llama3-8b -c tpuv5p -o '$RP/ne.html' --no-energy >/dev/null &&
  grep -q 'No energy pass ran' '$RP/ne.html' && test \"\$(grep -c '<svg' '$RP/ne.html')\" -eq 2"
if command -v chromium >/dev/null 2>&1; then
    check "report in headless chromium: the DOM holds the figures and tables, no console error, a screenshot" sh -c "
      timeout 120 chromium --headless --no-sandbox --disable-gpu --enable-logging=stderr --v=0 --dump-dom \
        'file://$RP/r.html' >'$RP/dom.html' 2>'$RP/console.log' &&
      python3 - '$RP/dom.html' <<'PY'
import sys
from html.parser import HTMLParser
class P(HTMLParser):
    def __init__(self):
        super().__init__(); self.tags = {}
    def handle_starttag(self, tag, attrs):
        self.tags[tag] = self.tags.get(tag, 0) + 1
p = P(); p.feed(open(sys.argv[1]).read())
assert p.tags.get('svg') == 4 and p.tags.get('table', 0) >= 3 and p.tags.get('rect', 0) > 20, p.tags
PY
      ! grep -E 'CONSOLE.*(Error|Uncaught)' '$RP/console.log' &&
      timeout 120 chromium --headless --no-sandbox --disable-gpu --hide-scrollbars --window-size=1100,2600 \
        --screenshot='$RP/shot.png' 'file://$RP/r.html' >/dev/null 2>&1 && test -s '$RP/shot.png'"
else
    echo "ok - report in headless chromium: skipped, no chromium here (apt-get install chromium)"
fi
expect_fail "report: -o is required" 'expected -o REPORT.html' $NPUSIM report --configs $CONFIGS -m llama3-8b
expect_fail "report: an unknown strategy names it, nothing written" 'strategy "Nope": unknown' \
    $NPUSIM report --configs $CONFIGS -m llama3-8b -c tpuv5p -o "$RP/x.html" --pg NoPG,Nope
check "report: nothing written on a bad strategy" test ! -e "$RP/x.html"
# --sweep: a sweep's summary as a page. The Pareto front's rows are exactly
# the configurations that fit in memory no other (that fits) beats on both
# time per token and throughput per chip (checked against the summary in
# Python); the SLO colours them.
check "report --sweep: throughput against batch and the Pareto front, as the summary says" sh -c "
  $NPUSIM sweep --configs $CONFIGS --models llama3-8b --versions 5p,6e --num-chips 1,4 --batch-sizes 1,8,32 \
    --summary '$RP/s.csv' >/dev/null 2>&1 &&
  $NPUSIM report --sweep '$RP/s.csv' --slo-tpot-ms 5 -o '$RP/sw.html' --svg-dir '$RP/swsvg' >/dev/null &&
  test -s '$RP/swsvg/throughput_vs_batch.svg' && test -s '$RP/swsvg/pareto.svg' &&
  python3 - '$RP/s.csv' '$RP/sw.html' '$RP/swsvg/throughput_vs_chips.svg' <<'PY'
import csv, re, sys
rows = [r for r in csv.DictReader(open(sys.argv[1])) if r['status'] == 'ok' and r['out_of_memory'] == 'False']
pts = [(float(r['TPOT_ms']), float(r['throughput']) / int(r['num_chips'])) for r in rows]
front = sorted(p for p in pts if not any(q[0] < p[0] and q[1] >= p[1] or q[0] <= p[0] and q[1] > p[1] for q in pts))
h = open(sys.argv[2]).read()
got = [(float(a), float(b)) for a, b in re.findall(r'<td class=\"(?:meets|misses)\">([0-9.e+-]+)</td><td>([0-9.e+-]+)</td>', h)]
assert len(got) == len(front), (got, front)
for (a, b), (c, d) in zip(got, front):
    assert abs(a - c) <= 1e-3 * c and abs(b - d) <= 1e-5 * d, (a, b, c, d)
assert h.count('class=\"slo\"') == 1 and h.count('<svg') == 3
# against chips: a line per (model, batch, chip), at each chip count the best layout's total throughput
best = {}
for r in rows:
    k = ('%s, batch %s, %s' % (r['model'], r['batch'], r['chip']), int(r['num_chips']))
    best[k] = max(best.get(k, 0), float(r['throughput']))
pts = re.findall(r'<title>([^<:]+): ([0-9.e+-]+), ([0-9.e+-]+)</title>', open(sys.argv[3]).read())
pts = [p for p in pts if p[0] != 'does not fit in memory']
assert len(pts) == len(best), (len(pts), len(best))
for name, x, y in pts:
    want = best[(name, int(float(x)))]
    assert abs(float(y) - want) <= 5e-4 * want, (name, x, y, want)
PY"
# Out of memory: llama3-70b on 2 x H100 at batch 64 needs 125.7 GiB per
# 80 GB card (tp 2) yet is the fastest and highest of its sweep: without the
# memory columns it would top the front. It and every other row out of
# memory are left off the front and its table, drawn hollow in all three
# figures (one hollow point per such row in each), and counted on the page.
check "report --sweep: configurations out of memory are off the front, drawn hollow and counted" sh -c "
  $NPUSIM sweep --configs $CONFIGS --models llama3-70b --versions h100 --num-chips 2 --batch-sizes 1,8,64 \
    --summary '$RP/oom.csv' >/dev/null 2>&1 &&
  $NPUSIM report --sweep '$RP/oom.csv' --slo-tpot-ms 20 -o '$RP/oom.html' --svg-dir '$RP/oomsvg' >/dev/null &&
  python3 - '$RP/oom.csv' '$RP/oom.html' '$RP/oomsvg' <<'PY'
import csv, re, sys
rows = [r for r in csv.DictReader(open(sys.argv[1])) if r['status'] == 'ok']
pt = lambda r: (float(r['TPOT_ms']), float(r['throughput']) / int(r['num_chips']))
oom = [r for r in rows if r['out_of_memory'] == 'True']
fit = [r for r in rows if r['out_of_memory'] == 'False']
assert len(oom) + len(fit) == len(rows) and all(float(r['memory_GiB']) > 80 for r in oom), rows
big = [r for r in oom if r['tp'] == '2' and r['batch'] == '64']
assert len(big) == 1 and abs(float(big[0]['memory_GiB']) - 125.707) < 0.01, big
# the 2 x H100 batch 64 point beats every point that fits: the old front's best
assert all(pt(big[0])[1] > pt(r)[1] for r in fit), big
h = open(sys.argv[2]).read()
table = h[h.index('<table id=\"pareto\">'):]
table = table[:table.index('</table>')]
got = [(float(a), float(b)) for a, b in re.findall(r'<td class=\"(?:meets|misses)\">([0-9.e+-]+)</td><td>([0-9.e+-]+)</td>', table)]
near = lambda a, b, r: abs(a - pt(r)[0]) <= 1e-3 * a and abs(b - pt(r)[1]) <= 1e-5 * b
assert got, h
for a, b in got:   # each row of the table is a configuration that fits
    assert any(near(a, b, r) for r in fit) and not any(near(a, b, r) for r in oom), (a, b)
assert '%d of the %d configurations do not fit in memory' % (len(oom), len(rows)) in h, h
for f in ('pareto', 'throughput_vs_batch', 'throughput_vs_chips'):
    svg = open(sys.argv[3] + '/' + f + '.svg').read()
    assert svg.count('class=\"point unfit\"') == len(oom), f
    assert '>does not fit in memory</text>' in svg, f
front = re.findall(r'<title>Pareto front: ', open(sys.argv[3] + '/pareto.svg').read())
assert len(front) == len(got), (front, got)
PY"
# The same sweep as a results tree read back (report PATH): the runs table
# says which are out of memory (tp 2 and pp 2 at batch 64: 2 of the 5 that
# ran) and its Pareto section leaves them off the front, drawn hollow.
check "report PATH: runs out of memory are off the Pareto front and drawn hollow" sh -c "
  $NPUSIM sweep --configs $CONFIGS --models llama3-70b --versions h100 --num-chips 2 --batch-sizes 1,8,64 \
    --out '$RP/oomtree' >/dev/null 2>&1 &&
  $NPUSIM report '$RP/oomtree' -o '$RP/oomtree.html' --svg-dir '$RP/oomtreesvg' >/dev/null &&
  grep -q '2 of the 5 configurations do not fit in memory' '$RP/oomtree.html' &&
  test \$(grep -c 'class=\"point unfit\"' '$RP/oomtreesvg/pareto.svg') -eq 2"
printf 'a,b\n1,2\n' >"$RP/notsummary.csv"
expect_fail "report --sweep: not a summary names what it expects" 'expected the columns of npusim sweep --summary' \
    $NPUSIM report --sweep "$RP/notsummary.csv" -o "$RP/y.html"
check "report --sweep: nothing written on a bad summary" test ! -e "$RP/y.html"
# PATHs: runs read back from their files, nothing simulated. A run's folder
# gives the one-run page with the same operators on the roofline as the
# simulated page (the CSVs read back exactly); a sweep's results tree with
# the energy stage's tree beside it gives the page of many runs: a row per
# statistics file pair, each run's energy per strategy as the strategy
# CSVs sum (count x per-execution energy, summed in Python here), and the
# Pareto front of the runs.
check "report RUN_DIR: the run read back, its roofline points those of the simulated page" sh -c "
  $NPUSIM report --configs $CONFIGS '$RP/run' -o '$RP/back.html' --svg-dir '$RP/backsvg' >/dev/null &&
  python3 - '$RP/backsvg/roofline.svg' '$RP/svg/roofline.svg' '$RP/back.html' <<'PY'
import re, sys
pts = lambda f: re.findall(r'<circle class=\"predicted\"[^>]*>.*?</circle>', open(f).read())
a, b = pts(sys.argv[1]), pts(sys.argv[2])
assert a == b and len(a) > 10, (len(a), len(b))
h = open(sys.argv[3]).read()
assert 'TPOT_ms_request' in h and 'llama3-8b on 1 5p (dp 1, tp 1, pp 1), global batch 1' in h
assert h.count('<svg') == 3, h.count('<svg')   # no strategy traces beside a run: no power-gating figure
PY"
check "report TREE: a results tree and its energy stage read back, every run, energies as the strategy CSVs sum" sh -c "
  $NPUSIM sweep --configs $CONFIGS --models llama3-8b --versions 5p,6e --num-chips 1,2 --batch-sizes 1,8 \
    --out '$RP/tree/raw' >/dev/null 2>&1 &&
  $NPUSIM energy --configs $CONFIGS --results '$RP/tree/raw' --models llama3-8b --versions 5p,6e --pg NoPG,Base,Full \
    >/dev/null 2>&1 &&
  $NPUSIM report '$RP/tree/raw_None' -o '$RP/tree.html' --svg-dir '$RP/treesvg' --slo-tpot-ms 8 >/dev/null &&
  test -s '$RP/treesvg/time_by_run.svg' && test -s '$RP/treesvg/pareto.svg' &&
  python3 - '$RP/tree/raw_None' '$RP/tree.html' <<'PY'
import csv, glob, re, sys
root, h = sys.argv[1], open(sys.argv[2]).read()
stems = sorted(f[:-len('_decode.json')] for f in glob.glob(root + '/*/*/*_decode.json'))
assert len(stems) >= 8, stems
rows = re.findall(r'<tr><td>(\d+)</td><td class=\"run\">([^<]*)</td>', h) or re.findall(r'<tr><td>(\d+)</td><td>([^<]*/[^<]*)</td>', h)
assert [r[1] for r in rows] == [s[len(root) + 1:] for s in stems], (rows, stems)
def energy(stem, s):
    t = 0.0
    for ph in ('prefill', 'decode'):
        for r in csv.DictReader(open('%s_%s_%s.csv' % (stem, ph, s))):
            t += (float(r['static_energy_J']) + float(r['dynamic_energy_J'])) * int(r['Count'])
    return t
pg = re.search(r'<table id=\"pg-table\">(.*?)</table>', h, re.S).group(1)
assert re.findall(r'<th>([A-Za-z]+)</th>', pg) == ['NoPG', 'Base', 'Full'], pg[:200]
for i, stem in enumerate(stems):
    cells = re.search(r'<tr><td>#%d</td>(.*?)</tr>' % (i + 1), pg).group(1)
    got = [float(x) for x in re.findall(r'<td>([0-9.e+-]+)', cells)]
    want = [energy(stem, s) for s in ('NoPG', 'Base', 'Full')]
    assert all(abs(g - w) <= 1e-5 * w for g, w in zip(got, want)) and len(got) == 3, (stem, got, want)
assert '<table id=\"pareto\">' in h and 'SLO 8 ms' in h
PY"
check "report TREE --run: one run left gives its own page with the power-gating section" sh -c "
  $NPUSIM report '$RP/tree/raw_None' --run 'dp1-tp2-pp1-dpdcn1-tpdcn1-ppdcn1-bs8/inference-v6e' -o '$RP/one.html' >/dev/null &&
  grep -q 'id=\"power-gating\"' '$RP/one.html' && grep -q '<tr><td>Full</td>' '$RP/one.html' &&
  test \"\$(grep -c '<svg' '$RP/one.html')\" -eq 4"
expect_fail "report PATH: a folder with no runs says what it looked for" 'no statistics JSON' \
    $NPUSIM report "$RP/swsvg" -o "$RP/none.html"
expect_fail "report PATH: a file that is not statistics names it" 'r.html' \
    $NPUSIM report "$RP/r.html" -o "$RP/none.html"
expect_fail "report PATH: a trace alone needs -c" 'give its chip with -c' \
    $NPUSIM report "$RP/run/llama3-8b_tpuv5p_decode.csv" -o "$RP/none.html"
expect_fail "report PATH --run: nothing matches" '--run "nothing-like-this": no run' \
    $NPUSIM report "$RP/tree/raw" --run nothing-like-this -o "$RP/none.html"
expect_fail "report PATH with -m: refused" 'PATHs read runs back' \
    $NPUSIM report -m llama3-8b "$RP/run" -o "$RP/none.html"
check "report PATH: nothing written on bad input" test ! -e "$RP/none.html"
check "report TRACE -c CHIP: a trace alone with its chip" sh -c "
  $NPUSIM report --configs $CONFIGS -c tpuv5p '$RP/run/llama3-8b_tpuv5p_decode.csv' -o '$RP/trace.html' >/dev/null &&
  test \"\$(grep -c '<svg' '$RP/trace.html')\" -eq 3"
