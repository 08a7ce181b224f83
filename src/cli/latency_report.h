/* `optimise --backend fpgaconvnet --objective latency`: the latency-driven flow beside
 * the throughput-driven design, the lower latency chosen and reported. */
#ifndef CM_CLI_LATENCY_REPORT_H
#define CM_CLI_LATENCY_REPORT_H

#include <stdbool.h>

#include "cli/cli.h"

struct cm_design;
struct cm_design_run;

typedef struct cm_cli_latency_args {
    cm_cli_format format;   /* JSON: one object (cli.md) with "latency_driven" inside */
    bool sdf;               /* show the SDF matrices (Gamma, W, II per subgraph) */
    bool weights_reloading; /* false (--no-weights-reloading): throughput-driven space only */
    const char *output;     /* design file to write before printing when the run succeeds
                             * (the chosen design is feasible), or NULL */
} cm_cli_latency_args;

/* Prints the optimised throughput-driven design `d` (as cm_cli_print_design does) and,
 * unless weights reloading is off, runs the latency-driven flow on the same graph,
 * board and clock (batch 1, 16 bits, the board's bandwidth), picks the design with the
 * lower latency and reports it: the reference architecture, the schedule, latency,
 * GOp/s and DSP use. In JSON mode the top-level figures are the chosen design's, with
 * "chosen", "throughput_driven" and "latency_driven" keys added. *chose_latency tells
 * the caller whether the throughput design's own violations still matter. Returns an
 * exit code. */
int cm_cli_latency_report(const struct cm_design *d, const struct cm_design_run *run,
                          const cm_cli_latency_args *a, bool *chose_latency);

/* `evaluate` of a file cm_latency_is_choice_file accepts: the choice read back, printed
 * as optimise printed it (text or JSON, sdf as --sdf), without searching. Returns an
 * exit code. */
int cm_cli_latency_evaluate(const char *path, cm_cli_format format, bool sdf);

/* After a design was printed: the partitioned design's broken constraint fails the
 * command unless the latency-driven design was chosen (then it is a warning). Returns
 * an exit code. */
int cm_cli_design_outcome(const struct cm_design *d, const struct cm_design_run *run,
                          const char *origin, bool chose_latency);

#endif
