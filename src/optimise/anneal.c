/* The simulated-annealing optimiser (SAMO section IV-C, Algorithm 1, eq. 11): random
 * changes of one folding variable (propagated through the matching constraints) or of
 * the cuts, accepted by the Metropolis rule, from the resource-minimal, fully split
 * design, with restarts from the best design until the time limit or until restarts
 * stop improving it.
 *
 * Choices beyond the paper, and why:
 * - Scale-free acceptance. eq. 11 compares a cost difference with the temperature K;
 *   costs range from microseconds to seconds across networks, so the difference is
 *   divided by a reference cost O_ref and multiplied by ANNEAL_SCALE:
 *   psi = exp(min(0, -(O(V) - O(Vprev)) / O_ref * ANNEAL_SCALE / K)). O_ref is the cost
 *   of the first feasible design of the run: the starting design, or the first
 *   feasible one met when the start does not fit; a restart, starting from the best
 *   design, takes that design's cost, so the scale follows the search down. At the
 *   first temperature (K = 1000) a move that worsens the cost by 10% of O_ref is kept
 *   with probability 1/e, at the last (K = 1) one that worsens it by 0.01%.
 * - Temperature: the paper's K = 1000 cooled by 2% per step down to K_min = 1 (342
 *   steps), then ANNEAL_QUENCH_STEPS steps at K = 0 (only moves that do not worsen)
 *   to settle the last foldings. Each step is a Metropolis chain of ANNEAL_MOVES_MIN
 *   moves, or ANNEAL_MOVES_PER_NODE per node on larger networks, each move tested and
 *   accepted on its own (SAMO's code applies its 100 moves as one compound change,
 *   which is rarely feasible near a good design). A move that breaks a constraint is
 *   undone and does not count, so infeasible moves do not cool (the paper's rule); a
 *   step also ends after ANNEAL_ATTEMPTS times its moves so that a crowded design
 *   cannot stall it.
 * - Moves: a partition move with probability 0.1 (split or merge, half and half, at a
 *   random place; a merge that does not fit restarts the joined partition from its
 *   resource-minimal folding, see unfold_partition), otherwise a random value of a
 *   random folding variable (drawn uniformly among the variables with more than one
 *   valid value), propagated through the matching constraints.
 * - Infeasible start. When even the fully split, resource-minimal design breaks the
 *   resource or bandwidth limits, the same schedule anneals a violation measure (the
 *   sum over partitions of each resource's and the bandwidth's relative excess) until
 *   a feasible design appears; from then on the cost is annealed. If none appears,
 *   the least violating design is left in place.
 * - Restarts, in rounds. The search runs rounds of ANNEAL_ROUND restarts; every
 *   restart of a round cools from the round's best design on a design of its own (a
 *   copy sharing the graph, design/design_copy.h), at the starting temperature, with a
 *   seed derived from the user's seed and its restart number (round x ANNEAL_ROUND +
 *   index). The round's best is the best design any of its restarts found (ties to the
 *   lowest index). The search stops after ANNEAL_PATIENCE restarts (two rounds) in a
 *   row that do not improve the best design by more than a relative
 *   ANNEAL_IMPROVEMENT, or when it has made its budget of moves (cm_optimise_budget;
 *   each restart of a round may make its share of what is left), or at the user's time
 *   limit if one is given. Restarting one at a time with a patience of 12, as before
 *   rounds, took 15 restarts on MobileNetV1/FINN/U250 (seed 1, 0.6758 ms); rounds of 4
 *   with a patience of 12 took 52 (0.6734 ms), with 8 they take 20 (0.6767 ms), about
 *   half the old time on two cores.
 * - Threads. The restarts of a round are independent, so --threads N runs them on N
 *   threads (cm_optimise_options.threads). Nothing about a round depends on N: the
 *   restarts, their designs, seeds and budgets are the same, so the design found, the
 *   evaluations and the note are the same for any N.
 * - Reproducibility. The budget is a count, so by default nothing depends on time: the
 *   same seed gives the same design byte for byte on any machine and any number of
 *   threads. Only a time limit the user gives is looked at on the clock, and a binding
 *   one can change the result.
 */
#include "optimise/optimisers.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>

#include "design/design_copy.h"
#include "util/parallel.h"
#include "util/progress.h"
#include "util/rng.h"

#define ANNEAL_K_START 1000.0
#define ANNEAL_K_MIN 1.0
#define ANNEAL_COOLING 0.98
#define ANNEAL_SCALE 1e4
#define ANNEAL_QUENCH_STEPS 30
#define ANNEAL_MOVES_MIN 100
#define ANNEAL_MOVES_PER_NODE 4
#define ANNEAL_ATTEMPTS 10
#define ANNEAL_P_PARTITION 0.1
#define ANNEAL_ROUND 4
#define ANNEAL_PATIENCE 8
#define ANNEAL_IMPROVEMENT 1e-9

/* A design's standing: feasible designs compare by cost, infeasible ones by how far
 * they break the limits; any feasible design beats any infeasible one. */
typedef struct standing {
    bool feasible;
    double value; /* cost in seconds, or the violation measure */
} standing;

/* One folding variable that can take more than one value. */
typedef struct variable {
    int node;
    cm_fold which;
} variable;

struct search;

/* One restart of a round: its own design and random sequence; it reads the search's
 * move lists and settings, and writes only to itself. */
typedef struct anneal {
    const struct search *s;
    cm_design *d;
    cm_rng rng;
    cm_design_point *prev, *best;
    standing cur, best_standing;
    double ref;         /* the normaliser of eq. 11: first feasible cost, or violation */
    bool ref_feasible;  /* which of the two ref holds */
    uint64_t moves, share;  /* moves tried in this restart, and how many it may try */
    bool out_of_time, out_of_budget;
    int restart;
    cm_progress *progress; /* restart 0 of a round draws the bar; NULL for the others */
} anneal;

typedef struct search {
    const cm_optimise_options *opt;
    variable *vars;
    int n_vars;
    int *cut_places; /* nodes the backend may cut after (when reconfiguration is on) */
    int n_cut_places;
    int moves_per_step;
    anneal run[ANNEAL_ROUND]; /* run[0] works on the caller's design, the others on copies */
    cm_design_point *best;
    standing best_standing;
    double ref;
    bool ref_feasible;
    double start, limit_s;  /* limit_s: the user's time limit, 0: none */
    uint64_t moves, budget;  /* moves tried in all rounds, and how many the budget allows */
    bool out_of_time, out_of_budget;
    int rounds, stale;
    cm_progress progress;
} search;

static double excess(double used, double have)
{
    if (have <= 0)
        return used > 0 ? used : 0;
    return used > have ? used / have - 1.0 : 0.0;
}

/* How far the design is from fitting: relative excess of every resource and of the
 * bandwidth, summed over partitions. Matching never breaks (moves propagate it and
 * are undone when they cannot), so resources and bandwidth are what is left. */
static double violation(const cm_design *d)
{
    const cm_board *b = cm_design_board(d);
    const cm_resources *have = cm_design_limits(d);
    double v = 0.0;
    for (int p = 0; p < cm_design_partition_count(d); p++) {
        cm_partition_info pi;
        cm_design_partition_info(d, p, &pi);
        v += excess((double)pi.res.dsp, (double)have->dsp);
        v += excess((double)pi.res.bram18, (double)have->bram18);
        v += excess((double)pi.res.uram, (double)have->uram);
        v += excess((double)pi.res.lut, (double)have->lut);
        v += excess((double)pi.res.ff, (double)have->ff);
        v += excess(pi.bandwidth_gbps, b->bandwidth_gbps);
    }
    /* Rounding can leave a design at the bandwidth limit exactly, which eq. 7 forbids. */
    return v > 0 ? v : 1e-12;
}

static standing standing_of(const cm_design *d)
{
    if (cm_design_feasible(d))
        return (standing){true, cm_design_cost(d)};
    return (standing){false, violation(d)};
}

static bool better(standing a, standing b)
{
    if (a.feasible != b.feasible)
        return a.feasible;
    return a.value < b.value * (1.0 - ANNEAL_IMPROVEMENT);
}

static void search_free(search *s)
{
    free(s->vars);
    free(s->cut_places);
    cm_design_point_free(s->best);
    for (int i = 0; i < ANNEAL_ROUND; i++) {
        cm_design_point_free(s->run[i].prev);
        cm_design_point_free(s->run[i].best);
        if (i > 0)
            cm_design_copy_free(s->run[i].d);
    }
}

static void list_moves(search *s, const cm_design *d)
{
    bool reconf = cm_design_options_of(d)->reconfiguration;
    for (int i = 0; i < cm_design_node_count(d); i++) {
        for (int k = 0; k < 3; k++) {
            int count;
            cm_design_fold_values(d, i, (cm_fold)k, &count);
            if (count > 1)
                s->vars[s->n_vars++] = (variable){i, (cm_fold)k};
        }
        if (reconf && cm_design_can_cut_after(d, i))
            s->cut_places[s->n_cut_places++] = i;
    }
}

/* The restarts' copies of the design, built on the lanes: each re-costs every node
 * (0.08 s for 30,000 FINN nodes), and all are made before the search can look at the
 * clock. The copies only read the design and its graph. */
typedef struct copies {
    search *s;
    const cm_design *from;
    cm_status st[ANNEAL_ROUND];
    cm_error err[ANNEAL_ROUND];
} copies;

static void copy_task(void *ctx, int task, int lane)
{
    (void)lane;
    copies *c = ctx;
    const int i = task + 1; /* restart 0 works on the design itself */
    c->st[i] = cm_design_copy_new(c->from, &c->s->run[i].d, &c->err[i]);
}

/* Every restart's design (the copies start as d is, split) and design points. */
static cm_status runs_init(search *s, cm_design *d, cm_error *err)
{
    copies c = {.s = s, .from = d};
    cm_parallel_run(ANNEAL_ROUND - 1, s->opt->threads, copy_task, &c, NULL);
    for (int i = 1; i < ANNEAL_ROUND; i++)
        if (c.st[i] != CM_OK) {
            if (err)
                *err = c.err[i];
            return c.st[i];
        }
    for (int i = 0; i < ANNEAL_ROUND; i++) {
        anneal *a = &s->run[i];
        a->s = s;
        if (i == 0)
            a->d = d;
        a->prev = cm_design_point_new(a->d);
        a->best = cm_design_point_new(a->d);
        if (!a->prev || !a->best)
            return cm_error_nomem(err);
    }
    return CM_OK;
}

static cm_status search_init(search *s, cm_design *d, const cm_optimise_options *o,
                             cm_error *err)
{
    s->opt = o;
    s->start = cm_seconds_now(); /* copying the design counts towards the time limit */
    int n = cm_design_node_count(d);
    s->vars = calloc(3 * (size_t)n, sizeof *s->vars);
    s->cut_places = calloc((size_t)n, sizeof *s->cut_places);
    if (cm_design_options_of(d)->reconfiguration)
        cm_design_split_all(d);
    s->best = cm_design_point_new(d);
    if (!s->vars || !s->cut_places || !s->best)
        return cm_error_nomem(err);
    cm_status st = runs_init(s, d, err);
    if (st != CM_OK)
        return st;
    list_moves(s, d);
    s->moves_per_step = n * ANNEAL_MOVES_PER_NODE > ANNEAL_MOVES_MIN ? n * ANNEAL_MOVES_PER_NODE
                                                                      : ANNEAL_MOVES_MIN;
    s->best_standing = standing_of(d);
    s->ref = s->best_standing.value;
    s->ref_feasible = s->best_standing.feasible;
    s->limit_s = o->time_limit_s;
    s->budget = cm_optimise_budget(o, n);
    return CM_OK;
}

/* A random value of a random folding variable, propagated; false when the
 * propagation finds no consistent assignment (nothing changed) or nothing can move. */
static bool variable_move(anneal *a)
{
    if (a->s->n_vars == 0)
        return false;
    variable v = a->s->vars[cm_rng_below(&a->rng, (uint64_t)a->s->n_vars)];
    int count;
    const int64_t *vals = cm_design_fold_values(a->d, v.node, v.which, &count);
    return cm_design_set_fold_propagate(a->d, v.node, v.which,
                                        vals[cm_rng_below(&a->rng, (uint64_t)count)]);
}

static bool ends_partition(const cm_design *d, int node)
{
    cm_node_info here, next;
    cm_design_node_info(d, node, &here);
    cm_design_node_info(d, node + 1, &next);
    return here.partition != next.partition;
}

/* Every folding of partition p at its smallest value (propagated to neighbours). Two
 * partitions tuned apart rarely fit together as they are, so a merge that does not
 * fit starts the joined partition again from its resource-minimal folding; without
 * this, merges that save a reconfiguration are almost never feasible. */
static void unfold_partition(cm_design *d, int p)
{
    int first = cm_design_partition_first(d, p);
    int end = p + 1 < cm_design_partition_count(d) ? cm_design_partition_first(d, p + 1)
                                                   : cm_design_node_count(d);
    for (int i = first; i < end; i++)
        for (int k = 0; k < 3; k++) {
            int count;
            const int64_t *vals = cm_design_fold_values(d, i, (cm_fold)k, &count);
            cm_design_set_fold_propagate(d, i, (cm_fold)k, vals[0]);
        }
}

/* A split at a random allowed place or a merge of a random pair of neighbours, half
 * and half; false when the drawn kind has nowhere to act. */
static bool partition_move(anneal *a)
{
    const search *s = a->s;
    if (cm_rng_below(&a->rng, 2) == 0) {
        if (s->n_cut_places == 0)
            return false;
        int node = s->cut_places[cm_rng_below(&a->rng, (uint64_t)s->n_cut_places)];
        return !ends_partition(a->d, node) && cm_design_split(a->d, node, NULL) == CM_OK;
    }
    int parts = cm_design_partition_count(a->d);
    if (parts < 2)
        return false;
    int p = (int)cm_rng_below(&a->rng, (uint64_t)parts - 1);
    if (cm_design_merge(a->d, p, NULL) != CM_OK)
        return false;
    if (!cm_design_feasible(a->d))
        unfold_partition(a->d, p);
    return true;
}

static bool random_move(anneal *a)
{
    a->moves++;
    if (a->s->n_cut_places > 0 && cm_rng_unit(&a->rng) < ANNEAL_P_PARTITION)
        return partition_move(a);
    return variable_move(a);
}

/* eq. 11 on the normalised difference. */
static bool accept(anneal *a, standing next, double k)
{
    double delta = (next.value - a->cur.value) / a->ref * ANNEAL_SCALE;
    if (delta <= 0)
        return true;
    if (k <= 0)
        return false;
    return exp(-delta / k) >= cm_rng_unit(&a->rng);
}

/* The first feasible design fixes the normaliser and switches from annealing the
 * violation to annealing the cost. */
static void note_feasible(anneal *a, standing s)
{
    if (s.feasible && !a->ref_feasible) {
        a->ref = s.value > 0 ? s.value : 1.0;
        a->ref_feasible = true;
    }
}

static void keep_if_best(anneal *a, standing s)
{
    if (better(s, a->best_standing)) {
        a->best_standing = s;
        cm_design_point_capture(a->d, a->best);
    }
}

/* One move: returns whether it counts towards the step (it was a valid candidate in
 * the current regime: feasible once a feasible design is known). */
static bool one_move(anneal *a, double k)
{
    if (!random_move(a))
        return false;
    standing next = standing_of(a->d);
    if (a->ref_feasible && !next.feasible) {
        cm_design_point_restore(a->d, a->prev);
        return false;
    }
    note_feasible(a, next);
    if (next.feasible != a->cur.feasible || accept(a, next, k)) {
        a->cur = next;
        cm_design_point_capture(a->d, a->prev);
        keep_if_best(a, next);
    } else {
        cm_design_point_restore(a->d, a->prev);
    }
    return true;
}

/* Whether the restart's share of the budget is spent or the user's time limit has
 * passed (checked between moves too: on a large network one temperature step is many
 * moves of O(nodes) each). */
static bool past_limit(anneal *a)
{
    if (a->out_of_time || a->out_of_budget)
        return true;
    if (a->moves >= a->share)
        a->out_of_budget = true;
    else if (a->s->limit_s > 0 && cm_seconds_now() - a->s->start > a->s->limit_s)
        a->out_of_time = true;
    return a->out_of_time || a->out_of_budget;
}

static void temperature_step(anneal *a, double k)
{
    int done = 0;
    int moves = a->s->moves_per_step;
    for (int tries = 0; done < moves && tries < moves * ANNEAL_ATTEMPTS; tries++) {
        if ((tries & 63) == 63 && past_limit(a))
            return;
        done += one_move(a, k);
    }
}

/* The bar follows restart 0 of the round, as if the round's others kept pace. */
static void show_progress(anneal *a, double k)
{
    if (!a->progress)
        return;
    const search *s = a->s;
    double cooled = log(ANNEAL_K_START / k) / log(ANNEAL_K_START / ANNEAL_K_MIN);
    double fraction = fmax((s->stale + ANNEAL_ROUND * cooled) / ANNEAL_PATIENCE,
                           (double)(s->moves + ANNEAL_ROUND * a->moves) / (double)s->budget);
    if (s->limit_s > 0)
        fraction = fmax(fraction, (cm_seconds_now() - s->start) / s->limit_s);
    char detail[96];
    snprintf(detail, sizeof detail, "restart %d, best %.4g %s", a->restart,
             s->best_standing.value * (s->best_standing.feasible ? 1e3 : 1.0),
             s->best_standing.feasible ? "ms" : "(infeasible)");
    cm_progress_update(a->progress, fraction > 1 ? 1 : fraction, detail);
}

/* One cooling run from the restart's design (the round's best). */
static void cool(anneal *a)
{
    cm_rng_seed(&a->rng, a->s->opt->seed + 0x9e3779b97f4a7c15ull * (uint64_t)a->restart);
    cm_design_point_capture(a->d, a->prev);
    a->cur = standing_of(a->d);
    if (a->cur.feasible && a->cur.value > 0)
        a->ref = a->cur.value;
    for (double k = ANNEAL_K_START; k >= ANNEAL_K_MIN && !past_limit(a); k *= ANNEAL_COOLING) {
        temperature_step(a, k);
        show_progress(a, k);
    }
    for (int q = 0; q < ANNEAL_QUENCH_STEPS && !past_limit(a); q++) {
        temperature_step(a, 0.0);
        show_progress(a, ANNEAL_K_MIN);
    }
}

static void cool_task(void *ctx, int i, int lane)
{
    (void)lane;
    cool(&((search *)ctx)->run[i]);
}

/* Every restart of the round starts from the round's best with its share of what is
 * left of the budget. */
static void round_start(search *s)
{
    uint64_t left = s->budget > s->moves ? s->budget - s->moves : 0;
    for (int i = 0; i < ANNEAL_ROUND; i++) {
        anneal *a = &s->run[i];
        cm_design_point_restore(a->d, s->best);
        cm_design_point_capture(a->d, a->best);
        a->best_standing = s->best_standing;
        a->ref = s->ref;
        a->ref_feasible = s->ref_feasible;
        a->moves = 0;
        a->share = (left + ANNEAL_ROUND - 1) / ANNEAL_ROUND;
        a->out_of_time = a->out_of_budget = false;
        a->restart = s->rounds * ANNEAL_ROUND + i;
        a->progress = i == 0 ? &s->progress : NULL;
    }
}

/* Feasible first, then the lower value: the order among the round's restarts. */
static bool ahead(standing a, standing b)
{
    return a.feasible != b.feasible ? a.feasible : a.value < b.value;
}

/* The round's best restart (ties to the lowest index), its moves and its limits. */
static void round_end(search *s)
{
    int winner = -1;
    for (int i = 0; i < ANNEAL_ROUND; i++) {
        const anneal *a = &s->run[i];
        s->moves += a->moves;
        s->out_of_time |= a->out_of_time;
        if (better(a->best_standing, s->best_standing) &&
            (winner < 0 || ahead(a->best_standing, s->run[winner].best_standing)))
            winner = i;
    }
    if (winner >= 0) {
        anneal *w = &s->run[winner];
        s->best_standing = w->best_standing;
        cm_design_point_restore(w->d, w->best);
        cm_design_point_capture(w->d, s->best);
    }
    s->stale = winner >= 0 ? 0 : s->stale + ANNEAL_ROUND;
    if (s->best_standing.feasible && !s->ref_feasible) {
        s->ref = s->best_standing.value > 0 ? s->best_standing.value : 1.0;
        s->ref_feasible = true;
    }
    s->out_of_budget = s->moves >= s->budget;
    s->rounds++;
}

static void run(search *s)
{
    while (!s->out_of_time && !s->out_of_budget && s->stale < ANNEAL_PATIENCE) {
        round_start(s);
        cm_parallel_run(ANNEAL_ROUND, s->opt->threads, cool_task, s, NULL);
        round_end(s);
    }
    cm_design_point_restore(s->run[0].d, s->best);
}

cm_status cm_optimise_anneal(cm_design *d, const cm_optimise_options *o, cm_optimise_result *r,
                             cm_error *err)
{
    search s = {0};
    cm_status st = search_init(&s, d, o, err);
    if (st == CM_OK) {
        cm_progress_init(&s.progress, o->progress, "anneal");
        run(&s);
        cm_progress_done(&s.progress);
        /* the copies' evaluations: d's own are counted by cm_optimise */
        for (int i = 1; i < ANNEAL_ROUND; i++)
            r->evaluations += cm_design_evaluations(s.run[i].d);
        r->stopped_early = s.out_of_time || s.out_of_budget;
        snprintf(r->note, sizeof r->note, "%d restarts%s%s", s.rounds * ANNEAL_ROUND,
                 s.out_of_time     ? ", stopped by the time limit"
                 : s.out_of_budget ? ", stopped by the budget of moves"
                                   : "",
                 s.best_standing.feasible ? "" : "; no feasible design found");
    }
    search_free(&s);
    return st;
}
