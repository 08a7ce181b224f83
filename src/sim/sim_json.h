/* `cnnmap simulate`'s flow and its JSON object (simulate --json, cm_api "simulate"):
 * the design simulated, its sized FIFO depths written when asked, the outcome judged
 * (a deadlock or a cut run fails), and the figures and tables as JSON. The CLI and the
 * API both go through it, so that their figures and messages agree. */
#ifndef CM_SIM_SIM_JSON_H
#define CM_SIM_SIM_JSON_H

#include <jansson.h>
#include <stdbool.h>
#include <stdint.h>

#include <cnnmap/simulate.h>

/* "design" or "auto", as --fifo-depths names the mode. */
const char *cm_sim_fifo_name(cm_sim_fifo_mode m);

/* simulated / analytic - 1 into *out; false when either is 0: the cost model has no such
 * figure, or the run did not measure it (one frame has no interval). */
bool cm_sim_relative(int64_t simulated, int64_t analytic, double *out);

/* Simulates the design file and, when output is given and the run neither deadlocked
 * nor was cut (nothing was sized then), writes the design with the simulated depths
 * there. On CM_OK *r holds the result, which the caller frees. */
cm_status cm_sim_design_file(const char *design, const cm_sim_options *o, const char *output,
                             cm_sim_result *r, cm_error *err);

/* CM_EINFEASIBLE with the CLI's error line when the run deadlocked or was cut short
 * (wrote: an output was asked for, so the line says none was written); CM_OK
 * otherwise. A long deadlock cycle is cut at the error record's length. */
cm_status cm_sim_verdict(const char *design, const cm_sim_result *r, bool wrote, cm_error *err);

/* The object of simulate --json; NULL when memory runs out or a figure is not finite. */
json_t *cm_sim_result_json(const cm_sim_result *r);

#endif
