/* test_fleet.c — fleet energy and carbon formulas (power/fleet.c) with
 * hand-derived values, and the idle power of power.md §8. */
#include "testutil.h"

#include "power/carbon.h"
#include "power/fleet.h"

static void test_idle_power(void **state)
{
    (void)state;
    struct chip_config c;
    test_chip("tpuv5p", &c);
    /* 1.35868996*8 + 0.475076728*6 + 24.21353615 + 6.114104803 + 10.264041296
     * + 15.396061944 + 44.82811018 = 114.53575... (power.md §8: 114.536 W) */
    assert_true(fabs(carbon_idle_power_W(&c, false) - 114.5357) < 1e-3);
    /* gated: (10.264041296 + 15.396061944) * 0.0897 + 44.82811018 = 47.1298 */
    assert_true(fabs(carbon_idle_power_W(&c, true) - 47.1298) < 1e-3);
}

static void test_estimate_by_load(void **state)
{
    (void)state;
    /* 2 replicas of 4 chips, 1000 tokens/s each at 2000 W, idle 400 W;
     * load 500 tokens/s -> u = 500 / 2000 = 0.25;
     * avg = 2 * (0.25*2000 + 0.75*400) = 1600 W;
     * energy = 1600 * 1.2 * 8760 / 1e6 = 16.8192 MWh; op = 16.8192 * 0.5 = 8.4096 t;
     * embodied = 8 chips * 585 kg / 1000 / 4 years = 1.17 t/year. */
    struct fleet_in in = { 1000, 2000, 400, 4, 2, 500, -1, 1.2, 0.5, 4, 585 };
    struct fleet_out o;
    fleet_estimate(&in, &o);
    assert_close(o.utilisation, 0.25);
    assert_false(o.overloaded);
    assert_i64(o.replicas_needed, 1);
    assert_close(o.avg_power_W, 1600);
    assert_close(o.annual_energy_MWh, 16.8192);
    assert_close(o.operational_tCO2e, 8.4096);
    assert_close(o.embodied_tCO2e, 1.17);
    assert_close(o.total_tCO2e, 9.5796);
    /* served: 0.25 x 2000 tokens/s x 31,536,000 s = 1.5768e10 tokens a year;
     * energy per token = 1600 W x 1.2 / 500 tokens/s = 3.84 J;
     * carbon per token = 9579.6 kg / 1.5768e10. */
    assert_close(o.units_per_year, 1.5768e10);
    assert_close(o.facility_energy_per_unit_J, 3.84);
    assert_close(o.kgCO2e_per_unit, 9579.6 / 1.5768e10);
    in.load_per_s = 0;                         /* nothing served: no per-unit figure */
    fleet_estimate(&in, &o);
    assert_close(o.units_per_year, 0);
    assert_close(o.kgCO2e_per_unit, 0);
}

static void test_estimate_overload_and_duty(void **state)
{
    (void)state;
    struct fleet_in in = { 1000, 2000, 400, 1, 1, 2500, -1, 1.0, 0.1, 2, 100 };
    struct fleet_out o;
    fleet_estimate(&in, &o);
    assert_true(o.overloaded);
    assert_close(o.utilisation, 1.0);
    assert_i64(o.replicas_needed, 3);          /* ceil(2500 / 1000) */
    assert_close(o.avg_power_W, 2000);
    /* duty cycle instead of a load: u = 0.6 -> 0.6*2000 + 0.4*400 = 1360 W */
    in.load_per_s = -1;
    in.duty_cycle = 0.6;
    fleet_estimate(&in, &o);
    assert_false(o.overloaded);
    assert_close(o.avg_power_W, 1360);
    assert_close(o.annual_energy_MWh, 1360 * 8760 / 1e6);
    assert_close(o.embodied_tCO2e, 0.05);      /* 1 chip * 100 kg / 1000 / 2 */
    /* a load past int64 replicas: the most int64 holds, not a wrapped negative */
    in.load_per_s = 1e300;
    fleet_estimate(&in, &o);
    assert_i64(o.replicas_needed, INT64_MAX);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_idle_power),
        cmocka_unit_test(test_estimate_by_load),
        cmocka_unit_test(test_estimate_overload_and_duty),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
