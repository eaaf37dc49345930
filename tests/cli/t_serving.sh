# Sourced by tests/cli/run.sh: `npusim serving`, the request-level serving
# simulator (docs/serving.md). The logic, not only examples: static equal
# requests against `npusim run`; determinism; memoized against direct step
# times; Little's law and every token and request accounted; KV use within
# capacity; TTFT percentiles against the rate; preemption (recompute and
# swap), rejection, trace replay in three public formats; M/D/1 waiting
# times; the contract's columns and keys; bad input exits 2 and writes nothing.
SE="$T/serving"
mkdir -p "$SE"
SV="$NPUSIM serving --configs $CONFIGS -m llama3-8b -c h100"
SC=tests/cli/serving_check.py

# what the passes assumed, in run's words, and where the chip's numbers come from (summary and JSON)
check "serving: the summary ends with run's notes (profile, formats, calibration) and the JSON names calibration_source" sh -c "
  $NPUSIM run --configs $CONFIGS -m llama3-8b -c h100 --no-energy -o '$SE/notes-run' >'$SE/notes-run.txt' &&
  $SV --rate 2 --requests 10 --pg Full >'$SE/notes.txt' && $SV --rate 2 --requests 10 --json >'$SE/notes.json' &&
  grep -q '^  ran with      profile physical; power gating Full, DVFS None; weights bf16' '$SE/notes.txt' &&
  grep '^  calibration' '$SE/notes-run.txt' >'$SE/cal-run' && grep '^  calibration' '$SE/notes.txt' >'$SE/cal-sv' &&
  cmp '$SE/cal-run' '$SE/cal-sv' && grep -q 'npusim calibrate --runs' '$SE/cal-sv' &&
  python3 -c 'import json,sys; d=json.load(open(sys.argv[1])); assert d[\"provenance\"][\"calibration_source\"].startswith(\"npusim calibrate --runs\"), d[\"provenance\"]' '$SE/notes.json'"
# run: TTFT 176.791571 ms, TPOT 7.858141 ms (batch 8, 1024 in, 128 out, h100)
check "serving: static equal requests give run's TTFT (exact), TPOT (0.1%) and busy time (0.1%)" sh -c "
  $NPUSIM run --configs $CONFIGS -m llama3-8b -c h100 --batch 8 --seqlen 1024_128 -o '$SE/run' >'$SE/run.txt' &&
  $SV --scheduler static --batch 8 --offline --requests 8 --lengths fixed:1024:129 --json >'$SE/st129.json' &&
  $SV --scheduler static --batch 8 --offline --requests 8 --lengths fixed:1024:128 --json >'$SE/st128.json' &&
  python3 $SC equal '$SE/run' '$SE/st129.json' '$SE/st128.json'"
check "serving: static = run holds with a per-request host cost (request_overhead_ns 20 us)" sh -c "
  $NPUSIM run --configs $CONFIGS -m llama3-8b -c h100 --set request_overhead_ns=20000 --batch 8 --seqlen 1024_128 -o '$SE/runrq' >/dev/null &&
  $SV --set request_overhead_ns=20000 --scheduler static --batch 8 --offline --requests 8 --lengths fixed:1024:129 --json >'$SE/rq129.json' &&
  $SV --set request_overhead_ns=20000 --scheduler static --batch 8 --offline --requests 8 --lengths fixed:1024:128 --json >'$SE/rq128.json' &&
  python3 $SC equal '$SE/runrq' '$SE/rq129.json' '$SE/rq128.json'"
# Above capacity: llama3-8b on one h100 serves about 7.5 chat requests a second (offline). At 50 a
# second the requests in the system pile up (in_system_growth past 0.5, above_capacity) and the text
# run warns on stderr; at 2 a second, and offline (no rate), neither.
check "serving: a rate above capacity is said so (above_capacity, a warning naming --find-rate); below it and offline not" sh -c "
  $SV --rate 50 --requests 300 --json >'$SE/over.json' 2>'$SE/over.err' &&
  python3 -c 'import json,sys; d=json.load(open(sys.argv[1])); assert d[\"above_capacity\"] is True and d[\"in_system_growth\"] > 0.5, d[\"in_system_growth\"]' '$SE/over.json' &&
  $SV --rate 50 --requests 300 2>'$SE/over.txt' >/dev/null &&
  grep -q 'warning: the rate is above what the replicas serve.*--find-rate' '$SE/over.txt' &&
  $SV --rate 2 --requests 300 --json >'$SE/under.json' 2>'$SE/under.err' && [ ! -s '$SE/under.err' ] &&
  python3 -c 'import json,sys; d=json.load(open(sys.argv[1])); assert d[\"above_capacity\"] is False and abs(d[\"in_system_growth\"]) < 0.5' '$SE/under.json' &&
  $SV --offline --requests 300 --json >'$SE/off.json' &&
  python3 -c 'import json,sys; assert json.load(open(sys.argv[1]))[\"above_capacity\"] is False' '$SE/off.json'"
# DeepSeek (MLA, MoE over expert parallelism 8 on the replica's 8 chips): run
# counts dp x tp x pp x ep chips (quirk opsgen Q33), so it is told the 8.
SD="$NPUSIM serving --configs $CONFIGS -m deepseekv2-236b -c h100 --tp 8 --ep 8"
check "serving: DeepSeek static equal requests give run's TTFT (exact) and TPOT (0.1%)" sh -c "
  $NPUSIM run --configs $CONFIGS -m deepseekv2-236b -c h100 --tp 8 --ep 8 --set num_chips=8 --batch 8 --seqlen 1024_128 -o '$SE/dsrun' >/dev/null &&
  $SD --scheduler static --batch 8 --offline --requests 8 --lengths fixed:1024:129 --json >'$SE/ds129.json' &&
  $SD --scheduler static --batch 8 --offline --requests 8 --lengths fixed:1024:128 --json >'$SE/ds128.json' &&
  python3 $SC equal '$SE/dsrun' '$SE/ds129.json' '$SE/ds128.json'"
check "serving: DeepSeek continuous and chunked: Little's law, every token accounted; memoized = direct" sh -c "
  $SD --scheduler continuous --rate 1 --requests 300 --seed 2 -o '$SE/ds-c' >/dev/null && python3 $SC accounting '$SE/ds-c' continuous &&
  $SD --scheduler chunked --rate 1 --requests 300 --seed 2 -o '$SE/ds-k' >/dev/null && python3 $SC accounting '$SE/ds-k' chunked &&
  NPUSIM_SERVING_NO_MEMO=1 $SD --scheduler chunked --rate 1 --requests 300 --seed 2 -o '$SE/ds-k2' >/dev/null &&
  cmp '$SE/ds-k/iterations.csv' '$SE/ds-k2/iterations.csv'"
# DeepSeek Sparse Attention (index_topk, opsgen/deepseek.h): DeepSeek-V2 with an indexer of 16 heads
# of 64 picking 512 keys, prompts of 1024: a static batch is run's, chunked serving accounts every token.
DX="--set index_topk=512 --set index_heads=16 --set index_head_dim=64"
check "serving: DeepSeek with sparse attention: static equal requests give run's TTFT and TPOT; chunked accounts every token" sh -c "
  $NPUSIM run --configs $CONFIGS -m deepseekv2-236b -c h100 --tp 8 --ep 8 --set num_chips=8 $DX --batch 8 --seqlen 1024_128 -o '$SE/dsarun' >/dev/null &&
  $SD $DX --scheduler static --batch 8 --offline --requests 8 --lengths fixed:1024:129 --json >'$SE/dsa129.json' &&
  $SD $DX --scheduler static --batch 8 --offline --requests 8 --lengths fixed:1024:128 --json >'$SE/dsa128.json' &&
  python3 $SC equal '$SE/dsarun' '$SE/dsa129.json' '$SE/dsa128.json' &&
  $SD $DX --scheduler chunked --rate 1 --requests 300 --seed 2 -o '$SE/dsa-k' >/dev/null && python3 $SC accounting '$SE/dsa-k' chunked"
# Layer patterns (opsgen/pattern.h): gpt-oss's experts with a 128-token window on every other
# layer, Gemma 2's 4096-token window, Qwen3-MoE's experts over 2 expert-parallel chips, all with
# prompts past their windows: a static batch of equal requests is run's batch.
for spec in 'gpt-oss-20b::' 'gemma2-9b::' 'qwen3-30b-a3b:--tp 2 --ep 2:--set num_chips=2'; do
    m=${spec%%:*}; rest=${spec#*:}; par=${rest%%:*}; extra=${rest#*:}
    check "serving: $m static equal requests give run's TTFT (exact) and TPOT (0.1%)" sh -c "
      $NPUSIM run --configs $CONFIGS -m $m -c h100 $par $extra --batch 8 --seqlen 6000_128 -o '$SE/pt-$m' >/dev/null &&
      $NPUSIM serving --configs $CONFIGS -m $m -c h100 $par --scheduler static --batch 8 --offline --requests 8 --lengths fixed:6000:129 --json >'$SE/pt129-$m.json' &&
      $NPUSIM serving --configs $CONFIGS -m $m -c h100 $par --scheduler static --batch 8 --offline --requests 8 --lengths fixed:6000:128 --json >'$SE/pt128-$m.json' &&
      python3 $SC equal '$SE/pt-$m' '$SE/pt129-$m.json' '$SE/pt128-$m.json'"
done
# Gated DeltaNet layers (opsgen/linear_attn.h): Qwen3.5-35B-A3B's three linear layers to one of
# attention. A static batch is run's (the recurrence priced per chunk as run prices its prefill);
# chunked serving accounts every token; a sequence holds its state's blocks from its first token:
# 30 layers x (32 x 128 x 128 + (2 x 16 x 128 + 32 x 128) x 3) fp32 elements = 65,863,680 bytes,
# 201 blocks of 16 tokens of the 10 attention layers' K/V (10 x 2 x 2 x 256 x 2 bytes a token),
# so a 16-token prompt holds 1 + 201 blocks and its first answer token 2 + 201; with a bf16 state
# ceil(100.5) = 101 blocks.
Q35=tests/samples/hf/qwen3.5-35b-a3b.json
check "serving: Qwen3.5's hybrid static equal requests give run's TTFT (exact) and TPOT (0.1%); chunked accounts every token" sh -c "
  $NPUSIM run --configs $CONFIGS -m $Q35 -c h100 --batch 8 --seqlen 6000_128 -o '$SE/q35run' >/dev/null 2>&1 &&
  $NPUSIM serving --configs $CONFIGS -m $Q35 -c h100 --scheduler static --batch 8 --offline --requests 8 --lengths fixed:6000:129 --json >'$SE/q35-129.json' 2>/dev/null &&
  $NPUSIM serving --configs $CONFIGS -m $Q35 -c h100 --scheduler static --batch 8 --offline --requests 8 --lengths fixed:6000:128 --json >'$SE/q35-128.json' 2>/dev/null &&
  python3 $SC equal '$SE/q35run' '$SE/q35-129.json' '$SE/q35-128.json' &&
  $NPUSIM serving --configs $CONFIGS -m $Q35 -c h100 --rate 2 --requests 300 --seed 3 -o '$SE/q35acc' >/dev/null 2>&1 &&
  python3 $SC accounting '$SE/q35acc' chunked"
expect_fail "serving: a model of linear layers alone (no K/V to page) is refused, saying why" \
    'every layer is linear attention (full_attention_interval 0), no K/V to page' \
    $NPUSIM serving --configs $CONFIGS -m $Q35 -c h100 --set full_attention_interval=0 --rate 1 --requests 5 -o "$SE/q35none"
check "serving: a linear-attention state holds its blocks from the first token (201 in fp32, 101 in bf16)" sh -c "
  $NPUSIM serving --configs $CONFIGS -m $Q35 -c h100 --rate 1 --requests 1 --lengths fixed:16:2 -o '$SE/q35b' >/dev/null 2>&1 &&
  [ \"\$(cut -d, -f7 '$SE/q35b/iterations.csv' | tr '\n' ' ')\" = 'kv_blocks_used 202 203 ' ] &&
  $NPUSIM serving --configs $CONFIGS -m $Q35 -c h100 --rate 1 --requests 1 --lengths fixed:16:2 --set linear_state_dtype=bf16 -o '$SE/q35h' >/dev/null 2>&1 &&
  [ \"\$(cut -d, -f7 '$SE/q35h/iterations.csv' | tr '\n' ' ')\" = 'kv_blocks_used 102 103 ' ]"
check "serving: a mixture of experts (Mixtral, --ep 2) chunked: Little's law, every token accounted" sh -c "
  $NPUSIM serving --configs $CONFIGS -m mixtral-8x7b -c h100 --tp 2 --ep 2 --rate 2 --requests 300 --seed 3 -o '$SE/mx' >/dev/null &&
  python3 $SC accounting '$SE/mx' chunked"
# a local layer's cache holds its window: the same long prompts run more at once with Gemma 2's
# window than with every layer global
check "serving: local attention's KV blocks hold the window: more sequences at once than every layer global" sh -c "
  $NPUSIM serving --configs $CONFIGS -m gemma2-9b -c h100 --offline --requests 100 --lengths fixed:7000:600 -o '$SE/win' >/dev/null &&
  $NPUSIM serving --configs $CONFIGS -m gemma2-9b -c h100 --set sliding_window=0 --offline --requests 100 --lengths fixed:7000:600 -o '$SE/nowin' >/dev/null &&
  python3 $SC window_holds '$SE/win' '$SE/nowin'"
expect_fail "serving: a disaggregated pool too small for the expert parallelism exits 2, naming the pool" \
  "the decode pool (--decode-tp 4): model field \"expert_parallelism_degree\"" \
  $SD --scheduler disaggregated --decode-tp 4 -o "$SE/bad1"
check "serving: the same seed gives the same bytes (summary less sim_wall_s); another seed differs" sh -c "
  $SV --rate 4 --requests 150 --seed 7 -o '$SE/a' >/dev/null && $SV --rate 4 --requests 150 --seed 7 -o '$SE/b' >/dev/null &&
  $SV --rate 4 --requests 150 --seed 8 -o '$SE/c' >/dev/null &&
  cmp '$SE/a/requests.csv' '$SE/b/requests.csv' && cmp '$SE/a/iterations.csv' '$SE/b/iterations.csv' &&
  ! cmp -s '$SE/a/requests.csv' '$SE/c/requests.csv' && python3 $SC same_summary '$SE/a' '$SE/b'"
check "serving: memoized step times equal direct ones (continuous and chunked)" sh -c "
  $SV --scheduler continuous --rate 6 --requests 60 --seed 3 -o '$SE/m1' >/dev/null &&
  NPUSIM_SERVING_NO_MEMO=1 $SV --scheduler continuous --rate 6 --requests 60 --seed 3 -o '$SE/m2' >/dev/null &&
  cmp '$SE/m1/iterations.csv' '$SE/m2/iterations.csv' &&
  $SV --scheduler chunked --max-num-batched-tokens 512 --rate 6 --requests 60 --seed 3 -o '$SE/m3' >/dev/null &&
  NPUSIM_SERVING_NO_MEMO=1 $SV --scheduler chunked --max-num-batched-tokens 512 --rate 6 --requests 60 --seed 3 -o '$SE/m4' >/dev/null &&
  cmp '$SE/m3/iterations.csv' '$SE/m4/iterations.csv'"
for sch in continuous chunked inflight static; do
    check "serving: $sch: Little's law, every request and token accounted, KV within capacity" sh -c "
      $SV --scheduler $sch --rate 5 --requests 300 --seed 2 -o '$SE/l-$sch' >/dev/null &&
      python3 $SC accounting '$SE/l-$sch' $sch"
done
# --scheduler inflight (TensorRT-LLM without chunked context): a waiting prompt joins whole or waits.
# Four 200-token prompts under a 300-token budget: chunked cuts them (300, 299 + 1 decode, 201 + 2),
# inflight runs one a pass beside the decodes (200, 200 + 1, 200 + 2, 200 + 3); a 500-token prompt,
# above the whole budget, is still cut (300, then 200 beside the next one's first 100).
check "serving: --scheduler inflight runs each prompt whole in one pass, cutting only one above the budget" sh -c "
  $SV --offline --requests 4 --lengths fixed:200:50 --max-num-batched-tokens 300 --scheduler inflight -o '$SE/inf' >/dev/null &&
  $SV --offline --requests 4 --lengths fixed:200:50 --max-num-batched-tokens 300 --scheduler chunked -o '$SE/infc' >/dev/null &&
  $SV --offline --requests 3 --lengths fixed:500:5 --max-num-batched-tokens 300 --scheduler inflight -o '$SE/infb' >/dev/null &&
  python3 -c \"import csv,json,sys
def it(d): return [(int(r['prefill_tokens']), int(r['decode_tokens'])) for r in csv.DictReader(open(d+'/iterations.csv'))]
a, c, b = it(sys.argv[1]), it(sys.argv[2]), it(sys.argv[3])
assert a[:5] == [(200, 0), (200, 1), (200, 2), (200, 3), (0, 4)], a[:5]
assert c[:3] == [(300, 0), (299, 1), (201, 2)], c[:3]
assert b[:2] == [(300, 0), (300, 0)] and sum(p for p, _ in b) == 1500, b[:4]
assert json.load(open(sys.argv[1]+'/summary.json'))['setting']['scheduler'] == 'inflight'\" '$SE/inf' '$SE/infc' '$SE/infb'"
check "serving: chunked passes keep to the token budget, decodes first" sh -c "
  $SV --scheduler chunked --max-num-batched-tokens 256 --rate 5 --requests 100 -o '$SE/ch' >/dev/null &&
  python3 $SC budget '$SE/ch' 256"
check "serving: TTFT p50 and p99 never fall as the rate rises (1, 3, 9, 27 requests/s)" sh -c "
  for r in 1 3 9 27; do $SV --rate \$r --requests 300 --seed 5 --json >'$SE/rate'\$r.json || exit 1; done &&
  python3 $SC monotone '$SE'/rate1.json '$SE'/rate3.json '$SE'/rate9.json '$SE'/rate27.json"
check "serving: a short KV cache preempts (recompute and swap), every request still completes" sh -c "
  $SV --kv-reserve 0.76 --offline --requests 120 --lengths fixed:2000:600 -o '$SE/pre' >/dev/null &&
  $SV --kv-reserve 0.76 --offline --requests 120 --lengths fixed:2000:600 --swap -o '$SE/swap' >/dev/null &&
  python3 $SC preempt '$SE/pre' '$SE/swap'"
# --capacity-policy guaranteed-no-evict (TensorRT-LLM's default): on the cache above, where
# max-utilization preempts, each request takes its whole context's blocks (2600 tokens: 163
# blocks of 16) as it starts, and none is preempted.
check "serving: --capacity-policy guaranteed-no-evict reserves whole contexts and never preempts" sh -c "
  $SV --kv-reserve 0.76 --offline --requests 120 --lengths fixed:2000:600 --capacity-policy guaranteed-no-evict -o '$SE/ne' >/dev/null &&
  python3 $SC noevict '$SE/ne' '$SE/pre' 120 163"
check "serving: guaranteed-no-evict under chunked, continuous and disaggregated serves every request" sh -c "
  for s in chunked continuous disaggregated; do
    $SV --scheduler \$s --kv-reserve 0.76 --rate 2 --requests 60 --lengths fixed:2000:600 --capacity-policy guaranteed-no-evict --json >'$SE/ne-'\$s.json || exit 1
    python3 -c \"import json,sys; s=json.load(open(sys.argv[1])); assert s['completed']==60 and s['preemptions']==0, s['preemptions']\" '$SE/ne-'\$s.json || exit 1
  done"
# --max-new-tokens N, the max_tokens each request carries: under guaranteed-no-evict a request is
# promised its prompt's and N answer tokens' blocks whatever its answer (TensorRT-LLM's
# getRemainingBlocksToCompletion): 2000 + 600 tokens, 163 blocks of 16, for answers of 100; at most
# the context: 2000 + 400 = 2400 tokens, 150 blocks, under --max-context 2400. Answers stop at N.
check "serving: --max-new-tokens: guaranteed-no-evict promises the prompt's and N answer tokens' blocks" sh -c "
  $SV --kv-reserve 0.76 --offline --requests 120 --lengths fixed:2000:100 --max-new-tokens 600 --capacity-policy guaranteed-no-evict -o '$SE/mnt' >/dev/null &&
  python3 $SC noevict '$SE/mnt' '$SE/pre' 120 163 &&
  $SV --kv-reserve 0.76 --offline --requests 120 --lengths fixed:2000:100 --max-new-tokens 600 --max-context 2400 --capacity-policy guaranteed-no-evict -o '$SE/mnt2' >/dev/null &&
  python3 $SC noevict '$SE/mnt2' '$SE/pre' 120 150"
check "serving: --max-new-tokens: answers stop at N, and the summary says N" sh -c "
  $SV --offline --requests 40 --lengths fixed:200:300 --max-new-tokens 120 -o '$SE/mnt3' >/dev/null &&
  python3 -c \"import csv,json,sys; d=sys.argv[1]; r=list(csv.DictReader(open(d+'/requests.csv'))); s=json.load(open(d+'/summary.json'))
assert len(r)==40 and all(x['output_tokens']=='120' for x in r), set(x['output_tokens'] for x in r)
assert s['setting']['max_new_tokens']==120\" '$SE/mnt3'"
expect_fail "serving: --max-new-tokens 0 exits 2" "--max-new-tokens \"0\": expected a whole number from 1 to 16777216" \
    $SV --max-new-tokens 0 -o "$SE/mntbad"
no_files "serving: nothing written for a bad --max-new-tokens" "$SE/mntbad"
expect_fail "serving: --capacity-policy takes a policy's name" \
    "--capacity-policy \"none\": expected max-utilization or guaranteed-no-evict" $SV --capacity-policy none -o "$SE/cpbad"
no_files "serving: nothing written for a bad --capacity-policy" "$SE/cpbad"
# --admit-kv-free F (AMD's vLLM VLLM_SCHED_PREFILL_KVC_FREEPCT): new prompts wait while F or
# less of the cache is free. A short cache (about 4342 blocks: 69 requests of 1200 tokens):
# without the gate prompts fill it and decodes preempt; with 0.5 none does.
check "serving: --admit-kv-free 0.5 admits prompts only while more than half the KV blocks are free" sh -c "
  $SV --scheduler continuous --kv-reserve 0.7 --offline --requests 200 --lengths fixed:1000:200 -o '$SE/ag0' >/dev/null &&
  $SV --scheduler continuous --kv-reserve 0.7 --offline --requests 200 --lengths fixed:1000:200 --admit-kv-free 0.5 -o '$SE/ag5' >/dev/null &&
  python3 $SC admit '$SE/ag5' '$SE/ag0' 0.5 1000 16"
check "serving: under the gate a decode pool's arrivals (their cache moved in) are not held: every request served" sh -c "
  $SV --scheduler disaggregated --prefill-replicas 2 --decode-tp 2 --rate 4 --requests 100 --admit-kv-free 0.5 -o '$SE/agd' >/dev/null &&
  python3 $SC disagg '$SE/agd'"
expect_fail "serving: --admit-kv-free 1 exits 2" "--admit-kv-free \"1\": expected" $SV --admit-kv-free 1 -o "$SE/agbad"
no_files "serving: nothing written for a bad --admit-kv-free" "$SE/agbad"
check "serving: a context past the cache is rejected and counted (chunked and continuous)" sh -c "
  $SV --scheduler continuous --kv-reserve 0.7 --max-context 100010 --offline --requests 5 --lengths fixed:100000:10 -o '$SE/rej' >/dev/null &&
  $SV --scheduler chunked --kv-reserve 0.79 --max-context 200000 --offline --requests 3 --lengths fixed:100000:10 -o '$SE/rej2' >/dev/null &&
  python3 $SC rejected '$SE/rej' 5 && python3 $SC rejected '$SE/rej2' 3"
check "serving: --warmup 16 leaves the first 16 requests out of the latency and throughput figures, not out of the run" sh -c "
  $SV --concurrency 8 --requests 64 --lengths fixed:3000:40 -o '$SE/wu0' >/dev/null &&
  $SV --concurrency 8 --requests 64 --lengths fixed:3000:40 --warmup 16 -o '$SE/wu12' >/dev/null &&
  python3 $SC warmup '$SE/wu12' '$SE/wu0' 16"
expect_fail "serving: --warmup takes fewer requests than --requests" "--warmup 60: expected fewer warm-up requests than the 60 requests" \
    $SV --requests 60 --warmup 60 -o "$SE/wubad"
no_files "serving: nothing written for a bad --warmup" "$SE/wubad"
expect_fail "serving: --warmup takes a whole number from 0" "--warmup" $SV --warmup -1 -o "$SE/wubad2"
check "serving: closed loop of 3 clients never has more than 3 requests in flight" sh -c "
  $SV --concurrency 3 --requests 40 -o '$SE/cl' >/dev/null && python3 $SC closed '$SE/cl' 3"
check "serving: --think-time 0.5 with one client: each request arrives an exponential wait (mean 0.5 s) after the last ends; same lengths; same bytes twice" sh -c "
  $SV --concurrency 1 --requests 200 --lengths lognormal:100:0.5:10:0.5 --think-time 0.5 -o '$SE/th' >/dev/null &&
  $SV --concurrency 1 --requests 200 --lengths lognormal:100:0.5:10:0.5 --think-time 0.5 -o '$SE/th2' >/dev/null &&
  $SV --concurrency 1 --requests 200 --lengths lognormal:100:0.5:10:0.5 -o '$SE/th0' >/dev/null &&
  cmp -s '$SE/th/requests.csv' '$SE/th2/requests.csv' && python3 $SC think '$SE/th' '$SE/th0' 0.5"
check "serving: closed loop of 4 clients with a think time never has more than 4 requests in flight, ids in arrival order" sh -c "
  $SV --concurrency 4 --requests 120 --think-time 0.2 -o '$SE/cl4' >/dev/null && python3 $SC closed '$SE/cl4' 4 &&
  python3 $SC arrival_order '$SE/cl4'"
# Drawn lengths past --max-context are clipped (docs/serving.md) and counted: fixed 10 + 10 in a
# context of 5 runs as 4 + 1 (the prompt keeps room for one answer token), every one of the 20;
# within the context none is
check "serving: drawn lengths past --max-context are clipped to it, counted in requests_clipped and said" sh -c "
  $SV --rate 1 --requests 20 --lengths fixed:10:10 --max-context 5 -o '$SE/clip' 2>&1 | grep -q '20 of 20 requests drawn longer than --max-context, clipped to it' &&
  python3 -c 'import csv, json, sys
d = sys.argv[1]; s = json.load(open(d + \"/summary.json\"))
rows = list(csv.DictReader(open(d + \"/requests.csv\")))
assert s[\"requests_clipped\"] == 20 and len(rows) == 20, s[\"requests_clipped\"]
assert all((r[\"input_tokens\"], r[\"output_tokens\"]) == (\"4\", \"1\") for r in rows)' '$SE/clip' &&
  ! $SV --rate 1 --requests 20 --lengths fixed:10:10 --max-context 20 -o '$SE/noclip' 2>&1 | grep -q 'clipped' &&
  python3 -c 'import json, sys; sys.exit(json.load(open(sys.argv[1]))[\"requests_clipped\"] != 0)' '$SE/noclip/summary.json'"
# --async-scheduling: a pass is scheduled as the one before it starts. Request 1 arrives 1 ms into
# request 0's prefill (pass 1): without it, its prompt joins pass 2 beside request 0's first decode;
# with it, pass 2 was fixed at 0, so it runs in pass 3, after a pass of request 0's decode alone.
# Its TTFT is then pass 1 + a lone decode + the mixed pass - 1 ms, each timed in the run without it
# (iterations.csv rows 1, 4 and 2); request 0, alone on an idle replica, is scheduled at once either way
printf 'arrived_at,num_prefill_tokens,num_decode_tokens\n0.0,100,3\n0.001,100,3\n' >"$SE/async.csv"
check "serving: --async-scheduling admits a request queued during a pass one pass later (hand-derived TTFT)" sh -c "
  $SV --trace '$SE/async.csv' --scheduler chunked -o '$SE/sync' >/dev/null &&
  $SV --trace '$SE/async.csv' --scheduler chunked --async-scheduling -o '$SE/async' >/dev/null &&
  python3 -c 'import csv, json, sys
a, s = sys.argv[1], sys.argv[2]
it = [float(r[\"duration_ms\"]) for r in csv.DictReader(open(s + \"/iterations.csv\"))]
pf = [int(r[\"prefill_tokens\"]) for r in csv.DictReader(open(a + \"/iterations.csv\"))]
rs, ra = list(csv.DictReader(open(s + \"/requests.csv\"))), list(csv.DictReader(open(a + \"/requests.csv\")))
assert pf[:3] == [100, 0, 100], pf
assert abs(float(rs[1][\"ttft_ms\"]) - (it[0] + it[1] - 1)) < 1e-5
assert abs(float(ra[1][\"ttft_ms\"]) - (it[0] + it[3] + it[1] - 1)) < 1e-5, (ra[1], it)
assert ra[0][\"ttft_ms\"] == rs[0][\"ttft_ms\"]
assert json.load(open(a + \"/summary.json\"))[\"setting\"][\"async_scheduling\"] is True
assert json.load(open(s + \"/summary.json\"))[\"setting\"][\"async_scheduling\"] is False' '$SE/async' '$SE/sync'"
check "serving: --async-scheduling writes the same bytes twice" sh -c "
  $SV --rate 20 --requests 300 --lengths fixed:200:20 --async-scheduling -o '$SE/as1' >/dev/null &&
  $SV --rate 20 --requests 300 --lengths fixed:200:20 --async-scheduling -o '$SE/as2' >/dev/null &&
  cmp -s '$SE/as1/requests.csv' '$SE/as2/requests.csv' && cmp -s '$SE/as1/iterations.csv' '$SE/as2/iterations.csv'"
expect_fail "serving: --think-time is a closed loop's" "--think-time is a closed loop's" $SV --rate 2 --think-time 1 -o "$SE/thbad"
no_files "serving: nothing written for --think-time without --concurrency" "$SE/thbad"
expect_fail "serving: --think-time takes 0 to 3600 seconds" "--think-time" $SV --concurrency 2 --think-time -1 -o "$SE/thbad2"
check "serving: a fixed service time at Poisson arrivals waits as M/D/1 (rho 0.5 and 0.8, 3%)" sh -c "
  $SV --scheduler static --batch 1 --lengths fixed:512:1 --offline --requests 1 --json >'$SE/d.json' &&
  python3 $SC md1 '$SE/d.json' '$NPUSIM serving --configs $CONFIGS -m llama3-8b -c h100' '$SE'"
printf 'TIMESTAMP,ContextTokens,GeneratedTokens\n2023-11-16 18:15:46.6805900,374,44\n2023-11-16 18:15:50.9951690,396,109\n2023-11-16 18:15:51.4999990,879,5\n' >"$SE/azure.csv"
printf 'arrived_at,num_prefill_tokens,num_decode_tokens\n0.0,374,44\n4.314579,396,109\n4.819409,879,5\n' >"$SE/vidur.csv"
printf '{"input_toks": 374, "output_toks": 44, "arrival_time_ns": 0}\n{"input_toks": 396, "output_toks": 109, "arrival_time_ns": 4314579000}\n{"input_toks": 879, "output_toks": 5, "arrival_time_ns": 4819409000}\n' >"$SE/llmss.jsonl"
check "serving: --trace replays Azure (date-times), Vidur and LLMServingSim (JSONL) traces alike" sh -c "
  for f in azure.csv vidur.csv llmss.jsonl; do $SV --trace '$SE'/\$f -o '$SE/tr-'\$f >/dev/null || exit 1; done &&
  python3 $SC trace '$SE/tr-azure.csv' '$SE/tr-vidur.csv' '$SE/tr-llmss.jsonl'"
printf 'input_tokens,output_tokens\n100,10\n300,30\n' >"$SE/pairs.csv"
check "serving: --lengths FILE draws the table's pairs with replacement" sh -c "
  $SV --lengths '$SE/pairs.csv' --rate 2 --requests 50 -o '$SE/pairs' >/dev/null && python3 $SC pairs '$SE/pairs'"
check "serving: disaggregated pools (prefill tp 1 x 2, decode tp 2) serve every request, KV moved between" sh -c "
  $SV --scheduler disaggregated --prefill-replicas 2 --decode-tp 2 --rate 4 --requests 100 -o '$SE/dis' >/dev/null &&
  python3 $SC disagg '$SE/dis'"
check "serving: replicas and routers: least-outstanding and least-kv use every replica" sh -c "
  $SV --replicas 3 --router least-outstanding --rate 10 --requests 120 -o '$SE/r1' >/dev/null &&
  $SV --replicas 3 --router least-kv --rate 10 --requests 120 -o '$SE/r2' >/dev/null &&
  python3 $SC replicas '$SE/r1' 3 && python3 $SC replicas '$SE/r2' 3"
# The front-end batcher (--batcher-wait S, --batcher-size N): arrivals every 100 ms from
# t = 0. With a 0.25 s wait the clock starts at the first arrival; the arrivals at 0.1 and 0.2
# are checks too young; the one at 0.3 (0.3 s after the start) sends ids 0-3 together; id 4
# (0.4) waits for the check 0.25 s after its arrival, 0.65. With a size of 2, pairs leave at
# 0.1 and 0.3 as soon as they are two, and id 4 again at 0.65. Each batch goes whole to the
# replica the router picks (round-robin over 2: batch by batch).
check "serving: --batcher-wait/--batcher-size hold arrivals and send them together (hand-derived times)" sh -c "
  B='$SV --rate 10 --arrival constant --requests 5 --lengths fixed:16:2 --replicas 2' &&
  \$B --batcher-wait 0.25 -o '$SE/bt1' >/dev/null && \$B --batcher-wait 0.25 --batcher-size 2 -o '$SE/bt2' --json >'$SE/bt2.json' &&
  python3 - '$SE/bt1/requests.csv' '$SE/bt2/requests.csv' '$SE/bt2.json' <<'PY'
import csv, json, sys
def rows(p):
    return [(float(r['arrival_s']) + float(r['queue_s']), int(r['replica'])) for r in csv.DictReader(open(p))]
want1 = [(0.3, 0), (0.3, 0), (0.3, 0), (0.3, 0), (0.65, 1)]
want2 = [(0.1, 0), (0.1, 0), (0.3, 1), (0.3, 1), (0.65, 0)]
for p, want in ((sys.argv[1], want1), (sys.argv[2], want2)):
    got = rows(p)
    assert all(abs(g[0] - w[0]) < 1e-9 and g[1] == w[1] for g, w in zip(got, want)) and len(got) == 5, (p, got)
b = json.load(open(sys.argv[3]))['setting']['batcher']
assert b == {'size': 2, 'wait_s': 0.25}, b
PY"
check "serving: under the batcher every request and token is still accounted (Little's law)" sh -c "
  $SV --rate 4 --requests 300 --batcher-wait 0.2 --batcher-size 16 -o '$SE/btacc' >/dev/null &&
  python3 $SC accounting '$SE/btacc' chunked"
# a budget below the context under whole-prompt scheduling: a recomputed request (prompt and
# answer so far) could outgrow it and wait forever; refused, as vLLM V0 refuses it
expect_fail "serving: continuous with --max-num-batched-tokens below --max-context exits 2" \
  "--max-num-batched-tokens 2560: below --max-context 4096, a request recomputed after preemption could never run whole under the continuous scheduler (vLLM V0 refuses this too); give at least 4096, or --scheduler chunked" \
  $SV --scheduler continuous --offline --requests 10 --lengths fixed:2048:2048 --max-context 4096 --max-num-batched-tokens 2560 -o "$SE/bad1"
# TensorRT-LLM's KV sizing: F of what HBM less the weights and activations leaves. With no
# reserve, --kv-reserve 0 gives that whole room in blocks (70B bf16 on 2 H100s: 6200); a
# fraction of 0.5 gives half of it, 0.9 nine tenths (within the one block floor() drops).
check "serving: --kv-free-fraction sizes the cache as F of the room --kv-reserve 0 leaves" sh -c "
  S='$NPUSIM serving --configs $CONFIGS -m llama2-70b -c h100 --tp 2 --offline --requests 4 --lengths fixed:100:4 --json' &&
  \$S --kv-reserve 0 >'$SE/kvf0.json' && \$S --kv-free-fraction 0.5 >'$SE/kvf5.json' && \$S --kv-free-fraction 0.9 >'$SE/kvf9.json' &&
  python3 - '$SE' <<'PY'
import json, sys
b = {n: json.load(open('%s/kvf%s.json' % (sys.argv[1], n)))['setting'] for n in '059'}
room = b['0']['pools'][0]['kv_blocks_per_replica']
assert room == 6200 and b['0']['kv_reserve'] == 0, b['0']
for n, f in (('5', 0.5), ('9', 0.9)):
    got = b[n]['pools'][0]['kv_blocks_per_replica']
    assert abs(got - f * room) <= 1 and b[n]['kv_free_fraction'] == f, (n, got)
PY"
expect_fail "serving: --kv-free-fraction and --kv-reserve exclude each other" \
  "--kv-free-fraction and --kv-reserve size the KV cache two ways" $SV --kv-free-fraction 0.9 --kv-reserve 0.1 -o "$SE/bad1"
expect_fail "serving: --kv-free-fraction above 1 exits 2" "--kv-free-fraction \"1.5\": expected a number above 0 and at most 1" \
  $SV --kv-free-fraction 1.5 -o "$SE/bad1"
expect_fail "serving: --batcher-size needs --batcher-wait" "--batcher-size gives the front-end batcher's size: give --batcher-wait S too" \
  $SV --batcher-size 8 -o "$SE/bad1"
expect_fail "serving: --batcher-wait 0 exits 2" "--batcher-wait \"0\": expected a number above 0" $SV --batcher-wait 0 -o "$SE/bad1"
expect_fail "serving: --batcher-size 0 exits 2" "--batcher-size \"0\": expected a whole number from 1" \
  $SV --batcher-wait 0.1 --batcher-size 0 -o "$SE/bad1"
check "serving: energy adds up over requests, idle chips draw one power, energy per request falls with load" sh -c "
  $SV --rate 0.2 --requests 100 -o '$SE/en-lo' >/dev/null && $SV --rate 1 --requests 300 -o '$SE/en-hi' >/dev/null &&
  python3 $SC energy '$SE/en-lo' '$SE/en-hi'"
check "serving: --find-rate: the rate found meets the SLO, one within the tolerance above misses it, early stops are sound" sh -c "
  $SV --requests 400 --find-rate --slo ttft_p99_ms=1500,tpot_p99_ms=12 --rate-tolerance 0.02 -o '$SE/fr' --json >'$SE/fr.json' &&
  python3 $SC find_rate '$SE/fr.json' '$SE/fr' 0.02 '$SV --requests 400'"
# A loose SLO over a short run: rates past capacity meet it while their queue grows; find-rate stops at
# what one h100 keeps up with (offline 7.54 requests/s), not at the 2.987e9 every rate "met" before.
check "serving: --find-rate stops at the capacity under a loose SLO (runs above capacity miss it)" sh -c "
  $SV --requests 300 --find-rate --slo ttft_p99_ms=100000,tpot_p99_ms=1000 --json >'$SE/frl.json' &&
  python3 -c 'import json,sys; f=json.load(open(sys.argv[1]))[\"find_rate\"]; assert f[\"found\"] and 5 < f[\"max_rate_rps\"] < 10 and not f[\"unbounded\"], f[\"max_rate_rps\"]' '$SE/frl.json'"
check "serving: --find-rate with an SLO no load meets says so and exits 0" sh -c "
  $SV --requests 200 --find-rate --slo ttft_p99_ms=1 | grep -q 'no rate meets ttft_p99_ms=1'"
expect_fail "serving: --find-rate needs a statistic bound" "needs an --slo with a statistic bound" \
  $SV --find-rate --slo ttft_ms=100 -o "$SE/bad1"
expect_fail "serving: --find-rate does not take --offline" "--find-rate searches over --rate" \
  $SV --find-rate --offline --slo ttft_p99_ms=100 -o "$SE/bad1"
expect_fail "serving: an unknown SLO bound is named" 'unknown bound "ttft_p42_ms"' \
  $SV --slo ttft_p42_ms=100 -o "$SE/bad1"
expect_fail "serving: --rate-tolerance must be in (0, 0.5]" "--rate-tolerance" $SV --find-rate --slo ttft_p99_ms=100 --rate-tolerance 0 -o "$SE/bad1"
check "serving: --pg gates idle time (energy saved against NoPG, wake-ups); Ideal pays no latency" sh -c "
  $SV --rate 0.3 --requests 150 --json >'$SE/pg0.json' && $SV --rate 0.3 --requests 150 --pg Base --json >'$SE/pg1.json' &&
  $SV --rate 0.3 --requests 150 --pg Ideal --json >'$SE/pg2.json' && python3 $SC pg '$SE/pg0.json' '$SE/pg1.json' '$SE/pg2.json'"
expect_fail "serving: an unknown --pg strategy exits 2" "--pg:" $SV --pg Nope -o "$SE/bad1"
expect_fail "serving: an unknown --dvfs policy exits 2" "--dvfs:" $SV --dvfs Turbo -o "$SE/bad1"
check "serving: --timeline: a slice per pass per replica and the tracks of the requests, as the CSVs say" sh -c "
  $SV --rate 3 --requests 60 --replicas 2 --timeline '$SE/tl.json' -o '$SE/tl' >/dev/null && python3 $SC timeline '$SE/tl.json' '$SE/tl' &&
  $SV --rate 3 --requests 10 --timeline '$SE/tl2.json' >/dev/null && python3 -c 'import json,sys; json.load(open(sys.argv[1]))' '$SE/tl2.json'"
# Pipeline parallelism keeps a pass in flight per stage (--pp-microbatches, default the stages):
# hand-derived times of two static batches on two stages, one pass at a time against two
# (serving_check.py pipelined), and the saturated rate nearly doubled.
SP="$NPUSIM serving --configs $CONFIGS -m llama3-8b -c h100 --pp 2"
NOHOST="--set step_overhead_ns=0 --set layer_overhead_ns=0 --set request_overhead_ns=0"
check "serving: --pp 2 keeps two passes in flight: hand-derived times, TTFT, energy and microbatch tracks" sh -c "
  $SP $NOHOST --scheduler static --batch 4 --offline --requests 8 --lengths fixed:512:2 --pp-microbatches 1 -o '$SE/pp1' >/dev/null &&
  $SP $NOHOST --scheduler static --batch 4 --offline --requests 8 --lengths fixed:512:2 -o '$SE/pp2' --timeline '$SE/pp2.json' >/dev/null &&
  python3 $SC pipelined '$SE/pp1' '$SE/pp2' && python3 $SC timeline '$SE/pp2.json' '$SE/pp2' 2 &&
  $SP --rate 40 --requests 200 --replicas 2 --timeline '$SE/pp3.json' -o '$SE/pp3' >/dev/null &&
  python3 $SC timeline '$SE/pp3.json' '$SE/pp3' 2 && python3 $SC accounting_pp '$SE/pp3' 200"
check "serving: --pp 2 static batches of 4 in flight give run's pipeline of 2 microbatches of 4: its TTFT and TPOT" sh -c "
  $NPUSIM run --configs $CONFIGS -m llama3-8b -c h100 --pp 2 --batch 8 --seqlen 1024_128 -o '$SE/pprun' >/dev/null &&
  $SP --scheduler static --batch 4 --offline --requests 8 --lengths fixed:1024:129 -o '$SE/ppst' >/dev/null &&
  python3 $SC pp_equal '$SE/pprun' '$SE/ppst'"
check "serving: --pp 2 saturated: two passes in flight serve 1.7x-2x the tokens of one holding as many requests" sh -c "
  $SP --offline --requests 512 --lengths fixed:512:128 --pp-microbatches 1 --max-num-seqs 512 --json >'$SE/ppr1.json' &&
  $SP --offline --requests 512 --lengths fixed:512:128 --max-num-seqs 256 --json >'$SE/ppr2.json' &&
  python3 $SC pipelined_rate '$SE/ppr1.json' '$SE/ppr2.json'"
expect_fail "serving: --pp-microbatches above the stages exits 2" \
  "--pp-microbatches 3: expected at most the pipeline's 2 stages" $SP --pp-microbatches 3 -o "$SE/bad1"
expect_fail "serving: --pp-microbatches without a pipeline exits 2" \
  "--pp-microbatches 2: expected at most the pipeline's 1 stage (no pipeline parallelism)" $SV --pp-microbatches 2 -o "$SE/bad1"
expect_fail "serving: --pp-microbatches 0 exits 2" "--pp-microbatches \"0\": expected a whole number from 1" \
  $SP --pp-microbatches 0 -o "$SE/bad1"
expect_fail "serving: a --timeline in a missing folder exits 2 and writes nothing" "tl-missing" \
  $SV --requests 5 --timeline "$SE/tl-missing/x/t.json" -o "$SE/bad1"
check "serving: npusim report DIR on a serving folder: the summary, power gating and four figures" sh -c "
  $SV --rate 3 --requests 80 --pg Full -o '$SE/rep' >/dev/null &&
  $NPUSIM report '$SE/rep' -o '$SE/rep.html' --svg-dir '$SE/rep-figs' >/dev/null &&
  for f in latency_cdf batch_over_time kv_over_time energy_cdf; do grep -q '<svg' '$SE/rep-figs/'\$f.svg || exit 1; done &&
  grep -q 'energy saved against NoPG' '$SE/rep.html' && grep -q 'Latency CDFs' '$SE/rep.html' &&
  grep -q '<td>80 </td>' '$SE/rep.html'"
mkdir -p "$SE/badrep" && printf '{}\n' >"$SE/badrep/summary.json" &&
  printf 'id,arrival_s,ttft_ms,tpot_ms,e2e_s,energy_J,status\n0,0.1,5,x,1,2,ok\n' >"$SE/badrep/requests.csv" &&
  printf 'start_s,duration_ms,prefill_tokens,decode_tokens,kv_blocks_used,kv_blocks_total\n' >"$SE/badrep/iterations.csv"
expect_fail "serving: report on a serving folder with a bad cell names the file, line and column" \
  'badrep/requests.csv: line 2: column "tpot_ms": expected a number >= 0, got "x"' $NPUSIM report "$SE/badrep" -o "$SE/bad1/r.html"
# a damaged but parseable iterations.csv: a time below 0, and more KV blocks used than there are
mkdir -p "$SE/badrep2" "$SE/badrep3" && printf '{}\n' >"$SE/badrep2/summary.json" && printf '{}\n' >"$SE/badrep3/summary.json" &&
  printf 'id,arrival_s,ttft_ms,tpot_ms,e2e_s,energy_J,status\n0,0.1,5,3,1,2,ok\n' >"$SE/badrep2/requests.csv" &&
  cp "$SE/badrep2/requests.csv" "$SE/badrep3/requests.csv" &&
  printf 'start_s,duration_ms,prefill_tokens,decode_tokens,kv_blocks_used,kv_blocks_total\n-1e308,5,10,0,4,100\n' >"$SE/badrep2/iterations.csv" &&
  printf 'start_s,duration_ms,prefill_tokens,decode_tokens,kv_blocks_used,kv_blocks_total\n0,5,10,0,101,100\n' >"$SE/badrep3/iterations.csv"
expect_fail "serving: report refuses a time below 0 in iterations.csv (it drew an axis from -1e308)" \
  'badrep2/iterations.csv: line 2: column "start_s": expected a number >= 0, got "-1e308"' $NPUSIM report "$SE/badrep2" -o "$SE/bad1/r.html"
expect_fail "serving: report refuses a pass using more KV blocks than there are" \
  'badrep3/iterations.csv: line 2: column "kv_blocks_used": expected at most kv_blocks_total (100), got 101' $NPUSIM report "$SE/badrep3" -o "$SE/bad1/r.html"
cat >"$SE/sweep.json" <<'JSON'
{"workload": "serving", "models": ["llama3-8b", "llama3-70b"], "chips": ["h100"],
 "serving": {"requests": 120, "rate": [2, 6], "replicas": [1, 2], "lengths": "chat"},
 "slo": "ttft_p99_ms=1500,tpot_p99_ms=30", "select": "fewest_chips"}
JSON
check "serving: a serving sweep spec runs every point (70B on one H100 refused, saying why) and selects the fewest chips meeting the SLO" sh -c "
  $NPUSIM sweep --configs $CONFIGS --spec '$SE/sweep.json' --summary '$SE/sweep.csv' >'$SE/sweep.txt' &&
  python3 $SC sweep '$SE/sweep.csv' '$SE/sweep.txt' 8 fewest_chips &&
  $NPUSIM sweep --configs $CONFIGS --spec '$SE/sweep.json' --select energy --summary '$SE/sweep2.csv' >'$SE/sweep2.txt' &&
  python3 $SC sweep '$SE/sweep2.csv' '$SE/sweep2.txt' 8 energy"
# A point above capacity meets a loose SLO for its run's length only: it is flagged, never selected.
# At 50 requests/s (one h100 serves ~7.5) energy per request is the lowest, yet the pick is 2 a second.
cat >"$SE/oversweep.json" <<'JSON'
{"workload": "serving", "models": ["llama3-8b"], "chips": ["h100"],
 "serving": {"requests": 300, "rate": [2, 50], "lengths": "chat"},
 "slo": "ttft_p99_ms=100000000,tpot_p99_ms=1000000", "select": "energy"}
JSON
check "serving: a sweep point above capacity is flagged (above_capacity) and never selected" sh -c "
  $NPUSIM sweep --configs $CONFIGS --spec '$SE/oversweep.json' --summary '$SE/over.csv' >'$SE/over.txt' &&
  python3 -c 'import csv,sys; r={x[\"rate\"]: x for x in csv.DictReader(open(sys.argv[1]))}; assert r[\"50\"][\"above_capacity\"] == \"True\" and r[\"50\"][\"meets_slo\"] == \"True\" and r[\"2\"][\"above_capacity\"] == \"False\" and float(r[\"50\"][\"energy_per_request_J\"]) < float(r[\"2\"][\"energy_per_request_J\"]), r' '$SE/over.csv' &&
  grep -q 'above capacity (its latencies grow with the run)' '$SE/over.txt' &&
  sed -n '/^selected/{n;p}' '$SE/over.txt' | grep -q 'rate=2 '"
# a point's layout is held to what `npusim serving` holds it to: TP 3 does not divide Llama 3 8B's 32 heads
printf '{"workload": "serving", "models": ["llama3-8b"], "chips": ["h100"], "serving": {"requests": 20, "rate": 1, "tp": [1, 3]}}' >"$SE/tpsweep.json"
check "serving: a sweep point whose tp does not divide the heads is refused, saying why; the others run" sh -c "
  $NPUSIM sweep --configs $CONFIGS --spec '$SE/tpsweep.json' --summary '$SE/tp.csv' >'$SE/tp.txt' &&
  python3 -c 'import csv,sys; r={x[\"tp\"]: x for x in csv.DictReader(open(sys.argv[1]))}; assert r[\"3\"][\"status\"] == \"refused\" and \"does not divide num_heads 32\" in r[\"3\"][\"message\"] and r[\"1\"][\"status\"] == \"ok\", r' '$SE/tp.csv' &&
  grep -q 'tp=1  1 chip, ' '$SE/tp.txt'"
# the run's switches are sweepable (async_scheduling, offline, swap; not find_rate): each point runs as the
# command with the flag does, its column says which
printf '{"workload": "serving", "models": ["llama3-8b"], "chips": ["h100"], "serving": {"requests": 200, "rate": 8, "lengths": "fixed:500:50", "async_scheduling": [false, true]}}' >"$SE/assweep.json"
check "serving: a sweep over async_scheduling runs each point as npusim serving with and without --async-scheduling" sh -c "
  $NPUSIM sweep --configs $CONFIGS --spec '$SE/assweep.json' --summary '$SE/as.csv' >/dev/null &&
  $SV --requests 200 --rate 8 --lengths fixed:500:50 --async-scheduling --json >'$SE/as-on.json' &&
  python3 -c 'import csv, json, sys
r = {x[\"async_scheduling\"]: x for x in csv.DictReader(open(sys.argv[1]))}
on = json.load(open(sys.argv[2]))
assert set(r) == {\"false\", \"true\"} and all(x[\"status\"] == \"ok\" for x in r.values()), r
assert abs(float(r[\"true\"][\"ttft_p99_ms\"]) - on[\"ttft_ms\"][\"p99\"]) < 1e-4, (r[\"true\"], on[\"ttft_ms\"])
assert float(r[\"true\"][\"ttft_p50_ms\"]) > float(r[\"false\"][\"ttft_p50_ms\"])' '$SE/as.csv' '$SE/as-on.json'"
printf '{"workload": "serving", "models": ["llama3-8b"], "chips": ["h100"], "serving": {"find_rate": [true]}}' >"$SE/frsweep.json"
expect_fail "serving: find_rate is no sweep option" 'unknown option "find_rate"' \
  $NPUSIM sweep --configs $CONFIGS --spec "$SE/frsweep.json" --summary "$SE/bad2/s.csv"
printf '{"workload": "serving", "models": ["llama3-8b"], "chips": ["h100"], "serving": {"rates": [1]}}' >"$SE/badsweep.json"
expect_fail "serving: a serving sweep spec with an unknown option names the file and the key" \
  'badsweep.json: "serving": unknown option "rates"' $NPUSIM sweep --configs $CONFIGS --spec "$SE/badsweep.json" --summary "$SE/bad1/s.csv"
expect_fail "serving: --select on a batch sweep is refused" "--slo and --select choose among a serving spec" \
  $NPUSIM sweep --configs $CONFIGS -m llama3-8b -c 5p --num-chips 1 --batch-sizes 1 --select energy --summary "$SE/bad1/s.csv"
cat >"$SE/fleet.json" <<'JSON'
{"deployments": [
  {"name": "chat", "model": "llama3-8b", "chip": "h100", "num_chips": 1, "replicas": 4,
   "serving": {"rate": 12, "lengths": "chat", "requests": 600}},
  {"name": "one", "model": "llama3-8b", "chip": "h100", "num_chips": 1, "replicas": 1,
   "serving": {"rate": 12, "lengths": "chat", "requests": 600}}]}
JSON
check "serving: a fleet deployment driven by a rate is the serving run over a year; one replica is overloaded and says how many it needs" sh -c "
  $NPUSIM fleet --configs $CONFIGS '$SE/fleet.json' -o '$SE/fleet' >/dev/null 2>&1 &&
  $SV --replicas 4 --rate 12 --lengths chat --requests 600 --json >'$SE/fleet-sv.json' &&
  python3 $SC fleet '$SE/fleet/fleet.json' '$SE/fleet-sv.json'"
printf '{"deployments": [{"name": "x", "model": "llama3-8b", "chip": "h100", "num_chips": 1, "serving": {"rate": 1, "replicas": 2}}]}' >"$SE/badfleet.json"
expect_fail "serving: a fleet's serving object with the deployment's replicas is refused, naming the deployment" \
  '("x"): serving: "replicas" is the deployment' $NPUSIM fleet --configs $CONFIGS "$SE/badfleet.json" -o "$SE/bad1"
check "serving: the JSON keys and CSV columns of the contract" sh -c "
  $SV --rate 2 --requests 20 --slo ttft_ms=200,tpot_ms=20 --json >'$SE/k.json' && python3 $SC keys '$SE/k.json' '$SE/a'"
check "serving: --help names serve, serve --help names serving; the table without -o" sh -c "
  $NPUSIM serving --help | grep -q 'npusim serve\`' && $NPUSIM serve --help | grep -q 'npusim serving' &&
  $SV --rate 1 --requests 5 | grep -q 'TTFT (ms)'"
expect_fail "serving: --rate 0 exits 2" "expected requests per second above 0" $SV --rate 0 -o "$SE/bad1"
expect_fail "serving: --rate nan exits 2" "expected requests per second above 0" $SV --rate nan -o "$SE/bad1"
expect_fail "serving: --rate -3 exits 2" "expected requests per second above 0" $SV --rate -3 -o "$SE/bad1"
expect_fail "serving: --rate past 1e9 requests/s exits 2" "expected requests per second above 0, at most 1e9" $SV --rate 1e300 -o "$SE/bad1"
printf 'arrived_at,num_prefill_tokens,num_decode_tokens\n' >"$SE/empty.csv"
expect_fail "serving: an empty trace exits 2, naming it" "empty.csv: the trace is empty" $SV --trace "$SE/empty.csv" -o "$SE/bad1"
printf 'arrived_at,num_prefill_tokens,num_decode_tokens\n1.0,10,5\n0.5,10,5\n' >"$SE/unsorted.csv"
expect_fail "serving: unsorted timestamps are refused, naming the line" "unsorted.csv: line 3: arrival -0.5 s after the first request comes before the previous line's 0 s" $SV --trace "$SE/unsorted.csv" -o "$SE/bad1"
printf 'arrived_at,num_prefill_tokens,num_decode_tokens\n0,10,5\n1,-4,5\n' >"$SE/neg.csv"
expect_fail "serving: a negative length exits 2, naming the line and field" 'neg.csv: line 3: field "num_prefill_tokens"' $SV --trace "$SE/neg.csv" -o "$SE/bad1"
printf 'arrived_at,num_prefill_tokens,num_decode_tokens\n0,9000,5\n' >"$SE/long.csv"
expect_fail "serving: lengths beyond the context exit 2" "long.csv: line 2: 9000 input and 5 output tokens exceed the context of 8192" $SV --trace "$SE/long.csv" -o "$SE/bad1"
printf 'arrived_at,num_prefill_tokens,num_decode_tokens\n0,10,5\n1,10\n' >"$SE/miss.csv"
expect_fail "serving: a trace line with a missing field exits 2" 'miss.csv: line 3: field "num_decode_tokens" is missing' $SV --trace "$SE/miss.csv" -o "$SE/bad1"
printf 'arrived_at,num_prefill_tokens,num_decode_tokens\n0,10,5\n1,10,5,7\n' >"$SE/wide.csv"
expect_fail "serving: a trace line wider than its header exits 2 (it was read, the extra field dropped)" 'wide.csv: line 3: 4 fields where the header has 3' $SV --trace "$SE/wide.csv" -o "$SE/bad1"
expect_fail "serving: negative lengths in a spec exit 2" "expected fixed:IN:OUT" $SV --lengths fixed:-5:10 -o "$SE/bad1"
expect_fail "serving: an unknown scheduler exits 2" "expected static, continuous" $SV --scheduler fifo -o "$SE/bad1"
expect_fail "serving: a bad --slo exits 2" "expected ttft_ms=X,tpot_ms=Y" $SV --slo ttft=3 -o "$SE/bad1"
expect_fail "serving: a bound given twice in --slo exits 2, naming it" "\"ttft_p99_ms\" is given twice" $SV --slo ttft_p99_ms=100,tpot_p99_ms=50,ttft_p99_ms=200 -o "$SE/bad1"
expect_fail "serving: DLRM is not served" "not served" $NPUSIM serving --configs $CONFIGS -m dlrm-s -c h100 -o "$SE/bad1"
no_files "serving: the bad inputs wrote nothing" "$SE/bad1"
# The padded scheduler (XLA static shapes, JetStream): one prompt a prefill pass; every decode pass
# all 16 slots over the 1024-token cache, whatever they hold (one time for all); prompts of 100
# and 128 tokens in one bucket, 129 in the next.
SP="$NPUSIM serving --configs $CONFIGS -m llama3-8b -c tpuv5e --tp 8 --scheduler padded --max-num-seqs 16 --max-context 1024"
check "serving: padded: one prompt a prefill, every decode pass alike, prompts padded to a power of two" sh -c "
  $SP --rate 4 --requests 300 --lengths uniform:20:200:10:100 -o '$SE/pad' >/dev/null &&
  $SP --offline --requests 1 --lengths fixed:100:4 -o '$SE/pad100' >/dev/null &&
  $SP --offline --requests 1 --lengths fixed:128:4 -o '$SE/pad128' >/dev/null &&
  $SP --offline --requests 1 --lengths fixed:129:4 -o '$SE/pad129' >/dev/null &&
  python3 $SC padded '$SE/pad' '$SE/pad100' '$SE/pad128' '$SE/pad129' &&
  python3 $SC accounting '$SE/pad' padded"
# bench/serving-validation.py as module sv, for the checks of its mapping below
# and cmd(rows, id): the npusim serving arguments of a row, with the configs and npusim in argv
SV='import importlib.util, sys
spec = importlib.util.spec_from_file_location("sv", "bench/serving-validation.py")
sv = importlib.util.module_from_spec(spec)
spec.loader.exec_module(sv)
def cmd(rows, i):
    return " ".join(sv.build_args(rows[i], sys.argv[1], sys.argv[2]))'
# bench/serving-validation.py maps TensorRT-LLM perf-overview rows with trtllm-bench's own batch
# rule (tuning.py). By hand, Llama-3.1-8B FP8 on one H100 (80 GiB) with FP8 KV: weights 8.03e9 B
# = 7.48 GiB, cache (80 - 7.48) x 0.9 = 65.3 GiB, 2 x 32 x 8 x 128 B = 64 KiB a token. 128/128:
# 4181 requests fit, capped at 4096 (a multiple of 256), tokens 4096 x 2 = 8192. 20000/2000:
# 48.6 requests -> at least 64, tokens 48.6 x 11 = 534 -> at least 2048, then ISL + 64 = 20064.
check "serving validation: trtllm-bench's batch rule gives the hand-derived settings" python3 -c "$SV"'
row = {"model": "llama3-8b", "chip": "h100", "tp": "1", "weight_dtype": "fp8", "input_len": "128", "output_len": "128"}
a = sv.trtllm_bench_settings(row, sys.argv[1], sys.argv[2])
row.update(input_len="20000", output_len="2000")
b = sv.trtllm_bench_settings(row, sys.argv[1], sys.argv[2])
sys.exit(not (a == (4096, 8192) and b == (64, 20064)))' "$CONFIGS" "$NPUSIM"
# The held-out rows of the new model families (bench/public/new-families-serving.csv) map by the
# script's rules: SGLang's prefill batches apart (continuous) and sglang.bench_serving's 100 prompts, counted (N1, a
# Hugging Face file as the model); vLLM 0.17 on an H200 with its own defaults, 1024 sequences and
# 8192 tokens (N7, all 200 prompts at once); guidellm's rate with its 512 outstanding (N4); a
# total-throughput row reads input plus output tokens a second.
check "serving validation: the new families' rows map by the script's rules" python3 -c "$SV"'
rows = {r["id"]: r for r in sv.read_rows("bench/public/new-families-serving.csv")}
a, b, c = cmd(rows, "N1"), cmd(rows, "N7"), cmd(rows, "N4")
ok = ("-m tests/samples/hf/qwen3-next-80b-a3b.json" in a and "--concurrency 8 --requests 100 " in a
      and "--warmup" not in a and "--scheduler continuous" in a
      and "--offline --requests 200" in b and "--max-num-seqs 1024" in b and "--max-num-batched-tokens 8192" in b
      and "--max-context 32768" in b and "--scheduler chunked" in b
      and "--rate 1000 --requests 1000" in c and "--max-num-seqs 512" in c
      and sv.metric_stat(rows["N5"]) == ("total_tokens_per_s", None) and sv.metric_stat(rows["N6"]) == ("ttft_ms", "mean"))
sys.exit(not ok)' "$CONFIGS" "$NPUSIM"
# The newest models' held-out rows (bench/public/newest-models-serving.csv): sglang.bench_serving's
# random dataset at its default range ratio draws lengths uniformly from 1 to 1024 (M8, 100 clients,
# 1000 prompts, Gemma 4 31B shipped by name); the rows of ten requests at one client keep their
# totals' means (M5: 610 in, 422 out).
check "serving validation: the newest models' rows map by the script's rules (SGLang's uniform lengths)" python3 -c "$SV"'
rows = {r["id"]: r for r in sv.read_rows("bench/public/newest-models-serving.csv")}
a, b = cmd(rows, "M8"), cmd(rows, "M5")
ok = ("-m gemma4-31b -c h200 --tp 2" in a and "--lengths uniform:1:1024:1:1024 --max-context 2048" in a
      and "--concurrency 100 --requests 1000 " in a and "--scheduler continuous" in a
      and "--lengths fixed:610:422" in b and "--concurrency 1 --requests 10 " in b)
sys.exit(not ok)' "$CONFIGS" "$NPUSIM"
# The MLPerf harness settings read from the submitters' code (bench/serving-validation.py HARNESS):
# AMD's vLLM Server row I21 runs behind the harness's batcher (0.3 s, 96) with its engine settings,
# its Offline rows (I6; Dell's I9, same scripts) with the KV admission gate (0.31), the Server without;
# every MLPerf row runs as many requests as the run's LoadGen issued;
# NVIDIA's I15 takes max_num_tokens 4096 and launches every kernel (no graphs, as AMD's Offline);
# L1 (p50 TTFT of the same log) reads ttft_ms.p50;
# the TensorRT-LLM rows size their KV cache by their configs' fraction of the free memory;
# NVIDIA's v5.0 rows (B200: I133-I136, L33-L35; GH200: I137-I139, L36-L38) take their config's settings
# and their Python harness's defaults.
check "serving validation: MLPerf rows carry their harness's settings, percentile rows their statistic" python3 -c "$SV"'
rows = {r["id"]: r for r in sv.read_rows("bench/public/inference-serving.csv")}
a, n = cmd(rows, "I21"), cmd(rows, "I15")
ok = ("--batcher-wait 0.3 --batcher-size 96" in a and "--max-num-batched-tokens 49152 --kv-reserve 0.03" in a
      and "--max-num-batched-tokens 4096" in n and "--batcher" not in n
      # NVIDIA s harness routes to the least busy replica (main_llm.cc, llm_server.cc); AMD s keeps round-robin
      and "--router least-outstanding" in n and "--router least-outstanding" in cmd(rows, "L13") and "--router" not in a
      # no graphs: NVIDIA s harness (use_graphs false), AMD s Offline (--enforce-eager True); AMD s Server keeps them
      and "--set graph_capture=none" in n and "--set graph_capture=none" in cmd(rows, "L13")
      and "--set graph_capture=none" in cmd(rows, "I6") and "graph_capture" not in a and "graph_capture" not in cmd(rows, "I66")
      and sv.metric_stat(rows["L1"]) == ("ttft_ms", "p50") and sv.metric_stat(rows["L2"]) == ("ttft_ms", "p99")
      and sv.metric_stat(rows["I15"]) == ("ttft_ms", "mean")
      # TensorRT-LLM s KV size: NVIDIA 0.90, HPE Server 0.97 and Offline 0.95, trtllm-bench 0.90; vLLM none
      and "--kv-free-fraction 0.9 " in n and "--kv-free-fraction 0.97 " in cmd(rows, "L13")
      and "--kv-free-fraction 0.95 " in cmd(rows, "I2") and "--kv-free-fraction 0.9 " in cmd(rows, "I66")
      and "--kv-free-fraction" not in a
      and "--admit-kv-free 0.31" in cmd(rows, "I6") and "--admit-kv-free 0.31" in cmd(rows, "I9") and "--admit-kv-free" not in a
      # as many samples as LoadGen issued (mlperf_log_detail.txt), and the Server limits as an SLO
      and "--requests 196608 " in n and "--requests 200640 " in cmd(rows, "I1") and "--requests 24576 " in cmd(rows, "I6")
      and sv.server_limits(rows["I15"]) == "ttft_p99_ms=2000,tpot_p99_ms=200"
      # S13 quotes its vllm serve flags (0.98 utilisation -> 0.02 kept free; the model length 2048)
      # and runs vllm bench serve: all 3000 prompts counted, none left out as a warmup; vLLM 0.12 chunks
      and "--concurrency 64 --requests 3000 --lengths fixed:999:1000" in cmd(rows, "I118") and "--warmup" not in cmd(rows, "I118")
      and all(o in cmd(rows, "I118") for o in ("--kv-reserve 0.02 ", "--max-num-batched-tokens 512 ", "--max-num-seqs 256 "))
      # ... and --async-scheduling, which it quotes too; no other row does
      and "--async-scheduling " in cmd(rows, "I118") and "--async-scheduling" not in n and "--async-scheduling" not in a
      and cmd(rows, "I118").rsplit("--max-context ", 1)[1].startswith("2048 ")
      and cmd(rows, "I118").endswith("--scheduler chunked --json")
      # a closed loop s clients take a think time (the trip of their next request); open loops none
      and "--think-time 0.001 " in cmd(rows, "I118") and "--think-time 0.001 " in cmd(rows, "I93") and "--think-time" not in n
      and sv.metric_stat(rows["I120"]) == ("ttft_ms", "p50") and sv.metric_stat(rows["I121"]) == ("ttft_ms", "p99")
      and sv.metric_stat(rows["I122"]) == ("tpot_ms", "mean") and sv.metric_stat(rows["I123"]) == ("tpot_ms", "p50")
      # TensorRT-LLM s capacity policy: trtllm-bench and NIM guaranteed-no-evict, MLPerf s harness and
      # vLLM max-utilization (the default); NIM s KV format fp8, inferred from its saturated rows
      and "--capacity-policy guaranteed-no-evict" in cmd(rows, "I66") and "--capacity-policy guaranteed-no-evict" in cmd(rows, "I96")
      and "--capacity-policy" not in n and "--capacity-policy" not in a and "--capacity-policy" not in cmd(rows, "I118")
      and "--set kv_cache_dtype=fp8" in cmd(rows, "I130") and sv.metric_stat(rows["I131"]) == ("tpot_ms", "mean")
      # NVIDIA s MLPerf v5.0 B200 rows: their config s token budget, cap and KV fraction, one TP1 instance
      # a GPU; its Python harness s defaults (LLMServer): max-utilization, no graphs, round-robin
      # Offline and the least busy core in Server
      and all(o in cmd(rows, "I133") for o in ("--tp 1 --replicas 8 ", "--requests 1007616 ", "--max-num-seqs 2048 ",
                                         "--max-num-batched-tokens 3584 ", "--kv-free-fraction 0.95 ",
                                         "--lengths lognormal:218.1:0.89:272:", "--set graph_capture=none"))
      and "--router" not in cmd(rows, "I133") and "--pp" not in cmd(rows, "I133")
      and "--capacity-policy" not in cmd(rows, "I133") and "--capacity-policy" not in cmd(rows, "I135")
      and "--requests 147456 " in cmd(rows, "I134") and "--replicas" not in cmd(rows, "I134")
      # its Server run at the log s target QPS and query count, output mean 273; L33-L35 its percentiles
      and all(o in cmd(rows, "I135") for o in ("--rate 364 --requests 884736 ", "--max-num-batched-tokens 3584 ",
                                         "--max-num-seqs 2048 ", "--lengths lognormal:218.1:0.89:273:",
                                         "--router least-outstanding ", "--set graph_capture=none"))
      # TensorRT-LLM s default, chunked context off (the v4.1 harness, trtllm-bench, NIM) -> inflight;
      # NVIDIA s v5.0 rows -> chunked (inferred: the header); vLLM 0.12 chunks, vLLM 0.4.3 does not
      and all(cmd(rows, i).endswith("--scheduler inflight --json") for i in ("I1", "I15", "L13", "I66", "I96"))
      and all(cmd(rows, i).endswith("--scheduler chunked --json") for i in ("I133", "I135", "I137", "I118"))
      and a.endswith("--scheduler continuous --json")
      # GH200 (I137 Offline, I138 Server): the harness s KV fraction where the config gives none, 0.80
      and all(o in cmd(rows, "I137") for o in ("-c gh200 --tp 1 ", "--requests 49152 ", "--max-num-batched-tokens 1536 ",
                                         "--kv-free-fraction 0.8 ", "--set graph_capture=none"))
      and all(o in cmd(rows, "I138") for o in ("--rate 15 --requests 49152 ", "--kv-free-fraction 0.8 ",
                                         "--router least-outstanding ", "--lengths lognormal:218.1:0.89:293:"))
      and cmd(rows, "L33") == cmd(rows, "I135") and sv.metric_stat(rows["L33"]) == ("ttft_ms", "p50")
      and sv.metric_stat(rows["L34"]) == ("ttft_ms", "p99") and sv.metric_stat(rows["L35"]) == ("tpot_ms", "p50")
      and sv.metric_stat(rows["I136"]) == ("tpot_ms", "mean"))
sys.exit(not ok)' "$CONFIGS" "$NPUSIM"
# the ML.ENERGY power rows run as their vLLM configs state (bench/serving-power.py's header), and the
# measured power of all a row's GPUs is set against npusim's per-chip power times its GPUs
grep -e '^id,' -e '^E11,' bench/public/serving-power.csv >"$SE/power.csv"
check "serving power: ML.ENERGY rows run as configured; a TP2 row's power is twice npusim's per chip" python3 -c '
import importlib.util, io, json, subprocess, sys, contextlib
spec = importlib.util.spec_from_file_location("sp", "bench/serving-power.py")
sp = importlib.util.module_from_spec(spec)
spec.loader.exec_module(sp)
rows = {r["id"]: r for r in sp.read_rows("bench/public/serving-power.csv")}
c = sp.command(sys.argv[1], rows["E11"], 300)
j = " ".join(c)
ok = ("qwen3-32b.json -c h100 --tp 2 " in j and "--offline --requests 4096 " in j and "--max-num-seqs 8 " in j
      and "--lengths lognormal:300:2:631.0:0.86 " in j and "--max-context 20480 --max-num-batched-tokens 8192 " in j
      and "--kv-reserve 0.1 --scheduler chunked" in j and "kv_cache_dtype=bf16" in j)
s = json.loads(subprocess.run(c, capture_output=True, text=True, check=True).stdout)
out = io.StringIO()
sys.argv = ["serving-power.py", sys.argv[1], "--csv", sys.argv[2]]
with contextlib.redirect_stdout(out):
    sp.main()
line = [l for l in out.getvalue().splitlines() if l.startswith("| E11 |")][0].split("|")
ok = ok and line[6].strip() == "850.1" and line[7].strip() == "%.4g" % (2 * s["avg_power_W_per_chip"])
ok = ok and line[8].strip() == "%+.1f%%" % (100 * (2 * s["avg_power_W_per_chip"] - 850.1) / 850.1)
sys.exit(not ok)' "$NPUSIM" "$SE/power.csv"
# the running-power fit on relative errors, hand-derived: P0 100 W, slope 100 W per unit of r, measured
# 200 and 300 W: 9 (100 r - 100) + 4 (100 r - 200) = 0, r = 17/13; bounded by the smallest O_max / K
check "serving power: the fit of r solves the relative least squares and keeps to its bound" python3 -c '
import importlib.util, sys
spec = importlib.util.spec_from_file_location("sp", "bench/serving-power.py")
sp = importlib.util.module_from_spec(spec)
spec.loader.exec_module(sp)
free = [(100.0, 1.0, 200.0, 100.0, 1e9), (100.0, 1.0, 300.0, 100.0, 1e9)]
bound = [(100.0, 1.0, 200.0, 100.0, 120.0), (100.0, 1.0, 300.0, 100.0, 1e9)]
sys.exit(not (abs(sp.fit_r(free) - 17 / 13) < 1e-12 and sp.fit_r(bound) == 1.2
              and [round(e, 6) for e in sp.predict(free, 1.0)] == [0.0, -33.333333]))'
# the shipped r is fitted on the first gathering's h100 rows alone: the rows added after it (Qwen3-14B,
# E19-E26; Qwen3-30B-A3B, E27-E36; Qwen3-235B-A22B, E37-E48) are predicted, never fitted; a mixture
# on several GPUs runs vLLM's expert parallelism over them (TP N for attention, EP N), one GPU none
check "serving power: the fit's rows are h100 rows of the first gathering; the later rows are never fitted; a mixture's GPUs run EP" python3 -c '
import importlib.util, sys
spec = importlib.util.spec_from_file_location("sp", "bench/serving-power.py")
sp = importlib.util.module_from_spec(spec)
spec.loader.exec_module(sp)
rows = {r["id"]: r for r in sp.read_rows("bench/public/serving-power.csv")}
late = [i for i, r in rows.items() if r["model"] in ("qwen3-14b", "qwen3-30b-a3b", "qwen3-235b-a22b")]
e37, e27 = " ".join(sp.command("npusim", rows["E37"], 300)), " ".join(sp.command("npusim", rows["E27"], 300))
sys.exit(not (len(sp.FIT_ROWS) == 10 and all(rows[i]["chip"] == "h100" for i in sp.FIT_ROWS)
              and sorted(late, key=lambda i: int(i[1:])) == ["E%d" % k for k in range(19, 49)]
              and not set(late) & sp.FIT_ROWS
              and " --tp 8 " in e37 and e37.endswith(" --ep 8") and " --tp 1 " in e27 and "--ep" not in e27
              and " --async-scheduling " in e37 and " --async-scheduling" in e27))'
