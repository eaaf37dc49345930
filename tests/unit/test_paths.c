/* test_paths.c — what a path is, said before it is opened (path_not_file:
 * a regular file, missing, a folder, a FIFO, a device; a FIFO is asked with
 * stat only, so the test cannot hang on it), and the HTTP API's cut of an
 * unknown name's message (config_hide_paths: the names stay, the files
 * looked for go, whatever wraps the message stays). */
#include "testutil.h"

#include <sys/stat.h>
#include <unistd.h>

#include "study/run/config.h"
#include "base/textfile.h"

static void test_path_not_file_kinds(void **state)
{
    (void)state;
    char dir[] = "/tmp/npusim-paths-XXXXXX";
    assert_non_null(mkdtemp(dir));
    char file[128], fifo[128], missing[128], under_file[160];
    snprintf(file, sizeof file, "%s/m.json", dir);
    snprintf(fifo, sizeof fifo, "%s/p.json", dir);
    snprintf(missing, sizeof missing, "%s/none.json", dir);
    snprintf(under_file, sizeof under_file, "%s/x.json", file);
    FILE *f = fopen(file, "w");
    assert_non_null(f);
    fputs("{}", f);
    fclose(f);
    assert_int_equal(mkfifo(fifo, 0600), 0);
    assert_null(path_not_file(file));
    assert_string_equal(path_not_file(dir), "is a directory");
    assert_string_equal(path_not_file(fifo), "is a FIFO (named pipe)");
    assert_string_equal(path_not_file("/dev/null"), "is a device");
    assert_string_equal(path_not_file(missing), "no such file");
    assert_string_equal(path_not_file(under_file), "no such file");   /* ENOTDIR */
    unlink(fifo);
    unlink(file);
    rmdir(dir);
}

static void test_hide_paths(void **state)
{
    (void)state;
    struct npu_err e;
    /* the message config_resolve gives, cut */
    assert_int_equal(config_resolve("/nonexistent-npusim-dir", CONFIG_CHIP, "nochip", (char[64]){ 0 }, 64, &e), -1);
    assert_non_null(strstr(e.msg, "; looked for /nonexistent-npusim-dir/chips/nochip.json"));
    config_hide_paths(e.msg);
    assert_non_null(strstr(e.msg, "unknown chip \"nochip\": no file found (known chips: "));
    assert_null(strstr(e.msg, "looked for"));
    assert_null(strstr(e.msg, "/chips/"));
    assert_int_equal(e.msg[strlen(e.msg) - 1], ')');
    /* wrapped: the text around it stays */
    char m[256] = "fleet.json: deployments[0]: unknown chip \"x\": no file found (known chips: a, b; looked for "
                  "/srv/a (1)/chips/x.json, configs/chips/x.json) in line 3";
    config_hide_paths(m);
    assert_string_equal(m, "fleet.json: deployments[0]: unknown chip \"x\": no file found (known chips: a, b) in line 3");
    /* nothing to cut */
    char plain[] = "x.json: model: is a directory, expected a JSON file";
    config_hide_paths(plain);
    assert_string_equal(plain, "x.json: model: is a directory, expected a JSON file");
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_path_not_file_kinds),
        cmocka_unit_test(test_hide_paths),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
