/* What `overlay`, `evaluate` and `export` print and write about an overlay design: one
 * printer for both commands, so that evaluating a design file prints what mapping
 * printed. */
#ifndef CM_CLI_OVERLAY_REPORT_H
#define CM_CLI_OVERLAY_REPORT_H

#include <stdbool.h>

#include "cli/cli.h"
#include <cnnmap/overlay.h>

/* Prints the array, the layers and the baselines, or with `json` the object of cli.md.
 * With an `output` path, the design file is written there first, once the printed
 * object is built, so that a failure leaves neither a file nor output. Returns the exit
 * code. */
int cm_cli_overlay_report(const cm_overlay_design *d, cm_cli_format format, const char *output);

/* `evaluate` of an overlay design file. Returns the exit code. */
int cm_cli_overlay_evaluate(const char *design_path, cm_cli_format format);

#endif
