/* cmd_sweep.c — `npusim sweep`: the reference's design-space sweep driver
 * (opsgen.md §13) for LLM inference.
 *
 * For every model x chip count x parallelism x chip version x batch size it
 * validates the configuration (skipping it only when both phases fail, with
 * the 1.5x out-of-memory allowance), maps parallelism to torus axes, runs
 * opsgen + chipsim (no energy pass, as the reference's sweep) and writes the
 * reference results tree:
 *   OUT/<model>/<pstr>/<workload>-v<V>{,_prefill,_decode}.csv, _prefill.json, _decode.json
 * Configs are parsed once per (model, chip) and copied per point. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "cli/args.h"
#include "cli/cli.h"
#include "cli/family.h"
#include "opsgen/opsgen.h"
#include "opsgen/sweep.h"

static const char sweep_help[] =
    "usage: npusim sweep --models M[,M...] --versions V[,V...] --num-chips N[,N...]\n"
    "                    --batch-sizes B[,B...] [--workload W] [--seqlen IN_OUT]\n"
    "                    [--out DIR] [--configs DIR] [--profile neusim] [--skip-existing] [--dry-run]\n"
    "\n"
    "Sweeps every valid parallelism (data/tensor/pipeline over ICI, data/pipeline over\n"
    "DCN pods) for each chip count, chip version and global batch size, and writes the\n"
    "reference results tree under DIR (default ./results):\n"
    "  DIR/<model>/<pstr>/inference-v<V>.csv, _prefill.csv, _decode.csv,\n"
    "  _prefill.json, _decode.json\n"
    "with pstr = dp<D>-tp<T>-pp<P>-dpdcn<D'>-tpdcn1-ppdcn<P'>-bs<B>. A configuration is\n"
    "skipped when both phases fail validation (out of memory beyond 1.5x HBM, pipeline\n"
    "deeper than the layers, pod too large, ...). Versions are chip names without\n"
    "\"tpuv\" (2,3,4,5e,5p,6e,6p).\n"
    "\n"
    "options:\n"
    "      --models LIST       model configs (llama family)\n"
    "      --workload W        inference (default) or training (llama: one CSV + JSON per point)\n"
    "      --versions LIST     chip versions\n"
    "      --num-chips LIST    chip counts\n"
    "      --batch-sizes LIST  global batch sizes\n"
    "      --seqlen IN_OUT     override input/output sequence lengths (e.g. 2048_256);\n"
    "                          results go under <model>_<IN>_<OUT>/\n"
    "      --out DIR           results folder (default ./results)\n"
    "      --skip-existing     leave configurations whose outputs already exist\n"
    "      --dry-run           simulate every valid configuration but write nothing\n"
    "      --configs DIR       config folder (see npusim run --help)\n"
    "      --profile NAME      behaviour profile (neusim)\n"
    "  -h, --help              this help\n";

static int parse_positive(const char *s, int64_t *v)
{
    return parse_i64_strict(s, v) || *v <= 0 ? -1 : 0;
}

static bool exists(const char *p)
{
    struct stat st;
    return stat(p, &st) == 0;
}

struct sweep_opts {
    const char *configs, *out, *workload, *seqlen;
    struct list models, versions, chips, batches;
    int64_t num_chips[MAX_LIST], batch[MAX_LIST];
    int64_t seq_in, seq_out;
    bool skip_existing;
    bool dry_run;
    const struct profile *prof;
};

struct sweep_count {
    long simulated, invalid, existing;
};

/* One (model, version): loads the merged config once, then walks chip counts
 * x parallel configurations x batch sizes through the model's family. */
static int sweep_model_chip(const struct sweep_opts *o, const char *model, const char *version,
                            struct sweep_count *cnt)
{
    char chipname[64];
    snprintf(chipname, sizeof chipname, "tpuv%s", version);
    struct config_request r = { o->configs, model, chipname, NULL, NULL, 0 };
    struct loaded_config base;
    struct npu_err e;
    if (config_load(&r, &base, &e)) {
        config_free(&base);
        return report_error("sweep", &e);
    }
    const struct family *fam = family_find(&base.model, o->workload);
    if (!fam || !fam->enumerate) {
        config_free(&base);
        return usage_error("sweep", "model \"%s\" (model_type \"%s\"): sweeping its %s is not supported "
                                    "(families: %s)", model, base.model.model_type, o->workload,
                           families_list());
    }
    if (fam->adjust)
        fam->adjust(&base);
    char mdir[512];
    if (o->seqlen)
        snprintf(mdir, sizeof mdir, "%s/%s_%lld_%lld", o->out, base.model_name, (long long)o->seq_in,
                 (long long)o->seq_out);
    else
        snprintf(mdir, sizeof mdir, "%s/%s", o->out, base.model_name);
    int rc = 0;
    for (int ci = 0; ci < o->chips.n && !rc; ci++) {
        struct parallel_cfg *pcs = NULL;
        size_t npc = 0;
        if (fam->enumerate(&base, o->num_chips[ci], &pcs, &npc, &e)) {
            rc = report_error("sweep", &e);
            break;
        }
        for (size_t pi = 0; pi < npc && !rc; pi++) {
            for (int bi = 0; bi < o->batches.n && !rc; bi++) {
                struct loaded_config c = base;   /* shallow: shares merged/sources, not freed */
                if (o->seqlen) {
                    c.model.input_seqlen = o->seq_in;
                    c.model.output_seqlen = o->seq_out;
                }
                char pstr[256], dir[1024], base_name[64], csv[1200];
                fam->pstr(&pcs[pi], o->batch[bi], pstr, sizeof pstr);
                snprintf(dir, sizeof dir, "%s/%s", mdir, pstr);
                snprintf(base_name, sizeof base_name, "%s-v%s", o->workload, version);
                snprintf(csv, sizeof csv, "%s/%s.csv", dir, base_name);
                snprintf(c.model.output_file_path, sizeof c.model.output_file_path, "%s", csv);
                if (o->skip_existing && exists(csv)) {
                    cnt->existing++;
                    continue;
                }
                char why[256];
                if (!fam->prepare(&c, &pcs[pi], o->batch[bi], o->prof, why, sizeof why)) {
                    cnt->invalid++;
                    continue;
                }
                struct trace t;
                trace_init(&t);
                if (pipeline_run(fam, &c, o->prof, false, &t, &e) ||
                    (!o->dry_run && fam->write(&c, o->prof, &t, dir, base_name, true, &e)))
                    rc = report_error("sweep", &e);
                else
                    cnt->simulated++;
                trace_free(&t);
            }
        }
        free(pcs);
    }
    config_free(&base);
    return rc;
}

enum { O_MODELS = 1000, O_WORKLOAD, O_VERSIONS, O_CHIPS, O_BATCHES, O_SEQLEN, O_OUT, O_CONFIGS,
       O_PROFILE, O_SKIP, O_DRY };

int cmd_sweep(int argc, char **argv)
{
    static const struct option longopts[] = {
        { "models", required_argument, 0, O_MODELS }, { "workload", required_argument, 0, O_WORKLOAD },
        { "versions", required_argument, 0, O_VERSIONS }, { "num-chips", required_argument, 0, O_CHIPS },
        { "batch-sizes", required_argument, 0, O_BATCHES }, { "seqlen", required_argument, 0, O_SEQLEN },
        { "out", required_argument, 0, O_OUT }, { "configs", required_argument, 0, O_CONFIGS },
        { "profile", required_argument, 0, O_PROFILE }, { "skip-existing", no_argument, 0, O_SKIP },
        { "dry-run", no_argument, 0, O_DRY },
        { "help", no_argument, 0, 'h' }, { 0, 0, 0, 0 },
    };
    struct sweep_opts o;
    memset(&o, 0, sizeof o);
    o.out = "results";
    o.workload = "inference";
    o.prof = &profile_neusim;
    const char *models = NULL, *versions = NULL, *chips = NULL, *batches = NULL;
    optind = 1;
    opterr = 0;
    int ch, rc = 0;
    while ((ch = getopt_long(argc, argv, "h", longopts, NULL)) != -1) {
        switch (ch) {
        case 'h': fputs(sweep_help, stdout); return 0;
        case O_MODELS: models = optarg; break;
        case O_WORKLOAD: o.workload = optarg; break;
        case O_VERSIONS: versions = optarg; break;
        case O_CHIPS: chips = optarg; break;
        case O_BATCHES: batches = optarg; break;
        case O_SEQLEN: o.seqlen = optarg; break;
        case O_OUT: o.out = optarg; break;
        case O_CONFIGS: o.configs = optarg; break;
        case O_SKIP: o.skip_existing = true; break;
        case O_DRY: o.dry_run = true; break;
        case O_PROFILE:
            if (!(o.prof = profile_by_name(optarg)))
                return usage_error("sweep", "unknown profile \"%s\" (known: %s)", optarg, profile_names());
            break;
        case ':': return usage_error("sweep", "option %s needs a value", argv[optind - 1]);
        default: return usage_error("sweep", "unknown option %s", argv[optind - 1]);
        }
    }
    if (optind < argc)
        return usage_error("sweep", "unexpected argument \"%s\"", argv[optind]);
    if (!models || !versions || !chips || !batches)
        return usage_error("sweep", "--models, --versions, --num-chips and --batch-sizes are required");
    if (strcmp(o.workload, "inference") != 0 && strcmp(o.workload, "training") != 0)
        return usage_error("sweep", "--workload \"%s\": expected inference or training", o.workload);
    if (list_split(models, &o.models) || list_split(versions, &o.versions) ||
        list_split(chips, &o.chips) || list_split(batches, &o.batches))
        rc = usage_error("sweep", "lists must be non-empty and comma-separated (at most %d items)", MAX_LIST);
    for (int i = 0; !rc && i < o.chips.n; i++)
        if (parse_positive(o.chips.item[i], &o.num_chips[i]))
            rc = usage_error("sweep", "--num-chips: \"%s\" is not a positive integer", o.chips.item[i]);
    for (int i = 0; !rc && i < o.batches.n; i++)
        if (parse_positive(o.batches.item[i], &o.batch[i]))
            rc = usage_error("sweep", "--batch-sizes: \"%s\" is not a positive integer", o.batches.item[i]);
    if (!rc && o.seqlen) {
        char *us = strchr(o.seqlen, '_');
        char in[32] = "";
        if (us && (size_t)(us - o.seqlen) < sizeof in)
            memcpy(in, o.seqlen, (size_t)(us - o.seqlen));
        if (!us || parse_positive(in, &o.seq_in) || parse_positive(us + 1, &o.seq_out))
            rc = usage_error("sweep", "--seqlen \"%s\": expected IN_OUT, e.g. 4096_512", o.seqlen);
    }
    struct sweep_count cnt = { 0, 0, 0 };
    for (int mi = 0; !rc && mi < o.models.n; mi++)
        for (int vi = 0; !rc && vi < o.versions.n; vi++)
            rc = sweep_model_chip(&o, o.models.item[mi], o.versions.item[vi], &cnt);
    if (!rc)
        fprintf(stderr, "npusim sweep: %ld configurations simulated, %ld invalid, %ld already present\n",
                cnt.simulated, cnt.invalid, cnt.existing);
    list_free(&o.models);
    list_free(&o.versions);
    list_free(&o.chips);
    list_free(&o.batches);
    return rc;
}
