/* Writing a JSON object whose long arrays (a design's nodes) are made one element at a
 * time, into a text buffer, byte-identical to jansson's dump of the whole tree with the
 * same flags: each value is dumped by jansson and its line ends are indented to its
 * depth. A 10,000-node report then never holds (nor frees) a tree of the whole; that
 * tree was half of `optimise --json`'s time on the 10,000-layer chain. */
#ifndef CM_UTIL_JSON_STREAM_H
#define CM_UTIL_JSON_STREAM_H

#include <jansson.h>
#include <stdbool.h>

#include "util/strbuf.h"

#define CM_JSON_STREAM_DEPTH 8

typedef struct cm_json_stream {
    cm_strbuf *out;
    size_t flags;     /* jansson's dump flags, as json_dumps would take them */
    int depth;        /* open containers */
    char close[CM_JSON_STREAM_DEPTH];
    bool empty[CM_JSON_STREAM_DEPTH]; /* no member written yet at that depth */
    bool ok;          /* false after a NULL value, a failed dump or too deep a nesting */
} cm_json_stream;

/* Starts the outermost object. */
void cm_json_stream_begin(cm_json_stream *s, cm_strbuf *out, size_t flags);
/* Writes a member (key given: the open container is an object) or an element (key
 * NULL: an array) and releases v; a NULL v (a builder's failure) clears ok. */
void cm_json_stream_put(cm_json_stream *s, const char *key, json_t *v);
/* Writes every member of the object o in its order, and releases o. */
void cm_json_stream_members(cm_json_stream *s, json_t *o);
/* Opens an array (bracket '[') or object ('{') as a member or element. */
void cm_json_stream_open(cm_json_stream *s, const char *key, char bracket);
void cm_json_stream_close(cm_json_stream *s);
/* Closes what is still open; true when everything was written (the buffer's own
 * out-of-memory flag included). */
bool cm_json_stream_end(cm_json_stream *s);

#endif
