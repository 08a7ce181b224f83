/* The JSON form of an overlay design's figures: the `overlay --json` object of cli.md
 * (with the resources and the format vertices' layouts). `overlay --json` and
 * `evaluate --json` print it, and the design file holds it with the keys that rebuild
 * the design, so the three say the same. Internal: the public API keeps jansson out of
 * its headers. */
#ifndef CM_OVERLAY_OV_JSON_H
#define CM_OVERLAY_OV_JSON_H

#include <jansson.h>
#include <cnnmap/overlay.h>

/* The text of the warning that the time limit ended the array sizing. */
#define CM_OVERLAY_STOPPED_TEXT \
    "the time limit or the sizing budget ended the array sizing; the array is the best " \
    "shape tried by then"

/* The DSP limit the design was made under. */
int64_t cm_overlay_dsp_limit(const cm_overlay_design *d);

/* The name of what a format describes: the graph input or the layer. */
const char *cm_overlay_format_subject(const cm_graph *g, const cm_overlay_format *f);

/* A new object, or NULL when out of memory or when a figure is not a finite number
 * (jansson refuses those; no key may silently go missing). */
json_t *cm_overlay_report_json(const cm_overlay_design *d);

#endif
