/* See strbuf.h. */
#include "util/strbuf.h"
#include "util/atomic_file.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Room for `more` bytes and the terminator; false (and the flag set) when out of memory. */
static bool reserve(cm_strbuf *b, size_t more)
{
    if (b->failed)
        return false;
    size_t need = b->len + more + 1;
    if (need <= b->cap)
        return true;
    size_t cap = 2 * need;
    char *grown = realloc(b->data, cap);
    if (!grown) {
        b->failed = true;
        return false;
    }
    b->data = grown;
    b->cap = cap;
    return true;
}

void cm_strbuf_append(cm_strbuf *b, const char *text, size_t len)
{
    if (!reserve(b, len))
        return;
    memcpy(b->data + b->len, text, len);
    b->len += len;
    b->data[b->len] = '\0';
}

void cm_strbuf_printf(cm_strbuf *b, const char *fmt, ...)
{
    if (b->failed)
        return;
    va_list ap;
    va_start(ap, fmt);
    int n = vsnprintf(NULL, 0, fmt, ap);
    va_end(ap);
    if (n < 0) {
        b->failed = true;
        return;
    }
    if (!reserve(b, (size_t)n))
        return;
    va_start(ap, fmt);
    vsnprintf(b->data + b->len, b->cap - b->len, fmt, ap);
    va_end(ap);
    b->len += (size_t)n;
}

char *cm_strbuf_take(cm_strbuf *b)
{
    char *text = b->failed ? NULL : b->data;
    if (b->failed)
        free(b->data);
    b->data = NULL;
    b->len = b->cap = 0;
    b->failed = false;
    return text;
}

cm_status cm_strbuf_write_atomic(cm_strbuf *b, const char *path, cm_error *err)
{
    size_t len = b->len;
    char *text = cm_strbuf_take(b);
    if (!text)
        return cm_error_nomem(err);
    cm_status st = cm_write_file_atomic(path, text, len, err);
    free(text);
    return st;
}
