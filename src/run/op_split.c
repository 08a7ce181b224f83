/* Split: a tensor cut along one axis into consecutive parts, sized by the attribute
 * `split` before opset 13, by input 1 from 13, or equal (from opset 18 `num_outputs`
 * parts, the last one smaller when the axis does not divide). */
#include <string.h>

#include "run/run_internal.h"

/* Outputs a node may have: what the runner passes a kernel. */
#define SPLIT_MAX 64

/* Equal parts of an axis of length dim. */
static cm_status equal_parts(cm_run_ctx *cx, int64_t dim, int n_out, int64_t *sizes)
{
    int64_t parts = cm_run_attr_int(cx, "num_outputs", n_out);
    if (parts != n_out)
        return cm_run_fail(cx, CM_EINPUT, "num_outputs %lld for %d outputs", (long long)parts,
                           n_out);
    bool uneven = cm_run_opset(cx) >= 18;
    if (!uneven && dim % n_out)
        return cm_run_fail(cx, CM_EINPUT, "an axis of %lld does not split into %d equal parts",
                           (long long)dim, n_out);
    int64_t each = (dim + n_out - 1) / n_out;
    for (int k = 0; k < n_out; k++) {
        int64_t left = dim - each * k;
        sizes[k] = left < 0 ? 0 : left < each ? left : each;
    }
    return CM_OK;
}

static cm_status split_sizes(cm_run_ctx *cx, cm_array **in, int n_in, int64_t dim, int n_out,
                             int64_t *sizes)
{
    int n = -1;
    if (cm_run_opset(cx) < 13)
        n = cm_run_attr_ints(cx, "split", sizes, SPLIT_MAX);
    else if (n_in > 1 && in[1] && (n = cm_run_ints(cx, in[1], "split", sizes, SPLIT_MAX)) < 0)
        return cx->err->code;
    if (n < 0)
        return equal_parts(cx, dim, n_out, sizes);
    if (n != n_out)
        return cm_run_fail(cx, CM_EINPUT, "%d split sizes for %d outputs", n, n_out);
    int64_t sum = 0;
    for (int k = 0; k < n; k++) {
        if (sizes[k] < 0 || sizes[k] > dim)
            return cm_run_fail(cx, CM_EINPUT, "split size %lld is out of range 0-%lld",
                               (long long)sizes[k], (long long)dim);
        sum += sizes[k];
    }
    if (sum != dim)
        return cm_run_fail(cx, CM_EINPUT, "split sizes add up to %lld, not the axis's %lld",
                           (long long)sum, (long long)dim);
    return CM_OK;
}

CM_RUN_KERNEL(cm_run_split)
{
    cm_status st = cm_run_need(cx, in, n_in, 1);
    if (st != CM_OK)
        return st;
    const cm_array *x = in[0];
    int a = cm_run_axis(cx, cm_run_attr_int(cx, "axis", 0), x->rank);
    if (a < 0)
        return cx->err->code;
    if (n_out < 1 || n_out > SPLIT_MAX)
        return cm_run_fail(cx, CM_EINPUT, "%d outputs (1 to %d supported)", n_out, SPLIT_MAX);
    int64_t sizes[SPLIT_MAX], outer = 1, inner = 1, dim = x->dims[a], offset = 0;
    if ((st = split_sizes(cx, in, n_in, dim, n_out, sizes)) != CM_OK)
        return st;
    for (int d = 0; d < a; d++)
        outer *= x->dims[d];
    for (int d = a + 1; d < x->rank; d++)
        inner *= x->dims[d];
    for (int k = 0; k < n_out; k++) {
        int64_t dims[CM_ARRAY_MAX_RANK];
        memcpy(dims, x->dims, (size_t)x->rank * sizeof *dims);
        dims[a] = sizes[k];
        if ((st = cm_run_new(cx, x->dtype, x->rank, dims, &out[k])) != CM_OK)
            return st;
        int64_t run = sizes[k] * inner;
        for (int64_t o = 0; run > 0 && o < outer; o++) {
            int64_t src = (o * dim + offset) * inner, dst = o * run;
            if (x->f)
                memcpy(out[k]->f + dst, x->f + src, (size_t)run * sizeof *x->f);
            else
                memcpy(out[k]->i + dst, x->i + src, (size_t)run * sizeof *x->i);
        }
        offset += sizes[k];
    }
    return CM_OK;
}
