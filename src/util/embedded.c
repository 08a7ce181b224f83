/* Lookup in the tables of embedded files (embedded.h). */
#include "util/embedded.h"

#include <string.h>

const cm_embedded_file *cm_embedded_find(const cm_embedded_file *files, size_t count,
                                         const char *path)
{
    for (size_t i = 0; i < count; i++)
        if (strcmp(files[i].path, path) == 0)
            return &files[i];
    return NULL;
}
