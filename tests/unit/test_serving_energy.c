/* test_serving_energy.c — serving/energy.h by hand. A run of 100 s on 8
 * chips: passes 2.0e5 J, gaps 4.0e4 J, so 2.4e5 J in all; 400 requests,
 * 2.0e5 output tokens: 600 J a request, 1.2 J a token, 2.4e5 / 800 = 300 W
 * a chip. Carbon at 0.5 kg/kWh, PUE 1.2, 4 years, 1000 kg a chip:
 * operational 2.4e5 / 3.6e6 x 1.2 x 0.5 = 0.04 kg; embodied 1000 x 8 x 100
 * / (4 x 365 x 86400) = 0.00634195839675 kg; per request (0.04 + that) x
 * 1e3 / 400 g; per million tokens x 1e6 / 2e5 kg. A request's energy: its
 * passes' share plus the gaps' by its time in the system. */
#include "testutil.h"

#include <math.h>
#include <string.h>

#include "power/carbon.h"

#include "serving/serving.h"

static void close_to(double a, double b) { assert_true(fabs(a - b) <= 1e-12 * fabs(b)); }

static void test_hand_values(void **state)
{
    (void)state;
    struct serving_totals t = { .end_ns = 100000000000LL, .pass_energy_J = 2.0e5, .idle_energy_J = 4.0e4,
                                .peak_W = 650 };
    struct serving_carbon k = { .ci_kg_per_kWh = 0.5, .PUE = 1.2, .lifetime_years = 4, .embodied_kg_per_chip = 1000 };
    struct serving_energy x;
    serving_energy_of(&t, 8, 400, 200000, &k, &x);
    close_to(x.total_J, 2.4e5);
    close_to(x.per_request_J, 600);
    close_to(x.per_output_token_J, 1.2);
    close_to(x.avg_power_W_per_chip, 300);
    close_to(x.peak_power_W_per_chip, 650);
    close_to(x.operational_kg, 0.04);
    double emb = 1000.0 * 8 * 100 / (4.0 * 365 * 86400);
    close_to(x.embodied_kg, emb);
    close_to(emb, 0.00634195839675);
    close_to(x.carbon_per_request_g, (0.04 + emb) * 1e3 / 400);
    close_to(x.carbon_per_million_tokens_kg, (0.04 + emb) * 1e6 / 2e5);
    /* a request 3 s in a system whose requests spent 1200 s: 3/1200 of the gaps */
    close_to(serving_request_energy_J(500, 3, 4.0e4, 1200), 500 + 100);
    close_to(serving_request_energy_J(500, 0, 4.0e4, 0), 500);
    /* nothing completed: per-request figures are NAN, not a division by zero */
    serving_energy_of(&t, 8, 0, 0, &k, &x);
    assert_true(isnan(x.per_request_J) && isnan(x.carbon_per_request_g) && isnan(x.per_output_token_J));
}

/* A chip of 4 SAs at 10 W and 2 VUs at 5 W, 20 W of VMEM, 30 of ICI, 40 + 10
 * of HBM and 15 other: 165 W idle. Gating SA to 0.03 and HBM to 0.1: 4 x 10
 * x 0.03 + 10 + 20 + 30 + 50 x 0.1 + 15 = 81.2 W. Delays 10 and 60 cycles
 * at 1.5 GHz: the slower, 40 ns. */
static void test_gating(void **state)
{
    (void)state;
    struct chip_config c;
    memset(&c, 0, sizeof c);
    c.num_sa = 4, c.num_vu = 2, c.static_power_W_per_sa = 10, c.static_power_W_per_vu = 5;
    c.static_power_vmem_W = 20, c.static_power_ici_W = 30, c.static_power_hbm_mc_W = 40;
    c.static_power_hbm_phy_W = 10, c.static_power_other_W = 15, c.freq_GHz = 1.5;
    close_to(carbon_idle_power_pg_W(&c, NULL), 165);
    close_to(carbon_idle_power_pg_W(&c, NULL), carbon_idle_power_W(&c, false));
    struct pg_strategy pg;
    pg_strategy_default(&pg);
    close_to(carbon_idle_power_pg_W(&c, &pg), 165);   /* nothing enabled */
    assert_int_equal(pg_wake_ns(&pg, c.freq_GHz), 0);
    pg.sa.enabled = true, pg.sa.n_levels = 2, pg.sa.levels[0] = 1, pg.sa.levels[1] = 0.03, pg.sa.delay_cycles = 10;
    pg.hbm.enabled = true, pg.hbm.n_levels = 2, pg.hbm.levels[0] = 1, pg.hbm.levels[1] = 0.1;
    pg.hbm.delay_cycles = 60;
    close_to(carbon_idle_power_pg_W(&c, &pg), 81.2);
    assert_int_equal(pg_wake_ns(&pg, c.freq_GHz), 40);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_hand_values),
        cmocka_unit_test(test_gating),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
