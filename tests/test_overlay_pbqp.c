/* The PBQP solver of the overlay mapping (DYNAMAP section 4): on random series-parallel
 * graphs with random costs it finds the exhaustive-search optimum and says so, it never
 * does worse than choosing each vertex's cheapest option; on graphs that do not reduce
 * it still finds a finite assignment, no better than the optimum, and says it is not
 * proven. */
#include "test_support.h"

#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "overlay/pbqp.h"

#define MAX_V 10

typedef struct rng {
    uint64_t s;
} rng;

static uint32_t next(rng *r)
{
    r->s ^= r->s << 13;
    r->s ^= r->s >> 7;
    r->s ^= r->s << 17;
    return (uint32_t)(r->s >> 11);
}

static int below(rng *r, int n)
{
    return (int)(next(r) % (uint32_t)n);
}

static double random_cost(rng *r)
{
    return below(r, 12) == 0 ? INFINITY : (double)below(r, 1000) / 10.0;
}

typedef struct graph {
    int n, n_edges;
    int domain[MAX_V];
    int eu[64], ev[64];
} graph;

static void push(graph *g, int u, int v)
{
    g->eu[g->n_edges] = u;
    g->ev[g->n_edges] = v;
    g->n_edges++;
}

/* A random series-parallel graph: from one edge, repeatedly subdivide an edge (series),
 * add a two-edge path beside one (parallel), double one, or hang a vertex on one end. */
static void random_sp(rng *r, graph *g, int vertices)
{
    memset(g, 0, sizeof *g);
    g->n = 2;
    push(g, 0, 1);
    while (g->n < vertices) {
        int e = below(r, g->n_edges), u = g->eu[e], v = g->ev[e], w = g->n++;
        switch (below(r, 4)) {
        case 0: /* series */
            g->ev[e] = w;
            push(g, w, v);
            break;
        case 1: /* parallel path */
            push(g, u, w);
            push(g, w, v);
            break;
        case 2: /* parallel edge, then a series vertex elsewhere */
            push(g, u, v);
            push(g, v, w);
            break;
        default: /* pendant */
            push(g, below(r, 2) ? u : v, w);
            break;
        }
    }
    for (int i = 0; i < g->n; i++)
        g->domain[i] = 1 + below(r, 3);
}

static cm_pbqp *make(rng *r, const graph *g)
{
    cm_pbqp *p = NULL;
    assert_int_equal(cm_pbqp_new(g->n, g->domain, &p, NULL), CM_OK);
    for (int i = 0; i < g->n; i++)
        for (int x = 0; x < g->domain[i]; x++)
            cm_pbqp_costs(p, i)[x] = random_cost(r);
    for (int e = 0; e < g->n_edges; e++) {
        double m[9];
        for (int k = 0; k < g->domain[g->eu[e]] * g->domain[g->ev[e]]; k++)
            m[k] = random_cost(r);
        assert_int_equal(cm_pbqp_add_edge(p, g->eu[e], g->ev[e], m, NULL), CM_OK);
    }
    return p;
}

static double exhaustive(const cm_pbqp *p)
{
    int n = cm_pbqp_vertices(p), choice[MAX_V] = {0};
    double best = INFINITY;
    for (;;) {
        double c = cm_pbqp_evaluate(p, choice);
        if (c < best)
            best = c;
        int i = 0;
        while (i < n && ++choice[i] == cm_pbqp_domain(p, i))
            choice[i++] = 0;
        if (i == n)
            return best;
    }
}

/* Each vertex's cheapest own option, whatever its edges cost. */
static double greedy(const cm_pbqp *p)
{
    int choice[MAX_V];
    for (int i = 0; i < cm_pbqp_vertices(p); i++) {
        choice[i] = 0;
        for (int x = 1; x < cm_pbqp_domain(p, i); x++)
            if (cm_pbqp_costs((cm_pbqp *)p, i)[x] < cm_pbqp_costs((cm_pbqp *)p, i)[choice[i]])
                choice[i] = x;
    }
    return cm_pbqp_evaluate(p, choice);
}

static void assert_same_cost(double a, double b)
{
    if (isinf(a) || isinf(b))
        assert_true(isinf(a) && isinf(b));
    else
        assert_true(fabs(a - b) <= 1e-9 * (1.0 + fabs(b)));
}

static void test_series_parallel_equals_exhaustive(void **state)
{
    (void)state;
    rng r = {0x9e3779b97f4a7c15ull};
    for (int trial = 0; trial < 400; trial++) {
        graph g;
        random_sp(&r, &g, 2 + below(&r, MAX_V - 1));
        cm_pbqp *p = make(&r, &g);
        int choice[MAX_V];
        cm_pbqp_solution sol;
        assert_int_equal(cm_pbqp_solve(p, NULL, choice, &sol, NULL), CM_OK);
        assert_true(sol.optimal);
        assert_int_equal(sol.heuristic_vertex, -1);
        assert_same_cost(sol.cost, exhaustive(p));
        assert_same_cost(sol.cost, cm_pbqp_evaluate(p, choice));
        assert_true(sol.cost <= greedy(p) || isinf(greedy(p)));
        cm_pbqp_free(p);
    }
}

/* The complete graph on 4 vertices is the smallest that does not reduce. */
static void test_non_series_parallel_is_heuristic(void **state)
{
    (void)state;
    rng r = {12345};
    int worse = 0;
    for (int trial = 0; trial < 200; trial++) {
        graph g;
        memset(&g, 0, sizeof g);
        g.n = 4 + below(&r, 3);
        for (int u = 0; u < 4; u++)
            for (int v = u + 1; v < 4; v++)
                push(&g, u, v);
        for (int w = 4; w < g.n; w++)
            push(&g, below(&r, w), w);
        for (int i = 0; i < g.n; i++)
            g.domain[i] = 2 + below(&r, 2);
        cm_pbqp *p = make(&r, &g);
        int choice[MAX_V];
        cm_pbqp_solution sol;
        assert_int_equal(cm_pbqp_solve(p, NULL, choice, &sol, NULL), CM_OK);
        assert_false(sol.optimal);
        assert_in_range(sol.heuristic_vertex, 0, 3);
        assert_true(sol.heuristic_steps >= 1);
        double best = exhaustive(p);
        assert_true(sol.cost >= best - 1e-9 || isinf(best));
        worse += sol.cost > best + 1e-9;
        cm_pbqp_free(p);
    }
    print_message("heuristic above the optimum on %d of 200 K4 graphs\n", worse);
}

/* Three vertices in a path, costs by hand: the middle vertex's reduction leaves
 * T(x0, x2) = min over x1 of T01 + c1 + T12. */
static void test_hand_path(void **state)
{
    (void)state;
    int d[3] = {2, 2, 2};
    cm_pbqp *p = NULL;
    assert_int_equal(cm_pbqp_new(3, d, &p, NULL), CM_OK);
    double c0[2] = {1, 5}, c1[2] = {4, 0}, c2[2] = {2, 2};
    memcpy(cm_pbqp_costs(p, 0), c0, sizeof c0);
    memcpy(cm_pbqp_costs(p, 1), c1, sizeof c1);
    memcpy(cm_pbqp_costs(p, 2), c2, sizeof c2);
    double t01[4] = {0, 10, 0, 0}, t12[4] = {0, 3, 7, 0};
    assert_int_equal(cm_pbqp_add_edge(p, 0, 1, t01, NULL), CM_OK);
    assert_int_equal(cm_pbqp_add_edge(p, 1, 2, t12, NULL), CM_OK);
    /* x0=0 forces x1=0 (else +10): 1 + 4 + 2 = 7; x0=1, x1=1, x2=1: 5 + 0 + 2 = 7;
     * x0=0, x1=0, x2=0 is 7 too and comes first in the order of choices. */
    int choice[3];
    cm_pbqp_solution sol;
    assert_int_equal(cm_pbqp_solve(p, NULL, choice, &sol, NULL), CM_OK);
    assert_true(sol.cost == 7.0);
    /* A fixed option is honoured. */
    int fixed[3] = {-1, 1, -1};
    assert_int_equal(cm_pbqp_solve(p, fixed, choice, &sol, NULL), CM_OK);
    assert_int_equal(choice[1], 1);
    assert_true(sol.cost == 7.0); /* 5 + 0 + 2 */
    /* Parallel edges add up (operation 2). */
    double more[4] = {1, 1, 1, 1};
    assert_int_equal(cm_pbqp_add_edge(p, 1, 0, more, NULL), CM_OK);
    assert_int_equal(cm_pbqp_edges(p), 2);
    assert_true(cm_pbqp_edge_cost(p, 0, 1, 0, 1) == 11.0);
    assert_int_equal(cm_pbqp_add_edge(p, 1, 1, more, NULL), CM_EINTERNAL);
    cm_pbqp_free(p);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_series_parallel_equals_exhaustive),
        cmocka_unit_test(test_non_series_parallel_is_heuristic),
        cmocka_unit_test(test_hand_path),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
