/* lists.c — comma lists and strict numbers for the command line (see lists.h). */
#include "base/lists.h"

#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

int split_inplace(char *s, char **out, int max)
{
    int n = 0;
    for (char *p = s;;) {
        char *comma = strchr(p, ',');
        if (comma)
            *comma = '\0';
        if (!*p || n == max)   /* an empty item ("1,,2", "1,", "") or too many */
            return -1;
        out[n++] = p;
        if (!comma)
            return n;
        p = comma + 1;
    }
}

int drop_repeats(char **item, int n)
{
    int k = 0;
    for (int i = 0; i < n; i++) {
        int j = 0;
        while (j < k && strcmp(item[j], item[i]) != 0)
            j++;
        if (j == k)
            item[k++] = item[i];
    }
    return k;
}

int list_split(const char *s, struct list *l)
{
    l->n = 0;
    if (!(l->buf = strdup(s)))
        return -1;
    l->n = split_inplace(l->buf, l->item, MAX_LIST);
    if (l->n > 0)
        return 0;
    list_free(l);
    return -1;
}

void list_free(struct list *l)
{
    free(l->buf);
    l->buf = NULL;
    l->n = 0;
}

int parse_i64_strict(const char *s, int64_t *v)
{
    char *end;
    errno = 0;
    long long x = strtoll(s, &end, 10);
    if (end == s || *end || errno)
        return -1;
    *v = x;
    return 0;
}

int parse_f64_strict(const char *s, double *v)
{
    char *end;
    errno = 0;
    double x = strtod(s, &end);
    if (end == s || *end || errno || !isfinite(x))
        return -1;
    *v = x;
    return 0;
}
