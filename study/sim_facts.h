/* sim_facts.h — what the energy and carbon stages read from a statistics
 * file's sim_config: the chip, the system and the chip count.
 *
 * Parsing sim_config (some 80 members) was most of those stages' JSON work in
 * a suite, though the sweep that printed the file had the very tree in hand.
 * The sweep now takes these facts from that tree (sim_facts_from_json: the
 * same field tables the readers apply to the parsed text, and a printed tree
 * reads back to the same values) and the suite's memo keeps them with the
 * file (trace_memo_put_json); a reader of an unchanged file takes them from
 * there instead of parsing. Main data structure: struct sim_facts, plain
 * values, copied whole. */
#ifndef NPUSIM_SIM_FACTS_H
#define NPUSIM_SIM_FACTS_H

#include <stdbool.h>

#include <cjson/cJSON.h>

#include "chipsim/chip.h"
#include "power/carbon.h"
#include "power/system.h"
#include "traces/err.h"

struct sim_facts {
    struct chip_config chip;   /* chip_fields over chip_config_default */
    struct system_config sys;  /* system_fields over system_config_default */
    bool has_num_chips;        /* sim_config holds num_chips ... */
    bool num_chips_is_number;  /* ... as a number (jnum), of value: */
    double num_chips;
};

/* The facts of the sim_config object sim; -1 (e) when a field does not load. */
int sim_facts_from_json(struct sim_facts *f, const cJSON *sim, struct npu_err *e);

/* The facts of a statistics file the energy stage printed: its sim_config's,
 * and what the carbon stage reads of each strategy in energy_stats (the
 * values it asks need_num for: a finite double printed as its repr reads
 * back as itself). A strategy is listed only when all of its values are
 * finite (NaN prints as NaN, an infinity as null) and its name fits; the
 * carbon stage parses the file for a strategy not listed. */
#define ENERGY_FACTS_MAX 8
#define ENERGY_FACTS_NAME 64
struct energy_facts {
    struct sim_facts sim;
    int n;
    struct {
        char name[ENERGY_FACTS_NAME];
        struct carbon_energy es;
    } s[ENERGY_FACTS_MAX];
};

#endif
