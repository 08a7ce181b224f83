/* Temporary file plus rename; see atomic_file.h. */
#include "util/atomic_file.h"

#include <errno.h>
#include <fcntl.h>
#include <stdbool.h>
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

static cm_status cannot_write(cm_error *err, const char *path, int e)
{
    return cm_error_set(err, CM_EINPUT, "%s: cannot write: %s", path, strerror(e));
}

/* A device or a pipe (/dev/null, /dev/stdout, a FIFO) cannot be replaced by renaming:
 * that would put a regular file in its place, so it is written in place. */
static cm_status write_in_place(const char *path, const char *data, size_t len, cm_error *err)
{
    int fd = open(path, O_WRONLY | O_NOCTTY | O_CLOEXEC);
    if (fd < 0)
        return cannot_write(err, path, errno);
    cm_status st = write_all(fd, data, len);
    int saved = errno;
    if (close(fd) != 0 && st == CM_OK)
        saved = errno, st = CM_EINPUT;
    return st == CM_OK ? CM_OK : cannot_write(err, path, saved);
}

/* What is at `path` decides how it is written: *mode is the permission bits the new
 * file gets (an existing file keeps its own), *in_place says it must be written
 * through rather than replaced. */
static cm_status check_target(const char *path, mode_t *mode, bool *in_place, cm_error *err)
{
    struct stat sb;
    mode_t mask = umask(0);
    umask(mask);
    *mode = 0666 & ~mask;
    *in_place = false;
    if (stat(path, &sb) != 0)
        return errno == ENOENT ? CM_OK : cannot_write(err, path, errno);
    if (S_ISDIR(sb.st_mode))
        return cannot_write(err, path, EISDIR);
    if (S_ISCHR(sb.st_mode) || S_ISFIFO(sb.st_mode)) {
        *in_place = true;
        return CM_OK;
    }
    if (!S_ISREG(sb.st_mode))
        return cm_error_set(err, CM_EINPUT, "%s: cannot write: not a regular file", path);
    /* The rename would replace a read-only file that the user could not write to;
     * root passes access(), so a file without any write bit counts as read-only too. */
    if ((sb.st_mode & 0222) == 0 || access(path, W_OK) != 0)
        return cm_error_set(err, CM_EINPUT, "%s: cannot write: the file is read-only", path);
    *mode = sb.st_mode & 0777;
    return CM_OK;
}

cm_status cm_write_file_atomic(const char *path, const char *data, size_t len, cm_error *err)
{
    if (!path || !*path)
        return cm_error_set(err, CM_EUSAGE, "no output file name given");
    mode_t mode;
    bool in_place;
    cm_status st = check_target(path, &mode, &in_place, err);
    if (st != CM_OK)
        return st;
    if (in_place)
        return write_in_place(path, data, len, err);
    size_t n = strlen(path) + 16;
    char *tmp = malloc(n);
    if (!tmp)
        return cm_error_nomem(err);
    snprintf(tmp, n, "%s.tmpXXXXXX", path);
    int fd = mkstemp(tmp);
    if (fd < 0) {
        st = cannot_write(err, path, errno);
        free(tmp);
        return st;
    }
    st = write_all(fd, data, len);
    int saved = errno;
    /* mkstemp creates the file 0600; an output file gets the usual permissions. */
    if (st == CM_OK && fchmod(fd, mode) != 0)
        saved = errno, st = CM_EINPUT;
    if (close(fd) != 0 && st == CM_OK)
        saved = errno, st = CM_EINPUT;
    if (st == CM_OK && rename(tmp, path) != 0)
        saved = errno, st = CM_EINPUT;
    if (st != CM_OK) {
        unlink(tmp);
        cannot_write(err, path, saved);
    }
    free(tmp);
    return st;
}

void cm_remove_written_file(const char *path)
{
    struct stat sb;
    if (path && lstat(path, &sb) == 0 && S_ISREG(sb.st_mode))
        unlink(path);
}
