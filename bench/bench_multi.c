/* bench_multi: how long the multi-CNN scheduling takes (f-CNNx Table II rows 5-6: its
 * heuristic ran for an hour on 4 CNNs with 548 and 1454 subgraphs; the ILP was
 * intractable).
 *
 *   bench_multi [--runs N] ZOO_DIR
 *
 * 1. The list scheduler alone on 4 CNNs (LeNet and 3 x CIFAR-10, as Table II) with
 *    hundreds of subgraph executions per period: each network's smallest engine on a
 *    ZC706 (the most subgraphs), repeated until the period holds about 550 and 1450
 *    executions, at 1.5 and 3.8 GB/s. Median and minimum of N runs (default 3).
 * 2. The whole flow (Pareto fronts, joint points, schedules) on Table III's sets:
 *    ZFNet, SceneLabelCNN, VGG16 and the same with PilotNet, FPSobj, 1.0-3.8 GB/s.
 * Times are CLOCK_MONOTONIC around the library calls only. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "bench_util.h"
#include <cnnmap/cnnmap.h>

typedef struct set {
    int n;
    cm_graph *g[4];
    cm_multi_input in[4];
} set;

static int load_set(const char *dir, const char *const *names, const double *fps, int n, set *s)
{
    s->n = 0;
    for (int i = 0; i < n; i++) {
        char path[4096];
        cm_error err = {0};
        snprintf(path, sizeof path, "%s/%s.onnx", dir, names[i]);
        if (cm_model_load(path, &s->g[i], &err) != CM_OK) {
            fprintf(stderr, "bench_multi: %s\n", err.message);
            return 1;
        }
        s->in[i] = (cm_multi_input){s->g[i], names[i], fps ? fps[i] : 0.0};
        s->n++;
    }
    return 0;
}

static void free_set(set *s)
{
    for (int i = 0; i < s->n; i++)
        cm_graph_free(s->g[i]);
}

/* The engines: one cm_multi_map run gives every network's Pareto front. */
static cm_multi_result *fronts(const set *s, const cm_board *b, double gbps)
{
    cm_multi_options o;
    cm_multi_options_init(&o);
    o.bandwidth_gbps = gbps;
    o.objective = CM_MULTI_THROUGHPUT;
    cm_multi_result *r = NULL;
    cm_error err = {0};
    if (cm_multi_map(s->in, s->n, b, &o, &r, &err) != CM_OK)
        fprintf(stderr, "bench_multi: %s\n", err.message);
    return r;
}

/* Jobs from each network's slowest (most partitioned) engine, repeated rep[i] times. */
static int build_jobs(const cm_multi_result *r, int scale, cm_multi_job *jobs, double **buf)
{
    int tasks = 0;
    for (int i = 0; i < r->n_models; i++) {
        const cm_multi_engine *e = &r->models[i].front[r->models[i].n_front - 1];
        double *l = buf[2 * i], *by = buf[2 * i + 1];
        for (int s = 0; s < e->n_subgraphs; s++) {
            l[s] = e->subgraphs[s].latency_s;
            by[s] = e->subgraphs[s].bytes;
        }
        int reps = scale / e->n_subgraphs;
        jobs[i] = (cm_multi_job){e->n_subgraphs, l, by, reps < 1 ? 1 : reps};
        tasks += jobs[i].n_subgraphs * jobs[i].repetitions;
    }
    return tasks;
}

static void bench_scheduler(const cm_multi_result *r, double gbps, int scale, int runs)
{
    cm_multi_job jobs[4];
    double *buf[8];
    for (int i = 0; i < 2 * r->n_models; i++)
        buf[i] = malloc(((size_t)r->models[i / 2].front[r->models[i / 2].n_front - 1].n_subgraphs +
                         1) * sizeof **buf);
    int tasks = build_jobs(r, scale, jobs, buf);
    cm_multi_problem p = {r->n_models, jobs, gbps * 1e9};
    double t[runs];
    cm_multi_schedule s = {0};
    for (int k = 0; k < runs; k++) {
        cm_error err = {0};
        cm_multi_schedule_free(&s);
        double t0 = cm_bench_now();
        if (cm_multi_schedule_list(&p, 0, &s, &err) != CM_OK)
            fprintf(stderr, "bench_multi: %s\n", err.message);
        t[k] = cm_bench_now() - t0;
    }
    qsort(t, (size_t)runs, sizeof *t, cm_bench_cmp_double);
    printf("| 4 CNNs | %.1f GB/s | %d | %.3f | %.3f | %.4g ms | %llu |\n", gbps, tasks,
           t[runs / 2], t[0], s.period_s * 1e3, (unsigned long long)s.evaluations);
    cm_multi_schedule_free(&s);
    for (int i = 0; i < 2 * r->n_models; i++)
        free(buf[i]);
}

static void bench_flow(const char *label, const set *s, const cm_board *b, double gbps)
{
    cm_multi_options o;
    cm_multi_options_init(&o);
    o.bandwidth_gbps = gbps;
    cm_multi_result *r = NULL;
    cm_error err = {0};
    double t0 = cm_bench_now();
    if (cm_multi_map(s->in, s->n, b, &o, &r, &err) != CM_OK) {
        fprintf(stderr, "bench_multi: %s\n", err.message);
        return;
    }
    double t = cm_bench_now() - t0;
    printf("| %s | %.1f GB/s | %llu | %llu | %.2f | %.2f | %.2f | %.4f | %.4f |", label, gbps,
           (unsigned long long)r->joint_feasible, (unsigned long long)r->joint_scheduled,
           r->front_time_s, r->schedule_time_s, t, r->objective_value,
           r->baseline_objective_value);
    for (int i = 0; i < r->n_models; i++)
        printf(" %.2f/%.2f", r->models[i].gops, r->models[i].baseline_gops);
    printf(" |\n");
    cm_multi_result_free(r);
}

int main(int argc, char **argv)
{
    int runs = 3, first = 1;
    if (argc > 2 && !strcmp(argv[1], "--runs")) {
        runs = atoi(argv[2]);
        first = 3;
    }
    if (argc != first + 1 || runs < 1) {
        fprintf(stderr, "usage: bench_multi [--runs N] ZOO_DIR\n");
        return 1;
    }
    const char *dir = argv[first];
    cm_board b;
    cm_error err = {0};
    if (cm_board_builtin("zc706", &b, &err) != CM_OK)
        return 1;
    static const char *const small[] = {"lenet_zoo", "cifar10_quick", "cifar10_quick",
                                        "cifar10_quick"};
    set s;
    if (load_set(dir, small, NULL, 4, &s))
        return 1;
    printf("| set | bandwidth | executions | median s | min s | period | schedules |\n"
           "| --- | ---: | ---: | ---: | ---: | ---: | ---: |\n");
    static const double bw[2] = {1.5, 3.8};
    static const int scale[2] = {137, 363};  /* about 548 and 1452 executions */
    for (int k = 0; k < 2; k++) {
        cm_multi_result *r = fronts(&s, &b, bw[k]);
        if (r)
            bench_scheduler(r, bw[k], scale[k], runs);
        cm_multi_result_free(r);
    }
    free_set(&s);

    static const char *const three[] = {"zfnet", "scenelabel", "vgg16_fe"};
    static const char *const four[] = {"zfnet", "pilotnet", "scenelabel", "vgg16_fe"};
    static const double fps3[] = {25, 25, 4}, fps4[] = {25, 25, 25, 4};
    printf("\n| set | bandwidth | joint points | scheduled | fronts s | DSE s | total s | "
           "FPSobj | baseline | GOp/s per CNN (f-CNNx/baseline) |\n"
           "| --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | --- |\n");
    static const double table3[] = {1.0, 1.7, 2.0, 3.8};
    set s3, s4;
    if (load_set(dir, three, fps3, 3, &s3) || load_set(dir, four, fps4, 4, &s4))
        return 1;
    for (int k = 0; k < 4; k++)
        bench_flow("3 CNNs", &s3, &b, table3[k]);
    for (int k = 0; k < 4; k++)
        bench_flow("4 CNNs", &s4, &b, table3[k]);
    free_set(&s3);
    free_set(&s4);
    return 0;
}
