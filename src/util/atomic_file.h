/* Writing an output file all at once: the data goes to a temporary file beside the
 * target, which is renamed over it only when complete, so a failed command never
 * leaves a partial file (cli.md), and two runs writing the same path leave one run's
 * whole output. A directory, a file without write permission (root included: one
 * without any write bit) and a missing folder are refused with CM_EINPUT and the
 * target left as it was; an existing file keeps its permission bits. A device or
 * FIFO (/dev/null, /dev/stdout) is written in place, since renaming over it would
 * replace it with a regular file. */
#ifndef CM_UTIL_ATOMIC_FILE_H
#define CM_UTIL_ATOMIC_FILE_H

#include <stddef.h>
#include <cnnmap/error.h>

cm_status cm_write_file_atomic(const char *path, const char *data, size_t len, cm_error *err);

/* Removes the output file at `path` of a command that failed after writing it: only a
 * regular file, which cm_write_file_atomic put there. A device, FIFO or symbolic link
 * (-o /dev/null, /dev/stdout) was written through and is not the command's to remove:
 * as root, remove() would delete /dev/null itself. */
void cm_remove_written_file(const char *path);

#endif
