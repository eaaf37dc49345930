/* test_config_paths.c — what a server's error may say of its files
 * (config_relative_paths: a file under the configs folder relative to it,
 * by the folder as given or resolved; any other absolute path by its file
 * name; text that is no path untouched), and where a server's names resolve
 * (config_request's only_dir: the configs folder alone, a path refused). */
#include "testutil.h"

#include <stdlib.h>
#include <sys/stat.h>
#include <unistd.h>

#include "study/run/config.h"

static void relative_is(const char *in, const char *dir, const char *want)
{
    char m[512];
    snprintf(m, sizeof m, "%s", in);
    config_relative_paths(m, dir);
    assert_string_equal(m, want);
}

static void test_relative_paths(void **state)
{
    (void)state;
    relative_is("/srv/cfg/chips/bad.json:3: invalid JSON", "/srv/cfg", "chips/bad.json:3: invalid JSON");
    relative_is("/srv/cfg/chips/bad.json: chip field \"x\"", "/srv/cfg/", "chips/bad.json: chip field \"x\"");
    relative_is("cfg/models/m.json: unknown key \"k\"", "cfg", "models/m.json: unknown key \"k\"");
    relative_is("cfg//models/m.json: x", "cfg/", "models/m.json: x");   /* --configs cfg/ */
    /* several, quoted or in brackets; another folder's file by its name */
    relative_is("fleet: (\"/srv/cfg/pg/a.json\", /etc/npusim/x.json)", "/srv/cfg", "fleet: (\"pg/a.json\", x.json)");
    /* no path: a unit, a ratio, a relative name, a word ending in the folder's name */
    relative_is("expected GB/s; x / e; docs/sweep-spec.md; mycfg/a", "cfg", "expected GB/s; x / e; docs/sweep-spec.md; mycfg/a");
    relative_is("/", "/srv/cfg", "/");
}

/* A folder of one chip ("onlyhere"): only_dir finds it there, refuses a
 * path, and lists that folder's chips alone. */
static void test_only_dir(void **state)
{
    (void)state;
    char dir[] = "/tmp/npusim-only-XXXXXX", p[128];
    assert_non_null(mkdtemp(dir));
    snprintf(p, sizeof p, "%s/chips", dir);
    assert_int_equal(mkdir(p, 0700), 0);
    snprintf(p, sizeof p, "%s/chips/onlyhere.json", dir);
    FILE *f = fopen(p, "w");
    assert_non_null(f);
    fputs("{}", f);
    fclose(f);
    char (*names)[CONFIG_NAME_MAX] = calloc(CONFIG_NAMES_MAX, sizeof *names);
    assert_int_equal(config_names(dir, true, CONFIG_CHIP, names, CONFIG_NAMES_MAX), 1);
    assert_string_equal(names[0], "onlyhere");
    assert_true(config_names(dir, false, CONFIG_CHIP, names, CONFIG_NAMES_MAX) > 1);   /* the shipped ones too */
    free(names);
    struct npu_err e;
    struct loaded_config c;
    /* the system config is not in the folder: with only_dir it is not found elsewhere */
    struct config_request r = { dir, NULL, "onlyhere", NULL, NULL, 0, true };
    assert_int_equal(config_load(&r, &c, &e), -1);
    assert_non_null(strstr(e.msg, "unknown system \"system_config\""));
    config_free(&c);
    r.chip = p;
    assert_int_equal(config_load(&r, &c, &e), -1);
    assert_non_null(strstr(e.msg, "chip: expected a config name"));
    config_free(&c);
    unlink(p);
    snprintf(p, sizeof p, "%s/chips", dir);
    rmdir(p);
    rmdir(dir);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_relative_paths),
        cmocka_unit_test(test_only_dir),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
