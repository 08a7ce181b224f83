/* The engine's run: every task's iterations timed by the max-plus recurrence of
 * engine.h, visited from a work list so that a task blocked on a stream costs nothing
 * until the task at the stream's other end moves; deadlocks found and named; and FIFO
 * sizing by simulation. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "sim/graph_internal.h"
#include "util/progress.h"

/* Times of a window of consecutive words of one stream: word k at v[k & mask], valid for
 * k in [lo, hi). Grows to cover what the run still needs. */
typedef struct ring {
    int64_t *v;
    int64_t mask; /* capacity - 1, capacity a power of two */
} ring;

typedef struct stream_run {
    int64_t nw, nr;   /* words written and read so far */
    ring wt, rt;      /* write and read cycles */
    int64_t depth;    /* 0: unbounded */
    int64_t occ_next; /* the next written word whose occupancy is not yet known */
    int64_t occ_read; /* the first word not read before occ_next was written */
    int64_t last_wt;  /* keeps write cycles monotone when latencies differ */
} stream_run;

typedef enum wait_kind { WAIT_NONE, WAIT_WORDS, WAIT_ROOM } wait_kind;

typedef struct task_run {
    sim_seg seg;
    int64_t left;      /* iterations left in seg */
    int frame;
    bool started, done, queued;
    int64_t next;      /* earliest start of the next iteration */
    wait_kind wait;    /* why it stopped when not done */
    int wait_stream;
    int64_t *stall_by_stream; /* cycles waited per stream (words or room), lazily made */
} task_run;

typedef struct engine {
    const sim_graph *g;
    const sim_run_options *o;
    stream_run *s;
    task_run *t;
    int *queue; /* ring of task indices */
    int q_head, q_len;
    sim_run_result *r;
    bool nomem;
} engine;

/* ---- rings ---- */

static bool ring_grow(ring *q, int64_t lo, int64_t hi)
{
    int64_t need = hi - lo;
    int64_t cap = q->v ? q->mask + 1 : 16;
    while (cap < need)
        cap *= 2;
    int64_t *v = malloc((size_t)cap * sizeof *v);
    if (!v)
        return false;
    for (int64_t k = lo; q->v && k < hi; k++)
        v[k & (cap - 1)] = q->v[k & q->mask];
    free(q->v);
    q->v = v;
    q->mask = cap - 1;
    return true;
}

/* Makes room for words [lo, hi), keeping them; false when out of memory. */
static inline bool ring_fit(ring *q, int64_t lo, int64_t hi)
{
    return (q->v && hi - lo <= q->mask + 1) || ring_grow(q, lo, hi);
}

static inline int64_t ring_get(const ring *q, int64_t k) { return q->v[k & q->mask]; }
static inline void ring_set(ring *q, int64_t k, int64_t x) { q->v[k & q->mask] = x; }

/* ---- occupancy ----
 * Word n's occupancy is the number of words m <= n not yet read when n is written
 * (rt(m) >= wt(n)); since reads are in order it is n + 1 - (the first m with
 * rt(m) >= wt(n)). It is known once the reader has read past that m, or read every word
 * before n; until then the word waits. */
static void occupancy_advance(stream_run *s, sim_stream_stats *st)
{
    while (s->occ_next < s->nw) {
        int64_t n = s->occ_next, w = ring_get(&s->wt, n);
        while (s->occ_read < n && s->occ_read < s->nr && ring_get(&s->rt, s->occ_read) < w)
            s->occ_read++;
        if (s->occ_read < n && s->occ_read >= s->nr)
            return; /* the reader has not got that far */
        int64_t occ = n + 1 - s->occ_read;
        if (occ > st->max_occupancy)
            st->max_occupancy = occ;
        s->occ_next++;
    }
}

/* The oldest word whose write and read cycles the run may still look up. */
static int64_t write_window_lo(const stream_run *s)
{
    return s->occ_next < s->nr ? s->occ_next : s->nr;
}

static int64_t read_window_lo(const stream_run *s)
{
    int64_t lo = s->occ_read;
    if (s->depth > 0 && s->nw - s->depth < lo)
        lo = s->nw - s->depth;
    return lo < 0 ? 0 : lo;
}

/* ---- the work list ---- */

static void wake(engine *e, int task)
{
    task_run *t = &e->t[task];
    if (task < 0 || t->queued || t->done)
        return;
    int cap = e->g->n_tasks;
    e->queue[(e->q_head + e->q_len) % cap] = task;
    e->q_len++;
    t->queued = true;
}

static int pop(engine *e)
{
    int task = e->queue[e->q_head];
    e->q_head = (e->q_head + 1) % e->g->n_tasks;
    e->q_len--;
    e->t[task].queued = false;
    return task;
}

/* ---- one task ---- */

/* Loads the task's next run with iterations; false when its last frame is over. */
static bool next_run(engine *e, int task)
{
    task_run *t = &e->t[task];
    const sim_program *p = &e->g->tasks[task].prog;
    while (t->left == 0) {
        if (!t->started) {
            t->started = true;
            if (p->begin_frame)
                p->begin_frame(p->state);
        }
        if (p->next(p->state, &t->seg)) {
            t->left = t->seg.count > 0 ? t->seg.count : 0;
            if (t->seg.ii < 1)
                t->seg.ii = 1;
            if (t->seg.latency < 1)
                t->seg.latency = 1;
            continue;
        }
        if (++t->frame >= e->o->frames)
            return false;
        if (p->begin_frame)
            p->begin_frame(p->state);
    }
    return true;
}

static void note_stall(engine *e, int task, int stream, int64_t cycles)
{
    task_run *t = &e->t[task];
    if (cycles <= 0 || stream < 0)
        return;
    if (!t->stall_by_stream) {
        t->stall_by_stream = calloc((size_t)e->g->n_streams, sizeof *t->stall_by_stream);
        if (!t->stall_by_stream) {
            e->nomem = true;
            return;
        }
    }
    t->stall_by_stream[stream] += cycles;
}

/* Whether the next iteration's words and room are there; if not, why (in t->wait). */
static bool ready(engine *e, int task)
{
    const sim_task_def *d = &e->g->tasks[task];
    task_run *t = &e->t[task];
    for (int p = 0; p < d->n_in; p++) {
        const stream_run *s = &e->s[d->in[p]];
        if (t->seg.rd[p] > 0 && s->nr + t->seg.rd[p] > s->nw) {
            t->wait = WAIT_WORDS;
            t->wait_stream = d->in[p];
            return false;
        }
    }
    for (int p = 0; p < d->n_out; p++) {
        const stream_run *s = &e->s[d->out[p]];
        if (t->seg.wr[p] > 0 && s->depth > 0 && s->nw + t->seg.wr[p] - 1 - s->depth >= s->nr) {
            t->wait = WAIT_ROOM;
            t->wait_stream = d->out[p];
            return false;
        }
    }
    t->wait = WAIT_NONE;
    return true;
}

/* The start cycle of the next iteration and the stream that held it back (-1: none). */
static int64_t start_cycle(engine *e, int task, int *held_by, bool *starved)
{
    const sim_task_def *d = &e->g->tasks[task];
    const task_run *t = &e->t[task];
    int64_t start = t->next;
    *held_by = -1;
    for (int p = 0; p < d->n_in; p++) {
        if (t->seg.rd[p] == 0)
            continue;
        const stream_run *s = &e->s[d->in[p]];
        int64_t avail = ring_get(&s->wt, s->nr + t->seg.rd[p] - 1);
        if (avail > start) {
            start = avail;
            *held_by = d->in[p];
            *starved = true;
        }
    }
    for (int p = 0; p < d->n_out; p++) {
        const stream_run *s = &e->s[d->out[p]];
        int64_t k = s->nw + t->seg.wr[p] - 1 - s->depth;
        if (t->seg.wr[p] == 0 || s->depth == 0 || k < 0)
            continue;
        int64_t room = ring_get(&s->rt, k) + 1 - t->seg.latency;
        if (room > start) {
            start = room;
            *held_by = d->out[p];
            *starved = false;
        }
    }
    return start;
}

static void read_words(engine *e, int stream, int words, int64_t at)
{
    stream_run *s = &e->s[stream];
    const sim_stream_def *d = &e->g->streams[stream];
    if (!ring_fit(&s->rt, read_window_lo(s), s->nr + words)) {
        e->nomem = true;
        return;
    }
    for (int k = 0; k < words; k++, s->nr++) {
        ring_set(&s->rt, s->nr, at);
        if (d->source_words > 0 && s->nr % d->source_words == 0) {
            int64_t f = s->nr / d->source_words;
            if (f < e->r->frames && (e->r->in_first[f] < 0 || at < e->r->in_first[f]))
                e->r->in_first[f] = at;
        }
        if (d->sink_words > 0 && (s->nr + 1) % d->sink_words == 0) {
            int64_t f = s->nr / d->sink_words;
            if (f < e->r->frames && at > e->r->out_last[f])
                e->r->out_last[f] = at;
        }
    }
    occupancy_advance(s, &e->r->streams[stream]);
}

static void write_words(engine *e, int stream, int words, int64_t at)
{
    stream_run *s = &e->s[stream];
    if (!ring_fit(&s->wt, write_window_lo(s), s->nw + words)) {
        e->nomem = true;
        return;
    }
    if (at < s->last_wt)
        at = s->last_wt;
    s->last_wt = at;
    for (int k = 0; k < words; k++, s->nw++)
        ring_set(&s->wt, s->nw, at);
    e->r->streams[stream].words += words;
    occupancy_advance(s, &e->r->streams[stream]);
}

/* Runs the task's iterations until it waits or ends; true when it moved. */
static bool advance(engine *e, int task)
{
    const sim_task_def *d = &e->g->tasks[task];
    task_run *t = &e->t[task];
    sim_task_stats *st = &e->r->tasks[task];
    bool moved = false;
    while (!e->nomem) {
        if (t->left == 0 && !next_run(e, task)) {
            t->done = true;
            t->wait = WAIT_NONE;
            break;
        }
        if (!ready(e, task))
            break;
        if (e->o->max_iterations && e->r->iterations >= e->o->max_iterations)
            break;
        /* the clock is read once per 4096 iterations: the check costs nothing measurable */
        if (e->o->deadline_s > 0 && (e->r->iterations & 4095) == 0 &&
            (e->r->stopped_early || cm_seconds_now() >= e->o->deadline_s)) {
            e->r->stopped_early = true;
            break;
        }
        int held_by;
        bool starved = false;
        int64_t start = start_cycle(e, task, &held_by, &starved);
        int64_t gap = start - t->next;
        if (held_by >= 0 && gap > 0) {
            if (starved)
                st->starved_cycles += gap;
            else
                st->blocked_cycles += gap;
            note_stall(e, task, held_by, gap);
        }
        for (int p = 0; p < d->n_in; p++)
            if (t->seg.rd[p] > 0)
                read_words(e, d->in[p], t->seg.rd[p], start);
        for (int p = 0; p < d->n_out; p++)
            if (t->seg.wr[p] > 0)
                write_words(e, d->out[p], t->seg.wr[p], start + t->seg.latency);
        if (st->iterations == 0)
            st->first_start = start;
        st->iterations++;
        e->r->iterations++;
        st->busy_cycles += t->seg.ii;
        t->next = start + t->seg.ii;
        st->last_end = t->next;
        t->left--;
        moved = true;
    }
    return moved;
}

/* ---- deadlocks ---- */

static int waited_on(const engine *e, int task)
{
    const task_run *t = &e->t[task];
    const sim_stream_def *s = &e->g->streams[t->wait_stream];
    return t->wait == WAIT_WORDS ? s->writer : s->reader;
}

/* Follows "waits for" from the first unfinished task until a task repeats, and writes
 * that cycle (or the finished task at the end of the chain). */
static void name_deadlock(engine *e)
{
    const sim_graph *g = e->g;
    int start = -1;
    for (int i = 0; i < g->n_tasks && start < 0; i++)
        if (!e->t[i].done && e->t[i].wait != WAIT_NONE)
            start = i;
    char *out = e->r->deadlock_cycle;
    size_t cap = sizeof e->r->deadlock_cycle;
    if (start < 0) {
        snprintf(out, cap, "the run stopped with tasks unfinished");
        return;
    }
    int *seen = calloc((size_t)g->n_tasks, sizeof *seen);
    if (!seen) {
        e->nomem = true;
        return;
    }
    int task = start, step = 1;
    while (!seen[task] && !e->t[task].done && e->t[task].wait != WAIT_NONE) {
        seen[task] = step++;
        task = waited_on(e, task);
    }
    int first = seen[task] ? task : start; /* the cycle starts where the walk returned */
    size_t used = 0;
    for (int k = first, n = 0; n < g->n_tasks; n++) {
        const task_run *t = &e->t[k];
        int next = waited_on(e, k);
        const sim_stream_def *s = &g->streams[t->wait_stream];
        int w = snprintf(out + used, cap - used, "%s%s waits for %s in %s (%s by %s%s)",
                         n ? " -> " : "", g->tasks[k].name,
                         t->wait == WAIT_WORDS ? "words" : "room", s->name,
                         t->wait == WAIT_WORDS ? "written" : "read", g->tasks[next].name,
                         e->t[next].done ? ", which has finished" : "");
        if (w < 0 || (size_t)w >= cap - used)
            break;
        used += (size_t)w;
        k = next;
        if (k == first || e->t[k].done || e->t[k].wait == WAIT_NONE)
            break;
    }
    free(seen);
}

/* ---- the run ---- */

static cm_status check_graph(const sim_graph *g, cm_error *err)
{
    bool source = false, sink = false;
    for (int i = 0; i < g->n_streams; i++) {
        const sim_stream_def *s = &g->streams[i];
        if (s->writer < 0 || s->reader < 0)
            return cm_error_set(err, CM_EINPUT, "simulation: stream %s has no %s", s->name,
                                s->writer < 0 ? "writer" : "reader");
        source |= s->source_words > 0;
        sink |= s->sink_words > 0;
    }
    if (!source || !sink)
        return cm_error_set(err, CM_EINPUT, "simulation: the graph has no %s",
                            source ? "sink" : "source");
    return CM_OK;
}

static cm_status result_init(const sim_graph *g, int frames, sim_run_result *r)
{
    memset(r, 0, sizeof *r);
    r->frames = frames;
    r->runs = 1;
    r->n_tasks = g->n_tasks;
    r->n_streams = g->n_streams;
    r->in_first = malloc((size_t)frames * sizeof *r->in_first);
    r->out_last = malloc((size_t)frames * sizeof *r->out_last);
    r->tasks = calloc((size_t)g->n_tasks + 1, sizeof *r->tasks);
    r->streams = calloc((size_t)g->n_streams + 1, sizeof *r->streams);
    if (!r->in_first || !r->out_last || !r->tasks || !r->streams)
        return CM_EINTERNAL;
    for (int f = 0; f < frames; f++) {
        r->in_first[f] = -1;
        r->out_last[f] = -1;
    }
    for (int i = 0; i < g->n_tasks; i++)
        r->tasks[i].starved_on = r->tasks[i].blocked_on = -1;
    return CM_OK;
}

/* Per task: the stream it waited on longest for words and for room. */
static void stall_streams(engine *e)
{
    for (int i = 0; i < e->g->n_tasks; i++) {
        const int64_t *by = e->t[i].stall_by_stream;
        const sim_task_def *d = &e->g->tasks[i];
        sim_task_stats *st = &e->r->tasks[i];
        int64_t best_in = 0, best_out = 0;
        for (int p = 0; by && p < d->n_in; p++)
            if (by[d->in[p]] > best_in) {
                best_in = by[d->in[p]];
                st->starved_on = d->in[p];
            }
        for (int p = 0; by && p < d->n_out; p++)
            if (by[d->out[p]] > best_out) {
                best_out = by[d->out[p]];
                st->blocked_on = d->out[p];
            }
    }
}

static void engine_free(engine *e)
{
    for (int i = 0; e->s && i < e->g->n_streams; i++) {
        free(e->s[i].wt.v);
        free(e->s[i].rt.v);
    }
    for (int i = 0; e->t && i < e->g->n_tasks; i++)
        free(e->t[i].stall_by_stream);
    free(e->s);
    free(e->t);
    free(e->queue);
}

/* Words still waiting for their occupancy at the end were never read after them (a
 * deadlock, or the frames ran out): everything unread counts as held. */
static void occupancy_settle(engine *e)
{
    for (int i = 0; i < e->g->n_streams; i++) {
        stream_run *s = &e->s[i];
        sim_stream_stats *st = &e->r->streams[i];
        for (; s->occ_next < s->nw; s->occ_next++) {
            int64_t n = s->occ_next, w = ring_get(&s->wt, n);
            while (s->occ_read < n && s->occ_read < s->nr && ring_get(&s->rt, s->occ_read) < w)
                s->occ_read++;
            if (n + 1 - s->occ_read > st->max_occupancy)
                st->max_occupancy = n + 1 - s->occ_read;
        }
    }
}

static void finish(engine *e)
{
    sim_run_result *r = e->r;
    occupancy_settle(e);
    for (int i = 0; i < e->g->n_tasks; i++)
        if (r->tasks[i].last_end > r->end_cycle)
            r->end_cycle = r->tasks[i].last_end;
    stall_streams(e);
    int n = r->frames;
    if (!r->deadlock && r->out_last[0] >= 0 && r->in_first[0] >= 0)
        r->latency_cycles = r->out_last[0] - r->in_first[0];
    if (!r->deadlock && n > 1 && r->out_last[n - 1] >= 0 && r->out_last[n - 2] >= 0)
        r->interval_cycles = r->out_last[n - 1] - r->out_last[n - 2];
}

cm_status sim_run(const sim_graph *g, const sim_run_options *o, sim_run_result *r, cm_error *err)
{
    memset(r, 0, sizeof *r);
    if (!g || !o || o->frames < 1)
        return cm_error_set(err, CM_EUSAGE, "simulation: frames must be at least 1");
    cm_status st = check_graph(g, err);
    if (st != CM_OK)
        return st;
    engine e = {.g = g, .o = o, .r = r};
    e.s = calloc((size_t)g->n_streams + 1, sizeof *e.s);
    e.t = calloc((size_t)g->n_tasks + 1, sizeof *e.t);
    e.queue = malloc(((size_t)g->n_tasks + 1) * sizeof *e.queue);
    if (!e.s || !e.t || !e.queue || result_init(g, o->frames, r) != CM_OK) {
        engine_free(&e);
        sim_run_result_free(r);
        return cm_error_nomem(err);
    }
    for (int i = 0; i < g->n_streams; i++)
        e.s[i].depth = o->unbounded ? 0 : g->streams[i].depth;
    for (int i = 0; i < g->n_tasks; i++)
        wake(&e, i);
    while (e.q_len > 0 && !e.nomem) {
        int task = pop(&e);
        if (!advance(&e, task))
            continue;
        const sim_task_def *d = &g->tasks[task];
        for (int p = 0; p < d->n_in; p++)
            wake(&e, g->streams[d->in[p]].writer);
        for (int p = 0; p < d->n_out; p++)
            wake(&e, g->streams[d->out[p]].reader);
    }
    bool capped = false;
    for (int i = 0; i < g->n_tasks && !e.nomem; i++)
        if (!e.t[i].done) {
            capped = o->max_iterations && r->iterations >= o->max_iterations;
            r->deadlock = !capped && !r->stopped_early;
        }
    if (r->deadlock)
        name_deadlock(&e);
    if (!e.nomem)
        finish(&e);
    engine_free(&e);
    if (e.nomem) {
        sim_run_result_free(r);
        return cm_error_nomem(err);
    }
    if (capped)
        return cm_error_set(err, CM_EINFEASIBLE, "simulation: stopped after %llu iterations",
                            (unsigned long long)o->max_iterations);
    return CM_OK;
}

void sim_run_result_free(sim_run_result *r)
{
    if (!r)
        return;
    free(r->in_first);
    free(r->out_last);
    free(r->tasks);
    free(r->streams);
    memset(r, 0, sizeof *r);
}
