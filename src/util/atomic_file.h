/* Writing an output file all at once: the data goes to a temporary file beside the
 * target, which is renamed over it only when complete, so a failed command never
 * leaves a partial file (cli.md). */
#ifndef CM_UTIL_ATOMIC_FILE_H
#define CM_UTIL_ATOMIC_FILE_H

#include <stddef.h>
#include <cnnmap/error.h>

cm_status cm_write_file_atomic(const char *path, const char *data, size_t len, cm_error *err);

#endif
