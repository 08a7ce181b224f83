/* See json_stream.h. The separators follow jansson's dump: after an opening bracket and
 * after each comma a line end and the member's indent (without an indent, a space
 * after the comma unless JSON_COMPACT); before the closing bracket a line end and the
 * container's indent; an empty container is "[]" or "{}"; a key is followed by ": "
 * (":" with JSON_COMPACT). */
#include "util/json_stream.h"

#include <stdlib.h>
#include <string.h>

static const char SPACES[] = "                                ";

static void spaces(cm_strbuf *out, size_t n)
{
    while (n > 0) {
        size_t k = n < sizeof SPACES - 1 ? n : sizeof SPACES - 1;
        cm_strbuf_append(out, SPACES, k);
        n -= k;
    }
}

static size_t indent_width(const cm_json_stream *s)
{
    return (size_t)(s->flags & JSON_MAX_INDENT);
}

/* jansson's dump_indent: a line break to the depth's indent, or the separator's space. */
static void break_line(cm_json_stream *s, int depth, bool space)
{
    if (indent_width(s) > 0) {
        cm_strbuf_append(s->out, "\n", 1);
        spaces(s->out, (size_t)depth * indent_width(s));
    } else if (space && !(s->flags & JSON_COMPACT)) {
        cm_strbuf_append(s->out, " ", 1);
    }
}

/* A value is dumped at depth 0 by jansson, into a buffer at once (a callback a token
 * cost a third more), then re-indented to the depth it sits at. JSON text has no raw
 * line end inside a string, so every '\n' is a break of the layout. */
static void append_reindented(cm_json_stream *s, const char *text, size_t len)
{
    const size_t extra = (size_t)s->depth * indent_width(s);
    const char *end = text + len;
    while (text < end) {
        const char *nl = memchr(text, '\n', (size_t)(end - text));
        if (!nl) {
            cm_strbuf_append(s->out, text, (size_t)(end - text));
            break;
        }
        cm_strbuf_append(s->out, text, (size_t)(nl - text) + 1);
        spaces(s->out, extra);
        text = nl + 1;
    }
}

static void dump_at_depth(cm_json_stream *s, const json_t *v)
{
    char local[4096];
    const size_t flags = s->flags | JSON_ENCODE_ANY;
    size_t len = json_dumpb(v, local, sizeof local, flags);
    if (len == 0) {
        s->ok = false;
        return;
    }
    if (len <= sizeof local) {
        append_reindented(s, local, len);
        return;
    }
    char *big = malloc(len);
    if (!big || json_dumpb(v, big, len, flags) != len)
        s->ok = false;
    else
        append_reindented(s, big, len);
    free(big);
}

/* The separator before a member or element, and its key. */
static void start_member(cm_json_stream *s, const char *key)
{
    if (s->depth <= 0) {
        s->ok = false;
        return;
    }
    if (!s->empty[s->depth - 1])
        cm_strbuf_append(s->out, ",", 1);
    break_line(s, s->depth, !s->empty[s->depth - 1]);
    s->empty[s->depth - 1] = false;
    if (!key)
        return;
    json_t *k = json_string(key);
    if (!k) {
        s->ok = false;
        return;
    }
    dump_at_depth(s, k);
    json_decref(k);
    cm_strbuf_append(s->out, s->flags & JSON_COMPACT ? ":" : ": ", s->flags & JSON_COMPACT ? 1 : 2);
}

static void open_container(cm_json_stream *s, char bracket)
{
    if (s->depth >= CM_JSON_STREAM_DEPTH) {
        s->ok = false;
        return;
    }
    cm_strbuf_append(s->out, &bracket, 1);
    s->close[s->depth] = bracket == '[' ? ']' : '}';
    s->empty[s->depth] = true;
    s->depth++;
}

void cm_json_stream_begin(cm_json_stream *s, cm_strbuf *out, size_t flags)
{
    *s = (cm_json_stream){.out = out, .flags = flags, .ok = true};
    open_container(s, '{');
}

void cm_json_stream_put(cm_json_stream *s, const char *key, json_t *v)
{
    if (!v) {
        s->ok = false;
        return;
    }
    start_member(s, key);
    if (s->ok)
        dump_at_depth(s, v);
    json_decref(v);
}

void cm_json_stream_members(cm_json_stream *s, json_t *o)
{
    if (!json_is_object(o)) {
        s->ok = false;
        json_decref(o);
        return;
    }
    const char *key;
    json_t *v;
    json_object_foreach(o, key, v)
        cm_json_stream_put(s, key, json_incref(v));
    json_decref(o);
}

void cm_json_stream_open(cm_json_stream *s, const char *key, char bracket)
{
    start_member(s, key);
    if (s->ok)
        open_container(s, bracket);
}

void cm_json_stream_close(cm_json_stream *s)
{
    if (s->depth <= 0) {
        s->ok = false;
        return;
    }
    s->depth--;
    if (!s->empty[s->depth])
        break_line(s, s->depth, false);
    cm_strbuf_append(s->out, &s->close[s->depth], 1);
}

bool cm_json_stream_end(cm_json_stream *s)
{
    while (s->depth > 0)
        cm_json_stream_close(s);
    return s->ok && !s->out->failed;
}
