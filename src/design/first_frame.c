/* The first frame's latency through a partition, from each block's timing
 * (cm_block_timing, src/hw): the cycles from the first input word in to the last output
 * word out when the partition streams one sample, its FIFOs deep enough never to
 * throttle it (the figure cnnmap simulate measures, section "Cycle-level simulation" of
 * the README).
 *
 * A block's input words arrive as its producers write them: from the producers' first
 * output word to their last, evenly (the partition's input streams in from off-chip at
 * the first blocks' beat). So a block's line-buffer fill takes its producer's time, not
 * its own, and a block after one that writes its whole output at the end (an inner
 * product, a global pool) gets it at once. In topological order, for block i with W
 * input words a sample, arriving from a (the producers' first output) to z (their last):
 *   at(k) = a + (z - a) * (k - b) / (W - b)             the k-th input word, the
 *                                                       producers writing b at a time
 *   F_i = max(at(fill_words), a + fill_cycles) + head   its first output word
 *   L_i = max(z + tail, max(at(start_words), a + start_cycles) + rest, F_i)
 * The partition's first-frame latency is the latest L of a block whose output leaves
 * the partition.
 *
 * Even spreading misses one thing: output rows that wait for the end of an input.
 * FINN's window generator writes a row's windows in the slots that read the next rows,
 * so its last rows, and padding's bottom rows, come only after the input's last word;
 * the rows after a burst of such rows wait for that burst, and so on down a chain. A
 * consumer slower than the burst is still working on it long after the producer's end
 * (MobileNetV1's first FINN partition: an MVAU three of its fourteen rows behind). So
 * each node carries "late" records (cm_late_rec): the share of its output that waits
 * for the last input word z of a source upstream, and L >= z + work * cycles for the
 * share of its work on it. The rows follow from the shapes alone (cm_block_timing's
 * late_* fields), so exact's program has the same rows (src/optimise/exact_ilp.c). */
#include "design/design_internal.h"

#include <limits.h>
#include <math.h>
#include <string.h>

static double maxd(double a, double b)
{
    return a > b ? a : b;
}

typedef struct frame_time {
    double first_out, last_out;
} frame_time;

/* When the k-th of `words` input words is in: the producers write them `burst` at a
 * time, the first burst at in.first_out and the last at in.last_out. */
static double word_at(frame_time in, double words, double burst, double k)
{
    if (k <= burst || words <= burst)
        return in.first_out;
    if (k >= words)
        return in.last_out;
    return in.first_out + (in.last_out - in.first_out) * (k - burst) / (words - burst);
}

/* A window striding down its input writes an output row only once the last input row
 * of its window is in, so its last row comes within the time of one input row: its
 * rows' times are spread over (R - 1) stride + 1 input rows. A consumer slower than
 * that (at `pace` cycles an input word, its cycles over its words) is still taking the
 * last row when the producer ends: it has taken the row's words at its own pace after
 * the row began. 0 when the producer writes no such rows (with a stride of 1 the
 * consumer's own work from its first word covers it). Exact's program has the same
 * rows (src/optimise/exact_ilp.c). */
double cm_design_last_row_taken(const cm_block_timing *producer, double first_out,
                                double last_out, double row_words, double pace)
{
    if (producer->out_rows < 2.0 || producer->row_stride < 2.0)
        return 0.0;
    return last_out - (last_out - first_out) / cm_design_row_spread(producer) + row_words * pace;
}

double cm_design_take_pace(const cm_block_cost *c, double words)
{
    if (c->timing.take_cycles > 0)
        return c->timing.take_cycles;
    return c->cycles / (words > 0 ? words : 1.0);
}

double cm_design_row_spread(const cm_block_timing *producer)
{
    return (producer->out_rows - 1.0) * producer->row_stride + 1.0;
}

int cm_design_row_source(const cm_design *d, int i)
{
    const cm_block_timing *t = &d->state[i].cost.timing;
    if (t->out_rows >= 2.0)
        return i;
    const cm_hd_node *n = &d->hd.nodes[i];
    return t->rows_through && n->n_pred == 1 ? d->row_source[n->pred[0]] : -1;
}

/* floor and ceil by conversion (the counts here are far below 2^53): libm's calls
 * would dominate the records' cost in the optimisers' incremental evaluation */
static double floor_of(double x)
{
    const double i = (double)(int64_t)x;
    return i > x ? i - 1.0 : i;
}

static double ceil_of(double x)
{
    const double i = (double)(int64_t)x;
    return i < x ? i + 1.0 : i;
}

/* A late share's mark that the row before its late rows is itself partly late (it
 * ends at the source's last word, or a part of it comes after): a fraction of a row
 * too small to change any count of rows or any work, which a block writing rows from
 * whole input rows (late_edge) counts as a late row. */
#define LATE_PART 1e-6

/* Output rows (of t->late_out_rows) that wait for an input of which the last r rows
 * are late (a fraction: part of a row, which only a late_edge block waits on whole):
 * row j waits for input row j * stride + base, late when at or past the first late
 * row. */
static double late_rows_out(const cm_block_timing *t, double r)
{
    const double late_in = t->late_edge ? ceil_of(r - 1e-9) : floor_of(r + 1e-9);
    const double threshold = t->late_in_rows - late_in;
    const double stride = t->late_stride > 0 ? t->late_stride : 1.0;
    double j0 = ceil_of((threshold - t->late_base) / stride - 1e-9);
    if (j0 < 0)
        j0 = 0;
    return j0 >= t->late_out_rows ? 0.0 : t->late_out_rows - j0;
}

/* A share of rows of the output, marked (LATE_PART) when the row before them is
 * partly late: a block that streams its rows as it reads them passes a part row on,
 * one that writes rows from whole input rows has made it whole. */
static double late_share(const cm_block_timing *t, double rows, bool part)
{
    return (rows + (part && !t->late_edge ? LATE_PART : 0.0)) / t->late_out_rows;
}

/* From a late share of the input: this node's late rows and the work on them. */
static cm_late_rec late_through(const cm_block_timing *t, int source, double in_share)
{
    const double r = in_share * t->late_in_rows;
    const double whole = floor_of(r + 1e-9);
    const double rows = late_rows_out(t, r);
    cm_late_rec rec = {source, late_share(t, rows, r - whole > 1e-9), whole / t->late_in_rows};
    if (t->late_by_output)
        rec.work = maxd(rec.work, rows / t->late_out_rows);
    return rec;
}

int cm_design_late_cap(const cm_design *d, int i)
{
    return 1 + CM_LATE_KEPT * d->hd.nodes[i].n_pred;
}

/* Merges rec into out[0..n), sorted by source: the same source keeps the larger share
 * and work. */
static int late_merge(cm_late_rec *out, int n, cm_late_rec rec)
{
    int k = n;
    while (k > 0 && out[k - 1].source > rec.source)
        k--;
    if (k > 0 && out[k - 1].source == rec.source) {
        out[k - 1].share = maxd(out[k - 1].share, rec.share);
        out[k - 1].work = maxd(out[k - 1].work, rec.work);
        return n;
    }
    for (int j = n; j > k; j--)
        out[j] = out[j - 1];
    out[k] = rec;
    return n + 1;
}

int cm_design_late_records(const cm_design *d, int first, int i, const double *late,
                           cm_late_rec *out)
{
    const cm_hd_node *n = &d->hd.nodes[i];
    const cm_block_timing *t = &d->state[i].cost.timing;
    if (t->late_in_rows <= 0)
        return 0;
    int count = 0;
    bool inside = false;
    for (int k = 0; k < n->n_pred; k++) {
        const int p = n->pred[k];
        if (p < first)
            continue;
        inside = true;
        const double *slot = late + (size_t)(p - first) * CM_LATE_STRIDE;
        const int kept = (int)slot[1];
        for (int r = 0; r < kept; r++) {
            const cm_late_rec rec = late_through(t, (int)slot[2 + 2 * r], slot[3 + 2 * r]);
            if (rec.work > 0 || rec.share > 0)
                count = late_merge(out, count, rec);
        }
    }
    if (inside) { /* its own last rows, after its input's last word (the last source):
                   * that word ends the input's last row, partly late to a late_edge
                   * block, and the row before the late rows ends with it */
        const double rows = late_rows_out(t, LATE_PART);
        if (rows > 0) {
            const double share = rows / t->late_out_rows;
            const cm_late_rec own = {i, late_share(t, rows, true), t->late_by_output ? share : 0.0};
            count = late_merge(out, count, own);
        }
    }
    return count;
}

void cm_design_late_keep(double *slot, const cm_late_rec *recs, int n)
{
    /* recs run by source: the nearest sources are the last with a late share */
    int from = n, kept = 0;
    while (from > 0 && kept < CM_LATE_KEPT) {
        from--;
        kept += recs[from].share > 0;
    }
    int c = 0;
    for (int k = from; k < n; k++)
        if (recs[k].share > 0) {
            slot[2 + 2 * c] = recs[k].source;
            slot[3 + 2 * c] = recs[k].share;
            c++;
        }
    slot[1] = c;
}

static frame_time block_time(const cm_block_cost *c, double words, double burst, frame_time in)
{
    const cm_block_timing *t = &c->timing;
    const double fill = maxd(word_at(in, words, burst, t->fill_words), in.first_out + t->fill_cycles);
    const double start =
        maxd(word_at(in, words, burst, t->start_words), in.first_out + t->start_cycles);
    frame_time out;
    out.first_out = fill + t->head_cycles;
    out.last_out = maxd(maxd(in.last_out + t->tail_cycles, start + t->rest_cycles), out.first_out);
    return out;
}

/* The shift still owed to node i's kept figures, so that a change that has become one
 * shift of the rest of a partition costs a range add, not a walk to the end. The owed
 * shift is a node's own entry plus its block's (blocks of 2^frame_block_shift nodes):
 * every timed node asks it of itself, its producers and its late sources, several
 * times a move, while a move owes at most one range; so a read is two loads and a
 * range add touches at most two partial blocks and the whole blocks between. The kept
 * figures are their true times less this. */
static double owed(const cm_design *d, int i)
{
    if (!d->frame_owes)
        return 0.0;
    const double *block = d->frame_owed + d->hd.n_nodes;
    return d->frame_owed[i] + block[i >> d->frame_block_shift];
}

/* Owes v to the nodes [from, to). */
static void owe(cm_design *d, int from, int to, double v)
{
    d->frame_owes++;
    double *block = d->frame_owed + d->hd.n_nodes;
    const int shift = d->frame_block_shift;
    int i = from;
    for (; i < to && (i & ((1 << shift) - 1)); i++)
        d->frame_owed[i] += v;
    for (; i + (1 << shift) <= to; i += 1 << shift)
        block[i >> shift] += v;
    for (; i < to; i++)
        d->frame_owed[i] += v;
}

int cm_design_frame_block_shift(int n)
{
    int shift = 2;
    while ((1 << (2 * shift)) < n && shift < 20)
        shift++;
    return shift;
}

size_t cm_design_frame_owed_size(int n, int block_shift)
{
    return (size_t)n + ((size_t)n >> block_shift) + 2;
}

/* Pays every kept figure what it is owed and empties the owed shifts: a fresh timing
 * then starts from true times (its figures never depend on the moves before). */
static void settle(cm_design *d)
{
    if (!d->frame_owes)
        return;
    const int n = d->hd.n_nodes;
    frame_time *ft = (frame_time *)(void *)d->scratch_time;
    double *in_last = d->scratch_time + 2 * (size_t)n;
    for (int i = 0; i < n; i++) {
        const double o = owed(d, i);
        ft[i].first_out += o;
        ft[i].last_out += o;
        in_last[(size_t)i * CM_LATE_STRIDE] += o;
        in_last[(size_t)i * CM_LATE_STRIDE + CM_LATE_INPUT_FIRST] += o;
        d->frame_unbound[i] += o;
    }
    memset(d->frame_owed, 0,
           cm_design_frame_owed_size(n, d->frame_block_shift) * sizeof *d->frame_owed);
    d->frame_owes = 0;
}

/* Whether two moves of figures around `scale` are one, to rounding: a figure is its
 * inputs' times through sums, maxima and shares of a spread, so when its inputs move
 * by m it moves by m in exact arithmetic but by m and a few units in the last place of
 * its own size in doubles. An exact comparison would call such a node's move unlike
 * and walk the change on (a quarter of ResNet-50's nodes timed a move on fpgaConvNet). */
static bool same_move(double a, double b, double scale)
{
    return fabs(a - b) <= 1e-13 * fabs(scale);
}

static frame_time time_of(const cm_design *d, const frame_time *ft, int p)
{
    const double o = owed(d, p);
    return (frame_time){ft[p].first_out + o, ft[p].last_out + o};
}

/* Whether some of node i's input comes from a producer in the partition. */
static bool reads_partition(const cm_design *d, int first, int i)
{
    const cm_hd_node *n = &d->hd.nodes[i];
    for (int k = 0; k < n->n_pred; k++)
        if (n->pred[k] >= first)
            return true;
    return false;
}

/* Window src's input's first and last word, kept in its late slot. */
static frame_time window_input(const cm_design *d, int src)
{
    const double *slot = d->scratch_time + 2 * (size_t)d->hd.n_nodes + (size_t)src * CM_LATE_STRIDE;
    const double o = owed(d, src);
    return (frame_time){slot[CM_LATE_INPUT_FIRST] + o, slot[0] + o};
}

/* Block i's first and last output word, from its producers' (those before `first`,
 * in an earlier partition, stream from off-chip memory). */
static frame_time node_time(const cm_design *d, int first, int i, const frame_time *ft,
                            frame_time *input)
{
    const cm_hd_node *n = &d->hd.nodes[i];
    const cm_block_cost *c = &d->state[i].cost;
    const double words = n->size_in > 0 ? (double)n->size_in : 1.0;
    frame_time in = {0.0, 0.0};
    double burst = 1.0;
    bool from_memory = n->n_pred == 0;
    for (int k = 0; k < n->n_pred; k++) {
        const int p = n->pred[k];
        if (p < first) {
            from_memory = true;
            continue;
        }
        const frame_time pt = time_of(d, ft, p);
        in.first_out = maxd(in.first_out, pt.first_out);
        in.last_out = maxd(in.last_out, pt.last_out);
        burst = maxd(burst, d->state[p].cost.timing.burst_words);
    }
    if (from_memory) {
        const double beat = c->timing.beat_words > 0 ? c->timing.beat_words : 1.0;
        in.last_out = maxd(in.last_out, words / beat);
    }
    *input = in;
    frame_time out = block_time(c, words, burst, in);
    const cm_block_timing *t = &c->timing;
    double taken = 0.0; /* when its producers' last rows are taken */
    double pace = -1.0;  /* its cm_design_take_pace, once a producer needs it */
    for (int k = 0; k < n->n_pred; k++) {
        const int p = n->pred[k];
        const int src = p < first ? -1 : d->row_source[p];
        if (src < first)
            continue; /* no window's rows before it, without the divisions */
        const cm_block_timing *pt = &d->state[src].cost.timing;
        const double out_words = (double)d->hd.nodes[p].size_out;
        if (pace < 0.0)
            pace = cm_design_take_pace(c, words);
        if (src == p && pt->row_stride >= 2.0) {
            const frame_time at = time_of(d, ft, p);
            taken = maxd(taken, cm_design_last_row_taken(pt, at.first_out, at.last_out,
                                                         out_words / pt->out_rows, pace));
        }
        /* the window's outputs after its last input word, and those its last input row
         * completes (each share less the last output, which the tail covers), taken
         * after they are written: the window's figures hold for the blocks passing its
         * rows on */
        if (!reads_partition(d, first, src))
            continue; /* its input's times are off-chip memory's (exact has no column) */
        const frame_time win = window_input(d, src);
        taken = maxd(taken, win.last_out + pt->tail_share * out_words * pace);
        taken = maxd(taken, win.last_out - pt->last_row_lead * (win.last_out - win.first_out) +
                                pt->last_row_share * out_words * pace);
    }
    /* a block whose first output needs its whole input (an inner product) writes it
     * only once all is taken */
    if (t->fill_words >= words)
        out.first_out = maxd(out.first_out, taken + t->head_cycles);
    out.last_out = maxd(maxd(out.last_out, taken + t->tail_cycles), out.first_out);
    return out;
}

/* Node i's records into its slot: those it keeps for its consumers, and those that
 * bound its last output (cached in d->late_bounds: they hold for every folding). */
static void late_records_into(const cm_design *d, int first, int i, double *late)
{
    double *slot = late + (size_t)(i - first) * CM_LATE_STRIDE;
    double *bound = d->late_bounds + 2 * d->late_at[i];
    cm_late_rec *r = d->late_scratch;
    const int count = cm_design_late_records(d, first, i, late, r);
    int bounds = 0;
    for (int k = 0; k < count; k++)
        if (r[k].work > 0) {
            bound[2 * bounds] = r[k].source;
            bound[2 * bounds + 1] = r[k].work;
            bounds++;
        }
    slot[CM_LATE_KEY] = first + 1.0;
    slot[CM_LATE_KEY + 1] = bounds;
    cm_design_late_keep(slot, r, count);
}

/* Node i's last output (a true time) no earlier than each late record allows. */
static void late_bound(const cm_design *d, int first, int i, double *late, double *last_out)
{
    double *slot = late + (size_t)(i - first) * CM_LATE_STRIDE;
    if (d->state[i].cost.timing.late_in_rows <= 0) { /* no late rows on this backend */
        slot[1] = 0;
        return;
    }
    if (slot[CM_LATE_KEY] != first + 1.0)
        late_records_into(d, first, i, late);
    const double cycles = d->state[i].cost.cycles;
    const double *bound = d->late_bounds + 2 * d->late_at[i];
    const int bounds = (int)slot[CM_LATE_KEY + 1];
    for (int k = 0; k < bounds; k++) {
        const int src = (int)bound[2 * k];
        const double z = late[(size_t)(src - first) * CM_LATE_STRIDE] + owed(d, src);
        *last_out = maxd(*last_out, z + bound[2 * k + 1] * cycles);
    }
}

/* How far node i's inputs moved in this timing (nodes from `from` on have their move
 * in frame_moved, those before it did not move): the one distance its producers and
 * the off-chip input (which never moves) all moved, or NAN when they moved apart or one
 * was timed afresh (its block changed, and consumers read its timing, not only its
 * times). */
static double inputs_moved(const cm_design *d, int from, int i, const frame_time *ft)
{
    const int only = d->only_pred[i]; /* most nodes: without reading the node's record
                                       * (not those after blocks passing a window's rows
                                       * on: design.c) */
    if (only >= 0)
        return only < from ? 0.0 : d->frame_moved[only];
    if (only == -1)
        return 0.0;
    const cm_hd_node *n = &d->hd.nodes[i];
    double moved = 0.0;
    bool any = n->n_pred == 0; /* the off-chip input is a source that stays put */
    for (int k = 0; k < n->n_pred; k++) {
        const int p = n->pred[k];
        const double m = p < from ? 0.0 : d->frame_moved[p];
        if (any && !same_move(m, moved, ft[p].last_out + owed(d, p)))
            return NAN;
        moved = m;
        any = true;
        /* and the window whose rows p passes on: node_time reads its input's times */
        const int src = d->row_source[p];
        const double ms = src < from ? 0.0 : d->frame_moved[src];
        if (src >= 0 && src != p && !same_move(ms, moved, ft[p].last_out + owed(d, p)))
            return NAN;
    }
    return moved;
}

/* Node i's figures moved with its inputs; its late bounds (whose sources may have
 * moved otherwise) applied again to its last output before them. Returns how far its
 * figures moved, NAN when not alike. */
static double move_node(const cm_design *d, int first, int i, double moved, double *late,
                        frame_time *ft)
{
    double *slot = late + (size_t)(i - first) * CM_LATE_STRIDE;
    ft[i].first_out += moved;
    slot[0] += moved;
    slot[CM_LATE_INPUT_FIRST] += moved;
    if (!d->frame_late[i]) {
        ft[i].last_out += moved;
        return moved;
    }
    const double o = owed(d, i), before = ft[i].last_out + o;
    d->frame_unbound[i] += moved;
    double last = d->frame_unbound[i] + o;
    late_bound(d, first, i, late, &last);
    ft[i].last_out = last - o;
    return same_move(last - before, moved, last) ? moved : NAN;
}

/* Node i timed afresh; returns how far its figures moved (NAN: not alike, or its block
 * changed). */
static double time_node(const cm_design *d, int first, int i, bool whole, double *late,
                        frame_time *ft)
{
    double *slot = late + (size_t)(i - first) * CM_LATE_STRIDE;
    const double o = owed(d, i);
    const frame_time before = {ft[i].first_out + o, ft[i].last_out + o};
    const frame_time before_in = {slot[CM_LATE_INPUT_FIRST] + o, slot[0] + o};
    frame_time in;
    frame_time now = node_time(d, first, i, ft, &in);
    slot[0] = in.last_out - o; /* before the late bounds: a node's own rows wait for it */
    slot[CM_LATE_INPUT_FIRST] = in.first_out - o;
    d->frame_unbound[i] = now.last_out - o;
    if (d->frame_late[i])
        late_bound(d, first, i, late, &now.last_out);
    else /* no late rows on this backend, none kept for its consumers */
        slot[1] = 0;
    ft[i] = (frame_time){now.first_out - o, now.last_out - o};
    const double df = now.first_out - before.first_out;
    const bool alike = !whole && !d->frame_stale[i] &&
                       same_move(now.last_out - before.last_out, df, now.last_out) &&
                       same_move(in.last_out - before_in.last_out, df, now.last_out) &&
                       (d->row_source[i] != i || /* its consumers read its input's first word */
                        same_move(in.first_out - before_in.first_out, df, now.last_out));
    d->frame_stale[i] = 0;
    return alike ? df : NAN;
}

void cm_design_frame_layout(cm_design *d, int first, int end)
{
    const double *late = d->scratch_time + 2 * (size_t)d->hd.n_nodes;
    /* from the end: the lowest node whose times any node from i on reads (a producer,
     * or the source of a late bound), -1 when one reads off-chip memory or its bounds
     * are not cached (first timed, then laid out) */
    int lowest = INT_MAX;
    int next_leaving = end;
    for (int i = end - 1; i >= first; i--) {
        const cm_hd_node *n = &d->hd.nodes[i];
        if (n->n_pred == 0)
            lowest = -1;
        for (int k = 0; k < n->n_pred; k++) {
            const int p = n->pred[k];
            lowest = p < first ? -1 : p < lowest ? p : lowest;
            /* and the window whose rows p passes on (its input's times: node_time) */
            const int src = p >= first ? d->row_source[p] : -1;
            if (src >= first && src < lowest)
                lowest = src;
        }
        if (d->frame_late[i]) {
            const double *slot = late + (size_t)i * CM_LATE_STRIDE;
            const double *bound = d->late_bounds + 2 * d->late_at[i];
            const int bounds = (int)slot[CM_LATE_KEY + 1];
            if (slot[CM_LATE_KEY] != first + 1.0)
                lowest = -1;
            for (int k = 0; k < bounds && lowest >= 0; k++) {
                const int src = (int)bound[2 * k];
                lowest = src < lowest ? src : lowest;
            }
        }
        d->frame_reads[i] = i > first && lowest < i ? lowest : -1;
        if (d->last_succ[i] < 0 || d->last_succ[i] >= end)
            next_leaving = i;
        d->next_leaving[i] = next_leaving;
    }
}

/* Every figure of a block is its inputs' times plus what its own timing adds, through
 * maxima and shares of the spread between its first and last input word: so when all
 * its inputs move by the same distance and its block is unchanged, its figures move by
 * that distance too (but for late bounds, whose sources may lie before the change). A
 * folding change thus re-times the nodes from the changed one only until the change
 * has become one shift of everything after it: at a node past the last changed block
 * where every time the rest of the partition reads (frame_reads) is one that moved by
 * that shift (in a residual network, the merge after the change) the rest is owed the
 * shift (owe) and not walked. The figures agree with a fresh timing to rounding (a
 * relative 1e-13 or so: moves alike to rounding count as alike, and every few thousand
 * shifts a partition is timed afresh); cm_design_part_refresh and cm_design_retime
 * time afresh. */
double cm_design_first_frame(const cm_design *d, int first, int end, int from, int stale_to,
                             bool whole)
{
    cm_design *w = (cm_design *)d; /* the caller's own design: its caches */
    if (d->frame_owes > 4096) { /* now and then from true times: moves taken as one to
                                  * rounding never add up to more than rounding */
        whole = true;
        from = first;
    }
    if (whole)
        settle(w);
    frame_time *ft = (frame_time *)(void *)d->scratch_time;
    double *late = d->scratch_time + 2 * (size_t)d->hd.n_nodes + (size_t)first * CM_LATE_STRIDE;
    int run = from; /* the nodes from run to i - 1 all moved alike */
    for (int i = from; i < end; i++) {
        if (!whole && i > from && i > stale_to && d->frame_reads[i] >= run) {
            const double m = d->frame_moved[i - 1];
            if (m == m) { /* the rest moves by m: owed, not walked */
                if (m != 0.0)
                    owe(w, i, end, m);
                break;
            }
        }
        const double moved = whole || d->frame_stale[i] ? NAN : inputs_moved(d, from, i, ft);
        const double m = moved == moved ? move_node(d, first, i, moved, late, ft)
                                        : time_node(d, first, i, whole, late, ft);
        d->frame_moved[i] = m;
        if (!(m == m))
            run = i + 1;
        else if (i > from && !same_move(m, d->frame_moved[i - 1], ft[i].last_out + owed(d, i)))
            run = i;
    }
    double latency = 0.0;
    if (whole) { /* any range, not only a partition's (whose layout is kept) */
        for (int i = first; i < end; i++)
            if (d->last_succ[i] < 0 || d->last_succ[i] >= end)
                latency = maxd(latency, ft[i].last_out + owed(d, i));
        return latency;
    }
    for (int i = d->next_leaving[first]; i < end; i = i + 1 < end ? d->next_leaving[i + 1] : end)
        latency = maxd(latency, ft[i].last_out + owed(d, i));
    return latency;
}

/* On any path from a block reading off-chip memory through the slowest block to one
 * whose output leaves the partition, every block before the slowest delays the
 * slowest one's start by at least its own fill and head (first outputs only follow
 * first inputs, and a block with several producers waits for the latest), every block
 * after it adds at least its tail to the end (last outputs follow last inputs), and
 * the slowest adds its start and rest less its cycles (the interval). */
cm_depth_terms cm_design_depth_terms(const cm_block_cost *c)
{
    const cm_block_timing *t = &c->timing;
    return (cm_depth_terms){.before = t->fill_cycles + t->head_cycles,
                            .after = t->tail_cycles,
                            .slowest = t->start_cycles + t->rest_cycles - c->cycles};
}
