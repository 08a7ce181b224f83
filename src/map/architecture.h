/* Which architecture a design file holds, from a file already parsed: `evaluate` parses
 * a 10,000-node design file once, not once to sniff its kind and again to read it.
 * Internal: the public API keeps jansson out of its headers. */
#ifndef CM_MAP_ARCHITECTURE_H
#define CM_MAP_ARCHITECTURE_H

#include <jansson.h>
#include <cnnmap/map.h>

/* cm_design_file_architecture of the parsed root of the file at path (messages name
 * path). */
cm_status cm_design_json_architecture(const char *path, const json_t *root, cm_architecture *out,
                                      cm_error *err);

#endif
