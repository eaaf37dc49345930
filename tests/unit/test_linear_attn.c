/* test_linear_attn.c — Gated DeltaNet, Mamba-2 and short-convolution layers
 * (opsgen/linear_attn.h): a layer's weights and state by hand, the pattern that makes them, the
 * parameters, footprint and ops of a small hybrid model, and the fields'
 * checks. */
#include "testutil.h"
#include "testutil_model.h"

#include <string.h>

#include "opsgen/linear_attn.h"
#include "opsgen/opsgen.h"
#include "opsgen/pattern.h"
#include "opsgen/train.h"
#include "traces/profile.h"

/* D 8, 2 query/key heads of 2, 4 value heads of 3, 4 taps: the convolution
 * runs over 2 x 2 x 2 + 4 x 3 = 20 channels; W_in is 8 x (20 + 12 + 2 x 4) =
 * 320, the convolution 20 x 4 = 80, W_out 12 x 8 = 96, the decays 2 x 4 and
 * the gated norm 3: 507. A sequence's state: 4 x 2 x 3 = 24 and 20 x 3
 * inputs of the convolution, 84; over TP 2, 2 value heads and 1 key head a
 * chip: 12 + (4 + 6) x 3 = 42. */
static void tiny(struct model_config *m)
{
    load_model(m, "llama3-8b");
    m->d_model = 8, m->num_heads = 2, m->d_head = 4, m->num_kv_heads = 1, m->d_ff = 16, m->num_layers = 4;
    m->vocab_size = 10;
    m->linear_value_heads = 4, m->linear_key_heads = 2, m->linear_key_dim = 2, m->linear_value_dim = 3;
    m->linear_conv_kernel = 4, m->full_attention_interval = 2;
}

static void test_layer_by_hand(void **s)
{
    (void)s;
    struct model_config m;
    tiny(&m);
    struct linear_attn la;
    linear_attn_of(&m, &la);
    bool ovf = false;
    assert_int_equal(linear_attn_params(&ovf, &la, 8, 1), 507);
    assert_int_equal(linear_attn_state_elems(&ovf, &la, 1), 84);
    assert_int_equal(linear_attn_state_elems(&ovf, &la, 2), 42);
    assert_string_equal(la.state, "DT_FLOAT");
    m.linear_key_heads = 0;   /* as many query/key heads as value heads: 2 x 4 x 2 + 12 = 28 channels */
    linear_attn_of(&m, &la);
    assert_int_equal(la.Hk, 4);
    assert_int_equal(linear_attn_state_elems(&ovf, &la, 1), 24 + 28 * 3);
    assert_false(ovf);
}

/* Every second layer attends (layers 2 and 4, 1-based), the others are
 * linear: attention 8 x 8 + 2 x 8 x 4 + 8 x 8 = 192 a layer, the FFN
 * 3 x 8 x 16 = 384, norms 2 x 8 a layer and 8, embedding and head 160:
 * 2 x 192 + 2 x 507 + 4 x (384 + 16) + 8 + 160. The output gate adds
 * W_q's 8 x 8 again to each attention layer. */
static void test_params(void **s)
{
    (void)s;
    struct model_config m;
    tiny(&m);
    assert_true(pattern_linear(&m));
    assert_true(pattern_layer_local(&m, 0));
    assert_false(pattern_layer_local(&m, 1));
    assert_int_equal(pattern_local_layers(&m), 2);
    int64_t t, a;
    opsgen_model_params(&m, &t, &a);
    assert_int_equal(t, 2 * 192 + 2 * 507 + 4 * (384 + 16) + 8 + 160);
    assert_int_equal(a, t);
    m.attention_output_gate = true;
    opsgen_model_params(&m, &t, &a);
    assert_int_equal(t, 2 * (192 + 64) + 2 * 507 + 4 * (384 + 16) + 8 + 160);
}

/* The footprint holds each sequence's state, whatever its length: 2 linear
 * layers x 84 elements, 4 bytes each in fp32 and 2 in bf16; at batch 3 the
 * two differ by 3 x 168 x 2 bytes. No K/V of the linear layers: a sliding
 * window of the same layers would hold some. */
static void test_memory(void **s)
{
    (void)s;
    struct model_config m;
    tiny(&m);
    const struct profile *p = profile_by_name("physical");
    m.microbatch_size_ici = 3, m.input_seqlen = 100, m.output_seqlen = 10;
    bool ovf = false;
    struct opsgen_llm_mem_parts pt;
    opsgen_llm_mem_parts(&ovf, &m, p, &pt);
    assert_int_equal(pt.state_elems_per_seq, 2 * 84);
    assert_int_equal(pt.kv_local_elems_per_token, 0);
    assert_int_equal(pt.kv_window, 0);
    assert_int_equal(pt.kv_elems_per_token, 2 * 2 * 1 * 4);   /* the 2 attention layers' K and V */
    int64_t fp32 = opsgen_llm_inference_mem_bytes(&m, PHASE_DECODE, p);
    strcpy(m.linear_state_dtype, "bf16");
    assert_int_equal(fp32 - opsgen_llm_inference_mem_bytes(&m, PHASE_DECODE, p), 3 * 168 * 2);
    assert_false(ovf);
}

/* The ops of batch 2, 128 tokens in and 4 out. Decode: one state op a
 * linear layer and step, the state read and written in fp32 (2 x 4 x 6
 * elements), 2 layers x 4 steps. Prefill in chunks of 64: K K^T and Q K^T
 * of 128 tokens against 2 x 64 keys, 2 x 2 x 128 x 128 x 4 x 2 = 524288
 * FLOPs; the chunk states, 2 chunks a sequence, in bf16; the attention
 * layers keep their softmax attention. */
/* m's physical inference trace at batch 2, `in` tokens in and 4 out, into t. */
static void infer_b2(struct model_config *m, int64_t in, struct trace *t)
{
    m->num_chips = 1, m->microbatch_size_ici = 2, m->global_batch_size = 2, m->input_seqlen = in, m->output_seqlen = 4;
    trace_init(t);
    struct npu_err e;
    bool ovf = false;
    assert_int_equal(opsgen_llm_inference(m, test_opsgen_links(), &profile_physical, t, &ovf, &e), 0);
}

static void test_ops(void **s)
{
    (void)s;
    struct model_config m;
    tiny(&m);
    struct trace t;
    infer_b2(&m, 128, &t);
    int seen = 0, softmax = 0;
    for (size_t i = 0; i < t.n; i++) {
        const struct op *o = &t.ops[i];
        const char *c = cfg_text(o);
        if (strstr(o->description, "Softmax(Q*K)*V") && strstr(c, "Softmax("))
            softmax++;
        if (!strstr(o->description, "GatedDeltaNet_"))
            continue;
        assert_true(opsgen_op_is_attention_core(o));
        if (o->phase == PHASE_DECODE) {
            assert_non_null(strstr(c, "Add(a=2x4x6,"));
            assert_non_null(strstr(c, "type=DT_FLOAT)"));
            assert_int_equal(o->count, 2 * 4);
            seen++;
        } else if (strstr(c, "eq=BLNK;BSNK->BLSN")) {
            assert_non_null(strstr(c, "a=2x128x4x2,b=2x128x4x2"));
            assert_int_equal(o->flops, 524288);
            assert_int_equal(o->count, 2);
            seen++;
        } else if (strstr(c, "Add(")) {
            assert_non_null(strstr(c, "Add(a=2x2x4x6,"));
            assert_non_null(strstr(c, "type=DT_BFLOAT16)"));
            seen++;
        }
    }
    assert_int_equal(seen, 3);
    assert_int_equal(softmax, 2);   /* the attention layers' prefill and decode softmax */
    trace_free(&t);
}

/* The same shapes as Mamba-2 (linear_kind mamba2): 2 groups of B and C with
 * a state of 2, 4 heads of 3. W_in is 8 x (20 + 12 + 4) = 288 (one step size
 * a head, not two gates), the convolution 20 x (4 + a bias) = 100, A, D and
 * the step's bias 3 x 4 and the gated norm a weight a channel, 12, W_out
 * 12 x 8 = 96: 508. Its state is the same 84. Over TP 2, 1 group and 2
 * heads a chip: 8 x 18 + 10 x 5 + 6 + 6 + 6 x 8 = 254. */
static void test_mamba2_by_hand(void **s)
{
    (void)s;
    struct model_config m;
    tiny(&m);
    strcpy(m.linear_kind, "mamba2");
    struct linear_attn la;
    linear_attn_of(&m, &la);
    bool ovf = false;
    assert_true(la.mamba2);
    assert_int_equal(la.chunk, 256);
    assert_int_equal(linear_attn_params(&ovf, &la, 8, 1), 508);
    assert_int_equal(linear_attn_params(&ovf, &la, 8, 2), 254);
    assert_int_equal(linear_attn_state_elems(&ovf, &la, 1), 84);
    m.linear_chunk_size = 128;
    linear_attn_of(&m, &la);
    assert_int_equal(la.chunk, 128);
    assert_false(ovf);
}

/* Mamba-2's ops, batch 2, 512 tokens in and 4 out. Decode: the same one
 * state op a layer and step (2 x 4 x 6 in fp32). Prefill in chunks of 256:
 * C B^T per group, 512 tokens against 256 keys, 2 x 2 x 512 x 256 x 2 x 2 =
 * 2,097,152 FLOPs; its product with x, 2 x 2 x 512 x 256 x 4 x 3 =
 * 6,291,456; B^T x and C^T S, 2 x 2 x 1024 x 4 x 2 x 3 = 98,304; the chunk
 * states, 2 a sequence. In chunks of 128 the two intra-chunk products
 * halve and there are 4 states. */
static void mamba2_prefill(int64_t chunk, int64_t cbt_flops, int64_t intra_flops, const char *states)
{
    struct model_config m;
    tiny(&m);
    strcpy(m.linear_kind, "mamba2");
    m.linear_chunk_size = chunk;
    struct trace t;
    infer_b2(&m, 512, &t);
    int seen = 0;
    for (size_t i = 0; i < t.n; i++) {
        const struct op *o = &t.ops[i];
        const char *c = cfg_text(o);
        assert_null(strstr(o->description, "GatedDeltaNet_"));
        if (!strstr(o->description, "Mamba2_"))
            continue;
        assert_true(opsgen_op_is_attention_core(o));
        if (o->phase == PHASE_DECODE) {
            assert_non_null(strstr(c, "Add(a=2x4x6,"));
            assert_non_null(strstr(c, "type=DT_FLOAT)"));
            seen++;
        } else if (strstr(c, "eq=BLGK;BSGK->BLSG")) {
            assert_int_equal(o->flops, cbt_flops);
            seen++;
        } else if (strstr(c, "eq=BLSN;BSNV->BLNV")) {
            assert_int_equal(o->flops, intra_flops);
            seen++;
        } else if (strstr(c, "eq=BLNK;BNKV->BLNV")) {
            assert_int_equal(o->flops, 98304);
            seen++;
        } else if (strstr(c, "Add(")) {
            assert_non_null(strstr(c, states));
            seen++;
        }
    }
    assert_int_equal(seen, 5);
    trace_free(&t);
}

static void test_mamba2_ops(void **s)
{
    (void)s;
    mamba2_prefill(0, 2097152, 6291456, "Add(a=2x2x4x6,");
    mamba2_prefill(128, 1048576, 3145728, "Add(a=2x4x4x6,");
}

/* LFM2's gated short convolution (linear_kind short_conv) over the value
 * heads' 4 x 3 = 12 channels: W_in 8 x 36 (B, C and x), the depthwise
 * convolution 12 x 4 taps, W_out 12 x 8: 432 weights; its state the
 * convolution's last 3 inputs, 36; over TP 2, 6 channels a chip: 144 + 24 +
 * 48 = 216 and 18. Batch 2, 512 tokens in and 4 out: its per-sequence part
 * is C times the convolution's output, one product over 2 x 512 x 12
 * (prefill) and 2 x 1 x 12 (a decode step) a layer, the attention core a
 * serving step splits off; no recurrence and no gated norm. */
static void test_short_conv(void **s)
{
    (void)s;
    struct model_config m;
    tiny(&m);
    strcpy(m.linear_kind, "short_conv");
    struct linear_attn la;
    linear_attn_of(&m, &la);
    bool ovf = false;
    assert_true(la.short_conv);
    assert_int_equal(linear_attn_params(&ovf, &la, 8, 1), 432);
    assert_int_equal(linear_attn_state_elems(&ovf, &la, 1), 36);
    assert_int_equal(linear_attn_params(&ovf, &la, 8, 2), 216);
    assert_int_equal(linear_attn_state_elems(&ovf, &la, 2), 18);
    assert_false(ovf);
    struct trace t;
    infer_b2(&m, 512, &t);
    int gates = 0;
    for (size_t i = 0; i < t.n; i++) {
        const struct op *o = &t.ops[i];
        const char *c = cfg_text(o);
        assert_null(strstr(o->description, "GatedDeltaNet_"));
        assert_null(strstr(o->description, "Mamba2_"));
        assert_null(strstr(o->description, "norm_gate"));
        if (!strstr(o->description, "ShortConv_gate"))
            continue;
        assert_true(opsgen_op_is_attention_core(o));
        assert_non_null(strstr(c, o->phase == PHASE_DECODE ? "Mul(a=2x1x12," : "Mul(a=2x512x12,"));
        gates++;
    }
    assert_int_equal(gates, 2);
    trace_free(&t);
}

/* Attention layers placed irregularly (full_attention_layers: Granite
 * 4.0-H-350M's 4 of 32): that many global layers spread evenly, layer i
 * global when (i + 1) 4 / 32 steps up: layers 7, 15, 23 and 31; 28 linear.
 * 0: every layer linear; -1: the interval's pattern again. */
static void test_full_attention_layers(void **s)
{
    (void)s;
    struct model_config m;
    tiny(&m);
    m.num_layers = 32, m.full_attention_interval = 0, m.full_attention_layers = 4;
    for (int64_t i = 0; i < 32; i++)
        assert_int_equal(pattern_layer_local(&m, i), !(i == 7 || i == 15 || i == 23 || i == 31));
    assert_int_equal(pattern_local_layers(&m), 28);
    m.full_attention_layers = 0;
    assert_int_equal(pattern_local_layers(&m), 32);
    m.full_attention_layers = -1, m.full_attention_interval = 8;
    assert_int_equal(pattern_local_layers(&m), 28);
}

/* Layers without an FFN (ffn_layers: Nemotron-H's blocks hold one mixer or
 * one FFN): 2 FFNs over the tiny model's 4 layers, at layers 1 and 3
 * ((i + 1) 2 / 4 steps up), the 2 attention ones. Its parameters lose 2
 * FFNs of 3 x 8 x 16 and their 2 norms of 8: 3166 - 784 = 2382. A decode
 * step runs the FFN's gate projection in 2 layers, not 4 (4 steps). */
static void test_ffn_layers(void **s)
{
    (void)s;
    struct model_config m;
    tiny(&m);
    int64_t t, a;
    opsgen_model_params(&m, &t, &a);
    assert_int_equal(t, 3166);
    m.ffn_layers = 2;
    for (int64_t i = 0; i < 4; i++)
        assert_int_equal(pattern_layer_ffn(&m, i), i == 1 || i == 3);
    opsgen_model_params(&m, &t, &a);
    assert_int_equal(t, 2382);
    struct trace tr;
    infer_b2(&m, 128, &tr);
    int64_t gates = 0;
    for (size_t i = 0; i < tr.n; i++)
        if (tr.ops[i].phase == PHASE_DECODE && !strcmp(tr.ops[i].description, "Fwd-FFN-serving-decoder-FFgate"))
            gates += tr.ops[i].count;
    assert_int_equal(gates, 2 * 4);
    trace_free(&tr);
}

/* m's inference (or training) fails with a message holding needle. */
static void expect_refused(const struct model_config *m, bool training, const char *needle)
{
    struct npu_err e;
    struct trace t;
    bool ovf = false;
    int64_t params = 0;
    trace_init(&t);
    int rc = training ? opsgen_llm_training(m, test_opsgen_links(), &profile_physical, &t, &params, &ovf, &e)
                      : opsgen_llm_inference(m, test_opsgen_links(), &profile_physical, &t, &ovf, &e);
    assert_int_equal(rc, -1);
    if (!strstr(e.msg, needle))
        fail_msg("\"%s\" lacks \"%s\"", e.msg, needle);
    trace_free(&t);
}

/* The fields agree or name the field; other generators refuse them. */
static void test_checks(void **s)
{
    (void)s;
    struct model_config m;
    tiny(&m);
    m.sliding_window = 16;
    expect_refused(&m, false, "model field \"sliding_window\": 16 with linear_value_heads");
    tiny(&m);
    m.linear_key_heads = 3;
    expect_refused(&m, false, "model field \"linear_key_heads\": 3 does not divide linear_value_heads 4");
    tiny(&m);
    expect_refused(&m, true, "model field \"linear_value_heads\": 4, but LLM training has no linear-attention");
    tiny(&m);
    m.ffn_layers = 5;
    expect_refused(&m, false, "model field \"ffn_layers\": 5 exceeds num_layers 4");
    tiny(&m);
    m.linear_value_heads = 0, m.ffn_layers = 2;
    expect_refused(&m, true, "model field \"ffn_layers\": 2, but LLM training gives every layer its FFN");
    tiny(&m);
    m.full_attention_layers = 5;
    expect_refused(&m, false, "model field \"full_attention_layers\": 5 exceeds num_layers 4");
    tiny(&m);
    m.linear_value_heads = 0, m.attention_output_gate = true;
    expect_refused(&m, true, "model field \"attention_output_gate\": true, but LLM training does not build it");
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_layer_by_hand), cmocka_unit_test(test_params), cmocka_unit_test(test_memory),
        cmocka_unit_test(test_ops),           cmocka_unit_test(test_checks),
        cmocka_unit_test(test_mamba2_by_hand), cmocka_unit_test(test_mamba2_ops), cmocka_unit_test(test_short_conv),
        cmocka_unit_test(test_full_attention_layers), cmocka_unit_test(test_ffn_layers),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
