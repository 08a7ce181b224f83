/* Task programs written as nested loops of runs (sim_program_loops), the shape of an HLS
 * loop nest with fixed trip counts, and the run constructor the builders share. */
#include <stdlib.h>
#include <string.h>

#include "sim/engine.h"

#define LOOP_DEPTH_MAX 8

typedef struct loop_frame {
    int start;         /* the SIM_LOOP op */
    int end;           /* one past its body */
    int64_t remaining; /* passes left, this one included */
} loop_frame;

typedef struct loop_state {
    sim_op *ops;
    int n;
    int pc;
    int depth;
    loop_frame stack[LOOP_DEPTH_MAX];
} loop_state;

sim_seg sim_seg_make(int64_t count, int32_t rd0, int32_t wr0)
{
    sim_seg s;
    memset(&s, 0, sizeof s);
    s.count = count;
    s.ii = 1;
    s.latency = 1;
    s.rd[0] = rd0;
    s.wr[0] = wr0;
    return s;
}

static void loop_begin(void *state)
{
    loop_state *l = state;
    l->pc = 0;
    l->depth = 0;
}

static bool loop_next(void *state, sim_seg *out)
{
    loop_state *l = state;
    for (;;) {
        if (l->depth > 0 && l->pc == l->stack[l->depth - 1].end) {
            loop_frame *f = &l->stack[l->depth - 1];
            if (--f->remaining > 0) {
                l->pc = f->start + 1;
            } else {
                l->pc = f->end;
                l->depth--;
            }
            continue;
        }
        if (l->pc >= l->n)
            return false;
        const sim_op *op = &l->ops[l->pc];
        if (op->kind == SIM_RUN) {
            l->pc++;
            if (op->seg.count > 0) {
                *out = op->seg;
                return true;
            }
            continue;
        }
        if (op->count <= 0 || op->body == 0) {
            l->pc += 1 + op->body;
            continue;
        }
        l->stack[l->depth++] = (loop_frame){l->pc, l->pc + 1 + op->body, op->count};
        l->pc++;
    }
}

static void loop_free(void *state)
{
    loop_state *l = state;
    if (l) {
        free(l->ops);
        free(l);
    }
}

static bool seg_valid(const sim_seg *s)
{
    if (s->count < 0 || s->ii < 1 || s->latency < 1)
        return false;
    for (int p = 0; p < SIM_MAX_PORTS; p++)
        if (s->rd[p] < 0 || s->wr[p] < 0)
            return false;
    return true;
}

/* Bodies nest inside their loop's body and loops nest at most LOOP_DEPTH_MAX deep. */
static cm_status check_ops(const sim_op *ops, int n, cm_error *err)
{
    int ends[LOOP_DEPTH_MAX + 1], depth = 0;
    ends[0] = n;
    for (int i = 0; i < n; i++) {
        while (depth > 0 && i >= ends[depth])
            depth--;
        const sim_op *op = &ops[i];
        if (op->kind == SIM_RUN) {
            if (!seg_valid(&op->seg))
                return cm_error_set(err, CM_EINPUT, "simulation program: run %d has a negative "
                                    "count or word count, or ii or latency below 1", i);
            continue;
        }
        if (op->kind != SIM_LOOP || op->body < 0 || op->count < 0 || i + 1 + op->body > ends[depth])
            return cm_error_set(err, CM_EINPUT, "simulation program: loop %d runs past its "
                                "enclosing body", i);
        if (depth == LOOP_DEPTH_MAX)
            return cm_error_set(err, CM_EINPUT, "simulation program: loops nest deeper than %d",
                                LOOP_DEPTH_MAX);
        ends[++depth] = i + 1 + op->body;
    }
    return CM_OK;
}

cm_status sim_program_loops(const sim_op *ops, int n, sim_program *out, cm_error *err)
{
    memset(out, 0, sizeof *out);
    if (n < 0 || (n > 0 && !ops))
        return cm_error_set(err, CM_EINPUT, "simulation program: no ops");
    cm_status st = check_ops(ops, n, err);
    if (st != CM_OK)
        return st;
    loop_state *l = calloc(1, sizeof *l);
    sim_op *copy = n > 0 ? malloc((size_t)n * sizeof *copy) : NULL;
    if (!l || (n > 0 && !copy)) {
        free(l);
        free(copy);
        return cm_error_nomem(err);
    }
    if (n > 0)
        memcpy(copy, ops, (size_t)n * sizeof *copy);
    l->ops = copy;
    l->n = n;
    *out = (sim_program){l, loop_begin, loop_next, loop_free};
    return CM_OK;
}
