/* Design files' JSON for every kind of design: writing one (a line end after the
 * object, atomically), and reading one with the same one-line messages for a missing,
 * unreadable or empty file, a folder, and jansson's parse errors with the offending
 * bytes made printable. */
#ifndef CM_UTIL_JSON_FILE_H
#define CM_UTIL_JSON_FILE_H

#include <jansson.h>
#include <cnnmap/error.h>
#include <stdbool.h>

#include "util/strbuf.h"

/* The reals' precision of every printed JSON object (a command's --json output, an
 * API reply): ten digits, as cli.md's figures are read. */
#define CM_JSON_PRINT_FLAGS JSON_REAL_PRECISION(10)

/* Parses the file (duplicate keys refused) into *root; CM_EINPUT naming the file
 * otherwise, *root left NULL. */
cm_status cm_json_file_read(const char *path, json_t **root, cm_error *err);

/* json_load_file's answer (flags and error as jansson's), the file read whole first:
 * jansson reads a FILE a character at a time, a fifth of loading a 10,000-layer design
 * where each reader that sniffs a file's format parses it again. */
json_t *cm_json_load_path(const char *path, size_t flags, json_error_t *jerr);

/* Writes o (jansson dump flags) and a line end to path through a temporary file;
 * o NULL (a builder failed) is CM_EINTERNAL naming the file. */
cm_status cm_json_file_write(const char *path, const json_t *o, size_t flags, cm_error *err);

/* Writes a streamed object's text (util/json_stream.h) and a line end to path as
 * cm_json_file_write does; built false (the stream failed) is its CM_EINTERNAL. The
 * buffer is reset either way. */
cm_status cm_json_text_write(const char *path, cm_strbuf *text, bool built, cm_error *err);

/* A design file: the decisions it records (header), then the report's figures for
 * human readers (the report's keys the header lacks). Takes both references; NULL
 * when either is NULL or memory runs out. */
json_t *cm_design_json_with_report(json_t *header, json_t *report);

/* A design file's layout: keys in order, reals at 17 digits so that the figures read
 * back are the very doubles written (evaluate then prints what the writer printed). */
#define CM_DESIGN_FILE_FLAGS (JSON_INDENT(1) | JSON_PRESERVE_ORDER | JSON_REAL_PRECISION(17))

/* Writes a design file in that layout and releases o (NULL, a builder's failure, is
 * CM_EINTERNAL naming the file). */
cm_status cm_design_json_save(const char *path, json_t *o, cm_error *err);

/* A model or board that a design file names and that cannot be used makes the design
 * file bad input, whatever the inner reason (out of memory aside): prefixes the
 * message with the design file and returns CM_EINPUT, or CM_EINTERNAL unchanged. */
cm_status cm_design_source_error(cm_error *err, const char *design_path, cm_status st);

#endif
