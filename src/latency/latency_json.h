/* The JSON of fpgaConvNet's latency-driven design and of the choice between it and the
 * partitioned (throughput-driven) design: the object `optimise --json` prints on the
 * latency objective, `evaluate --json` prints for the file it writes, and the API
 * gives. Internal: the public API keeps jansson out of its headers. */
#ifndef CM_LATENCY_LATENCY_JSON_H
#define CM_LATENCY_LATENCY_JSON_H

#include <jansson.h>
#include <stdbool.h>

#include <cnnmap/design.h>
#include <cnnmap/design_io.h>
#include <cnnmap/latency.h>

#include "util/strbuf.h"

/* The "latency_driven" object: the reference architecture, the schedule of subgraphs
 * and the figures (with sdf, the SDF matrices), or {"available": false, "message"}
 * when the flow failed. NULL when out of memory or a figure is not finite. */
json_t *cm_latency_driven_json(const cm_design *d, const cm_latency_choice *c, bool sdf);

/* The whole object: the partitioned design's report (cm_design_report_json) whose
 * top-level figures become the latency-driven design's when it was chosen (the
 * partitioned ones move to "throughput_driven"), the bound over both flows, "chosen"
 * and "latency_driven". NULL when out of memory or a figure is not finite. */
json_t *cm_latency_choice_json(const cm_design *d, const cm_design_run *run,
                               const cm_latency_choice *c, bool sdf);

/* The same object written into out (jansson's dump flags) as json_dumps would print
 * it, its tables streamed a node at a time; false when out of memory or a figure is
 * not finite, out's text then incomplete. */
bool cm_latency_choice_write(const cm_design *d, const cm_design_run *run,
                             const cm_latency_choice *c, bool sdf, cm_strbuf *out, size_t flags);

/* The text cm_latency_choice_save writes, without its last line end, into out: a
 * failure of the latency-driven part is its status (err says why), a failure to write
 * the rest (out of memory, a figure that is not finite) clears *built. */
cm_status cm_latency_choice_text(const cm_design *partitioned, const cm_design_run *run,
                                 const cm_latency_choice *c, cm_strbuf *out, bool *built,
                                 cm_error *err);

/* cm_latency_is_choice_file of a file already parsed. */
bool cm_latency_is_choice_json(const json_t *root);

/* The latency of the design the choice chose, in seconds. */
double cm_latency_chosen_s(const cm_latency_choice *c);

#endif
