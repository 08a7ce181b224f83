/* Which handler runs a node: by operator type within the ONNX domain (QCDQ, channel-wise,
 * layer and shape tables), or within the QONNX and FINN custom-op domains. */
#include <string.h>

#include "model/import_ops.h"

bool cm_import_is_onnx_domain(const char *domain)
{
    return !domain || !*domain || strcmp(domain, "ai.onnx") == 0;
}

static bool is_qonnx_domain(const char *domain)
{
    return domain && (strcmp(domain, "qonnx.custom_op.general") == 0 ||
                      strcmp(domain, "onnx.brevitas") == 0 ||
                      strcmp(domain, "finn.custom_op.general") == 0);
}

static cm_node_handler lookup(const cm_op_entry *table, const char *op_type)
{
    for (; table->op_type; table++)
        if (strcmp(table->op_type, op_type) == 0)
            return table->handler;
    return NULL;
}

cm_node_handler cm_import_base_handler(const char *op_type)
{
    cm_node_handler h = lookup(cm_layer_ops, op_type);
    return h ? h : lookup(cm_shape_ops, op_type);
}

/* The QCDQ and channel tables come first: some of their handlers look at a node (a Clip
 * of integers, a step of a decomposed layer normalisation) and pass the others on to the
 * base handler. */
cm_node_handler cm_import_handler_for(const char *domain, const char *op_type)
{
    if (!op_type)
        return NULL;
    if (is_qonnx_domain(domain))
        return lookup(cm_qonnx_ops, op_type);
    if (!cm_import_is_onnx_domain(domain))
        return NULL;
    cm_node_handler h = lookup(cm_qcdq_ops, op_type);
    if (!h)
        h = lookup(cm_channel_ops, op_type);
    return h ? h : cm_import_base_handler(op_type);
}
