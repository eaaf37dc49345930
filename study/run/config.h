/* config.h — finding, merging and loading the JSON configs of one run.
 *
 * A name (`-m llama3-8b`, `-c tpuv5p`) resolves through --configs DIR,
 * $NPUSIM_CONFIGS, the user's folder (~/.local/share/npusim), the installed
 * share folder, then ./configs (config_search_dirs); a path works too. The
 * model, chip and system objects are merged in that order (later
 * keys win, as in the reference), then `--set key=value` overrides apply.
 * struct loaded_config keeps the merged cJSON object, which file each key
 * came from (for error messages), and the three typed structs. */
#ifndef NPUSIM_STUDY_CONFIG_H
#define NPUSIM_STUDY_CONFIG_H

#include <stdbool.h>

#include <cjson/cJSON.h>

#include "chipsim/chip.h"
#include "opsgen/model.h"
#include "opsgen/opsgen.h"
#include "power/system.h"
#include "base/err.h"

enum config_kind { CONFIG_MODEL, CONFIG_CHIP, CONFIG_SYSTEM };

/* The model a run simulates when none is named: the CLI's, the HTTP API's
 * and so Python's (which leaves it to the API). The chip and system
 * defaults are config_load's. */
#define CONFIG_DEFAULT_MODEL "llama3-8b"

struct config_request {
    const char *configs_dir;     /* --configs, may be NULL */
    const char *model;           /* name or path; NULL = no model (chip-only stages) */
    const char *chip;
    const char *system;
    const char *const *sets;     /* "key=value" strings */
    int nsets;
    bool only_dir;               /* names resolve in configs_dir alone (configs_dir NULL: the
                                  * shipped folder, config_shipped_dir), never $NPUSIM_CONFIGS,
                                  * the user's, installed or current folder; a path is refused:
                                  * what `npusim serve` reads for a request */
};

struct loaded_config {
    struct model_config model;
    struct chip_config chip;
    struct system_config sys;
    cJSON *merged;               /* model ⊕ chip ⊕ system ⊕ --set */
    cJSON *sources;              /* key -> file the value came from */
    char model_name[256];        /* basename of the model file, e.g. "llama3-8b" */
    char chip_name[256];         /* basename of the chip file, e.g. "tpuv5p" */
    char system_name[256];       /* basename of the system file, e.g. "system_config" */
    char files[3][4096];         /* by enum config_kind: the file each came from, as an absolute
                                  * path when it resolves ("" for no model): a run says them */
    bool num_chips_derived;      /* --set changed a parallelism degree and num_chips became their
                                  * product (config_load); the summary says so */
    char hf_ignored[1024];       /* a Hugging Face model config's keys ignored (study/hf/hf.h), or "" */
    bool strict;                 /* a user-given config (run and stages): also reject uneven
                                  * sharding; sweeps simulate the points the reference enumerates */
};

/* What a summary adds to its chip count when config_load derived it. */
static inline const char *config_chips_note(const struct loaded_config *c)
{
    return c->num_chips_derived ? ", num_chips from the degrees" : "";
}

/* The folders names resolve in, in order: --configs DIR, $NPUSIM_CONFIGS,
 * the user's folder (config_user_dir), the share folder beside the binary
 * (an install), the configs folder of the tree the binary was built in, the
 * compiled-in share folder, then ./configs. Their number. */
#define CONFIG_DIRS_MAX 7
int config_search_dirs(const char *configs_dir, char dirs[CONFIG_DIRS_MAX][4096]);
/* The configs folder shipped with the binary, as an absolute path into out
 * (n bytes): the installed share folder beside it (<prefix>/share/npusim/
 * configs), else the configs folder of the tree it was built in, else the
 * compiled-in share folder; 0, or -1 (out "") when none is there. Where a
 * server's names resolve when it is given no --configs. */
int config_shipped_dir(char *out, size_t n);
/* The user's configs folder, outside any install and any source tree:
 * $XDG_DATA_HOME/npusim, else ~/.local/share/npusim (models/, chips/,
 * systems/ as in configs/; `npusim measure` writes chips/host.json there).
 * -1 (out "") when neither variable gives an absolute path. */
int config_user_dir(char *out, size_t n);
/* The config names of a kind in those folders (each once, sorted), at most
 * max: what `npusim list` prints and "did you mean" picks from; with
 * only_dir, in configs_dir alone (as struct config_request's only_dir). */
#define CONFIG_NAME_MAX 128
#define CONFIG_NAMES_MAX 1024
size_t config_names(const char *configs_dir, bool only_dir, enum config_kind kind, char (*names)[CONFIG_NAME_MAX],
                    size_t max);
/* Finds a config file; out receives the path. Errors name the closest name,
 * the names there are and the files it looked for; a path that is a folder,
 * FIFO or device says so. */
int config_resolve(const char *configs_dir, enum config_kind kind, const char *name, char *out,
                   size_t outlen, struct npu_err *e);
/* Cuts the files an unknown name was looked for out of an error message (in
 * place), leaving the name, the closest one and the names there are: the
 * HTTP API's answer never shows the server's folders. */
void config_hide_paths(char *msg);
/* Names files in a message (in place) as a server's answer may: a file under
 * configs_dir (NULL: the shipped folder) relative to it ("chips/h100.json"
 * for "/srv/configs/chips/h100.json" or "configs/chips/h100.json"), and any
 * other absolute path (one starting a word, with two slashes or more) by
 * its file name, so no server folder shows. */
void config_relative_paths(char *msg, const char *configs_dir);
/* Reads a JSON object from a file, naming the file and line on parse errors. */
cJSON *config_read_json(const char *path, struct npu_err *e);
/* Merges src into dst (src wins), recording `file` as the source of each key. */
void config_merge(cJSON *dst, cJSON *sources, const cJSON *src, const char *file);
/* Sets one field (a dotted key reaches into nested objects) to v, which it
 * takes over; `source` is recorded as the key's origin and names it in errors
 * ("--set", a sweep spec file). */
int config_set_value(cJSON *merged, cJSON *sources, const char *key, cJSON *v, const char *source,
                     struct npu_err *e);
/* Loads the typed structs from r->merged (model only if r->merged has model_type or need_model). */
int config_load_structs(struct loaded_config *c, bool need_model, struct npu_err *e);
/* Fails on the first key of the merged config that no field table knows,
 * naming its file (or --set) and the closest known key. */
int config_check_keys(const struct loaded_config *c, struct npu_err *e);
/* The top-level keys of every model, chip and system field table (at most
 * max into out): the candidates of "did you mean" hints. */
size_t config_field_keys(const char **out, size_t max);

/* Resolve, read, merge, override and load, in one go. With a model, when
 * --set changes a parallelism degree but not num_chips and the model file's
 * num_chips is less than dp x tp x pp, num_chips becomes the product of the
 * degrees (times the DCN ones; expert parallelism shares the dp x tp chips)
 * and num_chips_derived is set; a num_chips given with --set that is too
 * small is an error naming it and the degrees. */
int config_load(const struct config_request *r, struct loaded_config *c, struct npu_err *e);
void config_free(struct loaded_config *c);

/* Prefixes an error `model field "KEY": ...` / `chip field "KEY": ...` with
 * the file KEY came from. Returns -1. */
int config_name_source(const struct loaded_config *c, struct npu_err *e);

/* The link parameters opsgen needs, from the chip config. */
void config_links(const struct chip_config *chip, struct opsgen_links *l);
/* The sim_config block of the statistics JSON: system, chip and model
 * fields, and (unless prof->no_provenance) "provenance": the npusim
 * version, profile, and the model, chip and system names that made it. */
cJSON *config_dump(const struct loaded_config *c, const struct profile *prof);
/* The "provenance" object of an output: {"npusim": version, "profile": name}
 * and, when c is given, the model, chip and system names (never paths).
 * NULL under a profile with no_provenance (the reference's bytes). */
cJSON *config_provenance(const struct profile *prof, const struct loaded_config *c);

#endif
