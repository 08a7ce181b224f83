/* The JSON form of a design's figures: the summary object of cli.md (shared by
 * `optimise --json`, `evaluate --json` and design files) with per-node and
 * per-partition tables. Internal: the public API keeps jansson out of its headers. */
#ifndef CM_DESIGN_JSON_H
#define CM_DESIGN_JSON_H

#include <jansson.h>
#include <cnnmap/design.h>
#include <cnnmap/design_io.h>

#include "util/json_stream.h"
#include "util/strbuf.h"

json_t *cm_resources_json(const cm_resources *r, bool with_uram);
/* NULL on out-of-memory. */
json_t *cm_design_report_json(const cm_design *d, const cm_design_run *run);
/* The same object written into out (jansson's dump flags) as json_dumps would print
 * it, without holding the tables' tree; false on out-of-memory or a figure that is not
 * finite, out's text then incomplete. */
bool cm_design_report_write(const cm_design *d, const cm_design_run *run, cm_strbuf *out,
                            size_t flags);

/* The report's parts, for design files that place them differently: every key but the
 * two tables (which follow it, partitions then nodes), and each table as a tree or
 * streamed as a member ("partition_table", "nodes"). The trees are NULL on failure. */
json_t *cm_design_report_head_json(const cm_design *d, const cm_design_run *run);
json_t *cm_design_partitions_json(const cm_design *d);
json_t *cm_design_nodes_json(const cm_design *d);
void cm_design_stream_partitions(cm_json_stream *s, const cm_design *d);
void cm_design_stream_nodes(cm_json_stream *s, const cm_design *d);

#endif
