/* staging.h — private staging folders for stages whose outputs must appear
 * all together or not at all (npusim energy, npusim carbon, npusim sweep).
 *
 * A stage writes every output into a fresh folder beside its destination,
 * mirroring the destination's layout, and publishes only once everything
 * has succeeded: by renaming the whole folder into place when the
 * destination does not exist yet (one rename), otherwise file by file.
 * A sweep publishes each configuration as it finishes instead, one folder
 * swapped in whole (staging_publish_set), so that a killed sweep leaves
 * whole configurations for --skip-existing to resume from. */
#ifndef NPUSIM_STUDY_STAGING_H
#define NPUSIM_STUDY_STAGING_H

#include <stdbool.h>
#include <stddef.h>

#include "base/err.h"

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

/* staging_create, and a lock file inside (STAGING_LOCK) held with flock
 * while the process lives: *lock_fd, to close after staging_remove (-1
 * when the file system has no flock). staging_clean_stale tells a live
 * staging folder from a dead one by it. */
#define STAGING_LOCK ".npusim.lock"
int staging_create_locked(const char *dest, char *out, size_t n, int *lock_fd, struct npu_err *e);

/* Removes the staging folders <dest>.tmp.<pid>.<k> beside dest that a
 * killed run left: its process is gone and its lock (if it has one) is
 * free. Says so on stderr, one line per folder ("npusim CMD: removed ...").
 * Returns how many it removed. */
int staging_clean_stale(const char *dest, const char *cmd);

/* Removes the temporaries "<name>.tmp.<pid>.<n>" (base/atomic.h) whose
 * name starts with prefix and whose process is gone (killed mid-write) from
 * folder dir; one stderr line if any. Returns the count. */
int staging_clean_temps(const char *dir, const char *prefix, const char *cmd);

/* Publishes one configuration: the files of folder `from` named <base>.*
 * or <base>_* (a staging folder, which may hold other configurations' files
 * too) into folder `to` as one set. `to` is replaced whole by a folder
 * holding the new set and hard links to every other entry `to` held (its
 * earlier files of that set dropped): one rename when `to` is new, else
 * renameat2(RENAME_EXCHANGE), so a reader, or a kill at any instant, sees
 * the old folder or the new one, never a mix. scratch names a free path on
 * the same file system (inside the staging folder); the old folder ends
 * there and is removed. Two processes publishing into one folder must hold
 * a lock (atomic_lock_dir) around the call. */
int staging_publish_set(const char *from, const char *to, const char *base, const char *scratch,
                        struct npu_err *e);

#endif
