/* test_staging.c — the writers' crash-safe steps (study/stages/staging.h, issue 39):
 * a configuration's files published into a folder as one set (the other
 * chips' files kept as the same inodes, the set's earlier files dropped, the
 * folder's mode kept, nothing left in the staging folder but the other sets'
 * files); a dead run's staging folder and temporaries told from a live one's
 * (process gone, lock free) and removed; atomic_lock_dir on a folder. */
#define _GNU_SOURCE
#include "testutil.h"

#include <fcntl.h>
#include <signal.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "study/stages/staging.h"
#include "base/atomic.h"

static char root[256];

static void put(const char *path, const char *text)
{
    FILE *f = fopen(path, "w");
    assert_non_null(f);
    fputs(text, f);
    fclose(f);
}

static void text_is(const char *path, const char *want)
{
    char buf[64] = "";
    FILE *f = fopen(path, "r");
    assert_non_null(f);
    size_t n = fread(buf, 1, sizeof buf - 1, f);
    buf[n] = '\0';
    fclose(f);
    assert_string_equal(buf, want);
}

static char *at(const char *rel)
{
    static char p[8][512];
    static int k;
    k = (k + 1) % 8;
    snprintf(p[k], sizeof p[k], "%s/%s", root, rel);
    return p[k];
}

static int setup(void **state)
{
    (void)state;
    snprintf(root, sizeof root, "/tmp/npusim-test-staging.%ld", (long)getpid());
    return mkdir(root, 0777);
}

static int teardown(void **state)
{
    (void)state;
    staging_remove(root);
    return 0;
}

/* A process id that is gone: a child that has exited and been reaped. */
static long dead_pid(void)
{
    pid_t p = fork();
    if (p == 0)
        _exit(0);
    waitpid(p, NULL, 0);
    return (long)p;
}

static void test_publish_set_into_a_new_folder(void **state)
{
    (void)state;
    struct npu_err e;
    assert_int_equal(mkdir(at("s1"), 0777), 0);
    assert_int_equal(mkdir(at("s1/pt"), 0777), 0);
    put(at("s1/pt/inference-v5p.csv"), "new all");
    put(at("s1/pt/inference-v5p_decode.json"), "new decode");
    put(at("s1/pt/inference-v5.csv"), "another chip, in flight");   /* "v5" is not "v5p"'s set */
    assert_int_equal(staging_publish_set(at("s1/pt"), at("t1/m/pt"), "inference-v5p", at("s1/.publish"), &e), 0);
    text_is(at("t1/m/pt/inference-v5p.csv"), "new all");
    text_is(at("t1/m/pt/inference-v5p_decode.json"), "new decode");
    assert_int_equal(access(at("t1/m/pt/inference-v5.csv"), F_OK), -1);
    text_is(at("s1/pt/inference-v5.csv"), "another chip, in flight");
    assert_int_equal(access(at("s1/.publish"), F_OK), -1);
}

static void test_publish_set_swaps_an_existing_folder(void **state)
{
    (void)state;
    struct npu_err e;
    assert_int_equal(mkdir(at("s2"), 0777), 0);
    assert_int_equal(mkdir(at("s2/pt"), 0777), 0);
    assert_int_equal(mkdir(at("t2"), 0777), 0);
    assert_int_equal(mkdir(at("t2/pt"), 0750), 0);
    assert_int_equal(chmod(at("t2/pt"), 0750), 0);
    put(at("t2/pt/inference-v6e.csv"), "other chip");
    put(at("t2/pt/inference-v5p.csv"), "old all");
    put(at("t2/pt/inference-v5p_prefill.csv"), "old prefill, not in the new set");
    put(at("t2/pt/notes.txt"), "the user's");
    struct stat before, after;
    assert_int_equal(stat(at("t2/pt/inference-v6e.csv"), &before), 0);
    put(at("s2/pt/inference-v5p.csv"), "new all");
    assert_int_equal(staging_publish_set(at("s2/pt"), at("t2/pt"), "inference-v5p", at("s2/.publish"), &e), 0);
    text_is(at("t2/pt/inference-v5p.csv"), "new all");
    text_is(at("t2/pt/notes.txt"), "the user's");
    assert_int_equal(access(at("t2/pt/inference-v5p_prefill.csv"), F_OK), -1);   /* the set is one run's */
    assert_int_equal(stat(at("t2/pt/inference-v6e.csv"), &after), 0);
    assert_true(after.st_ino == before.st_ino);   /* kept as it was: a link, not a copy */
    assert_int_equal(stat(at("t2/pt"), &after), 0);
    assert_int_equal(after.st_mode & 07777, 0750);
    assert_int_equal(access(at("s2/.publish"), F_OK), -1);
    assert_int_equal(access(at("s2/pt/inference-v5p.csv"), F_OK), -1);
}

static void test_stale_staging_folders(void **state)
{
    (void)state;
    char dead[512], live[512], held[512], other[512];
    long gone = dead_pid();
    snprintf(dead, sizeof dead, "%s.tmp.%ld.0", at("tree"), gone);
    snprintf(live, sizeof live, "%s.tmp.%ld.0", at("tree"), (long)getpid());
    snprintf(held, sizeof held, "%s.tmp.%ld.1", at("tree"), gone);
    snprintf(other, sizeof other, "%s.tmp.%ld.0", at("treetop"), gone);
    assert_int_equal(mkdir(dead, 0777), 0);
    assert_int_equal(mkdir(live, 0777), 0);
    assert_int_equal(mkdir(held, 0777), 0);
    assert_int_equal(mkdir(other, 0777), 0);
    char f[600];
    snprintf(f, sizeof f, "%s/x.csv", dead);
    put(f, "half-written");
    /* The lock of a folder whose process id is gone but whose lock is held
     * (a process on another host of a shared file system). */
    snprintf(f, sizeof f, "%s/%s", held, STAGING_LOCK);
    int fd = open(f, O_RDWR | O_CREAT, 0666);
    assert_true(fd >= 0);
    assert_int_equal(flock(fd, LOCK_EX), 0);
    pid_t child = fork();   /* another process tries the lock: the flock is held for it */
    if (child == 0)
        _exit(staging_clean_stale(at("tree"), "test") == 1 ? 0 : 1);
    int status;
    waitpid(child, &status, 0);
    assert_true(WIFEXITED(status) && WEXITSTATUS(status) == 0);
    close(fd);
    assert_int_equal(access(dead, F_OK), -1);
    assert_int_equal(access(live, F_OK), 0);
    assert_int_equal(access(held, F_OK), 0);
    assert_int_equal(access(other, F_OK), 0);   /* another tree's */
    /* Its lock free now: the next run removes it. */
    assert_int_equal(staging_clean_stale(at("tree"), "test"), 1);
    assert_int_equal(access(held, F_OK), -1);
    char out[512];
    int lock;
    struct npu_err e;
    assert_int_equal(staging_create_locked(at("tree"), out, sizeof out, &lock, &e), 0);
    assert_true(lock >= 0);
    assert_int_equal(staging_clean_stale(at("tree"), "test"), 0);   /* ours: alive */
    staging_remove(out);
    close(lock);
}

static void test_stale_temporaries(void **state)
{
    (void)state;
    char dead[512], live[512], other[512];
    long gone = dead_pid();
    assert_int_equal(mkdir(at("o"), 0777), 0);
    snprintf(dead, sizeof dead, "%s.tmp.%ld.3", at("o/m_c_decode.csv"), gone);
    snprintf(live, sizeof live, "%s.tmp.%ld.1", at("o/m_c_prefill.csv"), (long)getpid());
    snprintf(other, sizeof other, "%s.tmp.%ld.2", at("o/n_c_decode.csv"), gone);
    put(dead, "x");
    put(live, "x");
    put(other, "x");
    put(at("o/m_c.tmp.csv"), "not a temporary's name");
    assert_int_equal(staging_clean_temps(at("o"), "m_c_", "test"), 1);
    assert_int_equal(access(dead, F_OK), -1);
    assert_int_equal(access(live, F_OK), 0);
    assert_int_equal(access(other, F_OK), 0);   /* another prefix */
    assert_int_equal(access(at("o/m_c.tmp.csv"), F_OK), 0);
}

static void test_lock_dir(void **state)
{
    (void)state;
    int fd = atomic_lock_dir(root);
    assert_true(fd >= 0);
    int other = open(root, O_RDONLY | O_DIRECTORY);
    assert_int_equal(flock(other, LOCK_EX | LOCK_NB), -1);   /* held */
    atomic_unlock_dir(fd);
    assert_int_equal(flock(other, LOCK_EX | LOCK_NB), 0);
    close(other);
    assert_int_equal(atomic_lock_dir(at("missing")), -1);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_publish_set_into_a_new_folder),
        cmocka_unit_test(test_publish_set_swaps_an_existing_folder),
        cmocka_unit_test(test_stale_staging_folders),
        cmocka_unit_test(test_stale_temporaries),
        cmocka_unit_test(test_lock_dir),
    };
    return cmocka_run_group_tests(tests, setup, teardown);
}
