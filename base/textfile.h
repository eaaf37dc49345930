/* textfile.h — a whole text file or stream read into memory, the one way
 * every reader of ours does it (configs, strategies, sweep specs, suite
 * files, statistics files). Traces have their own reader (gzip, line by
 * line: traces/trace_csv.h).
 *
 * Messages name the file: "<path>: cannot open: <reason>", "<path>: read
 * error: <reason>", "<path>: is a directory, expected a file", "<path>: out
 * of memory". A FIFO is opened without waiting for a writer (one without
 * reads as empty), so a bad input never hangs a command. */
#ifndef NPUSIM_TEXTFILE_H
#define NPUSIM_TEXTFILE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

#include "base/err.h"

/* The file at path ("-": standard input) as a NUL-terminated malloc'ed
 * string (*len bytes, a NUL byte inside included); NULL with e. */
char *text_read_file(const char *path, size_t *len, struct npu_err *e);
/* A file descriptor reading path, opened without waiting for a FIFO's
 * writer (then blocking for the reads, as usual); -1 with errno. */
int path_open_read(const char *path);
/* Whether path names a regular file / a folder (links followed). */
bool path_is_file(const char *path);
bool path_is_dir(const char *path);
/* Why path is not a regular file (links followed): NULL when it is one, else
 * "no such file", "is a directory", "is a FIFO (named pipe)", "is a device",
 * "is a socket" or stat's reason. Asks stat only: a FIFO is never opened
 * (an open would wait for a writer). */
const char *path_not_file(const char *path);
/* The last component of path: what follows its last '/', or path itself
 * (a file's name, never its folder, in messages and provenance). */
const char *path_base(const char *path);

#endif
