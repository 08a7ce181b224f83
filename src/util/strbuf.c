/* See strbuf.h. */
#include "util/strbuf.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>

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
    size_t need = b->len + (size_t)n + 1;
    if (need > b->cap) {
        size_t cap = 2 * need;
        char *grown = realloc(b->data, cap);
        if (!grown) {
            b->failed = true;
            return;
        }
        b->data = grown;
        b->cap = cap;
    }
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
