/* test_walk.c — the files below a folder (base/walk.h): the suffix kept,
 * dot names skipped, subfolders walked to the depth bound and no deeper, a
 * symbolic link to a folder above not followed (no loop), a file over the
 * byte bound skipped, the count bound setting full, the order sorted. */
#define _GNU_SOURCE
#include "testutil.h"

#include <stdlib.h>
#include <sys/stat.h>
#include <unistd.h>

#include "base/walk.h"

static char root[256];

static void put(const char *rel, const char *text)
{
    char path[512];
    snprintf(path, sizeof path, "%s/%s", root, rel);
    FILE *f = fopen(path, "w");
    assert_non_null(f);
    fputs(text, f);
    fclose(f);
}

static void mk(const char *rel)
{
    char path[512];
    snprintf(path, sizeof path, "%s/%s", root, rel);
    assert_int_equal(mkdir(path, 0777), 0);
}

static int setup(void **state)
{
    (void)state;
    snprintf(root, sizeof root, "%s/npusim-walk.XXXXXX", getenv("TMPDIR") ? getenv("TMPDIR") : "/tmp");
    assert_non_null(mkdtemp(root));
    mk("b");
    mk("b/c");
    mk("b/c/d");
    mk(".hidden");
    put("z.json", "{}");
    put("a.json", "{}");
    put("a.csv", "x");
    put("b/m.json", "{}");
    put("b/c/n.json", "{}");
    put("b/c/d/deep.json", "{}");
    put(".hidden/h.json", "{}");
    put(".dot.json", "{}");
    put("big.json", "0123456789");
    char link[512];
    snprintf(link, sizeof link, "%s/b/c/loop", root);
    assert_int_equal(symlink(root, link), 0);
    return 0;
}

static int teardown(void **state)
{
    (void)state;
    char cmd[600];
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", root);
    return system(cmd) == 0 ? 0 : -1;
}

static const char *rel(const struct file_list *l, size_t i) { return l->path[i] + strlen(root) + 1; }

static void test_walk_sorted_bounded(void **state)
{
    (void)state;
    struct walk_limits lim = { 3, 100, 5 };   /* depth 3: root, b, b/c (not b/c/d); at most 5 bytes */
    struct file_list l = { 0 };
    assert_int_equal(file_list_walk(&l, root, ".json", &lim), 0);
    file_list_sort(&l);
    assert_int_equal(l.n, 4);
    assert_string_equal(rel(&l, 0), "a.json");
    assert_string_equal(rel(&l, 1), "b/c/n.json");
    assert_string_equal(rel(&l, 2), "b/m.json");
    assert_string_equal(rel(&l, 3), "z.json");
    assert_false(l.full);
    file_list_free(&l);
    assert_int_equal(l.n, 0);
    /* deeper, larger: the deep file and big.json come in; the link is never followed */
    lim = (struct walk_limits){ 16, 100, 1 << 20 };
    assert_int_equal(file_list_walk(&l, root, ".json", &lim), 0);
    assert_int_equal(l.n, 6);
    file_list_free(&l);
}

static void test_walk_count_bound(void **state)
{
    (void)state;
    struct walk_limits lim = { 16, 2, 1 << 20 };
    struct file_list l = { 0 };
    assert_int_equal(file_list_walk(&l, root, ".json", &lim), 0);
    assert_int_equal(l.n, 2);
    assert_true(l.full);
    file_list_free(&l);
    /* a folder that is not there adds nothing */
    assert_int_equal(file_list_walk(&l, "/nonexistent/npusim", ".json", &lim), 0);
    assert_int_equal(l.n, 0);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_walk_sorted_bounded),
        cmocka_unit_test(test_walk_count_bound),
    };
    return cmocka_run_group_tests(tests, setup, teardown);
}
