/* interrupt.c — SIGINT and SIGTERM for the writers (see interrupt.h).
 *
 * The handler touches only sig_atomic_t flags and, in the immediate mode,
 * write(2) and _exit(2), the async-signal-safe calls; its line is formed
 * beforehand. No data structure beyond those flags. */
#include "cli/interrupt.h"

#include <stdio.h>
#include <string.h>
#include <unistd.h>

static volatile sig_atomic_t caught, held, immediate;
static char line[2][160];   /* the immediate mode's line: [0] SIGINT, [1] SIGTERM */
static size_t line_len[2];
static struct sigaction before[2];   /* the dispositions interrupt_restore puts back */
static bool installed;

static void on_signal(int sig)
{
    caught = sig;
    if (immediate && !held) {
        int k = sig == SIGTERM;
        ssize_t w = write(STDERR_FILENO, line[k], line_len[k]);
        (void)w;
        _exit(128 + sig);
    }
}

const char *interrupt_name(int sig) { return sig == SIGTERM ? "SIGTERM" : sig == SIGINT ? "SIGINT" : "a signal"; }

int interrupt_status(int sig) { return 128 + sig; }

void interrupt_catch(const char *cmd, bool immediate_exit)
{
    const int sigs[2] = { SIGINT, SIGTERM };
    for (int k = 0; k < 2; k++) {
        int n = snprintf(line[k], sizeof line[k], "npusim %s: interrupted by %s; no output was written\n", cmd,
                         interrupt_name(sigs[k]));
        line_len[k] = n > 0 && (size_t)n < sizeof line[k] ? (size_t)n : strlen(line[k]);
    }
    caught = 0;
    held = 0;
    immediate = immediate_exit;
    struct sigaction sa;
    memset(&sa, 0, sizeof sa);
    sa.sa_handler = on_signal;
    sigemptyset(&sa.sa_mask);
    sa.sa_flags = SA_RESTART;   /* the writers' system calls go on; the runner polls the flag */
    for (int k = 0; k < 2; k++) {
        /* A signal ignored on entry (a background job's SIGINT, nohup) stays
         * ignored, as a shell's commands do. */
        sigaction(sigs[k], NULL, &before[k]);
        if (before[k].sa_handler != SIG_IGN)
            sigaction(sigs[k], &sa, NULL);
    }
    installed = true;
}

void interrupt_restore(void)
{
    const int sigs[2] = { SIGINT, SIGTERM };
    for (int k = 0; installed && k < 2; k++)
        sigaction(sigs[k], &before[k], NULL);
    installed = false;
    immediate = 0;
}

const volatile sig_atomic_t *interrupt_flag(void) { return &caught; }

void interrupt_hold(void) { held = 1; }

int interrupt_release(void)
{
    immediate = 0;   /* the files are written: a later signal is only recorded, not
                      * answered with "no output was written" */
    held = 0;
    return caught;
}
