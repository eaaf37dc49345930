/* test_opsgen.c — LLM inference ops generation, builders, memory footprint and
 * sweep helpers against the hand-checked values of opsgen.md §4, §5, §11,
 * §13, §15 and chipsim.md §14.1. */
#include "testutil.h"
#include "traces/dtype.h"

#include <cjson/cJSON.h>
#include <stdio.h>
#include <stdlib.h>

#include "opsgen/builders.h"
#include "opsgen/opsgen.h"
#include "opsgen/parallel.h"
#include "opsgen/sweep.h"

/* ---- fixtures ---- */

#define LLAMA3_8B test_model_text("llama3-8b")
#define LLAMA3_70B test_model_text("llama3-70b")

static void load_model(struct model_config *m, const char *json)
{
    cJSON *j = cJSON_Parse(json);
    assert_non_null(j);
    struct npu_err e;
    assert_int_equal(model_config_from_json(m, j, NULL, &e), 0);
    cJSON_Delete(j);
}

static struct opsgen_links links(const char *v)
{
    struct opsgen_links l = { .pcie_bw_GBps = 32.0, .ici_latency_ns = 3330,
                              .dcn_latency_ns = 3700, .pcie_latency_ns = 400 };
    snprintf(l.chip_name, sizeof l.chip_name, "%s", v);
    if (!strcmp(v, "4")) {
        l.ici_bw_GBps = 112; l.dcn_bw_GBps = 12.5; l.hbm_size_GB = 32;
        strcpy(l.ICI_topology, "TORUS_3D");
    } else if (!strcmp(v, "5e")) {
        l.ici_bw_GBps = 100; l.dcn_bw_GBps = 12.5; l.hbm_size_GB = 16;
        strcpy(l.ICI_topology, "TORUS_2D");
    } else {  /* 5p */
        l.ici_bw_GBps = 200; l.dcn_bw_GBps = 25; l.hbm_size_GB = 95;
        strcpy(l.ICI_topology, "TORUS_3D");
    }
    return l;
}

/* Model + sweep parallelism + axis mapping, as run_sim builds a run. */
static void setup(struct model_config *m, const char *json, const char *v, int64_t dp, int64_t tp,
                  int64_t pp, int64_t ppd, int64_t gbs)
{
    load_model(m, json);
    struct parallel_cfg p = { dp * tp * pp * ppd, dp, tp, pp, 1, 1, 1, ppd, 1 };
    sweep_apply_parallel(m, &p, gbs);
    sweep_map_axes_llm(v, m);
}

static size_t count_phase(const struct trace *t, enum phase ph)
{
    size_t n = 0;
    for (size_t i = 0; i < t->n; i++)
        n += t->ops[i].phase == ph;
    return n;
}

static const struct op *find(const struct trace *t, enum phase ph, const char *opcode, int nth)
{
    for (size_t i = 0; i < t->n; i++)
        if (t->ops[i].phase == ph && !strcmp(t->ops[i].opcode, opcode) && nth-- == 0)
            return &t->ops[i];
    fail_msg("no %s op", opcode);
    return NULL;
}

static void gen(const struct model_config *m, const char *v, struct trace *t)
{
    bool ovf = false;
    struct opsgen_links l = links(v);
    struct npu_err e;
    trace_init(t);
    int rc = opsgen_llm_inference(m, &l, &profile_neusim, t, &ovf, &e);
    if (rc) fail_msg("%s", e.msg);
    assert_false(ovf);   /* every size fits */
}

/* ---- §4.1 / §3.10 ---- */

static void test_split_parallelism(void **s)
{
    (void)s;
    static const struct { int64_t p; int n; int len; int64_t ax[3]; } cases[] = {
        { 4, 3, 2, { 2, 2 } }, { 8, 3, 3, { 2, 2, 2 } }, { 16, 3, 3, { 4, 2, 2 } },
        { 64, 3, 3, { 4, 4, 4 } }, { 12, 2, 2, { 6, 2 } }, { 6, 2, 2, { 2, 3 } },
        { 2, 2, 1, { 2 } }, { 1, 2, 0, { 0 } }, { 7, 1, 1, { 7 } },
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        int64_t out[PAR_MAX_FACTORS];
        int n = split_parallelism_degree(cases[i].p, cases[i].n, true, out);
        assert_int_equal(n, cases[i].len);
        for (int k = 0; k < n; k++)
            assert_i64(out[k], cases[i].ax[k]);
    }
    int64_t out[PAR_MAX_FACTORS];   /* corrected Q12 pads with 1s */
    assert_int_equal(split_parallelism_degree(4, 3, false, out), 3);
    assert_i64(out[2], 1);
    int64_t f[PAR_MAX_FACTORS];
    assert_int_equal(prime_factorize(360, f), 6);   /* 2 2 2 3 3 5 */
    assert_i64(f[5], 5);
}

static void test_bisection(void **s)
{
    (void)s;
    assert_close(bisection_bw_per_chip_GBps(16, "TORUS_3D", 200, true), 100.0);
    assert_close(bisection_bw_per_chip_GBps(4, "TORUS_3D", 200, true), 100.0);
    assert_close(bisection_bw_per_chip_GBps(64, "TORUS_3D", 112, true), 56.0);
    assert_close(bisection_bw_per_chip_GBps(2, "TORUS_2D", 100, true), 50.0);  /* 1-D */
    assert_close(bisection_bw_per_chip_GBps(1, "TORUS_3D", 200, true), -200.0); /* empty topo */
}

/* ---- §3.10 collectives ---- */

static struct coll_axes axes2(int64_t a, int64_t b, double bw)
{
    return (struct coll_axes){ 2, { a, b }, { bw, bw }, 3330, false, COLL_RING, false, 0, 0 };
}

static void test_collectives(void **s)
{
    bool ovf = false;
    (void)s;
    struct trace t;
    trace_init(&t);
    struct coll_axes ax = axes2(2, 2, 200);
    assert_i64(staged_elems(&ovf, 100, &ax), 150);
    /* §15: TP AllGather [8,4096,2048] on [2,2] */
    const struct op *o = b_all_gather(&t, &ovf, 3, 80, "d", "AllGather", SHP(8, 4096, 2048), 2, &ax);
    assert_i64(o->ici_out_bytes, 805306368);
    assert_i64(o->ici_in_bytes, 805306368);
    assert_i64(o->bytes, 2 * 805306368LL);
    assert_i64(o->ici_ns, 2013266);
    assert_string_equal(cfg_text(o), "AllGather(8x4096x2048->8x4096x8192)");
    assert_string_equal(out_text(o), "[DT_BFLOAT16:(8,4096,8192)]");
    assert_int_equal(o->type, OP_ICI_NO_COMPUTE);
    /* §15: ReduceScatter [8,4096,8192] on [2,2] */
    o = b_reduce_scatter(&t, &ovf, 4, 80, "d", "RS", SHP(8, 4096, 8192), 2, &ax);
    assert_i64(o->ici_out_bytes, 2 * 100663296LL);
    assert_i64(o->ici_ns, 503317);    /* 201,326,592 B over 2 axes x 200 GB/s */
    assert_i64(o->flops, 301989888);
    assert_string_equal(cfg_text(o), "ReduceScatter(['8', '4096', '8192']->['8', '4096', '2048'])");
    assert_int_equal(o->type, OP_VPU);
    assert_int_equal(o->opcode_type, OPC_COLLECTIVE_REDUCE);
    /* chipsim §14.1 item 6: v4, TP 8 on [4,2], 112 GB/s per axis */
    struct coll_axes v4 = axes2(4, 2, 112);
    o = b_reduce_scatter(&t, &ovf, 4, 80, "d", "RS", SHP(8, 4096, 8192), 2, &v4);
    assert_i64(o->ici_out_bytes, 83886080);
    assert_i64(o->ici_ns, 374492);
    assert_i64(o->flops, 293601280);
    /* item 7 */
    o = b_all_gather(&t, &ovf, 4, 80, "d", "AG", SHP(8, 4096, 1024), 2, &v4);
    assert_i64(o->ici_out_bytes, 671088640);
    assert_i64(o->ici_ns, 2995932);
    /* item 8: pipeline transfer */
    o = b_pipe_xfer(&t, &ovf, 2, 1, "d", "x", false, SHP(8, 4096, 1024), 112, 3330);
    assert_i64(o->ici_in_bytes, 67108864);
    assert_i64(o->ici_out_bytes, 0);
    assert_i64(o->ici_ns, 599187);
    assert_string_equal(cfg_text(o), "InterChipCommInput([8, 4096, 1024])");
    /* §15: PP transfer [1,4096,2048] / 200 */
    o = b_pipe_xfer(&t, &ovf, 2, 1, "d", "x", true, SHP(1, 4096, 2048), 200, 3330);
    assert_i64(o->ici_ns, 83887);
    assert_i64(o->ici_out_bytes, 16777216);
    /* decode-size collectives hit the latency floor 3330*3 */
    struct coll_axes four = { 1, { 4 }, { 200 }, 3330, false, COLL_RING, false, 0, 0 };
    o = b_all_gather(&t, &ovf, 4, 1, "d", "AG", SHP(1, 1, 2048), 2, &four);
    assert_i64(o->ici_ns, 9990);
    /* physical: the 3 steps' latency adds to the transfer (alpha x steps + bytes / beta) */
    struct coll_axes sum0 = { 1, { 4 }, { 200 }, 0, true, COLL_RING, false, 0, 0 }, sum = { 1, { 4 }, { 200 }, 3330, true, COLL_RING, false, 0, 0 };
    int64_t xfer = b_all_gather(&t, &ovf, 4, 1, "d", "AG", SHP(1, 1, 2048), 2, &sum0)->ici_ns;
    assert_true(xfer > 0 && xfer < 9990);
    assert_i64(b_all_gather(&t, &ovf, 4, 1, "d", "AG", SHP(1, 1, 2048), 2, &sum)->ici_ns, xfer + 9990);
    /* direct (a switch): one step a phase whatever p: the all-gather pays
     * 3330 once, not 3 times; an all-reduce's two phases 6660, not 19980 */
    struct coll_axes dir = { 1, { 4 }, { 200 }, 3330, true, COLL_DIRECT, false, 0, 0 }, dir0 = { 1, { 4 }, { 200 }, 0, true, COLL_DIRECT, false, 0, 0 };
    assert_i64(b_all_gather(&t, &ovf, 4, 1, "d", "AG", SHP(1, 1, 2048), 2, &dir)->ici_ns, xfer + 3330);
    int64_t arx = b_all_reduce(&t, &ovf, 4, 1, "d", "AR", SHP(1, 1, 2048), &dir0)->ici_ns;
    assert_i64(b_all_reduce(&t, &ovf, 4, 1, "d", "AR", SHP(1, 1, 2048), &dir)->ici_ns, arx + 6660);
    assert_i64(b_all_reduce(&t, &ovf, 4, 1, "d", "AR", SHP(1, 1, 2048), &sum)->ici_ns, arx + 19980);
    /* a tree over 4 chips: log2 4 = 2 steps a phase, an all-reduce 4 (13320);
     * over 5 chips ceil(log2 5) = 3 a phase */
    struct coll_axes tree = { 1, { 4 }, { 200 }, 3330, true, COLL_TREE, false, 0, 0 };
    assert_i64(b_all_reduce(&t, &ovf, 4, 1, "d", "AR", SHP(1, 1, 2048), &tree)->ici_ns, arx + 13320);
    assert_i64(b_all_gather(&t, &ovf, 4, 1, "d", "AG", SHP(1, 1, 2048), 2, &tree)->ici_ns, xfer + 6660);
    /* the base latency, once a phase whatever the algorithm: 1000 ns on the
     * ring's 3 steps (9990) of an all-gather, twice on an all-reduce's 6
     * (19980) or the switch's 2 (6660); none where the latency overlaps the
     * transfer (the reference's) */
    struct coll_axes based = sum, dbased = dir;
    based.base_ns = dbased.base_ns = 1000;
    assert_i64(b_all_gather(&t, &ovf, 4, 1, "d", "AG", SHP(1, 1, 2048), 2, &based)->ici_ns, xfer + 9990 + 1000);
    assert_i64(b_all_reduce(&t, &ovf, 4, 1, "d", "AR", SHP(1, 1, 2048), &based)->ici_ns, arx + 19980 + 2000);
    assert_i64(b_all_reduce(&t, &ovf, 4, 1, "d", "AR", SHP(1, 1, 2048), &dbased)->ici_ns, arx + 6660 + 2000);
    assert_i64(b_all_reduce(&t, &ovf, 4, 1, "d", "AR", SHP(1, 1, 2048), &dbased)->ici_alpha_ns, 6660 + 2000);
    /* the engines' custom kernels (direct_max_bytes): a ring's collective whose whole tensor is at
     * most the bound takes a switch's one step a phase. 2048 bf16 elements are 4096 bytes: under a
     * bound of 4096 the all-reduce pays 6660, not 19980, and the all-gather of a 4096-byte output
     * 3330; a bound of 4095 leaves both to the ring; none where the latency overlaps */
    struct coll_axes small = sum, below = sum, ref = four;
    small.direct_max_bytes = 4096, below.direct_max_bytes = 4095, ref.direct_max_bytes = 4096;
    assert_i64(b_all_reduce(&t, &ovf, 4, 1, "d", "AR", SHP(1, 1, 2048), &small)->ici_ns, arx + 6660);
    assert_i64(b_all_reduce(&t, &ovf, 4, 1, "d", "AR", SHP(1, 1, 2048), &below)->ici_ns, arx + 19980);
    assert_i64(b_all_gather(&t, &ovf, 4, 1, "d", "AG", SHP(1, 1, 512), 2, &small)->ici_alpha_ns, 3330);
    assert_i64(b_all_gather(&t, &ovf, 4, 1, "d", "AG", SHP(1, 1, 512), 2, &below)->ici_alpha_ns, 9990);
    assert_i64(b_all_gather(&t, &ovf, 4, 1, "d", "AG", SHP(1, 1, 2048), 2, &ref)->ici_ns, 9990);
    /* all-reduce and all-to-all (§15 DeepSeek: 61,440 B / 100 GB/s floored to 9,990) */
    o = b_all_to_all(&t, &ovf, 1, 1, "d", "A2A", SHP(4, 1, 3, 5120), "DT_FLOAT8", 100, 4, 3330);
    assert_i64(o->ici_out_bytes, 61440);
    assert_i64(o->ici_ns, 9990);
    /* over axes: the reference's pricing without latency_adds (the same
     * 9990); physical adds the 3 exchanges (9990, the switch's one: 3330)
     * and the base latency of its one phase to the transfer, 61,440 B at
     * 100 GB/s = 614 ns, and only the transfer meets the links' efficiency */
    assert_i64(b_all_to_all_over(&t, &ovf, 1, 1, "d", "A2A", SHP(4, 1, 3, 5120), "DT_FLOAT8", 100, &four)->ici_ns, 9990);
    int64_t a2x = b_all_to_all_over(&t, &ovf, 1, 1, "d", "A2A", SHP(4, 1, 3, 5120), "DT_FLOAT8", 100, &sum0)->ici_ns;
    assert_true(a2x >= 614 && a2x <= 615);
    o = b_all_to_all_over(&t, &ovf, 1, 1, "d", "A2A", SHP(4, 1, 3, 5120), "DT_FLOAT8", 100, &based);
    assert_i64(o->ici_ns, a2x + 9990 + 1000);
    assert_i64(o->ici_alpha_ns, 9990 + 1000);
    assert_i64(b_all_to_all_over(&t, &ovf, 1, 1, "d", "A2A", SHP(4, 1, 3, 5120), "DT_FLOAT8", 100, &dir)->ici_ns, a2x + 3330);
    struct coll_axes one = { 1, { 2 }, { 200 }, 3330, false, COLL_RING, false, 0, 0 };
    one.base_ns = 1000;
    o = b_all_reduce(&t, &ovf, 1, 1, "d", "AR", SHP(1, 1000, 1), &one);
    assert_i64(o->ici_out_bytes, 4000);
    assert_i64(o->ici_ns, 6660);
    one.base_ns = 0;
    /* physical: a ring's bytes, (p - 1) / p of the whole tensor a phase,
     * whatever the axes. All-gather to [8,4096,8192] over 4 chips: 3/4 of
     * 268,435,456 elements x 2 B = 402,653,184 B (the reference's staged
     * [2,2]: 805,306,368, its whole output and a half); reduce-scatter of
     * [8,4096,8192]: the same 402,653,184 (staged: 201,326,592, a shard and
     * a half); all-reduce of 1000 elements over 2: two phases of 500 x 2 B */
    struct coll_axes ring2 = axes2(2, 2, 200);
    ring2.ring_bytes = true;
    assert_i64(b_all_gather(&t, &ovf, 4, 1, "d", "AG", SHP(8, 4096, 2048), 2, &ring2)->ici_out_bytes, 402653184);
    o = b_reduce_scatter(&t, &ovf, 4, 1, "d", "RS", SHP(8, 4096, 8192), 2, &ring2);
    assert_i64(o->ici_out_bytes, 402653184);
    assert_i64(o->ici_ns, 1006633);   /* 402,653,184 B over 2 axes x 200 GB/s */
    assert_i64(o->flops, 301989888);  /* the sums are the reference's: a shard x (p - 1) */
    one.ring_bytes = true;
    assert_i64(b_all_reduce(&t, &ovf, 1, 1, "d", "AR", SHP(1, 1000, 1), &one)->ici_out_bytes, 2000);
    assert_false(ovf);
    trace_free(&t);
}

static void test_kv_swap_builder(void **s)
{
    bool ovf = false;
    (void)s;
    struct trace t;
    trace_init(&t);
    /* chipsim §14.1: v5e llama3-8b bs32 KVSwapInput, PCIe 8,406,250,000 ns */
    const struct op *o = b_kv_swap(&t, &ovf, 2, 1, "PCIeMemSwapIn", "PCIeMemSwapIn", false,
                                   144418275328LL, true, true, 32.0, 400, 3330);
    assert_i64(o->ici_in_bytes, 288836550656LL);
    assert_i64(o->pcie_ns, 8406250000LL);
    assert_i64(o->ici_ns, 8406250000LL);
    assert_string_equal(cfg_text(o), "KVSwapInput([144418275328])");
    assert_string_equal(o->name, "PCIeMemSwapInPCIeMemSwapIn");
    trace_free(&t);
}

/* ---- §3.1–§3.4 ---- */

static void test_einsum_and_names(void **s)
{
    bool ovf = false;
    (void)s;
    struct trace t;
    trace_init(&t);
    const struct op *o = b_einsum(&t, &ovf, 3, 32, "-Q-3", "MatMul: Q", SHP(1, 4096, 4096),
                                  SHP(4096, 32, 128), "BLM;MND->BLND", "0_0_0", "DT_BFLOAT16");
    assert_i64(o->flops, 137438953472LL);
    assert_i64(o->weight_bytes, 33554432);
    assert_string_equal(out_text(o), "[DT_BFLOAT16:(1,4096,32,128)]");
    assert_string_equal(o->name, "Q3MatMulQ");
    assert_string_equal(in_text(o), "DT_BFLOAT16:[1,4096,4096],DT_BFLOAT16:[4096,32,128]");
    /* a letter in neither input is rejected */
    assert_null(b_einsum(&t, &ovf, 1, 1, "d", "n", SHP(2, 3), SHP(3, 4), "AB;BC->AZ", "0_0_0",
                         "DT_BFLOAT16"));
    assert_null(b_unary(&t, &ovf, 1, 1, "d", "n", "Tanh", SHP(2), "0_0", "DT_BFLOAT16"));
    o = b_unary(&t, &ovf, 1, 1, "d", "n", "RMSNorm", SHP(2, 5), "0_0", "DT_BFLOAT16");
    assert_i64(o->flops, 60);
    o = b_binary(&t, &ovf, 1, 1, "d", "n", "Add", SHP(2, 5), "0_0_0", "DT_BFLOAT16", false);
    assert_string_equal(in_text(o), "DT_BFLOAT16:[2,5],DT_BFLOAT16:[2,5]");
    o = b_hbm_io(&t, &ovf, 1, 1, "d", "input", false, SHP(16), "DT_BFLOAT16");
    assert_string_equal(cfg_text(o), "Abs(x=16,type=DT_BFLOAT16)");
    assert_string_equal(o->opcode, "Input");
    struct op scratch;   /* op strings are released by op_free, not free() */
    op_init(&scratch);
    sanitize_name(&scratch.name, "Fwd-FFN-encoder-AttnPlusFFn",
                  "attnPlusFFn = Add(([B/d][L/l][M/mh] + [B/d][L/l][M/mh]))");
    assert_string_equal(scratch.name, "FwdFFNencoderAttnPlusFFnattnPlusFFnAddBdLlMmhBdLlMmh");
    op_free(&scratch);
    assert_i64(dtype_bytes("DT_FLOAT8"), 1);
    assert_i64(dtype_bytes("DT_INT64"), 8);
    assert_i64(dtype_bytes("DT_FLOAT"), 4);
    assert_i64(dtype_bytes("DT_STRING"), -1);
    /* The per-thread last-token memo: alternating tokens, a token that
     * extends the last one, and one too long to keep. */
    static const struct { const char *dt; int b; } seq[] = {
        { "DT_BFLOAT16", 2 }, { "DT_BFLOAT16", 2 }, { "DT_INT64", 8 }, { "DT_BFLOAT16", 2 },
        { "DT_FLOAT", 4 }, { "DT_FLOAT8", 1 }, { "DT_FLOAT", 4 }, { "DT_BOOL", 1 }, { "DT_STRING", -1 },
        { "DT_AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA32", 4 }, { "DT_AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA", -1 },
        { "DT_STRING", -1 }, { "DT_INT64", 8 },
    };
    for (size_t i = 0; i < sizeof seq / sizeof seq[0]; i++)
        assert_i64(dtype_bytes(seq[i].dt), seq[i].b);
    trace_free(&t);
}

/* ---- §5 whole runs ---- */

static void test_llama8b_one_chip(void **s)
{
    (void)s;
    struct model_config m;
    struct trace t;
    setup(&m, LLAMA3_8B, "5p", 1, 1, 1, 1, 1);
    gen(&m, "5p", &t);
    assert_int_equal(count_phase(&t, PHASE_PREFILL), 12);
    assert_int_equal(count_phase(&t, PHASE_DECODE), 16);
    assert_int_equal(t.n, 28);
    const struct op *q = &t.ops[1];
    assert_string_equal(q->description, "-Q-3");
    assert_i64(q->flops, 137438953472LL);
    assert_i64(q->weight_bytes, 33554432);
    const struct op *fa = find(&t, PHASE_PREFILL, "FlashAttention", 0);
    assert_i64(fa->flops, 70866960384LL);
    assert_string_equal(out_text(fa), "[DT_BFLOAT16:(1,4096,32,32)]");
    assert_string_equal(fa->name, "FlashAttention4FlashAttention");
    assert_i64(fa->fusion_id, 4);
    /* fid walk: LN 2, QKV 3, FA 4, out 5, LN 6, FFN 7..10, add 11; decode from 12 */
    assert_i64(t.ops[0].fusion_id, 2);
    assert_i64(t.ops[11].fusion_id, 11);
    assert_i64(t.ops[12].fusion_id, 12);
    const struct op *sm = find(&t, PHASE_DECODE, "Softmax", 0);
    assert_i64(sm->count, 16384);
    assert_string_equal(out_text(sm), "[DT_BFLOAT16:(1,1,4608,32)]");
    const struct op *kv = find(&t, PHASE_DECODE, "Einsum", 1);
    assert_i64(kv->weight_bytes, 67108864);
    assert_string_equal(kv->name, "AttentionservingdecodeQKVMatMulKV2xnorm2Wkv1");
    trace_free(&t);

    m.use_flash_attention = false;
    gen(&m, "5p", &t);
    assert_int_equal(count_phase(&t, PHASE_PREFILL), 15);
    assert_int_equal(count_phase(&t, PHASE_DECODE), 16);
    trace_free(&t);

    strcpy(m.ffn_type, "default");
    gen(&m, "5p", &t);
    const struct op *ffo = find(&t, PHASE_PREFILL, "Einsum", 7);  /* FFo, non-flash */
    assert_string_equal(ffo->description, "Fwd-FFN_encoder-FFinput");   /* Q18 */
    trace_free(&t);
}

static void test_tp_and_pp_counts_and_fids(void **s)
{
    (void)s;
    struct model_config m;
    struct trace t;
    /* llama3-70b tp4 on v5p: tp axes [2,2], 17 + 21 ops */
    setup(&m, LLAMA3_70B, "5p", 1, 4, 1, 1, 8);
    assert_i64(m.num_tensor_parallel_axes, 3);
    gen(&m, "5p", &t);
    assert_int_equal(count_phase(&t, PHASE_PREFILL), 17);
    assert_int_equal(count_phase(&t, PHASE_DECODE), 21);
    const struct op *rs = find(&t, PHASE_PREFILL, "ReduceScatter", 0);
    assert_string_equal(cfg_text(rs), "ReduceScatter(['8', '4096', '8192']->['8', '4096', '2048'])");
    assert_i64(rs->ici_ns, 503317);
    assert_i64(rs->flops, 301989888);
    const struct op *ag = find(&t, PHASE_PREFILL, "AllGather", 0);
    assert_i64(ag->ici_ns, 2013266);
    assert_string_equal(ag->name, "ConcatenatedimsbeforeattnAllGatherMHA3");
    const struct op *agf = find(&t, PHASE_PREFILL, "AllGather", 2);
    assert_string_equal(cfg_text(agf), "AllGather(8x8192->8x32768)");   /* Q6 */
    const struct op *agd = find(&t, PHASE_DECODE, "AllGather", 0);
    assert_i64(agd->ici_ns, 9990);
    trace_free(&t);

    /* §15: llama3-70b tp4 pp2 ppdcn2 (16 chips) bs4: 21 + 25, prefill fids
     * 2..17, sends reuse the FFN's first fid (Q5), decode 13..29 */
    setup(&m, LLAMA3_70B, "5p", 1, 4, 2, 2, 4);
    gen(&m, "5p", &t);
    assert_int_equal(count_phase(&t, PHASE_PREFILL), 21);
    assert_int_equal(count_phase(&t, PHASE_DECODE), 25);
    assert_string_equal(t.ops[0].description, "PrefillReceiveInputFromPipelineDCN");
    assert_string_equal(t.ops[0].name,
                        "PrefillReceiveInputFromPipelineDCNreceiveInputDCNTTransfer8388608");
    assert_i64(t.ops[0].ici_ns, 83887);   /* DCN on ICI bandwidth (Q9) */
    assert_i64(t.ops[0].count, 1);
    const struct op *send = &t.ops[19], *send_dcn = &t.ops[20];
    assert_string_equal(send->description, "PrefillSendOutputToPipelineICI");
    assert_string_equal(send_dcn->description, "PrefillSendOutputToPipelineDCN");
    assert_i64(send->fusion_id, 11);
    assert_i64(send_dcn->fusion_id, 12);
    int64_t lo = INT64_MAX, hi = 0;
    for (size_t i = 0; i < 21; i++) {
        lo = t.ops[i].fusion_id < lo ? t.ops[i].fusion_id : lo;
        hi = t.ops[i].fusion_id > hi ? t.ops[i].fusion_id : hi;
    }
    assert_i64(lo, 2);
    assert_i64(hi, 17);
    assert_i64(t.ops[21].fusion_id, 13);
    assert_i64(t.ops[t.n - 1].fusion_id, 24);
    hi = 0;
    for (size_t i = 21; i < t.n; i++)
        hi = t.ops[i].fusion_id > hi ? t.ops[i].fusion_id : hi;
    assert_i64(hi, 29);
    assert_string_equal(t.ops[t.n - 2].name,
                        "DecodeSendOutputToPipelineICIsendOutputICITransfer2048");
    assert_i64(t.ops[t.n - 1].count, 512);
    trace_free(&t);
}

static void test_memory(void **s)
{
    (void)s;
    struct model_config m;
    setup(&m, LLAMA3_8B, "5p", 1, 1, 1, 1, 1);
    const double gib = 1073741824.0;
    assert_close(opsgen_llm_inference_mem_bytes(&m, PHASE_PREFILL, &profile_neusim) / gib, 21.5);
    assert_close(opsgen_llm_inference_mem_bytes(&m, PHASE_DECODE, &profile_neusim) / gib, 22.5625);
    /* reference JSON: llama3-8b tp2 pp2 bs16 prefill 20.25 GiB */
    setup(&m, LLAMA3_8B, "5p", 1, 2, 2, 1, 16);
    assert_close(opsgen_llm_inference_mem_bytes(&m, PHASE_PREFILL, &profile_neusim) / gib, 20.25);
    /* Q14: with tp 8 > kv/tp the corrected test keeps sharing only if tp <= kv */
    struct profile fixed = profile_neusim;
    fixed.mem_kv_sharing_compares_divided = false;
    setup(&m, LLAMA3_8B, "5p", 1, 8, 1, 1, 1);
    assert_true(opsgen_llm_inference_mem_bytes(&m, PHASE_PREFILL, &profile_neusim) >
                opsgen_llm_inference_mem_bytes(&m, PHASE_PREFILL, &fixed));
}

static void test_kv_swap_run(void **s)
{
    (void)s;
    struct model_config m;
    struct trace t;
    setup(&m, LLAMA3_70B, "5p", 1, 1, 1, 1, 1);
    m.enable_swap_kv_cache = true;
    gen(&m, "5p", &t);
    assert_int_equal(count_phase(&t, PHASE_PREFILL), 14);
    assert_int_equal(count_phase(&t, PHASE_DECODE), 18);
    const struct op *in = &t.ops[0], *out = &t.ops[1];
    assert_string_equal(in->opcode, "KVSwapInput");
    assert_string_equal(out->opcode, "KVSwapOutput");
    assert_string_equal(cfg_text(in), "KVSwapInput([39594229760])");
    assert_i64(in->ici_in_bytes, 79188459520LL);
    assert_i64(out->ici_out_bytes, 79188459520LL);
    assert_i64(in->ici_ns, 2304687500LL);
    assert_i64(in->pcie_ns, 2304687500LL);
    assert_i64(in->fusion_id, 2);
    assert_i64(out->fusion_id, 3);
    assert_i64(t.ops[2].fusion_id, 4);   /* the input LayerNorm follows */
    const struct op *din = find(&t, PHASE_DECODE, "KVSwapInput", 0);
    assert_i64(din->count, 512);
    trace_free(&t);
    /* llama3-8b fits: no swap ops */
    setup(&m, LLAMA3_8B, "5p", 1, 1, 1, 1, 1);
    m.enable_swap_kv_cache = true;
    gen(&m, "5p", &t);
    assert_int_equal(t.n, 28);
    trace_free(&t);
}

/* ---- §13 ---- */

static void test_axes(void **s)
{
    (void)s;
    static const struct { const char *v; int64_t dp, tp, pp, ad, at, ap; } c[] = {
        { "5p", 1, 8, 1, 0, 3, 0 }, { "5p", 2, 4, 1, 1, 2, 0 }, { "5p", 2, 1, 4, 2, 0, 1 },
        { "5p", 1, 1, 1, 0, 0, 0 }, { "5p", 1, 1, 4, 0, 0, 1 }, { "5e", 1, 4, 1, 0, 2, 0 },
        { "5e", 1, 2, 2, 0, 1, 1 }, { "2", 2, 2, 2, 1, 1, 1 }, { "4", 4, 1, 1, 3, 0, 0 },
    };
    for (size_t i = 0; i < sizeof c / sizeof c[0]; i++) {
        struct model_config m;
        setup(&m, LLAMA3_8B, c[i].v, c[i].dp, c[i].tp, c[i].pp, 1, 16);
        assert_i64(m.num_data_parallel_axes, c[i].ad);
        assert_i64(m.num_tensor_parallel_axes, c[i].at);
        assert_i64(m.num_pipeline_parallel_axes, c[i].ap);
    }
}

static void test_pstr_and_apply(void **s)
{
    (void)s;
    char b[128];
    struct parallel_cfg p = { 4, 1, 4, 1, 1, 1, 1, 1, 1 };
    sweep_pstr_llm(&p, 16, b, sizeof b);
    assert_string_equal(b, "dp1-tp4-pp1-dpdcn1-tpdcn1-ppdcn1-bs16");
    struct model_config m;
    load_model(&m, LLAMA3_8B);
    struct parallel_cfg q = { 12, 1, 1, 3, 1, 1, 1, 2, 1 };
    sweep_apply_parallel(&m, &q, 16);
    assert_i64(m.microbatch_size_ici, 3);    /* ceil(16/1/3/2) */
    assert_i64(m.microbatch_size_dcn, 8);
    assert_i64(m.global_batch_size, 16);
    assert_i64(m.num_chips, 12);
    assert_i64(m.pipeline_parallel_degree_dcn, 2);
}

static void test_enumeration(void **s)
{
    (void)s;
    struct parallel_cfg *c;
    size_t n;
    struct npu_err e;
    static const struct { int64_t chips; bool tr; size_t n; } cases[] = {
        { 1, false, 1 }, { 8, false, 4 }, { 64, false, 7 }, { 256, false, 9 },
        { 1, true, 1 }, { 8, true, 10 }, { 64, true, 28 },
        /* >256: dcn 1 (10) + 256 chips on <=2 pods (9+8+8) + 128 on <=4 pods (8+7+7+6+6+6) */
        { 512, false, 75 },
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        assert_int_equal(sweep_llm_configs(cases[i].chips, cases[i].tr, &c, &n, &e), 0);
        assert_int_equal(n, cases[i].n);
        free(c);
    }
    assert_int_equal(sweep_llm_configs(4, false, &c, &n, &e), 0);
    assert_i64(c[0].tp, 1);
    assert_i64(c[0].pp, 4);
    assert_i64(c[2].tp, 4);
    free(c);
    assert_int_equal(sweep_llm_configs(512, false, &c, &n, &e), 0);
    assert_i64(c[10].num_chips, 256);   /* quirk Q32 */
    assert_i64(c[74].num_chips, 128);
    free(c);
    assert_int_equal(sweep_llm_configs(0, false, &c, &n, &e), -1);
}

static void test_validation(void **s)
{
    (void)s;
    struct model_config m;
    struct opsgen_links l = links("5p");
    char why[256];
    /* §15: llama3-70b tp4 bs8 on v5p is invalid (146 GiB > 1.5 x 95) */
    setup(&m, LLAMA3_70B, "5p", 1, 4, 1, 1, 8);
    assert_false(sweep_validate_llm(&m, &l, &profile_neusim, PHASE_PREFILL, 1.5, why, sizeof why));
    assert_non_null(strstr(why, "footprint"));
    assert_false(sweep_validate_llm(&m, &l, &profile_neusim, PHASE_DECODE, 1.5, why, sizeof why));
    setup(&m, LLAMA3_70B, "5p", 1, 8, 1, 1, 8);
    assert_true(sweep_validate_llm(&m, &l, &profile_neusim, PHASE_PREFILL, 1.5, why, sizeof why));
    /* pp over the batch */
    setup(&m, LLAMA3_8B, "5p", 1, 1, 4, 1, 1);
    assert_false(sweep_validate_llm(&m, &l, &profile_neusim, PHASE_DECODE, 1.5, why, sizeof why));
    assert_non_null(strstr(why, "global_batch_size"));
    /* dp, tp, pp all > 1 on v3 */
    struct opsgen_links v3 = links("5p");
    strcpy(v3.chip_name, "3");
    setup(&m, LLAMA3_8B, "3", 2, 2, 2, 1, 64);
    assert_false(sweep_validate_llm(&m, &v3, &profile_neusim, PHASE_PREFILL, 1.5, why, sizeof why));
    /* ICI pod limit of 256 chips on v5e */
    struct opsgen_links v5e = links("5e");
    setup(&m, LLAMA3_8B, "5e", 1, 512, 1, 1, 64);
    assert_false(sweep_validate_llm(&m, &v5e, &profile_neusim, PHASE_PREFILL, 1e9, why, sizeof why));
    assert_non_null(strstr(why, "pod"));
    /* pp*pp_dcn over num_layers */
    setup(&m, LLAMA3_8B, "5p", 1, 1, 64, 1, 64);
    assert_false(sweep_validate_llm(&m, &l, &profile_neusim, PHASE_PREFILL, 1.5, why, sizeof why));
}

/* The corrected branches of the opsgen quirk switches (profile.h). */
static void test_corrected_profile(void **s)
{
    bool ovf = false;
    (void)s;
    struct profile fixed = profile_neusim;
    fixed.fa_uses_heads_as_dhead = false;
    fixed.pp_send_reuses_fid = false;
    fixed.ffn_allgather_2d = false;
    fixed.self_attn_ln_unscattered = false;
    fixed.dcn_transfers_use_ici = false;
    fixed.split_axes_drops_missing = false;
    fixed.zero_tp_axes_ignore_tp = false;
    fixed.binary_ops_list_one_input = false;
    struct model_config m;
    setup(&m, LLAMA3_8B, "5p", 1, 2, 2, 1, 16);
    m.num_tensor_parallel_axes = 0;          /* Q13: TP still applies */
    struct opsgen_links l = links("5p");
    struct trace t;
    struct npu_err e;
    trace_init(&t);
    assert_int_equal(opsgen_llm_inference(&m, &l, &fixed, &t, &ovf, &e), 0);
    const struct op *fa = find(&t, PHASE_PREFILL, "FlashAttention", 0);
    assert_string_equal(out_text(fa), "[DT_BFLOAT16:(8,4096,16,128)]");
    const struct op *ag = find(&t, PHASE_PREFILL, "AllGather", 2);
    assert_string_equal(cfg_text(ag), "AllGather(8x4096x2048->8x4096x4096)");
    const struct op *ln = find(&t, PHASE_DECODE, "LayerNorm", 1);
    assert_string_equal(cfg_text(ln), "LayerNorm(x=8x1x2048,memory_placements=0_0,type=DT_BFLOAT16)");
    const struct op *add = find(&t, PHASE_DECODE, "Add", 0);
    assert_string_equal(in_text(add), "DT_BFLOAT16:[8,1,16,128],DT_BFLOAT16:[8,1,16,128]");
    size_t np = count_phase(&t, PHASE_PREFILL);
    assert_i64(t.ops[np - 1].fusion_id, t.ops[np - 2].fusion_id + 1);   /* Q5 fixed */
    trace_free(&t);
}

static const struct op *find_cfg(const struct trace *t, enum phase ph, const char *needle, int nth)
{
    for (size_t i = 0; i < t->n; i++)
        if (t->ops[i].phase == ph && strstr(cfg_text(&t->ops[i]), needle) && nth-- == 0)
            return &t->ops[i];
    fail_msg("no op with config %s", needle);
    return NULL;
}

/* The physical profile's attention, decode KV growth and vocabulary ops
 * (docs/physics.md), llama3-8b (32 heads, 8 K/V heads, 32 layers, vocab
 * 128256) at batch 2 with 4 output tokens; shapes and counts by hand. */
/* llama3-8b on one v5p chip, batch 2, 4 output tokens, physical profile:
 * the trace into t (inited here), which the caller frees. */
static void llama8b_b2(struct model_config *m, struct opsgen_links *l, struct trace *t, int64_t cached)
{
    bool ovf = false;
    struct npu_err e;
    setup(m, LLAMA3_8B, "5p", 1, 1, 1, 1, 2);
    m->output_seqlen = 4;
    m->cached_prompt_tokens = cached;
    *l = links("5p");
    trace_init(t);
    assert_int_equal(opsgen_llm_inference(m, l, &profile_physical, t, &ovf, &e), 0);
}

static void test_physical_llm(void **s)
{
    bool ovf = false;
    (void)s;
    struct model_config m;
    struct opsgen_links l;
    struct trace t;
    struct npu_err e;
    llama8b_b2(&m, &l, &t, 0);
    /* K/V projection with 8 heads; the 4 query heads of a group fold into the rows */
    const struct op *kv = find_cfg(&t, PHASE_DECODE, "b=2x4096x8x128", 0);
    assert_i64(kv->count, 32 * 4);
    const struct op *qk = find_cfg(&t, PHASE_DECODE, "a=2x4x8x128,b=2x4096x8x128", 0);
    assert_i64(qk->flops, 2LL * 2 * 4 * 4096 * 8 * 128);   /* = 2 B H S dh of all 32 query heads */
    /* decode steps attend to 1..4 generated tokens: 2 groups of 64 at 2 and 3 */
    const struct op *s2 = find_cfg(&t, PHASE_DECODE, "b=2x2x8x128", 0);
    const struct op *s3 = find_cfg(&t, PHASE_DECODE, "b=2x3x8x128", 0);
    assert_i64(s2->count, 64);
    assert_i64(s3->count, 64);
    assert_non_null(find_cfg(&t, PHASE_DECODE, "Softmax(x=2x1x4098x32", 0));
    assert_non_null(find_cfg(&t, PHASE_DECODE, "Softmax(x=2x1x4099x32", 0));
    /* the decode einsums over the cache, and only they, read it (chipsim's
     * decode_attention class): the prefix's two and each group's two */
    int kv_reads = 0;
    for (size_t i = 0; i < t.n; i++)
        if (t.ops[i].reads_kv_cache) {
            assert_int_equal(t.ops[i].phase, PHASE_DECODE);
            assert_non_null(strstr(t.ops[i].description, "Softmax(Q*K)*V"));
            kv_reads++;
        }
    assert_int_equal(kv_reads, 2 + 2 * 2);
    assert_true(qk->reads_kv_cache && s2->reads_kv_cache && !kv->reads_kv_cache);
    /* vocabulary: one lookup and one LM head per step; prefill's LM head sees the last position */
    const struct op *emb = find_cfg(&t, PHASE_DECODE, "EmbeddingBag(batch=2,table_sizes=[128256]", 0);
    assert_i64(emb->count, 4);
    const struct op *head = find_cfg(&t, PHASE_DECODE, "a=2x1x4096,b=4096x128256", 0);
    assert_i64(head->count, 4);
    assert_i64(head->weight_bytes, 2LL * 4096 * 128256);
    assert_i64(find_cfg(&t, PHASE_PREFILL, "a=2x1x4096,b=4096x128256", 0)->count, 1);
    assert_non_null(find_cfg(&t, PHASE_PREFILL, "EmbeddingBag(batch=8192,", 0));
    /* causal prefill: each query attends to 4097/2 = 2048 keys on average */
    assert_non_null(find_cfg(&t, PHASE_PREFILL, "FlashAttention(q=2x16384x8x128,k=2x2048x8x128,v=2x2048x8x128", 0));
    /* memory: weights 32 x (2 x 4096 x 8 x 128 + 2 x 4096 x 32 x 128 + 3 x 4096 x 14336), the KV cache
     * 2 x (2 x 4100) x 8 x 128 x 32, one step's live activations 2 x (4096 + 4096 + 2 x 14336), the
     * vocabulary 2 x 128256 x 4096; 2 bytes each */
    assert_i64(opsgen_llm_inference_mem_bytes(&m, PHASE_DECODE, &profile_physical), 17134927872LL);
    trace_free(&t);
    /* A decode kernel without GQA support (decode_kv_shared false) reads the
     * cache once per query head: 32 heads of one row each, 4 x the bytes; the
     * FLOPs, the K/V projection (8 heads) and the memory stay */
    m.decode_kv_shared = false;
    trace_init(&t);
    assert_int_equal(opsgen_llm_inference(&m, &l, &profile_physical, &t, &ovf, &e), 0);
    qk = find_cfg(&t, PHASE_DECODE, "a=2x1x32x128,b=2x4096x32x128", 0);
    assert_i64(qk->flops, 2LL * 2 * 4 * 4096 * 8 * 128);
    assert_non_null(find_cfg(&t, PHASE_DECODE, "b=2x4096x8x128", 0));   /* the K/V projection's weights */
    assert_non_null(find_cfg(&t, PHASE_PREFILL, "FlashAttention(q=2x16384x8x128", 0));   /* prefill keeps GQA */
    assert_i64(opsgen_llm_inference_mem_bytes(&m, PHASE_DECODE, &profile_physical), 17134927872LL);
    trace_free(&t);
    m.decode_kv_shared = true;
    /* MHA (num_kv_heads = num_heads) keeps the reference shapes */
    m.num_kv_heads = 32;
    trace_init(&t);
    assert_int_equal(opsgen_llm_inference(&m, &l, &profile_physical, &t, &ovf, &e), 0);
    assert_non_null(find_cfg(&t, PHASE_DECODE, "a=2x1x32x128,b=2x4096x32x128", 0));
    trace_free(&t);
}

/* A prefix cache's hit (cached_prompt_tokens 4000 of 4096): prefill computes
 * 96 tokens a sequence, whose queries at positions 4001..4096 see 4000 +
 * 97/2 = 4048 keys on average; decode and the KV cache stay. */
static void test_prompt_cache(void **s)
{
    (void)s;
    struct model_config m;
    struct opsgen_links l;
    struct trace t;
    llama8b_b2(&m, &l, &t, 4000);
    assert_non_null(find_cfg(&t, PHASE_PREFILL, "FlashAttention(q=2x384x8x128,k=2x4048x8x128,v=2x4048x8x128", 0));
    assert_non_null(find_cfg(&t, PHASE_PREFILL, "EmbeddingBag(batch=192,", 0));
    /* K and V projected for the 96 new tokens only: the cache holds the others' */
    assert_non_null(find_cfg(&t, PHASE_PREFILL, "a=2x96x4096,b=4096x8x128", 0));
    for (size_t i = 0; i < t.n; i++)
        assert_null(strstr(cfg_text(&t.ops[i]), "a=2x4096x4096,b=4096x8x128"));
    assert_i64(find_cfg(&t, PHASE_PREFILL, "a=2x1x4096,b=4096x128256", 0)->count, 1);   /* the LM head */
    assert_non_null(find_cfg(&t, PHASE_DECODE, "a=2x4x8x128,b=2x4096x8x128", 0));     /* decode reads all 4096 */
    assert_i64(opsgen_llm_inference_mem_bytes(&m, PHASE_DECODE, &profile_physical), 17134927872LL);
    trace_free(&t);
    /* the whole prompt cached: refused by name */
    bool ovf = false;
    struct npu_err e;
    m.cached_prompt_tokens = 4096;
    trace_init(&t);
    assert_int_equal(opsgen_llm_inference(&m, &l, &profile_physical, &t, &ovf, &e), -1);
    assert_non_null(strstr(e.msg, "\"cached_prompt_tokens\": expected fewer than input_seqlen 4096"));
    trace_free(&t);
}

static size_t count_desc_sub(const struct trace *t, enum phase ph, const char *needle)
{
    size_t n = 0;
    for (size_t i = 0; i < t->n; i++)
        n += t->ops[i].phase == ph && strstr(t->ops[i].description, needle) != NULL;
    return n;
}

/* FFN types and the parallel attention + FFN block, tp 2. */
static void test_ffn_types(void **s)
{
    bool ovf = false;
    (void)s;
    struct model_config m;
    setup(&m, LLAMA3_8B, "5p", 1, 2, 1, 1, 2);
    struct opsgen_links l = links("5p");
    struct trace t;
    struct npu_err e;
    static const struct { const char *type, *act; size_t matmuls; } k[] = {
        { "llama", "Silu(x=2x4096x7168", 3 }, { "geglu", "Gelu(x=2x4096x7168", 3 },
        { "gelu", "Gelu(x=2x4096x7168", 2 }, { "relu", "Relu(x=2x4096x7168", 2 },
    };
    for (size_t i = 0; i < sizeof k / sizeof k[0]; i++) {
        strcpy(m.ffn_type, k[i].type);
        trace_init(&t);
        assert_int_equal(opsgen_llm_inference(&m, &l, &profile_physical, &t, &ovf, &e), 0);
        assert_non_null(find_cfg(&t, PHASE_PREFILL, k[i].act, 0));   /* d_ff 14336 / tp 2 */
        assert_int_equal(count_desc_sub(&t, PHASE_PREFILL, "FFgate") + count_desc_sub(&t, PHASE_PREFILL, "FFup") +
                         count_desc_sub(&t, PHASE_PREFILL, "FFoutput") + count_desc_sub(&t, PHASE_PREFILL, "FFinput"),
                         k[i].matmuls + (k[i].matmuls == 3 ? 2 : 1));   /* + act (+ gate*up) sharing names */
        /* the attention's gather feeds the FFN: no second all-gather */
        assert_int_equal(count_desc_sub(&t, PHASE_PREFILL, "All gather input of MLP"), 0);
        trace_free(&t);
    }
    /* the reference gathers again and has no activation op */
    strcpy(m.ffn_type, "llama");
    trace_init(&t);
    assert_int_equal(opsgen_llm_inference(&m, &l, &profile_neusim, &t, &ovf, &e), 0);
    assert_int_equal(count_desc_sub(&t, PHASE_PREFILL, "All gather input of MLP"), 1);
    assert_int_equal(count_desc_sub(&t, PHASE_PREFILL, "FFgate_act"), 0);
    trace_free(&t);
    /* parallel block: no LayerNorm and no reduce-scatter after W_o */
    m.parallel_attn_ffn = true;
    trace_init(&t);
    assert_int_equal(opsgen_llm_inference(&m, &l, &profile_physical, &t, &ovf, &e), 0);
    assert_int_equal(count_desc_sub(&t, PHASE_PREFILL, "Attention_layernorm"), 0);
    assert_int_equal(count_desc_sub(&t, PHASE_PREFILL, "Reduce attention and scatter"), 0);
    assert_int_equal(count_desc_sub(&t, PHASE_PREFILL, "Reduce and scatter results of MLP"), 1);
    trace_free(&t);
}

static void expect_err(const struct model_config *m, const char *needle)
{
    bool ovf = false;
    struct opsgen_links l = links("5p");
    struct trace t;
    struct npu_err e = { "" };
    trace_init(&t);
    assert_int_equal(opsgen_llm_inference(m, &l, &profile_neusim, &t, &ovf, &e), -1);
    assert_int_equal(t.n, 0);
    if (!strstr(e.msg, needle))
        fail_msg("expected \"%s\" in \"%s\"", needle, e.msg);
    trace_free(&t);
}

static void test_errors(void **s)
{
    bool ovf = false;
    (void)s;
    struct model_config m;
    setup(&m, LLAMA3_8B, "5p", 1, 1, 1, 1, 1);
    struct model_config x = m;
    strcpy(x.model_type, "dit");
    expect_err(&x, "\"model_type\"");
    x = m; strcpy(x.ffn_type, "mixture");
    expect_err(&x, "\"ffn_type\"");
    x = m; strcpy(x.ffn_type, "moe");   /* a mixture without its experts */
    expect_err(&x, "\"num_routed_experts\": expected a positive integer, got 0");
    x = m; x.num_chips = 2; x.tensor_parallelism_degree = 4;
    expect_err(&x, "\"num_chips\": expected at least dp*tp*pp = 4");
    x = m; x.tensor_parallel_degree_dcn = 2;
    expect_err(&x, "\"tensor_parallel_degree_dcn\": expected 1");
    x = m; x.data_parallelism_degree = 0;
    expect_err(&x, "\"data_parallelism_degree\"");
    x = m; x.d_head = -1;
    expect_err(&x, "\"d_head\"");
    x = m; x.output_seqlen = 0;
    expect_err(&x, "\"output_seqlen\"");
    /* Uneven sharding: rejected for user-given configs (the CLI's strict
     * check), simulated with rounded-up shards as the reference's sweeps do. */
    struct npu_err e2;
    x = m; x.num_chips = 3; x.tensor_parallelism_degree = 3;
    assert_int_equal(opsgen_check_strict(&x, &e2), -1);
    assert_non_null(strstr(e2.msg, "model field \"tensor_parallelism_degree\": 3 does not divide num_heads 32"));
    x = m; x.num_chips = 64; x.tensor_parallelism_degree = 64; x.num_heads = 64;
    x.d_model = 8192; x.d_ff = 14368;
    assert_int_equal(opsgen_check_strict(&x, &e2), -1);
    assert_non_null(strstr(e2.msg, "does not divide d_ff 14368"));
    x.d_ff = 14336;
    assert_int_equal(opsgen_check_strict(&x, &e2), 0);
    x = m; x.num_chips = 3; x.tensor_parallelism_degree = 3; x.num_tensor_parallel_axes = 1;
    {
        struct opsgen_links l3 = links("5p");
        struct trace t3;
        trace_init(&t3);
        assert_int_equal(opsgen_llm_inference(&x, &l3, &profile_neusim, &t3, &ovf, &e2), 0);
        /* Q projection with ceil(32/3) = 11 local heads */
        assert_non_null(strstr(cfg_text(&t3.ops[3]), "b=4096x11x128"));
        trace_free(&t3);
    }
    /* Positive fields are checked on every run, also once the field list's
     * descriptors are remembered (gen_require_positive's memo). */
    for (int k = 0; k < 3; k++) {
        struct opsgen_links l3 = links("5p");
        struct trace t3;
        trace_init(&t3);
        x = m;
        if (k == 1)
            x.d_ff = 0;
        assert_int_equal(opsgen_llm_inference(&x, &l3, &profile_neusim, &t3, &ovf, &e2), k == 1 ? -1 : 0);
        if (k == 1)
            assert_non_null(strstr(e2.msg, "model field \"d_ff\": expected a positive integer, got 0"));
        trace_free(&t3);
    }
    x = m; x.num_chips = 64; x.pipeline_parallelism_degree = 32; x.pipeline_parallel_degree_dcn = 2;
    assert_int_equal(opsgen_check_strict(&x, &e2), -1);
    assert_non_null(strstr(e2.msg, "\"pipeline_parallelism_degree\": expected pp*pp_dcn of at most num_layers = "
                                   "32 stages, got 64"));
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_split_parallelism),
        cmocka_unit_test(test_bisection),
        cmocka_unit_test(test_collectives),
        cmocka_unit_test(test_kv_swap_builder),
        cmocka_unit_test(test_einsum_and_names),
        cmocka_unit_test(test_llama8b_one_chip),
        cmocka_unit_test(test_tp_and_pp_counts_and_fids),
        cmocka_unit_test(test_memory),
        cmocka_unit_test(test_kv_swap_run),
        cmocka_unit_test(test_axes),
        cmocka_unit_test(test_pstr_and_apply),
        cmocka_unit_test(test_enumeration),
        cmocka_unit_test(test_validation),
        cmocka_unit_test(test_corrected_profile),
        cmocka_unit_test(test_physical_llm),
        cmocka_unit_test(test_prompt_cache),
        cmocka_unit_test(test_ffn_types),
        cmocka_unit_test(test_errors),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
