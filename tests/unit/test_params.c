/* test_params.c — opsgen_model_params: a small model counted by hand, and
 * every shipped LLM's count against its published figure within 1.5%
 * (the model cards: Meta's Llama 2 paper and Llama 3 / 3.1 cards, Google's
 * Gemma report, EleutherAI's GPT-J card, DeepSeek-V2 and -V3 reports,
 * Mistral 7B v0.3's, Qwen2.5's and Qwen3's cards; the mixtures' and local-attention models'
 * sources are beside their rows). */
#include "testutil.h"
#include "testutil_model.h"

#include <cjson/cJSON.h>
#include <math.h>
#include <stdbool.h>
#include <stdio.h>

#include "opsgen/model.h"
#include "opsgen/opsgen.h"


/* D 8, 2 heads of 4, 1 KV head, d_ff 16 gated, 3 layers, vocabulary 10:
 * attention 8*8 + 2*8*4 + 8*8 = 192, FFN 3*8*16 = 384, norms 2*8 a layer and
 * 8 at the end, embedding and head 2*10*8 = 160: 3*(192 + 384 + 16) + 8 + 160. */
static void test_by_hand(void **s)
{
    (void)s;
    struct model_config m;
    load_model(&m, "llama3-8b");
    m.d_model = 8, m.num_heads = 2, m.d_head = 4, m.num_kv_heads = 1, m.d_ff = 16, m.num_layers = 3;
    m.vocab_size = 10;
    int64_t t, a;
    opsgen_model_params(&m, &t, &a);
    assert_int_equal(t, 3 * (192 + 384 + 16) + 8 + 160);
    assert_int_equal(a, t);
    m.tie_word_embeddings = true;   /* the head is the embedding: 80 fewer */
    opsgen_model_params(&m, &t, &a);
    assert_int_equal(t, 3 * (192 + 384 + 16) + 8 + 80);
}

static void test_published(void **s)
{
    (void)s;
    /* unit: the published figure's last digit ("21B" active: 1e9); a count
     * within 1.5%, or within half that digit when it is coarser */
    static const struct { const char *model; double total, active, unit; bool trunc; } pub[] = {
        { "llama3-8b", 8.03e9, 0, 1e7, false },       { "llama3-70b", 70.6e9, 0, 1e8, false },   { "llama3_1-405b", 405.85e9, 0, 1e7, false },
        { "llama2-7b", 6.74e9, 0, 1e7, false },       { "llama2-13b", 13.02e9, 0, 1e7, false },  { "llama2-70b", 68.98e9, 0, 1e7, false },
        { "gemma-2b", 2.51e9, 0, 1e7, false },        { "gemma-7b", 8.54e9, 0, 1e7, false },     { "gpt-j-6b", 6.05e9, 0, 1e7, false },
        { "deepseekv2-236b", 236e9, 21e9, 1e9, false }, { "deepseekv3-671b", 671e9, 37e9, 1e9, false },
        { "mistral-7b", 7.25e9, 0, 1e7, false },      { "qwen2.5-7b", 7.61e9, 0, 1e7, false },   { "qwen2.5-72b", 72.7e9, 0, 1e8, false },
        { "qwen3-8b", 8.2e9, 0, 1e8, false },         { "qwen3-32b", 32.8e9, 0, 1e8, false },
        /* mixtures of experts over standard attention (Mistral's blogs, Qwen's cards, the DBRX and
         * OLMoE papers); OpenAI's gpt-oss card counts active parameters without the embedding table
         * (5.13B and 3.61B), which npusim counts as every other card does: 201088 x 2880 more */
        { "mixtral-8x7b", 46.7e9, 12.9e9, 1e8, false }, { "mixtral-8x22b", 141e9, 39e9, 1e9, false },
        /* Qwen's card truncates: 3.3B activated of a count of 3.35B (48 layers of 18.9M attention
         * and 8 x 3 x 2048 x 768 expert weights, and 2 x 151936 x 2048 embedding and head) */
        { "qwen3-30b-a3b", 30.5e9, 3.3e9, 1e8, true }, { "qwen3-235b-a22b", 235e9, 22e9, 1e9, false },
        { "qwen2-57b-a14b", 57e9, 14e9, 1e9, false },   { "dbrx-132b", 132e9, 36e9, 1e9, false },
        { "olmoe-1b-7b", 6.9e9, 1.3e9, 1e8, false },
        { "llama4-scout", 109e9, 17e9, 1e9, false },   /* Meta: 17B active of 109B, 16 experts */
        { "gpt-oss-120b", 116.83e9, 5.13e9 + 201088.0 * 2880, 1e7, false }, { "gpt-oss-20b", 20.91e9, 3.61e9 + 201088.0 * 2880, 1e7, false },
        /* local attention: Gemma 2 and 3 (Google's reports), Phi-3 (Microsoft's report), Llama 3.2 (Meta's card) */
        { "gemma2-9b", 9.24e9, 0, 1e7, false },       { "gemma3-1b", 1.0e9, 0, 1e8, false },     { "gemma3-27b", 27e9, 0, 1e9, false },
        { "phi3-mini", 3.8e9, 0, 1e8, false },        { "phi3-medium", 14e9, 0, 1e9, false },
        { "llama3_2-1b", 1.23e9, 0, 1e7, false },     { "llama3_2-3b", 3.21e9, 0, 1e7, false },
        /* Gated DeltaNet layers among gated attention: Qwen3.5-35B-A3B (its card: 35B, 3B activated) */
        { "qwen3.5-35b-a3b", 35e9, 3e9, 1e9, false },
        /* Gemma 4: global layers of their own shape (Google's figures: 30.7B; 25.2B with 3.8B active) */
        { "gemma4-31b", 30.7e9, 0, 1e8, false },      { "gemma4-26b-a4b", 25.2e9, 3.8e9, 1e8, false },
        /* Mamba-2 hybrids with experts: Nemotron 3 Nano (its report: 31.6B, 3.6B active with the
         * embeddings), Super's LatentMoE (NVIDIA: 120B, 12B active, which npusim counts with the
         * 131072 x 4096 embedding table as gpt-oss's above) */
        { "nemotron3-nano-30b", 31.6e9, 3.6e9, 1e8, false },
        { "nemotron3-super-120b", 120e9, 12e9 + 131072.0 * 4096, 1e9, false },
    };
    for (size_t i = 0; i < sizeof pub / sizeof pub[0]; i++) {
        struct model_config m;
        int64_t t, a;
        load_model(&m, pub[i].model);
        opsgen_model_params(&m, &t, &a);
        double want_a = pub[i].active > 0 ? pub[i].active : pub[i].total;
        double tol_t = fmax(0.015, 0.5 * pub[i].unit / pub[i].total), tol_a = fmax(0.015, 0.5 * pub[i].unit / want_a);
        bool a_ok = fabs((double)a / want_a - 1) <= tol_a ||
                    (pub[i].trunc && (double)a >= want_a && (double)a < want_a + pub[i].unit);
        if (fabs((double)t / pub[i].total - 1) > tol_t || !a_ok)
            fail_msg("%s: %lld total, %lld active; published %.4g, %.4g", pub[i].model, (long long)t, (long long)a,
                     pub[i].total, want_a);
    }
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_by_hand),
        cmocka_unit_test(test_published),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
