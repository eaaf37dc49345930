/* timeline.c — a serving run as Chrome trace-event JSON (see timeline.h). */
#include "serving/timeline.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

/* Microseconds with nanosecond decimals. */
static void us(char *b, size_t n, int64_t ns)
{
    snprintf(b, n, "%lld.%03lld", (long long)(ns / 1000), (long long)(ns % 1000));
}

/* Room for one more event, else counted as dropped. */
static bool room(struct serving_timeline *t)
{
    if (t->events >= t->max_events) {
        t->dropped++;
        return false;
    }
    fputs(t->events++ ? ",\n" : "\n", t->f.f);
    return true;
}

/* Names track tid of process pid (label: its name, no quote in it). */
static void name_track(struct serving_timeline *t, int pid, int64_t tid, const char *label)
{
    if (room(t))
        fprintf(t->f.f, "{\"name\":\"thread_name\",\"ph\":\"M\",\"pid\":%d,\"tid\":%lld,\"args\":{\"name\":\"%s\"}}",
                pid, (long long)tid, label);
}

int serving_timeline_open(struct serving_timeline *t, const char *path, const char *title, struct npu_err *e)
{
    memset(t, 0, sizeof *t);
    t->max_events = SERVING_TIMELINE_MAX_EVENTS;
    char safe[600];   /* the title inside a JSON string: no quote or backslash, no control character */
    size_t k = 0;
    for (const char *c = title; *c && k + 1 < sizeof safe; c++)
        safe[k++] = *c == '"' || *c == '\\' || (unsigned char)*c < 0x20 ? '_' : *c;
    safe[k] = '\0';
    if (atomic_open(&t->f, path, e))
        return -1;
    fputs("{\"displayTimeUnit\":\"ms\",\"traceEvents\":[", t->f.f);
    static const char *const procs[2] = { "replicas", "requests" };
    for (int p = 0; p < 2; p++)
        if (room(t))
            fprintf(t->f.f, "{\"name\":\"process_name\",\"ph\":\"M\",\"pid\":%d,\"args\":{\"name\":\"%s (%s)\"}}",
                    p + 1, procs[p], safe);
    return 0;
}

void serving_timeline_pass(struct serving_timeline *t, const struct serving_pass_record *p)
{
    /* a track per replica, or per microbatch of a pipelined one (its
     * passes overlap), named in order as they first appear */
    int m = p->microbatches > 0 ? p->microbatches : 1;
    int64_t tid = (int64_t)p->replica * m + p->microbatch;
    for (char label[64]; t->replicas <= tid; t->replicas++) {
        if (m > 1)
            snprintf(label, sizeof label, "replica %lld microbatch %lld", (long long)(t->replicas / m),
                     (long long)(t->replicas % m));
        else
            snprintf(label, sizeof label, "replica %lld", (long long)t->replicas);
        name_track(t, 1, t->replicas, label);
    }
    if (!room(t))
        return;
    char ts[32], dur[32], name[96];
    us(ts, sizeof ts, p->start_ns);
    us(dur, sizeof dur, p->duration_ns);
    if (p->prefill_tokens && p->decode_tokens)
        snprintf(name, sizeof name, "prefill %lld + decode %lld", (long long)p->prefill_tokens,
                 (long long)p->decode_tokens);
    else
        snprintf(name, sizeof name, "%s %lld", p->prefill_tokens ? "prefill" : "decode",
                 (long long)(p->prefill_tokens ? p->prefill_tokens : p->decode_tokens));
    fprintf(t->f.f, "{\"name\":\"%s\",\"cat\":\"pass\",\"ph\":\"X\",\"pid\":1,\"tid\":%lld,\"ts\":%s,\"dur\":%s,"
                    "\"args\":{\"prefill_tokens\":%lld,\"decode_tokens\":%lld,\"requests\":%lld,\"kv_blocks_used\":%lld,"
                    "\"kv_blocks_total\":%lld,\"energy_J\":%.6f}}",
            name, (long long)tid, ts, dur, (long long)p->prefill_tokens, (long long)p->decode_tokens,
            (long long)p->requests, (long long)p->kv_blocks_used, (long long)p->kv_blocks_total,
            isfinite(p->energy_J) ? p->energy_J : 0);
}

void serving_timeline_request(struct serving_timeline *t, const struct serving_record *r, double energy_J)
{
    int64_t tid = r->id;
    char label[40];
    snprintf(label, sizeof label, "request %lld", (long long)r->id);
    name_track(t, 2, tid, label);
    char args[256], energy[48] = "";
    if (isfinite(energy_J))
        snprintf(energy, sizeof energy, ",\"energy_J\":%.6f", energy_J);
    snprintf(args, sizeof args, "{\"input_tokens\":%lld,\"output_tokens\":%lld,\"replica\":%d,\"preemptions\":%lld%s}",
             (long long)r->input_tokens, (long long)r->output_tokens, r->replica, (long long)r->preemptions, energy);
    char a[32], b[32];
    if (r->rejected) {
        us(a, sizeof a, r->arrival_ns);
        if (room(t))
            fprintf(t->f.f, "{\"name\":\"rejected\",\"ph\":\"i\",\"s\":\"t\",\"pid\":2,\"tid\":%lld,\"ts\":%s,\"args\":%s}",
                    (long long)tid, a, args);
        return;
    }
    const struct { const char *name; int64_t from, to; } parts[] = {
        { "queued", r->arrival_ns, r->first_scheduled_ns },
        { "prefill", r->first_scheduled_ns, r->first_token_ns },
        { "decode", r->first_token_ns, r->finish_ns },
    };
    for (size_t i = 0; i < sizeof parts / sizeof parts[0]; i++) {
        if (parts[i].to <= parts[i].from || !room(t))
            continue;
        us(a, sizeof a, parts[i].from);
        us(b, sizeof b, parts[i].to - parts[i].from);
        fprintf(t->f.f, "{\"name\":\"%s\",\"cat\":\"request\",\"ph\":\"X\",\"pid\":2,\"tid\":%lld,\"ts\":%s,\"dur\":%s,"
                        "\"args\":%s}", parts[i].name, (long long)tid, a, b, args);
    }
}

int serving_timeline_close(struct serving_timeline *t, struct npu_err *e)
{
    fprintf(t->f.f, "\n],\"metadata\":{\"events\":%lld,\"events_left_out\":%lld,\"max_events\":%lld}}\n",
            (long long)t->events, (long long)t->dropped, (long long)t->max_events);
    return ferror(t->f.f) ? npu_errf(e, "%s: write error", t->f.path) : 0;
}
