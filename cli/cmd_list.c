/* cmd_list.c — `npusim list [models|chips|systems|strategies|fields]`: what
 * there is to name, one line each, found where names resolve
 * (study/run/config.h: --configs, $NPUSIM_CONFIGS, beside the binary, the
 * share folder, ./configs). Each line says enough to choose: a model's
 * family and size, a chip's dense bf16 peak and memory, a system's PUE and
 * carbon intensity, what a strategy gates, a field's table and type. No
 * data structure of its own beyond the table of kinds. */
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "chipsim/chip.h"
#include "cli/cli.h"
#include "api/fields_ref.h"
#include "opsgen/model.h"
#include "power/pg.h"
#include "power/system.h"
#include "study/run/run.h"
#include "traces/fields.h"
#include "base/json_strict.h"
#include "traces/precision.h"

static const char list_help[] =
    "usage: npusim list [models|chips|systems|strategies|fields] [--configs DIR]\n"
    "\n"
    "Lists what can be named, one line each (with no kind: every kind, each under its\n"
    "heading): models (family, layers, width), chips\n"
    "(dense bf16 peak, HBM size and bandwidth), systems (PUE, carbon intensity),\n"
    "power-gating strategies (what each gates) and every config and strategy field (its\n"
    "table, type, unit and meaning; `npusim fields` adds ranges and defaults). Names are\n"
    "found where -m, -c and -s\n"
    "look: --configs DIR, $NPUSIM_CONFIGS, your own folder ($XDG_DATA_HOME/npusim or\n"
    "~/.local/share/npusim: npusim measure's host chip), the configs beside the binary,\n"
    "the installed share folder, ./configs.\n"
    "\n"
    "options:\n"
    "%s"
    "  -h, --help              this help\n";

/* One config of a kind loaded by name: its summary line's text. */
static void model_line(const struct loaded_config *c, char *buf, size_t n)
{
    const struct model_config *m = &c->model;
    if (!(m->num_layers > 0 && m->d_model > 0)) {
        snprintf(buf, n, "%s", m->model_type);
        return;
    }
    /* the size, then what sets the model apart: its experts, its window */
    int k = snprintf(buf, n, "%-8s %lld layers, d_model %lld", m->model_type, (long long)m->num_layers,
                     (long long)m->d_model);
    bool moe = !strcmp(m->ffn_type, "moe") || !strcmp(m->ffn_type, "deepseek_moe");
    if (moe && k > 0 && (size_t)k < n)
        k += snprintf(buf + k, n - (size_t)k, ", %lld experts (top %lld)", (long long)m->num_routed_experts,
                      (long long)m->num_activated_routed_experts_per_token);
    if (m->sliding_window > 0 && k > 0 && (size_t)k < n)
        snprintf(buf + k, n - (size_t)k, ", %s window %lld", m->local_attention, (long long)m->sliding_window);
}

static void chip_line(const struct loaded_config *c, char *buf, size_t n)
{
    const struct chip_config *ch = &c->chip;
    snprintf(buf, n, "bf16 %7.1f TFLOP/s, HBM %6.1f GB at %7.1f GB/s", chip_unit_peak_tflops(ch, UNIT_MATRIX, PREC_BF16),
             (double)ch->hbm_size_GB, ch->hbm_bw_GBps);
}

static void system_line(const struct loaded_config *c, char *buf, size_t n)
{
    /* the carbon defaults every command takes from it (power/system.h) */
    snprintf(buf, n, "PUE %.3g, %.4g kgCO2e/kWh, %.4g years, duty cycle %.3g", c->sys.PUE,
             c->sys.carbon_intensity_kgCO2_per_kWh, c->sys.lifetime_years, c->sys.duty_cycle);
}

static int list_configs(const char *configs, enum config_kind kind)
{
    char (*names)[CONFIG_NAME_MAX] = calloc(CONFIG_NAMES_MAX, sizeof *names);
    if (!names)
        return usage_error("list", "out of memory");
    size_t n = config_names(configs, false, kind, names, CONFIG_NAMES_MAX);
    for (size_t i = 0; i < n; i++) {
        struct config_request r = { configs, kind == CONFIG_MODEL ? names[i] : NULL,
                                    kind == CONFIG_CHIP ? names[i] : NULL, kind == CONFIG_SYSTEM ? names[i] : NULL,
                                    NULL, 0, false };
        struct loaded_config c;
        struct npu_err e;
        char line[300];
        if (config_load(&r, &c, &e))
            snprintf(line, sizeof line, "(does not load: %s)", e.msg);
        else if (kind == CONFIG_MODEL)
            model_line(&c, line, sizeof line);
        else if (kind == CONFIG_CHIP)
            chip_line(&c, line, sizeof line);
        else
            system_line(&c, line, sizeof line);
        config_free(&c);
        printf("%-22s %s\n", names[i], line);
    }
    free(names);
    return 0;
}

static int list_strategies(void)
{
    for (int i = 0; i < pg_builtin_count(); i++) {
        const struct pg_strategy *s = pg_builtin(i);
        const struct { const char *name; const struct pg_component *c; } comp[] = {
            { "SA", &s->sa }, { "VU", &s->vu }, { "Vmem", &s->vmem }, { "ICI", &s->ici }, { "HBM", &s->hbm },
            { "other", &s->other },
        };
        /* each gated component: its policy and spatial grain; then whether gating costs time */
        static const char *const policy[] = { "?", "HW", "SW" }, *const grain[] = { "?", "fine", "partition",
                                                                                  "component" };
        char gated[256] = "";
        bool delays = false;
        for (size_t k = 0; k < sizeof comp / sizeof comp[0]; k++)
            if (comp[k].c->enabled) {
                size_t l = strlen(gated);
                snprintf(gated + l, sizeof gated - l, "%s%s %s %s", l ? ", " : "", comp[k].name,
                         policy[comp[k].c->policy % 3], grain[comp[k].c->spatial % 4]);
                delays |= comp[k].c->delay_cycles > 0 || comp[k].c->pe_delay_cycles > 0;
            }
        if (*gated)
            printf("%-22s gates %s; %s\n", s->name, gated, delays ? "wake-up delays" : "no delays");
        else
            printf("%-22s nothing gated\n", s->name);
    }
    printf("%-22s %s\n", "<Base|HW|Full>_vary_PG_delay_<k>", "gating delays times k");
    printf("%-22s %s\n", "<Base|HW|Full>_vary_Vth_<a>_<b>", "gated power factor a (Vmem b)");
    return 0;
}

/* One line a field: key, table, type, unit and meaning (npusim fields has ranges and defaults). */
static void field_line(const struct field_row *r, void *arg)
{
    (void)arg;
    printf("%-48s %-8s %-13s %-10s %s\n", r->key, r->table, r->type, r->unit[0] ? r->unit : "-", r->meaning);
}

static int list_fields(void)
{
    fields_reference(false, field_line, NULL);
    return 0;
}

/* Kind k of the table in cmd_list. */
static int list_kind(const char *configs, int k)
{
    return k < 3 ? list_configs(configs, (enum config_kind)k) : k == 3 ? list_strategies() : list_fields();
}

int cmd_list(int argc, char **argv)
{
    static const struct option longopts[] = {
        SHARED_LONGOPT_CONFIGS, { "help", no_argument, 0, 'h' }, { 0, 0, 0, 0 },
    };
    struct shared_opts sh;
    shared_opts_init(&sh);
    int c;
    optind = 1;
    opterr = 0;
    cli_short_options("h");
    while ((c = getopt_long(argc, argv, "h", longopts, NULL)) != -1) {
        if (c == 'h') {
            printf(list_help, shared_help_line(SHARED_CONFIGS));
            return 0;
        }
        if (shared_opt("list", SHARED_CONFIGS, &sh, c, optarg) != 1)
            return bad_option("list", argv[optind - 1], longopts);
    }
    const char *configs = sh.configs;
    static const char *const kinds[] = { "models", "chips", "systems", "strategies", "fields" };
    if (optind == argc) {   /* every kind, each under its heading */
        for (int k = 0; k < 5; k++) {
            printf("%s%s:\n", k ? "\n" : "", kinds[k]);
            list_kind(configs, k);
        }
        return 0;
    }
    if (optind + 1 != argc)
        return usage_error("list", "expected at most one of models, chips, systems, strategies, fields, got \"%s\" "
                                   "after \"%s\"", argv[optind + 1], argv[optind]);
    for (int k = 0; k < 5; k++)
        if (!strcmp(argv[optind], kinds[k]))
            return list_kind(configs, k);
    char hint[200];
    suggest_hint(hint, sizeof hint, argv[optind], kinds, 5);
    return usage_error("list", "\"%s\"%s: expected models, chips, systems, strategies or fields", argv[optind], hint);
}
