/* Writing and reading a design file's JSON (see json_file.h). */
#include "util/json_file.h"
#include "util/atomic_file.h"

#include <errno.h>
#include <stdlib.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>

/* The file's bytes when it holds as many as fstat said, NULL otherwise (the caller then
 * reads it as a stream, from its start). */
static char *read_whole(FILE *f, size_t size, size_t *len)
{
    char *text = malloc(size ? size : 1);
    if (text && (*len = fread(text, 1, size, f)) == size)
        return text;
    free(text);
    rewind(f);
    return NULL;
}

json_t *cm_json_load_path(const char *path, size_t flags, json_error_t *jerr)
{
    FILE *f = fopen(path, "rb");
    struct stat sb;
    if (!f || fstat(fileno(f), &sb) != 0 || !S_ISREG(sb.st_mode)) {
        if (f)
            fclose(f);
        return json_load_file(path, flags, jerr); /* its own messages for these */
    }
    size_t len = 0;
    char *text = read_whole(f, (size_t)sb.st_size, &len);
    json_t *root = text ? json_loadb(text, len, flags, jerr) : json_loadf(f, flags, jerr);
    free(text);
    fclose(f);
    return root;
}

/* Opens the file first, so that a missing or unreadable file reads as the same one
 * line as everywhere else ("cannot open: ...") rather than jansson's "unable to open
 * ... (line -1)". */
cm_status cm_json_file_read(const char *path, json_t **root, cm_error *err)
{
    *root = NULL;
    FILE *f = fopen(path, "rb");
    if (!f)
        return cm_error_set(err, CM_EINPUT, "%s: cannot open: %s", path, strerror(errno));
    struct stat sb;
    cm_status st = CM_OK;
    if (fstat(fileno(f), &sb) != 0)
        st = cm_error_set(err, CM_EINPUT, "%s: cannot read: %s", path, strerror(errno));
    else if (S_ISDIR(sb.st_mode))
        st = cm_error_set(err, CM_EINPUT, "%s: cannot read: %s", path, strerror(EISDIR));
    else if (S_ISREG(sb.st_mode) && sb.st_size == 0)
        st = cm_error_set(err, CM_EINPUT, "%s: empty file, not a design file", path);
    /* A regular file is read whole and parsed from memory (cm_json_load_path). */
    char *text = NULL;
    size_t len = 0;
    if (st == CM_OK && S_ISREG(sb.st_mode))
        text = read_whole(f, (size_t)sb.st_size, &len);
    json_error_t jerr;
    if (st == CM_OK && !(*root = text ? json_loadb(text, len, JSON_REJECT_DUPLICATES, &jerr)
                                      : json_loadf(f, JSON_REJECT_DUPLICATES, &jerr))) {
        /* jansson quotes the offending bytes, which may be anything. */
        for (char *p = jerr.text; *p; p++)
            if (*p < 0x20 || *p >= 0x7f)
                *p = '?';
        st = cm_error_set(err, CM_EINPUT, "%s: %s (line %d)", path, jerr.text, jerr.line);
    }
    free(text);
    fclose(f);
    return st;
}

static cm_status cannot_build(const char *path, cm_error *err)
{
    return cm_error_set(err, CM_EINTERNAL,
                        "%s: cannot build the design file (out of memory, or a figure that "
                        "is not a finite number)", path);
}

cm_status cm_json_file_write(const char *path, const json_t *o, size_t flags, cm_error *err)
{
    char *text = o ? json_dumps(o, flags) : NULL;
    if (!text)
        return cannot_build(path, err);
    size_t len = strlen(text);
    char *with_newline = realloc(text, len + 2);
    if (!with_newline) {
        free(text);
        return cm_error_nomem(err);
    }
    with_newline[len] = '\n';
    with_newline[len + 1] = '\0';
    cm_status st = cm_write_file_atomic(path, with_newline, len + 1, err);
    free(with_newline);
    return st;
}

cm_status cm_json_text_write(const char *path, cm_strbuf *text, bool built, cm_error *err)
{
    if (!built) {
        free(cm_strbuf_take(text));
        return cannot_build(path, err);
    }
    cm_strbuf_append(text, "\n", 1);
    return cm_strbuf_write_atomic(text, path, err);
}

cm_status cm_design_source_error(cm_error *err, const char *design_path, cm_status st)
{
    cm_error_prefix(err, design_path);
    if (st != CM_EINTERNAL && err)
        err->code = CM_EINPUT;
    return st == CM_EINTERNAL ? st : CM_EINPUT;
}

json_t *cm_design_json_with_report(json_t *header, json_t *report)
{
    if (!report || !header || json_object_update_missing(header, report) != 0) {
        json_decref(header);
        header = NULL;
    }
    json_decref(report);
    return header;
}

cm_status cm_design_json_save(const char *path, json_t *o, cm_error *err)
{
    cm_status st = cm_json_file_write(path, o, CM_DESIGN_FILE_FLAGS, err);
    json_decref(o);
    return st;
}
