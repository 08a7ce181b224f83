/* The command-line front end: one function per command, and the helpers they share
 * for options, messages and output files. */
#ifndef CM_CLI_H
#define CM_CLI_H

#include <stdbool.h>
#include <stdio.h>
#include <jansson.h>
#include <cnnmap/error.h>

typedef struct cm_cli_command {
    const char *name;
    const char *summary;
    const char *usage; /* the full --help text */
    int (*run)(int argc, char **argv);
} cm_cli_command;

int cm_cli_inspect(int argc, char **argv);
int cm_cli_boards(int argc, char **argv);
int cm_cli_overlay(int argc, char **argv);
int cm_cli_optimise(int argc, char **argv);
int cm_cli_optimise_nn2fpga(int argc, char **argv); /* optimise --backend nn2fpga */
int cm_cli_evaluate(int argc, char **argv);
int cm_cli_export(int argc, char **argv);
int cm_cli_multi(int argc, char **argv);
int cm_cli_run(int argc, char **argv);
/* export --format report-md of a `multi -o` design file: maps its inputs again and
 * writes the Markdown report. Returns an exit code. */
int cm_cli_multi_export_md(const char *design_path, const char *out);

extern const char cm_cli_inspect_usage[];
extern const char cm_cli_boards_usage[];
extern const char cm_cli_overlay_usage[];
extern const char cm_cli_optimise_usage[];
extern const char cm_cli_evaluate_usage[];
extern const char cm_cli_export_usage[];
extern const char cm_cli_multi_usage[];
extern const char cm_cli_run_usage[];

struct cm_design;
struct cm_design_run;

/* Prints a design's summary, node and partition tables, or its JSON object. */
int cm_cli_print_design(const struct cm_design *d, const struct cm_design_run *run, bool json);

/* Prints a design (with the latency-driven alternative where it applies, see
 * latency_report.h; sdf adds its SDF matrices) and then, unless the latency-driven
 * design was chosen, its first violated constraint. Returns the exit code. */
int cm_cli_report_design(const struct cm_design *d, const struct cm_design_run *run, bool json,
                         bool sdf, const char *origin);

/* When the design breaks a constraint: prints the first violation as the one error
 * line ("cnnmap: ORIGIN: no feasible design: ...") and returns exit code 3; 0 when
 * the design is feasible. */
int cm_cli_design_violations(const struct cm_design *d, const struct cm_design_run *run,
                             const char *origin);

/* Parses a whole decimal number in [lo, hi] for option `name`; 0 or a usage exit code. */
int cm_cli_parse_long(const char *command, const char *name, const char *text, long lo, long hi,
                      long *out);
int cm_cli_parse_double(const char *command, const char *name, const char *text, double lo,
                        double hi, double *out);

/* Prints "cnnmap: message" on stderr and returns the status as an exit code. */
int cm_cli_fail(const cm_error *err);

/* A usage error: prints "cnnmap: COMMAND: what" and a hint, returns 1. */
int cm_cli_usage_error(const char *command, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));

/* True when argv holds --help or -h: prints usage to stdout. */
bool cm_cli_wants_help(int argc, char **argv, const char *usage);

/* Parses the options of a command whose only option is --json; *first_arg is the
 * index of its first positional argument. Returns 0 or the usage exit code. */
int cm_cli_parse_json_flag(int argc, char **argv, const char *command, bool *json,
                           int *first_arg);

/* Prints a JSON object on stdout, one line per key for reading. */
int cm_cli_print_json(json_t *obj);

#endif
