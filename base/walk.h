/* walk.h — the files below a folder whose names end in a suffix, for the
 * readers of results trees (`npusim report`, the API's stages). Symbolic
 * links are not followed (a tree with a loop ends), the depth and the count
 * are bounded, and sort gives the same order on every machine.
 *
 * Main data structure: struct file_list, the paths found (malloc'ed). */
#ifndef NPUSIM_BASE_WALK_H
#define NPUSIM_BASE_WALK_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct file_list {
    char **path;        /* "<dir>/<sub>/<name>", malloc'ed each */
    size_t n, cap;
    bool full;          /* max_files were found: the walk stopped adding */
};

/* The limits of a walk: folders deep below dir, files kept, bytes a file
 * may hold (larger ones are skipped). */
struct walk_limits {
    int max_depth;
    size_t max_files;
    int64_t max_bytes;
};

/* Adds every regular file below dir whose name ends in suffix (names
 * starting with '.' skipped) to l, in readdir order. 0, or -1 out of
 * memory. A folder that cannot be read adds nothing. */
int file_list_walk(struct file_list *l, const char *dir, const char *suffix, const struct walk_limits *lim);
/* Adds one path (counted against max_files, setting full). 0 or -1. */
int file_list_add(struct file_list *l, const char *path, size_t max_files);
/* Sorts the paths bytewise. */
void file_list_sort(struct file_list *l);
void file_list_free(struct file_list *l);

#endif
