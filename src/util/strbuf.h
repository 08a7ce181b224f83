/* A growing text buffer for reports: printf-style appends, one failure flag instead
 * of a check after every append. */
#ifndef CM_UTIL_STRBUF_H
#define CM_UTIL_STRBUF_H

#include <stdbool.h>
#include <stddef.h>
#include <cnnmap/error.h>

typedef struct cm_strbuf {
    char *data;
    size_t len, cap;
    bool failed; /* out of memory: later appends do nothing */
} cm_strbuf;

void cm_strbuf_printf(cm_strbuf *b, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
/* Appends len bytes of text as they are (no format: for the generators' bulk text). */
void cm_strbuf_append(cm_strbuf *b, const char *text, size_t len);

/* The text (the caller frees it), or NULL after a failure; the buffer is reset. */
char *cm_strbuf_take(cm_strbuf *b);

/* Writes the text to path through a temporary file (a report), and resets the buffer;
 * out of memory while building it is CM_EINTERNAL. */
cm_status cm_strbuf_write_atomic(cm_strbuf *b, const char *path, cm_error *err);

#endif
