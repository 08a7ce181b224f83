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
    int64_t mask;  /* capacity - 1, capacity a power of two */
    int64_t fits;  /* words below this fit as the ring is (its window's low end only rises) */
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

/* A port the task's current run moves words on: its stream and the words one iteration
 * moves (the run's other ports are left out, so the per-iteration loops skip them). */
typedef struct port_use {
    stream_run *s;
    int stream;
    int words;
    bool marks; /* a source's or sink's stream: frames are timed on its reads */
} port_use;

typedef struct task_run {
    /* the fields every visit reads first, together in the cache */
    int64_t left;      /* iterations left in seg */
    int64_t next;      /* earliest start of the next iteration */
    int n_in, n_out;
    bool simple;       /* step_simple() times seg */
    bool started, done, queued;
    wait_kind wait;    /* why it stopped when not done */
    int wait_stream;
    port_use in[SIM_MAX_PORTS], out[SIM_MAX_PORTS]; /* the ports seg moves words on */
    sim_seg seg;
    int frame;
    int64_t *stall_by_stream; /* cycles waited per stream (words or room), lazily made */
} task_run;

typedef struct engine {
    const sim_graph *g;
    const sim_run_options *o;
    stream_run *s;
    task_run *t;
    int *queue; /* stack of task indices to visit */
    int q_len;
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
    q->fits = lo + cap;
    return true;
}

/* Whether the ring has room for words [lo, hi) as it is. */
static inline bool ring_holds(const ring *q, int64_t lo, int64_t hi)
{
    return q->v && hi - lo <= q->mask + 1;
}

/* Makes room for words [lo, hi), keeping them; false when out of memory. */
static inline bool ring_fit(ring *q, int64_t lo, int64_t hi)
{
    return ring_holds(q, lo, hi) || ring_grow(q, lo, hi);
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
    /* locals: the stores to st would otherwise make the compiler reload s's fields */
    int64_t n = s->occ_next, m = s->occ_read, best = st->max_occupancy;
    const int64_t nw = s->nw, nr = s->nr;
    while (n < nw) {
        int64_t w = ring_get(&s->wt, n);
        while (m < n && m < nr && ring_get(&s->rt, m) < w)
            m++;
        if (m < n && m >= nr)
            break; /* the reader has not got that far */
        best = n + 1 - m > best ? n + 1 - m : best;
        n++;
    }
    s->occ_next = n;
    s->occ_read = m;
    st->max_occupancy = best;
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

/* ---- the work list ----
 * A stack: the task just woken runs next, while the streams it shares with the task that
 * woke it are still in the cache (the figures do not depend on the order, engine.h). */

static void wake(engine *e, int task)
{
    if (task < 0 || e->t[task].queued || e->t[task].done)
        return;
    e->queue[e->q_len++] = task;
    e->t[task].queued = true;
}

/* Wakes the task only when it waits for `why` on `stream` and the stream now has what
 * its next iteration needs: a waiting task cannot move until that stream changes (its
 * other ports only get better while it waits), so any other visit would find it still
 * waiting. */
static void wake_if_waiting(engine *e, int task, int stream, wait_kind why)
{
    const task_run *t = &e->t[task < 0 ? 0 : task];
    if (task < 0 || t->wait != why || t->wait_stream != stream)
        return;
    const stream_run *s = &e->s[stream];
    const sim_stream_def *d = &e->g->streams[stream];
    if (why == WAIT_WORDS ? s->nw - s->nr >= t->seg.rd[d->rport]
                          : s->nr + s->depth - s->nw >= t->seg.wr[d->wport])
        wake(e, task);
}

static int pop(engine *e)
{
    int task = e->queue[--e->q_len];
    e->t[task].queued = false;
    return task;
}

/* ---- one task ---- */

/* The ports of streams[0..n) with words[p] > 0, into out, in port order; their count. */
static int used_ports(engine *e, const int *streams, int n, const int32_t *words, port_use *out)
{
    int k = 0;
    for (int p = 0; p < n; p++) {
        if (words[p] <= 0)
            continue;
        const sim_stream_def *d = &e->g->streams[streams[p]];
        out[k++] = (port_use){&e->s[streams[p]], streams[p], words[p],
                              d->source_words > 0 || d->sink_words > 0};
    }
    return k;
}

/* Whether step_simple() times the task's run. */
static bool simple_run(const task_run *t)
{
    return t->n_in <= 1 && t->n_out <= 1 &&
           (t->n_in == 0 || (t->in[0].words == 1 && !t->in[0].marks)) &&
           (t->n_out == 0 || (t->out[0].words == 1 && !t->out[0].marks));
}

/* Loads the task's next run with iterations; false when its last frame is over. */
static bool next_run(engine *e, int task)
{
    task_run *t = &e->t[task];
    const sim_task_def *d = &e->g->tasks[task];
    const sim_program *p = &d->prog;
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
    t->n_in = used_ports(e, d->in, d->n_in, t->seg.rd, t->in);
    t->n_out = used_ports(e, d->out, d->n_out, t->seg.wr, t->out);
    t->simple = simple_run(t);
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

/* The start cycle of the next iteration, given the earliest one `next`, and the stream
 * that held it back (-1: none):
 * the last constraint found to bind, inputs first. */
static inline int64_t start_cycle(const task_run *t, int64_t next, int *held_by, bool *starved)
{
    int64_t start = next;
    *held_by = -1;
    for (int p = 0; p < t->n_in; p++) {
        const stream_run *s = t->in[p].s;
        int64_t avail = ring_get(&s->wt, s->nr + t->in[p].words - 1);
        if (avail > start) {
            start = avail;
            *held_by = t->in[p].stream;
            *starved = true;
        }
    }
    for (int p = 0; p < t->n_out; p++) {
        const stream_run *s = t->out[p].s;
        int64_t k = s->nw + t->out[p].words - 1 - s->depth;
        if (s->depth == 0 || k < 0)
            continue;
        int64_t room = ring_get(&s->rt, k) + 1 - t->seg.latency;
        if (room > start) {
            start = room;
            *held_by = t->out[p].stream;
            *starved = false;
        }
    }
    return start;
}

/* Frames whose first input word or last output word this read is: only the streams of
 * the graph's source and sink have them. */
static void note_frame_words(engine *e, const sim_stream_def *d, int64_t word, int64_t at)
{
    if (d->source_words > 0 && word % d->source_words == 0) {
        int64_t f = word / d->source_words;
        if (f < e->r->frames && (e->r->in_first[f] < 0 || at < e->r->in_first[f]))
            e->r->in_first[f] = at;
    }
    if (d->sink_words > 0 && (word + 1) % d->sink_words == 0) {
        int64_t f = word / d->sink_words;
        if (f < e->r->frames && at > e->r->out_last[f])
            e->r->out_last[f] = at;
    }
}

/* Ring room for the words below hi of stream k's read (or write) cycles: at once when an
 * earlier check covers it, else from the window's low end, moved on by settling the
 * occupancy of the words in it when the ring is full; false when out of memory. */
static inline bool make_room(engine *e, int k, bool reads, int64_t hi)
{
    stream_run *s = &e->s[k];
    ring *q = reads ? &s->rt : &s->wt;
    if (hi <= q->fits)
        return true;
    int64_t lo = reads ? read_window_lo(s) : write_window_lo(s);
    if (!ring_holds(q, lo, hi)) {
        occupancy_advance(s, &e->r->streams[k]);
        lo = reads ? read_window_lo(s) : write_window_lo(s);
        if (!ring_fit(q, lo, hi))
            return false;
    }
    q->fits = lo + q->mask + 1;
    return true;
}

/* Ring room for the next m iterations' reads and writes; false when out of memory. */
static bool fit_batch(engine *e, const task_run *t, int64_t m)
{
    for (int p = 0; p < t->n_in; p++)
        if (!make_room(e, t->in[p].stream, true, t->in[p].s->nr + m * t->in[p].words))
            return false;
    for (int p = 0; p < t->n_out; p++)
        if (!make_room(e, t->out[p].stream, false, t->out[p].s->nw + m * t->out[p].words))
            return false;
    return true;
}

/* Iterations of the task's run that can start now with no other task moving: each input
 * holds the words and each output the room of all of them. Stepping one by one reaches
 * the same count, since the words and room a run sees only shrink while it runs alone.
 * 0 when the next one cannot start, with why in t->wait: the first port in order,
 * inputs before outputs, that lacks its words or room. */
static inline int64_t batch_size(task_run *t)
{
    int64_t m = t->left;
    for (int p = 0; p < t->n_in; p++) {
        const stream_run *s = t->in[p].s;
        int64_t w = t->in[p].words, n = s->nw - s->nr;
        n = w == 1 ? n : n / w;
        if (n == 0) {
            t->wait = WAIT_WORDS;
            t->wait_stream = t->in[p].stream;
            return 0;
        }
        m = n < m ? n : m;
    }
    for (int p = 0; p < t->n_out; p++) {
        const stream_run *s = t->out[p].s;
        int64_t w = t->out[p].words, n = s->nr + s->depth - s->nw;
        n = w == 1 ? n : n / w;
        if (s->depth > 0 && n == 0) {
            t->wait = WAIT_ROOM;
            t->wait_stream = t->out[p].stream;
            return 0;
        }
        m = s->depth > 0 && n < m ? n : m;
    }
    t->wait = WAIT_NONE;
    return m;
}

static inline void read_words(engine *e, const port_use *u, int64_t at)
{
    stream_run *s = u->s;
    for (int k = 0; k < u->words; k++, s->nr++) {
        ring_set(&s->rt, s->nr, at);
        if (u->marks)
            note_frame_words(e, &e->g->streams[u->stream], s->nr, at);
    }
}

static inline void write_words(const port_use *u, int64_t at)
{
    stream_run *s = u->s;
    if (at < s->last_wt)
        at = s->last_wt;
    s->last_wt = at;
    for (int k = 0; k < u->words; k++, s->nw++)
        ring_set(&s->wt, s->nw, at);
}

/* The stream's counts after `words` more were written (the last of them at s->last_wt). */
static void note_writes(sim_stream_stats *st, const stream_run *s, int64_t words)
{
    if (words <= 0)
        return;
    if (st->words == 0)
        st->first_write = ring_get(&s->wt, s->nw - words);
    st->words += words;
    st->last_write = s->last_wt;
}

/* The counts every way of stepping a task keeps: m more iterations, busy for ii each,
 * the last ending at `next`. */
static void end_iterations(engine *e, int task, int64_t m, int64_t next)
{
    task_run *t = &e->t[task];
    sim_task_stats *st = &e->r->tasks[task];
    st->iterations += m;
    e->r->iterations += (uint64_t)m;
    st->busy_cycles += m * t->seg.ii;
    t->next = next;
    st->last_end = next;
    t->left -= m;
}

/* step() for the commonest runs, at most one input and one output moving one word each
 * on streams that time no frames: the same arithmetic without the port loops. */
static void step_simple(engine *e, int task, int64_t m)
{
    task_run *t = &e->t[task];
    sim_task_stats *st = &e->r->tasks[task];
    stream_run *a = t->n_in ? t->in[0].s : NULL, *b = t->n_out ? t->out[0].s : NULL;
    int a_id = t->n_in ? t->in[0].stream : -1, b_id = t->n_out ? t->out[0].stream : -1;
    const int64_t lat = t->seg.latency, ii = t->seg.ii;
    int64_t next = t->next;
    for (int64_t j = 0; j < m; j++) {
        int64_t start = next;
        int held_by = -1;
        bool starved = false;
        if (a && ring_get(&a->wt, a->nr) > start) {
            start = ring_get(&a->wt, a->nr);
            held_by = a_id;
            starved = true;
        }
        if (b && b->depth > 0 && b->nw - b->depth >= 0 &&
            ring_get(&b->rt, b->nw - b->depth) + 1 - lat > start) {
            start = ring_get(&b->rt, b->nw - b->depth) + 1 - lat;
            held_by = b_id;
            starved = false;
        }
        int64_t gap = start - next;
        if (held_by >= 0 && gap > 0) {
            if (starved)
                st->starved_cycles += gap;
            else
                st->blocked_cycles += gap;
            note_stall(e, task, held_by, gap);
        }
        if (a)
            ring_set(&a->rt, a->nr++, start);
        if (b) {
            int64_t at = start + lat > b->last_wt ? start + lat : b->last_wt;
            b->last_wt = at;
            ring_set(&b->wt, b->nw++, at);
        }
        if (st->iterations == 0 && j == 0)
            st->first_start = start;
        next = start + ii;
    }
    if (b)
        note_writes(&e->r->streams[b_id], b, m);
    end_iterations(e, task, m, next);
}

/* m iterations of the task's run, each timed as engine.h says (their words and room
 * are there: batch_size). */
static void step(engine *e, int task, int64_t m)
{
    task_run *t = &e->t[task];
    sim_task_stats *st = &e->r->tasks[task];
    int64_t next = t->next;
    for (int64_t j = 0; j < m; j++) {
        int held_by;
        bool starved = false;
        int64_t start = start_cycle(t, next, &held_by, &starved);
        int64_t gap = start - next;
        if (held_by >= 0 && gap > 0) {
            if (starved)
                st->starved_cycles += gap;
            else
                st->blocked_cycles += gap;
            note_stall(e, task, held_by, gap);
        }
        for (int p = 0; p < t->n_in; p++)
            read_words(e, &t->in[p], start);
        for (int p = 0; p < t->n_out; p++)
            write_words(&t->out[p], start + t->seg.latency);
        if (st->iterations == 0 && j == 0)
            st->first_start = start;
        next = start + t->seg.ii;
    }
    for (int p = 0; p < t->n_out; p++)
        note_writes(&e->r->streams[t->out[p].stream], t->out[p].s, m * t->out[p].words);
    end_iterations(e, task, m, next);
}

/* A run that moves no words waits for nothing: up to m of its iterations at once, each
 * ii after the last. Returns how many it took. */
static int64_t step_free(engine *e, int task, int64_t m)
{
    task_run *t = &e->t[task];
    sim_task_stats *st = &e->r->tasks[task];
    if (m > t->left)
        m = t->left;
    if (st->iterations == 0)
        st->first_start = t->next;
    end_iterations(e, task, m, t->next + m * t->seg.ii);
    return m;
}

/* Iterations until the next clock or cap check (at the same iteration counts as when
 * stepping one by one). */
static int64_t until_check(const engine *e)
{
    uint64_t done = e->r->iterations;
    int64_t m = 4096 - (int64_t)(done & 4095);
    if (e->o->max_iterations && (int64_t)(e->o->max_iterations - done) < m)
        m = (int64_t)(e->o->max_iterations - done);
    return m;
}

/* Runs the task's iterations until it waits or ends; true when it moved. */
static bool advance(engine *e, int task)
{
    task_run *t = &e->t[task];
    bool moved = false;
    while (!e->nomem) {
        if (t->left == 0 && !next_run(e, task)) {
            t->done = true;
            t->wait = WAIT_NONE;
            break;
        }
        int64_t m = batch_size(t);
        if (m == 0)
            break;
        if (e->o->max_iterations && e->r->iterations >= e->o->max_iterations)
            break;
        /* the clock is read once per 4096 iterations: the check costs nothing measurable */
        if (e->o->deadline_s > 0 && (e->r->iterations & 4095) == 0 &&
            (e->r->stopped_early || cm_seconds_now() >= e->o->deadline_s)) {
            e->r->stopped_early = true;
            break;
        }
        int64_t cap = until_check(e);
        m = m < cap ? m : cap;
        moved = true;
        if (t->n_in + t->n_out == 0) {
            step_free(e, task, m);
        } else if (!fit_batch(e, t, m)) {
            e->nomem = true;
        } else if (t->simple) {
            step_simple(e, task, m);
        } else {
            step(e, task, m);
        }
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

/* The occupancy of the words not yet settled (it is settled only when a ring fills): the
 * same walk as occupancy_advance for the words the reader got past; the others were
 * never read after them (a deadlock, or the frames ran out): everything unread counts
 * as held. */
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
            wake_if_waiting(&e, g->streams[d->in[p]].writer, d->in[p], WAIT_ROOM);
        for (int p = 0; p < d->n_out; p++)
            wake_if_waiting(&e, g->streams[d->out[p]].reader, d->out[p], WAIT_WORDS);
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
