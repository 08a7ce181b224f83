/* cnnmap's entry point: dispatches to the commands of cli.md. */
#include <errno.h>
#include <getopt.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cnnmap/version.h>

#include "cli/cli.h"
#include "util/atomic_file.h"
#include "util/csv.h"
#include "util/json_file.h"

static const cm_cli_command commands[] = {
    {"inspect", "show the layers of an ONNX or QONNX model", cm_cli_inspect_usage, cm_cli_inspect},
    {"boards", "list the built-in FPGA boards", cm_cli_boards_usage, cm_cli_boards},
    {"overlay", "map a model onto a systolic-array overlay (DYNAMAP)", cm_cli_overlay_usage,
     cm_cli_overlay},
    {"optimise", "map a model onto a board's streaming hardware", cm_cli_optimise_usage,
     cm_cli_optimise},
    {"evaluate", "re-check a design file and print its figures", cm_cli_evaluate_usage,
     cm_cli_evaluate},
    {"export", "write a design as a backend's configuration", cm_cli_export_usage, cm_cli_export},
    {"multi", "map several networks onto one FPGA (f-CNNx)", cm_cli_multi_usage, cm_cli_multi},
    {"compare", "map a model onto every architecture, side by side", cm_cli_compare_usage,
     cm_cli_compare},
    {"simulate", "step a design's hardware cycle by cycle", cm_cli_simulate_usage,
     cm_cli_simulate},
    {"run", "execute a model on the CPU (reference executor)", cm_cli_run_usage, cm_cli_run},
    {"sweep", "latency against resources over boards and backends (Pareto fronts)",
     cm_cli_sweep_usage, cm_cli_sweep},
};

static void print_help(FILE *out)
{
    fprintf(out, "usage: cnnmap COMMAND [OPTIONS]\n\n"
                 "Maps convolutional neural networks onto FPGAs.\n\ncommands:\n");
    for (size_t i = 0; i < sizeof commands / sizeof *commands; i++)
        fprintf(out, "  %-10s %s\n", commands[i].name, commands[i].summary);
    fprintf(out, "\n`cnnmap COMMAND --help` describes a command. `cnnmap --version` prints the "
                 "version.\nExit codes: 0 success, 1 usage error, 2 bad input, 3 no feasible "
                 "design, 4 internal error.\n");
}

int cm_cli_fail(const cm_error *err)
{
    fprintf(stderr, "cnnmap: %s\n", err->message);
    return err->code == CM_OK ? CM_EINTERNAL : (int)err->code;
}

int cm_cli_usage_error(const char *command, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    fprintf(stderr, "cnnmap: %s: ", command);
    vfprintf(stderr, fmt, ap);
    fprintf(stderr, " (see 'cnnmap %s --help')\n", command);
    va_end(ap);
    return CM_EUSAGE;
}

bool cm_cli_wants_help(int argc, char **argv, const char *usage)
{
    for (int i = 1; i < argc; i++)
        if (strcmp(argv[i], "--help") == 0 || strcmp(argv[i], "-h") == 0) {
            fputs(usage, stdout);
            return true;
        }
    return false;
}

int cm_cli_parse_options(int argc, char **argv, const char *command, const struct option *options,
                         int (*parse)(int c, const char *arg, void *ctx), void *ctx)
{
    opterr = 0;
    optind = 1;
    int c;
    while ((c = getopt_long(argc, argv, ":o:", options, NULL)) != -1) {
        if (c == '?' || c == ':')
            return cm_cli_usage_error(command, "%s option '%s'",
                                      c == ':' ? "missing value for" : "unknown", argv[optind - 1]);
        int rc = parse(c, optarg, ctx);
        if (rc != CM_OK)
            return rc;
    }
    return CM_OK;
}

int cm_cli_set_format(const char *command, cm_cli_format wanted, cm_cli_format *format)
{
    if (*format != CM_CLI_TEXT && *format != wanted)
        return cm_cli_usage_error(command, "--json and --csv exclude each other");
    *format = wanted;
    return CM_OK;
}

int cm_cli_parse_format_flags(int argc, char **argv, const char *command, cm_cli_format *format,
                              int *first_arg)
{
    static const struct option options[] = {{"json", no_argument, NULL, 'j'},
                                            {"csv", no_argument, NULL, 'c'},
                                            {NULL, 0, NULL, 0}};
    int c, rc = CM_OK;
    opterr = 0;
    while (rc == CM_OK && (c = getopt_long(argc, argv, "", options, NULL)) != -1) {
        if (c != 'j' && c != 'c')
            return cm_cli_usage_error(command, "unknown option '%s'", argv[optind - 1]);
        rc = cm_cli_set_format(command, c == 'c' ? CM_CLI_CSV : CM_CLI_JSON, format);
    }
    *first_arg = optind;
    return rc;
}

int cm_cli_print_json(json_t *obj)
{
    /* The builders give NULL for a figure that is not a finite number (jansson has no
     * representation for it) as well as for out of memory. */
    if (!obj) {
        fprintf(stderr, "cnnmap: internal error: cannot build the JSON output (out of memory, "
                        "or a figure that is not a finite number)\n");
        return CM_EINTERNAL;
    }
    /* Dumped into memory and written at once: json_dumpf makes an fwrite of every
     * token, which took 0.3 s of a 10,000-partition design's 15 MB report. */
    char *text = json_dumps(obj, JSON_INDENT(1) | JSON_PRESERVE_ORDER | CM_JSON_PRINT_FLAGS);
    json_decref(obj);
    if (!text) {
        fprintf(stderr, "cnnmap: internal error: cannot write the JSON output (out of "
                        "memory)\n");
        return CM_EINTERNAL;
    }
    int rc = cm_cli_print_text(text, strlen(text));
    free(text);
    return rc;
}

int cm_cli_print_text(const char *text, size_t len)
{
    if (fwrite(text, 1, len, stdout) != len || fputc('\n', stdout) == EOF) {
        fprintf(stderr, "cnnmap: cannot write to standard output\n");
        return CM_EINTERNAL;
    }
    return CM_OK;
}

int cm_cli_printed(int rc, const char *output)
{
    if (rc == CM_OK && (fflush(stdout) != 0 || ferror(stdout))) {
        fprintf(stderr, "cnnmap: cannot write to standard output\n");
        rc = CM_EINTERNAL;
    }
    if (rc != CM_OK)
        cm_remove_written_file(output);
    return rc;
}

/* The table a command's object holds: its layers or nodes, its networks or boards. */
static const json_t *csv_rows(const json_t *obj)
{
    static const char *const keys[] = {"nodes", "layers", "models", "boards"};
    for (size_t i = 0; i < sizeof keys / sizeof *keys; i++) {
        const json_t *rows = json_object_get(obj, keys[i]);
        if (json_is_array(rows))
            return rows;
    }
    return NULL;
}

static int print_csv(json_t *obj)
{
    const json_t *rows = csv_rows(obj);
    cm_strbuf b = {0};
    if (rows)
        cm_csv_append_table(&b, rows);
    json_decref(obj);
    char *text = cm_strbuf_take(&b);
    if (!rows || !text) {
        free(text);
        fprintf(stderr, "cnnmap: internal error: cannot build the CSV output%s\n",
                rows ? " (out of memory)" : " (no table of layers)");
        return CM_EINTERNAL;
    }
    int rc = fputs(text, stdout) == EOF || fflush(stdout) != 0 ? CM_EINTERNAL : CM_OK;
    free(text);
    if (rc != CM_OK)
        fprintf(stderr, "cnnmap: cannot write to standard output\n");
    return rc;
}

int cm_cli_print_as(json_t *obj, cm_cli_format format)
{
    if (format != CM_CLI_CSV || !obj)
        return cm_cli_print_json(obj);
    return print_csv(obj);
}

/* A command's answer, or a failure if what it printed could not all be written: stdout
 * is buffered, so a full disk shows only when it is flushed (before, `--json >
 * /dev/full` of a small answer exited 0). */
static int stdout_flushed(int rc)
{
    if (fflush(stdout) == 0 && !ferror(stdout))
        return rc;
    if (rc == CM_OK) {
        fprintf(stderr, "cnnmap: cannot write to standard output\n");
        rc = CM_EINTERNAL;
    }
    return rc;
}

int main(int argc, char **argv)
{
    if (argc < 2) {
        print_help(stderr);
        return CM_EUSAGE;
    }
    if (strcmp(argv[1], "--help") == 0 || strcmp(argv[1], "-h") == 0 ||
        strcmp(argv[1], "help") == 0) {
        print_help(stdout);
        return CM_OK;
    }
    if (strcmp(argv[1], "--version") == 0) {
        printf("cnnmap %s\n", CM_VERSION);
        return CM_OK;
    }
    for (size_t i = 0; i < sizeof commands / sizeof *commands; i++)
        if (strcmp(argv[1], commands[i].name) == 0) {
            if (cm_cli_wants_help(argc - 1, argv + 1, commands[i].usage))
                return CM_OK;
            return stdout_flushed(commands[i].run(argc - 1, argv + 1));
        }
    fprintf(stderr, "cnnmap: unknown command '%s' (see 'cnnmap --help')\n", argv[1]);
    return CM_EUSAGE;
}

int cm_cli_check_output(const char *command, const char *option, const char *path)
{
    if (path && !*path)
        return cm_cli_usage_error(command, "%s needs a file name, not an empty string", option);
    return CM_OK;
}

int cm_cli_parse_long(const char *command, const char *name, const char *text, long lo, long hi,
                      long *out)
{
    char *end;
    errno = 0;
    long v = strtol(text, &end, 10);
    if (errno || end == text || *end || v < lo || v > hi)
        return cm_cli_usage_error(command, "%s needs a whole number from %ld to %ld, not '%s'",
                                  name, lo, hi, text);
    *out = v;
    return CM_OK;
}

int cm_cli_parse_double(const char *command, const char *name, const char *text, double lo,
                        double hi, double *out)
{
    char *end;
    errno = 0;
    double v = strtod(text, &end);
    if (errno || end == text || *end || !(v >= lo && v <= hi))
        return cm_cli_usage_error(command, "%s needs a number from %g to %g, not '%s'", name, lo,
                                  hi, text);
    *out = v;
    return CM_OK;
}
