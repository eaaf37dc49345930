/* walk.c — the files below a folder (see walk.h). Main data structure:
 * struct file_list, grown by doubling. */
#include "base/walk.h"

#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

int file_list_add(struct file_list *l, const char *path, size_t max_files)
{
    if (l->n >= max_files) {
        l->full = true;
        return 0;
    }
    if (l->n == l->cap) {
        size_t cap = l->cap ? 2 * l->cap : 256;
        char **p = realloc(l->path, cap * sizeof *p);
        if (!p)
            return -1;
        l->path = p, l->cap = cap;
    }
    if (!(l->path[l->n] = strdup(path)))
        return -1;
    l->n++;
    return 0;
}

static bool ends_with(const char *s, const char *tail)
{
    size_t n = strlen(s), t = strlen(tail);
    return n >= t && !strcmp(s + n - t, tail);
}

static int walk(struct file_list *l, const char *dir, const char *suffix, const struct walk_limits *lim, int depth)
{
    DIR *d = depth < lim->max_depth ? opendir(dir) : NULL;
    if (!d)
        return 0;
    int rc = 0;
    for (struct dirent *de; !rc && (de = readdir(d));) {
        if (de->d_name[0] == '.')
            continue;
        char path[4096];
        if ((size_t)snprintf(path, sizeof path, "%s/%s", dir, de->d_name) >= sizeof path)
            continue;
        struct stat st;
        if (lstat(path, &st))
            continue;
        if (S_ISDIR(st.st_mode))
            rc = walk(l, path, suffix, lim, depth + 1);
        else if (S_ISREG(st.st_mode) && ends_with(path, suffix) && st.st_size <= lim->max_bytes)
            rc = file_list_add(l, path, lim->max_files);
    }
    closedir(d);
    return rc;
}

int file_list_walk(struct file_list *l, const char *dir, const char *suffix, const struct walk_limits *lim)
{
    return walk(l, dir, suffix, lim, 0);
}

static int by_path(const void *a, const void *b) { return strcmp(*(char *const *)a, *(char *const *)b); }

void file_list_sort(struct file_list *l)
{
    if (l->n > 1)
        qsort(l->path, l->n, sizeof *l->path, by_path);
}

void file_list_free(struct file_list *l)
{
    for (size_t i = 0; i < l->n; i++)
        free(l->path[i]);
    free(l->path);
    memset(l, 0, sizeof *l);
}
