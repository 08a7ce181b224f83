/* Partitioned Boolean Quadratic Programming (DYNAMAP eq. 8): choose one option per
 * vertex to minimise the sum of vertex costs and edge-matrix costs.
 *
 * The solver applies the reductions of DYNAMAP section 4: a vertex of degree 2 is
 * removed and its two edges folded into one between its neighbours (operation 1),
 * parallel edges are summed (operation 2); vertices of degree 0 and 1 are removed
 * exactly too. When every vertex is removed this way the result is optimal; that covers
 * every series-parallel graph. When only vertices of degree 3 or more remain, the one
 * with most neighbours is fixed to its locally best option (the usual PBQP "RN"
 * heuristic), its edges become vertex costs, and reduction goes on; the result is then
 * not proven optimal. Costs may be INFINITY (a forbidden choice). */
#ifndef CM_OVERLAY_PBQP_H
#define CM_OVERLAY_PBQP_H

#include <stdbool.h>
#include <cnnmap/error.h>

typedef struct cm_pbqp cm_pbqp;

/* A problem of n vertices with domain[i] options each (>= 1), all costs zero. */
cm_status cm_pbqp_new(int n, const int *domain, cm_pbqp **out, cm_error *err);
void cm_pbqp_free(cm_pbqp *p);

int cm_pbqp_vertices(const cm_pbqp *p);
int cm_pbqp_domain(const cm_pbqp *p, int v);
int cm_pbqp_edges(const cm_pbqp *p); /* distinct vertex pairs joined */

/* Vertex v's cost vector, to fill in; domain(v) entries. */
double *cm_pbqp_costs(cm_pbqp *p, int v);

/* Adds matrix m (domain(u) rows x domain(v) columns, row-major) to the edge u-v,
 * creating it if absent. u != v. */
cm_status cm_pbqp_add_edge(cm_pbqp *p, int u, int v, const double *m, cm_error *err);

/* The edge matrix cost of u-v for choices (x at u, y at v); 0 with no edge. */
double cm_pbqp_edge_cost(const cm_pbqp *p, int u, int v, int x, int y);

/* The objective of a full assignment. */
double cm_pbqp_evaluate(const cm_pbqp *p, const int *choice);

typedef struct cm_pbqp_solution {
    double cost;
    bool optimal;
    int heuristic_vertex; /* the first vertex fixed by the heuristic, or -1 */
    int heuristic_steps;  /* how many were */
} cm_pbqp_solution;

/* Solves p (left unchanged) into choice[n]. When fixed is not NULL, a vertex with
 * fixed[v] >= 0 is restricted to that option. */
cm_status cm_pbqp_solve(const cm_pbqp *p, const int *fixed, int *choice, cm_pbqp_solution *sol,
                        cm_error *err);

#endif
