/* interrupt.h — SIGINT and SIGTERM for the commands that write trees and
 * sets of files (npusim sweep, npusim run): never killed half-way through
 * a publish, never leaving a staging folder or a temporary behind.
 *
 * Two ways to catch them:
 *  - deferred (sweep): the handler only records the signal; the runner polls
 *    interrupt_flag() between points, stops, cleans up and exits with
 *    interrupt_status() (128 + the signal);
 *  - immediate (run): the handler prints the command's one line and exits
 *    at once, except inside interrupt_hold() ... interrupt_release() (the
 *    files being written), where it only records the signal, for the
 *    command to act on once its files are whole. */
#ifndef NPUSIM_CLI_INTERRUPT_H
#define NPUSIM_CLI_INTERRUPT_H

#include <signal.h>
#include <stdbool.h>

/* Installs the handler for SIGINT and SIGTERM (one ignored on entry, as a
 * background job's SIGINT is, stays ignored). cmd names the command in
 * the immediate mode's line ("npusim CMD: interrupted by SIGINT; no output
 * was written"). */
void interrupt_catch(const char *cmd, bool immediate);
/* Puts back the actions found before (a suite's later stages are not ours). */
void interrupt_restore(void);
/* The signal caught so far (0: none), as a flag a runner may poll. */
const volatile sig_atomic_t *interrupt_flag(void);
/* "SIGINT" or "SIGTERM" for a caught signal. */
const char *interrupt_name(int sig);
/* The exit status of a command stopped by sig: 128 + sig (130, 143). */
int interrupt_status(int sig);
/* Immediate mode: defer the exit while files are being written ... */
void interrupt_hold(void);
/* ... and stop deferring: returns the signal that came meanwhile, or 0.
 * Signals after it are recorded only (interrupt_flag): the outputs are
 * written, the command ends soon and says it was interrupted. */
int interrupt_release(void);

#endif
