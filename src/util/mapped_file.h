/* Reading an input file by mapping it: model files hold hundreds of MB of weights that
 * the readers only look at once, so a copy would be wasted. */
#ifndef CM_UTIL_MAPPED_FILE_H
#define CM_UTIL_MAPPED_FILE_H

#include <stddef.h>
#include <cnnmap/error.h>

/* The bytes of the regular file at path, mapped read-only (data NULL when empty);
 * "PATH: cannot open: ..." or "PATH: not a regular file" otherwise. */
cm_status cm_map_file(const char *path, void **data, size_t *len, cm_error *err);
void cm_unmap_file(void *data, size_t len);

/* The directory part of path ("." when it has none), for data files that live beside
 * it; NULL when out of memory. The caller frees it. */
char *cm_dir_of(const char *path);

#endif
