/* `cnnmap optimise MODEL --backend nn2fpga`: placeholder until the nn2FPGA backend
 * lands. */
#include <stdio.h>

#include "cli/cli.h"

int cm_cli_optimise_nn2fpga(int argc, char **argv)
{
    (void)argc;
    (void)argv;
    return cm_cli_usage_error("optimise", "the nn2fpga backend is not available yet");
}
