/* Files compiled into the library by cmake/embed_hls.cmake, so that the binary alone
 * generates what needs them wherever it is installed: the HLS building blocks and
 * project templates (hls/, src/hls/hls_files.h) and the pages' templates (templates/:
 * the HTML report's and the sweep's). */
#ifndef CM_UTIL_EMBEDDED_H
#define CM_UTIL_EMBEDDED_H

#include <stddef.h>

typedef struct cm_embedded_file {
    const char *path; /* relative to its folder, e.g. "report/report.html" */
    const char *data; /* NUL-terminated */
    size_t len;
} cm_embedded_file;

/* templates/: report/ and sweep/ */
extern const cm_embedded_file cm_templates[];
extern const size_t cm_templates_count;

/* The file at path among files[0..count), or NULL. */
const cm_embedded_file *cm_embedded_find(const cm_embedded_file *files, size_t count,
                                         const char *path);

#endif
