/* test_dlrm.c — DLRM inference against hand-derived values (opsgen.md §3.11,
 * §9, §11.4, §13, §15): the EmbeddingBag builder, the indices all-to-all,
 * op counts and fusion ids per chip, table placement, the straggler, the
 * footprint constant, the sweep helpers, input checks, and timing groups
 * (Group column round trip, per-group chipsim name tables). */
#include "testutil.h"

#include <cjson/cJSON.h>
#include <stdio.h>
#include <stdlib.h>

#include "chipsim/chipsim.h"
#include "opsgen/builders.h"
#include "opsgen/dlrm.h"
#include "traces/trace_csv.h"

/* ---- fixtures ---- */

/* configs/models/dlrm-s.json: 8 tables of 10M rows (2.38 GiB each in FP32), k = 100. */
#define DLRM_S test_model_text("dlrm-s")

static void load_model(struct model_config *m, const char *json)
{
    cJSON *j = cJSON_Parse(json);
    assert_non_null(j);
    struct npu_err e;
    int rc = model_config_from_json(m, j, NULL, &e);
    cJSON_Delete(j);
    if (rc) fail_msg("%s", e.msg);
}

/* dp = tp = num_chips, as the sweep runs DLRM. */
static void dlrm_setup(struct model_config *m, const char *json, int64_t chips, int64_t gbs)
{
    load_model(m, json);
    struct parallel_cfg p = { chips, chips, chips, 1, 0, 1, 1, 1, 0 };
    sweep_apply_parallel(m, &p, gbs);
}

static struct opsgen_links links(const char *v)
{
    struct opsgen_links l = { .pcie_bw_GBps = 32.0, .ici_latency_ns = 3330,
                              .dcn_latency_ns = 3700, .pcie_latency_ns = 400 };
    snprintf(l.chip_name, sizeof l.chip_name, "%s", v);
    strcpy(l.ICI_topology, "TORUS_3D");
    if (!strcmp(v, "4")) {
        l.ici_bw_GBps = 112; l.dcn_bw_GBps = 12.5; l.hbm_size_GB = 32;
    } else {   /* 5p */
        l.ici_bw_GBps = 200; l.dcn_bw_GBps = 25; l.hbm_size_GB = 95;
    }
    return l;
}

static void gen(const struct model_config *m, const char *v, struct trace *t)
{
    bool ovf = false;
    struct opsgen_links l = links(v);
    struct npu_err e;
    trace_init(t);
    if (opsgen_dlrm_inference(m, &l, &profile_neusim, t, &ovf, &e))
        fail_msg("%s", e.msg);
    assert_false(ovf);   /* every size fits */
}

static size_t count_group(const struct trace *t, int32_t g)
{
    size_t n = 0;
    for (size_t i = 0; i < t->n; i++)
        n += t->ops[i].group == g;
    return n;
}

/* ---- §3.11 / §15: EmbeddingBag ---- */

static void test_embedding_bag(void **s)
{
    bool ovf = false;
    (void)s;
    struct trace t;
    trace_init(&t);
    int64_t k = 100, n = 1000;
    struct op *op = b_embedding_bag(&t, &ovf, 7, 1, "EmbeddingBag7", "embedding_bag_7", 256, k, n, 64, "DT_FLOAT");
    assert_non_null(op);
    /* 256*100 = 25,600 entries: 8 B indices 204,800 + rows 25,600*64*4 = 6,553,600
     * + output 256*1*64*4 = 65,536. */
    assert_i64(op->bytes, 6823936);
    assert_i64(op->flops, 3276800);   /* 2 * 25,600 * 64 */
    assert_i64(op->weight_bytes, 0);
    assert_int_equal(op->type, OP_VPU);
    assert_int_equal(op->opcode_type, OPC_EMBEDDING_BAG);
    assert_string_equal(op->name, "embedding_bag_7");   /* raw, not sanitised */
    assert_string_equal(cfg_text(op),
                        "EmbeddingBag(batch=256,table_sizes=[1000],num_indices=[100],embedding_dim=64,"
                        "reduction=sum,memory_placements=[0, 0],type=DT_FLOAT)");
    assert_string_equal(in_text(op), "DT_INT64:[256,1,100],DT_FLOAT:[1000,64]");
    assert_string_equal(out_text(op), "[DT_FLOAT:(256,1,64)]");

    /* The form holds it all: no text, and chipsim reads the indices as int64. */
    assert_true(!op->config[0] && !op->in_shapes[0] && op->form.in_held);
    assert_string_equal(op_form_dtype(&op->form, 0), "DT_INT64");
    assert_string_equal(op_form_dtype(&op->form, 1), "DT_FLOAT");
    assert_null(b_embedding_bag(&t, &ovf, 1, 1, "x", "x", 2, 3, 10, 4, "DT_NONE"));   /* no such dtype */
    trace_free(&t);
}

/* §15: indices all-to-all of [256, 8, 100] int32 = 819,200 B over 100 GB/s
 * (v5p, 4 chips) is 8,192 ns, floored by 3,330 ns x (8 tables - 1) = 23,310. */
static void test_indices_all_to_all(void **s)
{
    (void)s;
    struct model_config m;
    dlrm_setup(&m, DLRM_S, 4, 256);
    struct trace t;
    gen(&m, "5p", &t);
    const struct op *a = &t.ops[2];
    assert_string_equal(a->opcode, "AllToAll");
    assert_string_equal(a->description, "EmbeddingIndicesAllToAll-6");
    assert_string_equal(a->name, "EmbeddingIndicesAllToAll6EmbeddingIndicesAllToAll");
    assert_string_equal(cfg_text(a), "AllToAll(256x8x100->256x8x100)");
    assert_i64(a->ici_out_bytes, 819200);
    assert_i64(a->bytes, 2 * 819200);
    assert_i64(a->ici_ns, 23310);
    /* Row all-to-all: [256, 8, 100, 64] FP32 = 52,428,800 B / 100 GB/s. */
    const struct op *r = &t.ops[5];
    assert_string_equal(r->description, "EmbeddingAllToAll-21");
    assert_i64(r->ici_out_bytes, 52428800);
    assert_i64(r->ici_ns, 524288);
    trace_free(&t);

    /* One chip on a 3-D torus: the reference's bandwidth is -ici_bw (empty
     * topology), so the latency floor always wins. */
    struct dlrm_plan p;
    struct opsgen_links l = links("4");
    dlrm_setup(&m, DLRM_S, 1, 64);
    dlrm_plan(&m, &l, &profile_neusim, &p);
    assert_close(p.bisection_bw_GBps, -112.0);
    assert_int_equal(p.ntopo, 0);
    gen(&m, "4", &t);
    assert_i64(t.ops[2].ici_ns, 23310);
    trace_free(&t);

    /* physical: the latency of the 3 exchanges among the 4 chips (the group
     * counts chips, not tables) adds to the transfer, as every collective's:
     * 9990 ns beside 819,200 B over the bisection's 200 GB/s, 4096 ns */
    dlrm_setup(&m, DLRM_S, 4, 256);
    l = links("5p");
    bool ovf = false;
    struct npu_err e;
    dlrm_plan(&m, &l, &profile_physical, &p);
    trace_init(&t);
    assert_int_equal(opsgen_dlrm_inference(&m, &l, &profile_physical, &t, &ovf, &e), 0);
    assert_close(p.bisection_bw_GBps, 200.0);
    assert_string_equal(t.ops[2].opcode, "AllToAll");
    assert_i64(t.ops[2].ici_ns, 4096 + 9990);
    assert_i64(t.ops[2].ici_alpha_ns, 9990);
    trace_free(&t);
}

/* ---- §9: op counts and fusion ids ---- */

static void test_counts_and_fids(void **s)
{
    (void)s;
    struct model_config m;
    struct trace t;
    /* 1 chip: 2 bottom + A2A + 8 bags + A2A + interaction + 4 top = 17. */
    dlrm_setup(&m, DLRM_S, 1, 64);
    gen(&m, "5p", &t);
    assert_int_equal(t.n, 17);
    assert_int_equal(count_group(&t, 0), 17);
    /* fid += last.fid doubles (Q27): bags 7, 14, ..., 896; 7 + 896 = 903. */
    static const int64_t fid1[] = { 2, 4, 6, 7, 14, 28, 56, 112, 224, 448, 896,
                                    903, 904, 1808, 3616, 7232, 14464 };
    for (size_t i = 0; i < t.n; i++)
        assert_i64(t.ops[i].fusion_id, fid1[i]);
    assert_string_equal(t.ops[10].description, "EmbeddingBag896");
    assert_string_equal(t.ops[11].description, "EmbeddingAllToAll-903");
    assert_string_equal(cfg_text(&t.ops[12]),
                        "XlaEinsum(a=64x9x64,b=64x64x9,eq=BNE;BEN->BNN,memory_placements=0_0_0,"
                        "type=DT_BFLOAT16)");
    /* Top MLP init: in = roundup(64 + 9*8/2, 128) = 128, out = top[0].in = 1024. */
    assert_string_equal(t.ops[13].name, "TopMLPiniteinsumtopmlpiniteinsum");
    assert_string_equal(in_text(&t.ops[13]), "DT_BFLOAT16:[64,128],DT_BFLOAT16:[128,1024]");
    assert_string_equal(t.ops[0].name, "BottomMLP0einsumbottommlp0einsum");
    trace_free(&t);

    /* 4 chips: 2 tables per chip -> 11 ops each, contiguous groups 0..3. */
    dlrm_setup(&m, DLRM_S, 4, 64);
    gen(&m, "5p", &t);
    assert_int_equal(t.n, 44);
    static const int64_t fid4[] = { 2, 4, 6, 7, 14, 21, 22, 44, 88, 176, 352 };
    for (int32_t c = 0; c < 4; c++) {
        size_t first, n;
        struct npu_err e;
        assert_int_equal(dlrm_group_range(&t, c, &first, &n, &e), 0);
        assert_int_equal(first, (size_t)c * 11);
        assert_int_equal(n, 11);
        for (size_t i = 0; i < n; i++)
            assert_i64(t.ops[first + i].fusion_id, fid4[i]);
        /* MLP/interaction batch cdiv(64, 4) = 16; bags keep the global batch (Q26). */
        assert_string_equal(in_text(&t.ops[first]), "DT_BFLOAT16:[16,512],DT_BFLOAT16:[512,256]");
        assert_string_equal(in_text(&t.ops[first + 3]), "DT_INT64:[64,1,100],DT_FLOAT:[10000000,64]");
    }
    trace_free(&t);

    /* 8 chips, 8 mid-sized tables: one per chip -> 10 ops; fid 7 + 7 = 14. */
    dlrm_setup(&m, DLRM_S, 8, 64);
    gen(&m, "5p", &t);
    assert_int_equal(count_group(&t, 7), 10);
    trace_free(&t);

    /* 8 chips, 4 tables: chips 4..7 hold none, so the outer step adds the
     * indices all-to-all's own fid: one bottom layer (fid 2) -> fid 4, the
     * all-to-all at 4 -> 5, then 5 + 4 = 9. */
    static const char *FOUR =
        "{\"model_type\":\"dlrm\",\"global_batch_size\":8,\"embedding_dim\":64,"
        "\"num_indices_per_lookup\":[1,1,1,1],\"embedding_table_sizes\":[10000000,10000000,10000000,"
        "10000000],\"num_dense_features\":1,\"bottom_mlp_config\":[{\"in_features\":8,\"out_features\":8}],"
        "\"top_mlp_config\":[{\"in_features\":8,\"out_features\":1}]}";
    dlrm_setup(&m, FOUR, 8, 8);
    gen(&m, "5p", &t);
    size_t first, n;
    struct npu_err e;
    assert_int_equal(dlrm_group_range(&t, 5, &first, &n, &e), 0);
    assert_int_equal(n, 6);   /* MLP, A2A, A2A, interaction, top init, top 0 */
    assert_string_equal(t.ops[first + 2].description, "EmbeddingAllToAll-9");
    trace_free(&t);
}

/* ---- §9: table placement ---- */

static void test_placement(void **s)
{
    (void)s;
    /* E = 64: 6 GiB = 25,165,824 rows, 2 GiB = 8,388,608 rows (FP32). */
    static const char *J =
        "{\"model_type\":\"dlrm\",\"global_batch_size\":32,\"embedding_dim\":64,"
        "\"num_indices_per_lookup\":[1,2,3,4,5,6],"
        "\"embedding_table_sizes\":[25165824,25165823,8388608,8388609,100,30000000],"
        "\"num_dense_features\":1,\"bottom_mlp_config\":[{\"in_features\":8,\"out_features\":8}],"
        "\"top_mlp_config\":[{\"in_features\":8,\"out_features\":1}]}";
    struct model_config m;
    load_model(&m, J);
    struct parallel_cfg pc = { 4, 2, 4, 1, 0, 1, 1, 1, 0 };   /* dp 2, tp 4 */
    sweep_apply_parallel(&m, &pc, 32);
    struct opsgen_links l = links("5p");
    struct dlrm_plan p;
    dlrm_plan(&m, &l, &profile_neusim, &p);
    assert_int_equal(p.ntables, 6);
    assert_close(p.bisection_bw_GBps, 100.0);   /* [2, 2]: 200 * 2 / 4 * 1 */
    assert_int_equal(p.ntopo, 2);
    /* 6.0 GiB exactly: row-sharded over tp, on all chips. */
    assert_true(p.tables[0].all_chips);
    assert_i64(p.tables[0].row_sharding_degree, 4);
    assert_i64(p.tables[0].data_parallel_degree, 1);
    /* Just under 6 GiB: mid-sized, first round-robin slot (chip 0). */
    assert_false(p.tables[1].all_chips);
    assert_i64(p.tables[1].chip, 0);
    assert_i64(p.tables[1].row_sharding_degree, 1);
    /* 2.0 GiB exactly: replicated over dp on all chips. */
    assert_true(p.tables[2].all_chips);
    assert_i64(p.tables[2].data_parallel_degree, 2);
    assert_i64(p.tables[2].row_sharding_degree, 1);
    /* Just over 2 GiB: next mid-sized slot (chip 1). */
    assert_false(p.tables[3].all_chips);
    assert_i64(p.tables[3].chip, 1);
    assert_true(p.tables[4].all_chips);   /* tiny: replicated */
    assert_true(p.tables[5].all_chips);   /* big: row-sharded */
    for (int i = 0; i < 6; i++) {
        assert_i64(p.tables[i].batch_size, 32);   /* global batch, even when replicated (Q26) */
        assert_i64(p.tables[i].column_sharding_degree, 1);
    }

    /* Ops: chip 1 holds tables 0, 2, 3, 4, 5; the big ones with cdiv(n, 4) rows. */
    struct trace t;
    gen(&m, "5p", &t);
    size_t first, n;
    struct npu_err e;
    assert_int_equal(dlrm_group_range(&t, 1, &first, &n, &e), 0);
    assert_int_equal(n, 1 + 1 + 5 + 1 + 1 + 2);
    assert_string_equal(in_text(&t.ops[first + 2]), "DT_INT64:[32,1,1],DT_FLOAT:[6291456,64]");
    assert_string_equal(in_text(&t.ops[first + 6]), "DT_INT64:[32,1,6],DT_FLOAT:[7500000,64]");
    assert_int_equal(count_group(&t, 2), 1 + 1 + 4 + 1 + 1 + 2);
    trace_free(&t);
}

/* ---- §9 straggler, §11.4 footprint, §13 sweep ---- */

static void test_straggler(void **s)
{
    (void)s;
    struct trace t;
    trace_init(&t);
    /* chip 0: 10 + 20; chip 1: 30 (count 5 ignored); chip 2: 25. Tie -> first. */
    static const struct { int32_t g; int64_t exe, count; } ops[] = {
        { 0, 10, 1 }, { 0, 20, 1 }, { 1, 30, 5 }, { 2, 25, 1 },
    };
    for (size_t i = 0; i < 4; i++) {
        struct op *op = trace_push(&t);
        op->group = ops[i].g;
        op->exe_ns = ops[i].exe;
        op->count = ops[i].count;
    }
    assert_int_equal(dlrm_straggler(&t, 3), 0);
    t.ops[3].exe_ns = 31;
    assert_int_equal(dlrm_straggler(&t, 3), 2);
    /* A chip without ops, and a group split in two, are errors. */
    size_t first, n;
    struct npu_err e;
    assert_int_equal(dlrm_group_range(&t, 3, &first, &n, &e), -1);
    assert_non_null(strstr(e.msg, "chip 3"));
    t.ops[3].group = 0;
    assert_int_equal(dlrm_group_range(&t, 0, &first, &n, &e), -1);
    assert_non_null(strstr(e.msg, "not contiguous"));
    trace_free(&t);
}

static void test_footprint_and_sweep(void **s)
{
    (void)s;
    /* 8 x 95 x 2^30 - 1024 = 816,043,785,216 B = 759.9999990463257 GiB (Q26b). */
    assert_i64(dlrm_mem_bytes(95), 816043785216LL);
    assert_true((double)dlrm_mem_bytes(95) / 1024 / 1024 / 1024 == 759.9999990463257);
    assert_true((double)dlrm_mem_bytes(32) / 1024 / 1024 / 1024 == 255.99999904632568);
    /* Corrected (physical): dlrm-s on one chip keeps its eight 10^7 x 64 FP32 tables (2.38 GiB each:
     * round-robin, all on chip 0) = 20,480,000,000 B; BF16 MLPs 2 x (512x256 + 256x64 + 2 x 1024x1024
     * + 1024x1 + 128x1024 padded interaction layer) = 4,753,408 B; one request's 9 x 64 FP32 rows and
     * 9 x 9 BF16 interaction = 2,466 B. */
    struct model_config dm;
    load_model(&dm, DLRM_S);
    struct opsgen_links dl = links("5p");
    assert_i64(dlrm_mem_bytes_of(&dm, &dl, &profile_physical), 20484755874LL);
    assert_i64(dlrm_mem_bytes_of(&dm, &dl, &profile_neusim), 816043785216LL);

    struct parallel_cfg *pc;
    size_t n;
    struct npu_err e;
    assert_int_equal(sweep_dlrm_configs(4, &pc, &n, &e), 0);
    assert_int_equal(n, 1);
    assert_i64(pc[0].dp, 4);
    assert_i64(pc[0].tp, 4);
    assert_i64(pc[0].pp, 1);
    char buf[128];
    sweep_pstr_llm(&pc[0], 64, buf, sizeof buf);
    assert_string_equal(buf, "dp4-tp4-pp1-dpdcn1-tpdcn1-ppdcn1-bs64");
    free(pc);
    /* Above 256 chips: num_chips / 1, 2, 4 (Q32). */
    assert_int_equal(sweep_dlrm_configs(512, &pc, &n, &e), 0);
    assert_int_equal(n, 3);
    assert_i64(pc[1].num_chips, 256);
    assert_i64(pc[2].dp, 128);
    free(pc);
    assert_int_equal(sweep_dlrm_configs(0, &pc, &n, &e), -1);

    struct model_config m;
    load_model(&m, DLRM_S);
    sweep_map_axes_dlrm("3", &m);
    assert_i64(m.num_data_parallel_axes, 2);
    assert_i64(m.num_tensor_parallel_axes, 2);
    assert_i64(m.num_pipeline_parallel_axes, 0);
    sweep_map_axes_dlrm("5e", &m);   /* 3 here, unlike the LLM rule (Q34) */
    assert_i64(m.num_data_parallel_axes, 3);
}

/* ---- checks ---- */

static void check_fails(struct model_config *m, const char *field)
{
    cJSON *src = cJSON_CreateObject();
    cJSON_AddStringToObject(src, field, "models/x.json");
    struct npu_err e;
    assert_int_equal(dlrm_check(m, src, &e), -1);
    char want[128];
    snprintf(want, sizeof want, "models/x.json: model field \"%s\"", field);
    if (!strstr(e.msg, want))
        fail_msg("message \"%s\" lacks \"%s\"", e.msg, want);
    cJSON_Delete(src);
}

static void test_checks(void **s)
{
    bool ovf = false;
    (void)s;
    struct model_config m;
    dlrm_setup(&m, DLRM_S, 4, 64);
    struct npu_err e;
    assert_int_equal(dlrm_check(&m, NULL, &e), 0);
    m.num_indices_per_lookup.n = 7;
    check_fails(&m, "num_indices_per_lookup");
    m.num_indices_per_lookup.n = 8;
    m.embedding_table_sizes.n = 0;
    check_fails(&m, "embedding_table_sizes");
    m.embedding_table_sizes.n = 8;
    m.top_mlp_config.l[1].out_features = 0;
    check_fails(&m, "top_mlp_config");
    m.top_mlp_config.l[1].out_features = 1024;
    m.bottom_mlp_config.n = 0;
    check_fails(&m, "bottom_mlp_config");
    m.bottom_mlp_config.n = 2;
    m.pipeline_parallelism_degree = 2;
    check_fails(&m, "pipeline_parallelism_degree");
    m.pipeline_parallelism_degree = 1;
    m.data_parallel_degree_dcn = 2;
    check_fails(&m, "data_parallel_degree_dcn");
    m.data_parallel_degree_dcn = 1;
    /* 56 tables + 5 layers: the doubling fusion ids would pass 2^62. */
    m.embedding_table_sizes.n = m.num_indices_per_lookup.n = 56;
    for (int i = 8; i < 56; i++) {
        m.embedding_table_sizes.v[i] = 10;
        m.num_indices_per_lookup.v[i] = 1;
    }
    check_fails(&m, "embedding_table_sizes");
    /* The generator refuses too, and leaves the trace empty. */
    struct trace t;
    trace_init(&t);
    struct opsgen_links l = links("5p");
    assert_int_equal(opsgen_dlrm_inference(&m, &l, &profile_neusim, &t, &ovf, &e), -1);
    assert_int_equal(t.n, 0);
    trace_free(&t);
}

/* ---- timing groups ---- */

/* Two same-named einsums of different shapes: group 0 [8, 8] x [8, 8],
 * group 1 [512, 1024] x [1024, 1024]. */
static void two_groups(struct trace *t, bool with_group0)
{
    bool ovf = false;
    trace_init(t);
    struct op *op;
    if (with_group0) {
        op = b_einsum(t, &ovf, 2, 1, "TopMLP_0_einsum", "top_mlp_0_einsum", SHP(8, 8), SHP(8, 8),
                      "BI;IO->BO", "0_0_0", "DT_BFLOAT16");
        op->group = 0;
    }
    op = b_einsum(t, &ovf, 2, 1, "TopMLP_0_einsum", "top_mlp_0_einsum", SHP(512, 1024), SHP(1024, 1024),
                  "BI;IO->BO", "0_0_0", "DT_BFLOAT16");
    op->group = 1;
}

static void test_group_round_trip(void **s)
{
    (void)s;
    struct model_config m;
    dlrm_setup(&m, DLRM_S, 4, 64);
    struct trace t, u;
    gen(&m, "5p", &t);
    char *buf = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&buf, &len);
    assert_non_null(f);
    struct npu_err e;
    struct trace_csv_opts o = { PHASE_NONE, true, false };
    assert_int_equal(trace_write_csv_stream(&t, f, &o, &e), 0);
    assert_int_equal(fclose(f), 0);
    assert_non_null(strstr(buf, ",Phase,Group\r\n"));
    trace_init(&u);
    assert_int_equal(trace_read_csv_buffer(&u, buf, len, "dlrm.csv", &e), 0);
    assert_int_equal(u.n, t.n);
    for (size_t i = 0; i < t.n; i++) {
        assert_int_equal(u.ops[i].group, t.ops[i].group);
        assert_string_equal(cfg_text(&u.ops[i]), cfg_text(&t.ops[i]));
        assert_i64(u.ops[i].fusion_id, t.ops[i].fusion_id);
    }
    assert_int_equal(u.ops[43].group, 3);
    /* Writing what was read gives the same bytes. */
    char *buf2 = NULL;
    size_t len2 = 0;
    f = open_memstream(&buf2, &len2);
    assert_int_equal(trace_write_csv_stream(&u, f, &o, &e), 0);
    assert_int_equal(fclose(f), 0);
    assert_int_equal(len2, len);
    assert_memory_equal(buf2, buf, len);
    free(buf);
    free(buf2);
    trace_free(&t);
    trace_free(&u);
}

static void test_group_name_tables(void **s)
{
    (void)s;
    struct chip_config c;
    test_chip("tpuv5p", &c);
    struct npu_err e;
    struct trace alone, both;
    two_groups(&alone, false);
    two_groups(&both, true);
    assert_int_equal(chipsim_run(&alone, &c, &profile_neusim, &e), 0);
    assert_int_equal(chipsim_run(&both, &c, &profile_neusim, &e), 0);
    const struct op *a = &alone.ops[0], *b = &both.ops[1];
    assert_i64(b->exe_ns, a->exe_ns);
    assert_i64(b->mem_ns, a->mem_ns);
    assert_i64(b->sa_ns, a->sa_ns);
    assert_i64(b->bytes, a->bytes);
    assert_string_equal(tiles_text(b), tiles_text(a));
    /* Control: in one group the by-name lookup (chipsim Q1) would hand the
     * second op the first op's shapes, so the test can tell the difference. */
    struct trace same;
    two_groups(&same, true);
    same.ops[1].group = 0;
    assert_int_equal(chipsim_run(&same, &c, &profile_neusim, &e), 0);
    assert_true(same.ops[1].bytes != a->bytes);
    trace_free(&alone);
    trace_free(&both);
    trace_free(&same);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_embedding_bag),
        cmocka_unit_test(test_indices_all_to_all),
        cmocka_unit_test(test_counts_and_fids),
        cmocka_unit_test(test_placement),
        cmocka_unit_test(test_straggler),
        cmocka_unit_test(test_footprint_and_sweep),
        cmocka_unit_test(test_checks),
        cmocka_unit_test(test_group_round_trip),
        cmocka_unit_test(test_group_name_tables),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
