/* PBQP by series-parallel reduction, with the RN heuristic for what does not reduce. */
#include "overlay/pbqp.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "overlay/ov_util.h"

typedef struct pbqp_edge {
    int u, v;
    double *m; /* domain(u) x domain(v), row-major */
    bool alive;
} pbqp_edge;

typedef struct pbqp_vertex {
    int d;
    double *c;
    int *adj; /* edge ids, dead ones pruned lazily */
    int n_adj, cap_adj;
    bool alive;
} pbqp_vertex;

struct cm_pbqp {
    int n;
    pbqp_vertex *vs;
    int n_edges, cap_edges;
    pbqp_edge *es;
};

/* How a vertex left the graph, replayed backwards to recover its choice. */
typedef enum { RED_FIXED, RED_DEGREE1, RED_DEGREE2 } reduction_kind;

typedef struct reduction {
    reduction_kind kind;
    int v, u, w;
    int choice; /* RED_FIXED */
    int *table; /* argmin of v per choice of u (and w) */
} reduction;

cm_status cm_pbqp_new(int n, const int *domain, cm_pbqp **out, cm_error *err)
{
    cm_pbqp *p = calloc(1, sizeof *p);
    if (!p || !(p->vs = cm_ov_calloc(n, sizeof *p->vs))) {
        free(p);
        return cm_error_nomem(err);
    }
    p->n = n;
    for (int i = 0; i < n; i++) {
        p->vs[i].d = domain[i];
        p->vs[i].alive = true;
        if (!(p->vs[i].c = calloc((size_t)domain[i], sizeof(double)))) {
            cm_pbqp_free(p);
            return cm_error_nomem(err);
        }
    }
    *out = p;
    return CM_OK;
}

void cm_pbqp_free(cm_pbqp *p)
{
    if (!p)
        return;
    for (int i = 0; i < p->n; i++) {
        free(p->vs[i].c);
        free(p->vs[i].adj);
    }
    for (int e = 0; e < p->n_edges; e++)
        free(p->es[e].m);
    free(p->vs);
    free(p->es);
    free(p);
}

int cm_pbqp_vertices(const cm_pbqp *p)
{
    return p->n;
}

int cm_pbqp_domain(const cm_pbqp *p, int v)
{
    return p->vs[v].d;
}

int cm_pbqp_edges(const cm_pbqp *p)
{
    int n = 0;
    for (int e = 0; e < p->n_edges; e++)
        n += p->es[e].alive;
    return n;
}

double *cm_pbqp_costs(cm_pbqp *p, int v)
{
    return p->vs[v].c;
}

/* Cost of edge e with `from` choosing x and the other end y. */
static double ecost(const cm_pbqp *p, const pbqp_edge *e, int from, int x, int y)
{
    if (e->u == from)
        return e->m[x * p->vs[e->v].d + y];
    return e->m[y * p->vs[e->v].d + x];
}

static int other_end(const pbqp_edge *e, int v)
{
    return e->u == v ? e->v : e->u;
}

static int find_edge(const cm_pbqp *p, int u, int v)
{
    const pbqp_vertex *x = &p->vs[u];
    for (int k = 0; k < x->n_adj; k++) {
        const pbqp_edge *e = &p->es[x->adj[k]];
        if (e->alive && other_end(e, u) == v)
            return x->adj[k];
    }
    return -1;
}

static bool push_adj(pbqp_vertex *x, int e)
{
    int *a = cm_ov_grow(x->adj, &x->cap_adj, x->n_adj, sizeof *a, 4);
    if (!a)
        return false;
    x->adj = a;
    x->adj[x->n_adj++] = e;
    return true;
}

static cm_status new_edge(cm_pbqp *p, int u, int v, const double *m, cm_error *err)
{
    pbqp_edge *es = cm_ov_grow(p->es, &p->cap_edges, p->n_edges, sizeof *es, 16);
    if (!es)
        return cm_error_nomem(err);
    p->es = es;
    size_t n = (size_t)p->vs[u].d * (size_t)p->vs[v].d;
    pbqp_edge *e = &p->es[p->n_edges];
    if (!(e->m = malloc(n * sizeof(double))))
        return cm_error_nomem(err);
    memcpy(e->m, m, n * sizeof(double));
    e->u = u;
    e->v = v;
    e->alive = true;
    if (!push_adj(&p->vs[u], p->n_edges) || !push_adj(&p->vs[v], p->n_edges)) {
        free(e->m);
        return cm_error_nomem(err);
    }
    p->n_edges++;
    return CM_OK;
}

cm_status cm_pbqp_add_edge(cm_pbqp *p, int u, int v, const double *m, cm_error *err)
{
    if (u == v || u < 0 || v < 0 || u >= p->n || v >= p->n)
        return cm_error_set(err, CM_EINTERNAL, "PBQP edge %d-%d is not between two vertices", u, v);
    int id = find_edge(p, u, v);
    if (id < 0)
        return new_edge(p, u, v, m, err);
    pbqp_edge *e = &p->es[id]; /* operation 2: parallel edges add up */
    for (int x = 0; x < p->vs[u].d; x++)
        for (int y = 0; y < p->vs[v].d; y++) {
            double add = m[x * p->vs[v].d + y];
            if (e->u == u)
                e->m[x * p->vs[v].d + y] += add;
            else
                e->m[y * p->vs[u].d + x] += add;
        }
    return CM_OK;
}

double cm_pbqp_edge_cost(const cm_pbqp *p, int u, int v, int x, int y)
{
    int id = find_edge(p, u, v);
    return id < 0 ? 0.0 : ecost(p, &p->es[id], u, x, y);
}

double cm_pbqp_evaluate(const cm_pbqp *p, const int *choice)
{
    double total = 0.0;
    for (int i = 0; i < p->n; i++)
        total += p->vs[i].c[choice[i]];
    for (int e = 0; e < p->n_edges; e++)
        if (p->es[e].alive)
            total += p->es[e].m[choice[p->es[e].u] * p->vs[p->es[e].v].d + choice[p->es[e].v]];
    return total;
}

/* ---- solving on a private copy ---- */

static cm_status clone(const cm_pbqp *p, const int *fixed, cm_pbqp **out, cm_error *err)
{
    int *domain = cm_ov_calloc(p->n, sizeof *domain);
    if (!domain)
        return cm_error_nomem(err);
    for (int i = 0; i < p->n; i++)
        domain[i] = p->vs[i].d;
    cm_status st = cm_pbqp_new(p->n, domain, out, err);
    free(domain);
    for (int i = 0; st == CM_OK && i < p->n; i++)
        for (int x = 0; x < p->vs[i].d; x++)
            (*out)->vs[i].c[x] = fixed && fixed[i] >= 0 && fixed[i] != x ? INFINITY : p->vs[i].c[x];
    for (int e = 0; st == CM_OK && e < p->n_edges; e++)
        if (p->es[e].alive)
            st = new_edge(*out, p->es[e].u, p->es[e].v, p->es[e].m, err);
    if (st != CM_OK) {
        cm_pbqp_free(*out);
        *out = NULL;
    }
    return st;
}

static int degree(cm_pbqp *p, int v)
{
    pbqp_vertex *x = &p->vs[v];
    int k = 0;
    for (int i = 0; i < x->n_adj; i++)
        if (p->es[x->adj[i]].alive)
            x->adj[k++] = x->adj[i];
    x->n_adj = k;
    return k;
}

static int argmin(const double *c, int d)
{
    int best = 0;
    for (int x = 1; x < d; x++)
        if (c[x] < c[best])
            best = x;
    return best;
}

static void kill_edge(cm_pbqp *p, int e)
{
    p->es[e].alive = false;
    free(p->es[e].m);
    p->es[e].m = NULL;
}

/* Degree 1: v's best answer to each choice of its neighbour becomes the neighbour's cost. */
static cm_status reduce_degree1(cm_pbqp *p, int v, reduction *r, cm_error *err)
{
    int e = p->vs[v].adj[0], u = other_end(&p->es[e], v);
    int du = p->vs[u].d, dv = p->vs[v].d;
    if (!(r->table = malloc((size_t)du * sizeof(int))))
        return cm_error_nomem(err);
    for (int y = 0; y < du; y++) {
        double best = INFINITY;
        r->table[y] = 0;
        for (int x = 0; x < dv; x++) {
            double t = p->vs[v].c[x] + ecost(p, &p->es[e], v, x, y);
            if (t < best) {
                best = t;
                r->table[y] = x;
            }
        }
        p->vs[u].c[y] += best;
    }
    kill_edge(p, e);
    r->kind = RED_DEGREE1;
    r->u = u;
    return CM_OK;
}

/* Degree 2 (operation 1): v's best answer to each pair of neighbour choices becomes an
 * edge between the neighbours, summed into any edge already there (operation 2). */
static cm_status reduce_degree2(cm_pbqp *p, int v, reduction *r, cm_error *err)
{
    int e1 = p->vs[v].adj[0], e2 = p->vs[v].adj[1];
    int u = other_end(&p->es[e1], v), w = other_end(&p->es[e2], v);
    int du = p->vs[u].d, dw = p->vs[w].d, dv = p->vs[v].d;
    double *m = malloc((size_t)du * (size_t)dw * sizeof *m);
    r->table = malloc((size_t)du * (size_t)dw * sizeof(int));
    if (!m || !r->table) {
        free(m);
        return cm_error_nomem(err);
    }
    for (int y = 0; y < du; y++)
        for (int z = 0; z < dw; z++) {
            double best = INFINITY;
            int arg = 0;
            for (int x = 0; x < dv; x++) {
                double t = p->vs[v].c[x] + ecost(p, &p->es[e1], v, x, y) +
                           ecost(p, &p->es[e2], v, x, z);
                if (t < best) {
                    best = t;
                    arg = x;
                }
            }
            m[y * dw + z] = best;
            r->table[y * dw + z] = arg;
        }
    kill_edge(p, e1);
    kill_edge(p, e2);
    cm_status st = cm_pbqp_add_edge(p, u, w, m, err);
    free(m);
    r->kind = RED_DEGREE2;
    r->u = u;
    r->w = w;
    return st;
}

/* The heuristic: v takes the option best against its neighbours' own best answers. */
static void reduce_fixed(cm_pbqp *p, int v, reduction *r)
{
    pbqp_vertex *x = &p->vs[v];
    double best = INFINITY;
    int arg = 0;
    for (int i = 0; i < x->d; i++) {
        double t = x->c[i];
        for (int k = 0; k < x->n_adj; k++) {
            const pbqp_edge *e = &p->es[x->adj[k]];
            int n = other_end(e, v);
            double m = INFINITY;
            for (int y = 0; y < p->vs[n].d; y++)
                m = fmin(m, ecost(p, e, v, i, y) + p->vs[n].c[y]);
            t += m;
        }
        if (t < best || i == 0) {
            best = t;
            arg = i;
        }
    }
    for (int k = 0; k < x->n_adj; k++) {
        const pbqp_edge *e = &p->es[x->adj[k]];
        int n = other_end(e, v);
        for (int y = 0; y < p->vs[n].d; y++)
            p->vs[n].c[y] += ecost(p, e, v, arg, y);
        kill_edge(p, x->adj[k]);
    }
    r->kind = RED_FIXED;
    r->choice = arg;
}

/* The lowest-numbered live vertex of degree <= 2, or -1. */
static int next_reducible(cm_pbqp *p)
{
    for (int v = 0; v < p->n; v++)
        if (p->vs[v].alive && degree(p, v) <= 2)
            return v;
    return -1;
}

/* The live vertex with most neighbours (lowest number on ties). */
static int most_connected(cm_pbqp *p)
{
    int best = -1, best_deg = -1;
    for (int v = 0; v < p->n; v++)
        if (p->vs[v].alive && degree(p, v) > best_deg) {
            best = v;
            best_deg = p->vs[v].n_adj;
        }
    return best;
}

static cm_status reduce_one(cm_pbqp *q, reduction *r, cm_pbqp_solution *sol, cm_error *err)
{
    int v = next_reducible(q);
    cm_status st = CM_OK;
    if (v < 0) {
        v = most_connected(q);
        if (sol->heuristic_vertex < 0)
            sol->heuristic_vertex = v;
        sol->heuristic_steps++;
        reduce_fixed(q, v, r);
    } else if (q->vs[v].n_adj == 0) {
        r->kind = RED_FIXED;
        r->choice = argmin(q->vs[v].c, q->vs[v].d);
    } else if (q->vs[v].n_adj == 1) {
        st = reduce_degree1(q, v, r, err);
    } else {
        st = reduce_degree2(q, v, r, err);
    }
    r->v = v;
    q->vs[v].alive = false;
    return st;
}

static void replay(const cm_pbqp *p, const reduction *rs, int n, int *choice)
{
    for (int i = n - 1; i >= 0; i--) {
        const reduction *r = &rs[i];
        if (r->kind == RED_FIXED)
            choice[r->v] = r->choice;
        else if (r->kind == RED_DEGREE1)
            choice[r->v] = r->table[choice[r->u]];
        else
            choice[r->v] = r->table[choice[r->u] * p->vs[r->w].d + choice[r->w]];
    }
}

cm_status cm_pbqp_solve(const cm_pbqp *p, const int *fixed, int *choice, cm_pbqp_solution *sol,
                        cm_error *err)
{
    sol->heuristic_vertex = -1;
    sol->heuristic_steps = 0;
    cm_pbqp *q = NULL;
    cm_status st = clone(p, fixed, &q, err);
    if (st != CM_OK)
        return st;
    reduction *rs = cm_ov_calloc(p->n, sizeof *rs);
    if (!rs) {
        cm_pbqp_free(q);
        return cm_error_nomem(err);
    }
    int done = 0;
    while (st == CM_OK && done < p->n)
        st = reduce_one(q, &rs[done++], sol, err);
    if (st == CM_OK) {
        replay(p, rs, done, choice);
        sol->cost = cm_pbqp_evaluate(p, choice);
        sol->optimal = sol->heuristic_steps == 0;
    }
    for (int i = 0; i < done; i++)
        free(rs[i].table);
    free(rs);
    cm_pbqp_free(q);
    return st;
}
