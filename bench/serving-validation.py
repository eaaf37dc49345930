#!/usr/bin/env python3
"""Validate `npusim serving` against the published serving measurements in
bench/public/inference-serving.csv (sources: bench/public/inference-sources.md).

Usage:  python3 bench/serving-validation.py [NPUSIM] [--configs DIR] [--csv FILE] [--jobs N]
                                             [--variant fixed-means|continuous|chunked|bf16-kv|no-harness|
                                                        dataset-count|max-utilization|no-think|sync]
        (NPUSIM defaults to build/npusim; run from the repository root.)
        --variant runs a DIAGNOSTIC variant of the mapping below, to show how much one assumption
        moves the result (it is not the validation): fixed-means gives the dataset rows CV 0 (every
        request at the mean lengths); continuous and chunked run every row with that scheduler
        instead of the engine's (below); bf16-kv gives the NIM rows (S6) the model file's bf16 KV
        cache, where the mapping infers fp8 ("KV format" below); max-utilization runs every row
        under npusim's default capacity policy, where the mapping gives the TensorRT-LLM rows
        guaranteed-no-evict ("capacity" below); no-harness leaves out the MLPerf submitters'
        harness settings and routing (HARNESS, "harness" below);
        dataset-count runs the MLPerf rows over the dataset's 24,576 samples instead of the run's
        LoadGen count ("scenario" below); no-think runs the closed loops without the clients' think
        time ("scenario" below: their next request arrives the instant the last one ends); sync
        runs S13's vLLM rows without the --async-scheduling they quote ("vllm serve" below).

Every row of that file comes from a source (S1-S4 MLPerf v4.1, S14 MLPerf v5.0, S5d TensorRT-LLM perf-overview,
S6 NVIDIA NIM, S7 jetstream-pytorch, S13 Google's tpu-recipes vLLM on Trillium) that was NOT used to
fit npusim's presets: the h100, h200,
a100 and mi300x presets were calibrated (`npusim calibrate --runs`) on S5a-c, S8, S9, S10a-b and S11
of bench/public/inference-runs.csv, all static-batch runs (gh200 takes h200's fit: the same die); b200 has no
inference calibration at all,
and tpuv5e and tpuv6e only MaxText training MFU. So every prediction below is out of sample. Nothing here is
tuned to the measurements: the mapping is fixed by the rules below, before and regardless of the
errors it gives.

Mapping of a row to one `npusim serving` command (run with --json; the predicted value is read from
the printed summary):

  chip, model      -c CHIP -m MODEL (configs/chips/*.json, configs/models/*.json names); a row whose
                   model or chip has no config is skipped.
  tp               --tp TP.   pp must be 1 (all rows are).
  dp               --replicas DP: one replica is one copy of the model on tp chips; the dp copies
                   serve together behind the default round-robin router.
  dtypes           --set weight_dtype=W --set activation_dtype=A --set kv_cache_dtype=K for each one
                   the row gives (values as `npusim fields` spells them: bf16, fp8, int8, fp4, ...);
                   an empty one is left at the model file's default (bf16). The row's `sets` column
                   (e.g. NVFP4's scale_block=16;weight_scale_block_n=1;scale_dtype=fp8_e4m3) is
                   passed as further --set options.
  in-flight cap    --max-num-seqs C when the row's conditions state the engine's per-instance cap
                   ("in-flight cap per instance: ...C", "server slots (max in-flight per instance)
                   C"); I4 and I9 state only that they follow the defaults of the submitter's harness,
                   which their own conditions name (I4: NVIDIA's H200 default, batch 806; I9: the AMD
                   vLLM harness, max_num_seqs 2048 offline as in I7). The TensorRT-LLM perf-overview
                   rows (S5d) state "batch chosen by the runtime": trtllm-bench's own rule, quoted
                   from its source below (trtllm_bench_settings). Otherwise npusim's default 256.
  trtllm-bench     (S5d) perf-overview.md runs `trtllm-bench ... throughput` with neither
                   --max_batch_size nor --max_num_tokens, so get_settings
                   (tensorrt_llm/bench/benchmark/utils/general.py) calls get_benchmark_engine_settings
                   -> calc_engine_setting and finetune_setting (tensorrt_llm/bench/build/tuning.py,
                   the 1.0-era form): KV GiB per token = 2 L max(TP, kv heads) head_dim b_kv / 2^30;
                   weights GiB = params b_w / 2^30 (b_w 1 for FP8, 0.5 for NVFP4); cache = (GPU GiB x
                   TP - weights) x 0.90 (--kv_cache_free_gpu_mem_fraction's default; the doc says
                   some rows ran 0.95, not which); requests R = cache / (KV per token x (ISL+OSL));
                   raw_bs = min(R, 4096); raw_tok = min(raw_bs (1 + ISL/OSL), 32768); max_batch_size =
                   raw_bs rounded up to 32 (at least 64) below 256, to 128 below 1024, else to 256;
                   max_num_tokens = raw_tok rounded up to 256 (at least 2048) below 4096, to 512
                   below 8192, else to 1024; chunked prefill is off by default, so max_num_tokens =
                   max(that, ISL + max_batch_size). -> --max-num-seqs and --max-num-batched-tokens.
                   GPU GiB: the chip config's hbm_size_GB (NVML's total, which the code reads, is
                   not published per row); params: npusim's params_total of the model.
  KV format        (S5d) trtllm-bench leaves kv_cache_dtype "auto": the checkpoint's KV
                   quantization. The rows' checkpoints are NVIDIA's ModelOpt exports
                   (nvidia/Llama-3.x-...-FP8 / -FP4), and ModelOpt writes "kv_cache_quant_algo":
                   "FP8" into the hf_quant_config.json it exports (its own docstring's example;
                   the file of each checkpoint was not read here) -> --set kv_cache_dtype=fp8.
                   (S6) not stated on the NIM page, but its own saturated rows fix it: at
                   concurrency 100-250 the engine holds ~920 tokens/s at an ITL of ~93 ms, so ~85
                   requests decode at once, each with 5000-5500 tokens of context: ~450k tokens,
                   147 GB of KV cache in bf16 (327,680 bytes a token for Llama-3.3-70B) where two
                   80 GB H100s less 70 GB of fp8 weights leave 90 GB; 74 GB in fp8, which fits
                   -> --set kv_cache_dtype=fp8. (Found after the bf16 predictions were seen: I96,
                   concurrency 50, was preempting in npusim and 3.3x too long.)
  capacity         how the engine promises KV blocks. TensorRT-LLM's default capacity scheduler
                   policy is GUARANTEED_NO_EVICT (tensorrt_llm SchedulerConfig; the perf-tuning
                   guide, "Capacity Scheduler Policy"): a request starts only when the blocks of its
                   prompt and its whole answer are free, and is never paused. trtllm-bench
                   throughput's --scheduler_policy defaults to guaranteed_no_evict
                   (tensorrt_llm/bench/benchmark/throughput.py), and NIM's TensorRT-LLM profile
                   states no other -> S5d and S6: --capacity-policy guaranteed-no-evict. Their
                   clients ask for exactly the answer's length (trtllm-bench's fixed output
                   lengths; GenAI-Perf's fixed lengths with ignore_eos), so the reservation, the
                   prompt and the request's max_new_tokens (KVCacheManager::
                   getRemainingBlocksToCompletion), is npusim's prompt and answer. NVIDIA's
                   MLPerf v4.1 harness defaults --trtllm_batch_sched_policy to max_util
                   (code/harness/harness_llm/main_llm.cc), which no llama2-70b config of NVIDIA,
                   HPE or Dell overrides; vLLM preempts -> npusim's default, max-utilization.
                   NVIDIA's v5.0 Python harness (LLMServer, below) defaults batch_scheduler_policy
                   to max_util too -> S14: max-utilization. It agrees with S14's Server log: under
                   guaranteed-no-evict each request would hold the blocks of its prompt and of
                   max_output_len 1024 (the v4.1 harness's generation_config.json; MLPerf's
                   llama2-70b answers run to 1024 tokens), at most ~720 requests a B200 in
                   npusim's cache (55,933 blocks of 16), where the log shows 41.28 s mean latency
                   x 361.04 completed samples/s = 14,905 requests in flight, 1,863 a GPU. (Read
                   after the S14 predictions had been seen; it makes the Offline rows worse,
                   +6.3% -> +10.1% and +7.5% -> +11.3%.)
  scheduler        the row's engine's default, from its conditions: vLLM before 0.8 (V0: chunked
                   prefill off by default; the AMD MLPerf rows, vLLM 0.4.3) -> --scheduler
                   continuous; jetstream-pytorch (JetStream's orchestrator) -> --scheduler padded:
                   its engine's static shapes, from its code (jetstream-pytorch 7526a90 with
                   JetStream 26872c3, June 2024): `prefill` takes one prompt (reshape(1, -1)) padded
                   by token_utils.pad_tokens to the next of [16, 32, ..., 1024]; `generate` computes
                   every one of batch_size slots (init_decode_state's fixed shapes) and attends over
                   the whole cache with a mask (dense_attention, ragged_mha False by default); the
                   orchestrator fills free slots with prefills before each generate step;
                   TensorRT-LLM (MLPerf NVIDIA/HPE/Dell, perf-overview, NIM: in-flight batching
                   mixes context and generation) -> --scheduler inflight: its default keeps
                   chunked context off ("To enable chunked context, please set the
                   enable_chunked_prefill in LLM API to True", TensorRT-LLM's Long Sequences
                   page); NVIDIA's v4.1 harness never sets it (llm_core.cc: "we can add context
                   chunking policy later if needed"), trtllm-bench leaves it off (its tuning rule,
                   above, sizes max_num_tokens for whole prompts), and NIM states nothing. S14
                   (NVIDIA's v5.0 harness) -> --scheduler chunked, INFERRED: LLMServer's default is
                   False, but the parent config a class inherits from (configs/llama2-70b/
                   __init__.py) was not read; NVIDIA's later config of the same B200 settings sets
                   'enable_chunked_context': True; and GH200's 1536-token budget with up to 2048
                   sequences cannot serve whole prompts at the rate it ran (15 queries/s within
                   TTFT p99 1.1 s; npusim's capacity at MLPerf's limits with whole prompts is 4.6).
                   Budgets: npusim's default 8192 (TensorRT-LLM's max_num_tokens default) where the
                   row's engine settings are not read. No row states its token budget.
  harness          (MLPerf rows) the submitter's harness settings, read from its code in
                   mlcommons/inference_results_v4.1 at 198fc46 (HARNESS below). NVIDIA's harness (S1,
                   and HPE's and Dell's TensorRT-LLM rows, whose configs/llama2-70b/__init__.py
                   copies set the same): GPUBaseConfig.max_num_tokens = 4096 ->
                   --max-num-batched-tokens 4096 (and the KV size, below); LoadGen's queries go to
                   the replica with the fewest in flight (main_llm.cc's --traffic_distribution_policy
                   defaults to 2, loadBalancing: llm_server.cc getLeastBusyIdx, queued and running
                   counted until the answer ends; no config passes the flag, and the runs' logs say
                   requested_server_num_issue_query_threads 0, so LoadGen's own issue threads do not
                   bypass it) -> --router least-outstanding. (Read after the rows' other rules; it
                   made their latencies worse, below.) The harness launches every kernel itself:
                   GPUBaseConfig.use_graphs = False, and main_llm.cc's --use_graphs defaults to false
                   ("TODO: enable cuda graph") -> --set graph_capture=none (a kernel shorter than
                   kernel_launch_ns waits for its launch, decode steps too). AMD's vLLM
                   0.4.3 harness (S4, and Dell's I9, which runs the same test_VllmFp8 scripts):
                   Offline, test_VllmFp8_Offline_perf.sh --gpu-memory-utilization 0.99 and
                   mainVllmFp8_Offline.py's DefaultEngineInput max_num_batched_tokens 65536, and
                   the script's VLLM_SCHED_PREFILL_KVC_FREEPCT=31.0 (AMD's vLLM fork,
                   ROCm/vllm vllm/core/scheduler.py _schedule_prefills at 0f579c2: new prompts are
                   scheduled only while more than 31% of the KV blocks are free) ->
                   and test_VllmFp8_Offline_perf.sh's --enforce-eager True (no HIP graphs) ->
                   --kv-reserve 0.01 --max-num-batched-tokens 65536 --admit-kv-free 0.31
                   --set graph_capture=none; Server
                   (no such variable),
                   mainVllmFp8_SyncServer.py's defaults (max_num_batched_tokens 49152,
                   gpu_memory_utilization 0.97) and test_VllmFp8_SyncServer_perf.sh's
                   --enable-batcher with the defaults --batcher-threshold 0.3 and --gpu-batch-size
                   96 (sync_sut.py batch_samples_loop: LoadGen's queries are held and sent to one
                   GPU together) -> --max-num-batched-tokens 49152 --kv-reserve 0.03
                   --batcher-wait 0.3 --batcher-size 96 (its enforce_eager stays False: graphs in
                   decode, npusim's default). Not mapped: the Offline harness sorts the prompts by
                   length (descending).
                   NVIDIA's MLPerf v5.0 rows (S14) ran a new Python harness ("PySUT"). Its server
                   class, LLMServer (NVIDIA, 2025; read as the code search's store holds it, its
                   repository path not resolved), sets the TensorRT-LLM runtime flags a config
                   leaves out: batch_scheduler_policy max_util, kvcache_free_gpu_mem_frac 0.80,
                   enable_chunked_context False; asserts use_graphs False ("LLMHarness does not
                   support use_graphs"); and sends each query to the core with the fewest pending
                   samples in Server ("load_balancing"), round-robin in Offline. Their config
                   (configs/llama2-70b/Offline/__init__.py at 6069beb; the Server rows, I135,
                   I136 and L33-L35, the Server config as Broadcom_Supermicro's submission copies
                   it, NVIDIA's folder holding none) gives max_num_tokens -> --max-num-batched-
                   tokens as the conditions state it ("max_num_tokens N"), the KV size (below)
                   and the in-flight cap; the harness's code -> --set graph_capture=none, in
                   Server --router least-outstanding, and max-utilization ("capacity" above).
                   Its enable_chunked_context default (False) is not taken: "scheduler" above.
  KV size          (TensorRT-LLM rows whose settings are read: S5d and the MLPerf TensorRT-LLM
                   rows) --kv-free-fraction F, TensorRT-LLM's own sizing: the cache takes F of the
                   memory the weights and activations leave. F = kv_cache_free_gpu_mem_fraction:
                   trtllm-bench's default 0.90 (the same 0.90 its batch rule above assumes); the
                   MLPerf configs' kvcache_free_gpu_mem_frac, 0.90 in NVIDIA's and Dell's
                   Offline/Server base configs, HPE's XD670 0.95 (Offline) and 0.97 (Server), as the
                   row's conditions state it (0.90 when they do not; 0.80, LLMServer's default,
                   for NVIDIA's v5.0 harness). The other rows keep npusim's
                   default (--kv-reserve 0.1, vLLM's 0.9 utilisation) or the harness's (AMD).
  vllm serve       (S13) the `vllm serve` flags the row quotes, as npusim's options of the same
                   meaning: --max-num-batched-tokens and --max-num-seqs as they are,
                   --gpu-memory-utilization F -> --kv-reserve 1-F, --max-model-len L -> --max-context L,
                   --async-scheduling as it is (added with npusim's option, after these rows had
                   been seen; --variant sync leaves it out).
  lengths          fixed:IN:OUT when input_len/output_len are given (S5d, S6), with --max-context
                   IN+OUT. Otherwise the dataset the conditions name, as
                   lognormal:IN_MEAN:IN_CV:OUT_MEAN:OUT_CV with --max-context = the deployment's
                   context (MLPerf llama2-70b: inputs <=1024 and outputs <=1024, so 2048;
                   jetstream-pytorch: cache length 2048):
     * MLPerf llama2-70b, OpenOrca (24,576 samples, Llama-2 tokenizer, inputs <=1024):
         IN_MEAN 218.1 = 217,011 input tokens / 995 requests, the sample output of JetStream's
           benchmark_serving.py --dataset openorca in AI-Hypercomputer/tpu-recipes
           inference/v5e/JetStream-Maxtext/Llama2-7B/README.md (commit 5ba55c8a). That loader reads
           MLPerf's open_orca_gpt4_tokenized_llama.calibration_1000.pkl (the MLPerf calibration
           split, processed by the same processorca.py pipeline as the 24,576-sample performance
           set, Llama-2 tokenizer): a proxy for the performance set's mean, which no source read
           states (inference-sources.md: "the OpenOrca input-length mean is not stated").
         OUT_MEAN: the row's own mean, tokens/s over samples/s of its MLPerf log (conditions:
           "output: mean N tokens/sample" for Offline, "output mean ~N tokens/sample" for Server;
           290-294; MLCommons' reference gives 294.45 tokens/sample, language/llama2-70b/README.md).
     * jetstream-pytorch, ShareGPT (ShareGPT_V3 first turns, JetStream's filter, 2000 prompts):
         llama3-8b rows: IN_MEAN 120.7 = 214,914 / 1780, OUT_MEAN 233.4 = 415,416 / 1780 (Llama-3
           tokenizer); llama2-7b/13b rows: IN_MEAN 125.0 = 12,503 / 100, OUT_MEAN 301.8 = 30,175 /
           100 (Llama-2 tokenizer): the "Total input tokens" / "Total generated tokens" /
           "Successful requests" JetStream's benchmark_serving.py printed for ShareGPT runs in
           AI-Hypercomputer/JetStream pull request #83 (2024-05-17, "Update benchmark script to
           easily test llama-3": "Tested on llama3 and llama2"), the harness S7 used.
         gemma-7b rows: no published ShareGPT statistics with Gemma's tokenizer -> skipped.
     * CVs: no source gives a spread for either set, so both use the only CVs the project has
         for a chat set, ShareGPT-8k's (input 0.89, output 0.61; bench/public/serving-workloads.md
         and docs/serving.md `chat`). An ASSUMPTION, stated as such.
     * MLPerf gpt-j-6b, CNN/DailyMail (13,368 samples): the rows give the output mean (69) but no
         source we found states the input mean with GPT-J's tokenizer (mlcommons/inference issue
         1384 gives only the 1919-token truncation and counts beyond it) -> skipped.
  scenario         mlperf_offline, offline_max_throughput, offline_burst -> --offline --requests N:
                   MLPerf the samples LoadGen issued in the measured run (queries=N in the
                   conditions: generated_samples_per_query of the run's mlperf_log_detail.txt, e.g.
                   200,640 for NVIDIA's H100 run, which repeats the 24,576-sample set to fill its
                   40-minute min_duration), jetstream 2000
                   (stated), TensorRT-LLM perf-overview 3000 (not stated; our choice, about 12 waves
                   of 256 requests). mlperf_server -> --rate QPS (target_qps from the conditions,
                   Poisson, as LoadGen) with --requests the run's result_query_count (queries=N:
                   196,608 for NVIDIA's H100 Server; a run short of it stops in the ramp, where a
                   near-capacity server's batch is still growing). closed_loop -> --concurrency C with
                   --requests max(100, 20 C) (not stated; genai-perf's request count is not given)
                   and --warmup 2 C: GenAI-Perf, which collected every figure of the NIM performance
                   page (NVIDIA's blog "LLM Performance Benchmarking: Measuring NVIDIA NIM
                   Performance with GenAI-Perf"), "measures the requests that finish in a specified
                   time interval" and repeats its windows until three are stable (perf_analyzer:
                   "the ratio of max / min from the recent 3 measurements is within (stability
                   percentage)%"), so the clients' start, all C prompts at once, is not measured.
                   The first two rounds of every client are left out. vLLM's `vllm bench serve`
                   (S13) counts every one of its --num-prompts N requests, the start too:
                   --concurrency C --requests N, nothing left out. Every closed loop also takes
                   --think-time 0.001: a client's next request cannot reach the engine the instant
                   its last one ends (the response goes to the client, the request comes back and
                   is tokenized), and a loop of equal requests with no such delay runs as a platoon
                   whose arrivals each land exactly at a pass boundary (docs/validation.md, "The NIM
                   closed loop's short TTFT"). 1 ms is the least such trip, an assumption; the NIM
                   rows' TTFT moves under 2% between 1 and 5 ms. Added after the rows had been seen.
  metric           throughput_tokens_per_s -> output_tokens_per_s (every source counts generated
                   tokens only: LoadGen's tokens/s, trtllm-bench "Total Output Throughput",
                   NIM's output throughput (assumed by the gatherer), JetStream's output token
                   throughput). ttft_ms / tpot_ms -> the statistic the row names: MLPerf Server rows
                   I15-I24 are LoadGen's MEAN first-token latency and MEAN time per output token,
                   L1-L12 the same logs' p50 and p99 first-token latency and p50 time per output
                   token, L13-L32 all five from HPE's and Dell's Server logs, NIM rows are mean TTFT and mean ITL
                   (= TPOT, (e2e - TTFT)/(out - 1) per request): summary ttft_ms.mean, tpot_ms.mean.
  seed             npusim's default (1).

Then each MLPerf Server run once more with --find-rate --slo at MLPerf's limits (from the
conditions: TTFT p99 2 s, TPOT p99 200 ms) in place of --rate: npusim's capacity at those limits
against the scheduled rate the submitter ran, which it tuned to pass them (a table of its own, not
rows of the validation: the measured rate is at most the capacity, not a measurement of it).
And each MLPerf Server system at 0.95 and 1.05 of its scheduled rate (a diagnostic table: how far
its p50 latencies move for a 5% capacity error near the knee).

The held-out rows of the 2025-2026 model families (--csv bench/public/new-families-serving.csv; sources
S15-S17 in bench/public/new-families.md) add, fixed before any of them was run:
  model            a path ending in .json is a Hugging Face config.json, run as npusim reads it.
  SGLang           (engine=SGLang) -> --scheduler continuous: SGLang's server_args default
                   enable_mixed_chunk to false, so a prefill batch runs apart from the decodes, ahead
                   of them, as npusim's continuous scheduler runs it; its chunked prefill only splits
                   prompts longer than chunked_prefill_size (8192 or more), which none of these rows
                   has. (First mapped to chunked; corrected after the first run, from the server_args
                   default, which the rule had not read.)
  vLLM V1 on GPUs  engine=vLLM 0.10 or later on an H100-class chip (70 GiB or more, not an A100), no
                   --max-num-seqs quoted -> --max-num-seqs 1024 --max-num-batched-tokens 8192:
                   vllm/engine/arg_utils.py get_batch_defaults for the OpenAI API server.
  closed loops     sglang.bench_serving --num-prompts N counts every request, as vllm bench serve.
  open_rate        request_rate=R and requests=N in the conditions -> --rate R --requests N; the
                   client's cap on outstanding requests (the concurrency column: guidellm's 512) as
                   --max-num-seqs, below the engine's.
  offline_burst    every prompt sent at once (no rate, no cap) -> --offline --requests N.
  metric           total_tokens_per_s -> input_tokens_per_s + output_tokens_per_s.
  SGLang random    (the newest-models rows, bench/public/newest-models-serving.csv) a run of
                   sglang.bench_serving --dataset-name random at its default --random-range-ratio 0
                   ("random lengths uniform 1..I in, 1..O out") draws each length uniformly from 1 to
                   the nominal length (bench_serving.py sample_random_requests), which the runs' token
                   totals confirm (means 513 and 511 of 1024) -> uniform:1:I:1:O. The rows of ten
                   requests at concurrency 1 keep their totals' means as fixed lengths. (First run with
                   fixed means throughout: a closed loop of 100 clients with equal lengths runs in
                   lockstep, a burst of 100 prompts every round, which uniform draws never make; the
                   rule was corrected from the tool's sampler, not from the errors' sizes.)
  ShareGPT totals  a run that states its ShareGPT token totals ("ShareGPT totals: input I, generated O
                   over R requests") -> lognormal at its own means I/R and O/R with ShareGPT-8k's CVs
                   (the assumption above) and --max-context 2048: the benchmark_serving lineage's
                   sample_sharegpt_requests (vLLM's and SGLang's) drops prompts over 1024 tokens and
                   pairs over 2048.

A row npusim refuses (exit status 2, e.g. the model does not fit the memory) is listed as skipped
with npusim's message. Runs go two at a time; rows sharing a command run it once.
"""

import concurrent.futures
import csv
import json
import os
import re
import statistics
import subprocess
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
CSV_DEFAULT = os.path.join(HERE, "public", "inference-serving.csv")

# Dataset length statistics (see the header comment for the sources).
CV_IN, CV_OUT = 0.89, 0.61          # ASSUMED: ShareGPT-8k's CVs (serving-workloads.md)
OPENORCA_IN_MEAN = 217011 / 995     # tpu-recipes JetStream openorca sample output: 218.1
OPENORCA_CONTEXT = 2048             # MLPerf llama2-70b: input <=1024, output <=1024
SHAREGPT = {                        # JetStream PR #83 sample outputs (tokenizer of the model)
    "llama3-8b": (214914 / 1780, 415416 / 1780),
    "llama2-7b": (12503 / 100, 30175 / 100),
    "llama2-13b": (12503 / 100, 30175 / 100),
}
JETSTREAM_CONTEXT = 2048            # jetstream-pytorch cache length
SHAREGPT_SAMPLER_CONTEXT = 2048     # benchmark_serving's sample_sharegpt_requests: no prompt over 1024, no pair over 2048
# Rows whose per-instance cap is the harness default their own conditions name (header comment).
CAP_FROM_NAMED_DEFAULT = {"I4": 806, "I9": 2048}
# The MLPerf submitters' harness settings, read from their code (mlcommons/inference_results_v4.1
# at 198fc46; see "harness" in the header): (engine pattern in the conditions, scenario) -> options.
NVIDIA_HARNESS = r"MLPerf v4\.1 NVIDIA harness|NVIDIA MLPerf v4\.1 harness"   # as NVIDIA, HPE, Dell spell it
NVIDIA_HARNESS_V5 = r"MLPerf v5\.0 NVIDIA harness"    # the Python harness (LLMServer; header)
HARNESS = [
    (NVIDIA_HARNESS, None, ["--max-num-batched-tokens", "4096", "--router", "least-outstanding",
                            "--set", "graph_capture=none"]),
    (NVIDIA_HARNESS_V5, None, ["--set", "graph_capture=none"]),
    (NVIDIA_HARNESS_V5, "mlperf_server", ["--router", "least-outstanding"]),
    (r"vLLM 0\.4\.3", "mlperf_offline", ["--max-num-batched-tokens", "65536", "--kv-reserve", "0.01",
                                          "--admit-kv-free", "0.31", "--set", "graph_capture=none"]),
    (r"vLLM 0\.4\.3", "mlperf_server", ["--max-num-batched-tokens", "49152", "--kv-reserve", "0.03",
                                         "--batcher-wait", "0.3", "--batcher-size", "96"]),
]
TRTLLM_REQUESTS = 3000
MLPERF_REQUESTS = 24576
VARIANT = None                      # --variant (diagnostic only)


def read_rows(path):
    with open(path, newline="") as f:
        lines = [l for l in f if not l.startswith("#")]
    return list(csv.DictReader(lines))


def fmt_num(x):
    return ("%.2f" % x).rstrip("0").rstrip(".")


def in_flight_cap(row):
    c = row["conditions"]
    if row["id"] in CAP_FROM_NAMED_DEFAULT:
        return CAP_FROM_NAMED_DEFAULT[row["id"]]
    m = re.search(r"in-flight cap per instance:[^0-9;]*;?[^0-9]*?(\d+)", c)
    if m:
        return int(m.group(1))
    m = re.search(r"server slots \(max in-flight per instance\) (\d+)", c)
    if m:
        return int(m.group(1))
    return None


def metric_stat(row):
    """(summary key, statistic) the row's number corresponds to."""
    m, c = row["metric"], row["conditions"]
    if m == "throughput_tokens_per_s":
        return "output_tokens_per_s", None
    if m == "total_tokens_per_s":
        return "total_tokens_per_s", None   # input_tokens_per_s + output_tokens_per_s (predicted)
    key = {"ttft_ms": "ttft_ms", "tpot_ms": "tpot_ms"}[m]
    if "MEAN" in c or re.search(r"\bmean (TTFT|ITL)\b", c):
        return key, "mean"
    if "ITL (inter-token latency) reported" in c:
        return key, "mean"      # NIM's ITL column: an average per request (assumed, see header)
    for stat, pat in (("p99", r"\bp99 (TTFT|TPOT|first)"), ("p50", r"\b(median|p50) (TTFT|TPOT)")):
        if re.search(pat, c):
            return key, stat
    return key, "mean"


def model_params(binary, configs, model, cache={}):
    """npusim's params_total of a model (one short run, kept)."""
    if model not in cache:
        import tempfile
        with tempfile.TemporaryDirectory() as d:
            subprocess.run([binary, "run", "--configs", configs, "-m", model, "-c", "h100", "--seqlen", "8_1",
                            "--no-energy", "-o", d], capture_output=True, check=True)
            stats = [f for f in os.listdir(d) if f.endswith("_decode.json")]
            cache[model] = json.load(open(os.path.join(d, stats[0])))["params_total"]
    return cache[model]


def trtllm_bench_settings(row, configs, binary):
    """(max_batch_size, max_num_tokens) trtllm-bench picks for a perf-overview row (the rule in
    the header, quoted from tensorrt_llm/bench/build/tuning.py and bench/benchmark/utils/general.py)."""
    import math
    m = json.load(open(os.path.join(configs, "models", row["model"] + ".json")))
    chip = json.load(open(os.path.join(configs, "chips", row["chip"] + ".json")))
    tp, pp = int(row["tp"] or 1), 1
    isl, osl = int(row["input_len"]), int(row["output_len"])
    b_w = {"fp8": 1.0, "fp4": 0.5}.get(row["weight_dtype"], 2.0)
    b_kv = 1.0                                   # the ModelOpt checkpoint's FP8 KV (header)
    kv_heads = m.get("num_kv_heads", m["num_heads"])
    gib_per_token = 2 * m["num_layers"] * max(tp, kv_heads) * m["d_head"] * b_kv / 1024 ** 3
    engine = model_params(binary, configs, row["model"]) * b_w / 1024 ** 3
    cache = (chip["hbm_size_GB"] * tp * pp - engine) * 0.90
    requests = cache / (gib_per_token * (isl + osl))
    raw_bs = min(requests, 4096) / pp
    raw_tok = min(raw_bs * (1 + isl / osl), 32768)
    if raw_bs < 256:
        bs = max(64, 32 * math.ceil(raw_bs / 32))
    elif raw_bs < 1024:
        bs = 128 * math.ceil(raw_bs / 128)
    else:
        bs = 256 * math.ceil(raw_bs / 256)
    if raw_tok < 4096:
        tok = max(2048, 256 * math.ceil(raw_tok / 256))
    elif raw_tok < 8192:
        tok = 512 * math.ceil(raw_tok / 512)
    else:
        tok = 1024 * math.ceil(raw_tok / 1024)
    return bs, max(tok, isl + bs)


def trtllm_kv_fraction(row):
    """TensorRT-LLM's kv_cache_free_gpu_mem_fraction for the rows whose settings are read (header,
    "KV size"), as text; None for the others (npusim's default sizing)."""
    if is_trtllm_bench(row):
        return "0.9"
    if VARIANT != "no-harness" and re.search(NVIDIA_HARNESS + "|" + NVIDIA_HARNESS_V5, row["conditions"]):
        m = re.search(r"kvcache_free_gpu_mem_frac (0\.\d+)", row["conditions"])
        return m.group(1) if m else "0.8" if is_nvidia_v5(row) else "0.9"
    return None


def is_trtllm_bench(row):
    return row["source"].startswith("S5d")


def is_nim(row):
    return row["source"].startswith("S6")


def is_nvidia_v5(row):
    return re.search(NVIDIA_HARNESS_V5, row["conditions"]) is not None


def lengths(row):
    """(--lengths spec, --max-context) or raise Skip."""
    cv_in, cv_out = (0, 0) if VARIANT == "fixed-means" else (CV_IN, CV_OUT)
    if row["input_len"] and row["output_len"]:
        i, o = int(row["input_len"]), int(row["output_len"])
        return "fixed:%d:%d" % (i, o), i + o
    c, model = row["conditions"], row["model"]
    if "OpenOrca" in c:
        m = re.search(r"output:? mean ~?(\d+) tokens/sample", c)
        if not m:
            raise Skip("OpenOrca row without its output mean in the conditions")
        return ("lognormal:%s:%s:%s:%s" % (fmt_num(OPENORCA_IN_MEAN), cv_in, m.group(1), cv_out),
                OPENORCA_CONTEXT)
    if "CNN-DailyMail" in c or "CNN/DailyMail" in c:
        raise Skip("CNN/DailyMail: no citable input-length mean for MLPerf's set with GPT-J's "
                   "tokenizer (only the output mean, 69, and the 1919-token cut are published)")
    m = re.search(r"ShareGPT totals: input (\d+), generated (\d+) over (\d+) requests", c)
    if m:   # the run's own means, ShareGPT-8k's CVs; the sampler's 1024 / 2048-token cut (header)
        n = int(m.group(3))
        return ("lognormal:%s:%s:%s:%s" % (fmt_num(int(m.group(1)) / n), cv_in, fmt_num(int(m.group(2)) / n), cv_out),
                SHAREGPT_SAMPLER_CONTEXT)
    if "ShareGPT" in c:
        if model not in SHAREGPT:
            raise Skip("ShareGPT with %s's tokenizer: no published length statistics "
                       "(JetStream PR #83 gives Llama-2 and Llama-3 runs only)" % model)
        i, o = SHAREGPT[model]
        return ("lognormal:%s:%s:%s:%s" % (fmt_num(i), cv_in, fmt_num(o), cv_out),
                JETSTREAM_CONTEXT)
    m = re.search(r"random lengths uniform 1\.\.(\d+) in, 1\.\.(\d+) out", c)
    if m:   # sglang.bench_serving's random dataset at its default range ratio 0 (header)
        i, o = int(m.group(1)), int(m.group(2))
        return "uniform:1:%d:1:%d" % (i, o), i + o
    raise Skip("no dataset named and no fixed lengths")


class Skip(Exception):
    pass


def mlperf_queries(row):
    """The samples LoadGen issued in the measured run (queries=N in the conditions, read from its
    mlperf_log_detail.txt), else the dataset's 24,576 (--variant dataset-count: always)."""
    m = re.search(r"\bqueries=(\d+)", row["conditions"])
    return int(m.group(1)) if m and VARIANT != "dataset-count" else MLPERF_REQUESTS


def build_args(row, configs, binary):
    """The npusim serving arguments (without the binary) or raise Skip."""
    for kind, name in (("chips", row["chip"]), ("models", row["model"])):
        if kind == "models" and name.endswith(".json"):   # a Hugging Face config.json, run as read
            if not os.path.exists(name):
                raise Skip("no file %s" % name)
        elif not os.path.exists(os.path.join(configs, kind, name + ".json")):
            raise Skip("no config %s/%s.json" % (kind, name))
    if row["pp"] not in ("", "1"):
        raise Skip("pipeline parallelism %s not mapped" % row["pp"])
    args = ["serving", "--configs", configs, "-m", row["model"], "-c", row["chip"],
            "--tp", row["tp"] or "1"]
    dp = int(row["dp"] or 1)
    if dp > 1:
        args += ["--replicas", str(dp)]
    for f in ("weight_dtype", "activation_dtype", "kv_cache_dtype"):
        if row[f]:
            args += ["--set", "%s=%s" % (f, row[f])]
    if is_nim(row) and not row["kv_cache_dtype"] and VARIANT != "bf16-kv":
        args += ["--set", "kv_cache_dtype=fp8"]   # inferred from the page's saturated rows (header)
    if is_trtllm_bench(row) and not row["kv_cache_dtype"]:
        args += ["--set", "kv_cache_dtype=fp8"]   # the checkpoint's KV format (header)
    for s in filter(None, row["sets"].split(";")):
        args += ["--set", s.strip()]
    spec, ctx = lengths(row)
    sc = row["scenario"]
    if sc in ("mlperf_offline", "offline_max_throughput", "offline_burst"):
        if sc == "mlperf_offline":
            n = mlperf_queries(row)
        elif sc == "offline_burst":
            n = int(row["concurrency"] or 2000)
        else:
            n = TRTLLM_REQUESTS
        args += ["--offline", "--requests", str(n)]
    elif sc == "mlperf_server":
        m = re.search(r"target_qps=([0-9.]+)", row["conditions"])
        if not m:
            raise Skip("mlperf_server row without target_qps")
        args += ["--rate", m.group(1), "--requests", str(mlperf_queries(row))]
    elif sc == "closed_loop":
        c = int(row["concurrency"])
        m = re.search(r"(?:vllm bench serve|sglang\.bench_serving)[^;]*--num-prompts (\d+)", row["conditions"])
        if m:   # vllm bench serve and sglang.bench_serving count every request, the clients' start among them
            args += ["--concurrency", str(c), "--requests", m.group(1)]
        else:
            args += ["--concurrency", str(c), "--requests", str(max(100, 20 * c)), "--warmup", str(2 * c)]
    elif sc == "open_rate":   # requests at a stated rate, a client cap on those outstanding (header)
        m, n = re.search(r"request_rate=([0-9.]+)", row["conditions"]), re.search(r"requests=(\d+)", row["conditions"])
        if not m or not n:
            raise Skip("open_rate row without request_rate= and requests= in its conditions")
        args += ["--rate", m.group(1), "--requests", n.group(1)]
    else:
        raise Skip("scenario %s not mapped" % sc)
    args += ["--lengths", spec, "--max-context", str(ctx)]
    if sc == "closed_loop" and VARIANT != "no-think":   # (header: a client's next request takes a trip)
        args += ["--think-time", "0.001"]
    cap = in_flight_cap(row)
    if cap is None and vllm_gpu_defaults(row):   # vLLM's own defaults on an H100-class GPU (header)
        cap = 1024
        args += ["--max-num-batched-tokens", "8192"]
    if sc == "open_rate" and row["concurrency"]:   # the client's cap, below the engine's
        cap = min(cap or 256, int(row["concurrency"]))
    if is_trtllm_bench(row):
        cap, tokens = trtllm_bench_settings(row, configs, binary)
        args += ["--max-num-batched-tokens", str(tokens)]
    if cap:
        args += ["--max-num-seqs", str(cap)]
    args += vllm_serve_flags(row)
    if VARIANT != "no-harness":
        for pattern, scenario, opts in HARNESS:
            if re.search(pattern, row["conditions"]) and scenario in (None, sc):
                args += opts
        if is_nvidia_v5(row):
            args += ["--max-num-batched-tokens", re.search(r"max_num_tokens (\d+)", row["conditions"]).group(1)]
    frac = trtllm_kv_fraction(row)
    if frac:
        args += ["--kv-free-fraction", frac]
    if (is_trtllm_bench(row) or is_nim(row)) and VARIANT != "max-utilization":
        args += ["--capacity-policy", "guaranteed-no-evict"]   # TensorRT-LLM's default (header)
    args += ["--scheduler", VARIANT if VARIANT in ("continuous", "chunked") else scheduler(row)]
    args += ["--json"]
    return args


def vllm_serve_flags(row):
    """The `vllm serve` flags a row's conditions quote ("vllm serve flags: --max-num-seqs 256 ..."),
    as npusim's options of the same meaning (see "vllm serve" in the header); the later --max-context
    wins over the one the lengths gave."""
    m = re.search(r"vllm serve flags: ([^;]*)", row["conditions"])
    if not m:
        return []
    words, out = m.group(1).replace("=", " ").split(), []
    for i, w in enumerate(words[:-1]):
        v = words[i + 1]
        if w in ("--max-num-batched-tokens", "--max-num-seqs"):
            out += [w, v]
        elif w == "--gpu-memory-utilization":
            out += ["--kv-reserve", fmt_num(1 - float(v))]
        elif w == "--max-model-len":
            out += ["--max-context", v]
    if "--async-scheduling" in words and VARIANT != "sync":
        out.append("--async-scheduling")
    return out


def vllm_gpu_defaults(row):
    """A vLLM V1 server (0.10 and later) on a GPU of 70 GiB or more that is not an A100, with no
    --max-num-seqs quoted: its get_batch_defaults give 1024 sequences and 8192 tokens a pass."""
    m = re.search(r"engine=vLLM (\d+)\.(\d+)", row["conditions"])
    return (m is not None and (int(m.group(1)), int(m.group(2))) >= (0, 10) and
            row["chip"] in ("h100", "h200", "gh200", "b200", "gb200", "mi300x", "mi325x") and
            "--max-num-seqs" not in row["conditions"])


def scheduler(row):
    """The row's engine's default scheduling (see the header)."""
    c = row["conditions"]
    if "engine=SGLang" in c:
        return "continuous"     # SGLang: prefill batches apart from the decodes (enable_mixed_chunk false; header)
    m = re.search(r"engine=vLLM (\d+)\.(\d+)", c)
    if m:
        return "continuous" if (int(m.group(1)), int(m.group(2))) < (0, 8) else "chunked"
    if "jetstream" in c.lower():
        return "padded"
    if is_nvidia_v5(row):
        return "chunked"        # chunked context on, inferred (header, "scheduler")
    if "TensorRT-LLM" in c or "NIM" in c:
        return "inflight"       # TensorRT-LLM's default: chunked context off
    raise Skip("the engine's scheduling is not stated")


def run(binary, args):
    try:
        p = subprocess.run([binary] + args, capture_output=True, text=True, timeout=300)
    except subprocess.TimeoutExpired:
        return None, "timed out after 300 s"
    if p.returncode != 0:
        msg = (p.stderr.strip() or p.stdout.strip()).splitlines()
        return None, "exit %d: %s" % (p.returncode, " ".join(msg)[:300])
    try:
        return json.loads(p.stdout), None
    except ValueError as e:
        return None, "unreadable JSON: %s" % e


def key_options(args):
    out, skip = [], {"serving", "--json"}
    i = 0
    while i < len(args):
        a = args[i]
        if a == "--configs":
            i += 2
            continue
        if a not in skip:
            out.append(a)
        i += 1
    return " ".join(out)


def fmt_val(x):
    return "%.0f" % x if abs(x) >= 1000 else "%.1f" % x if abs(x) >= 10 else "%.2f" % x


def mape(errs):
    return sum(abs(e) for e in errs) / len(errs) if errs else float("nan")


def median_ape(errs):
    """The median absolute error: the typical row, where one row near a capacity cliff (an error
    of hundreds of percent) can carry the mean."""
    return statistics.median(abs(e) for e in errs) if errs else float("nan")


def server_limits(row):
    """MLPerf's latency limits stated in the conditions, as an --slo value."""
    m = re.search(r"limits TTFT<=([0-9.]+) s, TPOT<=([0-9.]+) ms \(p99\)", row["conditions"])
    if not m:
        return None
    return "ttft_p99_ms=%g,tpot_p99_ms=%g" % (float(m.group(1)) * 1e3, float(m.group(2)))


def capacity_table(plan, binary, jobs):
    """Each MLPerf Server run once more, at the highest Poisson rate that meets its latency limits
    (--find-rate), against the rate the submitter ran: a Server run is tuned to sit just under
    those limits, so its scheduled QPS is close to (at most) the system's capacity at them."""
    runs = {}
    for r, args in plan:
        slo = server_limits(r)
        if r["scenario"] != "mlperf_server" or slo is None:
            continue
        i = args.index("--rate")
        cmd = tuple(args[:i] + args[i + 2:] + ["--find-rate", "--slo", slo])
        runs.setdefault((cmd, r["source"], args[i + 1]), [[], float(args[i + 1]), r])[0].append(r["id"])
    with concurrent.futures.ThreadPoolExecutor(max_workers=jobs) as ex:
        once = {}                       # systems run alike (same settings) share one search
        futs = {k: once.setdefault(k[0], ex.submit(run, binary, list(k[0]))) for k in runs}
    print("\n### MLPerf Server capacity at its latency limits\n")
    print("Each Server run of the rows above, with `--find-rate --slo ttft_p99_ms=2000,tpot_p99_ms=200` "
          "(MLPerf's limits) in place of `--rate`: npusim's highest Poisson rate that meets them, against the "
          "scheduled rate the submitter ran (tuned to pass them, so at most the capacity).\n")
    print("| rows | source | chip | tp x replicas | scheduled QPS | npusim capacity (req/s) | error |")
    print("|---|---|---|---|---|---|---|")
    errs = []
    for k, (ids, qps, r) in sorted(runs.items(), key=lambda kv: kv[1][0][0]):
        summary, err = futs[k].result()
        fr = summary.get("find_rate") if summary else None
        if not fr or not fr.get("found"):
            print("| %s | %s | %s | %s x %s | %g | %s | - |" % (", ".join(ids), r["source"], r["chip"], r["tp"],
                                                               r["dp"] or 1, qps, err or "not found"))
            continue
        e = 100.0 * (fr["max_rate_rps"] - qps) / qps
        errs.append(e)
        print("| %s | %s | %s | %s x %s | %g | %.1f | %+.1f%% |" % (", ".join(ids), r["source"], r["chip"], r["tp"],
                                                                   r["dp"] or 1, qps, fr["max_rate_rps"], e))
    print("\nMAPE %.1f%% over %d runs; signed mean %+.1f%%." % (mape(errs), len(errs),
                                                              sum(errs) / len(errs) if errs else float("nan")))


KNEE_SCALES = (0.95, 1.0, 1.05)


def knee_table(plan, results, binary, jobs):
    """Each MLPerf Server run at 0.95 and 1.05 of its scheduled rate beside the rate itself: how far
    TTFT p50 and TPOT p50 move for a 5% error in the rate a system sustains. A diagnostic, not
    validation: a Server run is scheduled just under its limits, where the latencies grow steeply
    with the load, so a capacity error of a few percent is a latency error of tens."""
    systems = {}
    for r, args in plan:
        if r["scenario"] != "mlperf_server" or r["metric"] not in ("ttft_ms", "tpot_ms"):
            continue
        s = systems.setdefault(tuple(args), {"ids": [], "row": r, "meas": {}})
        s["ids"].append(r["id"])
        key, stat = metric_stat(r)
        if stat == "p50":
            s["meas"][key] = float(r["measured"])
    cmds = {}
    for args, s in systems.items():
        i = list(args).index("--rate")
        for f in KNEE_SCALES:
            if f != 1.0:
                a = list(args)
                a[i + 1] = "%.6g" % (float(args[i + 1]) * f)
                cmds[(args, f)] = tuple(a)
    with concurrent.futures.ThreadPoolExecutor(max_workers=jobs) as ex:
        futs = {k: ex.submit(run, binary, list(c)) for k, c in cmds.items()}
    print("\n### Latency near the knee: MLPerf Server runs at 0.95 and 1.05 of their rate (diagnostic)\n")
    print("Each Server system of the rows above run again at 0.95 and 1.05 times its scheduled rate, the "
          "rest as mapped: npusim's p50 TTFT and TPOT at the three rates against the measured p50. Not part "
          "of the validation (the measured runs are at 1.00); it shows how much a few percent of capacity "
          "moves the latency there.\n")
    print("| rows | chip | tp x replicas | QPS | TTFT p50 measured | npusim at 0.95 / 1.00 / 1.05 | "
          "TPOT p50 measured | npusim at 0.95 / 1.00 / 1.05 |")
    print("|---|---|---|---|---|---|---|---|")
    for args, s in sorted(systems.items(), key=lambda kv: kv[1]["ids"][0]):
        if "ttft_ms" not in s["meas"] or "tpot_ms" not in s["meas"]:
            continue
        out = {}
        for f in KNEE_SCALES:
            summary, _ = results[args] if f == 1.0 else futs[(args, f)].result()
            out[f] = summary
        cell = lambda k: " / ".join("-" if out[f] is None else "%.0f" % out[f][k]["p50"] for f in KNEE_SCALES)
        r = s["row"]
        i = list(args).index("--rate")
        print("| %s | %s | %s x %s | %s | %.0f | %s | %.0f | %s |" % (
            ", ".join(s["ids"]), r["chip"], r["tp"], r["dp"] or 1, args[i + 1], s["meas"]["ttft_ms"],
            cell("ttft_ms"), s["meas"]["tpot_ms"], cell("tpot_ms")))


def main(argv):
    global VARIANT
    binary, configs, csv_path, jobs = "build/npusim", "configs", CSV_DEFAULT, 2
    i = 0
    while i < len(argv):
        a = argv[i]
        if a in ("-h", "--help"):
            print(__doc__)
            return 0
        if a == "--configs":
            configs, i = argv[i + 1], i + 2
        elif a == "--csv":
            csv_path, i = argv[i + 1], i + 2
        elif a == "--jobs":
            jobs, i = int(argv[i + 1]), i + 2
        elif a == "--variant":
            VARIANT, i = argv[i + 1], i + 2
            if VARIANT not in ("fixed-means", "continuous", "chunked", "bf16-kv", "no-harness", "dataset-count",
                               "max-utilization", "no-think", "sync"):
                print("serving-validation: --variant takes fixed-means, continuous, chunked, bf16-kv, no-harness, "
                      "dataset-count, max-utilization, no-think or sync",
                      file=sys.stderr)
                return 1
        else:
            binary, i = a, i + 1
    if not os.access(binary, os.X_OK):
        print("serving-validation: %s is not an executable (build it: make -s)" % binary,
              file=sys.stderr)
        return 1

    rows = read_rows(csv_path)
    plan, skipped = [], []
    for r in rows:
        try:
            plan.append((r, build_args(r, configs, binary)))
        except Skip as e:
            skipped.append((r, str(e)))

    commands = sorted({tuple(a) for _, a in plan})
    results = {}
    with concurrent.futures.ThreadPoolExecutor(max_workers=jobs) as ex:
        futs = {ex.submit(run, binary, list(c)): c for c in commands}
        for f in concurrent.futures.as_completed(futs):
            results[futs[f]] = f.result()

    table, errs_metric, errs_source, within, errs_stat = [], {}, {}, {}, {}
    goal = {"throughput_tokens_per_s": 10.0, "total_tokens_per_s": 10.0, "ttft_ms": 20.0, "tpot_ms": 20.0}
    for r, args in plan:
        summary, err = results[tuple(args)]
        if summary is None:
            skipped.append((r, "npusim refused it: " + err))
            continue
        key, stat = metric_stat(r)
        pred = (summary["input_tokens_per_s"] + summary["output_tokens_per_s"] if key == "total_tokens_per_s"
                else summary[key] if stat is None else summary[key][stat])
        meas = float(r["measured"])
        e = 100.0 * (pred - meas) / meas
        table.append((r, key if stat is None else "%s.%s" % (key, stat), pred, e, key_options(args), summary))
        errs_metric.setdefault(r["metric"], []).append(e)
        if stat is not None:
            errs_stat.setdefault((r["metric"], stat), []).append(e)
        errs_source.setdefault(r["source"], []).append(e)
        within.setdefault(r["metric"], [0, 0])
        within[r["metric"]][1] += 1
        if abs(e) <= goal[r["metric"]]:
            within[r["metric"]][0] += 1

    order = {r["id"]: k for k, r in enumerate(rows)}
    table.sort(key=lambda t: order[t[0]["id"]])
    if VARIANT:
        print("**DIAGNOSTIC VARIANT `%s`: not the validation mapping (see --help).**\n" % VARIANT)
    print("### Rows compared (%d)\n" % len(table))
    print("| id | source | chip | model | tp | replicas | scenario | metric (summary key) | "
          "measured | predicted | error | npusim serving key options |")
    print("|---|---|---|---|---|---|---|---|---|---|---|---|")
    for r, k, pred, e, opts, _ in table:
        print("| %s | %s | %s | %s | %s | %s | %s | %s | %s | %s | %+.1f%% | `%s` |" % (
            r["id"], r["source"], r["chip"], r["model"], r["tp"], r["dp"] or 1, r["scenario"],
            k, r["measured"], fmt_val(pred), e, opts))
    print("\nPer run (rows sharing a command listed together): the realised mean lengths (input / "
          "output tokens per measured request), preemptions, rejections, and whether npusim puts the "
          "rate above what the replicas serve (summary `above_capacity`: the requests in the system "
          "grew over the run, so its latencies grow with the run's length):\n")
    print("| rows | mean input | mean output | preemptions | rejected | above capacity |")
    print("|---|---|---|---|---|---|")
    runs = {}
    for r, _, _, _, opts, summary in table:
        runs.setdefault(opts, ([], summary))[0].append(r["id"])
    for ids, sm in runs.values():
        # per measured request: the token rates and the request rate share one window (the warm-up left out)
        rps = sm["request_throughput_rps"] or 1
        print("| %s | %.1f | %.1f | %d | %d | %s |" % (", ".join(ids), sm["input_tokens_per_s"] / rps,
                                                       sm["output_tokens_per_s"] / rps, sm["preemptions"],
                                                       sm["rejected"], "yes" if sm["above_capacity"] else "no"))

    print("\n### MAPE per metric\n")
    print("| metric | rows | MAPE | median APE | within goal | goal |")
    print("|---|---|---|---|---|---|")
    names = {"throughput_tokens_per_s": "throughput", "total_tokens_per_s": "total throughput", "ttft_ms": "TTFT",
             "tpot_ms": "TPOT"}
    allerr = []
    for m in ("throughput_tokens_per_s", "total_tokens_per_s", "ttft_ms", "tpot_ms"):
        es = errs_metric.get(m, [])
        if not es and m == "total_tokens_per_s":
            continue        # only some files have them
        allerr += es
        w = within.get(m, [0, 0])
        print("| %s | %d | %.1f%% | %.1f%% | %d of %d | +-%g%% |" % (names[m], len(es), mape(es), median_ape(es),
                                                                  w[0], w[1], goal[m]))
    print("| all | %d | %.1f%% | %.1f%% | | |" % (len(allerr), mape(allerr), median_ape(allerr)))

    print("\n### Latency rows by statistic (the goal names TTFT p50 and p99 and TPOT p50)\n")
    print("| metric | statistic | rows | MAPE | median APE | within +-20% |")
    print("|---|---|---|---|---|---|")
    for (m, st) in sorted(errs_stat, key=lambda k: (k[0] != "ttft_ms", ["p50", "p99", "mean"].index(k[1]))):
        es = errs_stat[(m, st)]
        print("| %s | %s | %d | %.1f%% | %.1f%% | %d of %d |" % (names[m], st, len(es), mape(es), median_ape(es),
                                                              sum(abs(e) <= goal[m] for e in es), len(es)))

    print("\n### MAPE per source (every source out of sample)\n")
    print("| source | rows | MAPE | signed mean error |")
    print("|---|---|---|---|")
    # S1 .. S13 in number order (S13 after S7, not after S1)
    for s in sorted(errs_source, key=lambda s: (int(re.match(r"S(\d+)", s).group(1)), s)):
        es = errs_source[s]
        print("| %s | %d | %.1f%% | %+.1f%% |" % (s, len(es), mape(es), sum(es) / len(es)))

    if any(r["scenario"] == "mlperf_server" for r, _ in plan):   # files with MLPerf Server runs
        capacity_table(plan, binary, jobs)
        knee_table(plan, results, binary, jobs)

    skipped.sort(key=lambda t: order[t[0]["id"]])
    print("\n### Skipped (%d)\n" % len(skipped))
    print("| id | source | chip | model | metric | reason |")
    print("|---|---|---|---|---|---|")
    for r, why in skipped:
        print("| %s | %s | %s | %s | %s | %s |" % (r["id"], r["source"], r["chip"], r["model"],
                                                   r["metric"], why))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
