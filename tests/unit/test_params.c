/* test_params.c — opsgen_model_params: a small model counted by hand, and
 * every shipped LLM's count against its published figure within 1.5%
 * (the model cards: Meta's Llama 2 paper and Llama 3 / 3.1 cards, Google's
 * Gemma report, EleutherAI's GPT-J card, DeepSeek-V2 and -V3 reports,
 * Mistral 7B v0.3's, Qwen2.5's and Qwen3's cards). */
#include "testutil.h"
#include "testutil_model.h"

#include <cjson/cJSON.h>
#include <math.h>
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
    static const struct { const char *model; double total, active, unit; } pub[] = {
        { "llama3-8b", 8.03e9, 0, 1e7 },       { "llama3-70b", 70.6e9, 0, 1e8 },   { "llama3_1-405b", 405.85e9, 0, 1e7 },
        { "llama2-7b", 6.74e9, 0, 1e7 },       { "llama2-13b", 13.02e9, 0, 1e7 },  { "llama2-70b", 68.98e9, 0, 1e7 },
        { "gemma-2b", 2.51e9, 0, 1e7 },        { "gemma-7b", 8.54e9, 0, 1e7 },     { "gpt-j-6b", 6.05e9, 0, 1e7 },
        { "deepseekv2-236b", 236e9, 21e9, 1e9 }, { "deepseekv3-671b", 671e9, 37e9, 1e9 },
        { "mistral-7b", 7.25e9, 0, 1e7 },      { "qwen2.5-7b", 7.61e9, 0, 1e7 },   { "qwen2.5-72b", 72.7e9, 0, 1e8 },
        { "qwen3-8b", 8.2e9, 0, 1e8 },         { "qwen3-32b", 32.8e9, 0, 1e8 },
    };
    for (size_t i = 0; i < sizeof pub / sizeof pub[0]; i++) {
        struct model_config m;
        int64_t t, a;
        load_model(&m, pub[i].model);
        opsgen_model_params(&m, &t, &a);
        double want_a = pub[i].active > 0 ? pub[i].active : pub[i].total;
        double tol_t = fmax(0.015, 0.5 * pub[i].unit / pub[i].total), tol_a = fmax(0.015, 0.5 * pub[i].unit / want_a);
        if (fabs((double)t / pub[i].total - 1) > tol_t || fabs((double)a / want_a - 1) > tol_a)
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
