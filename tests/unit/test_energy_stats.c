/* test_energy_stats.c — the energy stage's aggregation (power.md §7) and the
 * re-read fix-ups (§1.3).
 *
 * A hand-made four-op trace on a toy chip (2 SAs of 4x4, 1 VU, 1 GHz) with
 * energies set directly, so every expected value below is derived by hand in
 * the comments: count-weighted energies, average powers over T, the
 * unweighted peak power, component times and utilisations, the DVFS-aware
 * spatial utilisation, the einsum averages (B a sum, K/N/M the reference's
 * mean, quirk Q22), the unweighted vmem-demand mean, summed slack and slowdown. */
#include "testutil.h"

#include "power/energy.h"
#include "power/energy_stats.h"

static void toy_chip(struct chip_config *c)
{
    chip_config_default(c);
    c->num_sa = 2;
    c->num_vu = 1;
    c->sa_dim = 4;
    c->freq_GHz = 1.0;
}

struct toy {
    enum op_stats_kind kind;
    int64_t count, exe, sa, vu, vmem, mem, ici, flops, bytes, ici_out, ici_in;
    double flops_util, hbm_bw_util;
    int64_t b, m, n, k, max_vmem;
    double st[NUM_EN], dy[NUM_EN];   /* EN order: sa, vu, sram, hbm, ici, other */
    double f_sa, f_vu;               /* DVFS frequency, 0 = unset */
    int64_t setpm_vu, setpm_sram;
};

/* Per execution: A 15 J static + 13 J dynamic over 100 ns; B 4 + 2 over 50 ns;
 * C 3 + 1 over 200 ns (an ICI op); D 1 + 3 over 40 ns (FA, SA at 2 GHz). */
static const struct toy toys[] = {
    { STATS_EINSUM, 2, 100, 80, 20, 50, 60, 0, 1000, 400, 0, 0, 0.5, 0.25, 1, 8, 16, 32, 2097152,
      { 1, 2, 3, 4, 0, 5 }, { 10, 0, 1, 2, 0, 0 }, 0, 0, 3, 1 },
    { STATS_BASE, 1, 50, 0, 50, 10, 5, 0, 200, 100, 0, 0, 0.2, 0.1, 0, 0, 0, 0, 0,
      { 0, 1, 1, 1, 0, 1 }, { 0, 2, 0, 0, 0, 0 }, 0, 0, 0, 0 },
    { STATS_BASE, 3, 200, 0, 0, 0, 0, 200, 0, 0, 30, 10, 0, 0, 0, 0, 0, 0, 0,
      { 0, 0, 0, 0, 2, 1 }, { 0, 0, 0, 0, 1, 0 }, 0, 0, 0, 0 },
    { STATS_FA, 1, 40, 40, 10, 40, 20, 0, 600, 50, 0, 0, 0.9, 0.3, 2, 4, 4, 8, 1048576,
      { 1, 0, 0, 0, 0, 0 }, { 3, 0, 0, 0, 0, 0 }, 2.0, 0.5, 0, 0 },
};

static void build(struct trace *t)
{
    trace_init(t);
    for (size_t i = 0; i < sizeof toys / sizeof toys[0]; i++) {
        const struct toy *y = &toys[i];
        struct op *op = trace_push(t);
        op->stats_kind = y->kind;
        op->count = y->count, op->exe_ns = y->exe, op->sa_ns = y->sa, op->vu_ns = y->vu;
        op->vmem_ns = y->vmem, op->mem_ns = y->mem, op->ici_ns = y->ici;
        op->flops = y->flops, op->bytes = y->bytes, op->ici_out_bytes = y->ici_out, op->ici_in_bytes = y->ici_in;
        op->flops_util = y->flops_util, op->hbm_bw_util = y->hbm_bw_util;
        op->einsum_b = y->b, op->einsum_m = y->m, op->einsum_n = y->n, op->einsum_k = y->k;
        op->max_vmem_demand_bytes = y->max_vmem;
        memcpy(op->static_J, y->st, sizeof op->static_J);
        memcpy(op->dynamic_J, y->dy, sizeof op->dynamic_J);
        /* Slack as the energy pass stores it: max(exe - t, 0) per busy unit. */
        const int64_t busy[NUM_SLACK] = { y->sa, y->vu, y->mem, y->ici, y->vmem };
        for (int k = 0; k < NUM_SLACK; k++)
            op->dvfs_extra_ns[k] = busy[k] > 0 && y->exe > busy[k] ? y->exe - busy[k] : 0;
        op->has_slack = true;
        op->dvfs[COMP_SA].freq_GHz = y->f_sa;
        op->dvfs[COMP_VU].freq_GHz = y->f_vu;
        op->num_setpm[COMP_VU] = y->setpm_vu;
        op->num_setpm[COMP_SRAM] = y->setpm_sram;
        op->energy_done = true;
    }
}

static void test_energies_and_powers(void **state)
{
    (void)state;
    struct chip_config c;
    toy_chip(&c);
    struct trace t;
    build(&t);
    struct energy_stats s;
    struct npu_err e;
    assert_int_equal(energy_stats_compute(&t, &c, &s, &e), 0);
    /* x count: 28*2 + 6 + 4*3 + 4 = 78 J; static 30+4+9+1 = 44; dynamic 26+2+3+3 = 34 */
    assert_close(s.total_energy_J, 78);
    assert_close(s.total_static_energy_J, 44);
    assert_close(s.total_dynamic_energy_J, 34);
    /* static: sa 1*2+1, vu 2*2+1, sram 3*2+1, hbm 4*2+1, ici 2*3, other 5*2+1+1*3 */
    const double st[NUM_EN] = { 3, 5, 7, 9, 6, 14 };
    /* dynamic: sa 10*2+3, vu 2, sram 1*2, hbm 2*2, ici 1*3, other 0 */
    const double dy[NUM_EN] = { 23, 2, 2, 4, 3, 0 };
    /* T = (100*2 + 50 + 200*3 + 40) ns = 890 ns */
    const double T = 890e-9;
    for (int k = 0; k < NUM_EN; k++) {
        assert_close(s.static_energy_J[k], st[k]);
        assert_close(s.dynamic_energy_J[k], dy[k]);
        assert_close(s.energy_J[k], st[k] + dy[k]);
        assert_close(s.avg_static_power_W_c[k], st[k] / T);
        assert_close(s.avg_dynamic_power_W_c[k], dy[k] / T);
    }
    assert_close(s.avg_power_W, 78 / T);
    assert_close(s.avg_static_power_W, 44 / T);
    assert_close(s.avg_dynamic_power_W, 34 / T);
    /* peak: max of per-op power, not weighted: A 28 J / 100 ns */
    assert_close(s.peak_power_W, 28 / 100e-9);
    trace_free(&t);
}

static void test_component_stats(void **state)
{
    (void)state;
    struct chip_config c;
    toy_chip(&c);
    struct trace t;
    build(&t);
    struct energy_stats s;
    struct npu_err e;
    assert_int_equal(energy_stats_compute(&t, &c, &s, &e), 0);
    const struct energy_component_stats *k = &s.comp;
    assert_i64(k->total_exe_time_ns, 890);
    assert_i64(k->sa_time_ns, 80 * 2 + 40);
    assert_i64(k->vu_time_ns, 20 * 2 + 50 + 10);
    assert_i64(k->vmem_time_ns, 50 * 2 + 10 + 40);
    assert_i64(k->hbm_time_ns, 60 * 2 + 5 + 20);
    assert_i64(k->ici_time_ns, 200 * 3);
    assert_close(k->sa_temp_util, 200.0 / 890);
    assert_close(k->vu_temp_util, 100.0 / 890);
    assert_close(k->vmem_temp_util, 150.0 / 890);
    assert_close(k->hbm_temp_util, 145.0 / 890);
    assert_close(k->ici_temp_util, 600.0 / 890);
    /* SA FLOPs (ops with SA time): 1000*2 + 600 = 2600. Peak over busy time,
     * each op at its own DVFS frequency (unset: the 1 GHz clock):
     *   A: 80*1*2*16*2*2 + 20*1*1*1024*2 = 10240 + 40960
     *   B: 50*1*1*1024 = 51200;  D: 40*2.0*2*16*2 + 10*0.5*1*1024 = 5120 + 5120 */
    assert_close(k->sa_spatial_util, 2600.0 / 112640);
    assert_i64(k->flop_count, 2800);
    assert_i64(k->hbm_bytes_accessed, 950);
    assert_i64(k->ici_bytes_accessed, 120);
    assert_close(k->tflops_per_sec, 2800e-12 / 890e-9);
    assert_close(k->flop_per_byte_hbm, 2800.0 / 950);
    assert_close(k->flop_per_byte_ici, 2800.0 / 120);
    /* time-weighted: (0.5*200 + 0.2*50 + 0*600 + 0.9*40) / 890 */
    assert_close(k->model_flops_util, 146.0 / 890);
    assert_close(k->hbm_bw_util, 67.0 / 890);
    /* B: (1*80*2 + 2*40) / 200. K, N, M: the mean of the two einsum terms, not
     * their sum (Q22): K (32*160 + 8*40)/2/200 = 13.6 where a sum gives 27.2. */
    assert_close(k->avg_einsum_B, 1.2);
    assert_close(k->avg_einsum_K, 13.6);
    assert_close(k->avg_einsum_N, 6.8);
    assert_close(k->avg_einsum_M, 3.6);
    /* unweighted over the 4 ops: 2 MiB, 4, 4, 1 MiB */
    assert_close(k->avg_vmem_demand_MB, 11.0 / 4);
    /* slack x count: sa 20*2; vu 80*2 + 0 + 30; hbm 40*2 + 45 + 20; ici 0; vmem 50*2 + 40 */
    const int64_t extra[NUM_SLACK] = { 40, 190, 145, 0, 140 };
    const double ratio[NUM_SLACK] = { 0.2, 1.9, 1.0, 0.0, 140.0 / 150 };
    for (int i = 0; i < NUM_SLACK; i++) {
        assert_i64(k->dvfs_extra_time_ns[i], extra[i]);
        assert_close(k->dvfs_extra_ratio[i], ratio[i]);
    }
    assert_i64(k->num_setpm_vu, 6);
    assert_i64(k->num_setpm_sram, 2);
    assert_close(k->slowdown, 1.0);
    trace_free(&t);
}

static void test_slowdown(void **state)
{
    (void)state;
    struct chip_config c;
    toy_chip(&c);
    struct trace t;
    build(&t);
    struct energy_stats nopg, pg;
    struct npu_err e;
    assert_int_equal(energy_stats_compute(&t, &c, &nopg, &e), 0);
    t.ops[0].exe_ns = 110;   /* a gating overhead on A (count 2): 890 -> 910 ns */
    assert_int_equal(energy_stats_compute(&t, &c, &pg, &e), 0);
    energy_stats_set_slowdown(&pg, &nopg);
    assert_close(pg.comp.slowdown, 910.0 / 890);
    energy_stats_set_slowdown(&nopg, &nopg);
    assert_true(nopg.comp.slowdown == 1.0);
    trace_free(&t);
}

static void test_no_sa_and_errors(void **state)
{
    (void)state;
    struct chip_config c;
    toy_chip(&c);
    struct trace t;
    build(&t);
    struct energy_stats s;
    struct npu_err e;
    /* Only the VPU and ICI ops: no SA time -> spatial util and einsum averages 0. */
    op_free(&t.ops[3]);
    op_free(&t.ops[0]);
    t.ops[0] = t.ops[1], t.ops[1] = t.ops[2], t.n = 2;
    assert_int_equal(energy_stats_compute(&t, &c, &s, &e), 0);
    assert_true(s.comp.sa_spatial_util == 0 && s.comp.avg_einsum_B == 0 && s.comp.avg_einsum_K == 0);
    assert_close(s.comp.avg_vmem_demand_MB, 4.0);
    /* More SA FLOPs than the peak allows: the reference's assertion. */
    t.ops[0].sa_ns = 1;
    t.ops[0].flops = 1000000;
    assert_int_equal(energy_stats_compute(&t, &c, &s, &e), -1);
    assert_non_null(strstr(e.msg, "exceed the peak"));
    /* Zero total time and an empty trace are errors, not divisions by zero. */
    t.ops[0].exe_ns = t.ops[1].exe_ns = 0;
    assert_int_equal(energy_stats_compute(&t, &c, &s, &e), -1);
    assert_non_null(strstr(e.msg, "total execution time"));
    trace_free(&t);
    trace_init(&t);
    assert_int_equal(energy_stats_compute(&t, &c, &s, &e), -1);
    assert_non_null(strstr(e.msg, "no operators"));
}

static struct op *reread_op(struct trace *t, const char *parsed, const char *opcode, enum op_type type,
                            int64_t sa, int64_t vu)
{
    struct op *op = trace_push(t);
    op_set(&op->parsed_op_type, parsed);
    op_set(&op->opcode, opcode);
    op->type = type, op->sa_ns = sa, op->vu_ns = vu;
    op->stats_kind = STATS_EINSUM;
    op->num_sa_ops = 7, op->vu_softmax_ns = 9;
    return op;
}

static void test_reclassify(void **state)
{
    (void)state;
    struct trace t;
    trace_init(&t);
    reread_op(&t, "Einsum", "XlaEinsum", OP_VPU, 10, 0);      /* sa > 0 -> MXU */
    reread_op(&t, "", "MatMul", OP_OTHER, 0, 5);               /* vu > 0 -> VPU; Op Code fallback */
    reread_op(&t, "FlashAttention", "", OP_MXU, 3, 3);
    reread_op(&t, "LayerNorm", "Einsum", OP_ICI_NO_COMPUTE, 0, 0); /* parsed wins: base stats */
    reread_op(&t, "Foo", "BatchMatMulV2", OP_OTHER, 0, 0);    /* unknown parsed: Op Code */
    reread_op(&t, "Conv2D", "", OP_MXU, 1, 0);
    power_reclassify_ops(&t);
    const struct op *o = t.ops;
    assert_int_equal(o[0].type, OP_MXU), assert_int_equal(o[0].stats_kind, STATS_EINSUM);
    assert_int_equal(o[1].type, OP_VPU), assert_int_equal(o[1].stats_kind, STATS_EINSUM);
    assert_int_equal(o[1].opcode_type, OPC_EINSUM);
    assert_int_equal(o[2].stats_kind, STATS_FA), assert_i64(o[2].vu_softmax_ns, 9);
    assert_int_equal(o[3].type, OP_ICI_NO_COMPUTE), assert_int_equal(o[3].stats_kind, STATS_BASE);
    assert_int_equal(o[3].opcode_type, OPC_ELEMENTWISE);
    assert_i64(o[3].num_sa_ops, 0), assert_i64(o[3].vu_softmax_ns, 0);
    assert_int_equal(o[4].type, OP_OTHER), assert_int_equal(o[4].stats_kind, STATS_EINSUM);
    assert_i64(o[4].num_sa_ops, 7), assert_i64(o[4].vu_softmax_ns, 0);
    assert_int_equal(o[5].stats_kind, STATS_EINSUM), assert_int_equal(o[5].opcode_type, OPC_CONV2D);
    trace_free(&t);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_energies_and_powers),
        cmocka_unit_test(test_component_stats),
        cmocka_unit_test(test_slowdown),
        cmocka_unit_test(test_no_sa_and_errors),
        cmocka_unit_test(test_reclassify),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
