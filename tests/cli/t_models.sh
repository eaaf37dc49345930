# Sourced by tests/cli/run.sh: Hugging Face config.json files (study/hf/hf.h;
# tests/samples/hf/, the public configs of those models), read by `npusim run -m` and
# written as npusim's own by `npusim import model`: a Llama 3.1 8B config simulates as
# the shipped llama3-8b; the parameter counts of the mapped models (dense, mixtures of
# experts over any attention, local attention, quantised) match the published ones within
# 1.5%; windows, layer patterns and quantization land in the fields they mean; the ignored
# keys are listed once; what cannot be modelled (encoder-decoders, vision towers, layer
# patterns npusim has no form for, unknown architectures) exits 2 naming the key, writing
# nothing. tests/samples/hf/SOURCES.md says where each file was copied from.
HF="$T/models"
mkdir -p "$HF"
S=tests/samples/hf
check "models: a Hugging Face Llama 3.1 8B config runs as the shipped llama3-8b (same TTFT and TPOT), its ignored keys listed once" sh -c "
  $NPUSIM run --configs $CONFIGS -m $S/llama-3.1-8b.json -c h100 >'$HF/hf.txt' 2>'$HF/hf.err' &&
  $NPUSIM run --configs $CONFIGS -m llama3-8b -c h100 >'$HF/ship.txt' 2>/dev/null &&
  [ \"\$(sed -n '2,3p' '$HF/hf.txt')\" = \"\$(sed -n '2,3p' '$HF/ship.txt')\" ] &&
  [ \$(grep -c 'keys ignored' '$HF/hf.err') = 1 ] && grep -q 'rope_theta' '$HF/hf.err'"
check "models: an imported mixture of experts (Mixtral 8x7B) runs alike: one ffn_type key, moe" sh -c "
  $NPUSIM import model $S/mixtral-8x7b.json -o '$HF/mx.json' >/dev/null 2>&1 &&
  [ \$(grep -c '\"ffn_type\"' '$HF/mx.json') = 1 ] && grep -q '\"ffn_type\":.*\"moe\"' '$HF/mx.json' &&
  $NPUSIM run --configs $CONFIGS -m '$HF/mx.json' -c h100 --set num_chips=8 >'$HF/mx1.txt' 2>/dev/null &&
  $NPUSIM run --configs $CONFIGS -m $S/mixtral-8x7b.json -c h100 --set num_chips=8 >'$HF/mx2.txt' 2>/dev/null &&
  [ \"\$(sed -n '2,3p' '$HF/mx1.txt')\" = \"\$(sed -n '2,3p' '$HF/mx2.txt')\" ]"
check "models: npusim import model writes npusim's config with its source, which runs alike" sh -c "
  $NPUSIM import model $S/qwen2.5-7b.json -o '$HF/qwen.json' >/dev/null 2>&1 &&
  grep -q '\"source\"' '$HF/qwen.json' && grep -q 'Hugging Face config' '$HF/qwen.json' &&
  $NPUSIM run --configs $CONFIGS -m '$HF/qwen.json' -c h100 >'$HF/q1.txt' 2>/dev/null &&
  $NPUSIM run --configs $CONFIGS -m $S/qwen2.5-7b.json -c h100 >'$HF/q2.txt' 2>/dev/null &&
  [ \"\$(sed -n '2,3p' '$HF/q1.txt')\" = \"\$(sed -n '2,3p' '$HF/q2.txt')\" ]"
# published: Llama 3.1 8B 8.03B, Mistral 7B v0.3 7.25B, Qwen2.5 7B 7.61B, Gemma 2B 2.51B (tied
# embeddings, Transformers' default for Gemma), DeepSeek-V3 671B with 37B active; Mixtral 8x7B
# 46.7B with 12.9B active, 8x22B 141B with 39B, Qwen2-57B-A14B, DBRX 132B with 36B, OLMoE 6.9B
# with 1.3B, Gemma 2 9B 9.24B, Phi-3 medium 14B, Mistral 7B v0.1 7.24B (its window changes no
# parameter), Llama 2 7B 6.74B (GPTQ int4: the count is the model's), DeepSeek-V2-Lite 15.7B with
# 2.4B active (no query compression: q_lora_rank null; DeepSeek counts active parameters without the
# embedding table, npusim with it: 2.66B, within the figure's last digit); the language models of
# three multimodal wrappers: Gemma 3 12B 11.771B (its report's 1,012M embedding and 10,759M
# non-embedding parameters; the 417M vision encoder apart), LLaVA-1.5 7B's Vicuna 6.74B, Llama 4
# Scout 109B with 17B active (Meta's figures, the vision encoder within them: npusim 107.8B, -1.1%); GPT-2 124M (npusim 123.6M: it leaves out the 0.79M learned position embeddings);
# Phi-2 2.78B (its card's "2.7 billion" truncated: 131M embedding and 131M untied head, 32 layers of
# 78.6M), an ungated GELU FFN in parallel blocks; Ling-plus 290B with 28.8B active (its authors' README);
# Qwen3-14B 14.8B (its card; 40 layers of 330.3M and a 778M embedding and untied head: 14.77B);
# Aya 23 8B 8.03B and StarCoder2 7B 7.17B (their files leave tie_word_embeddings out: tied, their
# classes' default; untied they came out 9.08B and 7.40B); Kimi K2.5's language model, Kimi K2's
# 1.04T with 32.6B active (its report), inside a multimodal wrapper whose text_config holds it;
# Hunyuan-A13B 80B with 13B active (its README), from its remote-code file (model_type hunyuan, the
# experts' top-k, shared experts and widths as lists of one value per layer); Qwen3.5-35B-A3B
# 35B with 3B active (its card), three Gated DeltaNet layers to one of gated attention; GLM-5 744B
# with 40B active (Z.ai's figures, which count active parameters without the 154880 x 6144 embedding
# and head, 1.9B: 41.9B as npusim counts), DeepSeek Sparse Attention's indexer included; Step-3.7-Flash
# 196B with 11B active (StepFun's figures), its first layer and every fourth after it global;
# Nemotron 3 Nano 31.6B with 3.6B active including the embeddings (its report); Nemotron-H-56B 56B
# (its name; its file carries Python's Infinity, read as null), Mamba-2 and attention blocks with
# ungated MLP blocks, fewer than its mixers
for pair in llama-3.1-8b:8.03e9:8.03e9 mistral-7b-v0.3:7.25e9:7.25e9 qwen2.5-7b:7.61e9:7.61e9 gemma-2b:2.51e9:2.51e9 deepseek-v3:671e9:37e9 \
            mixtral-8x7b:46.7e9:12.9e9 mixtral-8x22b:141e9:39e9 qwen2-57b-a14b:57e9:14e9 dbrx-base:132e9:36e9 \
            olmoe-1b-7b:6.9e9:1.3e9 gemma-2-9b-it:9.24e9:9.24e9 phi-3-medium-4k:14e9:14e9 mistral-7b-v0.1:7.24e9:7.24e9 \
            llama-2-7b-gptq:6.74e9:6.74e9 deepseek-v2-lite:15.7e9:2.4e9 gemma-3-12b-it:11.771e9:11.771e9 \
            llava-1.5-7b:6.74e9:6.74e9 llama-4-scout-instruct:109e9:17e9 gpt2:124e6:124e6 phi-2:2.78e9:2.78e9 \
            ling-plus:290e9:28.8e9 qwen3-14b:14.8e9:14.8e9 aya-23-8b:8.03e9:8.03e9 starcoder2-7b:7.17e9:7.17e9 \
            kimi-k2.5:1.04e12:32.6e9 hunyuan-a13b:80e9:13e9 qwen3.5-35b-a3b:35e9:3e9 glm-5:744e9:41.9e9 \
            step-3.7-flash:196e9:11e9 nemotron-3-nano-30b-a3b:31.6e9:3.6e9 nemotron-h-56b-base:56e9:56e9; do
    m=${pair%%:*}; rest=${pair#*:}; tot=${rest%%:*}; act=${rest#*:}
    check "models: $m's parameters (params_total, params_active) within 1.5% of the published (or its last digit)" sh -c "
      $NPUSIM run --configs $CONFIGS -m $S/$m.json -c h100 --set num_chips=64 -o '$HF/p-$m' >/dev/null 2>&1 &&
      python3 -c 'import glob, json, sys
d = json.load(open(glob.glob(sys.argv[1] + \"/*_decode.json\")[0]))
t, a, T, A = d[\"params_total\"], d[\"params_active\"], float(sys.argv[2]), float(sys.argv[3])
ok = abs(t / T - 1) <= 0.015 and (abs(a / A - 1) <= 0.015 or abs(a - A) <= 0.5e9)
sys.exit(not ok)' '$HF/p-$m' $tot $act"
done
# imported IN OUT K=V...: `npusim import model IN -o OUT` writes each field K with the value V
# (Python's str() of its JSON value; None: absent)
imported() {
    in=$1 out=$2; shift 2
    $NPUSIM import model "$in" -o "$out" >/dev/null 2>&1 && python3 -c 'import json, sys
j = json.load(open(sys.argv[1]))
sys.exit(any(str(j.get(k)) != v for k, v in (a.split("=", 1) for a in sys.argv[2:])))' "$out" "$@"
}
# check_import VERB "FILE K=V ...": one check that FILE imports with those fields
check_import() {
    f=${2%% *}; m=$(basename "$f" .json)
    check "models: import model $1 $m's ${2#* }" imported "$f" "$HF/f-$m.json" ${2#* }
}
# counted NAME MODEL CHIP TOTAL ACTIVE [RUN ARGS] [-- SERVING ARGS]: MODEL's parameters in a run on CHIP
# (params_total, params_active, counted by hand beside each use) and, with serving arguments, 20 chat
# requests served
counted() {
    cn=$1 cm=$2 cc=$3 ct=$4 ca=$5; shift 5
    cr=""; while [ $# -gt 0 ] && [ "$1" != "--" ]; do cr="$cr $1"; shift; done; [ $# -gt 0 ] && shift
    $NPUSIM run --configs $CONFIGS -m "$cm" -c "$cc" $cr -o "$HF/$cn" >/dev/null 2>&1 && python3 -c 'import glob, json, sys
d = json.load(open(glob.glob(sys.argv[1] + "/*_decode.json")[0]))
sys.exit(d["params_total"] != int(sys.argv[2]) or d["params_active"] != int(sys.argv[3]))' "$HF/$cn" "$ct" "$ca" || return 1
    [ $# -eq 0 ] && return 0
    $NPUSIM serving --configs $CONFIGS -m "$cm" -c "$cc" "$@" --requests 20 --lengths chat --json >"$HF/$cn-serve.json" \
        2>/dev/null && python3 -c 'import json, sys; sys.exit(json.load(open(sys.argv[1]))["completed"] != 20)' "$HF/$cn-serve.json"
}
# Mamba-2 hybrids (Granite 4.0-H), counted by hand. H-350M (32 layers: 4 attention of 1,572,864,
# 28 Mamba-2 of 3,783,056: W_in 768 x (2 x 1536 + 2 x 128 + 48), a biased convolution 1792 x 5, A, D
# and dt 3 x 48, the norm 1536, W_out 1536 x 768; 32 FFNs of 3 x 768 x 2048; norms 49,920; the tied
# 100352 x 768 embedding): 340,332,224, the ~340M a guide gives. H-Small's shapes (4 attention layers
# of 41,943,040; 36 Mamba-2 of 102,286,976; 40 mixtures of 72 experts of 3 x 4096 x 768 with a
# shared MLP of 1536 and a 72 x 4096 router; norms and the tied 100352 x 4096 embedding):
# 32,207,337,984, the checkpoint's own count (docs/models.md), with 8.80B active (its card: 9B).
check "models: Granite 4.0-H's parameters by hand: H-350M 340,332,224; H-Small 32,207,337,984 (its checkpoint's)" sh -c "
  $NPUSIM run --configs $CONFIGS -m $S/granite-4.0-h-350m.json -c h100 -o '$HF/g350' >/dev/null 2>&1 &&
  $NPUSIM run --configs $CONFIGS -m $S/granite-4.0-h-small-shapes.json -c h100 --set num_chips=8 -o '$HF/gsmall' >/dev/null 2>&1 &&
  python3 -c 'import glob, json, sys
p = [json.load(open(glob.glob(d + \"/*_decode.json\")[0])) for d in sys.argv[1:3]]
ok = (p[0][\"params_total\"] == 340332224 and p[1][\"params_total\"] == 32207337984 and
      abs(p[1][\"params_active\"] - 9e9) <= 0.5e9)
sys.exit(not ok)' '$HF/g350' '$HF/gsmall'"
# Nemotron-H's blocks (hybrid_override_pattern: M Mamba-2, * attention, E experts, - MLP), one mixer
# or one FFN each: Nemotron 3 Nano's 52 are 23 M, 6 * and 23 E, so npusim's 29 layers (a mixer each)
# with 6 attending (full_attention_layers) and 23 FFNs (ffn_layers), its experts ungated (relu2).
# By hand: 23 Mamba-2 layers of 38,742,208 (W_in 2688 x (2 x 4096 + 2 x 8 x 128 + 64), the biased
# convolution 6144 x 5, 3 x 64 + 4096, W_out 4096 x 2688), 6 attention layers of 23,396,352, 23
# mixtures of 1,297,465,344 (128 routed and 2 shared expert widths of 2 x 2688 x 1856, a 128 x 2688
# router), 52 norms and the final one of 2688, the untied 2 x 131072 x 2688: 31,577,937,344, with
# 3,580,073,408 active (8 experts' worth); its report: 31.6B, 3.6B active with the embeddings.
check "models: Nemotron-H's blocks as npusim's layers (Nemotron 3 Nano: 29 layers, 6 attending, 23 FFNs)" \
    imported "$S/nemotron-3-nano-30b-a3b.json" "$HF/f-nano.json" num_layers=29 full_attention_layers=6 ffn_layers=23 \
    linear_kind=mamba2 linear_value_heads=64 linear_value_dim=64 linear_key_heads=8 linear_key_dim=128 linear_chunk_size=128 \
    linear_state_dtype=fp32 expert_ffn=relu2 num_shared_experts=2 num_routed_experts=128
check "models: Nemotron 3 Nano's parameters by hand: 31,577,937,344, 3,580,073,408 active" sh -c "
  $NPUSIM run --configs $CONFIGS -m $S/nemotron-3-nano-30b-a3b.json -c h100 --set num_chips=2 --set tensor_parallelism_degree=2 \
    -o '$HF/nano' >/dev/null 2>&1 &&
  python3 -c 'import glob, json, sys
d = json.load(open(glob.glob(sys.argv[1] + \"/*_decode.json\")[0]))
sys.exit(not (d[\"params_total\"] == 31577937344 and d[\"params_active\"] == 3580073408))' '$HF/nano'"
check "models: a Nemotron-H hybrid serves (Nemotron 3 Nano on 2 H100, 50 chat requests)" sh -c "
  $NPUSIM serving --configs $CONFIGS -m $S/nemotron-3-nano-30b-a3b.json -c h100 --tp 2 --rate 4 --requests 50 --lengths chat \
    --json >'$HF/nano-serve.json' 2>/dev/null &&
  python3 -c 'import json, sys; sys.exit(json.load(open(sys.argv[1]))[\"completed\"] != 50)' '$HF/nano-serve.json'"
python3 -c 'import json, sys
j = json.load(open("tests/samples/hf/nemotron-3-nano-30b-a3b.json"))
p = j["hybrid_override_pattern"]
kinds = {"M": "mamba", "*": "attention", "-": "mlp", "E": "moe"}
blocks = dict((k, v) for k, v in j.items() if k not in ("hybrid_override_pattern", "num_hidden_layers"))
for k, v in {"latent-mla": dict(json.load(open("tests/samples/hf/deepseek-v3.json")), moe_latent_size=1024),
             "latent-null": dict(j, moe_latent_size=None),
             "blocks": dict(blocks, layers_block_type=[kinds[c] for c in p]),
             "blocks-bad": dict(blocks, layers_block_type=[kinds[c] for c in p[:-1]] + ["linear"]),
             "letter": dict(j, hybrid_override_pattern=p[:-1] + "X"),
             "mixed": dict(j, hybrid_override_pattern=p[:-1] + "-"), "ffns": dict(j, hybrid_override_pattern="E" * 30 + "M" * 22)}.items():
    json.dump(v, open(sys.argv[1] + "/nemo-" + k + ".json", "w"))' "$HF"
# Python's json writes float("inf") as Infinity (not JSON): a Hugging Face config whose ignored
# time_step_limit holds it, as Nemotron-H's files do, reads it as null and runs; npusim's own
# model file with it stays refused, saying why.
python3 -c 'import json, sys
j = json.load(open("tests/samples/hf/nemotron-3-nano-30b-a3b.json"))
json.dump(dict(j, time_step_limit=[0.0, float("inf")]), open(sys.argv[1] + "/nemo-inf.json", "w"))
m = json.load(open("configs/models/llama3-8b.json"))
json.dump(dict(m, rope_theta=float("nan")), open(sys.argv[1] + "/own-nan.json", "w"))' "$HF"
check "models: a Hugging Face config with Python's Infinity imports and runs" sh -c "
  grep -q Infinity '$HF/nemo-inf.json' && $NPUSIM import model '$HF/nemo-inf.json' -o '$HF/nemo-inf.npu.json' >/dev/null 2>&1 &&
  $NPUSIM run --configs $CONFIGS -m '$HF/nemo-inf.json' -c h100 --set num_chips=2 --set tensor_parallelism_degree=2 \
    -o '$HF/nemo-inf' >/dev/null 2>&1"
expect_fail "models: npusim's own model file with NaN stays refused, naming why" 'Infinity and NaN are not JSON numbers' \
    $NPUSIM run --configs $CONFIGS -m "$HF/own-nan.json" -c h100 -o "$HF/bad"
# Transformers 5 writes Nemotron-H's blocks as layers_block_type (mamba, attention, mlp, moe) and may
# leave num_hidden_layers out: Nemotron 3 Nano that way imports as its pattern does; moe_latent_size
# null (Nemotron 3.5) is no LatentMoE.
check "models: Nemotron-H's layers_block_type imports as its hybrid_override_pattern (Nemotron 3 Nano)" \
    imported "$HF/nemo-blocks.json" "$HF/f-nano-blocks.json" num_layers=29 full_attention_layers=6 ffn_layers=23 \
    linear_kind=mamba2 expert_ffn=relu2 num_routed_experts=128 moe_latent_size=None
check "models: moe_latent_size null is no LatentMoE" imported "$HF/nemo-latent-null.json" "$HF/f-nano-null.json" \
    num_layers=29 moe_latent_size=None
expect_fail "models: a layers_block_type item other than mamba, attention, mlp or moe is refused, naming it" \
    'key "layers_block_type": item 51 "linear": expected mamba, attention, mlp or moe' \
    $NPUSIM import model "$HF/nemo-blocks-bad.json" -o "$HF/bad/x.json"
expect_fail "models: LatentMoE beside latent attention is refused, naming moe_latent_size" 'key "moe_latent_size": LatentMoE beside latent attention' \
    $NPUSIM import model "$HF/nemo-latent-mla.json" -o "$HF/bad/x.json"
# LatentMoE (Nemotron 3 Super and Ultra): the router reads the token at d_model, which is projected to
# moe_latent_size for the all-to-all and the routed experts and back after them; shared experts at
# d_model. By hand, Super (D 4096; 88 blocks: 40 Mamba-2, 8 attention, 40 MoE, so 48 layers with 40
# FFNs): Mamba-2 layers of 109,635,968 (W_in 4096 x (2 x 8192 + 2 x 8 x 128 + 128), the biased
# convolution 10240 x 5, 3 x 128 + 8192, W_out 8192 x 4096), attention layers of 35,651,584, MoE
# layers of 2,873,098,240 (512 experts of 2 x 1024 x 2688, 2 shared widths of 2 x 4096 x 2688, a
# 512 x 4096 router, the projections 2 x 4096 x 1024), 89 norms of 4096 and the untied 2 x 131072 x
# 4096: 120,668,687,360, with 12,770,216,960 active (22 experts; NVIDIA: 120B, 12B active). Ultra's
# file (108 blocks as layers_block_type, no num_hidden_layers; D 8192, latent 2048) the same way:
# 549,308,968,960 and 56,058,818,560 active (its name: 550B, 55B active).
check "models: Nemotron 3 Super's LatentMoE imports (48 layers, 8 attending, 40 FFNs, experts at 1024)" \
    imported "$S/nemotron-3-super-120b-a12b.json" "$HF/f-super.json" num_layers=48 full_attention_layers=8 ffn_layers=40 \
    moe_latent_size=1024 num_routed_experts=512 num_activated_routed_experts_per_token=22 num_shared_experts=2 expert_ffn=relu2
check "models: Nemotron 3 Super and Ultra's parameters by hand: 120,668,687,360 (12,770,216,960 active), 549,308,968,960 (56,058,818,560)" sh -c "
  $NPUSIM run --configs $CONFIGS -m $S/nemotron-3-super-120b-a12b.json -c h100 --set num_chips=8 --set tensor_parallelism_degree=8 \
    -o '$HF/super' >/dev/null 2>&1 &&
  $NPUSIM run --configs $CONFIGS -m $S/nemotron-3-ultra-550b-a55b.json -c h100 --set num_chips=64 -o '$HF/ultra' >/dev/null 2>&1 &&
  python3 -c 'import glob, json, sys
p = [json.load(open(glob.glob(d + \"/*_decode.json\")[0])) for d in sys.argv[1:3]]
sys.exit(not ((p[0][\"params_total\"], p[0][\"params_active\"]) == (120668687360, 12770216960) and
              (p[1][\"params_total\"], p[1][\"params_active\"]) == (549308968960, 56058818560)))' '$HF/super' '$HF/ultra'"
check "models: LatentMoE serves (Nemotron 3 Super on 4 H100 in fp8, 40 chat requests)" sh -c "
  $NPUSIM serving --configs $CONFIGS -m $S/nemotron-3-super-120b-a12b.json -c h100 --tp 4 --set weight_dtype=fp8 \
    --rate 2 --requests 40 --lengths chat --json >'$HF/super-serve.json' 2>/dev/null &&
  python3 -c 'import json, sys; sys.exit(json.load(open(sys.argv[1]))[\"completed\"] != 40)' '$HF/super-serve.json'"
# Gemma 4's global layers have their own attention shape: heads of global_head_dim, fewer K/V heads
# (num_global_key_value_heads) and no W_v (attention_k_eq_v: V is K's projection). By hand, 31B (D
# 5376, 60 layers, 50 sliding of 32 heads and 16 K/V heads of 256, 10 global of 32 heads of 512 and
# 4 K/V heads): sliding attention 132,120,576 a layer, global 187,170,816 (W_q and W_o 2 x 5376 x
# 32 x 512, W_k 5376 x 4 x 512), FFNs 3 x 5376 x 21504, 121 norms of 5376, the tied 262144 x 5376:
# 30,696,664,320 (its name: 31B). 26B-A4B (D 2816, 30 layers of 128 experts of 704, top 8, beside a
# dense MLP of 2112 that every token runs: 3 shared widths): 25,232,613,120 with 3,822,001,920
# active (its name: 26B, A4B).
check "models: Gemma 4's global layers import with their own shape (31B: heads of 512, 4 K/V heads, no W_v)" \
    imported "$S/gemma-4-31b-shapes.json" "$HF/f-gemma4.json" d_head=256 num_kv_heads=16 global_d_head=512 \
    global_num_kv_heads=4 global_k_eq_v=True sliding_window=1024 full_attention_interval=6 ffn_type=geglu
check "models: Gemma 4's experts beside its dense MLP import as 3 shared experts (26B-A4B)" \
    imported "$S/gemma-4-26b-a4b-shapes.json" "$HF/f-gemma4-moe.json" ffn_type=moe num_routed_experts=128 \
    num_activated_routed_experts_per_token=8 moe_d_ff=704 num_shared_experts=3 global_num_kv_heads=2
check "models: Gemma 4's parameters by hand: 31B 30,696,664,320; 26B-A4B 25,232,613,120 (3,822,001,920 active)" sh -c "
  $NPUSIM run --configs $CONFIGS -m $S/gemma-4-31b-shapes.json -c h100 --set num_chips=2 --set tensor_parallelism_degree=2 \
    -o '$HF/g31' >/dev/null 2>&1 &&
  $NPUSIM run --configs $CONFIGS -m $S/gemma-4-26b-a4b-shapes.json -c h100 -o '$HF/g26' >/dev/null 2>&1 &&
  python3 -c 'import glob, json, sys
p = [json.load(open(glob.glob(d + \"/*_decode.json\")[0])) for d in sys.argv[1:3]]
sys.exit(not ((p[0][\"params_total\"], p[0][\"params_active\"]) == (30696664320, 30696664320) and
              (p[1][\"params_total\"], p[1][\"params_active\"]) == (25232613120, 3822001920)))' '$HF/g31' '$HF/g26'"
check "models: Gemma 4 serves (31B on 2 H100, 30 chat requests)" sh -c "
  $NPUSIM serving --configs $CONFIGS -m $S/gemma-4-31b-shapes.json -c h100 --tp 2 --rate 2 --requests 30 --lengths chat \
    --json >'$HF/g31-serve.json' 2>/dev/null &&
  python3 -c 'import json, sys; sys.exit(json.load(open(sys.argv[1]))[\"completed\"] != 30)' '$HF/g31-serve.json'"
# Gemma 4 E2B and E4B: their last num_kv_shared_layers read earlier layers' K/V (no K/V projections,
# no cache), E2B's with an MLP twice as wide (use_double_wide_mlp), and every layer gates in a
# per-layer input (hidden_size_per_layer_input 256, from a 262144-row table of num_layers x 256). By
# hand, E2B (D 1536, 35 layers, 7 global at heads of 512, 1 K/V head; the last 20 sharing): 28 local
# attention layers of 7,077,888 and 7 global of 14,155,776, less 16 x 786,432 and 4 x 1,572,864 of
# K/V; 15 FFNs of 3 x 1536 x 6144 and 20 of 3 x 1536 x 12288; 71 norms; the tied 262144 x 1536; the
# per-layer inputs (262144 + 1536 + 2 x 1536) x 35 x 256: 4,628,392,448 (Google: 5.1B with the
# per-layer tables and the vision and audio encoders, about 0.45B; 2.3B effective, npusim's less the
# table: 2.28B). E4B the same way: 7,462,670,848 (8B, 4.5B effective).
check "models: Gemma 4 E2B's KV-sharing layers and per-layer inputs import" \
    imported "$S/gemma-4-e2b-shapes.json" "$HF/f-e2b.json" kv_shared_layers=20 kv_shared_d_ff=12288 \
    per_layer_input_dim=256 per_layer_vocab_size=None global_d_head=512 global_num_kv_heads=None full_attention_interval=5
check "models: Gemma 4 E2B's and E4B's parameters by hand: 4,628,392,448 and 7,462,670,848" sh -c "
  $NPUSIM run --configs $CONFIGS -m $S/gemma-4-e2b-shapes.json -c h100 -o '$HF/e2b' >/dev/null 2>&1 &&
  $NPUSIM run --configs $CONFIGS -m $S/gemma-4-e4b-shapes.json -c h100 -o '$HF/e4b' >/dev/null 2>&1 &&
  python3 -c 'import glob, json, sys
p = [json.load(open(glob.glob(d + \"/*_decode.json\")[0]))[\"params_total\"] for d in sys.argv[1:3]]
sys.exit(p != [4628392448, 7462670848])' '$HF/e2b' '$HF/e4b'"
check "models: Gemma 4 E2B serves (one H100, 40 chat requests)" sh -c "
  $NPUSIM serving --configs $CONFIGS -m $S/gemma-4-e2b-shapes.json -c h100 --rate 4 --requests 40 --lengths chat \
    --json >'$HF/e2b-serve.json' 2>/dev/null &&
  python3 -c 'import json, sys; sys.exit(json.load(open(sys.argv[1]))[\"completed\"] != 40)' '$HF/e2b-serve.json'"
expect_fail "models: kv_shared_layers as many as the layers is refused, naming it" 'model field "kv_shared_layers": 35, expected fewer than num_layers' \
    $NPUSIM run --configs $CONFIGS -m $S/gemma-4-e2b-shapes.json -c h100 --set kv_shared_layers=35 -o "$HF/bad"
# LFM2's gated short convolutions (lfm2, linear_kind short_conv): 10 of LFM2-1.2B's 16 layers, the
# 6 of full_attn_idxs attending (spread evenly). By hand: 10 convolutions of 16,783,360 (W_in 2048 x
# 6144 for B, C and x, the depthwise convolution 2048 x 3, W_out 2048 x 2048), 6 attention layers of
# 10,485,760, 16 SwiGLU FFNs of 3 x 2048 x 8192 (block_ff_dim 12288 adjusted: 2/3 of it, a multiple of
# 256), 33 norms of 2048 and the tied 65536 x 2048: 1,170,339,840 (Liquid's card: 1.17B).
check "models: LFM2's short convolutions import (10 of 16 layers, 3 taps, an FFN of 8192)" \
    imported "$S/lfm2-1.2b-shapes.json" "$HF/f-lfm2.json" linear_kind=short_conv linear_value_heads=32 linear_value_dim=64 \
    linear_conv_kernel=3 full_attention_layers=6 d_ff=8192 tie_word_embeddings=True
check "models: LFM2-1.2B's parameters by hand: 1,170,339,840; it serves" sh -c "
  $NPUSIM run --configs $CONFIGS -m $S/lfm2-1.2b-shapes.json -c h100 -o '$HF/lfm2' >/dev/null 2>&1 &&
  python3 -c 'import glob, json, sys
d = json.load(open(glob.glob(sys.argv[1] + \"/*_decode.json\")[0]))
sys.exit(d[\"params_total\"] != 1170339840)' '$HF/lfm2' &&
  $NPUSIM serving --configs $CONFIGS -m $S/lfm2-1.2b-shapes.json -c h100 --rate 4 --requests 30 --lengths chat \
    --json >'$HF/lfm2-serve.json' 2>/dev/null &&
  python3 -c 'import json, sys; sys.exit(json.load(open(sys.argv[1]))[\"completed\"] != 30)' '$HF/lfm2-serve.json'"
# Ling 2.0 (bailing_moe_v2): Ling-mini-2.0 by hand: 20 attention layers of 10,485,760 (q and o 2048 x
# 2048, k and v 2048 x 512), a dense first FFN of 3 x 2048 x 5120, 19 mixtures of 256 + 1 shared experts
# of 3 x 2048 x 512 and a 2048 x 256 router, 41 norms of 2048, untied 157184 x 2048 embedding and head:
# 16,255,633,408; active 1,432,963,072, of which 789,137,408 besides the two tables (its README: 16B,
# 1.4B active, "non-embedding 789M").
check "models: Ling-mini-2.0 (bailing_moe_v2) by hand: 16,255,633,408, 1,432,963,072 active" \
    counted ling "$S/ling-mini-2.0-shapes.json" h100 16255633408 1432963072
# Falcon-H1 (falcon_h1): attention and Mamba-2 side by side in each of 24 layers, as 48 of npusim's
# layers (every other one attending) under 24 FFNs. By npusim's count: 24 attention mixers of 655,360
# (q and o 512 x 512, k and v 512 x 128) and a norm of 512; 24 Mamba-2 mixers of 1,262,792 (in 512 x
# (2 x 768 + 2 x 64 + 24), a convolution of 896 x 4 with its bias, 3 x 24 per head, the gated norm
# of 768, out 768 x 512) and a norm; 24 SwiGLU FFNs of 3 x 512 x 768 and their norms; the final norm
# and the tied 32768 x 512: 91,161,792 (Falcon-H1 has one input norm for both mixers and no gated
# norm by default: 91,131,072 by hand; its name: 90M). A head width off mamba_d_ssm is refused.
python3 -c 'import json, sys
j = json.load(open("tests/samples/hf/falcon-h1-tiny-90m-shapes.json"))
json.dump(dict(j, mamba_d_head=30), open(sys.argv[1] + "/falcon-h1-bad.json", "w"))' "$HF"
check "models: Falcon-H1 imports as a parallel hybrid (48 layers, every other attending, 24 FFNs, 24 heads of 32)" \
    imported "$S/falcon-h1-tiny-90m-shapes.json" "$HF/f-falcon-h1.json" num_layers=48 full_attention_interval=2 \
    ffn_layers=24 linear_kind=mamba2 linear_value_heads=24 linear_value_dim=32 linear_key_dim=64 d_ff=768 ffn_type=llama
check "models: Falcon-H1-Tiny-90M's shapes count 91,161,792 by npusim's rule; it serves" \
    counted falcon-h1 "$HF/f-falcon-h1.json" h100 91161792 91161792 -- --rate 4
expect_fail "models: Falcon-H1's heads x head width off mamba_d_ssm is refused, naming both keys" \
    'keys "mamba_n_heads" and "mamba_d_head": 24 heads of 30, expected mamba_d_ssm = 768 channels' \
    $NPUSIM import model "$HF/falcon-h1-bad.json" -o "$HF/bad/x.json"
# AFMoE (afmoe, Arcee's Trinity): Trinity-Mini by hand: 32 gated attention layers of 27,262,976 (q, o and
# the output gate 2048 x 4096 each, k and v 2048 x 512), 2 dense FFNs of 3 x 2048 x 6144, 30 mixtures of
# 128 + 1 shared experts of 3 x 2048 x 1024 and a 2048 x 128 router, 65 norms of 2048 and untied 200192 x
# 2048 embedding and head: 26,123,831,296 (Arcee: 26B); active 3,474,589,696. A file without layer_types
# takes global_attn_every_n_layers (AfmoeConfig's rule).
python3 -c 'import json, sys
c = json.load(open("tests/samples/hf/trinity-mini-shapes.json"))
c.pop("layer_types"); c["global_attn_every_n_layers"] = 3
json.dump(c, open(sys.argv[1] + "/afmoe-every3.json", "w"))' "$HF"
check "models: Trinity-Mini (afmoe) imports gated, every 4th layer global, 2 dense layers, 128 + 1 experts" \
    imported "$S/trinity-mini-shapes.json" "$HF/f-trinity.json" attention_output_gate=True full_attention_interval=4 \
    sliding_window=2048 num_dense_layers=2 num_shared_experts=1 num_routed_experts=128 moe_d_ff=1024
check "models: Trinity-Mini's parameters by hand: 26,123,831,296, 3,474,589,696 active" \
    counted trinity "$HF/f-trinity.json" h100 26123831296 3474589696
check "models: an AFMoE file without layer_types takes global_attn_every_n_layers (3)" \
    imported "$HF/afmoe-every3.json" "$HF/f-afmoe3.json" full_attention_interval=3
# EXAONE-MoE (exaone_moe): K-EXAONE's shapes by hand: 48 attention layers of 113,246,208 (q and o 6144 x
# 8192, k and v 6144 x 1024), a dense first FFN of 3 x 6144 x 18432 (mlp_layer_types' leading "dense"),
# 47 mixtures of 128 + 1 shared experts of 3 x 6144 x 2048 and a 6144 x 128 router, 97 norms of 6144 and
# untied 153600 x 6144 embedding and head: 236,571,138,048 (its card: 236B), 23,668,267,008 active (A23B).
# A dense layer after an expert layer is refused, naming mlp_layer_types.
python3 -c 'import json, sys
c = json.load(open("tests/samples/hf/k-exaone-236b-shapes.json"))
c["mlp_layer_types"][-1] = "dense"
json.dump(c, open(sys.argv[1] + "/exaone-late-dense.json", "w"))' "$HF"
check "models: K-EXAONE (exaone_moe) imports every 4th layer global over 4096, one dense layer, 1 shared expert" \
    imported "$S/k-exaone-236b-shapes.json" "$HF/f-kexaone.json" full_attention_interval=4 sliding_window=4096 \
    num_dense_layers=1 num_shared_experts=1
check "models: K-EXAONE's parameters by hand: 236,571,138,048, 23,668,267,008 active" \
    counted kexaone "$HF/f-kexaone.json" h100 236571138048 23668267008
expect_fail "models: a dense layer after an expert layer (mlp_layer_types) is refused, naming the key" \
    'key "mlp_layer_types": a dense layer after an expert layer' \
    $NPUSIM import model "$HF/exaone-late-dense.json" -o "$HF/bad/x.json"
# Kimi Linear (kimi_linear): DeepSeek's family with 20 KDA layers (linear_kind kda, the decay and gate
# through a rank of 128) among 7 MLA ones (full_attn_layers, 1-based). By hand: 7 MLA layers of 29,114,880
# (W_q 2304 x 32 x 192, W_kv_a 2304 x 576, W_kv_b 512 x 32 x 256, W_o 32 x 128 x 2304, the kv norm's 512),
# 20 KDA layers of 39,514,272 (q, k, v and b 2304 x (3 x 4096 + 32), a convolution of 12288 x 4, f_a and
# g_a 2304 x 128 each, f_b and g_b 128 x 4096 each, A 32, step biases 4096, a norm of 128, out 4096 x
# 2304), a dense first FFN of 3 x 2304 x 9216, 26 mixtures of 256 + 1 shared experts of 3 x 2304 x 1024
# and a 2304 x 256 router, 55 norms of 2304 and untied 163840 x 2304 embedding and head:
# 49,122,675,072; 3,484,453,248 active. It serves with a state a sequence in 20 layers and a latent cache
# in 7; a full_attn_layers item past the last layer is refused.
python3 -c 'import json, sys
c = json.load(open("tests/samples/hf/kimi-linear-48b-a3b.json"))
c["linear_attn_config"] = dict(c["linear_attn_config"], full_attn_layers=[4, 8, 28])
json.dump(c, open(sys.argv[1] + "/kimi-past.json", "w"))' "$HF"
check "models: Kimi Linear imports (7 MLA layers of 27, the others linear: 32 heads of 128, 4 taps)" \
    imported "$S/kimi-linear-48b-a3b.json" "$HF/f-kimi-linear.json" ffn_type=deepseek_moe full_attention_layers=7 \
    linear_value_heads=32 linear_key_dim=128 linear_conv_kernel=4 kv_lora_rank=512 q_lora_rank=0 \
    num_routed_experts=256 num_shared_experts=1 num_dense_layers=1 linear_kind=kda linear_gate_rank=128
check "models: Kimi Linear's parameters by hand: 49,122,675,072, 3,484,453,248 active; it serves at TP 2" \
    counted kimi-linear "$HF/f-kimi-linear.json" h100 49122675072 3484453248 -- --tp 2 --rate 2
# the linear layers hold no latent rows: 8192 more tokens of context grow the footprint by 20 layers'
# rows (the bf16 latent and the fp32 rope key, 1280 bytes a token, over TP 2) less than with all 27 MLA
check "models: Kimi Linear's footprint grows with the context by its 7 MLA layers' latent rows, not 27" sh -c "
  for v in 32 0; do for s in 1024 9216; do
    $NPUSIM run --configs $CONFIGS -m '$HF/f-kimi-linear.json' -c h100 --set num_chips=2 --tp 2 --set input_seqlen=\$s \
      --set linear_value_heads=\$v -o '$HF/klm-'\$v-\$s >/dev/null 2>&1 || exit 1; done; done
  python3 -c 'import glob, json, sys
m = lambda d: json.load(open(glob.glob(d + \"/*_decode.json\")[0]))[\"mem_footprint_GB\"] * 2**30
h = sys.argv[1] + \"/klm-\"
grow_all, grow_kimi = m(h + \"0-9216\") - m(h + \"0-1024\"), m(h + \"32-9216\") - m(h + \"32-1024\")
sys.exit(abs((grow_all - grow_kimi) - 20 * 8192 * 1280 / 2) > 1e3)' '$HF'"
# Kimi K3 (kimi_k3 wrapping kimi_linear): 24 MLA layers with an output gate, 69 full-rank KDA layers,
# LatentMoE experts at 3584, MXFP4 weights. By hand: 24 MLA layers of 232,196,096 (W_q_a 7168 x 1536
# and its norm, W_q_b 1536 x 96 x 192, W_kv_a 7168 x 576, W_kv_b 512 x 96 x 256, W_o and the gate 96 x
# 128 x 7168 each, the kv norm), 69 KDA layers of 529,330,400 (q, k, v, g, f and b 7168 x (5 x 12288 +
# 96), a convolution of 36864 x 4, out 12288 x 7168, A 96, step biases 12288, a norm of 128), a dense
# first FFN of 3 x 7168 x 33792, 92 mixtures of 896 routed experts of 3 x 3584 x 3072, 2 shared of 3 x
# 7168 x 3072, a 7168 x 896 router and LatentMoE's 2 x 7168 x 3584, 187 norms of 7168 and untied 163840 x
# 7168 embedding and head: 2,785,387,094,112 (2.8T); active 111,266,635,872. It serves on 16 B200s.
check "models: Kimi K3 (kimi_k3) imports: LatentMoE at 3584, a gated MLA, full-rank KDA, MXFP4" \
    imported "$S/kimi-k3.json" "$HF/f-kimi-k3.json" moe_latent_size=3584 attention_output_gate=True linear_kind=kda \
    linear_gate_rank=None full_attention_layers=24 weight_dtype=fp4 scale_block=32 q_lora_rank=1536
check "models: Kimi K3's parameters by hand: 2,785,387,094,112, 111,266,635,872 active; it serves on 16 B200s" \
    counted kimi-k3 "$HF/f-kimi-k3.json" b200 2785387094112 111266635872 --set num_chips=16 --tp 16 \
    --set expert_parallelism_degree=16 -- --tp 16 --set expert_parallelism_degree=16 --rate 1
expect_fail "models: a Kimi Linear full_attn_layers item past the last layer is refused" \
    'key "linear_attn_config": full_attn_layers: expected layer numbers from 1 to num_hidden_layers' \
    $NPUSIM import model "$HF/kimi-past.json" -o "$HF/bad/x.json"
# MiniMax-M1 and Text-01 (minimax_m1, minimax_text_01, minimax): 70 lightning layers (attn_type_list 0)
# and 10 softmax ones. By hand: 10 attention layers of 113,246,208 (q and o 6144 x 8192, k and v 6144 x
# 1024), 70 lightning layers of 251,666,432 (q, k, v and the gate 6144 x 4 x 8192, a norm of 8192, out 8192
# x 6144), 80 mixtures of 32 experts of 3 x 6144 x 9216 and a 6144 x 32 router, 161 norms of 6144 and
# untied 200064 x 6144 embedding and head: 456,089,655,296 (456B); 48,403,306,496 active (45.9B besides
# the tables). A file with neither list is standard attention throughout.
python3 -c 'import json, sys
c = json.load(open("tests/samples/hf/minimax-m1-shapes.json"))
c.pop("attn_type_list"); c["model_type"] = "minimax"
json.dump(c, open(sys.argv[1] + "/minimax-plain.json", "w"))' "$HF"
check "models: MiniMax-M1 imports (lightning layers: 64 heads of 128 without a convolution, every 8th softmax)" \
    imported "$S/minimax-m1-shapes.json" "$HF/f-minimax.json" linear_kind=lightning linear_value_heads=64 \
    linear_key_dim=128 full_attention_interval=8 linear_chunk_size=256 attention_output_gate=None num_routed_experts=32
check "models: MiniMax-M1's parameters by hand: 456,089,655,296, 48,403,306,496 active; it serves on 8 H200s" \
    counted minimax "$HF/f-minimax.json" h200 456089655296 48403306496 --set num_chips=8 --tp 8 \
    --set expert_parallelism_degree=8 -- --tp 8 --set expert_parallelism_degree=8 --rate 1
check "models: a minimax file without layer_types or attn_type_list is standard attention (no linear layers)" sh -c "
  $NPUSIM import model '$HF/minimax-plain.json' -o '$HF/f-minimax-plain.json' >/dev/null 2>&1 &&
  ! grep -q linear '$HF/f-minimax-plain.json'"
# the new readers' bad inputs, each named: mlp_layer_types not a list, attn_type_list items other than 0
# or 1, a wrapper's language model config that is not an object
python3 -c 'import json, sys
d = sys.argv[1]
e = json.load(open("tests/samples/hf/k-exaone-236b-shapes.json")); e["mlp_layer_types"] = "dense"
json.dump(e, open(d + "/exaone-mlt-str.json", "w"))
m = json.load(open("tests/samples/hf/minimax-m1-shapes.json")); m["attn_type_list"] = [2] * 80
json.dump(m, open(d + "/minimax-atl-2.json", "w"))
json.dump({"model_type": "internvl_chat", "architectures": ["InternVLChatModel"], "llm_config": "qwen3"},
          open(d + "/internvl-str.json", "w"))' "$HF"
expect_fail "models: mlp_layer_types that is not a list is refused, naming it" \
    'key "mlp_layer_types": expected a list of "dense" or "sparse"' $NPUSIM import model "$HF/exaone-mlt-str.json" -o "$HF/bad/x.json"
expect_fail "models: an attn_type_list item other than 0 or 1 is refused, naming it" \
    'key "attn_type_list": expected 0 (lightning) or 1' $NPUSIM import model "$HF/minimax-atl-2.json" -o "$HF/bad/x.json"
expect_fail "models: a wrapper whose llm_config is not an object is refused, naming it" \
    'key "llm_config": expected the language model' $NPUSIM import model "$HF/internvl-str.json" -o "$HF/bad/x.json"
# Jamba (jamba): Mamba-1 layers (linear_kind mamba) among attention every 8th from 4, experts every 2nd
# from 1. By hand: 4 attention layers of 41,943,040, 28 Mamba-1 layers of 105,308,448 (in 4096 x 16384, a
# convolution of 8192 x 4 with its bias, x_proj 8192 x (256 + 32), dt_proj 256 x 8192, A 8192 x 16, D and
# the step's bias 8192 each, the dt, B and C norms 256 + 32, out 8192 x 4096), 16 dense FFNs of 3 x 4096 x
# 14336, 16 mixtures of 16 such experts and a 4096 x 16 router, 65 norms of 4096 and untied 65536 x 4096
# embedding and head: 51,570,323,328 (AI21: 52B); 12,110,311,296 active (12B). Experts off the last layer
# of each period are refused.
python3 -c 'import json, sys
c = json.load(open("tests/samples/hf/jamba-v0.1-shapes.json")); c["expert_layer_offset"] = 0
json.dump(c, open(sys.argv[1] + "/jamba-offset0.json", "w"))' "$HF"
check "models: Jamba imports (Mamba-1: 8192 channels of a 16-wide state, dt rank 256; attention every 8th from 4)" \
    imported "$S/jamba-v0.1-shapes.json" "$HF/f-jamba.json" linear_kind=mamba linear_value_heads=8192 linear_value_dim=1 \
    linear_key_dim=16 linear_dt_rank=256 full_attention_interval=8 first_full_attention_layer=4 moe_layer_step=2 \
    num_dense_layers=0 num_routed_experts=16
check "models: Jamba's parameters by hand: 51,570,323,328, 12,110,311,296 active; it serves at TP 2" \
    counted jamba "$HF/f-jamba.json" h100 51570323328 12110311296 --set num_chips=2 --tp 2 -- --tp 2 --rate 2
expect_fail "models: Jamba's experts off the last layer of each period are refused, naming expert_layer_offset" \
    'key "expert_layer_offset": experts other than on the last layer' $NPUSIM import model "$HF/jamba-offset0.json" -o "$HF/bad/x.json"
# MiMo-V2-Flash (mimo_v2_flash): 9 global layers (layer 0, then every sixth from 5: irregular, so their
# count, full_attention_layers) of 4 K/V heads and 39 windowed ones (128 tokens) of 8, every head's queries
# and keys 192 wide and its values 128 (d_head_v), the first layer dense, 47 mixtures of 256 experts of
# 2048, top 8. By hand: a global layer's attention 4096 x 64 x 192 (W_q) + 4096 x 4 x (192 + 128) (W_k,
# W_v) + 64 x 128 x 4096 (W_o) = 89,128,960, a windowed one's 94,371,840 (8 K/V heads); the dense FFN 3 x
# 4096 x 16384; 47 x (256 x 3 x 4096 x 2048 + a 4096 x 256 router); 97 norms of 4096; untied 152576 x 4096
# embedding and head: 308,778,766,336 (309B), 15,445,921,792 active (15B); the windowed layers' 64 sink
# biases left out. Lists off 0 or 1, a dense layer after the experts and windowed layers of other widths
# are refused, each named.
python3 -c 'import json, sys
c = json.load(open("tests/samples/hf/mimo-v2-flash-shapes.json"))
for name, key, value in (("hlp-2", "hybrid_layer_pattern", [2] * 48), ("moe-late", "moe_layer_freq", [1] * 47 + [0]),
                         ("swa-dh", "swa_head_dim", 128), ("hlp-str", "hybrid_layer_pattern", "0,1")):
    json.dump(dict(c, **{key: value}), open(sys.argv[1] + "/mimo-" + name + ".json", "w"))
# MiMo-V2.5 and 2.6 (mimo_v2): the text keys at the top beside a vision_config; experts stored MXFP4
v = dict(c, model_type="mimo_v2", vision_config={"hidden_size": 1280}, vision_model_type="mimovl")
json.dump(v, open(sys.argv[1] + "/mimo-v25.json", "w"))
v["quantization_config"] = {"quant_method": "fp8", "fmt": "e4m3", "store_dtype": "mxfp4", "mxfp4_block_size": 32,
                            "weight_block_size": [128, 128], "activation_scheme": "dynamic"}
json.dump(v, open(sys.argv[1] + "/mimo-v26.json", "w"))' "$HF"
check "models: MiMo-V2-Flash imports (K/V heads 8 windowed, 4 global; values 128 beside 192; 9 global layers)" \
    imported "$S/mimo-v2-flash-shapes.json" "$HF/f-mimo.json" num_kv_heads=8 global_num_kv_heads=4 d_head=192 \
    d_head_v=128 sliding_window=128 full_attention_layers=9 full_attention_interval=None num_dense_layers=1 \
    num_routed_experts=256
check "models: MiMo-V2-Flash's parameters by hand: 308,778,766,336, 15,445,921,792 active; it serves on 8 B200s" \
    counted mimo "$HF/f-mimo.json" b200 308778766336 15445921792 --set num_chips=8 --tp 8 \
    --set expert_parallelism_degree=8 -- --tp 8 --set expert_parallelism_degree=8 --rate 2
check "models: MiMo-V2.5 (mimo_v2, a vision_config beside the text keys) imports as MiMo-V2-Flash's language model" \
    sh -c "$NPUSIM import model '$HF/mimo-v25.json' -o '$HF/f-mimo-v25.json' >/dev/null 2>&1 && python3 -c '
import json, sys
a, b = (json.load(open(f)) for f in sys.argv[1:])
sys.exit(\"mimo_v2 multimodal wrapper\" not in a.pop(\"source\") or (b.pop(\"source\"), a != b)[1])' '$HF/f-mimo-v25.json' '$HF/f-mimo.json'"
check "models: MiMo's fp8 with store_dtype mxfp4 imports as fp4 experts in blocks of 32, the rest fp8" \
    imported "$HF/mimo-v26.json" "$HF/f-mimo-v26.json" weight_dtype=fp8 expert_weight_dtype=fp4 scale_block=32 \
    weight_scale_block_n=1 scale_dtype=fp8
for bad in 'hlp-2:key "hybrid_layer_pattern": an item other than 0 or 1' \
           'moe-late:key "moe_layer_freq": a dense layer after an expert layer' \
           'swa-dh:key "swa_head_dim": windowed layers whose query heads or head widths differ' \
           'hlp-str:key "hybrid_layer_pattern": expected a list of 0 or 1'; do
    expect_fail "models: MiMo-V2-Flash's ${bad%%:*} is refused, naming the key" "${bad#*:}" \
        $NPUSIM import model "$HF/mimo-${bad%%:*}.json" -o "$HF/bad/x.json"
done
expect_fail "models: training refuses value heads of their own width, naming d_head_v" \
    'model field "d_head_v": set, but LLM training' \
    $NPUSIM run --configs $CONFIGS -m llama3-8b -c h100 --set d_head_v=64 -w training -o "$HF/bad"
# LFM2-MoE (lfm2_moe): LFM2's layers, the FFN after the first num_dense_layers a mixture of 32
# experts of 1792, top 4. By hand: 18 convolutions of 16,783,360, 6 attention layers of 10,485,760,
# 2 dense FFNs of 3 x 2048 x 7168 = 44,040,192, 22 mixtures of 32 x 3 x 2048 x 1792 = 352,321,536
# and a 2048 x 32 router, 49 norms of 2048 and the tied 65536 x 2048: 8,339,929,088 (its card:
# 8.3B); active: 4 experts of 11,010,048 and the router a mixture, 1,557,739,520 (1.5B).
check "models: LFM2-MoE imports (2 dense layers, then 32 experts of 1792, top 4, among short convolutions)" \
    imported "$S/lfm2-8b-a1b-shapes.json" "$HF/f-lfm2-moe.json" ffn_type=moe num_dense_layers=2 num_routed_experts=32 \
    num_activated_routed_experts_per_token=4 moe_d_ff=1792 d_ff=7168 linear_kind=short_conv full_attention_layers=6 \
    num_shared_experts=0 tie_word_embeddings=True
check "models: LFM2-8B-A1B's parameters by hand: 8,339,929,088, 1,557,739,520 active; it serves" \
    counted lfm2-moe "$HF/f-lfm2-moe.json" h100 8339929088 1557739520 -- --rate 4
python3 -c 'import json, sys
j = json.load(open("tests/samples/hf/lfm2-1.2b-shapes.json"))
json.dump(dict(j, full_attn_idxs=[2, 5, 16]), open(sys.argv[1] + "/lfm2-bad.json", "w"))' "$HF"
expect_fail "models: an LFM2 attention index past the last layer is refused, naming the key" 'key "full_attn_idxs": item 2: expected a layer number from 0 to 15' \
    $NPUSIM import model "$HF/lfm2-bad.json" -o "$HF/bad/x.json"
expect_fail "models: training refuses a global attention shape, naming it" 'model field "global_d_head": set, but LLM training' \
    $NPUSIM run --configs $CONFIGS -m llama3-8b -c h100 --set global_d_head=256 -w training -o "$HF/bad"
expect_fail "models: training refuses moe_latent_size, naming it" 'model field "moe_latent_size": 1024, but LLM training' \
    $NPUSIM run --configs $CONFIGS -m mixtral-8x7b -c h100 --set num_chips=8 --set moe_latent_size=1024 -w training -o "$HF/bad"
expect_fail "models: a hybrid_override_pattern letter other than M, *, - or E is refused, naming it" 'item 51 "X": expected M, \*, - or E' \
    $NPUSIM import model "$HF/nemo-letter.json" -o "$HF/bad/x.json"
expect_fail "models: MLP and expert blocks together are refused" 'MLP and expert blocks together' \
    $NPUSIM import model "$HF/nemo-mixed.json" -o "$HF/bad/x.json"
expect_fail "models: more FFN blocks than mixers are refused" '30 FFN blocks to 22 mixer blocks' \
    $NPUSIM import model "$HF/nemo-ffns.json" -o "$HF/bad/x.json"
# Bamba's attn_layer_indices (Bamba-9B: 9, 18 and 27 of 32): every 9th from layer 9; irregular
# ones count (full_attention_layers); a layer listed twice, or past the last, is refused.
python3 -c 'import json, sys
j = json.load(open("tests/samples/hf/llama-3.1-8b.json"))
b = dict(j, model_type="bamba", mamba_n_heads=128, mamba_d_head=64, mamba_n_groups=1, mamba_d_state=128,
         mamba_d_conv=4, mamba_expand=2, attn_layer_indices=[9, 18, 27])
for k, v in {"bamba": [9, 18, 27], "bamba-odd": [3, 18, 27], "bamba-twice": [9, 9], "bamba-past": [9, 32]}.items():
    json.dump(dict(b, attn_layer_indices=v), open(sys.argv[1] + "/" + k + ".json", "w"))' "$HF"
check_import "Bamba's attention layers:" "$HF/bamba.json linear_kind=mamba2 full_attention_interval=9 first_full_attention_layer=9 full_attention_layers=None linear_value_heads=128 ffn_type=llama"
check_import "Bamba's irregular attention layers:" "$HF/bamba-odd.json full_attention_interval=0 full_attention_layers=3"
expect_fail "models: Bamba's attn_layer_indices with a layer twice is refused" 'key "attn_layer_indices": item 1: layer 9 listed twice' \
    $NPUSIM import model "$HF/bamba-twice.json" -o "$HF/bad/x.json"
expect_fail "models: Bamba's attn_layer_indices past the last layer is refused" 'key "attn_layer_indices": item 1: expected a layer number from 0 to 31' \
    $NPUSIM import model "$HF/bamba-past.json" -o "$HF/bad/x.json"
check "models: a Mamba-2 hybrid serves (Granite 4.0-H-350M: 50 chat requests, each with its state)" sh -c "
  $NPUSIM serving --configs $CONFIGS -m $S/granite-4.0-h-350m.json -c h100 --rate 5 --requests 50 --lengths chat \
    --json >'$HF/g350-serve.json' 2>/dev/null &&
  python3 -c 'import json, sys; sys.exit(json.load(open(sys.argv[1]))[\"completed\"] != 50)' '$HF/g350-serve.json'"
# what lands where: gpt-oss's alternating 128-token window and MXFP4 experts, Gemma 2's
# every-other-layer window (its type's pattern), Phi-3's window on every layer, AWQ's int4
# groups of 128 with fp16 scales, Mixtral's experts, Qwen2-MoE's shared expert in experts' widths;
# and quantization_config as the other methods write it, on Llama 3.1 8B: bitsandbytes 4-bit with
# double quantisation (int4, blocks of 64, fp8 scales) and 8-bit (int8, per-row scales),
# ModelOpt NVFP4 (fp4, blocks of 16, fp8 scales), compressed-tensors int4 groups of 128 and
# fp8, a ModelOpt export naming its producer and no quant_method (Qwen3-32B-FP8-Static-PerTensor's),
# ModelOpt's MIXED_PRECISION (Qwen3.6-NVFP4's: attention in fp8, experts in NVFP4);
# an unknown method is refused naming it
python3 -c 'import json, sys
base = json.load(open("tests/samples/hf/llama-3.1-8b.json"))
qs = {"bnb4": {"quant_method": "bitsandbytes", "load_in_4bit": True, "bnb_4bit_use_double_quant": True},
      "bnb8": {"quant_method": "bitsandbytes", "load_in_8bit": True},
      "nvfp4": {"quant_method": "modelopt", "quant_algo": "NVFP4"},
      "ct4": {"quant_method": "compressed-tensors", "config_groups": {"group_0": {"weights": {"num_bits": 4, "type": "int", "group_size": 128}}}},
      "ct8": {"quant_method": "compressed-tensors", "config_groups": {"group_0": {"weights": {"num_bits": 8, "type": "float"}}}},
      "mo8": {"quant_algo": "FP8", "producer": {"name": "modelopt", "version": "0.31.0"}, "kv_cache_scheme": "FP8"},
      "hqq": {"quant_method": "hqq"}}
moe = json.load(open("tests/samples/hf/qwen3-30b-a3b.json"))
mixed = {"quant_method": "modelopt", "quant_algo": "MIXED_PRECISION", "producer": {"name": "modelopt"},
         "quantized_layers": {"model.layers.0.self_attn.q_proj": {"quant_algo": "FP8"},
                              "model.layers.0.mlp.experts": {"quant_algo": "W4A16_NVFP4", "group_size": 16},
                              "lm_head": {"quant_algo": "W4A16_NVFP4"}}}
json.dump(dict(moe, quantization_config=mixed), open(sys.argv[1] + "/q-mixed.json", "w"))
ds = json.load(open("tests/samples/hf/deepseek-v3.json"))
json.dump(dict(ds, quantization_config=mixed), open(sys.argv[1] + "/q-mixed-ds.json", "w"))
mixed["quantized_layers"]["model.layers.0.mlp.down_proj"] = {"quant_algo": "W4A16_NVFP4"}
json.dump(dict(base, quantization_config=mixed), open(sys.argv[1] + "/q-mixed-dense.json", "w"))
for k, q in qs.items():
    json.dump(dict(base, quantization_config=q), open(sys.argv[1] + "/q-" + k + ".json", "w"))' "$HF"
for want in "$S/gpt-oss-120b.json sliding_window=128 full_attention_interval=2 expert_weight_dtype=fp4 scale_block=32 ffn_type=moe num_routed_experts=128 num_activated_routed_experts_per_token=4" \
            "$S/gemma-2-9b-it.json sliding_window=4096 full_attention_interval=2 ffn_type=geglu tie_word_embeddings=True" \
            "$S/phi-3-medium-4k.json sliding_window=2047 full_attention_interval=None" \
            "$S/llama-3.1-70b-awq-int4.json weight_dtype=int4 scale_block=128 weight_scale_block_n=1 scale_dtype=fp16" \
            "$S/mixtral-8x7b.json ffn_type=moe moe_d_ff=14336 num_routed_experts=8 num_shared_experts=0 sliding_window=None" \
            "$S/qwen2-57b-a14b.json moe_d_ff=2560 num_shared_experts=8 d_ff=18944 sliding_window=None" \
            "$S/qwen3-next-80b-a3b.json linear_value_heads=32 linear_key_heads=16 linear_key_dim=128 full_attention_interval=4 attention_output_gate=True linear_state_dtype=bf16 num_routed_experts=512 sliding_window=None" \
            "$S/qwen3.5-35b-a3b.json linear_value_heads=32 linear_state_dtype=fp32 d_ff=512 num_shared_experts=1 tie_word_embeddings=None" \
            "$S/step-3.7-flash.json sliding_window=512 full_attention_interval=4 first_full_attention_layer=0 num_dense_layers=3 num_shared_experts=1" \
            "$S/glm-5.json index_topk=2048 index_heads=32 index_head_dim=128 qk_rope_head_dim=64 qk_nope_head_dim=192 v_head_dim=256" \
            "$S/deepseek-v3.2.json index_topk=2048 index_heads=64 index_head_dim=128 weight_dtype=fp8" \
            "$S/granite-4.0-h-350m.json linear_kind=mamba2 linear_value_heads=48 linear_value_dim=32 linear_key_heads=1 linear_key_dim=128 linear_chunk_size=256 full_attention_interval=0 full_attention_layers=4 ffn_type=llama d_ff=2048 linear_state_dtype=bf16" \
            "$S/granite-4.0-h-small-shapes.json linear_kind=mamba2 linear_value_heads=128 linear_value_dim=64 full_attention_interval=10 first_full_attention_layer=5 full_attention_layers=None ffn_type=moe moe_d_ff=768 num_shared_experts=2 num_routed_experts=72" \
            "$S/granite-4-8b-dense-hybrid.json linear_value_heads=None linear_kind=None ffn_type=llama d_ff=12800 tie_word_embeddings=True" \
            "$S/minicpm-moe-8x2b.json ffn_type=moe moe_d_ff=5760 num_routed_experts=8 num_activated_routed_experts_per_token=2 tie_word_embeddings=True" \
            "$S/mimo-7b.json d_model=4096 num_kv_heads=8 d_ff=11008 vocab_size=151680 sliding_window=None tie_word_embeddings=None" \
            "$S/ministral3-3b.json d_model=3072 num_layers=26 num_kv_heads=8 d_head=128 tie_word_embeddings=True" \
            "$HF/q-bnb4.json weight_dtype=int4 scale_block=64 weight_scale_block_n=1 scale_dtype=fp8" \
            "$HF/q-bnb8.json weight_dtype=int8 scale_block=None" \
            "$HF/q-nvfp4.json weight_dtype=fp4 scale_block=16 scale_dtype=fp8" \
            "$HF/q-ct4.json weight_dtype=int4 scale_block=128 scale_dtype=fp16" \
            "$HF/q-ct8.json weight_dtype=fp8 scale_block=None" \
            "$HF/q-mo8.json weight_dtype=fp8 scale_block=None" \
            "$HF/q-mixed.json weight_dtype=fp8 expert_weight_dtype=fp4 scale_block=16 scale_dtype=fp8"; do
    check_import maps "$want"
done
# An NVFP4 DeepSeek (MIXED_PRECISION, experts NVFP4 beside fp8) imports and runs with its experts in fp4
check "models: a DeepSeek with ModelOpt's MIXED_PRECISION runs its experts in fp4" sh -c "
  $NPUSIM import model '$HF/q-mixed-ds.json' -o '$HF/q-mixed-ds.npu.json' >/dev/null 2>&1 &&
  $NPUSIM run --configs $CONFIGS -m '$HF/q-mixed-ds.npu.json' -c b200 --set num_chips=8 --set tensor_parallelism_degree=8 \
    --set expert_parallelism_degree=8 --no-energy -o '$HF/q-mixed-ds' 2>/dev/null | grep -q 'weights fp8 (experts fp4)'"
expect_fail "models: ModelOpt's MIXED_PRECISION with two formats among a dense model's layers is refused, naming them" \
    'MIXED_PRECISION: fp8 and fp4 among the non-expert layers' $NPUSIM import model "$HF/q-mixed-dense.json" -o "$HF/bad/md.json"
expect_fail "models: an unknown quantization method is refused, naming it" 'quant_method "hqq"' \
    $NPUSIM run --configs $CONFIGS -m "$HF/q-hqq.json" -c h100 -o "$HF/bad"
# a layer pattern npusim has no form for, and a Qwen list of dense layers
python3 -c 'import json
j = json.load(open("tests/samples/hf/gpt-oss-20b.json"))
j["layer_types"][0], j["layer_types"][1] = "full_attention", "sliding_attention"
json.dump(j, open("'"$HF"'/odd-layers.json", "w"))
j = json.load(open("tests/samples/hf/qwen3-30b-a3b.json"))
j["mlp_only_layers"] = [0, 5]
json.dump(j, open("'"$HF"'/mlp-only.json", "w"))
j = json.load(open("tests/samples/hf/gemma-2-9b-it.json"))
j["sliding_window"] = -4096
json.dump(j, open("'"$HF"'/neg-window.json", "w"))
j = json.load(open("tests/samples/hf/gemma-2-9b-it.json"))
del j["architectures"], j["num_hidden_layers"]
json.dump(j, open("'"$HF"'/not-hf.json", "w"))
j = json.load(open("tests/samples/hf/hunyuan-a13b.json"))
json.dump(dict(j, use_cla=True), open("'"$HF"'/hy-cla.json", "w"))
json.dump(dict(j, moe_topk=[8] * 31 + [4]), open("'"$HF"'/hy-topk.json", "w"))
json.dump(dict(j, use_mixed_mlp_moe=False), open("'"$HF"'/hy-noshared.json", "w"))'
expect_fail "models: layer_types off every N-th layer global is refused, naming the item" 'key "layer_types": item 5: npusim'"'"'s pattern is every N-th layer full attention from the first (layer 0, N = 3)' \
    $NPUSIM run --configs $CONFIGS -m "$HF/odd-layers.json" -c h100 -o "$HF/bad"
expect_fail "models: a negative sliding_window is refused, naming the key" 'key "sliding_window": expected a positive whole number of tokens or null' \
    $NPUSIM run --configs $CONFIGS -m "$HF/neg-window.json" -c h100 -o "$HF/bad"
expect_fail "models: a config.json without what marks it as one says what does" 'a Hugging Face config.json? one is read as such when it has "architectures", or both "hidden_size" and "num_hidden_layers"' \
    $NPUSIM run --configs $CONFIGS -m "$HF/not-hf.json" -c h100 -o "$HF/bad"
expect_fail "models: Qwen's mlp_only_layers list is refused, naming it" 'key "mlp_only_layers"' \
    $NPUSIM run --configs $CONFIGS -m "$HF/mlp-only.json" -c h100 -o "$HF/bad"
expect_fail "models: Hunyuan's cross-layer attention (use_cla) is refused, naming it" 'key "use_cla": cross-layer attention' \
    $NPUSIM run --configs $CONFIGS -m "$HF/hy-cla.json" -c h100 -o "$HF/bad"
expect_fail "models: a per-layer list whose values differ is refused, naming the key" 'key "moe_topk": a different value per layer' \
    $NPUSIM import model "$HF/hy-topk.json" -o "$HF/bad/hy.json"
check_import maps "$HF/hy-noshared.json num_shared_experts=0 num_activated_routed_experts_per_token=8 moe_d_ff=3072"
# a wrapper npusim does not open (Mllama: cross-attention layers among the text layers)
python3 -c 'import json
j = json.load(open("tests/samples/hf/llava-1.5-7b.json"))
j["model_type"], j["architectures"] = "mllama", ["MllamaForConditionalGeneration"]
json.dump(j, open("'"$HF"'/mllama.json", "w"))'
# model types npusim has no layers for: a hybrid with Mamba layers, an encoder and an empty type (each
# a Llama 3.1 8B file with the type changed: the type alone decides; the empty one once looped
# forever, found by fuzzing)
python3 -c 'import json, sys
j = json.load(open("tests/samples/hf/llama-3.1-8b.json"))
for t in ("zamba", "bert", "", "rwkv5", "nemotron-nas"):
    json.dump(dict(j, model_type=t), open(sys.argv[1] + "/" + (t or "empty-type") + ".json", "w"))' "$HF"
for bad in 't5-small:key "is_encoder_decoder": an encoder-decoder model' \
           "$HF/mllama"':key "vision_config": a vision tower' \
           "$HF/zamba"':model_type "zamba": state-space layers npusim has no form for' \
           "$HF/bert"':model_type "bert": not a decoder npusim knows' \
           "$HF/rwkv5"':model_type "rwkv5": linear-attention or recurrent layers' \
           "$HF/nemotron-nas"':model_type "nemotron-nas": a different block per layer' \
           "$HF/empty-type"':model_type "": not a decoder npusim knows'; do
    m=${bad%%:*}; want=${bad#*:}
    case $m in /*) f=$m.json; m=${m##*/} ;; *) f=$S/$m.json ;; esac
    expect_fail "models: $m is refused, naming what is unsupported" "$want" $NPUSIM run --configs $CONFIGS -m "$f" -c h100 -o "$HF/bad"
    expect_fail "models: import model refuses $m alike" "$want" $NPUSIM import model "$f" -o "$HF/bad/$m.json"
done
# Multimodal wrappers run as their language model: Llama 4 Scout's wrapper as its text_config
# alone (the same TTFT and TPOT), its source saying the vision tower is not simulated; a
# Qwen2-VL-style file (Qwen2.5-7B's keys at the top, a vision_config beside them) as Qwen2.5-7B.
python3 -c 'import json
j = json.load(open("tests/samples/hf/qwen2.5-7b.json"))
j["model_type"], j["architectures"] = "qwen2_vl", ["Qwen2VLForConditionalGeneration"]
j["vision_config"] = {"depth": 32, "embed_dim": 1280, "hidden_size": 3584}
json.dump(j, open("'"$HF"'/qwen2-vl.json", "w"))'
check "models: a multimodal wrapper runs as its language model (Llama 4 Scout, a Qwen2-VL-style file)" sh -c "
  $NPUSIM run --configs $CONFIGS -m $S/llama-4-scout-instruct.json -c h100 --tp 8 --set num_chips=8 >'$HF/l4w.txt' 2>/dev/null &&
  $NPUSIM run --configs $CONFIGS -m $S/llama-4-scout-text.json -c h100 --tp 8 --set num_chips=8 >'$HF/l4t.txt' 2>/dev/null &&
  [ \"\$(sed -n '2,3p' '$HF/l4w.txt')\" = \"\$(sed -n '2,3p' '$HF/l4t.txt')\" ] &&
  $NPUSIM run --configs $CONFIGS -m '$HF/qwen2-vl.json' -c h100 >'$HF/qvl.txt' 2>/dev/null &&
  $NPUSIM run --configs $CONFIGS -m $S/qwen2.5-7b.json -c h100 >'$HF/q25.txt' 2>/dev/null &&
  [ \"\$(sed -n '2,3p' '$HF/qvl.txt')\" = \"\$(sed -n '2,3p' '$HF/q25.txt')\" ] &&
  $NPUSIM import model $S/llama-4-scout-instruct.json -o '$HF/l4.json' >/dev/null 2>'$HF/l4.err' &&
  grep -q 'language model of a llama4 multimodal wrapper; its vision tower is not simulated' '$HF/l4.json' &&
  grep -q 'keys ignored.*image_token_index' '$HF/l4.err'"
# GLM-4.5V and 4.6V (glm4v_moe): the text_config's own type, glm4v_moe_text, is GLM-4.5's decoder
# (its n_routed_experts, n_shared_experts, first_k_dense_replace): a wrapper around GLM-4.7's keys
# runs as GLM-4.7 (the same TTFT, TPOT and parameters); GLM-4.1V (glm4v) as GLM-4's dense decoder.
python3 -c 'import json, sys
t = json.load(open("tests/samples/hf/glm-4.7-fp8.json"))
q = t.pop("quantization_config", None)
tc = dict(t, model_type="glm4v_moe_text")
w = {"model_type": "glm4v_moe", "architectures": ["Glm4vMoeForConditionalGeneration"], "text_config": tc,
     "vision_config": {"depth": 24, "hidden_size": 1536}, "image_token_id": 151363, "tie_word_embeddings": False}
if q: w["quantization_config"] = q
json.dump(w, open(sys.argv[1] + "/glm45v.json", "w"))
d = json.load(open("tests/samples/hf/llama-3.1-8b.json"))
json.dump({"model_type": "glm4v", "architectures": ["Glm4vForConditionalGeneration"], "text_config": dict(d, model_type="glm4v_text")}, open(sys.argv[1] + "/glm41v.json", "w"))
json.dump(dict(d, model_type="glm4"), open(sys.argv[1] + "/glm4-plain.json", "w"))' "$HF"
check "models: GLM-4.5V's wrapper (glm4v_moe) runs as its GLM-4.5 decoder, GLM-4.1V's (glm4v) as GLM-4's" sh -c "
  $NPUSIM run --configs $CONFIGS -m '$HF/glm45v.json' -c h100 --tp 8 --set num_chips=8 >'$HF/g45v.txt' 2>/dev/null &&
  $NPUSIM run --configs $CONFIGS -m $S/glm-4.7-fp8.json -c h100 --tp 8 --set num_chips=8 >'$HF/g47.txt' 2>/dev/null &&
  [ \"\$(sed -n '2,3p' '$HF/g45v.txt')\" = \"\$(sed -n '2,3p' '$HF/g47.txt')\" ] &&
  $NPUSIM import model '$HF/glm45v.json' -o '$HF/g45v.json' >/dev/null 2>&1 &&
  grep -q 'language model of a glm4v_moe multimodal wrapper' '$HF/g45v.json' &&
  $NPUSIM run --configs $CONFIGS -m '$HF/glm41v.json' -c h100 >'$HF/g41v.txt' 2>/dev/null &&
  $NPUSIM run --configs $CONFIGS -m '$HF/glm4-plain.json' -c h100 >'$HF/g4.txt' 2>/dev/null &&
  [ \"\$(sed -n '2,3p' '$HF/g41v.txt')\" = \"\$(sed -n '2,3p' '$HF/g4.txt')\" ]"
# More wrappers, each around a sample's keys, run as that sample: InternVL (internvl_chat: llm_config),
# DeepSeek-VL2 (deepseek_vl_v2: language_config), Qwen3-Omni (qwen3_omni_moe: its thinker's text_config,
# the talker not simulated), Kimi-VL (kimi_vl), Qwen2-Audio (qwen2_audio), Voxtral (voxtral), Aya Vision
# (aya_vision): the same TTFT and TPOT as the sample alone.
python3 -c 'import json, sys
S = "tests/samples/hf/"
def load(f): return json.load(open(S + f))
cases = {
  "internvl": ({"model_type": "internvl_chat", "architectures": ["InternVLChatModel"], "llm_config": load("qwen3-8b.json"),
                "vision_config": {"hidden_size": 1024}, "template": "internvl2_5"}, "qwen3-8b.json"),
  "dsvl2": ({"model_type": "deepseek_vl_v2", "architectures": ["DeepseekVLV2ForCausalLM"],
             "language_config": dict(load("deepseek-v2-lite.json"), model_type="deepseek_v2"), "vision_config": {"width": 1152}},
            "deepseek-v2-lite.json"),
  "omni": ({"model_type": "qwen3_omni_moe", "architectures": ["Qwen3OmniMoeForConditionalGeneration"],
            "thinker_config": {"text_config": dict(load("qwen3-30b-a3b.json"), model_type="qwen3_omni_moe_text"),
                               "vision_config": {"depth": 27}}, "talker_config": {"text_config": {"hidden_size": 1024}}},
           "qwen3-30b-a3b.json"),
  "kimivl": ({"model_type": "kimi_vl", "architectures": ["KimiVLForConditionalGeneration"],
              "text_config": load("deepseek-v3.json"), "vision_config": {"hidden_size": 1152}}, "deepseek-v3.json"),
  "q2audio": ({"model_type": "qwen2_audio", "architectures": ["Qwen2AudioForConditionalGeneration"],
               "text_config": load("qwen2.5-7b.json"), "audio_config": {"d_model": 1280}}, "qwen2.5-7b.json"),
  "voxtral": ({"model_type": "voxtral", "architectures": ["VoxtralForConditionalGeneration"],
               "text_config": load("llama-3.1-8b.json"), "audio_config": {"hidden_size": 1280}}, "llama-3.1-8b.json"),
  "aya": ({"model_type": "aya_vision", "architectures": ["AyaVisionForConditionalGeneration"],
           "text_config": dict(load("aya-23-8b.json"), model_type="cohere2"), "vision_config": {"hidden_size": 1152}},
          None),
}
for k, (w, inner) in cases.items():
    json.dump(w, open(sys.argv[1] + "/w-" + k + ".json", "w"))
    json.dump(load(inner) if inner else w["text_config"], open(sys.argv[1] + "/w-" + k + "-inner.json", "w"))' "$HF"
for w in internvl dsvl2 omni kimivl q2audio voxtral aya; do
    case $w in dsvl2|kimivl) chips="--tp 8 --set num_chips=8" ;; omni) chips="--tp 2 --set num_chips=2" ;; *) chips="" ;; esac
    check "models: the $w wrapper runs as the language model it holds (the same TTFT and TPOT)" sh -c "
      $NPUSIM run --configs $CONFIGS -m '$HF/w-$w.json' -c h100 $chips >'$HF/w-$w.txt' 2>/dev/null &&
      $NPUSIM run --configs $CONFIGS -m '$HF/w-$w-inner.json' -c h100 $chips >'$HF/w-$w-inner.txt' 2>/dev/null &&
      [ \"\$(sed -n '2,3p' '$HF/w-$w.txt')\" = \"\$(sed -n '2,3p' '$HF/w-$w-inner.txt')\" ]"
done
# Gemma 3 12B's text_config is sparse (Transformers writes a nested config's non-default keys):
# Gemma3TextConfig's defaults fill it: head_dim 256, vocabulary 262208, gated GELU, tied, every
# 6th layer global over a 1024-token window
check "models: Gemma 3 12B's sparse text_config takes Gemma3TextConfig's defaults" sh -c "
  $NPUSIM import model $S/gemma-3-12b-it.json -o '$HF/g3.json' >/dev/null 2>&1 &&
  python3 -c 'import json, sys
j = json.load(open(sys.argv[1]))
want = {\"d_model\": 3840, \"d_head\": 256, \"num_heads\": 16, \"num_kv_heads\": 8, \"d_ff\": 15360, \"num_layers\": 48,
        \"vocab_size\": 262208, \"ffn_type\": \"geglu\", \"sliding_window\": 1024, \"full_attention_interval\": 6,
        \"tie_word_embeddings\": True, \"weight_dtype\": \"bf16\"}
sys.exit(any(j.get(k) != v for k, v in want.items()))' '$HF/g3.json'"
# Families that name the shapes their own way, read under the common names with what they imply
# (study/hf/hf_names.c; Transformers' configuration_*.py): Falcon's original keys (n_head, n_layer)
# with multi-query attention (one KV head), Falcon-40B's new architecture (n_head_kv 8), an ungated
# FFN 4 x hidden wide and parallel blocks; GPT-BigCode's default multi-query; ChatGLM's
# multi_query_group_num, padded vocabulary and kv_channels; the first Qwen's intermediate_size
# counting both branches (22016: 11008 each); MPT's expansion_ratio; OPT's ReLU; Phi-2's parallel
# GELU; GPT-NeoX without parallel residuals; Nemotron's squared ReLU; ERNIE 4.5's and Ling's
# experts; GPT-2 (the sample: n_embd, n_head, n_layer, no n_inner) tied and 4 x 768 wide; the real
# Phi-2 and Ling-plus files. The other files are written here by hand in their families' key names
# with shapes like those models' (not copies: the checks are of the names and the rules).
python3 -c 'import json, sys
d = sys.argv[1]
files = {
 "falcon-7b": {"model_type": "falcon", "architectures": ["RWForCausalLM"], "hidden_size": 4544, "n_head": 71, "n_layer": 32,
               "multi_query": True, "parallel_attn": True, "vocab_size": 65024, "torch_dtype": "bfloat16", "alibi": False},
 "falcon-40b": {"model_type": "falcon", "architectures": ["RWForCausalLM"], "hidden_size": 8192, "n_head": 128, "n_head_kv": 8,
                "n_layer": 60, "new_decoder_architecture": True, "parallel_attn": True, "vocab_size": 65024},
 "starcoder": {"model_type": "gpt_bigcode", "architectures": ["GPTBigCodeForCausalLM"], "n_embd": 6144, "n_head": 48,
               "n_layer": 40, "n_inner": 24576, "n_positions": 8192, "vocab_size": 49152, "activation_function": "gelu_pytorch_tanh"},
 "chatglm3": {"model_type": "chatglm", "architectures": ["ChatGLMModel"], "hidden_size": 4096, "num_layers": 28,
              "num_attention_heads": 32, "kv_channels": 128, "ffn_hidden_size": 13696, "multi_query_attention": True,
              "multi_query_group_num": 2, "padded_vocab_size": 65024, "seq_length": 8192},
 "exaone": {"model_type": "exaone", "architectures": ["ExaoneForCausalLM"], "hidden_size": 4096, "intermediate_size": 14336,
            "num_attention_heads": 32, "num_key_value_heads": 8, "head_dim": 128, "num_layers": 32,
            "activation_function": "silu", "vocab_size": 102400},
 "qwen-7b": {"model_type": "qwen", "architectures": ["QWenLMHeadModel"], "hidden_size": 4096, "intermediate_size": 22016,
             "num_attention_heads": 32, "num_hidden_layers": 32, "kv_channels": 128, "seq_length": 8192, "vocab_size": 151936},
 "mpt-7b": {"model_type": "mpt", "architectures": ["MPTForCausalLM"], "d_model": 4096, "n_heads": 32, "n_layers": 32,
            "expansion_ratio": 4, "max_seq_len": 2048, "vocab_size": 50432, "attn_config": {"attn_impl": "torch"}},
 "opt-6.7b": {"model_type": "opt", "architectures": ["OPTForCausalLM"], "hidden_size": 4096, "ffn_dim": 16384,
              "num_attention_heads": 32, "num_hidden_layers": 32, "activation_function": "relu", "vocab_size": 50272},
 "neox": {"model_type": "gpt_neox", "architectures": ["GPTNeoXForCausalLM"], "hidden_size": 2048, "intermediate_size": 8192,
          "num_attention_heads": 16, "num_hidden_layers": 24, "hidden_act": "gelu", "vocab_size": 50304,
          "use_parallel_residual": False},
 "nemotron": {"model_type": "nemotron", "architectures": ["NemotronForCausalLM"], "hidden_size": 4096, "intermediate_size": 16384,
              "num_attention_heads": 32, "num_key_value_heads": 8, "head_dim": 128, "num_hidden_layers": 32,
              "hidden_act": "relu2", "vocab_size": 256000},
 "ernie-moe": {"model_type": "ernie4_5_moe", "architectures": ["Ernie4_5_MoeForCausalLM"], "hidden_size": 2560,
               "intermediate_size": 12288, "num_attention_heads": 20, "num_key_value_heads": 4, "num_hidden_layers": 28,
               "moe_num_experts": 64, "moe_k": 6, "moe_intermediate_size": 1536, "moe_num_shared_experts": 2,
               "moe_layer_start_index": 1, "moe_layer_interval": 1, "moe_layer_end_index": 27, "vocab_size": 103424},
 "granite-moe-shared": {"model_type": "granitemoeshared", "architectures": ["GraniteMoeSharedForCausalLM"],
                        "hidden_size": 1024, "intermediate_size": 512, "shared_intermediate_size": 1024,
                        "num_local_experts": 32, "num_experts_per_tok": 8, "num_attention_heads": 16,
                        "num_key_value_heads": 8, "num_hidden_layers": 24, "vocab_size": 49155},
 "ling": {"model_type": "bailing_moe", "architectures": ["BailingMoeForCausalLM"], "hidden_size": 2048, "intermediate_size": 5632,
          "num_attention_heads": 16, "num_key_value_heads": 4, "num_hidden_layers": 28, "num_experts": 64,
          "num_experts_per_tok": 6, "num_shared_experts": 2, "moe_intermediate_size": 1408, "first_k_dense_replace": 0,
          "vocab_size": 126464},
}
for k, v in files.items():
    json.dump(v, open(d + "/" + k + ".json", "w"))
kimi = json.load(open("tests/samples/hf/deepseek-v3.json"))
kimi["model_type"] = "kimi_k2"   # Kimi K2: the DeepSeek-V3 architecture under its own type
json.dump(kimi, open(d + "/kimi-k2.json", "w"))
bad = dict(files["ernie-moe"], moe_layer_end_index=20)
json.dump(bad, open(d + "/ernie-moe-short.json", "w"))
json.dump(dict(files["qwen-7b"], model_type=5), open(d + "/type-number.json", "w"))
json.dump(dict(files["exaone"], quantization_config="fp8"), open(d + "/quant-string.json", "w"))
json.dump(dict(files["exaone"], quantization_config=None, torch_dtype="bfloat16"), open(d + "/quant-null.json", "w"))' "$HF"
for want in "$HF/falcon-7b.json num_heads=71 num_layers=32 num_kv_heads=1 d_ff=18176 ffn_type=gelu parallel_attn_ffn=True tie_word_embeddings=True" \
            "$HF/falcon-40b.json num_kv_heads=8 d_head=64 d_ff=32768 parallel_attn_ffn=True" \
            "$HF/starcoder.json d_model=6144 num_kv_heads=1 d_ff=24576 ffn_type=gelu tie_word_embeddings=True" \
            "$HF/chatglm3.json num_layers=28 num_kv_heads=2 d_head=128 d_ff=13696 vocab_size=65024 ffn_type=llama tie_word_embeddings=None" \
            "$HF/qwen-7b.json d_ff=11008 d_head=128 num_kv_heads=32 ffn_type=llama" \
            "$HF/exaone.json num_layers=32 num_kv_heads=8 d_ff=14336 ffn_type=llama" \
            "$HF/mpt-7b.json d_model=4096 num_heads=32 num_layers=32 d_ff=16384 ffn_type=gelu tie_word_embeddings=True" \
            "$HF/opt-6.7b.json d_ff=16384 ffn_type=relu tie_word_embeddings=True" \
            "$S/phi-2.json d_ff=10240 ffn_type=gelu parallel_attn_ffn=True tie_word_embeddings=None" \
            "$HF/neox.json ffn_type=gelu parallel_attn_ffn=None" \
            "$HF/nemotron.json ffn_type=relu num_kv_heads=8" \
            "$HF/ernie-moe.json ffn_type=moe num_routed_experts=64 num_activated_routed_experts_per_token=6 moe_d_ff=1536 num_shared_experts=2 num_dense_layers=1 moe_layer_step=1 tie_word_embeddings=True" \
            "$HF/ling.json ffn_type=moe num_routed_experts=64 num_shared_experts=2 num_dense_layers=0" \
            "$HF/granite-moe-shared.json ffn_type=moe moe_d_ff=512 num_shared_experts=2" \
            "$HF/kimi-k2.json ffn_type=deepseek_moe kv_lora_rank=512 num_routed_experts=256" \
            "$S/ling-plus.json ffn_type=moe num_routed_experts=64 num_activated_routed_experts_per_token=4 moe_d_ff=3072 num_shared_experts=1 d_ff=12288" \
            "$S/gpt2.json d_model=768 num_heads=12 num_layers=12 d_ff=3072 ffn_type=gelu tie_word_embeddings=True"; do
    check_import "reads its own key names:" "$want"
done
check "models: the other names are read, not listed as ignored (Falcon's n_head, multi_query; ChatGLM's padded_vocab_size)" sh -c "
  $NPUSIM import model '$HF/falcon-7b.json' -o '$HF/i-falcon.json' 2>'$HF/i-falcon.err' >/dev/null &&
  $NPUSIM import model '$HF/chatglm3.json' -o '$HF/i-glm.json' 2>'$HF/i-glm.err' >/dev/null &&
  grep -q 'keys ignored.*alibi' '$HF/i-falcon.err' && ! grep -q 'n_head\|multi_query\|n_layer' '$HF/i-falcon.err' &&
  ! grep -q 'padded_vocab_size\|kv_channels\|num_layers' '$HF/i-glm.err'"
expect_fail "models: ERNIE 4.5's experts ending before the last layer are refused, naming moe_layer_end_index" \
    'key "moe_layer_end_index"' $NPUSIM run --configs $CONFIGS -m "$HF/ernie-moe-short.json" -c h100 -o "$HF/bad"
expect_fail "models: a model_type that is not a string is named as such" \
    'key "model_type": expected a string' $NPUSIM run --configs $CONFIGS -m "$HF/type-number.json" -c h100 -o "$HF/bad"
expect_fail "models: a quantization_config that is not an object is named as such" \
    'key "quantization_config": expected an object' $NPUSIM run --configs $CONFIGS -m "$HF/quant-string.json" -c h100 -o "$HF/bad"
no_files "models: the refused configs wrote nothing" "$HF/bad"
check_import "a null quantization_config is none:" "$HF/quant-null.json weight_dtype=bf16"
# Training a mixture (the same layer pattern as inference and serving): Qwen3-30B-A3B on 8
# chips, dp 8 and ep 8 with ZeRO 1. Each chip runs its 16 of the 128 experts in each of the 48
# layers (one grouped GEMM a projection and layer, count 48, over 16 experts) on 4096 tokens each (8 replicas x 2 x 4096 tokens x top-8 / 128), forward
# and backward; the experts' gradients have no replica to be summed with, so the reduce-scatter
# moves the replicated parameters only: 48 x (2048 x 4096 x 2 + 2048 x 512 x 2) attention,
# 48 x 128 x 2048 routers and 2 x 151936 x 2048 embedding and head = 1540882432.
check "models: a mixture's training step: experts per chip, their tokens, no gradient sum for them" sh -c "
  $NPUSIM run --configs $CONFIGS -m qwen3-30b-a3b -c h100 -w training --set num_chips=8 --set data_parallelism_degree=8 \
    --set expert_parallelism_degree=8 --set zero_stage=1 --batch 16 --seqlen 4096_1 -o '$HF/moe-train' >'$HF/moe-train.txt' 2>&1 &&
  python3 -c 'import csv, glob, sys
rows = list(csv.DictReader(open(glob.glob(sys.argv[1] + \"/*.csv\")[0])))
fwd = [r for r in rows if r[\"Description\"] == \"FFN_routed_experts-Fwd-FFN-encoder-FFgate\"]
bwd = [r for r in rows if r[\"Description\"] == \"Bwd-FFN_routed_experts-FFgate\"]
rs = [r for r in rows if r[\"Description\"] == \"WeightUpdate-ReduceScatterGradients\"]
ok = (len(fwd) == 1 and fwd[0][\"Count\"] == \"48\" and \"a=16x4096x2048,b=16x2048x768\" in fwd[0][\"Config\"] and
      len(bwd) == 2 and all(r[\"Count\"] == \"48\" for r in bwd) and
      len(rs) == 1 and \"1540882432\" in rs[0][\"Config\"])
sys.exit(not ok)' '$HF/moe-train'"
# Mixtures with dense layers (GLM-4.5's and ERNIE 4.5's first layers, Llama 4 Maverick's every
# other): the dense ones run the gated SiLU FFN of d_ff their experts run. GLM-4.7 (GLM-4.5's
# shapes) on 8 chips, TP 8, a 4096-token prompt: its 3 dense layers' gate projection 4096 x 5120
# by 5120 x 1536 (12288 / 8), count 3; its 89 mixture layers' 160 experts, each on 4096 x 8 / 160
# = 204.8 -> 205 tokens by 5120 x 192 (1536 / 8), one grouped GEMM a layer (count 89); 353B parameters against
# GLM-4.5's published 355B (its active 32B is not compared: whether it counts the embeddings is
# not said). GLM-4.7-Flash's latent attention (glm4_moe_lite) runs as DeepSeek's: 29.9B against
# its card's 30B.
check "models: GLM-4.7's dense first layers run its dense FFN beside 89 layers of 160 experts; its parameters" sh -c "
  $NPUSIM run --configs $CONFIGS -m $S/glm-4.7-fp8.json -c h100 --set num_chips=8 --set tensor_parallelism_degree=8 \
    -o '$HF/glm' >/dev/null 2>&1 &&
  $NPUSIM run --configs $CONFIGS -m $S/glm-4.7-flash.json -c h100 -o '$HF/glmf' >/dev/null 2>&1 &&
  python3 -c 'import csv, glob, json, sys
rows = list(csv.DictReader(open(glob.glob(sys.argv[1] + \"/*_prefill.csv\")[0])))
dense = [r for r in rows if r[\"Description\"] == \"Fwd-FFN-encoder-FFgate\"]
moe = [r for r in rows if r[\"Description\"] == \"FFN_routed_experts-Fwd-FFN-encoder-FFgate\"]
p = [json.load(open(glob.glob(d + \"/*_decode.json\")[0]))[\"params_total\"] for d in sys.argv[1:3]]
ok = (len(dense) == 1 and dense[0][\"Count\"] == \"3\" and \"a=1x4096x5120,b=5120x1536\" in dense[0][\"Config\"] and
      len(moe) == 1 and moe[0][\"Count\"] == \"89\" and \"a=160x205x5120,b=160x5120x192\" in moe[0][\"Config\"] and
      abs(p[0] / 355e9 - 1) <= 0.015 and abs(p[1] / 30e9 - 1) <= 0.015)
sys.exit(not ok)' '$HF/glm' '$HF/glmf'"
check "models: a mixture with a dense first layer (ERNIE 4.5) trains and serves: the dense layer's FFN backward, count 1" sh -c "
  $NPUSIM run --configs $CONFIGS -m '$HF/ernie-moe.json' -c h100 -w training --batch 2 --seqlen 4096_1 \
    -o '$HF/ernie-train' >/dev/null 2>&1 &&
  grep -q '^[0-9]*,Bwd-FFN-encoder-FFact,\"Silu(x=2x4096x12288,.*,VPU,1,' '$HF/ernie-train'/*.csv &&
  $NPUSIM serving --configs $CONFIGS -m '$HF/ernie-moe.json' -c h100 --rate 2 --requests 20 --lengths fixed:512:64 \
    --json >'$HF/ernie-serve.json' 2>/dev/null &&
  python3 -c 'import json, sys; sys.exit(json.load(open(sys.argv[1]))[\"completed\"] != 20)' '$HF/ernie-serve.json'"
