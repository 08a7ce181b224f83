/* File paths recorded in design files (see path.h). */
#include "util/path.h"

#include <libgen.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

char *cm_path_absolute(const char *path)
{
    char *abs = realpath(path, NULL);
    return abs ? abs : strdup(path);
}

char *cm_path_beside(const char *beside, const char *path)
{
    if (path[0] == '/')
        return strdup(path);
    char *copy = strdup(beside);
    if (!copy)
        return NULL;
    const char *dir = dirname(copy);
    size_t n = strlen(dir) + strlen(path) + 2;
    char *out = malloc(n);
    if (out)
        snprintf(out, n, "%s/%s", dir, path);
    free(copy);
    return out;
}
