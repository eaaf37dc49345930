/* lists.h — command-line value parsing shared by the subcommands: comma lists
 * ("llama3-8b,llama3-70b", "1,4,16") and strict numbers (the whole string must
 * be the number). Main data structure: struct list, the items of one comma
 * list pointing into one owned copy of the text. */
#ifndef NPUSIM_TRACES_LISTS_H
#define NPUSIM_TRACES_LISTS_H

#include <stdint.h>

#define MAX_LIST 256

struct list {
    char *item[MAX_LIST];
    int n;
    char *buf;
};

/* Splits a non-empty comma list (at most MAX_LIST items) into l; returns 0,
 * or -1 (empty, too long, out of memory). Free with list_free. */
int list_split(const char *s, struct list *l);
void list_free(struct list *l);
/* Splits s in place at commas into out (at most max); returns the count or -1. */
int split_inplace(char *s, char **out, int max);
/* Drops the later copies of repeated items (order kept); returns the new count. */
int drop_repeats(char **item, int n);
/* Strict decimal integer / finite double; 0 on success, -1 otherwise. */
int parse_i64_strict(const char *s, int64_t *v);
int parse_f64_strict(const char *s, double *v);

#endif
