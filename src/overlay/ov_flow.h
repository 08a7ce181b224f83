/* `overlay` and what evaluate and export do with an overlay design file, as the CLI and
 * the API (cm_api "overlay", evaluate, export) both run them: the option values read
 * with the same messages, the design file written once its JSON object is built, and
 * the export formats with their refusals. Usage mistakes are CM_EUSAGE with the message
 * the CLI prints after "COMMAND: ". Internal: jansson stays out of the public headers. */
#ifndef CM_OVERLAY_OV_FLOW_H
#define CM_OVERLAY_OV_FLOW_H

#include <jansson.h>
#include <cnnmap/overlay.h>

/* --array P1xP2 (e.g. 92x66), both at least 1. */
cm_status cm_overlay_parse_array(const char *text, int array[2], cm_error *err);

/* The `overlay --json` object in *reply (when reply is not NULL: the text table needs
 * none), then with an output path the design file. The object is built first so that
 * a failure leaves neither a file nor output; on failure *reply is NULL. */
cm_status cm_overlay_design_reply(const cm_overlay_design *d, const char *output, json_t **reply,
                                  cm_error *err);

/* `evaluate --json` of an overlay design file: the object overlay printed, from the
 * loaded design (cm_overlay_design_load). */
cm_status cm_overlay_evaluate_json(const char *design_path, json_t **reply, cm_error *err);

/* `export --format FORMAT -o OUTPUT` of an overlay design file: report-md or
 * report-html; any other format is CM_EINPUT naming the file, an empty output name
 * CM_EUSAGE with the CLI's whole line after "cnnmap: " (as cm_export_design_file's
 * usage errors, its hint included). */
cm_status cm_overlay_export_file(const char *design_path, const char *format, const char *output,
                                 cm_error *err);

#endif
