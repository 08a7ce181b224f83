/* Mapped input files; see mapped_file.h. */
#include "util/mapped_file.h"

#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

cm_status cm_map_file(const char *path, void **data, size_t *len, cm_error *err)
{
    *data = NULL;
    *len = 0;
    int fd = open(path, O_RDONLY);
    if (fd < 0)
        return cm_error_set(err, CM_EINPUT, "%s: cannot open: %s", path, strerror(errno));
    struct stat sb;
    if (fstat(fd, &sb) != 0 || !S_ISREG(sb.st_mode)) {
        close(fd);
        return cm_error_set(err, CM_EINPUT, "%s: not a regular file", path);
    }
    size_t n = (size_t)sb.st_size;
    void *p = n ? mmap(NULL, n, PROT_READ, MAP_PRIVATE, fd, 0) : NULL;
    int saved = errno;
    close(fd);
    if (n && p == MAP_FAILED)
        return cm_error_set(err, CM_EINPUT, "%s: cannot map: %s", path, strerror(saved));
    *data = p;
    *len = n;
    return CM_OK;
}

void cm_unmap_file(void *data, size_t len)
{
    if (len)
        munmap(data, len);
}

char *cm_dir_of(const char *path)
{
    const char *slash = strrchr(path, '/');
    if (!slash)
        return strdup(".");
    if (slash == path)
        return strdup("/");
    size_t n = (size_t)(slash - path);
    char *dir = malloc(n + 1);
    if (dir) {
        memcpy(dir, path, n);
        dir[n] = '\0';
    }
    return dir;
}
