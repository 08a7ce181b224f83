/* How a streaming design's command ends, decided once for `optimise`, `evaluate` and
 * the API: whether fpgaConvNet's latency-driven flow competes with the partitioned
 * design, whether the design file is written, and whether the command fails. */
#ifndef CM_DESIGN_DESIGN_OUTCOME_H
#define CM_DESIGN_DESIGN_OUTCOME_H

#include <stdbool.h>

#include <cnnmap/design.h>
#include <cnnmap/design_io.h>

/* True on fpgaConvNet's latency objective with weights reloading: the latency-driven
 * design (cm_latency_choose) competes with the partitioned one. */
bool cm_design_compares_latency(const cm_design *d);

/* True when the command succeeds and so writes the design file: the latency-driven
 * design was chosen, or the partitioned design meets every constraint. */
bool cm_design_outcome_writable(const cm_design *d, bool chose_latency);

/* CM_OK when the latency-driven design was chosen (the partitioned design's broken
 * constraint is then only a warning); otherwise cm_design_verdict's. */
cm_status cm_design_outcome_status(const cm_design *d, const cm_design_run *run,
                                   const char *origin, bool chose_latency, cm_error *err);

#endif
