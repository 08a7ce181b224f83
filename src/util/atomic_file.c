/* Temporary file plus rename; see atomic_file.h. */
#include "util/atomic_file.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

static cm_status write_all(int fd, const char *data, size_t len)
{
    while (len > 0) {
        ssize_t n = write(fd, data, len);
        if (n < 0) {
            if (errno == EINTR)
                continue;
            return CM_EINPUT;
        }
        data += n;
        len -= (size_t)n;
    }
    return CM_OK;
}

cm_status cm_write_file_atomic(const char *path, const char *data, size_t len, cm_error *err)
{
    size_t n = strlen(path) + 16;
    char *tmp = malloc(n);
    if (!tmp)
        return cm_error_nomem(err);
    snprintf(tmp, n, "%s.tmpXXXXXX", path);
    int fd = mkstemp(tmp);
    if (fd < 0) {
        cm_status st = cm_error_set(err, CM_EINPUT, "%s: cannot write: %s", path, strerror(errno));
        free(tmp);
        return st;
    }
    cm_status st = write_all(fd, data, len);
    int saved = errno;
    /* mkstemp creates the file 0600; an output file gets the usual permissions. */
    mode_t mask = umask(0);
    umask(mask);
    if (st == CM_OK && fchmod(fd, 0666 & ~mask) != 0)
        saved = errno, st = CM_EINPUT;
    if (close(fd) != 0 && st == CM_OK)
        saved = errno, st = CM_EINPUT;
    if (st == CM_OK && rename(tmp, path) != 0)
        saved = errno, st = CM_EINPUT;
    if (st != CM_OK) {
        unlink(tmp);
        cm_error_set(err, st, "%s: cannot write: %s", path, strerror(saved));
    }
    free(tmp);
    return st;
}
