/* The overlay's weight traffic and when weights stay on chip (see ov_memory.h). */
#include "overlay/ov_memory.h"

#include "overlay/sizing.h"

uint64_t cm_ov_weight_bytes(const cm_layer *l)
{
    return l->op == CM_OP_CONV || l->op == CM_OP_FC ? l->params : 0;
}

uint64_t cm_ov_total_weight_bytes(const cm_graph *g)
{
    uint64_t sum = 0;
    for (int i = 0; i < g->n_layers; i++) {
        uint64_t w = cm_ov_weight_bytes(&g->layers[i]);
        sum = sum > UINT64_MAX - w ? UINT64_MAX : sum + w;
    }
    return sum;
}

/* Board counts are below 2^40 (board.h), so the products stay within 64 bits. */
int64_t cm_ov_free_onchip_bytes(const cm_ov_array *arr)
{
    int64_t bram = arr->bram18 - cm_ov_buffer_bram18(arr->p1, arr->p2);
    int64_t uram = arr->uram > 0 ? arr->uram : 0;
    return (bram > 0 ? bram : 0) * CM_OV_BRAM18_BYTES + uram * CM_OV_URAM_BYTES;
}

bool cm_ov_weights_resident(const cm_ov_array *arr, const cm_graph *g)
{
    return cm_ov_total_weight_bytes(g) <= (uint64_t)cm_ov_free_onchip_bytes(arr);
}

double cm_ov_weight_s(const cm_ov_array *arr, const cm_layer *l, bool resident)
{
    return resident ? 0.0 : (double)cm_ov_weight_bytes(l) / arr->bw_bytes_s;
}
