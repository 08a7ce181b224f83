/* The engine graph's definition, shared by the graph builder (graph.c) and the runner
 * (engine.c). */
#ifndef CM_SIM_GRAPH_INTERNAL_H
#define CM_SIM_GRAPH_INTERNAL_H

#include "sim/engine.h"

typedef struct sim_stream_def {
    char *name;
    int64_t depth;          /* SIM_UNBOUNDED or words */
    int writer, reader;     /* tasks, -1 until added */
    int wport, rport;
    int64_t source_words;   /* words per frame when a source writes it, else 0 */
    int64_t sink_words;     /* words per frame when a sink reads it, else 0 */
} sim_stream_def;

typedef struct sim_task_def {
    char *name, *kind;
    int n_in, n_out;
    int in[SIM_MAX_PORTS], out[SIM_MAX_PORTS];
    sim_program prog;
} sim_task_def;

struct sim_graph {
    sim_task_def *tasks;
    int n_tasks, cap_tasks;
    sim_stream_def *streams;
    int n_streams, cap_streams;
};

#endif
