/* test_diffusion.c — conv/up/down-sample builders, DiT and GLIGEN ops, their
 * memory footprints, statistics and sweep helpers against values derived
 * by hand from opsgen.md §3.5–§3.6, §8, §10, §11.4, §12.5 and §13
 * (several also appear verbatim in the reference CSVs). */
#include "testutil.h"

#include <cjson/cJSON.h>
#include <stdio.h>
#include <stdlib.h>

#include "opsgen/builders_conv.h"
#include "opsgen/diffusion.h"
#include "study/run/diffusion_stats.h"
#include "opsgen/sweep.h"

#define BF16 "DT_BFLOAT16"
#define GIB 1073741824.0

#define DIT_XL test_model_text("dit-xl")
/* The shipped gligen.json's keys that the generator reads (class defaults
 * cover the rest) with flash attention on, as shipped. */
#define GLIGEN test_model_text("gligen")

static void load(struct model_config *m, const char *json)
{
    cJSON *j = cJSON_Parse(json);
    assert_non_null(j);
    struct npu_err e;
    if (model_config_from_json(m, j, NULL, &e))
        fail_msg("%s", e.msg);
    cJSON_Delete(j);
}

static struct opsgen_links links(void)   /* TPUv4 */
{
    struct opsgen_links l = { .ici_bw_GBps = 112, .dcn_bw_GBps = 12.5, .pcie_bw_GBps = 32,
                              .ici_latency_ns = 3330, .dcn_latency_ns = 3700,
                              .pcie_latency_ns = 400, .hbm_size_GB = 32 };
    strcpy(l.chip_name, "4");
    strcpy(l.ICI_topology, "TORUS_3D");
    return l;
}

/* Sweep point: parallelism, batch and (m, 0, 0) axes as run_sim sets them. */
static void point(struct model_config *m, const char *json, int64_t dp, int64_t tp, int64_t pp,
                  int64_t gbs)
{
    load(m, json);
    struct parallel_cfg p = { dp * tp * pp, dp, tp, pp, 1, 1, 1, 1, 1 };
    sweep_apply_parallel(m, &p, gbs);
    sweep_map_axes_diffusion("4", m);
}

static void gen(const struct model_config *m, struct trace *t)
{
    bool ovf = false;
    struct opsgen_links l = links();
    struct npu_err e;
    trace_init(t);
    int rc = !strcmp(m->model_type, "dit") ? opsgen_dit(m, &l, &profile_neusim, t, &ovf, &e)
                                           : opsgen_gligen(m, &l, &profile_neusim, t, &ovf, &e);
    if (rc)
        fail_msg("%s", e.msg);
    assert_false(ovf);   /* every size fits */
}

static const struct op *by_desc(const struct trace *t, const char *desc)
{
    for (size_t i = 0; i < t->n; i++)
        if (!strcmp(t->ops[i].description, desc))
            return &t->ops[i];
    fail_msg("no op \"%s\"", desc);
    return NULL;
}

/* ---- §3.5 conv ---- */

static void test_conv(void **s)
{
    bool ovf = false;
    (void)s;
    /* floor((in + 2p - d(k-1) - 1)/s + 1) */
    assert_i64(conv_out_dim(64, 3, 1, 1, 1), 64);
    assert_i64(conv_out_dim(64, 3, 2, 1, 1), 32);   /* 63/2 = 31.5 -> 31, + 1 */
    assert_i64(conv_out_dim(63, 3, 2, 1, 1), 32);   /* the conv rounds up where x // 2 rounds down */
    assert_i64(conv_out_dim(7, 3, 1, 0, 2), 3);     /* dilation 2: a 5-wide window */
    assert_true(conv_out_dim(2, 5, 1, 0, 1) <= 0);  /* kernel larger than the input */

    struct trace t;
    trace_init(&t);
    /* The UNet's input conv: 2 * B * Ho * Wo * (Cin * Cout * 3 * 3). */
    struct conv2d_args a = { 1, 3, 64, 64, 320, 3, 3, 1, 1, 1 };
    const struct op *o = b_conv2d(&t, &ovf, 5, 1, "Conv2d5", &a, BF16);
    assert_non_null(o);
    assert_i64(o->flops, 2LL * 64 * 64 * 3 * 320 * 9);   /* 70,778,880 */
    assert_i64(o->weight_bytes, 3 * 320 * 9 * 2);          /* 17,280 */
    assert_string_equal(o->description, "Conv2d5Conv2d");
    assert_string_equal(o->name, "Conv2d5Conv2dconv2d");
    assert_string_equal(cfg_text(o), "Conv2D(a=1x3x64x64,b=3x320x3x3,c=1x320x64x64,eq=bf01;io01->bf01,"
                                   "window={size=3x3 stride=1x1 pad=0_1x0_1},memory_placements=0_0_0,"
                                   "type=DT_BFLOAT16)");
    assert_string_equal(in_text(o), "DT_BFLOAT16:[1,3,64,64],DT_BFLOAT16:[3,320,3,3]");
    assert_string_equal(out_text(o), "[DT_BFLOAT16:(1,320,64,64)]");
    assert_int_equal(o->type, OP_MXU);
    assert_string_equal(o->opcode, "Conv2D");
    /* Strided: 64 -> 32, a quarter of the outputs of a 320 -> 320 conv. */
    struct conv2d_args d = { 2, 320, 64, 64, 320, 3, 3, 2, 1, 1 };
    o = b_conv2d(&t, &ovf, 66, 1, "Downsample-Conv2d66", &d, BF16);
    assert_i64(o->flops, 2LL * 2 * 32 * 32 * 320 * 320 * 9);
    assert_string_equal(out_text(o), "[DT_BFLOAT16:(2,320,32,32)]");
    /* Rejected geometry: no op. */
    struct conv2d_args bad = { 1, 3, 2, 2, 8, 5, 5, 1, 0, 1 };
    size_t n = t.n;
    assert_null(b_conv2d(&t, &ovf, 1, 1, "x", &bad, BF16));
    assert_i64(t.n, n);
    trace_free(&t);
}

/* ---- §3.6 up/down-sampling ---- */

static void test_resample(void **s)
{
    bool ovf = false;
    (void)s;
    struct trace t;
    trace_init(&t);
    const struct op *o = b_upsample(&t, &ovf, 254, 1, "Upsample254", 1, 1280, 8, 8, 2, BF16);
    assert_string_equal(cfg_text(o), "Upsample(a=1x1280x8x8,scale_factor=2,memory_placements=0_0_0,"
                                   "type=DT_BFLOAT16)");
    assert_string_equal(out_text(o), "[DT_BFLOAT16:(1,1280,16,16)]");
    assert_string_equal(o->name, "Upsample254Upsample");
    assert_i64(o->flops, 0);
    assert_int_equal(o->type, OP_VPU);
    assert_null(b_upsample(&t, &ovf, 1, 1, "U", 1, 0, 8, 8, 2, BF16));
    trace_free(&t);
}

/* ---- §8 DiT ---- */

static void test_dit(void **s)
{
    bool ovf = false;
    (void)s;
    struct model_config m, llm;
    point(&m, DIT_XL, 1, 1, 1, 1);
    dit_llm_config(&m, &llm);
    assert_i64(llm.input_seqlen, 512 * 512 / (2 * 2));   /* 65,536 pixel patches (Q25) */
    assert_i64(llm.output_seqlen, 1);
    assert_string_equal(llm.model_type, "llm");

    struct trace t;
    gen(&m, &t);
    /* LN, Q, K, V, FA, out, LN, FFi, FFo, Add; 28 layers x 20 steps each. */
    assert_i64(t.n, 10);
    static const char *const opc[] = { "LayerNorm", "Einsum", "Einsum", "Einsum", "FlashAttention",
                                       "Einsum", "LayerNorm", "Einsum", "Einsum", "Add" };
    for (size_t i = 0; i < t.n; i++) {
        assert_string_equal(t.ops[i].opcode, opc[i]);
        assert_i64(t.ops[i].count, 28 * 20);
        assert_int_equal(t.ops[i].phase, PHASE_NONE);
    }
    assert_string_equal(cfg_text(&t.ops[0]), "LayerNorm(x=1x65536x1152,memory_placements=0_0,type=DT_BFLOAT16)");
    assert_i64(t.ops[1].flops, 2LL * 65536 * 1152 * 16 * 72);   /* 173,946,175,488 */
    trace_free(&t);

    /* §11.1 on the derived config, b 1, s 65,536, tp 1, 28 layers:
     * 2 * 28 * (4 D^2 + 2 D F + 3 s D + s F) bytes = 30,486,822,912 B. */
    int64_t mem = opsgen_dit_mem_bytes(&m, &profile_neusim);
    assert_i64(mem, 56LL * (4 * 1152 * 1152 + 2 * 1152 * 4608 + 3LL * 65536 * 1152 + 65536LL * 4608));
    assert_close(mem / GIB, 28.39306640625);

    /* tp 4 on (m, 0, 0) axes: only the first LayerNorm shrinks (Q13). */
    point(&m, DIT_XL, 1, 4, 1, 1);
    gen(&m, &t);
    assert_i64(t.n, 10);
    assert_string_equal(cfg_text(&t.ops[0]), "LayerNorm(x=1x65536x288,memory_placements=0_0,type=DT_BFLOAT16)");
    assert_i64(t.ops[1].flops, 2LL * 65536 * 1152 * 16 * 72);
    trace_free(&t);
    /* pp 2: a receive and a send, 14 layers a stage, batch 8 -> microbatch 4. */
    point(&m, DIT_XL, 1, 1, 2, 8);
    gen(&m, &t);
    assert_i64(t.n, 12);
    assert_i64(t.ops[1].count, 14 * 20);
    assert_string_equal(cfg_text(&t.ops[1]), "LayerNorm(x=4x65536x1152,memory_placements=0_0,type=DT_BFLOAT16)");
    trace_free(&t);
    /* Physical: image patches attend both ways (all 65,536 keys, not the causal half), no vocabulary
     * ops; the plain MLP gains its GeLU: 11 ops */
    point(&m, DIT_XL, 1, 1, 1, 1);
    struct opsgen_links l = links();
    struct npu_err e;
    trace_init(&t);
    if (opsgen_dit(&m, &l, &profile_physical, &t, &ovf, &e))
        fail_msg("%s", e.msg);
    assert_i64(t.n, 11);
    bool fa = false;
    for (size_t i = 0; i < t.n; i++) {
        assert_null(strstr(t.ops[i].description, "LMHead"));
        fa |= strstr(cfg_text(&t.ops[i]), "FlashAttention(q=1x65536x16x72,k=1x65536x16x72,") != NULL;
    }
    assert_true(fa);
    trace_free(&t);
}

/* ---- §10 GLIGEN ---- */

static void test_gligen(void **s)
{
    (void)s;
    struct model_config m;
    struct trace t;
    point(&m, GLIGEN, 1, 1, 1, 1);
    gen(&m, &t);
    /* 2 time-embedding + 232 down + 41 middle + 357 up + 2 out. */
    assert_i64(t.n, 634);
    assert_i64(t.ops[0].fusion_id, 2);
    assert_i64(t.ops[1].fusion_id, 3);
    assert_i64(t.ops[2].fusion_id, 5);   /* one fid skipped for the PP slot (Q29b) */
    assert_string_equal(t.ops[2].description, "Conv2d5Conv2d");
    assert_string_equal(t.ops[633].description, "Out537-Conv2d");
    assert_string_equal(t.ops[632].description, "Out536-GroupNorm");
    /* Time embedding: FFi weight counts the whole mc x 4mc matrix. */
    assert_i64(t.ops[0].weight_bytes, 2 * 320 * 1280);
    /* The upsample's conv sees the pre-upsample 8x8 (Q29) at the same fid (Q37). */
    const struct op *up = by_desc(&t, "Upsample254"), *uc = by_desc(&t, "Upsample-Conv2d254Conv2d");
    assert_i64(up->fusion_id, uc->fusion_id);
    assert_string_equal(out_text(uc), "[DT_BFLOAT16:(1,1280,8,8)]");
    assert_i64(uc->flops, 2LL * 8 * 8 * 1280 * 1280 * 9);
    /* First transformer: tokens 64*64, gated attention over 4096 + 8. */
    assert_string_equal(cfg_text(by_desc(&t, "SelfAttention14-Q-14")),
                        "XlaEinsum(a=1x4096x320,b=320x8x40,eq=BLM;MND->BLND,memory_placements=0_0_0,type=DT_BFLOAT16)");
    assert_string_equal(in_text(by_desc(&t, "GatedSelfAttention-Attn18-Q-19")),
                        "DT_BFLOAT16:[1,4104,320],DT_BFLOAT16:[320,8,40]");
    assert_string_equal(in_text(by_desc(&t, "CrossAttention27-K-27")),
                        "DT_BFLOAT16:[1,512,768],DT_BFLOAT16:[768,8,40]");
    for (size_t i = 0; i < t.n; i++)
        assert_i64(t.ops[i].count, 1);
    trace_free(&t);

    /* tp 2 adds the attention/FFN collectives, dp 2 halves the batch (4 -> 2). */
    point(&m, GLIGEN, 2, 2, 1, 4);
    gen(&m, &t);
    assert_i64(t.n, 842);
    assert_string_equal(cfg_text(&t.ops[0]), "XlaEinsum(a=2x160,b=160x1280,eq=BT;TD->BD,memory_placements=0_0_0,type=DT_BFLOAT16)");
    assert_i64(t.ops[0].weight_bytes, 2 * 320 * 1280);
    assert_i64(t.ops[1].weight_bytes, 2 * 640 * 1280);
    trace_free(&t);

    /* Without flash: self attention takes the 4-op normal path. */
    point(&m, GLIGEN, 1, 1, 1, 1);
    m.use_flash_attention = false;
    gen(&m, &t);
    assert_i64(t.n, 778);
    trace_free(&t);

    /* Two steps repeat the UNet (the 2 time-embedding ops once), fids go on. */
    point(&m, GLIGEN, 1, 1, 1, 1);
    m.num_diffusion_steps = 2;
    gen(&m, &t);
    assert_i64(t.n, 2 + 2 * 632);
    assert_i64(t.ops[634].fusion_id, 538);
    trace_free(&t);
}

static void expect_err(const struct model_config *m, const char *want)
{
    bool ovf = false;
    struct opsgen_links l = links();
    struct npu_err e = { "" };
    struct trace t;
    trace_init(&t);
    int rc = !strcmp(m->model_type, "dit") ? opsgen_dit(m, &l, &profile_neusim, &t, &ovf, &e)
                                           : opsgen_gligen(m, &l, &profile_neusim, &t, &ovf, &e);
    assert_int_equal(rc, -1);
    assert_i64(t.n, 0);
    if (!strstr(e.msg, want))
        fail_msg("got \"%s\", want \"%s\"", e.msg, want);
    trace_free(&t);
}

static void test_errors(void **s)
{
    (void)s;
    struct model_config m, x;
    point(&m, GLIGEN, 1, 1, 1, 1);
    x = m; x.pipeline_parallelism_degree = 2; x.num_chips = 2;
    expect_err(&x, "model field \"pipeline_parallelism_degree\": GLIGEN supports only 1");
    x = m; x.image_resolution.n = 3;
    expect_err(&x, "model field \"image_resolution\": expected 2 entries");
    x = m; x.noisy_latent_resolution.v[0] = 60;   /* 60 -> 30 -> 15 -> 7: not halvable 3 times */
    expect_err(&x, "\"unet_config.noisy_latent_resolution\": expected sizes divisible by 8");
    x = m; x.unet_num_heads = 7;
    expect_err(&x, "\"unet_config.num_heads\"");
    x = m; x.num_chips = 1; x.tensor_parallelism_degree = 2;
    expect_err(&x, "\"num_chips\"");
    x = m; x.model_channels = 1 << 20; x.unet_num_heads = 1; x.global_batch_size = 1 << 20;
    expect_err(&x, "overflow");

    point(&m, DIT_XL, 1, 1, 1, 1);
    x = m; x.patch_size = 3;
    expect_err(&x, "model field \"patch_size\": expected a divisor of image_width 512, got 3");
    x = m; x.pipeline_parallel_degree_dcn = 2;
    expect_err(&x, "\"pipeline_parallel_degree_dcn\"");
    /* Uneven TP: the CLI's strict check rejects it for user configs; the
     * generator rounds shards up as the reference's sweep does. */
    x = m; x.tensor_parallelism_degree = 3; x.num_chips = 3;
    {
        struct npu_err e3;
        assert_int_equal(opsgen_check_strict(&x, &e3), -1);
        assert_non_null(strstr(e3.msg, "\"tensor_parallelism_degree\""));
    }
}

/* ---- §11.4 / §12.5 ---- */

static void one_op_trace(struct trace *t, int64_t exe_ns)
{
    trace_init(t);
    struct op *o = trace_push(t);
    op_set(&o->description, "x");
    o->exe_ns = o->sa_ns = exe_ns;
    o->bounded_by = BOUND_COMPUTE;
}

static void test_statistics(void **s)
{
    (void)s;
    struct model_config m;
    struct trace t;
    struct diffusion_report r;
    struct npu_err e;
    /* GLIGEN: a request is 40 traces of 1 step. T = 2 s, batch 2. */
    point(&m, GLIGEN, 1, 1, 1, 2);
    one_op_trace(&t, 2000000000);
    assert_int_equal(diffusion_report_compute(&m, 32, opsgen_gligen_mem_bytes(32), true, &t, &r, &e), 0);
    assert_close(r.throughput_requests_per_sec, 2.0 / (2.0 * 40));
    assert_close(r.throughput_step_per_sec_per_request, 1.0 / 2.0);
    assert_close(r.latency_sec, 80.0);
    assert_close(r.latency_step_sec, 2.0 / 1 / 40);   /* Q31: / total steps again */
    assert_close(r.step_sec, 2.0);
    assert_close(r.mem_footprint_GB, 32.0 - 1024 / GIB);   /* 31.999999046325684 */
    assert_false(r.out_of_memory);
    assert_false(r.energy_done);
    trace_free(&t);

    /* DiT: the trace holds all 20 steps. T = 4 s, batch 8, 16 GiB chips. */
    point(&m, DIT_XL, 1, 1, 1, 8);
    one_op_trace(&t, 4000000000);
    int64_t mem = opsgen_dit_mem_bytes(&m, &profile_neusim);
    assert_int_equal(diffusion_report_compute(&m, 16, mem, true, &t, &r, &e), 0);
    assert_close(r.throughput_requests_per_sec, 8.0 / 4.0);
    assert_close(r.throughput_step_per_sec_per_request, 20.0 / 4.0);
    assert_close(r.latency_sec, 4.0);
    assert_close(r.latency_step_sec, 4.0 / 20);
    /* Batch 8: 2 * 28 * (weights 15,925,248 + 8 x activations 528,482,304)
     * = 237,651,750,912 B = 221.33 GiB. */
    assert_i64(mem, 56LL * (15925248 + 8LL * 528482304));
    assert_true(r.out_of_memory);   /* 1 x 16 GiB < footprint */
    m.num_chips = 16;               /* compared with all chips' HBM (Q15b): 256 GiB */
    assert_int_equal(diffusion_report_compute(&m, 16, mem, true, &t, &r, &e), 0);
    assert_false(r.out_of_memory);
    trace_free(&t);
    trace_init(&t);
    assert_int_equal(diffusion_report_compute(&m, 16, mem, true, &t, &r, &e), -1);
    trace_free(&t);
}

/* ---- §13.2 / §13.4 ---- */

static void test_sweep(void **s)
{
    (void)s;
    struct parallel_cfg *p;
    size_t n;
    struct npu_err e;
    assert_int_equal(sweep_diffusion_configs(4, false, &p, &n, &e), 0);
    /* dp, tp, pp loops over the divisors 1, 2, 4 with product 4. */
    static const int64_t want[6][3] = { { 1, 1, 4 }, { 1, 2, 2 }, { 1, 4, 1 },
                                        { 2, 1, 2 }, { 2, 2, 1 }, { 4, 1, 1 } };
    assert_i64(n, 6);
    for (size_t i = 0; i < n; i++) {
        assert_i64(p[i].dp, want[i][0]);
        assert_i64(p[i].tp, want[i][1]);
        assert_i64(p[i].pp, want[i][2]);
        assert_i64(p[i].dp_dcn * p[i].pp_dcn * p[i].tp_dcn, 1);
    }
    free(p);
    static const int64_t chips[] = { 1, 8, 64 }, dit[] = { 1, 10, 28 }, gl[] = { 1, 4, 7 };
    for (int i = 0; i < 3; i++) {
        assert_int_equal(sweep_diffusion_configs(chips[i], false, &p, &n, &e), 0);
        assert_i64(n, dit[i]);
        free(p);
        assert_int_equal(sweep_diffusion_configs(chips[i], true, &p, &n, &e), 0);
        assert_i64(n, gl[i]);
        for (size_t k = 0; k < n; k++)
            assert_i64(p[k].pp, 1);
        free(p);
    }
    /* Above 256 chips: 512, 256 and 128 chips (Q32): C(11,2)+C(10,2)+C(9,2). */
    assert_int_equal(sweep_diffusion_configs(512, false, &p, &n, &e), 0);
    assert_i64(n, 55 + 45 + 36);
    assert_i64(p[54].num_chips, 512);
    assert_i64(p[55].num_chips, 256);
    free(p);
    assert_int_equal(sweep_diffusion_configs(0, false, &p, &n, &e), -1);

    struct model_config m;
    load(&m, DIT_XL);
    m.tensor_parallelism_degree = 4;
    static const char *const v[] = { "2", "3", "4", "5e", "5p", "6e", "6p" };
    static const int64_t ax[] = { 2, 2, 3, 3, 3, 3, 3 };
    for (int i = 0; i < 7; i++) {
        sweep_map_axes_diffusion(v[i], &m);
        assert_i64(m.num_data_parallel_axes, ax[i]);
        assert_i64(m.num_tensor_parallel_axes, 0);
        assert_i64(m.num_pipeline_parallel_axes, 0);
    }
}

/* GLIGEN's corrected footprint (physical): every op's weights, each per execution, plus the
 * largest op's activations (bytes accessed less weights); the reference: HBM - 1 KiB. */
static void test_gligen_footprint(void **s)
{
    (void)s;
    struct trace t;
    trace_init(&t);
    struct op *a = test_op(&t, "a", "XlaEinsum(a=1x2,b=2x3,eq=BI;IO->BO,memory_placements=0_0_0,type=DT_BFLOAT16)",
                           "DT_BFLOAT16:[1,2],DT_BFLOAT16:[2,3]", "[DT_BFLOAT16:(1,3)]", OP_MXU, 12);
    a->weight_bytes = 1000, a->count = 2, a->bytes = 1500;
    struct op *b = test_op(&t, "b", "XlaEinsum(a=1x2,b=2x3,eq=BI;IO->BO,memory_placements=0_0_0,type=DT_BFLOAT16)",
                           "DT_BFLOAT16:[1,2],DT_BFLOAT16:[2,3]", "[DT_BFLOAT16:(1,3)]", OP_MXU, 12);
    b->weight_bytes = 300, b->count = 1, b->bytes = 1100;
    /* 2 x 1000 + 300 weights, max(1500 - 1000, 1100 - 300) = 800 live */
    assert_i64(opsgen_gligen_mem_bytes_of(&t, 16, &profile_physical), 3100);
    assert_i64(opsgen_gligen_mem_bytes_of(&t, 16, &profile_neusim), 16LL * (1 << 30) - 1024);
    trace_free(&t);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_conv),
        cmocka_unit_test(test_resample),
        cmocka_unit_test(test_dit),
        cmocka_unit_test(test_gligen),
        cmocka_unit_test(test_errors),
        cmocka_unit_test(test_statistics),
        cmocka_unit_test(test_sweep),
        cmocka_unit_test(test_gligen_footprint),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
