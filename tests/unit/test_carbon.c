/* test_carbon.c — the carbon model (power.md §8) and the SLO selection (§9).
 *
 * Carbon: the spec's verified example (llama3-8b, TPUv5p, 1 chip, bs 1,
 * decode, CI 0.0624, u 0.6, L 1) from its energy_stats, with the idle powers
 * summed by hand from tpuv5p.json, and the exact cells NeuSim wrote. SLO:
 * hand-made points that exercise each rule (reference fallbacks, first-wins
 * ties, SLO filter, cost optimum over non-SLO-filtered points with the chip
 * count divided twice, missing energy metric). */
#include "testutil.h"

#include "power/carbon.h"
#include "power/slo.h"
#include "power/system.h"

/* energy_stats of inference-v5p_decode.json (NeuSim's energy main). */
static const struct carbon_energy nopg = {
    951.1870902197876,
    { 322.77633042114456, 63.484484458420795, 88.3476212153505, 28.79330070629588, 89.95996270705668,
      141.44376482323793 },
    { 43.864743726344656, 12.497014025742626, 37.73112007608317, 0.0, 122.28874806011075, 0.0 },
    301.46199611876347, 301.853442918606, 1.0,
};
static const struct carbon_energy full = {
    473.25143501372395,
    { 11.743240873352123, 10.529504389936172, 2.329537310671034, 0.8637990211888764, 89.95996270705668,
      141.44376482323793 },
    { 43.864743726344656, 12.497014025742626, 37.73112007608317, 0.0, 122.28874806011075, 0.0 },
    149.98870751319893, 150.97537845414806, 1.0,
};
static const double decode_tok_per_s = 162.2693827532311;

/* The library formulas by hand: 1 kW for a year at PUE 1.1 is
 * 1 * 8760 h * 1.1 = 9636 kWh; 10 units/s for two years is
 * 10 * 2 * 365 * 24 * 3600 = 630,720,000 units; per unit over one year at
 * 0.5 kg/kWh with 100 kg embodied: (9636 * 0.5 + 100) / 315,360,000. */
static void test_formulas(void **state)
{
    (void)state;
    assert_close(carbon_energy_kWh(1.1, 1, 1000), 9636.0);
    assert_close(carbon_work(10, 2), 630720000.0);
    assert_close(carbon_per_unit(10, 1.1, 1, 0.5, 1000, 100), 4918.0 / 315360000.0);
    assert_close(carbon_per_unit(10, 1.1, 1, 0, 1000, 0), 0.0);   /* no intensity, no embodied: no carbon */
}

static void test_idle_power(void **state)
{
    (void)state;
    struct chip_config c;
    test_chip("tpuv5p", &c);
    /* 8x1.35868996 + 6x0.475076728 + 24.21353615 + 6.114104803
     * + (10.264041296 + 15.396061944) + 44.82811018, SA/VU counted once. */
    assert_close(carbon_idle_power_W(&c, false), 114.535834421);
    /* 0.0897 x 25.66010324 + 44.82811018 under any PG strategy (Q25). */
    assert_close(carbon_idle_power_W(&c, true), 47.129821440628);
    /* The exact cells NeuSim wrote. */
    assert_true(carbon_idle_power_W(&c, false) == 114.535834421);
    assert_true(carbon_idle_power_W(&c, true) == 47.129821440628);
}

static void test_llama_decode_nopg(void **state)
{
    (void)state;
    struct chip_config c;
    test_chip("tpuv5p", &c);
    struct carbon_summary s;
    carbon_summarize(carbon_idle_power_W(&c, false), 1, &nopg, 0.6, decode_tok_per_s, &s);
    assert_close(s.avg_active_power_W, 301.46199611876347);
    /* 0.4 x 114.535834421 + 0.6 x 301.461996118763 */
    assert_close(s.avg_power_W, 226.6915314396581);
    assert_true(fabs(s.avg_power_W - 226.692) < 5e-4);
    assert_close(s.static_ratio[0], 322.77633042114456 / 951.1870902197876);
    struct carbon_lifetime r;
    carbon_for_lifetime(&s, 1.1, 0.0624, 1, 585.0, &r);
    /* 226.69153 W x 8760 h x 1.1 / 1000 = 2184.40 kWh */
    assert_true(fabs(r.total_kWh - 2184.40) < 5e-3);
    /* 2184.3996 x 0.0624 + 585 = 721.31 kg, 81.1 % embodied */
    assert_true(fabs(r.total_kg - 721.31) < 5e-3);
    assert_true(fabs(r.embodied_fraction - 0.811) < 5e-4);
    /* 162.26938 x 0.6 / (1.1 x 226.69153) = 0.39044 tok/J */
    assert_true(fabs(r.power_eff - 0.39044) < 5e-6);
    /* 97.36163 tok/s x 31536000 s / 721.3065 kg = 4.2567e6 tok/kg */
    assert_true(fabs(r.carbon_eff - 4.2567e6) < 50);
    /* Bit for bit with NeuSim's cells. */
    assert_true(s.avg_power_W == 226.6915314396581);
    assert_true(r.total_kWh == 2184.3995969525454);
    assert_true(r.idle_kWh == 441.46692019230244);
    assert_true(r.active_kWh == 1742.9326767602429);
    assert_true(r.static_kWh == 1346.4401146880941);
    assert_true(r.dynamic_kWh == 396.4925620721484);
    assert_true(r.power_eff == 0.39044498860961424);
    assert_true(r.carbon_eff == 4256715.008609662);
    assert_true(r.total_kg == 721.3065348498388);
    /* Without embodied carbon only the operational part remains. */
    carbon_for_lifetime(&s, 1.1, 0.0624, 1, 0, &r);
    assert_true(r.total_kg == 136.3065348498388);
    assert_true(r.carbon_eff == 22525672.419785444);
    assert_true(r.embodied_fraction == 0);
}

static void test_llama_decode_full(void **state)
{
    (void)state;
    struct chip_config c;
    test_chip("tpuv5p", &c);
    struct carbon_summary s;
    carbon_summarize(carbon_idle_power_W(&c, true), 1, &full, 0.6, decode_tok_per_s, &s);
    /* 0.4 x 47.129821 + 0.6 x 149.988708 = 108.845 W */
    assert_true(fabs(s.avg_power_W - 108.845) < 5e-4);
    struct carbon_lifetime r;
    carbon_for_lifetime(&s, 1.1, 0.0624, 1, 585.0, &r);
    assert_true(fabs(r.power_eff - 0.81318) < 5e-6);
    assert_true(fabs(r.carbon_eff - 4.7204e6) < 50);
    assert_true(s.avg_power_W == 108.84515308417055);
    assert_true(r.power_eff == 0.8131788132302741);
    assert_true(r.carbon_eff == 4720439.685707568);
    assert_true(r.static_kWh == 470.6821492861626);
}

static void test_chips_and_lifetime(void **state)
{
    (void)state;
    /* Power scales with chips; goodput is divided by the PG slowdown. */
    struct carbon_energy es = nopg;
    es.slowdown = 2.0;
    struct carbon_summary s;
    carbon_summarize(100.0, 4, &es, 0.5, 1000.0, &s);
    assert_close(s.idle_power_W, 400.0);
    assert_close(s.avg_active_power_W, 4 * 301.46199611876347);
    assert_close(s.peak_power_W, 4 * 301.853442918606);
    assert_close(s.goodput, 500.0);
    struct carbon_lifetime r;
    carbon_for_lifetime(&s, 1.0, 0.5, 3, 100.0, &r);
    /* 3 years: kWh = P/1000 x 26280 h; idle and active shares of the time */
    assert_close(r.total_kWh, s.avg_power_W / 1000 * 26280);
    assert_close(r.idle_kWh, 400.0 / 1000 * 13140);
    assert_close(r.active_kWh, s.avg_active_power_W / 1000 * 13140);
    assert_close(r.total_kg, r.total_kWh * 0.5 + 100);
    assert_close(r.carbon_eff, 500.0 * 0.5 * 3 * 31536000 / r.total_kg);
    assert_close(carbon_work(2.0, 1), 63072000.0);
    assert_close(carbon_energy_kWh(1.5, 2, 1000), 26280.0);
}

static void test_model_class_and_pstr(void **state)
{
    (void)state;
    assert_int_equal(slo_model_class("llama3-8b"), SLO_LLM);
    assert_int_equal(slo_model_class("DeepSeekV2-236B"), SLO_LLM);
    assert_int_equal(slo_model_class("deepseek-16b"), SLO_UNKNOWN);
    assert_int_equal(slo_model_class("dit-xl"), SLO_DIFFUSION);
    assert_int_equal(slo_model_class("gligen"), SLO_DIFFUSION);
    assert_int_equal(slo_model_class("dlrm-s"), SLO_DLRM);
    assert_int_equal(slo_model_class("resnet"), SLO_UNKNOWN);
    struct slo_pconfig p;
    assert_int_equal(slo_parse_pstr("dp1-tp2-pp4-dpdcn1-tpdcn1-ppdcn2-bs16", &p), 0);
    assert_i64(p.tp, 2);
    assert_i64(p.bs, 16);
    assert_i64(p.ep, 1);
    int64_t n;
    assert_int_equal(slo_num_chips("llama3-8b", &p, &n), 0);
    assert_i64(n, 16);
    assert_int_equal(slo_parse_pstr("dp1-tp8-pp1-ep2-dpdcn1-tpdcn1-ppdcn1-epdcn2-bs8", &p), 0);
    assert_int_equal(slo_num_chips("deepseekv2-236b", &p, &n), 0);
    assert_i64(n, 32);
    assert_int_equal(slo_parse_pstr("dp4-tp4-pp1-dpdcn2-tpdcn1-ppdcn1-bs64", &p), 0);
    assert_int_equal(slo_num_chips("dlrm-s", &p, &n), 0);
    assert_i64(n, 8);   /* DLRM: dp x dp_dcn */
    assert_int_equal(slo_parse_pstr("dp2-tp1-pp1-dpdcn1-tpdcn1-ppdcn1-bs64", &p), 0);
    assert_int_equal(slo_num_chips("dlrm-s", &p, &n), -1);
    assert_int_equal(slo_parse_pstr("dp1-tp1-pp1-bs1", &p), -1);
    assert_int_equal(slo_parse_pstr("dp1-tp1-pp1-dpdcn1-tpdcn1-ppdcnX-bs1", &p), -1);
    assert_true(slo_cost_per_chip_hour("5p") == 4.2);
    assert_true(slo_cost_per_chip_hour("2") == 1.2375);
    assert_true(slo_cost_per_chip_hour("7") < 0);
    struct slo_metrics m;
    assert_int_equal(slo_metrics_for("llama3-8b", false, "decode", &m), 0);
    assert_string_equal(m.latency, "TPOT_ms_request");
    assert_int_equal(slo_metrics_for("llama3-8b", true, "", &m), 0);
    assert_string_equal(m.tput, "total_execution_time_ns");
    assert_false(m.tput_max);
    assert_int_equal(slo_metrics_for("resnet", false, "", &m), -1);
    assert_i64(slo_reference_batch("dlrm-m", false), 1024);
    assert_i64(slo_reference_batch("llama3-8b", true), 32);
}

#define PT(bs, chips, oom, lat, tput, energy) { bs, chips, chips, oom, lat, tput, energy }

static void test_reference(void **state)
{
    (void)state;
    const struct slo_point p[] = {
        PT(1, 1, true, 1.0, 1, 1),    /* fewest chips but out of memory */
        PT(1, 2, false, 5.0, 1, 1),
        PT(1, 2, false, 4.0, 1, 1),   /* best latency at the fewest fitting chips */
        PT(1, 4, false, 1.0, 1, 1),   /* faster, but more chips */
        PT(16, 1, false, 0.5, 1, 1),  /* other batch */
    };
    assert_int_equal(slo_reference(p, 5, 1), 2);
    /* No point at the reference batch: every batch counts. */
    assert_int_equal(slo_reference(p, 5, 1024), 4);
    /* Ties: the first point wins. */
    const struct slo_point tie[] = { PT(1, 1, false, 2.0, 1, 1), PT(1, 1, false, 2.0, 1, 1) };
    assert_int_equal(slo_reference(tie, 2, 1), 0);
    /* DLRM: every batch-1024 point OOM → the fewest chips among fitting batch-1
     * points (2) bounds a batch-1 search that includes OOM points. */
    const struct slo_point d[] = {
        PT(1024, 1, true, 0.1, 1, 1), PT(1, 1, true, 3.0, 1, 1), PT(1, 2, false, 9.0, 1, 1),
        PT(1, 2, true, 7.0, 1, 1),    PT(1, 4, false, 1.0, 1, 1),
    };
    assert_int_equal(slo_reference(d, 5, 1024), 1);
    /* Nothing fits anywhere: no reference. */
    const struct slo_point none[] = { PT(1, 1, true, 1.0, 1, 1), PT(8, 4, true, 1.0, 1, 1) };
    assert_int_equal(slo_reference(none, 2, 1), -1);
    assert_int_equal(slo_reference(none, 0, 1), -1);
}

static void test_select(void **state)
{
    (void)state;
    const struct slo_point p[] = {
        PT(1, 1, false, 6.0, 100, 0.5),     /* A: meets the SLO exactly, 1 chip */
        PT(1, 2, false, 3.0, 300, 0.4),     /* B: 150/chip */
        PT(16, 2, false, 9.0, 1000, 0.9),   /* C: 500/chip but violates the SLO */
        PT(1, 4, true, 1.0, 10000, 9.0),    /* D: out of memory */
        PT(1, 4, false, 2.0, 600, 1.0),     /* E: 150/chip (ties B), 1 J per token */
    };
    struct slo_choice c;
    assert_int_equal(slo_select(p, 5, -1, 2147483647, 6.0, true, 4.2, &c), 0);
    assert_true(c.any_ok);
    assert_i64(c.min_num_chips, 1);
    assert_int_equal(c.min_chip, 0);
    assert_int_equal(c.optimal, 1);   /* B before E on a tie */
    assert_int_equal(c.energy, 4);    /* 1/1.0 < 1/0.5 < 1/0.4 J per token */
    /* Cost ignores the SLO: C wins with (1000/2) / (4.2/3600 x 2) good/$ —
     * the chip count divides twice (Q26). */
    assert_int_equal(c.cost, 2);
    assert_close(slo_good_per_dollar(&p[2], 4.2), 1000.0 / 2 / (4.2 / 3600 * 2));
    assert_close(slo_good_per_dollar(&p[2], 4.2), 214285.71428571429);
    /* Nothing meets a tight SLO: report the best fitting latency (E, not OOM D). */
    assert_int_equal(slo_select(p, 5, -1, 2147483647, 1.5, true, 4.2, &c), 0);
    assert_false(c.any_ok);
    assert_int_equal(c.min_latency, 4);
    /* max_num_chips drops E and D (pstr chips 4). */
    assert_int_equal(slo_select(p, 5, -1, 2, 6.0, true, 4.2, &c), 0);
    assert_int_equal(c.energy, 0);
    /* Training keeps batch 32 only and prefers the lowest time per chip. */
    const struct slo_point t[] = {
        PT(32, 1, false, 100, 100, 1), PT(32, 4, false, 40, 40, 1), PT(16, 4, false, 1, 1, 1),
    };
    assert_int_equal(slo_select(t, 3, 32, 2147483647, 100, false, 4.2, &c), 0);
    assert_int_equal(c.optimal, 1);   /* 40/4 = 10 < 100/1 */
    assert_int_equal(c.min_chip, 0);
    /* A point that meets the SLO without an energy metric is an error. */
    struct slo_point m[2] = { PT(1, 1, false, 1, 1, 1), PT(1, 1, false, 1, 1, 1) };
    m[1].energy = NAN;
    assert_int_equal(slo_select(m, 2, -1, 0, 1, true, 1, &c), -1);
    assert_int_equal(c.bad, 1);
}

/* One set of carbon defaults (power/system.h): the system config's, each
 * with the file it came from; the reference script's lifetime and duty cycle
 * under neusim (and its intensity for npusim carbon); the line that says so. */
static void test_carbon_defaults(void **state)
{
    (void)state;
    struct system_config sys;
    system_config_default(&sys);
    assert_true(sys.lifetime_years == 4 && sys.duty_cycle == 0.6 && sys.carbon_intensity_kgCO2_per_kWh == 0.5);
    cJSON *src = cJSON_CreateObject();
    cJSON_AddStringToObject(src, "carbon_intensity_kgCO2_per_kWh", "s.json");
    cJSON_AddStringToObject(src, "lifetime_years", "s.json");
    cJSON_AddStringToObject(src, "duty_cycle", "s.json");
    cJSON_AddStringToObject(src, "PUE", "s.json");
    struct carbon_defaults d;
    carbon_defaults_of(&sys, src, &profile_physical, true, &d);
    assert_true(d.v[CD_CI] == 0.5 && d.v[CD_LIFETIME] == 4 && d.v[CD_DUTY] == 0.6 && d.v[CD_PUE] == 1.1);
    assert_string_equal(d.from[CD_LIFETIME], "s.json");
    carbon_defaults_of(&sys, src, &profile_neusim, false, &d);   /* a sweep under neusim */
    assert_true(d.v[CD_CI] == 0.5 && d.v[CD_LIFETIME] == 1 && d.v[CD_DUTY] == 0.6);
    assert_string_equal(d.from[CD_CI], "s.json");
    carbon_defaults_of(&sys, NULL, &profile_neusim, true, &d);   /* npusim carbon under neusim */
    assert_true(d.v[CD_CI] == 0.1352 && d.v[CD_LIFETIME] == 1 && d.v[CD_DUTY] == 0.6);
    char line[512];
    const char *text[CD_N] = { "0.1", "4", "0.6", "1.1" }, *from[CD_N] = { "--ci", "s.json", "s.json", "s.json" };
    carbon_defaults_line(text, from, line, sizeof line);
    assert_string_equal(line, "carbon defaults from s.json: 0.1 kgCO2e/kWh (--ci), 4 years, duty cycle 0.6, PUE 1.1");
    const char *opts[CD_N] = { "--ci", "--lifetime", "--util", "" }, *three[CD_N] = { "0.1", "1", "0.5", NULL };
    carbon_defaults_line(three, opts, line, sizeof line);
    assert_string_equal(line, "carbon inputs: 0.1 kgCO2e/kWh (--ci), 1 year (--lifetime), duty cycle 0.5 (--util)");
    cJSON_Delete(src);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_formulas),
        cmocka_unit_test(test_idle_power),
        cmocka_unit_test(test_llama_decode_nopg),
        cmocka_unit_test(test_llama_decode_full),
        cmocka_unit_test(test_chips_and_lifetime),
        cmocka_unit_test(test_model_class_and_pstr),
        cmocka_unit_test(test_reference),
        cmocka_unit_test(test_select),
        cmocka_unit_test(test_carbon_defaults),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
