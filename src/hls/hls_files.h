/* The HLS files compiled into the library (cmake/embed_hls.cmake): the compatibility
 * headers (include/), the building blocks (templates/) and the project templates
 * (project/) that the generator fills. */
#ifndef CM_HLS_FILES_H
#define CM_HLS_FILES_H

#include "util/embedded.h"

typedef cm_embedded_file cm_hls_file; /* path relative to hls/, e.g. "templates/cm_conv.h" */

extern const cm_hls_file cm_hls_files[];
extern const size_t cm_hls_files_count;

/* The embedded file at path, or NULL. */
const cm_hls_file *cm_hls_file_find(const char *path);

#endif
