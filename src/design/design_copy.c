/* Copies of a design sharing its graph (design_copy.h). */
#include "design/design_copy.h"

#include "design/design_internal.h"
#include "design/fifo_cost.h"

static cm_status copy_fifo_depths(const cm_design *src, cm_design *d, cm_error *err)
{
    if (!src->fifo || src->fifo->n == 0)
        return CM_OK;
    return cm_design_set_fifo_depths(d, (const char *const *)src->fifo->name, src->fifo->depth,
                                     src->fifo->n, err);
}

cm_status cm_design_copy_new(const cm_design *src, cm_design **out, cm_error *err)
{
    /* the copy shares src's graphs and never frees them (copy_free) */
    cm_status st = cm_design_create_sharing(src, out, err);
    if (st != CM_OK)
        return st;
    cm_design *d = *out;
    cm_design_set_limits(d, &src->limits);
    st = copy_fifo_depths(src, d, err);
    cm_design_point *here = st == CM_OK ? cm_design_point_new(src) : NULL;
    if (st == CM_OK && !here)
        st = cm_error_nomem(err);
    if (st != CM_OK) {
        cm_design_copy_free(d);
        *out = NULL;
        return st;
    }
    cm_design_point_restore(d, here);
    cm_design_point_free(here);
    d->evaluations = 0;
    return CM_OK;
}

void cm_design_copy_free(cm_design *copy)
{
    if (!copy)
        return;
    copy->graph = NULL; /* src's, as is its hardware graph (hd_shared) */
    cm_design_free(copy);
}
