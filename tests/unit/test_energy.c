/* test_energy.c — the default NoPG energy pass (power.md §3, chipsim.md §8).
 *
 * Checks the f/1.7 time rescale on TPUv4 and v5e against the hand-checked
 * values of chipsim.md §14.1, the recomputed Bounded-by, the DVFS columns,
 * and all 12 energy terms bit for bit against NeuSim's NoPG CSV cells. */
#include "testutil.h"

#include "chipsim/chipsim.h"
#include "power/energy.h"
#include "power/energy_memo.h"
#include "power/pg.h"
#include "power/powercap.h"

#include <math.h>

static struct op *add(struct trace *t, const char *name, const char *config, const char *in, const char *out,
                      enum op_type type, int64_t flops, int64_t ici_ns, int64_t bytes)
{
    struct op *op = test_op(t, name, config, in, out, type, flops);
    op->ici_ns = ici_ns;
    op->bytes = bytes;
    return op;
}

static void time_and_energy(struct trace *t, const struct chip_config *c)
{
    struct npu_err e;
    assert_int_equal(chipsim_run(t, c, &profile_neusim, &e), 0);
    assert_int_equal(power_default_pass(t, c, &profile_neusim, &e), 0);
}

static void test_v4_rescale(void **state)
{
    (void)state;
    struct chip_config c;
    test_chip("tpuv4", &c);
    struct trace t;
    trace_init(&t);
    add(&t, "rs", "ReduceScatter(['8', '4096', '8192']->['8', '4096', '1024'])", "DT_BFLOAT16:[8,4096,8192]",
        "[DT_BFLOAT16:(8,4096,1024)]", OP_VPU, 293601280, 374492, 2 * 83886080);
    add(&t, "ag", "AllGather(8x4096x1024->8x4096x8192)", "DT_BFLOAT16:[8,4096,1024]",
        "[DT_BFLOAT16:(8,4096,8192)]", OP_ICI_NO_COMPUTE, 0, 2995932, 2 * 671088640);
    add(&t, "ln", "LayerNorm(x=8x1x1024,type=DT_BFLOAT16)", "DT_BFLOAT16:[8,1,1024]", "[DT_BFLOAT16:(8,1,1024)]",
        OP_VPU, 8 * 8192, 0, 0);
    add(&t, "pp", "InterChipCommInput([8, 4096, 1024])", "DT_BFLOAT16:[8,4096,1024]",
        "[DT_BFLOAT16:(8,4096,1024)]", OP_ICI_NO_COMPUTE, 0, 599187, 67108864);
    time_and_energy(&t, &c);
    struct op *rs = &t.ops[0];
    assert_i64(rs->ici_ns, 231304);
    assert_i64(rs->vu_ns, 44273);
    assert_i64(rs->mem_ns, 80424);
    assert_i64(rs->vmem_ns, 16678);
    assert_i64(rs->exe_ns, 231304);
    assert_int_equal(rs->bounded_by, BOUND_ICI);
    assert_i64(t.ops[1].ici_ns, 1850429);
    assert_i64(t.ops[2].mem_ns, 309); /* the 500 ns HBM floor, rescaled */
    assert_i64(t.ops[3].ici_ns, 370087);
    for (int k = 0; k < NUM_COMP; k++) {
        assert_string_equal(rs->dvfs[k].policy, "None");
        assert_true(rs->dvfs[k].voltage_V == 0.7);
        assert_true(rs->dvfs[k].freq_GHz == 1.7);
        assert_i64(rs->dvfs[k].scaling_time_ns, 0);
    }
    assert_true(rs->energy_done);
    trace_free(&t);
}

static void test_v5e_kv_swap(void **state)
{
    (void)state;
    struct chip_config c;
    test_chip("tpuv5e", &c);
    struct trace t;
    trace_init(&t);
    struct op *o = add(&t, "swap", "KVSwapInput([144418275328])", "DT_BFLOAT16:[144418275328]",
                       "[DT_BFLOAT16:(144418275328)]", OP_ICI_NO_COMPUTE, 0, 8406250000, 288836550656);
    o->pcie_ns = 8406250000;
    time_and_energy(&t, &c);
    o = &t.ops[0];
    assert_i64(o->ici_ns, 7417279412);
    assert_i64(o->mem_ns, 289808232);
    assert_i64(o->pcie_ns, 8406250000); /* PCIe time is not rescaled */
    assert_i64(o->exe_ns, 7417279412);
    trace_free(&t);
}

/* Energies of the prefill Q projection on TPUv5p, NeuSim NoPG CSV cells. */
static void test_v5p_q_projection_energy(void **state)
{
    (void)state;
    struct chip_config c;
    test_chip("tpuv5p", &c);
    struct trace t;
    trace_init(&t);
    add(&t, "Q3MatMulQ", "XlaEinsum(a=1x4096x4096,b=4096x32x128,eq=BLM;MND->BLND,memory_placements=0_0_0,"
        "type=DT_BFLOAT16)", "DT_BFLOAT16:[1,4096,4096],DT_BFLOAT16:[4096,32,128]", "[DT_BFLOAT16:(1,4096,32,128)]",
        OP_MXU, 137438953472, 0, 0);
    time_and_energy(&t, &c);
    struct op *o = &t.ops[0];
    assert_i64(o->exe_ns, 308424);
    assert_int_equal(o->bounded_by, BOUND_COMPUTE);
    const double st[NUM_EN] = {0.029799295446971737, 0.00586100259026688, 0.008683762411078606,
                               0.009202548467085767, 0.0028145323280007045, 0.01382606505415632};
    const double dy[NUM_EN] = {0.6183255749153065, 0.0054529470464, 0.003130469629023256, 0.0013752249343135067,
                               0.0, 0.0};
    const double eff[NUM_COMP] = {90.0, 90.0, 86.0, 86.0, 67.0};
    for (int k = 0; k < NUM_EN; k++) {
        assert_true(o->static_J[k] == st[k]);
        assert_true(o->dynamic_J[k] == dy[k]);
    }
    for (int k = 0; k < NUM_COMP; k++)
        assert_true(o->dvfs[k].efficiency_pct == eff[k]);
    trace_free(&t);
}

/* A v4 decode AllGather (ICI-bound, idle SA/VU), NoPG CSV cells. */
static void test_v4_allgather_energy(void **state)
{
    (void)state;
    struct chip_config c;
    test_chip("tpuv4", &c);
    struct trace t;
    trace_init(&t);
    add(&t, "AllGatherMHA17AllGather", "AllGather(1x1x1024->1x1x4096)", "DT_BFLOAT16:[1,1,1024]",
        "[DT_BFLOAT16:(1,1,4096)]", OP_ICI_NO_COMPUTE, 0, 9990, 24576);
    time_and_energy(&t, &c);
    struct op *o = &t.ops[0];
    assert_i64(o->exe_ns, 6171);
    assert_i64(o->mem_ns, 309);
    assert_int_equal(o->bounded_by, BOUND_ICI);
    const double st[NUM_EN] = {0.0007203306985074627, 6.296733664477614e-05, 0.0002005810050626866,
                               7.271633322360001e-05, 3.834387457627118e-05, 0.00025438278947994};
    const double dy[NUM_EN] = {0.0, 0.0, 0.0, 6.7113122151811765e-06, 1.3802073267595391e-05, 0.0};
    const double eff[NUM_COMP] = {67.0, 67.0, 67.0, 85.0, 88.5};
    for (int k = 0; k < NUM_EN; k++) {
        assert_true(o->static_J[k] == st[k]);
        assert_true(o->dynamic_J[k] == dy[k]);
    }
    for (int k = 0; k < NUM_COMP; k++)
        assert_true(o->dvfs[k].efficiency_pct == eff[k]);
    trace_free(&t);
}

static void test_corrected_profile(void **state)
{
    (void)state;
    struct chip_config c;
    test_chip("tpuv4", &c);
    struct profile p = profile_neusim;
    p.rescale_time_to_1_7GHz = false;
    p.sa_vu_power_times_units_twice = false;
    struct trace t;
    trace_init(&t);
    add(&t, "ag", "AllGather(1x1x1024->1x1x4096)", "DT_BFLOAT16:[1,1,1024]", "[DT_BFLOAT16:(1,1,4096)]",
        OP_ICI_NO_COMPUTE, 0, 9990, 24576);
    struct npu_err e;
    assert_int_equal(chipsim_run(&t, &c, &p, &e), 0);
    assert_int_equal(power_default_pass(&t, &c, &p, &e), 0);
    assert_i64(t.ops[0].exe_ns, 9990); /* no rescale */
    /* SA static counted once: 1.222 * 8 * 9990e-9 / 0.67 */
    assert_close(t.ops[0].static_J[EN_SA], 1.222 * 8 * 9990 / 1e9 * (100 / 67.0));
    trace_free(&t);
}

/* The power cap (powercap.c): the v5p Q projection under a 150 W cap runs
 * until static + dynamic energy / time = 150 W; the energy of the work is
 * kept; without a binding cap nothing changes; a cap under the static power
 * is an error naming the field. */
static void test_power_cap(void **state)
{
    (void)state;
    struct chip_config c;
    test_chip("tpuv5p", &c);
    c.power_cap_W = 150;
    struct trace t;
    trace_init(&t);
    add(&t, "Q3MatMulQ", "XlaEinsum(a=1x4096x4096,b=4096x32x128,eq=BLM;MND->BLND,memory_placements=0_0_0,"
        "type=DT_BFLOAT16)", "DT_BFLOAT16:[1,4096,4096],DT_BFLOAT16:[4096,32,128]", "[DT_BFLOAT16:(1,4096,32,128)]",
        OP_MXU, 137438953472, 0, 0);
    struct npu_err e;
    assert_int_equal(chipsim_run(&t, &c, &profile_physical, &e), 0);
    struct op *o = &t.ops[0];
    double ps0, dyn0, ps1, dyn1;
    assert_int_equal(power_op_estimate(o, &c, &profile_physical, &ps0, &dyn0, &e), 0);
    int64_t exe0 = o->exe_ns;
    double p0 = ps0 + dyn0 / ((double)exe0 / 1e9);
    assert_true(p0 > 150);   /* 8 SAs at full activity */
    assert_int_equal(power_cap_pass(&t, &c, &profile_physical, &e), 0);
    assert_int_equal(o->bounded_by, BOUND_POWER);
    /* first solve: t = E_dyn / (cap - P_static) */
    assert_true(o->exe_ns >= (int64_t)ceil(dyn0 / (150 - ps0) * 1e9));
    assert_int_equal(power_op_estimate(o, &c, &profile_physical, &ps1, &dyn1, &e), 0);
    double p1 = ps1 + dyn1 / ((double)o->exe_ns / 1e9);
    if (!(p1 <= 150 * (1 + 1e-6) && p1 >= 150 * 0.99)) fail_msg("p1 %.9g exe0 %lld exe %lld", p1, (long long)exe0, (long long)o->exe_ns);
    /* the smallest stretch (GSL's Brent root): a core clock 0.1% faster would exceed the cap */
    struct op faster = *o;
    faster.sa_ns = (int64_t)floor((double)o->sa_ns / 1.001);
    faster.vu_ns = (int64_t)floor((double)o->vu_ns / 1.001);
    faster.exe_ns = faster.sa_ns > o->mem_ns ? faster.sa_ns : o->mem_ns;
    double psf, dynf;
    assert_int_equal(power_op_estimate(&faster, &c, &profile_physical, &psf, &dynf, &e), 0);
    assert_true(psf + dynf / ((double)faster.exe_ns / 1e9) > 150);
    /* the same work: only the regulators' efficiency, lower at a lower activity, adds energy */
    assert_true(dyn1 >= dyn0 && dyn1 <= 1.3 * dyn0);
    int64_t capped = o->exe_ns;   /* idempotent */
    assert_int_equal(power_cap_pass(&t, &c, &profile_physical, &e), 0);
    assert_i64(o->exe_ns, capped);
    /* the energy pass keeps the label */
    assert_int_equal(power_default_pass(&t, &c, &profile_physical, &e), 0);
    assert_int_equal(o->bounded_by, BOUND_POWER);
    assert_i64(o->exe_ns, capped);
    /* neusim never caps; a cap below the static power is an error */
    struct trace u;
    trace_init(&u);
    add(&u, "Q3MatMulQ", "XlaEinsum(a=1x4096x4096,b=4096x32x128,eq=BLM;MND->BLND,memory_placements=0_0_0,"
        "type=DT_BFLOAT16)", "DT_BFLOAT16:[1,4096,4096],DT_BFLOAT16:[4096,32,128]", "[DT_BFLOAT16:(1,4096,32,128)]",
        OP_MXU, 137438953472, 0, 0);
    assert_int_equal(chipsim_run(&u, &c, &profile_physical, &e), 0);
    assert_int_equal(power_cap_pass(&u, &c, &profile_neusim, &e), 0);
    assert_i64(u.ops[0].exe_ns, exe0);
    c.power_cap_W = 10;
    assert_int_equal(power_cap_pass(&u, &c, &profile_physical, &e), -1);
    assert_non_null(strstr(e.msg, "power_cap_W"));
    trace_free(&u);
    trace_free(&t);
}

/* The stretch memo (powercap.c) changes how fast, never what: the same op
 * capped again in another trace takes the first one's stretch, and under
 * another cap (another chip setting) it is solved afresh and meets that
 * cap. */
static void test_power_cap_memo(void **state)
{
    (void)state;
    struct chip_config c;
    test_chip("tpuv5p", &c);
    int64_t exe[3];
    double p2 = 0;
    for (int k = 0; k < 3; k++) {
        c.power_cap_W = k < 2 ? 150 : 200;
        struct trace t;
        trace_init(&t);
        add(&t, "Q3MatMulQ", "XlaEinsum(a=1x4096x4096,b=4096x32x128,eq=BLM;MND->BLND,memory_placements=0_0_0,"
            "type=DT_BFLOAT16)", "DT_BFLOAT16:[1,4096,4096],DT_BFLOAT16:[4096,32,128]", "[DT_BFLOAT16:(1,4096,32,128)]",
            OP_MXU, 137438953472, 0, 0);
        struct npu_err e;
        assert_int_equal(chipsim_run(&t, &c, &profile_physical, &e), 0);
        assert_int_equal(power_cap_pass(&t, &c, &profile_physical, &e), 0);
        exe[k] = t.ops[0].exe_ns;
        double ps, dyn;
        assert_int_equal(power_op_estimate(&t.ops[0], &c, &profile_physical, &ps, &dyn, &e), 0);
        p2 = ps + dyn / ((double)exe[k] / 1e9);
        trace_free(&t);
    }
    assert_i64(exe[1], exe[0]);
    assert_true(exe[2] < exe[0]);   /* a higher cap stretches less */
    assert_true(p2 <= 200 * (1 + 1e-6) && p2 >= 200 * 0.99);
}

static void test_zero_exe_error(void **state)
{
    (void)state;
    struct chip_config c;
    test_chip("tpuv5p", &c);
    struct trace t;
    trace_init(&t);
    struct op *o = trace_push(&t);
    op_set(&o->name, "empty");
    struct npu_err e = {{0}};
    assert_int_equal(power_default_pass(&t, &c, &profile_neusim, &e), -1);
    assert_non_null(strstr(e.msg, "op 0 \"empty\""));
    assert_non_null(strstr(e.msg, "exe_ns"));
    /* An MXU op without VPU time divides by zero in the reference. */
    o->exe_ns = 100, o->sa_ns = 100, o->type = OP_MXU;
    assert_int_equal(power_default_pass(&t, &c, &profile_neusim, &e), -1);
    assert_non_null(strstr(e.msg, "vu_ns"));
    trace_free(&t);
}

/* Power-gating delays that push a time past 2^61 ns: the pass returns an
 * error naming the op, and a pass with sane delays after it succeeds. */
static void test_time_overflow_error(void **state)
{
    (void)state;
    struct chip_config c;
    test_chip("tpuv4", &c);
    struct trace t;
    trace_init(&t);
    add(&t, "ag", "AllGather(1x1x1024->1x1x4096)", "DT_BFLOAT16:[1,1,1024]", "[DT_BFLOAT16:(1,1,4096)]",
        OP_ICI_NO_COMPUTE, 0, 9990, 24576);
    struct npu_err e = {{0}};
    assert_int_equal(chipsim_run(&t, &c, &profile_neusim, &e), 0);
    struct pg_strategy pg;
    assert_int_equal(pg_strategy_lookup("Base", "configs", &profile_neusim, &pg, &e), 0);
    assert_int_equal(power_energy_pass(&t, &c, &pg, DVFS_NONE, &profile_neusim, &e), 0);
    pg.ici.delay_cycles = 1e25;   /* a wake-up of 10^25 cycles */
    assert_int_equal(power_energy_pass(&t, &c, &pg, DVFS_NONE, &profile_neusim, &e), -1);
    assert_non_null(strstr(e.msg, "op 0 \"ag\""));
    assert_non_null(strstr(e.msg, "times exceed 2^61 ns"));
    pg.ici.delay_cycles = 60;
    assert_int_equal(power_energy_pass(&t, &c, &pg, DVFS_NONE, &profile_neusim, &e), 0);
    trace_free(&t);
}

/* Q3 corrected: HBM/ICI/Vmem activity over the rescaled execution time. */
static void test_corrected_regulator_activity(void **state)
{
    (void)state;
    struct chip_config c;
    test_chip("tpuv4", &c);
    struct profile p = profile_neusim;
    p.regulator_activity_unscaled_exe = false;
    struct trace t;
    trace_init(&t);
    add(&t, "ag", "AllGather(1x1x1024->1x1x4096)", "DT_BFLOAT16:[1,1,1024]", "[DT_BFLOAT16:(1,1,4096)]",
        OP_ICI_NO_COMPUTE, 0, 9990, 24576);
    struct npu_err e;
    assert_int_equal(chipsim_run(&t, &c, &p, &e), 0);
    assert_int_equal(power_default_pass(&t, &c, &p, &e), 0);
    /* ICI 6171 of exe 6171: activity 1 -> 90 % (neusim: 6171/9990 -> 88.5 %). */
    assert_true(t.ops[0].dvfs[COMP_ICI].efficiency_pct == 90.0);
    trace_free(&t);
}

/* The general pass with NoPG and DVFS None gives the default pass's numbers
 * (plus the slack fields). */
static void test_general_pass_nopg_equals_default(void **state)
{
    (void)state;
    struct chip_config c;
    test_chip("tpuv4", &c);
    struct trace a, b;
    trace_init(&a);
    add(&a, "Q3MatMulQ", "XlaEinsum(a=1x4096x4096,b=4096x32x128,eq=BLM;MND->BLND,memory_placements=0_0_0,"
        "type=DT_BFLOAT16)", "DT_BFLOAT16:[1,4096,4096],DT_BFLOAT16:[4096,32,128]", "[DT_BFLOAT16:(1,4096,32,128)]",
        OP_MXU, 137438953472, 0, 0);
    add(&a, "ag", "AllGather(1x1x1024->1x1x4096)", "DT_BFLOAT16:[1,1,1024]", "[DT_BFLOAT16:(1,1,4096)]",
        OP_ICI_NO_COMPUTE, 0, 9990, 24576);
    struct npu_err e;
    assert_int_equal(chipsim_run(&a, &c, &profile_neusim, &e), 0);
    trace_init(&b);
    assert_int_equal(trace_append(&b, &a), 0);
    struct pg_strategy nopg;
    assert_int_equal(pg_strategy_lookup("NoPG", NULL, &profile_neusim, &nopg, &e), 0);
    assert_int_equal(power_default_pass(&a, &c, &profile_neusim, &e), 0);
    assert_int_equal(power_energy_pass(&b, &c, &nopg, DVFS_NONE, &profile_neusim, &e), 0);
    for (size_t i = 0; i < a.n; i++) {
        assert_false(a.ops[i].has_slack);
        assert_true(b.ops[i].has_slack);
        assert_i64(a.ops[i].exe_ns, b.ops[i].exe_ns);
        for (int k = 0; k < NUM_EN; k++) {
            assert_true(a.ops[i].static_J[k] == b.ops[i].static_J[k]);
            assert_true(a.ops[i].dynamic_J[k] == b.ops[i].dynamic_J[k]);
        }
    }
    trace_free(&a);
    trace_free(&b);
}

/* Every field the energy pass writes, equal bit for bit. */
static void assert_same_energy(const struct trace *a, const struct trace *b)
{
    assert_int_equal(a->n, b->n);
    for (size_t i = 0; i < a->n; i++) {
        const struct op *x = &a->ops[i], *y = &b->ops[i];
        assert_int_equal(x->bounded_by, y->bounded_by);
        assert_i64(x->sa_ns, y->sa_ns);
        assert_i64(x->vu_ns, y->vu_ns);
        assert_i64(x->vmem_ns, y->vmem_ns);
        assert_i64(x->mem_ns, y->mem_ns);
        assert_i64(x->ici_ns, y->ici_ns);
        assert_i64(x->exe_ns, y->exe_ns);
        assert_memory_equal(x->static_J, y->static_J, sizeof x->static_J);
        assert_memory_equal(x->dynamic_J, y->dynamic_J, sizeof x->dynamic_J);
        assert_memory_equal(x->num_setpm, y->num_setpm, sizeof x->num_setpm);
        assert_memory_equal(x->dvfs, y->dvfs, sizeof x->dvfs);
        assert_int_equal(x->energy_done, y->energy_done);
    }
}

/* One energy pass over a copy of the timed trace t (default pass when pg is NULL). */
static void energy_copy(const struct trace *t, const struct chip_config *c, const struct pg_strategy *pg,
                        int dvfs, struct trace *out)
{
    struct npu_err e;
    trace_init(out);
    assert_int_equal(trace_append(out, t), 0);
    if (pg)
        assert_int_equal(power_energy_pass(out, c, pg, dvfs, &profile_neusim, &e), 0);
    else
        assert_int_equal(power_default_pass(out, c, &profile_neusim, &e), 0);
}

/* The per-thread memo (energy_memo.h): a warm pass equals a cold one for
 * every setting, in any order, and repeats are answered from the memo. A
 * memo that ignored a change of chip, strategy or policy would hand one
 * setting's energies to another: the settings below all differ. */
static void test_energy_memo(void **state)
{
    (void)state;
    struct chip_config chips[3];
    test_chip("tpuv4", &chips[0]);
    chips[1] = chips[0];
    chips[1].static_power_other_W *= 2;   /* the same times, other energies */
    test_chip("tpuv5p", &chips[2]);
    struct pg_strategy base, full;
    struct npu_err e;
    assert_int_equal(pg_strategy_lookup("Base", NULL, &profile_neusim, &base, &e), 0);
    assert_int_equal(pg_strategy_lookup("Full", NULL, &profile_neusim, &full, &e), 0);
    struct {
        int chip;
        const struct pg_strategy *pg;
        int dvfs;
    } set[] = {
        { 0, NULL, DVFS_NONE }, { 1, NULL, DVFS_NONE }, { 2, NULL, DVFS_NONE },
        { 0, &base, DVFS_NONE }, { 0, &full, DVFS_NONE }, { 0, &full, DVFS_IDEAL },
    };
    enum { NSET = sizeof set / sizeof set[0] };
    struct trace timed[3], cold[NSET];
    for (int k = 0; k < 3; k++) {
        trace_init(&timed[k]);
        add(&timed[k], "Q3MatMulQ", "XlaEinsum(a=1x4096x4096,b=4096x32x128,eq=BLM;MND->BLND,memory_placements=0_0_0,"
            "type=DT_BFLOAT16)", "DT_BFLOAT16:[1,4096,4096],DT_BFLOAT16:[4096,32,128]",
            "[DT_BFLOAT16:(1,4096,32,128)]", OP_MXU, 137438953472, 0, 0);
        add(&timed[k], "norm", "LayerNorm(x=1x4096x4096,memory_placements=0_0,type=DT_BFLOAT16)",
            "DT_BFLOAT16:[1,4096,4096]", "[DT_BFLOAT16:(1,4096,4096)]", OP_VPU, 134217728, 0, 0);
        add(&timed[k], "ag", "AllGather(1x1x1024->1x1x4096)", "DT_BFLOAT16:[1,1,1024]", "[DT_BFLOAT16:(1,1,4096)]",
            OP_ICI_NO_COMPUTE, 0, 9990, 24576);
        assert_int_equal(chipsim_run(&timed[k], &chips[k], &profile_neusim, &e), 0);
    }
    for (int s = 0; s < NSET; s++) {   /* each setting from an empty memo */
        energy_memo_clear();
        energy_copy(&timed[set[s].chip], &chips[set[s].chip], set[s].pg, set[s].dvfs, &cold[s]);
        assert_int_equal(energy_memo_hits(), 0);
        for (int r = 0; r < s; r++)
            if (set[r].chip == set[s].chip || set[r].chip + set[s].chip == 1)
                assert_true(memcmp(cold[r].ops[0].static_J, cold[s].ops[0].static_J, sizeof cold[s].ops[0].static_J) ||
                            memcmp(cold[r].ops[0].dvfs, cold[s].ops[0].dvfs, sizeof cold[s].ops[0].dvfs));
    }
    energy_memo_clear();
    for (int round = 0; round < 3; round++)
        for (int s = 0; s < NSET; s++) {
            int k = round == 1 ? NSET - 1 - s : s;   /* forwards, backwards, forwards */
            long before = energy_memo_hits();
            struct trace warm;
            energy_copy(&timed[set[k].chip], &chips[set[k].chip], set[k].pg, set[k].dvfs, &warm);
            assert_same_energy(&warm, &cold[k]);
            trace_free(&warm);
            /* The same setting at once again: every op from the memo. */
            before = energy_memo_hits();
            energy_copy(&timed[set[k].chip], &chips[set[k].chip], set[k].pg, set[k].dvfs, &warm);
            assert_same_energy(&warm, &cold[k]);
            assert_int_equal(energy_memo_hits() - before, 3);
            trace_free(&warm);
        }
    /* A setting keeps its entries while others come and go (a sweep bundle
     * times one trace on several chips in turn): after all six, each is
     * answered whole at its first pass. */
    for (int s = 0; s < NSET; s++) {
        long before = energy_memo_hits();
        struct trace warm;
        energy_copy(&timed[set[s].chip], &chips[set[s].chip], set[s].pg, set[s].dvfs, &warm);
        assert_same_energy(&warm, &cold[s]);
        assert_int_equal(energy_memo_hits() - before, 3);
        trace_free(&warm);
    }
    /* ENERGY_MEMO_SETTINGS newer settings replace the oldest: setting 0 is
     * computed again (no hits), and still right. */
    for (int k = 0; k < ENERGY_MEMO_SETTINGS; k++) {
        struct chip_config other = chips[0];
        other.static_power_other_W += k + 1;
        struct trace t;
        energy_copy(&timed[0], &other, NULL, DVFS_NONE, &t);
        trace_free(&t);
    }
    long before = energy_memo_hits();
    struct trace again;
    energy_copy(&timed[set[0].chip], &chips[set[0].chip], set[0].pg, set[0].dvfs, &again);
    assert_same_energy(&again, &cold[0]);
    assert_int_equal(energy_memo_hits() - before, 0);
    trace_free(&again);
    for (int s = 0; s < NSET; s++)
        trace_free(&cold[s]);
    for (int k = 0; k < 3; k++)
        trace_free(&timed[k]);
}

/* A launch wait and a per-kernel fixed time (chip kernel_launch_ns,
 * kernel_efficiency.*.t0_ns) are part of an op's time its components do not
 * explain (power_op_fixed_ns: exe less the slowest component), and the
 * energy pass keeps them when it re-times the op (physical profile): a tiny
 * elementwise op on tpuv5p waits its 20000 ns launch with or without the
 * pass. */
static void test_fixed_time_kept(void **state)
{
    (void)state;
    struct op o = { 0 };
    o.sa_ns = 100, o.vu_ns = 50, o.vmem_ns = 20, o.mem_ns = 300, o.ici_ns = 0, o.exe_ns = 10400;
    assert_int_equal(power_op_fixed_ns(&o), 10100);
    o.exe_ns = 300;
    assert_int_equal(power_op_fixed_ns(&o), 0);
    struct chip_config c;
    test_chip("tpuv5p", &c);
    c.kernel_launch_ns = 20000;
    struct trace t;
    trace_init(&t);
    add(&t, "AddX", "Add(x=1x16x16,y=1x16x16,memory_placements=0_0_0,type=DT_BFLOAT16)",
        "DT_BFLOAT16:[1,16,16],DT_BFLOAT16:[1,16,16]", "[DT_BFLOAT16:(1,16,16)]", OP_VPU, 256, 0, 0);
    struct npu_err e;
    assert_int_equal(chipsim_run(&t, &c, &profile_physical, &e), 0);
    assert_int_equal(t.ops[0].exe_ns, 20000);
    assert_int_equal(power_default_pass(&t, &c, &profile_physical, &e), 0);
    assert_int_equal(t.ops[0].exe_ns, 20000);
    trace_free(&t);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_v4_rescale),
        cmocka_unit_test(test_fixed_time_kept),
        cmocka_unit_test(test_v5e_kv_swap),
        cmocka_unit_test(test_v5p_q_projection_energy),
        cmocka_unit_test(test_v4_allgather_energy),
        cmocka_unit_test(test_corrected_profile),
        cmocka_unit_test(test_power_cap),
        cmocka_unit_test(test_power_cap_memo),
        cmocka_unit_test(test_zero_exe_error),
        cmocka_unit_test(test_time_overflow_error),
        cmocka_unit_test(test_corrected_regulator_activity),
        cmocka_unit_test(test_general_pass_nopg_equals_default),
        cmocka_unit_test(test_energy_memo),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
