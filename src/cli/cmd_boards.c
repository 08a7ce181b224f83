/* `cnnmap boards [--json|--csv]`: the built-in boards and their resources. */
#include <inttypes.h>
#include <stdio.h>

#include <cnnmap/board.h>

#include "cli/cli.h"
#include "platform/board_json.h"

const char cm_cli_boards_usage[] =
    "usage: cnnmap boards [--json | --csv]\n\n"
    "Lists the built-in boards: device resources (BRAM in 18 Kb blocks), default clock,\n"
    "off-chip bandwidth and full reconfiguration time. Any command taking --board also\n"
    "accepts a path to a board JSON file of the same format (see boards/ in the sources).\n\n"
    "  --json   print {\"boards\": [...]} instead of the table\n"
    "  --csv    print those boards as CSV, one row each (resources as resources.DSP, ...)\n";

static void print_row(const cm_board *b)
{
    printf("%-12s %-22s %6" PRId64 " %7" PRId64 " %5" PRId64 " %9" PRId64 " %9" PRId64
           " %7.1f %8.3f %9.1f%s\n",
           b->name, b->part, b->resources.dsp, b->resources.bram18, b->resources.uram,
           b->resources.lut, b->resources.ff, b->clock_mhz, b->bandwidth_gbps,
           b->reconfiguration_s * 1e3, b->reconfiguration_estimated ? " (est.)" : "");
}

int cm_cli_boards(int argc, char **argv)
{
    cm_cli_format format = CM_CLI_TEXT;
    int first_arg = 0;
    int usage = cm_cli_parse_format_flags(argc, argv, "boards", &format, &first_arg);
    if (usage != CM_OK)
        return usage;
    if (first_arg != argc)
        return cm_cli_usage_error("boards", "takes no arguments");
    cm_error err = {0};
    if (format != CM_CLI_TEXT) {
        json_t *list = NULL;
        if (cm_board_list_json(&list, &err) != CM_OK)
            return cm_cli_fail(&err);
        return cm_cli_print_as(list, format);
    }
    printf("%-12s %-22s %6s %7s %5s %9s %9s %7s %8s %9s\n", "board", "part", "DSP", "BRAM18",
           "URAM", "LUT", "FF", "MHz", "GB/s", "reconf ms");
    for (size_t i = 0; i < cm_board_builtin_count(); i++) {
        cm_board b;
        if (cm_board_builtin_at(i, &b, &err) != CM_OK)
            return cm_cli_fail(&err);
        print_row(&b);
    }
    return CM_OK;
}
