/* `cnnmap evaluate DESIGN.json [--json]`: re-reads a design, re-derives its figures
 * from the model and board and re-checks every constraint. */
#include <stdio.h>

#include <cnnmap/design_io.h>

#include "cli/cli.h"

const char cm_cli_evaluate_usage[] =
    "usage: cnnmap evaluate DESIGN.json [--json]\n\n"
    "Reads a design file written by 'cnnmap optimise -o' (or edited by hand), rebuilds the\n"
    "design from the model and board it names, checks every constraint and prints the same\n"
    "figures and tables as optimise. A broken constraint is reported by node and constraint\n"
    "with exit code 3.\n\n"
    "  --json   print the summary object of cli.md instead of tables\n";

int cm_cli_evaluate(int argc, char **argv)
{
    bool json = false;
    int first;
    int rc = cm_cli_parse_json_flag(argc, argv, "evaluate", &json, &first);
    if (rc != CM_OK)
        return rc;
    if (first != argc - 1)
        return cm_cli_usage_error("evaluate", first >= argc ? "no DESIGN.json given"
                                                            : "more than one design given");
    const char *path = argv[first];
    cm_error err = {0};
    cm_design *d = NULL;
    cm_design_run run;
    if (cm_design_load(path, &d, &run, &err) != CM_OK)
        return cm_cli_fail(&err);
    rc = cm_cli_print_design(d, &run, json);
    if (rc == CM_OK)
        rc = cm_cli_design_violations(d, &run, path);
    cm_design_free(d);
    return rc;
}
