/* A streaming design file as a JSON object, for files that hold one inside or beside
 * other keys (the latency-driven flow's design files, src/latency/design_io.c):
 * writing the object cm_design_save writes, and reading a design from an object
 * already parsed. Internal: the public API keeps jansson out of its headers. */
#ifndef CM_DESIGN_FILE_H
#define CM_DESIGN_FILE_H

#include <jansson.h>
#include <cnnmap/design_io.h>

#include "util/json_stream.h"
#include "util/strbuf.h"

/* The members of the object cm_design_save writes, streamed into the object open in s,
 * a node at a time. */
void cm_design_stream_file(cm_json_stream *s, const cm_design *d, const cm_design_run *run);
/* The text cm_design_save writes, without its last line end, into out; false when out
 * of memory or a figure is not finite. */
bool cm_design_file_text(const cm_design *d, const cm_design_run *run, cm_strbuf *out);

/* cm_design_load of an object parsed from `path` (messages name `path`; the model
 * path is resolved beside it). Keys it does not know are left to the caller. */
cm_status cm_design_load_json(const char *path, json_t *root, cm_design **out, cm_design_run *run,
                              cm_error *err);

#endif
