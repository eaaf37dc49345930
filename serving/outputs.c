/* outputs.c — a serving run's files (see outputs.h). */
#include "serving/outputs.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

static void fmt_s(char *b, size_t n, int64_t ns)
{
    if (ns < 0)
        b[0] = '\0';
    else
        snprintf(b, n, "%.9f", (double)ns / 1e9);
}

static int dir_open(struct serving_files *f, const char *dir, struct npu_err *e)
{
    char path[4200];
    if (make_dirs(dir, e))
        return -1;
    if (!(f->stage = tmpfile()))
        return npu_errf(e, "%s: cannot make a temporary file for requests.csv's rows", dir);
    snprintf(path, sizeof path, "%s/requests.csv", dir);
    if (atomic_open(&f->req, path, e)) {
        fclose(f->stage);
        return -1;
    }
    snprintf(path, sizeof path, "%s/iterations.csv", dir);
    if (atomic_open(&f->iter, path, e)) {
        atomic_abort(&f->req);
        fclose(f->stage);
        return -1;
    }
    fputs("id,arrival_s,first_token_s,finish_s,input_tokens,output_tokens,ttft_ms,tpot_ms,e2e_s,queue_s,preemptions,"
          "replica,status,energy_J\n", f->req.f);
    fputs("replica,start_s,duration_ms,prefill_tokens,decode_tokens,requests,kv_blocks_used,kv_blocks_total,microbatch\n",
          f->iter.f);
    f->dir = dir;
    return 0;
}

int serving_files_open(struct serving_files *f, const char *dir, const char *timeline, const char *title,
                       struct npu_err *e)
{
    memset(f, 0, sizeof *f);
    /* the timeline first: it makes no folder, so a bad path leaves none behind */
    if (timeline) {
        if (serving_timeline_open(&f->tl, timeline, title, e))
            return -1;
        f->timeline = true;
    }
    if (dir && dir_open(f, dir, e)) {
        if (f->timeline)
            atomic_abort(&f->tl.f);
        return -1;
    }
    f->open = dir || timeline;
    return 0;
}

int serving_files_request(struct serving_files *f, const struct serving_record *r, struct npu_err *e)
{
    if (f->timeline)
        serving_timeline_request(&f->tl, r, NAN);
    if (!f->dir)
        return 0;
    char a[32], fi[32], fin[32], ttft[32] = "", tpot[32] = "", e2e[32] = "", q[32] = "", rep[24] = "";
    fmt_s(a, sizeof a, r->arrival_ns);
    fmt_s(fi, sizeof fi, r->rejected ? -1 : r->first_token_ns);
    fmt_s(fin, sizeof fin, r->rejected ? -1 : r->finish_ns);
    if (!r->rejected) {
        snprintf(ttft, sizeof ttft, "%.6f", (double)(r->first_token_ns - r->arrival_ns) / 1e6);
        if (r->output_tokens > 1)
            snprintf(tpot, sizeof tpot, "%.6f",
                     (double)(r->finish_ns - r->first_token_ns) / 1e6 / (double)(r->output_tokens - 1));
        fmt_s(e2e, sizeof e2e, r->finish_ns - r->arrival_ns);
        fmt_s(q, sizeof q, r->first_scheduled_ns - r->arrival_ns);
    }
    if (r->replica >= 0)
        snprintf(rep, sizeof rep, "%d", r->replica);
    if (fprintf(f->stage, "%lld,%s,%s,%s,%lld,%lld,%s,%s,%s,%s,%lld,%s,%s\n", (long long)r->id, a, fi, fin,
                (long long)r->input_tokens, (long long)r->output_tokens, ttft, tpot, e2e, q,
                (long long)r->preemptions, rep, r->rejected ? "rejected" : "ok") < 0)
        return npu_errf(e, "%s: write error (its staging file)", f->req.path);
    return 0;
}

int serving_files_pass(struct serving_files *f, const struct serving_pass_record *p, struct npu_err *e)
{
    if (f->timeline)
        serving_timeline_pass(&f->tl, p);
    if (!f->dir)
        return 0;
    char st[32];
    fmt_s(st, sizeof st, p->start_ns);
    if (fprintf(f->iter.f, "%d,%s,%.6f,%lld,%lld,%lld,%lld,%lld,%d\n", p->replica, st, (double)p->duration_ns / 1e6,
                (long long)p->prefill_tokens, (long long)p->decode_tokens, (long long)p->requests,
                (long long)p->kv_blocks_used, (long long)p->kv_blocks_total, p->microbatch) < 0)
        return npu_errf(e, "%s: write error", f->iter.path);
    return 0;
}

/* The staged rows, each with its energy, into requests.csv. */
static int copy_rows(struct serving_files *f, const double *energy_J, size_t n, struct npu_err *e)
{
    if (fflush(f->stage) || fseek(f->stage, 0, SEEK_SET))
        return npu_errf(e, "%s: cannot read its staged rows back", f->req.path);
    char line[1024];
    size_t k = 0;
    while (fgets(line, sizeof line, f->stage)) {
        size_t len = strlen(line);
        if (len == 0 || line[len - 1] != '\n' || k >= n)
            return npu_errf(e, "internal: %s: staged row %zu is malformed", f->req.path, k + 1);
        line[len - 1] = '\0';
        if (fprintf(f->req.f, "%s,%.6f\n", line, energy_J[k++]) < 0)
            return npu_errf(e, "%s: write error", f->req.path);
    }
    if (ferror(f->stage) || k != n)
        return npu_errf(e, "internal: %s: %zu rows staged, %zu expected", f->req.path, k, n);
    return 0;
}

int serving_files_commit(struct serving_files *f, const double *energy_J, size_t n, const cJSON *summary,
                         struct npu_err *e)
{
    struct atomic_file sum;
    bool sum_open = false;
    char *text = NULL;
    int rc = 0;
    if (f->dir) {
        char path[4200];
        snprintf(path, sizeof path, "%s/summary.json", f->dir);
        rc = copy_rows(f, energy_J, n, e);
        if (!rc && !(text = cJSON_Print(summary)))
            rc = npu_errf(e, "serving: out of memory");
        if (!rc && !(rc = atomic_open(&sum, path, e) ? -1 : 0)) {
            sum_open = true;
            fprintf(sum.f, "%s\n", text);
        }
    }
    if (!rc && f->timeline)
        rc = serving_timeline_close(&f->tl, e);
    cJSON_free(text);
    if (rc) {
        if (sum_open)
            atomic_abort(&sum);
        serving_files_abort(f);
        return -1;
    }
    struct atomic_file all[4];
    int k = 0;
    if (f->dir) {
        all[k++] = f->req;
        all[k++] = f->iter;
        all[k++] = sum;
    }
    if (f->timeline)
        all[k++] = f->tl.f;
    if (f->stage)
        fclose(f->stage);
    f->stage = NULL;
    f->open = false;   /* atomic_commit_all commits or removes every one */
    return atomic_commit_all(all, k, e);
}

void serving_files_abort(struct serving_files *f)
{
    if (!f->open)
        return;
    if (f->dir) {
        atomic_abort(&f->req);
        atomic_abort(&f->iter);
    }
    if (f->stage)
        fclose(f->stage);
    f->stage = NULL;
    if (f->timeline)
        atomic_abort(&f->tl.f);
    f->open = false;
}

/* ---- the rows in memory, as JSON columns ---- */

void serving_rows_free(struct serving_rows *r)
{
    free(r->req);
    free(r->energy_J);
    free(r->pass);
    memset(r, 0, sizeof *r);
}


static void put(cJSON *col, bool ok, double v)
{
    cJSON_AddItemToArray(col, ok && isfinite(v) ? cJSON_CreateNumber(v) : cJSON_CreateNull());
}

cJSON *serving_rows_json(const struct serving_rows *r)
{
    static const char *const rq[] = { "id", "arrival_s", "first_token_s", "finish_s", "input_tokens", "output_tokens",
                                      "ttft_ms", "tpot_ms", "e2e_s", "queue_s", "preemptions", "replica", "status",
                                      "energy_J" };
    static const char *const it[] = { "replica", "start_s", "duration_ms", "prefill_tokens", "decode_tokens",
                                      "requests", "kv_blocks_used", "kv_blocks_total", "energy_J", "microbatch" };
    cJSON *o = cJSON_CreateObject(), *q = cJSON_AddObjectToObject(o, "requests");
    cJSON *p = cJSON_AddObjectToObject(o, "iterations"), *c[14];
    for (size_t i = 0; i < 14; i++)
        c[i] = cJSON_AddArrayToObject(q, rq[i]);
    for (size_t k = 0; k < r->nreq; k++) {
        const struct serving_record *x = &r->req[k];
        bool ok = !x->rejected;
        put(c[0], true, (double)x->id);
        put(c[1], true, (double)x->arrival_ns / 1e9);
        put(c[2], ok, (double)x->first_token_ns / 1e9);
        put(c[3], ok, (double)x->finish_ns / 1e9);
        put(c[4], true, (double)x->input_tokens);
        put(c[5], true, (double)x->output_tokens);
        put(c[6], ok, (double)(x->first_token_ns - x->arrival_ns) / 1e6);
        put(c[7], ok && x->output_tokens > 1,
            (double)(x->finish_ns - x->first_token_ns) / 1e6 / (double)(x->output_tokens - 1));
        put(c[8], ok, (double)(x->finish_ns - x->arrival_ns) / 1e9);
        put(c[9], ok, (double)(x->first_scheduled_ns - x->arrival_ns) / 1e9);
        put(c[10], true, (double)x->preemptions);
        put(c[11], x->replica >= 0, (double)x->replica);
        cJSON_AddItemToArray(c[12], cJSON_CreateString(ok ? "ok" : "rejected"));
        put(c[13], r->energy_J != NULL, r->energy_J ? r->energy_J[k] : 0);
    }
    for (size_t i = 0; i < 10; i++)
        c[i] = cJSON_AddArrayToObject(p, it[i]);
    for (size_t k = 0; k < r->npass; k++) {
        const struct serving_pass_record *x = &r->pass[k];
        const double v[10] = { (double)x->replica, (double)x->start_ns / 1e9, (double)x->duration_ns / 1e6,
                               (double)x->prefill_tokens, (double)x->decode_tokens, (double)x->requests,
                               (double)x->kv_blocks_used, (double)x->kv_blocks_total, x->energy_J,
                               (double)x->microbatch };
        for (size_t i = 0; i < 10; i++)
            put(c[i], true, v[i]);
    }
    return o;
}
