/* The error record: formatting and prefixing of messages. */
#include <cnnmap/error.h>

#include <stdarg.h>
#include <stdio.h>
#include <string.h>

/* Messages quote names taken from input files (nodes, tensors, paths), which may hold
 * any byte: control characters become '?' so that a message stays one line. */
static void one_line(char *message)
{
    for (unsigned char *p = (unsigned char *)message; *p; p++)
        if (*p < 0x20 || *p == 0x7f)
            *p = '?';
}

cm_status cm_error_set(cm_error *err, cm_status code, const char *fmt, ...)
{
    if (err) {
        va_list ap;
        va_start(ap, fmt);
        vsnprintf(err->message, sizeof err->message, fmt, ap);
        va_end(ap);
        one_line(err->message);
        err->code = code;
    }
    return code;
}

void cm_error_prefix(cm_error *err, const char *prefix)
{
    if (!err)
        return;
    char old[CM_ERROR_MESSAGE_MAX];
    memcpy(old, err->message, sizeof old);
    old[sizeof old - 1] = '\0';
    int n = snprintf(err->message, sizeof err->message, "%s: ", prefix);
    if (n >= 0 && (size_t)n < sizeof err->message) {
        size_t room = sizeof err->message - (size_t)n - 1;
        size_t len = strnlen(old, room);
        memcpy(err->message + n, old, len);
        err->message[(size_t)n + len] = '\0';
    }
    one_line(err->message);
}

void cm_error_clear(cm_error *err)
{
    if (err) {
        err->code = CM_OK;
        err->message[0] = '\0';
    }
}

cm_status cm_error_nomem(cm_error *err)
{
    return cm_error_set(err, CM_EINTERNAL, "out of memory");
}
