/* Resource staircases (res_staircase.h). */
#include "platform/res_staircase.h"

#include <stdint.h>
#include <stdlib.h>

static int by_val(const void *a, const void *b)
{
    const double x = ((const cm_res_point *)a)->val, y = ((const cm_res_point *)b)->val;
    return (x > y) - (x < y);
}

cm_status cm_res_staircase_build(cm_res_staircase *s, cm_res_point *points, int n, cm_error *err)
{
    s->n = 0;
    s->val = malloc(((size_t)n + 1) * sizeof *s->val);
    s->least = malloc(((size_t)n + 1) * sizeof *s->least);
    if (!s->val || !s->least) {
        cm_res_staircase_free(s);
        return cm_error_nomem(err);
    }
    qsort(points, (size_t)n, sizeof *points, by_val);
    cm_resources least = {INT64_MAX, INT64_MAX, INT64_MAX, INT64_MAX, INT64_MAX};
    for (int i = 0; i < n; i++) {
        cm_resources_min(&least, &points[i].res);
        if (s->n > 0 && s->val[s->n - 1] == points[i].val)
            s->n--; /* one step a figure: the last, whose least covers its equals */
        s->val[s->n] = points[i].val;
        s->least[s->n++] = least;
    }
    return CM_OK;
}

void cm_res_staircase_free(cm_res_staircase *s)
{
    free(s->val);
    free(s->least);
    s->val = NULL;
    s->least = NULL;
    s->n = 0;
}

/* How many of the n ascending values are at most v (the index of the first above it). */
static int count_at_most(const double *ascending, int n, double v)
{
    int lo = 0, hi = n;
    while (lo < hi) {
        const int mid = lo + (hi - lo) / 2;
        if (ascending[mid] <= v)
            lo = mid + 1;
        else
            hi = mid;
    }
    return lo;
}

const cm_resources *cm_res_staircase_at_most(const cm_res_staircase *s, double v)
{
    const int steps = count_at_most(s->val, s->n, v);
    return steps > 0 ? &s->least[steps - 1] : NULL;
}

int cm_res_staircase_first_fitting(const cm_res_staircase *s, const cm_resources *r)
{
    if (s->n == 0 || !cm_resources_fit(&s->least[s->n - 1], r))
        return -1;
    int lo = 0, hi = s->n - 1;
    while (lo < hi) {
        const int mid = lo + (hi - lo) / 2;
        if (cm_resources_fit(&s->least[mid], r))
            hi = mid;
        else
            lo = mid + 1;
    }
    return lo;
}
