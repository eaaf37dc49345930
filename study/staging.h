/* staging.h — private staging folders for stages whose outputs must appear
 * all together or not at all (npusim energy, npusim carbon).
 *
 * A stage writes every output into a fresh folder beside its destination,
 * mirroring the destination's layout, and publishes only once everything
 * has succeeded: by renaming the whole folder into place when the
 * destination does not exist yet (one rename), otherwise file by file. */
#ifndef NPUSIM_STUDY_STAGING_H
#define NPUSIM_STUDY_STAGING_H

#include <stdbool.h>
#include <stddef.h>

#include "traces/err.h"

/* Creates <dest>.tmp.<pid>.<n> (the first n free) as mkdir(1) would: 0777
 * less the umask, not mkdtemp's 0700, since it may become dest itself.
 * Writes its name to out (n bytes). */
int staging_create(const char *dest, char *out, size_t n, struct npu_err *e);


/* Publishes a whole staging tree at dest: one rename when dest does not
 * exist, else each entry dest lacks renamed whole and each folder both hold
 * merged the same way (files there replaced); then removes what is left. */
int staging_publish(const char *staging, const char *dest, struct npu_err *e);

/* Removes the staging folder and whatever is left in it ("" is ignored). */
void staging_remove(const char *staging);

#endif
