/* The JSON object of a model's graph (inspect --json, cm_api "inspect"). */
#ifndef CM_MODEL_MODEL_JSON_H
#define CM_MODEL_MODEL_JSON_H

#include <jansson.h>
#include <cnnmap/graph.h>

/* NULL when memory runs out. */
json_t *cm_graph_json(const cm_graph *g);

#endif
