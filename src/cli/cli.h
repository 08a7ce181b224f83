/* The command-line front end: one function per command, and the helpers they share
 * for options, messages and output files. */
#ifndef CM_CLI_H
#define CM_CLI_H

#include <stdbool.h>
#include <stdio.h>
#include <jansson.h>
#include <cnnmap/error.h>

#include "util/strbuf.h"

/* How a command prints its result: the text tables, the JSON object of cli.md, or
 * (--csv) that object's per-layer table as CSV. */
typedef enum cm_cli_format { CM_CLI_TEXT, CM_CLI_JSON, CM_CLI_CSV } cm_cli_format;

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
int cm_cli_compare(int argc, char **argv);
int cm_cli_simulate(int argc, char **argv);
int cm_cli_sweep(int argc, char **argv);
/* evaluate of a `multi -o` design file: the figures and tables multi printed, from the
 * loaded design (cm_multi_design_load). Returns an exit code. */
int cm_cli_multi_evaluate(const char *design_path, cm_cli_format format);

extern const char cm_cli_inspect_usage[];
extern const char cm_cli_boards_usage[];
extern const char cm_cli_overlay_usage[];
extern const char cm_cli_optimise_usage[];
extern const char cm_cli_evaluate_usage[];
extern const char cm_cli_export_usage[];
extern const char cm_cli_multi_usage[];
extern const char cm_cli_run_usage[];
extern const char cm_cli_compare_usage[];
extern const char cm_cli_simulate_usage[];
extern const char cm_cli_sweep_usage[];

struct cm_design;
struct cm_design_run;

/* Prints a design's summary, node and partition tables, or its JSON object. With an
 * `output` path, the design file is written there first, once the figures are known
 * and before anything is printed, so that a failed write leaves stdout empty. */
int cm_cli_print_design(const struct cm_design *d, const struct cm_design_run *run, cm_cli_format format,
                        const char *output);

/* Writes the design file (nothing when output is NULL); 0 or the exit code, after the
 * one error line. */
int cm_cli_save_design(const struct cm_design *d, const struct cm_design_run *run,
                       const char *output);

/* Prints a design (with the latency-driven alternative where it applies, see
 * latency_report.h; sdf adds its SDF matrices) and then, unless the latency-driven
 * design was chosen, its first violated constraint. With `output`, a design that
 * succeeds is written there before anything is printed. Returns the exit code. */
int cm_cli_report_design(const struct cm_design *d, const struct cm_design_run *run, cm_cli_format format,
                         bool sdf, const char *origin, const char *output);

/* Parses a whole decimal number in [lo, hi] for option `name`; 0 or a usage exit code. */
int cm_cli_parse_long(const char *command, const char *name, const char *text, long lo, long hi,
                      long *out);
int cm_cli_parse_double(const char *command, const char *name, const char *text, double lo,
                        double hi, double *out);

/* An output option given an empty name ("-o ''") is a usage error naming the option:
 * 0 when path is NULL or not empty, else the usage exit code. */
int cm_cli_check_output(const char *command, const char *option, const char *path);

/* Prints "cnnmap: message" on stderr and returns the status as an exit code. */
int cm_cli_fail(const cm_error *err);

/* A usage error: prints "cnnmap: COMMAND: what" and a hint, returns 1. */
int cm_cli_usage_error(const char *command, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));

/* True when argv holds --help or -h: prints usage to stdout. */
bool cm_cli_wants_help(int argc, char **argv, const char *usage);

/* Runs getopt_long over argv (the one short option -o VALUE), handing each option to
 * parse(c, optarg, ctx); an unknown option or a missing value is the usage error.
 * Returns 0 or the exit code; optind is then the first positional argument. */
struct option;
int cm_cli_parse_options(int argc, char **argv, const char *command, const struct option *options,
                         int (*parse)(int c, const char *arg, void *ctx), void *ctx);

/* --json or --csv seen: sets *format; both at once is a usage error (exit code). */
int cm_cli_set_format(const char *command, cm_cli_format wanted, cm_cli_format *format);

/* Parses the options of a command whose only options are --json and --csv (inspect,
 * boards);
 * *first_arg is the index of its first positional argument. Returns 0 or the usage
 * exit code. */
int cm_cli_parse_format_flags(int argc, char **argv, const char *command, cm_cli_format *format,
                              int *first_arg);


/* Prints a JSON object on stdout, one line per key for reading. */
int cm_cli_print_json(json_t *obj);
/* Writes a command's whole output text and a line end to stdout; CM_EINTERNAL with
 * the message when that fails. */
int cm_cli_print_text(const char *text, size_t len);
/* The end of a command that saved the design file `output` (NULL: none) before it
 * printed its answer (rc: the printing's exit code): stdout is flushed, and when the
 * answer could not be written the file it wrote is removed (cm_remove_written_file: not
 * a device it wrote through), so that a failure leaves no file behind. Says "cannot
 * write to standard output" once. */
int cm_cli_printed(int rc, const char *output);

/* A command's JSON report and its design file, two texts of the same design written side
 * by side on two threads (each is about half of writing a 10,000-layer design's
 * answer); then, when the report was written, the file is saved, and when both were,
 * the report printed (cm_cli_printed). Written first, a report that fails leaves
 * neither a design file nor half an object on stdout. */
struct cm_design;
typedef struct cm_cli_texts {
    const struct cm_design *design; /* its lazy figures are settled before the threads */
    const void *ctx;                /* the writers' */
    bool (*report)(const void *ctx, cm_strbuf *out);
    /* non-CM_OK (err set) or *built false when the file cannot be made */
    cm_status (*file)(const void *ctx, cm_strbuf *out, bool *built, cm_error *err);
} cm_cli_texts;
int cm_cli_print_with_file(const cm_cli_texts *t, const char *output);
/* Prints a command's JSON object as format says: JSON as cm_cli_print_json does; CSV
 * as its table (the first of its "nodes", "layers", "models" or "boards" arrays,
 * util/csv.h). Takes obj, which may be NULL (the one error line). */
int cm_cli_print_as(json_t *obj, cm_cli_format format);

#endif
