/* Which architecture a design file holds, from a file already parsed: `evaluate` parses
 * a 10,000-node design file once, not once to sniff its kind and again to read it (3
 * parses were 72% of evaluating one). Internal: the public API keeps jansson out of its headers. */
#ifndef CM_MAP_ARCHITECTURE_H
#define CM_MAP_ARCHITECTURE_H

#include <jansson.h>
#include <cnnmap/design_io.h>
#include <cnnmap/map.h>

/* cm_design_file_architecture of the parsed root of the file at path (messages name
 * path). */
cm_status cm_design_json_architecture(const char *path, const json_t *root, cm_architecture *out,
                                      cm_error *err);

/* A design file read once: its architecture and, for a streaming design, the design
 * itself and how it was found. The other architectures' readers take the path. */
typedef struct cm_design_file {
    cm_architecture arch;
    cm_design *design; /* streaming only; the caller frees it */
    cm_design_run run;
} cm_design_file;

/* How a file is taken. As `evaluate` takes it: a streaming file that records a latency
 * choice counts as latency-driven (whose reader takes both flows' designs), and a file
 * that names no architecture is read as a streaming design, whose reader's messages say
 * what is wrong with it. As written (`simulate`): the streaming design of a choice file
 * is the design, and a file that names no architecture is refused. */
typedef enum cm_design_file_mode {
    CM_DESIGN_FILE_EVALUATE,
    CM_DESIGN_FILE_AS_WRITTEN
} cm_design_file_mode;

/* On failure nothing is left to free. */
cm_status cm_design_file_open(const char *path, cm_design_file_mode mode, cm_design_file *out,
                              cm_error *err);

#endif
