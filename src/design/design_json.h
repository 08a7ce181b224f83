/* The JSON form of a design's figures: the summary object of cli.md (shared by
 * `optimise --json`, `evaluate --json` and design files) with per-node and
 * per-partition tables. Internal: the public API keeps jansson out of its headers. */
#ifndef CM_DESIGN_JSON_H
#define CM_DESIGN_JSON_H

#include <jansson.h>
#include <cnnmap/design.h>
#include <cnnmap/design_io.h>

json_t *cm_resources_json(const cm_resources *r, bool with_uram);
/* NULL on out-of-memory. */
json_t *cm_design_report_json(const cm_design *d, const cm_design_run *run);

#endif
