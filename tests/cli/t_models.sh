# Sourced by tests/cli/run.sh: Hugging Face config.json files (study/run/hf_config.h;
# tests/samples/hf/, the public configs of those models), read by `npusim run -m` and
# written as npusim's own by `npusim import model`: a Llama 3.1 8B config simulates as
# the shipped llama3-8b; the parameter counts of the mapped models match the published
# ones within 1.5%; the ignored keys are listed once; what cannot be modelled yet
# (experts over standard attention, sliding windows, encoder-decoders, vision towers,
# unknown architectures) exits 2 naming the key, writing nothing.
HF="$T/models"
mkdir -p "$HF"
S=tests/samples/hf
check "models: a Hugging Face Llama 3.1 8B config runs as the shipped llama3-8b (same TTFT and TPOT), its ignored keys listed once" sh -c "
  $NPUSIM run --configs $CONFIGS -m $S/llama-3.1-8b.json -c h100 >'$HF/hf.txt' 2>'$HF/hf.err' &&
  $NPUSIM run --configs $CONFIGS -m llama3-8b -c h100 >'$HF/ship.txt' 2>/dev/null &&
  [ \"\$(sed -n '2,3p' '$HF/hf.txt')\" = \"\$(sed -n '2,3p' '$HF/ship.txt')\" ] &&
  [ \$(grep -c 'keys ignored' '$HF/hf.err') = 1 ] && grep -q 'rope_theta' '$HF/hf.err'"
check "models: npusim import model writes npusim's config with its source, which runs alike" sh -c "
  $NPUSIM import model $S/qwen2.5-7b.json -o '$HF/qwen.json' >/dev/null 2>&1 &&
  grep -q '\"source\"' '$HF/qwen.json' && grep -q 'Hugging Face config' '$HF/qwen.json' &&
  $NPUSIM run --configs $CONFIGS -m '$HF/qwen.json' -c h100 >'$HF/q1.txt' 2>/dev/null &&
  $NPUSIM run --configs $CONFIGS -m $S/qwen2.5-7b.json -c h100 >'$HF/q2.txt' 2>/dev/null &&
  [ \"\$(sed -n '2,3p' '$HF/q1.txt')\" = \"\$(sed -n '2,3p' '$HF/q2.txt')\" ]"
# published: Llama 3.1 8B 8.03B, Mistral 7B v0.3 7.25B, Qwen2.5 7B 7.61B, Gemma 2B 2.51B (tied
# embeddings, Transformers' default for Gemma), DeepSeek-V3 671B with 37B active
for pair in llama-3.1-8b:8.03e9:8.03e9 mistral-7b-v0.3:7.25e9:7.25e9 qwen2.5-7b:7.61e9:7.61e9 gemma-2b:2.51e9:2.51e9 deepseek-v3:671e9:37e9; do
    m=${pair%%:*}; rest=${pair#*:}; tot=${rest%%:*}; act=${rest#*:}
    check "models: $m's parameters (params_total, params_active) within 1.5% of the published (or its last digit)" sh -c "
      $NPUSIM run --configs $CONFIGS -m $S/$m.json -c h100 --set num_chips=64 -o '$HF/p-$m' >/dev/null 2>&1 &&
      python3 -c 'import glob, json, sys
d = json.load(open(glob.glob(sys.argv[1] + \"/*_decode.json\")[0]))
t, a, T, A = d[\"params_total\"], d[\"params_active\"], float(sys.argv[2]), float(sys.argv[3])
ok = abs(t / T - 1) <= 0.015 and (abs(a / A - 1) <= 0.015 or abs(a - A) <= 0.5e9)
sys.exit(not ok)' '$HF/p-$m' $tot $act"
done
for bad in 'mixtral-8x7b:key "num_local_experts": a mixture of experts over standard attention' \
           'phi-3-mini-4k:key "sliding_window": sliding-window attention' \
           't5-small:key "is_encoder_decoder": an encoder-decoder model' \
           'llava-1.5-7b:key "vision_config": a vision tower' \
           'gpt2:model_type "gpt2": not a decoder npusim knows'; do
    m=${bad%%:*}; want=${bad#*:}
    expect_fail "models: $m is refused, naming what is unsupported" "$want" $NPUSIM run --configs $CONFIGS -m $S/$m.json -c h100 -o "$HF/bad"
    expect_fail "models: import model refuses $m alike" "$want" $NPUSIM import model $S/$m.json -o "$HF/bad/$m.json"
done
no_files "models: the refused configs wrote nothing" "$HF/bad"
