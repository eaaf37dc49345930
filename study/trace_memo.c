/* trace_memo.c — held traces keyed by file identity (see trace_memo.h).
 *
 * Main data structure: a chained hash index over (device, inode) of the
 * held files, one malloc'ed entry each. A trace handed over leaves the index
 * (its ops go to the reader, moved, not copied; the entry is freed), and so
 * does a file whose inode number a new file has recycled; size and
 * modification time tell a changed file apart. */
#include "study/trace_memo.h"

#include <pthread.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

struct entry {
    dev_t dev;
    ino_t ino;
    off_t size;
    struct timespec mtime;
    bool json;                 /* a printed statistics file: no ops */
    void *facts;               /* json: what readers take from it (or NULL) */
    size_t facts_len;
    char *text;                /* json: the file's text, st_size bytes */
    struct trace t;            /* empty once handed over */
    int left;                  /* readers still to come: copies to all but the last */
    size_t bytes;              /* counted against the budget while held */
    struct entry *next;        /* hash chain */
};

static struct {
    pthread_mutex_t lock;
    bool on, recording;
    int readers;               /* of each trace held from now on (trace_memo_readers) */
    bool stats;                /* statistics files are held (trace_memo_hold_stats) */
    size_t budget, bytes;
    struct entry **bucket;     /* power-of-two count */
    size_t nbucket, nlive;     /* entries in the index */
    size_t held, hits, misses; /* for trace_memo_stats */
    size_t json_hits, json_misses;
} memo = { .lock = PTHREAD_MUTEX_INITIALIZER };

static size_t slot_of(dev_t dev, ino_t ino, size_t nbucket)
{
    uint64_t h = ((uint64_t)ino * 0x9E3779B97F4A7C15ull) ^ (uint64_t)dev;
    return (size_t)(h ^ (h >> 29)) & (nbucket - 1);
}

static struct entry **find_link(dev_t dev, ino_t ino)
{
    struct entry **p = &memo.bucket[slot_of(dev, ino, memo.nbucket)];
    while (*p && ((*p)->dev != dev || (*p)->ino != ino))
        p = &(*p)->next;
    return p;
}

static bool same_file(const struct entry *x, const struct stat *st)
{
    return x->size == st->st_size && x->mtime.tv_sec == st->st_mtim.tv_sec &&
           x->mtime.tv_nsec == st->st_mtim.tv_nsec;
}

static void entry_free(struct entry *x)
{
    trace_free(&x->t);
    free(x->facts);
    free(x->text);
    free(x);
}

/* Drops the entry *link points to from the index: its bytes are free again. */
static void unlink_entry(struct entry **link)
{
    struct entry *x = *link;
    *link = x->next;
    memo.bytes -= x->bytes;
    memo.nlive--;
    entry_free(x);
}

/* Room for one more entry: at load 1, a doubled index. */
static bool make_room(void)
{
    if (memo.nlive + 1 > memo.nbucket) {
        size_t n = memo.nbucket ? 2 * memo.nbucket : 256;
        struct entry **b = calloc(n, sizeof *b);
        if (!b)
            return false;
        for (size_t i = 0; i < memo.nbucket; i++)
            for (struct entry *x = memo.bucket[i], *next; x; x = next) {
                next = x->next;
                size_t s = slot_of(x->dev, x->ino, n);
                x->next = b[s];
                b[s] = x;
            }
        free(memo.bucket);
        memo.bucket = b;
        memo.nbucket = n;
    }
    return true;
}

static size_t trace_bytes(const struct trace *t)
{
    size_t n = t->n * sizeof *t->ops;
    for (size_t i = 0; i < t->n; i++) {
        const struct op *op = &t->ops[i];
        const char *s[] = { op->description, op->config, op->name, op->opcode, op->in_shapes,
                            op->out_shape, op->parsed_op_type, op->dim_labels, op->tile_shapes };
        for (size_t k = 0; k < sizeof s / sizeof s[0]; k++)
            n += strlen(s[k]) + 1;
    }
    return n;
}

void trace_memo_begin(size_t budget_bytes)
{
    trace_memo_end();
    pthread_mutex_lock(&memo.lock);
    memo.on = true;
    memo.readers = 1;
    memo.stats = true;
    memo.budget = budget_bytes;
    pthread_mutex_unlock(&memo.lock);
}

void trace_memo_readers(int n)
{
    pthread_mutex_lock(&memo.lock);
    memo.readers = n < 0 ? 0 : n;
    pthread_mutex_unlock(&memo.lock);
}

void trace_memo_hold_stats(bool on)
{
    pthread_mutex_lock(&memo.lock);
    memo.stats = on;
    pthread_mutex_unlock(&memo.lock);
}

void trace_memo_record(bool on)
{
    pthread_mutex_lock(&memo.lock);
    memo.recording = on && memo.on;
    pthread_mutex_unlock(&memo.lock);
}

bool trace_memo_recording(void)
{
    pthread_mutex_lock(&memo.lock);
    bool on = memo.recording;
    pthread_mutex_unlock(&memo.lock);
    return on;
}

void trace_memo_end(void)
{
    pthread_mutex_lock(&memo.lock);
    for (size_t i = 0; i < memo.nbucket; i++)
        while (memo.bucket[i])
            unlink_entry(&memo.bucket[i]);
    free(memo.bucket);
    memo.bucket = NULL;
    memo.nbucket = 0;
    memo.on = memo.recording = false;
    memo.budget = memo.bytes = memo.held = memo.hits = memo.misses = memo.json_hits = memo.json_misses = 0;
    pthread_mutex_unlock(&memo.lock);
}

/* Holds x for the file st (ops or not); frees it when it cannot be held. */
static void hold(struct entry *x, const struct stat *st)
{
    x->dev = st->st_dev;
    x->ino = st->st_ino;
    x->size = st->st_size;
    x->mtime = st->st_mtim;
    size_t bytes = x->bytes = sizeof *x + trace_bytes(&x->t) + x->facts_len + (x->text ? (size_t)st->st_size : 0);
    pthread_mutex_lock(&memo.lock);
    x->left = memo.readers;
    bool keep = memo.recording && memo.bytes + bytes <= memo.budget && make_room();
    if (keep) {
        struct entry **link = find_link(x->dev, x->ino);
        if (*link)                       /* a recycled inode: the old file is gone */
            unlink_entry(link);
        size_t s = slot_of(x->dev, x->ino, memo.nbucket);
        x->next = memo.bucket[s];
        memo.bucket[s] = x;
        memo.nlive++;
        memo.held++;
        memo.bytes += bytes;
    }
    pthread_mutex_unlock(&memo.lock);
    if (!keep)
        entry_free(x);
}

void trace_memo_put(const struct stat *st, const struct trace *t, const struct trace_csv_opts *o)
{
    pthread_mutex_lock(&memo.lock);
    bool wanted = memo.recording && memo.readers > 0;
    pthread_mutex_unlock(&memo.lock);
    struct entry *x = wanted ? calloc(1, sizeof *x) : NULL;
    if (!x)
        return;   /* not recording, no reader to come, or out of memory: only speed is lost */
    trace_init(&x->t);
    trace_csv_readback(&x->t, t, o);
    hold(x, st);
}

void trace_memo_put_json(const struct stat *st, const void *facts, size_t n, char *text)
{
    pthread_mutex_lock(&memo.lock);
    bool wanted = memo.recording && memo.stats;
    pthread_mutex_unlock(&memo.lock);
    /* The file's bytes, or not held (a gzipped file's are not the text). */
    bool whole = wanted && text && strlen(text) == (size_t)st->st_size;
    struct entry *x = whole ? calloc(1, sizeof *x) : NULL;
    if (!x) {
        free(text);
        return;
    }
    x->json = true;
    x->text = text;
    if (facts && n && (x->facts = malloc(n))) {
        memcpy(x->facts, facts, n);
        x->facts_len = n;
    }
    hold(x, st);
}

/* Stats path for held() when anything is held: outside the lock, so that
 * readers on other threads do not wait for each other's system calls. */
static bool stat_if_held(const char *path, struct stat *st)
{
    pthread_mutex_lock(&memo.lock);
    bool any = memo.nlive > 0;
    pthread_mutex_unlock(&memo.lock);
    return any && strcmp(path, "-") != 0 && stat(path, st) == 0 && S_ISREG(st->st_mode);
}

/* The held entry of the file st describes (stat_if_held), unchanged since it
 * was held, or NULL. Call with the lock held. */
static const struct entry *held(bool found, const struct stat *st)
{
    if (!found || !memo.nlive)
        return NULL;
    const struct entry *x = *find_link(st->st_dev, st->st_ino);
    return x && same_file(x, st) ? x : NULL;
}

char *trace_memo_json_text(const char *path, size_t *len, void *facts, size_t n, bool *got_facts)
{
    struct stat st;
    bool found = stat_if_held(path, &st);
    char *text = found ? malloc((size_t)st.st_size + 1) : NULL;   /* outside the lock */
    pthread_mutex_lock(&memo.lock);
    const struct entry *x = held(found, &st);
    if (!x || !x->json) {
        free(text);
        text = NULL;
    }
    if (text) {
        memcpy(text, x->text, (size_t)st.st_size);
        text[st.st_size] = '\0';
        *len = (size_t)st.st_size;
    }
    bool got = text && facts && x->facts && x->facts_len == n;
    if (got)
        memcpy(facts, x->facts, n);
    if (memo.on)
        ++*(text ? &memo.json_hits : &memo.json_misses);
    pthread_mutex_unlock(&memo.lock);
    if (got_facts)
        *got_facts = got;
    return text;
}

int trace_memo_read(struct trace *t, const char *path, struct npu_err *e)
{
    struct stat st;
    struct trace got;
    trace_init(&got);
    bool found = stat_if_held(path, &st);
    pthread_mutex_lock(&memo.lock);
    const struct entry *x = held(found, &st);
    bool hit = x && !x->json;
    if (hit && x->left > 1) {
        /* A copy (sharing the strings); the last reader takes the ops. */
        struct entry **link = find_link(x->dev, x->ino);
        hit = trace_append(&got, &(*link)->t) == 0;
        if (hit)
            (*link)->left--;
        else
            trace_free(&got);
    } else if (hit) {
        /* Handed over: its ops moved out, the entry out of the index. */
        struct entry **link = find_link(x->dev, x->ino);
        got = (*link)->t;
        trace_init(&(*link)->t);
        unlink_entry(link);
    }
    if (hit) {
        memo.hits++;
    } else {
        memo.misses += memo.on;
    }
    pthread_mutex_unlock(&memo.lock);
    if (!hit)
        return trace_read_csv(t, path, e);
    if (t->n == 0) {
        bool lean = t->lean;
        trace_free(t);
        *t = got;
        t->lean = lean;
    } else {
        trace_append(t, &got);
        trace_free(&got);
    }
    return 0;
}

struct trace_memo_stats trace_memo_stats(void)
{
    pthread_mutex_lock(&memo.lock);
    struct trace_memo_stats s = { memo.held, memo.hits, memo.misses, memo.bytes, memo.json_hits, memo.json_misses };
    pthread_mutex_unlock(&memo.lock);
    return s;
}
