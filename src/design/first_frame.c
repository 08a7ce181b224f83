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
 * the partition. */
#include "design/design_internal.h"

#include <math.h>
#include <stdlib.h>

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

double cm_design_row_spread(const cm_block_timing *producer)
{
    return (producer->out_rows - 1.0) * producer->row_stride + 1.0;
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

/* Block i's first and last output word, from its producers' (those before `first`,
 * in an earlier partition, stream from off-chip memory). */
static frame_time node_time(const cm_design *d, int first, int i, const frame_time *ft)
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
        in.first_out = maxd(in.first_out, ft[p].first_out);
        in.last_out = maxd(in.last_out, ft[p].last_out);
        burst = maxd(burst, d->state[p].cost.timing.burst_words);
    }
    if (from_memory) {
        const double beat = c->timing.beat_words > 0 ? c->timing.beat_words : 1.0;
        in.last_out = maxd(in.last_out, words / beat);
    }
    frame_time out = block_time(c, words, burst, in);
    const cm_block_timing *t = &c->timing;
    double taken = 0.0; /* when its producers' last rows are taken */
    for (int k = 0; k < n->n_pred; k++) {
        const int p = n->pred[k];
        if (p < first)
            continue;
        const cm_block_timing *pt = &d->state[p].cost.timing;
        const double rows = pt->out_rows > 0 ? pt->out_rows : 1.0;
        taken = maxd(taken, cm_design_last_row_taken(pt, ft[p].first_out, ft[p].last_out,
                                                     (double)d->hd.nodes[p].size_out / rows,
                                                     c->cycles / words));
    }
    /* a block whose first output needs its whole input (an inner product) writes it
     * only once all is taken */
    if (t->fill_words >= words)
        out.first_out = maxd(out.first_out, taken + t->head_cycles);
    out.last_out = maxd(maxd(out.last_out, taken + t->tail_cycles), out.first_out);
    return out;
}

double cm_design_first_frame(const cm_design *d, int first, int end, int from, double *scratch)
{
    frame_time *ft = (frame_time *)(void *)scratch; /* per node, kept between calls */
    double latency = 0.0;
    for (int i = first; i < end; i++) {
        const cm_hd_node *n = &d->hd.nodes[i];
        if (i >= from)
            ft[i] = node_time(d, first, i, ft);
        bool leaves = n->n_succ == 0;
        for (int k = 0; k < n->n_succ; k++)
            leaves |= n->succ[k] >= end;
        if (leaves)
            latency = maxd(latency, ft[i].last_out);
    }
    return latency;
}

/* Along a chain, every block before the slowest delays the slowest one's start by at
 * least its own fill and head (first outputs only follow first inputs), every block
 * after it adds at least its tail to the end, and the slowest adds its start and rest
 * less its cycles: so the depth of a chain partition is at least the sum over its
 * blocks of the least of the three. (Off a chain the slowest need not lie on the
 * path, so searches bound branchy partitions' depth by 0.) */
double cm_design_depth_bound(const cm_block_cost *c)
{
    const cm_block_timing *t = &c->timing;
    const double before = t->fill_cycles + t->head_cycles, after = t->tail_cycles;
    const double slowest = t->start_cycles + t->rest_cycles - c->cycles;
    return fmin(fmin(before, after), slowest);
}
