/* A program outside the source tree using the installed library: prints a model's
 * layer count and MACs, and a board's DSPs. */
#include <inttypes.h>
#include <stdio.h>

#include <cnnmap/cnnmap.h>

int main(int argc, char **argv)
{
    if (argc != 3)
        return 1;
    cm_error err = {0};
    cm_graph *g = NULL;
    cm_board board;
    if (cm_model_load(argv[1], &g, &err) != CM_OK || cm_board_resolve(argv[2], &board, &err) != CM_OK) {
        fprintf(stderr, "%s\n", err.message);
        cm_graph_free(g);
        return 2;
    }
    cm_graph_totals t = cm_graph_totals_of(g);
    printf("%s %d %" PRIu64 " %s %" PRId64 "\n", CM_VERSION, t.layers, t.macs, board.name,
           board.resources.dsp);
    cm_graph_free(g);
    return 0;
}
